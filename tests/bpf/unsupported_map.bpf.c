/* SPDX-License-Identifier: Apache-2.0 */
/* A Linux map type kbpf does not implement: the load names it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} devmap SEC(".maps");

SEC("tc")
int prog(void *ctx)
{
	__u32 v = 1;
	return bpf_map_update_elem(&devmap, &v, &v, 0);
}

char LICENSE[] SEC("license") = "GPL";
