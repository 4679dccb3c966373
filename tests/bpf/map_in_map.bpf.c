/* SPDX-License-Identifier: Apache-2.0 */
/* Maps of maps as libbpf defines them: an ARRAY_OF_MAPS and a HASH_OF_MAPS whose inner
 * maps are described by `__array(values, struct inner)`, with slots set statically
 * (`.values = { [i] = &map }`), and a program that looks up outer -> inner -> value. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
};

struct inner inner_a SEC(".maps"), inner_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, struct inner);
} outer_arr SEC(".maps") = {
	.values = { [0] = &inner_a, [2] = &inner_b },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 8);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_HASH);
		__uint(max_entries, 16);
		__type(key, __u32);
		__type(value, __u32);
	});
} outer_hash SEC(".maps");

/* ctx: the outer slot to read; returns inner[1] + 1, or 0 for an empty slot. The value
 * is written back as inner[0] = slot, so the host sees which map the program used. */
SEC("syscall")
int two_level(__u32 *ctx)
{
	__u32 slot = *ctx, k0 = 0, k1 = 1;
	__u64 *v;
	void *inner = bpf_map_lookup_elem(&outer_arr, &slot);

	if (!inner)
		return 0;
	v = bpf_map_lookup_elem(inner, &k1);
	if (!v)
		return 0;
	__u64 slot64 = slot;
	bpf_map_update_elem(inner, &k0, &slot64, BPF_ANY);
	return *v + 1;
}

/* The hash of maps: inner[key] += 1 in the inner map at outer key 7, if any. */
SEC("syscall")
int count(void *ctx)
{
	__u32 k = 7, *v;
	void *inner = bpf_map_lookup_elem(&outer_hash, &k);

	if (!inner)
		return -1;
	v = bpf_map_lookup_elem(inner, &k);
	if (!v) {
		__u32 one = 1;
		bpf_map_update_elem(inner, &k, &one, BPF_NOEXIST);
		return 1;
	}
	__sync_fetch_and_add(v, 1);
	return *v;
}

char LICENSE[] SEC("license") = "GPL";
