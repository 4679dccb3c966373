/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line numbers for the oracle's tools (tunlink, bulk): a malformed or out-of-range
 * argument is a usage error (one line on stderr, exit 2), never a silent 0 as atof/atoi
 * would make it. */
#ifndef KBPF_TCP_ORACLE_ARGS_H
#define KBPF_TCP_ORACLE_ARGS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A number in [lo, hi]; what names it in the message ("rate_mbit"). */
static double arg_num(const char *tool, const char *what, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "%s: %s must be a number from %g to %g, not '%s'\n", tool, what, lo, hi, s);
		exit(2);
	}
	return v;
}

/* A whole number in [lo, hi]. */
static long arg_int(const char *tool, const char *what, const char *s, long lo, long hi)
{
	double v = arg_num(tool, what, s, (double)lo, (double)hi);

	if (v != (double)(long)v) {
		fprintf(stderr, "%s: %s must be a whole number from %ld to %ld, not '%s'\n", tool, what, lo, hi, s);
		exit(2);
	}
	return (long)v;
}

/* Any 64-bit unsigned whole number, decimal (a seed); strtoull would take '-3' and '1x'. */
static unsigned long long arg_u64(const char *tool, const char *what, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno) {
		fprintf(stderr, "%s: %s must be a whole number from 0 to 18446744073709551615, not '%s'\n", tool, what, s);
		exit(2);
	}
	return v;
}

#endif
