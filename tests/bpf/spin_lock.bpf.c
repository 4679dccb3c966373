// SPDX-License-Identifier: Apache-2.0
/* bpf_spin_lock in map values: maps whose value types (BTF, via __type) hold a struct
 * bpf_spin_lock, as libbpf passes them to map creation. `incr` adds 1 to the array's
 * counter under its lock and returns the new count; `hash_incr` does the same in a hash
 * map element it creates on first use; `peek` reads without the lock. syscall
 * programs: kbpf run gives them a zeroed context. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counter {
	int cnt;
	struct bpf_spin_lock lock;
	long long total;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counter);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct counter);
} hcounters SEC(".maps");

SEC("syscall")
int incr(void *ctx)
{
	__u32 key = 0;
	struct counter *c = bpf_map_lookup_elem(&counters, &key);
	int n;

	if (!c)
		return -1;
	bpf_spin_lock(&c->lock);
	n = ++c->cnt;
	c->total += n;
	bpf_spin_unlock(&c->lock);
	return n;
}

SEC("syscall")
int hash_incr(void *ctx)
{
	struct counter zero = {};
	__u32 key = 7;
	struct counter *c = bpf_map_lookup_elem(&hcounters, &key);
	int n;

	if (!c) {
		bpf_map_update_elem(&hcounters, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&hcounters, &key);
		if (!c)
			return -1;
	}
	bpf_spin_lock(&c->lock);
	n = ++c->cnt;
	bpf_spin_unlock(&c->lock);
	return n;
}

SEC("syscall")
int peek(void *ctx)
{
	__u32 key = 0;
	struct counter *c = bpf_map_lookup_elem(&counters, &key);

	return c ? c->cnt : -1;
}

char LICENSE[] SEC("license") = "GPL";
