/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer as clang emits it (Linux 6.1's helpers): a map value holding a struct
 * bpf_timer, a callback subprogram that counts and re-arms itself, the helpers' errnos,
 * cancel from a timer's own callback, and a hash map's timer. The tests
 * (tests/unit/test_object_timer.c) run these and then fire the timers. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_BOOTTIME 7

struct elem {
	struct bpf_timer t;
	__u64 count;  /* callback runs */
	__u64 limit;  /* re-arm while count < limit */
	__s64 result; /* what a helper called from the callback returned */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct elem);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct elem);
} hash SEC(".maps");

/* Counts, and re-arms itself 1000 ns later until it has run `limit` times; the key it
 * is given must be the element's (array: the index). */
static int count_cb(void *map, __u32 *key, struct elem *val)
{
	val->count++;
	if (val->count < val->limit)
		val->result = bpf_timer_start(&val->t, 1000, 0);
	else
		val->result = *key;
	return 0;
}

/* Cancels its own timer: Linux returns -EDEADLK. */
static int self_cancel_cb(void *map, __u32 *key, struct elem *val)
{
	val->count++;
	val->result = bpf_timer_cancel(&val->t);
	return 0;
}

static struct elem *elem_of(void *map, __u32 key)
{
	return bpf_map_lookup_elem(map, &key);
}

/* arr[key 1]: init, callback, start in 1000 ns; the callback runs 3 times. */
SEC("tc")
int arm(void *ctx)
{
	struct elem *e = elem_of(&arr, 1);
	long r;

	if (!e)
		return -1;
	e->limit = 3;
	r = bpf_timer_init(&e->t, &arr, CLOCK_MONOTONIC);
	if (r)
		return r;
	r = bpf_timer_set_callback(&e->t, count_cb);
	if (r)
		return r;
	return bpf_timer_start(&e->t, 1000, 0);
}

/* The helpers' errnos on arr[key 2], one byte each (as positive numbers):
 * set_callback / start / cancel before init: EINVAL; init with an alarm clock: EINVAL;
 * init: 0; again: EBUSY; start without a callback: EINVAL; start with flags: EINVAL;
 * cancel of an unarmed timer: 0 (was not active). Into arr[2].result. */
SEC("tc")
int errnos(void *ctx)
{
	struct elem *e = elem_of(&arr, 2);
	__u64 out = 0;

	if (!e)
		return -1;
	out |= (__u64)(__u8)-bpf_timer_set_callback(&e->t, count_cb) << 0;
	out |= (__u64)(__u8)-bpf_timer_start(&e->t, 1, 0) << 8;
	out |= (__u64)(__u8)-bpf_timer_cancel(&e->t) << 16;
	out |= (__u64)(__u8)-bpf_timer_init(&e->t, &arr, 8 /* CLOCK_REALTIME_ALARM */) << 24;
	out |= (__u64)(__u8)-bpf_timer_init(&e->t, &arr, CLOCK_BOOTTIME) << 32;
	out |= (__u64)(__u8)-bpf_timer_init(&e->t, &arr, CLOCK_MONOTONIC) << 40;
	out |= (__u64)(__u8)-bpf_timer_start(&e->t, 1, 0) << 48;
	if (bpf_timer_set_callback(&e->t, count_cb))
		return -2;
	if (bpf_timer_start(&e->t, 1, 1) != -22)
		return -3;
	if (bpf_timer_cancel(&e->t) != 0)
		return -4;
	e->result = out; /* more than R0's 32 bits a tc program returns */
	return 0;
}

/* arr[key 3]: armed far away (1 s), then cancelled: 1 (it was active), again: 0. */
SEC("tc")
int cancel_armed(void *ctx)
{
	struct elem *e = elem_of(&arr, 3);
	long a, b;

	if (!e)
		return -1;
	bpf_timer_init(&e->t, &arr, CLOCK_REALTIME);
	bpf_timer_set_callback(&e->t, count_cb);
	e->limit = 1;
	if (bpf_timer_start(&e->t, 1000000000, 0))
		return -2;
	a = bpf_timer_cancel(&e->t);
	b = bpf_timer_cancel(&e->t);
	return a * 10 + b;
}

/* arr[key 0]: a callback that cancels its own timer. */
SEC("tc")
int arm_self_cancel(void *ctx)
{
	struct elem *e = elem_of(&arr, 0);

	if (!e)
		return -1;
	bpf_timer_init(&e->t, &arr, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&e->t, self_cancel_cb);
	return bpf_timer_start(&e->t, 500, 0);
}

/* hash[key 7]: created, then armed; the callback runs `limit` = 2 times. */
SEC("tc")
int arm_hash(void *ctx)
{
	struct elem init = { .limit = 2 };
	__u32 key = 7;
	struct elem *e;

	if (bpf_map_update_elem(&hash, &key, &init, BPF_ANY))
		return -1;
	e = bpf_map_lookup_elem(&hash, &key);
	if (!e)
		return -2;
	bpf_timer_init(&e->t, &hash, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&e->t, count_cb);
	return bpf_timer_start(&e->t, 2000, 0);
}

/* For tests/concurrency/test_conc_timer.c: arr[key 3] armed 100 ns ahead (initialised
 * first if it is not), or cancelled, from many threads while the host's timer thread
 * fires it and the host replaces the element. The callback only adds atomically. */
static int churn_cb(void *map, __u32 *key, struct elem *val)
{
	__sync_fetch_and_add(&val->count, 1);
	return 0;
}

SEC("tc")
int churn_arm(void *ctx)
{
	struct elem *e = elem_of(&arr, 3);

	if (!e)
		return -1;
	bpf_timer_init(&e->t, &arr, CLOCK_MONOTONIC); /* -EBUSY once initialised */
	bpf_timer_set_callback(&e->t, churn_cb);
	bpf_timer_start(&e->t, 100, 0);
	return 0;
}

SEC("tc")
int churn_cancel(void *ctx)
{
	struct elem *e = elem_of(&arr, 3);

	if (!e)
		return -1;
	bpf_timer_cancel(&e->t);
	return 0;
}

char _license[] SEC("license") = "GPL";
