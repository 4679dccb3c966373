/* SPDX-License-Identifier: Apache-2.0 */
/* The timer engine's cost with many timers (src/maps/timer.c): N timers of one array
 * map armed at random deadlines on the manual clock, then one advance fires them all;
 * then N armed and cancelled. Prints µs per phase (best of ROUNDS):
 * `build/bench/kbpf-bench-timers [N] [ROUNDS]`. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <kbpf/kbpf.h>
#include <kbpf/timer.h>
#include "maps/map_internal.h"
#include "maps/timer.h"

static uint64_t fired;

static uint64_t cb(uint64_t m, uint64_t k, uint64_t v, uint64_t r4, uint64_t r5)
{
	(void)m, (void)k, (void)v, (void)r4, (void)r5;
	fired++;
	return 0;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 10000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 5;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 16, .max_entries = n };
	struct kbpf_timers *_Atomic slot = NULL;
	struct kbpf_map *map = NULL;
	double best[3] = { 1e30, 1e30, 1e30 };
	uint64_t rng = 88172645463325252ull;

	if (!n || kbpf_map_create(&def, &map)) {
		fprintf(stderr, "kbpf-bench-timers: cannot create the map\n");
		return 1;
	}
	map->timer_off = 0; /* the value is one struct bpf_timer */
	if (kbpf_timers_bind(&slot, map) || kbpf_timers_manual_clock(atomic_load(&slot), true))
		return 1;
	struct kbpf_timers *e = atomic_load(&slot);
	void **tm = calloc(n, sizeof(*tm));
	if (!tm)
		return 1;
	for (uint32_t k = 0; k < n; k++) {
		tm[k] = kbpf_map_lookup_elem(map, &k);
		if (kbpf_timer_init(tm[k], map, CLOCK_MONOTONIC))
			return 1;
	}
	for (unsigned r = 0; r < rounds; r++) {
		double t0 = now_us();
		for (uint32_t k = 0; k < n; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			kbpf_timer_set_callback(tm[k], (uint64_t)(uintptr_t)cb);
			kbpf_timer_start(tm[k], 1 + rng % 1000000000ull, 0);
		}
		double t1 = now_us();
		fired = 0;
		kbpf_timers_run(e, true, 2000000000ull);
		double t2 = now_us();
		for (uint32_t k = 0; k < n; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			kbpf_timer_set_callback(tm[k], (uint64_t)(uintptr_t)cb);
			kbpf_timer_start(tm[k], 1 + rng % 1000000000ull, 0);
		}
		for (uint32_t k = 0; k < n; k++)
			kbpf_timer_cancel(tm[n - 1 - k]);
		double t3 = now_us();
		if (fired != n || kbpf_timers_armed(e)) {
			fprintf(stderr, "kbpf-bench-timers: %llu of %u fired\n", (unsigned long long)fired, n);
			return 1;
		}
		best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
		best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
		best[2] = t3 - t2 < best[2] ? t3 - t2 : best[2];
	}
	printf("%u timers: arm %.0f us, fire all %.0f us, arm+cancel %.0f us (best of %u)\n", n,
	       best[0], best[1], best[2], rounds);
	free(tm);
	kbpf_map_free(map);
	kbpf_timers_host_release(e);
	return 0;
}
