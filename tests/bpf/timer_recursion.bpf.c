/* SPDX-License-Identifier: Apache-2.0 */
/* A timer callback whose static subprog calls itself, bounded (3 levels on the walk).
 * Linux 6.12's check_cfg lets the call's back-edge through for privileged programs and
 * check_max_stack_depth refuses the recursion from every root, the async callback's
 * included ("the call stack of 8 frames is too deep !"). tests/unit/test_object_timer.c
 * loads it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1

struct elem {
	struct bpf_timer t;
	__u64 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct elem);
} arr SEC(".maps");

/* r1 + 1 until 3, then returns it: the recursion clang would turn into a loop, kept
 * as calls */
__attribute__((naked, noinline, used)) static int recurse(int n)
{
	asm volatile("r1 += 1;"
		     "r0 = r1;"
		     "if r1 < 3 goto 1f;"
		     "exit;"
		     "1: call recurse;"
		     "exit;" ::: "memory");
}

static int cb(void *map, __u32 *key, struct elem *val)
{
	val->depth = recurse(0);
	return 0;
}

SEC("tc")
int arm(void *ctx)
{
	__u32 key = 0;
	struct elem *e = bpf_map_lookup_elem(&arr, &key);

	if (!e)
		return 0;
	if (bpf_timer_init(&e->t, &arr, CLOCK_MONOTONIC))
		return 0;
	bpf_timer_set_callback(&e->t, cb);
	return 0;
}

char _license[] SEC("license") = "GPL";
