/* SPDX-License-Identifier: Apache-2.0 */
/* The timer engine with thousands of timers (src/maps/timer.c) on the manual clock:
 * random arms, re-arms (which move a timer), cancels and re-arms from callbacks, with
 * the clock advanced in random steps. Each step must fire exactly the timers whose
 * deadlines it reaches, each once, in deadline order; cancel must say whether the
 * timer was armed. This guards behaviour, whatever keeps the deadlines. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>
#include <kbpf/timer.h>
#include "maps/map_internal.h"
#include "maps/timer.h"
#include "test.h"

#define N 3000

static struct kbpf_map *map;
static uint64_t deadline[N];   /* expected deadline of armed timers */
static bool armed[N];
static uint64_t rearm_by[N];   /* the callback re-arms its timer this far ahead (0: no) */
static uint32_t fired_key[4 * N];
static uint64_t fired_at[4 * N];
static unsigned nr_fired;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *timer_of(uint32_t k) { return kbpf_map_lookup_elem(map, &k); }

static uint64_t cb(uint64_t m, uint64_t key, uint64_t value, uint64_t r4, uint64_t r5)
{
	uint32_t k = *(uint32_t *)(uintptr_t)key;
	(void)m, (void)r4, (void)r5;

	if (nr_fired < 4 * N) {
		fired_key[nr_fired] = k;
		fired_at[nr_fired] = deadline[k];
	}
	nr_fired++;
	armed[k] = false;
	if (rearm_by[k]) { /* the callback sees its deadline as now */
		CHECK_EQ_U64(kbpf_timer_start((void *)(uintptr_t)value, rearm_by[k], 0), 0);
		deadline[k] += rearm_by[k];
		armed[k] = true;
		rearm_by[k] = 0;
	}
	return 0;
}

static void arm_one(uint32_t k, uint64_t now)
{
	uint64_t d = 1 + rnd() % 1000000;

	CHECK_EQ_U64(kbpf_timer_set_callback(timer_of(k), (uint64_t)(uintptr_t)cb), 0);
	CHECK_EQ_U64(kbpf_timer_start(timer_of(k), d, 0), 0);
	deadline[k] = now + d;
	armed[k] = true;
	rearm_by[k] = rnd() % 8 == 0 ? rnd() % 300000 : 0;
}

/* Advance by step; check what fired against the expected deadlines. */
static void advance(struct kbpf_timers *e, uint64_t *now, uint64_t step)
{
	uint64_t target = *now + step;
	unsigned due = 0;

	for (uint32_t k = 0; k < N; k++) /* without callback re-arms, which add to it */
		due += armed[k] && deadline[k] <= target;
	nr_fired = 0;
	int n = kbpf_timers_run(e, true, step);
	CHECK_EQ_U64(n, nr_fired);
	CHECK(nr_fired >= due && nr_fired <= 4 * N);
	static uint8_t seen[N];
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < nr_fired && i < 4 * N; i++) {
		CHECK(fired_at[i] > *now && fired_at[i] <= target);
		if (i)
			CHECK(fired_at[i - 1] <= fired_at[i]);
		seen[fired_key[i]]++;
		CHECK(seen[fired_key[i]] <= 2); /* twice only when its callback re-armed it */
	}
	int still = 0;
	for (uint32_t k = 0; k < N; k++) {
		CHECK(!armed[k] || deadline[k] > target); /* nothing due is left */
		still += armed[k];
	}
	CHECK_EQ_U64(kbpf_timers_armed(e), still);
	*now = target;
}

static void test_random_arm_cancel_rearm(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 16, .max_entries = N };
	struct kbpf_timers *_Atomic slot = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	if (!map)
		return;
	map->timer_off = 0; /* the value is one struct bpf_timer */
	CHECK_EQ_U64(kbpf_timers_bind(&slot, map), 0);
	struct kbpf_timers *e = atomic_load(&slot);
	CHECK_EQ_U64(kbpf_timers_manual_clock(e, true), 0);
	for (uint32_t k = 0; k < N; k++)
		CHECK_EQ_U64(kbpf_timer_init(timer_of(k), map, k % 3 ? CLOCK_MONOTONIC : CLOCK_BOOTTIME), 0);

	uint64_t now = 0;
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned op = 0; op < N; op++) {
			uint32_t k = (uint32_t)(rnd() % N);
			if (rnd() % 4 == 0) {
				CHECK_EQ_U64(kbpf_timer_cancel(timer_of(k)), armed[k]);
				armed[k] = false;
			} else {
				arm_one(k, now); /* arms, or moves an armed timer */
			}
		}
		advance(e, &now, rnd() % 400000);
	}
	advance(e, &now, 1ull << 40); /* everything left fires */
	CHECK_EQ_U64(kbpf_timers_armed(e), 0);
	kbpf_map_free(map);
	kbpf_timers_host_release(e);
}

int main(void)
{
	RUN(test_random_arm_cancel_rearm);
	return test_summary();
}
