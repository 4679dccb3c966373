/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf's CPU numbers: per-thread slots standing in for Linux's CPUs.
 *
 * Per-CPU maps exist so that programs running at the same time on different CPUs
 * never touch the same value.  A process has threads, not CPUs, so each thread gets a
 * slot at its first use, round robin over as many slots as the machine has configured
 * CPUs (what Linux sizes per-CPU maps by, and what libbpf's host side expects).
 *
 * The only process-wide state of the maps module lives here: the slot count (set once)
 * and the round-robin cursor; the slot itself is thread-local. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/sysinfo.h>
#include "maps/map_internal.h"

static pthread_once_t nr_cpus_once = PTHREAD_ONCE_INIT;
static unsigned nr_cpus;
static atomic_uint next_slot;
/* slot + 1; 0 means "not assigned yet" so the thread-local needs no initialiser call */
static _Thread_local unsigned this_slot_plus1;

static void nr_cpus_init(void)
{
	int n = get_nprocs_conf();

	nr_cpus = n > 0 ? (unsigned)n : 1;
}

unsigned kbpf_nr_cpus(void)
{
	pthread_once(&nr_cpus_once, nr_cpus_init);
	return nr_cpus;
}

unsigned kbpf_cpu_id(void)
{
	unsigned slot = this_slot_plus1;

	if (__builtin_expect(slot != 0, 1))
		return slot - 1;
	slot = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) % kbpf_nr_cpus();
	this_slot_plus1 = slot + 1;
	return slot;
}

int kbpf_cpu_bind(unsigned cpu)
{
	if (cpu >= kbpf_nr_cpus())
		return -EINVAL;
	this_slot_plus1 = cpu + 1;
	return 0;
}
