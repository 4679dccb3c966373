/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's process-independent helpers, done with the process's own means: clocks,
 * random numbers, the current thread's ids, spin locks, and probe_read through
 * process_vm_readv, which fails cleanly (-EFAULT) where Linux's fault-tolerant copy
 * would, instead of crashing the host on a bad address. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <kbpf/map.h>
#include "linux_internal.h"

uint64_t kbpf_linux_clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

KBPF_LINUX_HELPER(ktime_get_ns)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return kbpf_linux_clock_ns(CLOCK_MONOTONIC);
}

KBPF_LINUX_HELPER(ktime_get_boot_ns)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return kbpf_linux_clock_ns(CLOCK_BOOTTIME);
}

KBPF_LINUX_HELPER(ktime_get_coarse_ns)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return kbpf_linux_clock_ns(CLOCK_MONOTONIC_COARSE);
}

KBPF_LINUX_HELPER(ktime_get_tai_ns)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return kbpf_linux_clock_ns(CLOCK_TAI);
}

/* bpf_per_cpu_ptr / bpf_this_cpu_ptr on a per-CPU host variable (kbpf/kfunc.h): a
 * process has no per-CPU areas, so a host's per-CPU variable is one object, the copy of
 * every CPU; NULL for a CPU number kbpf does not have, as Linux for cpu >= nr_cpu_ids. */
KBPF_LINUX_HELPER(per_cpu_ptr)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return r2 < kbpf_nr_cpus() ? r1 : 0;
}

KBPF_LINUX_HELPER(this_cpu_ptr)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return r1;
}

/* Linux keeps a per-CPU generator; a per-thread one is the userspace equivalent (no
 * sharing, no locks). xorshift64*, seeded from getrandom, else from the clock. */
static _Thread_local uint64_t prandom_state;

KBPF_LINUX_HELPER(get_prandom_u32)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	uint64_t x = prandom_state;
	if (!x) {
		if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != sizeof(x))
			x = kbpf_linux_clock_ns(CLOCK_MONOTONIC) ^ (uint64_t)(uintptr_t)&prandom_state;
		x |= 1; /* never the absorbing state 0 */
	}
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	prandom_state = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

KBPF_LINUX_HELPER(get_numa_node_id)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}

/* tgid (the process) in the upper half, pid (the thread) in the lower, as in Linux. */
KBPF_LINUX_HELPER(get_current_pid_tgid)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return (uint64_t)(uint32_t)getpid() << 32 | (uint32_t)syscall(SYS_gettid);
}

KBPF_LINUX_HELPER(get_current_uid_gid)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return (uint64_t)getgid() << 32 | getuid();
}

/* struct bpf_spin_lock is one u32 inside a map value (the verifier proves the pointer):
 * the maps' own lock (kbpf_map_value_lock), which host-side BPF_F_LOCK copies take too.
 * Critical sections are short and calls are not allowed inside, so it spins (yielding
 * now and then). */
KBPF_LINUX_HELPER(spin_lock)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	kbpf_map_value_lock((void *)(uintptr_t)r1);
	return 0;
}

KBPF_LINUX_HELPER(spin_unlock)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	kbpf_map_value_unlock((void *)(uintptr_t)r1);
	return 0;
}

/* bpf_kptr_xchg(slot, ptr): the verifier proved slot is a referenced kptr of a map value
 * (8-aligned) and ptr NULL or an object of its type whose reference the program gives up.
 * One atomic exchange: of two programs racing for the slot, each gets a distinct old
 * pointer, so no reference is taken twice or lost; acq_rel pairs the object's
 * initialisation with whoever takes it out (the map's destructor call included). */
KBPF_LINUX_HELPER(kptr_xchg)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return (uint64_t)(uintptr_t)__atomic_exchange_n((void **)(uintptr_t)r1, (void *)(uintptr_t)r2,
							 __ATOMIC_ACQ_REL);
}

/* Copy size bytes from src to dst, reporting a bad source address instead of faulting. */
static int copy_checked(void *dst, uint64_t src, size_t size)
{
	struct iovec local = { dst, size }, remote = { (void *)(uintptr_t)src, size };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	return n == (ssize_t)size ? 0 : -EFAULT;
}

/* bpf_probe_read{,_kernel,_user}(dst, size, unsafe_ptr): 0, or -EFAULT with dst zeroed. */
KBPF_LINUX_HELPER(probe_read)
{
	(void)r4, (void)r5;
	void *dst = (void *)(uintptr_t)r1;
	size_t size = (uint32_t)r2;
	if (!size)
		return 0;
	int ret = copy_checked(dst, r3, size);
	if (ret)
		memset(dst, 0, size);
	return (uint64_t)(int64_t)ret;
}

/* bpf_probe_read{,_kernel,_user}_str(dst, size, unsafe_ptr): copies up to the NUL or
 * size - 1 bytes, always NUL-terminates; returns the length including the NUL, or
 * -EFAULT with dst zeroed. Reads in small chunks so a string that ends just before an
 * unmapped page still succeeds. The bytes after the NUL are zeroed: the verifier takes
 * all size bytes as written (Linux leaves them as they were, docs/program-types.md). */
KBPF_LINUX_HELPER(probe_read_str)
{
	(void)r4, (void)r5;
	char *dst = (char *)(uintptr_t)r1;
	size_t size = (uint32_t)r2;
	uint64_t src = r3;
	if (!size)
		return 0;
	size_t done = 0;
	while (done < size - 1) {
		/* up to the next 64-byte boundary of the source, so no chunk crosses a page */
		size_t chunk = 64 - (size_t)((src + done) % 64);
		if (chunk > size - 1 - done)
			chunk = size - 1 - done;
		if (copy_checked(dst + done, src + done, chunk)) {
			memset(dst, 0, size);
			return (uint64_t)(int64_t)-EFAULT;
		}
		char *nul = memchr(dst + done, 0, chunk);
		if (nul) {
			size_t len = (size_t)(nul - dst) + 1;
			memset(nul + 1, 0, size - len);
			return len;
		}
		done += chunk;
	}
	dst[done] = 0;
	return done + 1;
}
