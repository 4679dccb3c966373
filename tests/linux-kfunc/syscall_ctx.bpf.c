// SPDX-License-Identifier: Apache-2.0
/* A syscall program whose context is the caller's 24-byte struct (cli_cap_ctx.sh): its
 * max_ctx_offset is 24, so a test run with a shorter context is refused. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sum_args {
	__u64 sum, a, b;
};

SEC("syscall")
int sum(struct sum_args *args)
{
	args->sum = args->a + args->b;
	return (int)args->b;
}

char _license[] SEC("license") = "GPL";
