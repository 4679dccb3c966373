/* SPDX-License-Identifier: Apache-2.0 */
/* BTF-defined maps of every type kbpf implements, used from one program; a program
 * array initialised statically. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
	__u32 a;
	__u32 b;
};

struct event {
	__u64 value;
	__u32 kind;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct pair);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 8);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} pcpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, __u64);
	__uint(map_flags, 0);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

SEC("tc")
int tail_target(void *ctx)
{
	return 9;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__uint(key_size, sizeof(__u32));
	__array(values, int(void *));
} jmp SEC(".maps") = {
	.values = { [1] = (void *)&tail_target },
};

/* 101 + 5 + 6 = 112 on the first run */
SEC("tc")
int use_maps(void *ctx)
{
	__u32 k = 1;
	__u64 v = 100, k64 = 7;
	struct pair pr = { .a = 5, .b = 6 };
	struct event *e;

	bpf_map_update_elem(&array, &k, &v, BPF_ANY);
	__u64 *p = bpf_map_lookup_elem(&array, &k);
	if (!p)
		return -1;
	*p += 1;
	bpf_map_update_elem(&hash, &k, &pr, BPF_NOEXIST);
	struct pair *pp = bpf_map_lookup_elem(&hash, &k);
	if (!pp)
		return -2;
	__u64 *pc = bpf_map_lookup_elem(&pcpu_array, &k);
	if (!pc)
		return -3;
	*pc += 3;
	bpf_map_update_elem(&pcpu_hash, &k, &v, BPF_ANY);
	bpf_map_update_elem(&lru, &k64, &v, BPF_ANY);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return -4;
	e->value = 77;
	e->kind = 1;
	bpf_ringbuf_submit(e, 0);
	__u64 x = 88;
	if (bpf_ringbuf_output(&rb, &x, sizeof(x), 0))
		return -5;
	return *p + pp->a + pp->b;
}

/* the map pointers themselves, compared: each LDDW names its own map */
SEC("tc")
int lookup_missing(void *ctx)
{
	__u32 k = 3;
	return bpf_map_lookup_elem(&hash, &k) == 0 && bpf_map_delete_elem(&hash, &k) == -2 /* -ENOENT */;
}

char LICENSE[] SEC("license") = "GPL";
