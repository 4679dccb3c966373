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

static inline int test_summary(void)
{
	printf("%d passed, %d failed\n", test_passed_total, test_failed_total);
	return test_failed_total ? 1 : 0;
}

#endif
