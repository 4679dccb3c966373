/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_strtol / bpf_strtoul of hosts/linux against Linux's rules (helpers_strtox.c): 6.1's
 * parsing, 6.12's zeroed result on an error. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "test.h"

/* hosts/linux/src/linux_internal.h: the helpers as the engines call them */
uint64_t kbpf_linux_strtol(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);
uint64_t kbpf_linux_strtoul(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);

static int64_t sl(const char *s, size_t len, uint64_t flags, int64_t *res)
{
	return (int64_t)kbpf_linux_strtol((uintptr_t)s, len, flags, (uintptr_t)res, 0);
}

static int64_t sul(const char *s, size_t len, uint64_t flags, uint64_t *res)
{
	return (int64_t)kbpf_linux_strtoul((uintptr_t)s, len, flags, (uintptr_t)res, 0);
}

static void test_strtol(void)
{
	int64_t v = 7;
	CHECK_EQ_U64(sl("  -123x", 7, 0, &v), 6); /* spaces and sign count as consumed */
	CHECK_EQ_U64(v, (uint64_t)-123);
	CHECK_EQ_U64(sl("0x1f", 4, 0, &v), 4);
	CHECK_EQ_U64(v, 31);
	CHECK_EQ_U64(sl("0x1f", 4, 16, &v), 4);
	CHECK_EQ_U64(sl("017", 3, 0, &v), 3); /* base 0: octal */
	CHECK_EQ_U64(v, 15);
	CHECK_EQ_U64(sl("0x", 2, 0, &v), 1); /* "0" then 'x': octal 0, one byte */
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_U64(sl("12345", 2, 10, &v), 2); /* not NUL-terminated: only buf_len bytes */
	CHECK_EQ_U64(v, 12);
	v = 7;
	CHECK_EQ_U64(sl("x", 1, 0, &v), (uint64_t)-EINVAL);
	CHECK_EQ_U64(v, 0); /* zeroed on error (Linux 6.12): the verifier takes it as written */
	CHECK_EQ_U64(sl("   ", 3, 0, &v), (uint64_t)-EINVAL);
	CHECK_EQ_U64(sl("1", 1, 2, &v), (uint64_t)-EINVAL);    /* base 2 */
	CHECK_EQ_U64(sl("1", 1, 0x20, &v), (uint64_t)-EINVAL); /* unknown flag */
	CHECK_EQ_U64(sl("9223372036854775807", 19, 10, &v), 19);
	CHECK_EQ_U64(v, INT64_MAX);
	CHECK_EQ_U64(sl("9223372036854775808", 19, 10, &v), (uint64_t)-ERANGE);
	CHECK_EQ_U64(sl("-9223372036854775808", 20, 10, &v), 20);
	CHECK_EQ_U64(v, (uint64_t)INT64_MIN);
	CHECK_EQ_U64(sl("99999999999999999999", 20, 10, &v), (uint64_t)-ERANGE);
}

static void test_strtoul(void)
{
	uint64_t v = 7;
	CHECK_EQ_U64(sul("18446744073709551615", 20, 10, &v), 20);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_U64(sul("18446744073709551616", 20, 10, &v), (uint64_t)-ERANGE);
	CHECK_EQ_U64(sul("-1", 2, 10, &v), (uint64_t)-EINVAL);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_U64(sul("\tFF ", 4, 16, &v), 3);
	CHECK_EQ_U64(v, 255);
}

int main(void)
{
	RUN(test_strtol);
	RUN(test_strtoul);
	return test_summary();
}
