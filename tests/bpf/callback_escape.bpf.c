// SPDX-License-Identifier: Apache-2.0
/* Programs that rely on a callback running exactly once (issue 16, class 1). Linux 6.1,
 * and kbpf before it took Linux 6.7's rule, walked a callback once and went on with
 * the state it left; at run time bpf_loop and bpf_for_each_map_elem call it 0..N times,
 * and each program below then reads or writes far outside its map value (`kbpf run
 * --checked` reports the access; unchecked, the host faults). Each must be refused
 * (tests/cli/verify.sh); `safe_counter` is the accepted control. All are "?tc". */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct idx_ctx {
	__u64 i;
};

struct bpf_map;

struct ptr_ctx {
	__u64 *p;
};

static int set_zero(__u32 idx, struct idx_ctx *c)
{
	c->i = 0;
	return 0;
}

/* the callback would make the index 0; with a count of 0 it stays 16 MiB */
SEC("?tc")
int zero_calls(struct __sk_buff *skb)
{
	struct idx_ctx c = { .i = 1 << 24 };
	__u32 key = 0;
	__u8 *v = bpf_map_lookup_elem(&arr, &key);

	if (!v)
		return 0;
	bpf_loop(0, set_zero, &c, 0);
	return v[c.i];
}

static int step(__u32 idx, struct idx_ctx *c)
{
	c->i += 4;
	return 0;
}

/* one call leaves the index at 4 (inside the 8-byte value); 2^20 calls, 4 MiB past it */
SEC("?tc")
int n_calls(struct __sk_buff *skb)
{
	struct idx_ctx c = { .i = 0 };
	__u32 key = 0;
	__u8 *v = bpf_map_lookup_elem(&arr, &key);

	if (!v)
		return 0;
	bpf_loop(1 << 20, step, &c, 0);
	*(__u32 *)(v + c.i) = 0xdead;
	return 0;
}

static int forge(__u32 idx, struct ptr_ctx *c)
{
	if (idx == 0) {
		c->p = (__u64 *)0xdead0000;
		return 0;
	}
	*c->p = 1;
	return 0;
}

/* the first call replaces the map value pointer with a number, the second writes there */
SEC("?tc")
int second_call(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct ptr_ctx c = { .p = bpf_map_lookup_elem(&arr, &key) };

	if (!c.p)
		return 0;
	bpf_loop(2, forge, &c, 0);
	return 0;
}

static __u64 state_machine(struct bpf_map *map, __u32 *key, __u64 *val, struct idx_ctx *c)
{
	if (c->i == 0)
		c->i = 1;
	else if (c->i == 1)
		c->i = 1 << 24;
	return 0;
}

/* i goes 0 -> 1 -> 16 MiB over the map's 4 elements; one call leaves 1 */
SEC("?tc")
int for_each_calls(struct __sk_buff *skb)
{
	struct idx_ctx c = { .i = 0 };
	__u32 key = 0;
	__u8 *v = bpf_map_lookup_elem(&arr, &key);

	if (!v)
		return 0;
	bpf_for_each_map_elem(&arr, state_machine, &c, 0);
	return v[c.i];
}

static __u64 count(struct bpf_map *map, __u32 *key, __u64 *val, struct idx_ctx *c)
{
	c->i++;
	return 0;
}

/* safe for any number of calls: the count is only returned */
SEC("?tc")
int safe_counter(struct __sk_buff *skb)
{
	struct idx_ctx c = { .i = 0 };

	bpf_for_each_map_elem(&arr, count, &c, 0);
	return c.i;
}

char _license[] SEC("license") = "GPL";
