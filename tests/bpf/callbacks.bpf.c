/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks and global functions as clang emits them: bpf_loop and
 * bpf_for_each_map_elem with static callbacks (ld_imm64 BPF_PSEUDO_FUNC), and global
 * (non-static) functions the verifier checks on their own from their BTF prototype. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_map;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

struct loop_ctx {
	__u64 sum;
	__u32 stop_at;
};

static int add_index(__u32 index, void *data)
{
	struct loop_ctx *c = data;

	if (index == c->stop_at)
		return 1; /* stop: bpf_loop returns index + 1 */
	c->sum += index;
	return 0;
}

/* 0+1+…+6 = 21, and the loop made 8 calls (the 8th stopped it): 21 * 100 + 8 */
SEC("tc")
int loop_stop(void *ctx)
{
	struct loop_ctx c = { .sum = 0, .stop_at = 7 };
	long n = bpf_loop(100, add_index, &c, 0);

	return c.sum * 100 + n;
}

static __always_inline void put(void *map, __u32 key, __u64 val)
{
	bpf_map_update_elem(map, &key, &val, BPF_ANY);
}

static __u64 sum_elem(struct bpf_map *map, __u32 *key, __u64 *val, __u64 *sum)
{
	*sum += *val + *key;
	*val += 1; /* the callback may write the value */
	return 0;
}

/* arr[i] = 10 * i, then the callback sums value + key over the 4 slots: 60 + 6 = 66,
 * and adds one to each value: arr[3] is 31 afterwards. 66 * 100 + arr[3] = 6631 */
SEC("tc")
int each_array(void *ctx)
{
	__u64 sum = 0, *v;

	/* no loop: a loop counter passed by address to a helper is clobbered (Linux's
	 * rule too), which makes such a loop look endless to the verifier */
	put(&arr, 0, 0);
	put(&arr, 1, 10);
	put(&arr, 2, 20);
	put(&arr, 3, 30);
	bpf_for_each_map_elem(&arr, sum_elem, &sum, 0);
	__u32 k = 3;
	v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return -1;
	return sum * 100 + *v;
}

static __u64 count_elem(struct bpf_map *map, __u32 *key, __u64 *val, __u64 *sum)
{
	*sum += *val;
	return *key == 1000; /* never: visits every element */
}

/* three entries 1, 2, 4: the walk sees 3 elements summing to 7 -> 73 */
SEC("tc")
int each_hash(void *ctx)
{
	__u64 sum = 0;

	put(&hash, 0, 1);
	put(&hash, 1, 2);
	put(&hash, 2, 4);
	long n = bpf_for_each_map_elem(&hash, count_elem, &sum, 0);
	return sum * 10 + n;
}

/* Global functions: verified once, for any arguments of their prototype. */
__attribute__((noinline)) int global_scale(int a, int b)
{
	return a * 10 + b;
}

__attribute__((noinline)) int global_deref(__u64 *p)
{
	if (!p)
		return -1; /* the pointer may be NULL: the check is required */
	return *p + 1;
}

SEC("tc")
int globals_call(void *ctx)
{
	__u64 v = 41;

	return global_scale(4, 2) + global_deref(&v) + global_deref(0); /* 42 + 42 - 1 */
}

char LICENSE[] SEC("license") = "GPL";
