/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_strtol / bpf_strtoul (Linux 6.1 kernel/bpf/helpers.c semantics): parse an integer
 * from at most buf_len bytes (not NUL-terminated), base 0/8/10/16 in flags' low 5 bits,
 * leading spaces and one '-' allowed; return the bytes consumed, or -EINVAL (nothing to
 * parse, bad flags, a '-' for strtoul) or -ERANGE (overflow). *res is written on every
 * path, 0 on an error (Linux 6.12: the verifier takes *res as written whatever the
 * result, so a stale value there would be uninitialised stack the program then reads). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "linux_internal.h"

#define STRTOX_BASE_MASK 0x1Fu

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20; /* lower case */
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
}

/* The unsigned magnitude and its sign; >= 0 bytes consumed, else -errno. */
static int parse_ull(const char *buf, uint64_t buf_len, uint64_t flags, uint64_t *res, bool *negative)
{
	unsigned base = (unsigned)(flags & STRTOX_BASE_MASK);
	const char *end = buf + buf_len, *cur = buf;
	char str[64];

	if (!buf || !buf_len)
		return -EINVAL;
	if ((base != 0 && base != 8 && base != 10 && base != 16) || (flags & ~(uint64_t)STRTOX_BASE_MASK))
		return -EINVAL;
	while (cur < end && is_space(*cur))
		cur++;
	*negative = cur < end && *cur == '-';
	if (*negative)
		cur++;
	size_t consumed = (size_t)(cur - buf), len = (size_t)(end - cur);
	if (!len)
		return -EINVAL;
	if (len > sizeof(str) - 1) /* Linux parses a 63-byte copy */
		len = sizeof(str) - 1;
	memcpy(str, cur, len);
	str[len] = 0;
	const char *s = str;
	if (base == 0)
		base = s[0] != '0' ? 10 : (s[1] | 0x20) == 'x' && digit_value(s[2]) < 16 ? 16 : 8;
	if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	uint64_t v = 0;
	bool overflow = false;
	const char *d = s;
	for (int dv; (dv = digit_value(*d)) < (int)base; d++) {
		if (v > (UINT64_MAX - (uint64_t)dv) / base)
			overflow = true;
		v = v * base + (uint64_t)dv;
	}
	if (overflow)
		return -ERANGE;
	if (d == s)
		return -EINVAL;
	*res = v;
	return (int)(consumed + (size_t)(d - str));
}

KBPF_LINUX_HELPER(strtol)
{
	(void)r5;
	uint64_t v;
	bool neg;
	*(int64_t *)(uintptr_t)r4 = 0;
	int n = parse_ull((const char *)(uintptr_t)r1, r2, r3, &v, &neg);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	if (neg ? (int64_t)(0 - v) > 0 : (int64_t)v < 0)
		return (uint64_t)(int64_t)-ERANGE;
	*(int64_t *)(uintptr_t)r4 = neg ? (int64_t)(0 - v) : (int64_t)v;
	return (uint64_t)n;
}

KBPF_LINUX_HELPER(strtoul)
{
	(void)r5;
	uint64_t v;
	bool neg;
	*(uint64_t *)(uintptr_t)r4 = 0;
	int n = parse_ull((const char *)(uintptr_t)r1, r2, r3, &v, &neg);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	if (neg)
		return (uint64_t)(int64_t)-EINVAL;
	*(uint64_t *)(uintptr_t)r4 = v;
	return (uint64_t)n;
}
