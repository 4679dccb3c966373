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
#include "maps/pcpu.h"

static pthread_once_t nr_cpus_once = PTHREAD_ONCE_INIT;
static unsigned nr_cpus;
static atomic_uint next_slot;
/* The thread's per-CPU block (maps/pcpu.h): its slot, once assigned (assigned == 0
 * means "not yet", so the thread-local needs no initialiser call). */
static _Thread_local struct kbpf_pcpu this_pcpu;

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
	unsigned slot;

	if (__builtin_expect(this_pcpu.assigned != 0, 1))
		return this_pcpu.cpu_number;
	slot = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) % kbpf_nr_cpus();
	this_pcpu.cpu_number = slot;
	this_pcpu.assigned = 1;
	return slot;
}

uint64_t kbpf_pcpu_base(void)
{
	kbpf_cpu_id(); /* the slot is assigned before anything reads it */
	return (uint64_t)(uintptr_t)&this_pcpu;
}

int kbpf_cpu_bind(unsigned cpu)
{
	if (cpu >= kbpf_nr_cpus())
		return -EINVAL;
	this_pcpu.cpu_number = cpu;
	this_pcpu.assigned = 1;
	return 0;
}
