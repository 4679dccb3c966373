/* SPDX-License-Identifier: Apache-2.0 */
/* The calling thread's per-CPU block (cpu.c): what a verified program's per-CPU address
 * move (KBPF_ADDR_PERCPU, Linux's BPF_ADDR_PERCPU) adds to its offset. Linux inlines
 * bpf_get_smp_processor_id as a load of pcpu_hot.cpu_number through that move; kbpf's
 * rewrite (src/verifier/grow.c) loads cpu_number of this block the same way. */
#ifndef KBPF_SRC_MAPS_PCPU_H
#define KBPF_SRC_MAPS_PCPU_H

#include <stddef.h>
#include <stdint.h>

struct kbpf_pcpu {
	uint32_t cpu_number; /* kbpf_cpu_id(): valid once assigned */
	uint32_t assigned;
};

/* The offset of the CPU number in the block (the imm of the rewrite's first insn). */
#define KBPF_PCPU_CPU_NUMBER_OFF ((int32_t)offsetof(struct kbpf_pcpu, cpu_number))

/* The address of the calling thread's block, its slot assigned (kbpf_cpu_id). */
uint64_t kbpf_pcpu_base(void);

#endif
