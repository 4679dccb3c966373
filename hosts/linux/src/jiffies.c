/* SPDX-License-Identifier: Apache-2.0 */
/* jiffies: Linux's tick count since boot (Debian's kernels tick at CONFIG_HZ=250).
 * bpf_jiffies64 computes it from CLOCK_BOOTTIME on each call. While the ticker runs
 * (kbpf_linux_jiffies_start), a thread also advances a variable at every tick, as
 * Linux's timer interrupt advances jiffies, and hosts set up after that give the helper
 * that variable as its inline_load: the verifier then turns each call into one load, as
 * Linux's do_misc_fixups does for a JIT on a 64-bit machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include "linux_internal.h"

#define LINUX_HZ 250
#define TICK_NS (1000000000ull / LINUX_HZ)

/* One cache line of its own: programs on every thread read it, the ticker writes it. */
static _Alignas(64) volatile uint64_t jiffies_var;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_t ticker;
static bool running, stopping; /* under lock */

KBPF_LINUX_HELPER(jiffies64)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return kbpf_linux_clock_ns(CLOCK_BOOTTIME) / TICK_NS;
}

static void tick(void)
{
	__atomic_store_n(&jiffies_var, kbpf_linux_clock_ns(CLOCK_BOOTTIME) / TICK_NS, __ATOMIC_RELAXED);
}

static void *ticker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stopping) {
		tick();
		/* sleep to the next tick boundary of the boot clock (the wait is on the
		 * monotonic clock, which runs at the same rate while the machine is awake) */
		uint64_t left = TICK_NS - kbpf_linux_clock_ns(CLOCK_BOOTTIME) % TICK_NS;
		uint64_t at = kbpf_linux_clock_ns(CLOCK_MONOTONIC) + left;
		struct timespec ts = { .tv_sec = (time_t)(at / 1000000000u), .tv_nsec = (long)(at % 1000000000u) };
		pthread_cond_timedwait(&wake, &lock, &ts);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int kbpf_linux_jiffies_start(void)
{
	int ret = 0;

	pthread_mutex_lock(&lock);
	if (!running) {
		pthread_condattr_t attr;
		ret = -pthread_condattr_init(&attr);
		if (!ret) {
			pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
			ret = -pthread_cond_init(&wake, &attr);
			pthread_condattr_destroy(&attr);
		}
		if (!ret) {
			tick(); /* current before anything can read it */
			ret = -pthread_create(&ticker, NULL, ticker_main, NULL);
			if (ret)
				pthread_cond_destroy(&wake);
		}
		running = !ret;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

void kbpf_linux_jiffies_stop(void)
{
	pthread_mutex_lock(&lock);
	if (!running || stopping) {
		pthread_mutex_unlock(&lock);
		return;
	}
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(ticker, NULL);
	pthread_mutex_lock(&lock);
	pthread_cond_destroy(&wake);
	running = stopping = false;
	pthread_mutex_unlock(&lock);
}

const volatile uint64_t *kbpf_linux_jiffies_var(void)
{
	pthread_mutex_lock(&lock);
	bool on = running && !stopping;
	pthread_mutex_unlock(&lock);
	return on ? &jiffies_var : NULL;
}
