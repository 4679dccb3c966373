/* SPDX-License-Identifier: Apache-2.0 */
/* A legacy map definition (SEC("maps"), struct bpf_map_def), which libbpf 1.x dropped
 * and kbpf still reads. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

struct bpf_map_def SEC("maps") legacy_counts = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u64),
	.max_entries = 2,
};

struct bpf_map_def SEC("maps") legacy_hash = {
	.type = BPF_MAP_TYPE_HASH,
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u32),
	.max_entries = 4,
};

SEC("socket")
int legacy(void *ctx)
{
	__u32 k = 1, one = 1;
	__u64 *v = bpf_map_lookup_elem(&legacy_counts, &k);

	if (!v)
		return 0;
	*v += 5;
	bpf_map_update_elem(&legacy_hash, &k, &one, BPF_ANY);
	return *v;
}

char LICENSE[] SEC("license") = "GPL";
