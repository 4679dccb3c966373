/* SPDX-License-Identifier: Apache-2.0 */
/* Checked mode's memory rules and stop messages, kept out of the loop so the loop's
 * handlers stay small. */
#include <stdarg.h>
#include <stdio.h>
#include "exec/interp_internal.h"

/* [addr, addr+size) inside [lo, lo+len), written so that no sum can wrap. */
static bool range_inside(uint64_t addr, uint32_t size, uint64_t lo, uint64_t len)
{
	return addr >= lo && len >= size && addr - lo <= len - size;
}

bool kbpf_interp_mem_ok(const struct kbpf_run_opts *opts, uintptr_t stack_lo, uintptr_t stack_hi,
			uint64_t addr, uint32_t size, unsigned need)
{
	if (range_inside(addr, size, stack_lo, stack_hi - stack_lo))
		return true;
	for (size_t i = 0; i < opts->nr_regions; i++) {
		const struct kbpf_mem_region *r = &opts->regions[i];

		if ((r->flags & need) == need && range_inside(addr, size, (uintptr_t)r->base, r->size))
			return true;
	}
	return false;
}

void kbpf_interp_stop_msg(const struct kbpf_run_opts *opts, size_t insn, const char *fmt, ...)
{
	if (!opts->err || !opts->err_size)
		return;
	int n = snprintf(opts->err, opts->err_size, "insn %zu: ", insn);
	if (n >= 0 && (size_t)n < opts->err_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(opts->err + n, opts->err_size - n, fmt, ap);
		va_end(ap);
	}
}

void kbpf_interp_mem_fault(const struct kbpf_run_opts *opts, size_t insn, uintptr_t stack_lo,
			   uintptr_t stack_hi, uint64_t addr, uint32_t size, unsigned need,
			   unsigned base_reg, int16_t off)
{
	const char *what = need == KBPF_MEM_READ ? "read" : need == KBPF_MEM_WRITE ? "write" : "atomic access";
	bool in_region = false;
	char why[160];

	snprintf(why, sizeof(why), "outside the stack and the declared regions");
	/* A region holding the whole range but lacking a permission explains it better. */
	for (size_t i = 0; i < opts->nr_regions; i++) {
		const struct kbpf_mem_region *r = &opts->regions[i];

		if (!range_inside(addr, size, (uintptr_t)r->base, r->size))
			continue;
		unsigned missing = need & ~r->flags;
		in_region = true;
		if (r->name)
			snprintf(why, sizeof(why), "region %s is not %s", r->name,
				 missing & KBPF_MEM_WRITE ? "writable" : "readable");
		else
			snprintf(why, sizeof(why), "region #%zu is not %s", i,
				 missing & KBPF_MEM_WRITE ? "writable" : "readable");
		break;
	}
	/* Relative to r10, or into the frames no call has made live: a stack bug, said
	 * in terms of this frame's r10. */
	const uintptr_t block_lo = stack_hi - (uintptr_t)KBPF_STACK_SIZE * KBPF_MAX_CALL_FRAMES;
	if (!in_region && base_reg == BPF_REG_10)
		snprintf(why, sizeof(why), "outside the live stack frames");
	else if (!in_region && addr + size > block_lo && addr < stack_hi)
		snprintf(why, sizeof(why), "outside the live stack frames (at r10 %+lld)",
			 (long long)(addr - (stack_lo + KBPF_STACK_SIZE)));
	kbpf_interp_stop_msg(opts, insn, "invalid %s of %u bytes at 0x%llx (r%u %+d): %s", what, size,
			     (unsigned long long)addr, base_reg, off, why);
}
