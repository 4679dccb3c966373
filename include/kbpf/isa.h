/* SPDX-License-Identifier: Apache-2.0 */
/* Instruction-level tools: structural validation, disassembly, assembly.
 * Ownership: nothing is kept after a call; kbpf_asm's instructions are malloc'ed for the
 * caller to free(). kbpf_helper_linux_name returns a static string. Threads: every
 * function may be called from any number of threads at once. */
#ifndef KBPF_ISA_H
#define KBPF_ISA_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <kbpf/insn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Structural checks done before anything runs: known opcode, reserved fields zero,
 * registers in range (R10 never written), jumps and calls inside the program and not
 * into the second half of an LDDW, LDDW not split or last.  Returns 0, or -EINVAL with
 * one line "insn N: what is wrong" in err (if err is non-NULL). */
KBPF_API int kbpf_insns_validate(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size);

/* Number of instruction slots insns[idx] occupies (2 for LDDW, else 1). */
static inline size_t kbpf_insn_slots(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1;
}

/* Names printed for calls; either callback may be NULL or return NULL to fall back to
 * the built-in names (Linux helper names for helper ids, "kfunc#ID" for kfuncs). */
struct kbpf_disasm_opts {
	size_t sz; /* sizeof(struct kbpf_disasm_opts) */
	const char *(*helper_name)(void *cookie, int32_t helper_id);
	const char *(*kfunc_name)(void *cookie, int32_t btf_id);
	void *cookie;
	/* Prefix each line with "N: (code) " as Linux's verifier log and bpftool do. */
	int with_index;
	/* Print jump targets as labels ("goto LBB3") instead of "pc+N", so the output
	 * re-assembles even after edits. */
	int with_labels;
};

/* Disassemble insns[idx] (and its second slot for LDDW) into buf in the pseudo-C syntax
 * of Linux's verifier log, e.g. "r0 = 1", "if r1 > 0x2 goto pc+3",
 * "*(u32 *)(r10 -4) = r1".  Returns the number of slots consumed (1 or 2), or -EINVAL
 * for an undecodable instruction (buf then says why). */
KBPF_API int kbpf_insn_disasm(const struct bpf_insn *insns, size_t cnt, size_t idx,
		     const struct kbpf_disasm_opts *opts, char *buf, size_t size);

/* Disassemble a whole program, one instruction per line, to out. Returns 0 or -EINVAL. */
KBPF_API int kbpf_prog_disasm(const struct bpf_insn *insns, size_t cnt,
		     const struct kbpf_disasm_opts *opts, FILE *out);

/* Assembler dialects. AUTO picks CONFORMANCE when the text uses "%r" registers or the
 * conformance mnemonics (mov32, ldxw, jne …), PSEUDO_C otherwise. */
enum kbpf_asm_dialect {
	KBPF_ASM_AUTO = 0,
	KBPF_ASM_PSEUDO_C,    /* Linux verifier log / bpftool / llvm-objdump syntax */
	KBPF_ASM_CONFORMANCE, /* the bpf_conformance / uBPF syntax: "mov32 %r0, 0" */
};

/* Assemble text into a newly malloc'ed instruction array (*insns, *cnt; free() it).
 * Labels ("name:") may be used as jump and "call" targets.  Returns 0, or -EINVAL with
 * "line N: what is wrong" in err, or -ENOMEM. */
KBPF_API int kbpf_asm(const char *text, enum kbpf_asm_dialect dialect, struct bpf_insn **insns,
	     size_t *cnt, char *err, size_t err_size);

/* Linux's name for helper id, or NULL if it has none. */
KBPF_API const char *kbpf_helper_linux_name(int32_t helper_id);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_ISA_H */
