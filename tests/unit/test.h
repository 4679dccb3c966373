/* SPDX-License-Identifier: Apache-2.0 */
/* A small assertion header for unit tests. Each test file defines test functions,
 * lists them in main() with RUN(fn), and returns test_summary().  A failed CHECK
 * prints file:line and the expression and marks the current test failed; the file
 * ends with "N passed, N failed". */
#ifndef KBPF_TEST_H
#define KBPF_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <kbpf/kbpf.h>

static int test_failed_now, test_passed_total, test_failed_total;

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			test_failed_now = 1;                                       \
		}                                                                  \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                         \
	do {                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                   \
		if (a_ != b_) {                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);                \
			test_failed_now = 1;                                       \
		}                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                            \
	do {                                                                       \
		const char *a_ = (a), *b_ = (b);                                   \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
			test_failed_now = 1;                                       \
		}                                                                  \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                \
	do {                                                                       \
		const char *h_ = (hay), *n_ = (needle);                            \
		if (!h_ || !strstr(h_, n_)) {                                      \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, \
				__LINE__, h_ ? h_ : "(null)", n_);                  \
			test_failed_now = 1;                                       \
		}                                                                  \
	} while (0)

#define RUN(fn)                                                                    \
	do {                                                                       \
		test_failed_now = 0;                                               \
		fn();                                                              \
		if (test_failed_now) {                                             \
			test_failed_total++;                                       \
			fprintf(stderr, "FAIL %s\n", #fn);                         \
		} else {                                                           \
			test_passed_total++;                                       \
		}                                                                  \
	} while (0)

/* A verifier's verdict: expect NULL, it must have passed (else the log is printed);
 * otherwise it must have refused, with expect in its log. Returns err. */
static inline int check_verdict(int err, const char *log, const char *expect)
{
	if (!expect) {
		if (err)
			fprintf(stderr, "unexpected rejection (%d):\n%s\n", err, log);
		CHECK_EQ_U64(err, 0);
	} else {
		if (!err)
			fprintf(stderr, "unexpected acceptance, expected \"%s\":\n%s\n", expect, log);
		CHECK(err != 0);
		CHECK_CONTAINS(log, expect);
	}
	return err;
}

/* The id of the type name of a BTF_KIND_* kind in the host's BTF; a miss fails the
 * current test and gives 0. */
static inline int32_t test_btf_id(const struct kbpf_host *host, const char *name, uint32_t kind)
{
	int32_t id = kbpf_host_btf_find(host, name, kind);
	if (id <= 0) {
		fprintf(stderr, "no BTF %s (kind %u) in the host\n", name, kind);
		test_failed_now = 1;
		return 0;
	}
	return id;
}

static inline int test_summary(void)
{
	printf("%d passed, %d failed\n", test_passed_total, test_failed_total);
	return test_failed_total ? 1 : 0;
}

#endif
