/* SPDX-License-Identifier: Apache-2.0 */
/* The two assembler front ends behind kbpf_asm() (src/isa/asm.c). Both take the whole
 * text and return a malloc'ed array; errors are "line N: what is wrong" in err. */
#ifndef KBPF_SRC_ISA_ASM_INTERNAL_H
#define KBPF_SRC_ISA_ASM_INTERNAL_H

#include <kbpf/isa.h>

/* Linux verifier-log / bpftool / llvm-objdump pseudo-C syntax (src/isa/asm_pseudo.c). */
int kbpf_asm_pseudo_c(const char *text, struct bpf_insn **insns, size_t *cnt, char *err, size_t err_size);

/* bpf_conformance / uBPF syntax, "mov32 %r0, 0" (src/isa/asm_conformance.c). */
int kbpf_asm_conformance(const char *text, struct bpf_insn **insns, size_t *cnt, char *err, size_t err_size);

/* Nonzero when text looks like the conformance dialect (src/isa/asm_conformance.c). */
int kbpf_asm_is_conformance(const char *text);

#endif
