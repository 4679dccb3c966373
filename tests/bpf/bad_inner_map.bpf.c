/* SPDX-License-Identifier: Apache-2.0 */
/* Unsupported: a map of maps (inner map definitions). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} inner1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps") = {
	.values = { [0] = &inner1 },
};

SEC("tc")
int prog(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&outer, &k) != 0;
}

char LICENSE[] SEC("license") = "GPL";
