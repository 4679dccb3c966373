/* SPDX-License-Identifier: Apache-2.0 */
/* Unsupported, as in libbpf: a map of maps of maps (an inner definition with inner maps). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct leaf {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};

struct middle {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct leaf);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct middle);
} outer SEC(".maps");

SEC("tc")
int prog(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&outer, &k) != 0;
}

char LICENSE[] SEC("license") = "GPL";
