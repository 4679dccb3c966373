/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE across an array whose dimension changed: this program believes int a[5], the
 * target (core_array_target.bpf.c, given as --btf) has int a[7]. libbpf compares the
 * element's size for a load, not the array's: *s->a relocates (before, it was poisoned:
 * "its size changed"), b moves from 20 to 28
 * (tests/cli/core_array.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct arr_s {
	int a[5];
	int b;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, 64);
} vals SEC(".maps");

SEC("socket")
int read_arr(void *ctx)
{
	__u32 k = 0;
	struct arr_s *s = bpf_map_lookup_elem(&vals, &k);

	if (!s)
		return 0;
	/* *s->a: the access is to field a itself (0:0), loaded 4 bytes wide */
	return *s->a + s->a[2] + s->b;
}

char LICENSE[] SEC("license") = "GPL";
