/* SPDX-License-Identifier: Apache-2.0 */
/* Cgroup storage as libbpf programs declare it: a shared and a per-CPU
 * CGROUP_STORAGE map keyed by struct bpf_cgroup_storage_key, and a cgroup_skb program
 * counting packets and bytes in them, letting every other packet through. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counts {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, struct counts);
} shared SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} percpu SEC(".maps");

SEC("cgroup_skb/egress")
int count_egress(struct __sk_buff *skb)
{
	struct counts *c = bpf_get_local_storage(&shared, 0);
	__u64 *mine = bpf_get_local_storage(&percpu, 0);
	__u64 n = __sync_fetch_and_add(&c->packets, 1);

	__sync_fetch_and_add(&c->bytes, skb->len);
	*mine += 1;
	return n & 1 ? 0 : 1;
}

char LICENSE[] SEC("license") = "GPL";
