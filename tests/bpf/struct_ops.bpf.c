/* SPDX-License-Identifier: Apache-2.0 */
/* .struct_ops and .struct_ops.link variables: which program fills which member. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct kbpf_test_ops {
	int (*init)(void *ctx);
	int (*calc)(int a, int b);
	void (*release)(void *ctx);
	int flags;
	char name[16];
};

SEC("struct_ops/test_init")
int test_init(unsigned long long *ctx)
{
	return 0;
}

SEC("struct_ops/test_calc")
int test_calc(unsigned long long *ctx)
{
	return (int)(ctx[0] + ctx[1]);
}

SEC(".struct_ops")
struct kbpf_test_ops first_ops = {
	.init = (void *)test_init,
	.calc = (void *)test_calc,
	.flags = 3,
	.name = "first",
};

SEC(".struct_ops.link")
struct kbpf_test_ops second_ops = {
	.calc = (void *)test_calc,
	.flags = 4,
	.name = "second",
};

char LICENSE[] SEC("license") = "GPL";
