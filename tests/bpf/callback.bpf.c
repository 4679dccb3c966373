/* SPDX-License-Identifier: Apache-2.0 */
/* A subprogram's address (BPF_PSEUDO_FUNC), as bpf_loop() callbacks take it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static int add_one(__u32 index, void *ctx)
{
	*(long *)ctx += index;
	return 0;
}

SEC("tc")
int loop(void *ctx)
{
	long sum = 0;

	bpf_loop(4, add_one, &sum, 0);
	return sum;
}

char LICENSE[] SEC("license") = "GPL";
