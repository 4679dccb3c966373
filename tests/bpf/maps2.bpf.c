// SPDX-License-Identifier: Apache-2.0
/* LPM trie, queue, stack and bloom filter maps as libbpf programs declare them, used by
 * raw tracepoint programs that `kbpf run` runs: queue_fifo pushes 1, 2, 3 and pops them
 * (returns 123), stack_lifo the same on the stack (321), lpm_route stores 10.0.0.0/8
 * and 10.1.0.0/16 and looks up 10.1.2.3 and 10.9.9.9 (returns 16 * 100 + 8), bloom adds
 * 42 and tests 42 (maybe present) and 43 (absent) (returns 3). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct ipv4_key {
	__u32 prefixlen;
	__u8 addr[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 8);
	__type(value, __u32);
} queue SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 8);
	__type(value, __u32);
} stack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ipv4_key);
	__type(value, __u32);
} routes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 100);
	__uint(map_extra, 3);
	__type(value, __u64);
} seen SEC(".maps");

static __always_inline __u32 push3_pop3(void *map)
{
	__u32 a = 1, b = 2, c = 3, x = 0, y = 0, z = 0;

	if (bpf_map_push_elem(map, &a, 0) || bpf_map_push_elem(map, &b, 0) || bpf_map_push_elem(map, &c, 0))
		return 999;
	if (bpf_map_pop_elem(map, &x) || bpf_map_pop_elem(map, &y) || bpf_map_pop_elem(map, &z))
		return 998;
	return x * 100 + y * 10 + z;
}

SEC("raw_tp/kbpf_test")
int queue_fifo(void *ctx)
{
	return push3_pop3(&queue);
}

SEC("raw_tp/kbpf_test")
int stack_lifo(void *ctx)
{
	return push3_pop3(&stack);
}

SEC("raw_tp/kbpf_test")
int lpm_route(void *ctx)
{
	struct ipv4_key k = { 8, { 10, 0, 0, 0 } };
	__u32 v = 8, *a, *b;

	bpf_map_update_elem(&routes, &k, &v, BPF_ANY);
	k.prefixlen = 16;
	k.addr[1] = 1;
	v = 16;
	bpf_map_update_elem(&routes, &k, &v, BPF_ANY);
	k.prefixlen = 32;
	k.addr[2] = 2;
	k.addr[3] = 3;
	a = bpf_map_lookup_elem(&routes, &k);
	k.addr[1] = 9;
	b = bpf_map_lookup_elem(&routes, &k);
	if (!a || !b)
		return -1;
	return *a * 100 + *b;
}

SEC("raw_tp/kbpf_test")
int bloom(void *ctx)
{
	__u64 v = 42;

	bpf_map_push_elem(&seen, &v, 0);
	int present = bpf_map_peek_elem(&seen, &v) == 0;
	v = 43;
	int absent = bpf_map_peek_elem(&seen, &v) == -2; /* -ENOENT */
	return present + 2 * absent;
}

char LICENSE[] SEC("license") = "GPL";
