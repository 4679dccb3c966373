/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer end to end (tests/bpf/timer.bpf.c) on interpreted and JIT-compiled
 * programs: a callback that counts and re-arms itself under the manual clock, the
 * helpers' errnos, cancel from the timer's own callback (-EDEADLK), a hash map's timer,
 * element delete / update, program free and map free while armed, and the host's thread
 * firing timers on real clocks. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_object_util.h"

struct elem {
	uint64_t t[2];
	uint64_t count, limit;
	int64_t result;
};

static struct kbpf_object *load(struct kbpf_host *host, int jit)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit, .log_buf = test_log, .log_size = sizeof(test_log),
	};
	struct kbpf_object *obj = NULL;

	if (kbpf_object_open_file(bpf_obj("timer"), &opts, &obj)) {
		fprintf(stderr, "open timer: %s\n", test_log);
		test_failed_now = 1;
		return NULL;
	}
	if (kbpf_object_load(obj)) {
		fprintf(stderr, "load timer (jit %d): %s\n", jit, test_log);
		test_failed_now = 1;
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

static struct kbpf_host *manual_host(void)
{
	struct kbpf_host *host = kbpf_host_new();

	CHECK(host && kbpf_linux_host_add(host) == 0);
	CHECK_EQ_U64(kbpf_host_timers_manual_clock(host, true), 0);
	return host;
}

static struct elem get(struct kbpf_object *obj, const char *map, uint32_t key)
{
	struct elem e;

	memset(&e, 0xff, sizeof(e));
	CHECK_EQ_U64(kbpf_map_lookup(kbpf_object_find_map(obj, map), &key, &e), 0);
	return e;
}

/* body on a fresh manual-clock host with the object loaded, interpreted and JIT-compiled;
 * the object and host are freed after it. */
static void on_both_engines(void (*body)(struct kbpf_host *host, struct kbpf_object *obj))
{
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_host *host = manual_host();
		struct kbpf_object *obj = load(host, jit);
		if (!obj)
			return;
		body(host, obj);
		kbpf_object_close(obj);
		kbpf_host_free(host);
	}
}

static int64_t run(struct kbpf_object *obj, const char *prog)
{
	uint8_t ctx[256] = { 0 };

	return (int64_t)run_prog(obj, prog, ctx, 0);
}

/* The callback runs at 1000 ns, re-arms itself twice, and sees its key. */
static void test_count_rearm_on(struct kbpf_host *host, struct kbpf_object *obj)
{
	CHECK_EQ_U64(run(obj, "arm"), 0);
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 1);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 999), 0);
	CHECK_EQ_U64(get(obj, "arr", 1).count, 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 1), 1);
	CHECK_EQ_U64(get(obj, "arr", 1).count, 1);
	CHECK_EQ_U64(get(obj, "arr", 1).result, 0); /* bpf_timer_start from the callback */
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 100000), 2);
	struct elem e = get(obj, "arr", 1);
	CHECK_EQ_U64(e.count, 3);
	CHECK_EQ_U64(e.result, 1); /* the key it was given */
	CHECK_EQ_U64(e.t[0] | e.t[1], 0); /* the host never sees the timer's bytes */
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 0);
	/* run_due is for real clocks */
	CHECK_EQ_U64(kbpf_host_timers_run_due(host), (uint64_t)-EBUSY);
}

static void test_count_rearm(void)
{
	on_both_engines(test_count_rearm_on);
}

static void test_errnos_on(struct kbpf_host *host, struct kbpf_object *obj)
{
	uint64_t want = 22ull | 22ull << 8 | 22ull << 16 | 22ull << 24 | 0ull << 32 | 16ull << 40 |
			22ull << 48;
	CHECK_EQ_U64(run(obj, "errnos"), 0);
	CHECK_EQ_U64(get(obj, "arr", 2).result, want);
	CHECK_EQ_U64(run(obj, "cancel_armed"), 10); /* active once, then not */
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 0);
	/* cancel dropped the callback: start needs a new one (Linux's drop_prog_refcnt) */
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 2000000000ull), 0);
}

static void test_errnos(void)
{
	on_both_engines(test_errnos_on);
}

static void test_self_cancel_on(struct kbpf_host *host, struct kbpf_object *obj)
{
	CHECK_EQ_U64(run(obj, "arm_self_cancel"), 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 500), 1);
	struct elem e = get(obj, "arr", 0);
	CHECK_EQ_U64(e.count, 1);
	CHECK_EQ_U64(e.result, (uint64_t)-EDEADLK);
}

static void test_self_cancel(void)
{
	on_both_engines(test_self_cancel_on);
}

static void test_hash_and_delete_on(struct kbpf_host *host, struct kbpf_object *obj)
{
	uint32_t key = 7;
	CHECK_EQ_U64(run(obj, "arm_hash"), 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 2000), 1);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 2000), 1);
	CHECK_EQ_U64(get(obj, "hash", 7).count, 2);
	CHECK_EQ_U64(get(obj, "hash", 7).result, 7);
	/* armed again, then the element goes: its timer is cancelled and freed */
	CHECK_EQ_U64(run(obj, "arm_hash"), 0); /* the update replaced the value: a new timer */
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 1);
	CHECK_EQ_U64(kbpf_map_delete(kbpf_object_find_map(obj, "hash"), &key), 0);
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 100000), 0);
	/* an array element's update cancels its timer too (6.1 check_and_free_fields) */
	CHECK_EQ_U64(run(obj, "arm"), 0);
	struct elem zero = { 0 };
	key = 1;
	CHECK_EQ_U64(kbpf_map_update(kbpf_object_find_map(obj, "arr"), &key, &zero, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_host_timers_armed(host), 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 100000), 0);
	/* and it can be initialised again */
	CHECK_EQ_U64(run(obj, "arm"), 0);
	CHECK_EQ_U64(kbpf_host_timers_advance(host, 1000), 1);
}

static void test_hash_and_delete(void)
{
	on_both_engines(test_hash_and_delete_on);
}

/* Closing the object while timers are armed frees them (ASan: no leak, no use after
 * free); a map kept by the host outlives the program, whose callback leaves the timer. */
static void test_free_while_armed(void)
{
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_host *host = manual_host();
		struct kbpf_object *obj = load(host, jit);
		if (!obj)
			return;
		CHECK_EQ_U64(run(obj, "arm"), 0);
		CHECK_EQ_U64(run(obj, "arm_hash"), 0);
		struct kbpf_map *arr = kbpf_map_ref(kbpf_object_find_map(obj, "arr"));
		kbpf_object_close(obj); /* programs first: their callbacks leave the timers */
		CHECK_EQ_U64(kbpf_host_timers_armed(host), 0);
		CHECK_EQ_U64(kbpf_host_timers_advance(host, 100000), 0);
		kbpf_map_free(arr);
		kbpf_host_free(host);
	}
	/* the host goes first: the map still frees its timers */
	struct kbpf_host *host = manual_host();
	struct kbpf_object *obj = load(host, 1);
	if (!obj)
		return;
	CHECK_EQ_U64(run(obj, "arm"), 0);
	struct kbpf_map *arr = kbpf_map_ref(kbpf_object_find_map(obj, "arr"));
	kbpf_object_close(obj);
	kbpf_host_free(host);
	kbpf_map_free(arr);
}

/* Real clocks: the host's thread fires the timer and its re-arms. */
static void test_thread(void)
{
	struct kbpf_host *host = kbpf_host_new();

	CHECK(host && kbpf_linux_host_add(host) == 0);
	struct kbpf_object *obj = load(host, 1);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_host_timers_start(host), 0);
	CHECK_EQ_U64(kbpf_host_timers_start(host), (uint64_t)-EBUSY);
	CHECK_EQ_U64(kbpf_host_timers_manual_clock(host, true), (uint64_t)-EBUSY);
	CHECK_EQ_U64(run(obj, "arm"), 0);
	uint64_t count = 0;
	for (int i = 0; i < 2000 && count < 3; i++) { /* up to 2 s */
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		count = get(obj, "arr", 1).count;
	}
	CHECK_EQ_U64(count, 3);
	kbpf_host_timers_stop(host);
	/* without the thread, run_due fires what is due from this thread */
	CHECK_EQ_U64(run(obj, "arm_self_cancel"), 0);
	struct timespec ts = { 0, 100000 };
	nanosleep(&ts, NULL);
	CHECK_EQ_U64(kbpf_host_timers_run_due(host), 1);
	CHECK_EQ_U64(get(obj, "arr", 0).result, (uint64_t)-EDEADLK);
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* A map's timers run on one host: a program of another host is refused. */
static void test_other_host(void)
{
	struct kbpf_host *h1 = manual_host(), *h2 = manual_host();
	struct kbpf_object *obj = load(h1, 0);
	if (!obj)
		return;
	struct kbpf_map *arr = kbpf_object_find_map(obj, "arr");
	const struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = h2, .prog_type = "sched_cls", .maps = &arr,
				     .nr_maps = 1, .license = "GPL", .log_buf = test_log, .log_size = sizeof(test_log) };
	struct kbpf_prog *p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &po, &p), (uint64_t)-EXDEV);
	CHECK_CONTAINS(test_log, "its timers run on another host");
	po.host = h1;
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &po, &p), 0);
	kbpf_prog_free(p);
	kbpf_object_close(obj);
	kbpf_host_free(h1);
	kbpf_host_free(h2);
}

/* A timer callback is a root of its own stack (Linux 6.12's check_max_stack_depth walks
 * each): recursion below it is refused as below main (tests/bpf/timer_recursion.bpf.c),
 * now that check_cfg lets a privileged program's call back-edges through. */
static void test_recursion_in_callback(void)
{
	struct kbpf_host *host = manual_host();
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .host = host, .log_buf = test_log, .log_size = sizeof(test_log),
	};
	struct kbpf_object *obj = NULL;

	CHECK_EQ_U64(kbpf_object_open_file(bpf_obj("timer_recursion"), &opts, &obj), 0);
	if (obj) {
		CHECK_EQ_U64(kbpf_object_load(obj), (uint64_t)-E2BIG);
		CHECK_CONTAINS(test_log, "the call stack of 8 frames is too deep !");
		kbpf_object_close(obj);
	}
	kbpf_host_free(host);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_recursion_in_callback);
	RUN(test_count_rearm);
	RUN(test_errnos);
	RUN(test_self_cancel);
	RUN(test_hash_and_delete);
	RUN(test_free_while_armed);
	RUN(test_thread);
	RUN(test_other_host);
	return test_summary();
}
