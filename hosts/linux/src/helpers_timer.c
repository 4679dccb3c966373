/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer_init / set_callback / start / cancel (Linux 6.1 kernel/bpf/helpers.c): the
 * semantics are kbpf's timer engine's (<kbpf/timer.h>, src/maps/timer.c); the callback
 * argument is the closure the program's ld_imm64 of the function loaded. */
#include <kbpf/timer.h>
#include "linux_internal.h"

KBPF_LINUX_HELPER(timer_init)
{
	(void)r4;
	(void)r5;
	return (uint64_t)(int64_t)kbpf_timer_init((void *)(uintptr_t)r1, (struct kbpf_map *)(uintptr_t)r2, r3);
}

KBPF_LINUX_HELPER(timer_set_callback)
{
	(void)r3;
	(void)r4;
	(void)r5;
	return (uint64_t)(int64_t)kbpf_timer_set_callback((void *)(uintptr_t)r1, r2);
}

KBPF_LINUX_HELPER(timer_start)
{
	(void)r4;
	(void)r5;
	return (uint64_t)(int64_t)kbpf_timer_start((void *)(uintptr_t)r1, r2, r3);
}

KBPF_LINUX_HELPER(timer_cancel)
{
	(void)r2;
	(void)r3;
	(void)r4;
	(void)r5;
	return (uint64_t)(int64_t)kbpf_timer_cancel((void *)(uintptr_t)r1);
}
