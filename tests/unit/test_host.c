/* SPDX-License-Identifier: Apache-2.0 */
/* The host registry: helper registration and lookup. */
#include <errno.h>
#include <kbpf/host.h>
#include "test.h"

static uint64_t h_a(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a + b + c + d + e;
}
static uint64_t h_b(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)b, (void)c, (void)d, (void)e;
	return a * 2;
}

static void test_register_and_find(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const char *name = NULL;

	CHECK(host);
	CHECK_EQ_U64(kbpf_host_helper_register(host, 42, "forty_two", h_a), 0);
	CHECK_EQ_U64(kbpf_host_helper_register(host, 1, "one", h_b), 0);
	for (int i = 100; i > 50; i--) /* out-of-order inserts keep the table sorted */
		CHECK_EQ_U64(kbpf_host_helper_register(host, i, "many", h_b), 0);
	CHECK(kbpf_host_helper_find(host, 42, &name) == h_a);
	CHECK_STR(name, "forty_two");
	CHECK(kbpf_host_helper_find(host, 1, NULL) == h_b);
	CHECK(kbpf_host_helper_find(host, 77, NULL) == h_b);
	CHECK(kbpf_host_helper_find(host, 2, NULL) == NULL);
	CHECK(kbpf_host_helper_find(host, 101, NULL) == NULL);
	CHECK(kbpf_host_helper_find(NULL, 1, NULL) == NULL);
	kbpf_host_free(host);
}

static void test_bad_registrations(void)
{
	struct kbpf_host *host = kbpf_host_new();

	CHECK_EQ_U64(kbpf_host_helper_register(host, 5, "x", h_a), 0);
	CHECK_EQ_U64(kbpf_host_helper_register(host, 5, "y", h_b), (uint64_t)-EEXIST);
	CHECK_EQ_U64(kbpf_host_helper_register(host, -1, "neg", h_a), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_helper_register(host, 6, "null", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_helper_register(NULL, 6, "nohost", h_a), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_helper_register(host, 7, NULL, h_a), 0); /* unnamed is allowed */
	kbpf_host_free(host);
	kbpf_host_free(NULL);
}

int main(void)
{
	RUN(test_register_and_find);
	RUN(test_bad_registrations);
	return test_summary();
}
