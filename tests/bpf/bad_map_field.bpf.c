/* SPDX-License-Identifier: Apache-2.0 */
/* Bad input: a BTF map definition with a field libbpf does not know. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(frobnicate, 1);
} odd SEC(".maps");

SEC("tc")
int prog(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&odd, &k) != 0;
}

char LICENSE[] SEC("license") = "GPL";
