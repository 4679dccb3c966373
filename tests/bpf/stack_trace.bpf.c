// SPDX-License-Identifier: Apache-2.0
/* bpf_get_stackid / bpf_get_stack from raw tracepoint programs, the stack trace map
 * written as libbpf's examples write it (a u64 ips[] value of PERF_MAX_STACK_DEPTH
 * entries). stackid returns the id of the stack it stored; depth returns how many
 * frames bpf_get_stack gave (bytes / 8); skip_all asks to skip more frames than there
 * are (-EFAULT). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_DEPTH 32

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 64);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

SEC("raw_tp/kbpf_test")
int stackid(void *ctx)
{
	return bpf_get_stackid(ctx, &stacks, 0);
}

SEC("raw_tp/kbpf_test")
int depth(void *ctx)
{
	__u64 ips[MAX_DEPTH];
	long n = bpf_get_stack(ctx, ips, sizeof(ips), 0);

	return n < 0 ? n : (__u64)n >> 3;
}

SEC("raw_tp/kbpf_test")
int skip_all(void *ctx)
{
	return bpf_get_stackid(ctx, &stacks, 255);
}

char LICENSE[] SEC("license") = "GPL";
