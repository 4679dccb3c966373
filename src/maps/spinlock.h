/* SPDX-License-Identifier: Apache-2.0 */
/* A 4-byte spin lock for hash buckets, element free lists and ring buffer producers.
 * Why not pthread_spinlock_t or a mutex: one lock per hash bucket must stay small, and
 * the critical sections are a few loads and a memcpy.  Why it yields: kbpf runs on
 * ordinary threads that can be preempted inside a critical section, so after a short
 * spin a waiter gives its CPU away instead of burning its time slice. */
#ifndef KBPF_MAPS_SPINLOCK_H
#define KBPF_MAPS_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>

struct kbpf_spinlock {
	atomic_uint locked;
};

static inline void kbpf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline void kbpf_spin_init(struct kbpf_spinlock *l)
{
	atomic_init(&l->locked, 0);
}

static inline void kbpf_spin_lock(struct kbpf_spinlock *l)
{
	unsigned spins = 0;

	while (atomic_exchange_explicit(&l->locked, 1, memory_order_acquire)) {
		/* wait on a plain load so the cache line stays shared while held */
		while (atomic_load_explicit(&l->locked, memory_order_relaxed)) {
			if (++spins < 128)
				kbpf_cpu_relax();
			else
				sched_yield();
		}
	}
}

static inline int kbpf_spin_trylock(struct kbpf_spinlock *l)
{
	return !atomic_load_explicit(&l->locked, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static inline void kbpf_spin_unlock(struct kbpf_spinlock *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

#endif /* KBPF_MAPS_SPINLOCK_H */
