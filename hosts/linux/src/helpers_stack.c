/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_get_stackid, bpf_get_stack (Linux 6.1's kernel/bpf/stackmap.c). In Linux the stack
 * is the kernel's call chain where the program runs (or the task's user stack); in kbpf
 * the "kernel" that runs a program is the host process, so the stack is the host
 * thread's native call stack at the helper call: the return addresses from the
 * helper's caller (the program: JIT code, or the interpreter) outward through the host
 * function that ran the program, innermost first, as glibc's backtrace() unwinds them
 * (docs/program-types.md says why backtrace() and what BPF_F_USER_STACK means here). */
#include <errno.h>
#include <execinfo.h>
#include <string.h>
#include <kbpf/map.h>
#include "linux_internal.h"

/* The frames of this file between the helper's caller and backtrace(): the capture
 * function and the helper itself (both noinline, so the count is exact). */
#define OWN_FRAMES 2

/* Capture up to max frames of the stack of whoever called the helper that calls this,
 * into ips (innermost first). Returns how many. */
static __attribute__((noinline)) uint32_t capture(uint64_t *ips, uint32_t max)
{
	void *frames[KBPF_STACK_MAX_DEPTH + OWN_FRAMES];
	int n = backtrace(frames, (int)(max + OWN_FRAMES));
	uint32_t nr = n > OWN_FRAMES ? (uint32_t)n - OWN_FRAMES : 0;

	for (uint32_t i = 0; i < nr; i++)
		ips[i] = (uint64_t)(uintptr_t)frames[i + OWN_FRAMES];
	__asm__ __volatile__("" ::: "memory"); /* keep this a real call (no tail call) */
	return nr;
}

/* Linux's bpf_get_stackid: the id of the current stack in map (a STACK_TRACE map: the
 * verifier checks), or a negative errno. */
__attribute__((noinline)) KBPF_LINUX_HELPER(get_stackid)
{
	struct kbpf_map *map = (struct kbpf_map *)(uintptr_t)r2;
	uint64_t flags = r3;
	uint64_t ips[KBPF_STACK_MAX_DEPTH];
	LINUX_UNUSED5(r1, r2, r3, r4, r5);

	if (flags & ~(uint64_t)(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
				BPF_F_REUSE_STACKID))
		return (uint64_t)-EINVAL;
	uint32_t elem = (kbpf_map_flags(map) & BPF_F_STACK_BUILD_ID) ? sizeof(struct bpf_stack_build_id) : 8;
	uint64_t max_depth = kbpf_map_value_size(map) / elem + (flags & BPF_F_SKIP_FIELD_MASK);
	if (max_depth > KBPF_STACK_MAX_DEPTH)
		max_depth = KBPF_STACK_MAX_DEPTH;
	uint32_t nr = capture(ips, (uint32_t)max_depth);
	long ret = kbpf_stack_map_get_id(map, ips, nr, flags);
	__asm__ __volatile__("" ::: "memory");
	return (uint64_t)ret;
}

/* Linux's __bpf_get_stack for the current thread: size bytes of buf get the stack's
 * entries after skip (u64 ips, or build-id records with BPF_F_USER_BUILD_ID), the rest
 * zeroes. Returns the bytes filled, or a negative errno with buf all zeroes. */
__attribute__((noinline)) KBPF_LINUX_HELPER(get_stack)
{
	void *buf = (void *)(uintptr_t)r2;
	uint32_t size = (uint32_t)r3;
	uint64_t flags = r4;
	uint32_t skip = (uint32_t)(flags & BPF_F_SKIP_FIELD_MASK);
	bool user = flags & BPF_F_USER_STACK, build_id = flags & BPF_F_USER_BUILD_ID;
	uint64_t ips[KBPF_STACK_MAX_DEPTH];
	long err = -EINVAL;
	LINUX_UNUSED5(r1, r2, r3, r4, r5);

	if (flags & ~(uint64_t)(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID))
		goto clear;
	if (!user && build_id)
		goto clear;
	uint32_t elem = user && build_id ? sizeof(struct bpf_stack_build_id) : 8;
	if (size % elem)
		goto clear;
	uint32_t num = size / elem;
	uint64_t max_depth = (uint64_t)num + skip;
	if (max_depth > KBPF_STACK_MAX_DEPTH)
		max_depth = KBPF_STACK_MAX_DEPTH;
	uint32_t nr = capture(ips, (uint32_t)max_depth);
	if (nr < skip) {
		err = -EFAULT;
		goto clear;
	}
	uint32_t trace_nr = nr - skip < num ? nr - skip : num;
	if (elem == 8) {
		memcpy(buf, ips + skip, (size_t)trace_nr * 8);
	} else {
		/* Linux's fallback when it cannot read the build id: each entry its ip */
		struct bpf_stack_build_id rec;
		for (uint32_t i = 0; i < trace_nr; i++) {
			memset(&rec, 0, sizeof(rec));
			rec.status = BPF_STACK_BUILD_ID_IP;
			rec.ip = ips[skip + i];
			memcpy((char *)buf + (size_t)i * sizeof(rec), &rec, sizeof(rec));
		}
	}
	uint32_t copy_len = trace_nr * elem;
	memset((char *)buf + copy_len, 0, size - copy_len);
	__asm__ __volatile__("" ::: "memory");
	return copy_len;
clear:
	memset(buf, 0, size);
	return (uint64_t)err;
}
