/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier's scalar abstract domain: what is known about a 64-bit register
 * value (or a pointer's variable offset), with Linux 6.12's transfer functions.
 *
 * A value is described five ways at once, and a concrete x is a member only if it
 * satisfies all of them:
 *   var_off                  the known bits (tnum.h);
 *   smin_value..smax_value   x as s64;   umin_value..umax_value   x as u64;
 *   s32_min..s32_max         (s32)x;     u32_min..u32_max         (u32)x.
 * Keeping both signednesses and both widths is what lets JMP32 and ALU32 code be
 * verified; kbpf_scalar_bounds_sync() makes the five descriptions agree.
 *
 * Everything here is Linux 6.12's arithmetic (kernel/bpf/verifier.c), restated: the
 * function named in each contract is the one whose result ours reproduces.  The
 * parts of a register that are not the value (type, id, precise, liveness,
 * subreg_def) belong to the caller; where Linux's function also touches them, the
 * contract says what the caller must do.
 *
 * Opcodes are BPF_OP() values from <linux/bpf.h> (BPF_ADD ... BPF_END for ALU,
 * BPF_JEQ ... BPF_JSLE for jumps). */
#ifndef KBPF_VERIFIER_SCALAR_H
#define KBPF_VERIFIER_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "verifier/tnum.h"

struct scalar {
	struct tnum var_off;
	int64_t smin_value;
	int64_t smax_value;
	uint64_t umin_value;
	uint64_t umax_value;
	int32_t s32_min_value;
	int32_t s32_max_value;
	uint32_t u32_min_value;
	uint32_t u32_max_value;
};

/* --- Construction (6.1: ___mark_reg_known, __mark_reg32_known, __mark_reg_unknown,
 * __mark_reg_unbounded and its 64/32 halves) --- */

/* s becomes exactly v: var_off const, every bound from v (32-bit ones from the low
 * half). Linux's __mark_reg_known also clears id/off; that is the caller's. */
void kbpf_scalar_mark_known(struct scalar *s, uint64_t v);

/* The known constant v. */
struct scalar kbpf_scalar_known(uint64_t v);

/* The low 32 bits of s become v (var_off and the 32-bit bounds); the upper half of
 * var_off and the 64-bit bounds are left alone. */
void kbpf_scalar_mark_known32(struct scalar *s, uint32_t v);

/* s becomes any value: var_off unknown, all bounds unbounded. (Linux's
 * __mark_reg_unknown also sets type SCALAR, clears id, and sets precise =
 * !bpf_capable: the caller's.) */
void kbpf_scalar_mark_unknown(struct scalar *s);

/* The completely unknown scalar. */
struct scalar kbpf_scalar_unknown(void);

/* Bounds forgotten, var_off kept: all eight, the 64-bit four, the 32-bit four. */
void kbpf_scalar_mark_unbounded(struct scalar *s);
void kbpf_scalar_mark_unbounded64(struct scalar *s);
void kbpf_scalar_mark_unbounded32(struct scalar *s);

/* --- Keeping the descriptions consistent --- */

/* Tighten the bounds from var_off (6.1: __update_reg32_bounds, __update_reg64_bounds,
 * __update_reg_bounds = 32 then 64). */
void kbpf_scalar_update_bounds32(struct scalar *s);
void kbpf_scalar_update_bounds64(struct scalar *s);
void kbpf_scalar_update_bounds(struct scalar *s);

/* Share what the four ranges know (6.12): deduce_bounds32 tightens the 32-bit ranges
 * from the 64-bit ones and u32 <-> s32 (__reg32_deduce_bounds), deduce_bounds64 u64 <->
 * s64 (__reg64_deduce_bounds), deduce_mixed_bounds the 64-bit ranges from the 32-bit
 * ones (__reg_deduce_mixed_bounds); deduce_bounds is the three in that order
 * (__reg_deduce_bounds). A signed range that wraps in the unsigned order (or the
 * reverse) tightens the other only where the other meets just one of its two pieces. */
void kbpf_scalar_deduce_bounds32(struct scalar *s);
void kbpf_scalar_deduce_bounds64(struct scalar *s);
void kbpf_scalar_deduce_mixed_bounds(struct scalar *s);
void kbpf_scalar_deduce_bounds(struct scalar *s);

/* Tighten var_off from the unsigned bounds, both widths (6.1: __reg_bound_offset). */
void kbpf_scalar_bound_offset(struct scalar *s);

/* update; deduce three times; bound_offset; update (6.12: reg_bounds_sync). */
void kbpf_scalar_bounds_sync(struct scalar *s);

/* The 64-bit bounds from the 32-bit ones, for a value known to be its low half
 * (6.1: __reg_assign_32_into_64). */
void kbpf_scalar_assign_32_into_64(struct scalar *s);

/* After an ALU32 op or mov32: var_off = its low half, 64-bit bounds from the 32-bit
 * ones (6.1: zext_32_to_64). Does not sync; callers sync after it. */
void kbpf_scalar_zext_32_to_64(struct scalar *s);

/* After a load of size bytes (1, 2 or 4) into a scalar: truncate the value to that
 * size, then sync (6.12: coerce_reg_to_size; below 4 bytes the old 32-bit bounds are
 * dropped first). size >= 8 leaves s unchanged. */
void kbpf_scalar_coerce_to_size(struct scalar *s, int size);

/* After a sign-extending load or a 64-bit movsx of size bytes (1, 2 or 4): the value
 * becomes the sign extension of its low size bytes (6.12: coerce_reg_to_size_sx). A
 * constant stays exact; a range whose ends agree above the low bytes and extend to the
 * same sign stays a range; anything else is the source type's signed range. */
void kbpf_scalar_coerce_to_size_sx(struct scalar *s, int size);

/* The 32-bit movsx (w = (s8|s16) w): the low half becomes the sign extension of its
 * low size bytes (1 or 2) (6.12: coerce_subreg_to_size_sx); the caller zero-extends. */
void kbpf_scalar_coerce_subreg_to_size_sx(struct scalar *s, int size);

/* NULL if s is consistent, else why not (6.12's reg_bounds_sanity_check, its message
 * texts): a min above its max ("range bounds violation"), a constant var_off that a
 * 64-bit bound disagrees with ("const tnum out of sync with range bounds"), or a constant
 * low half that a 32-bit bound disagrees with ("const subreg tnum out of sync with range
 * bounds"). Only a state no value satisfies (a dead branch, or a bug in a transfer
 * function) is inconsistent. */
/* (inline: on the per-insn path, after every ALU op, load and compare) */
static inline const char *kbpf_scalar_invariant_violation(const struct scalar *s)
{
	if (s->umin_value > s->umax_value || s->smin_value > s->smax_value ||
	    s->u32_min_value > s->u32_max_value || s->s32_min_value > s->s32_max_value)
		return "range bounds violation";
	if (kbpf_tnum_is_const(s->var_off)) {
		uint64_t v = s->var_off.value;
		if (s->umin_value != v || s->umax_value != v || s->smin_value != (int64_t)v ||
		    s->smax_value != (int64_t)v)
			return "const tnum out of sync with range bounds";
	}
	if (kbpf_tnum_subreg_is_const(s->var_off)) {
		uint32_t v = (uint32_t)s->var_off.value;
		if (s->u32_min_value != v || s->u32_max_value != v || s->s32_min_value != (int32_t)v ||
		    s->s32_max_value != (int32_t)v)
			return "const subreg tnum out of sync with range bounds";
	}
	return NULL;
}

/* --- ALU --- */

/* dst = dst <op> src for an ALU (alu32) or ALU64 insn; op = BPF_OP(code).
 * Covers every opcode check_alu_op lets through on two scalars:
 *  - ADD SUB MUL DIV OR AND LSH RSH MOD XOR ARSH: 6.12's adjust_scalar_min_max_vals
 *    (DIV and MOD, and shifts by anything but a constant below the width, give a
 *    64-bit unknown with no zero-extension even for ALU32);
 *  - MOV: dst = src (mov32 then zero-extends and syncs). For MOV K pass
 *    kbpf_scalar_known(sign-extended imm); mov32 then yields known((u32)imm) as Linux;
 *  - NEG, END: a 64-bit unknown (Linux does not track them).
 * A K operand is passed as kbpf_scalar_known((uint64_t)(int64_t)imm). src may alias dst.
 * Caller's part: clearing dst's id (every op but mov64), precision propagation,
 * the div-by-zero and invalid-shift K checks that reject before this point. */
void kbpf_scalar_alu(struct scalar *dst, const struct scalar *src, uint8_t op, bool alu32);

/* --- Conditional jumps --- */

/* Is "if (reg <op> val)" decided? 1 always taken, 0 never, -1 unknown:
 * kbpf_scalar_branch_taken_regs with the constant val in a register, as 6.12 compares
 * a K operand. For jmp32 only the low 32 bits of val are used. Pointer registers are
 * the caller's (the null rule). */
int kbpf_scalar_branch_taken(const struct scalar *reg, uint64_t val, uint8_t op, bool jmp32);

/* Is "if (a <op> b)" decided, for two scalars neither of which need be constant? 1, 0
 * or -1 as above (6.12: is_scalar_branch_taken, "range vs range"): decided when the two
 * ranges (u64/s64, or u32/s32 for jmp32; for a 64-bit JEQ/JNE also the 32-bit
 * sub-ranges) or the known bits cannot meet, or always do. JSET needs one constant. */
int kbpf_scalar_branch_taken_regs(const struct scalar *a, const struct scalar *b, uint8_t op, bool jmp32);

/* op with its operands swapped ("a op b" == "b flip(op) a"); 0 for a non-comparison
 * (6.1: flip_opcode). */
uint8_t kbpf_scalar_flip_jmp_op(uint8_t op);

/* "if (a <op> b)" not decided, two scalars: true1/true2 are a/b on the taken branch,
 * false1/false2 on the fall-through; each pair is narrowed by the condition (the
 * fall-through's by its negation), both registers of a pair, then synced (6.12:
 * reg_set_min_max, regs_refine_cond_op). JEQ intersects the two; JNE moves an end of
 * one range off a constant other; JSET true sets the bit of a single-bit constant,
 * JSET false clears a constant's bits; the orders bound each by the other. The caller
 * checks the four results (kbpf_scalar_invariant_violation). The two sides are
 * distinct; the registers of a pair are one when a register is compared with itself. */
void kbpf_scalar_refine_cond(struct scalar *true1, struct scalar *true2, struct scalar *false1,
			     struct scalar *false2, uint8_t op, bool jmp32);

/* The same for a register compared with a constant: true_reg (the state on the taken
 * branch) and false_reg (fall-through) start as the same value and are narrowed by
 * "reg <op> val" being true / false; val32 is the constant's low half, used for jmp32.
 * true_reg and false_reg must be distinct. */
void kbpf_scalar_set_min_max(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
			uint32_t val32, uint8_t op, bool jmp32);

/* The same when the constant is on the left: "val <op> reg". */
void kbpf_scalar_set_min_max_inv(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
			    uint32_t val32, uint8_t op, bool jmp32);

/* --- Log text --- */

/* A scalar as Linux 6.12's print_reg_state writes it (without the caller's "P" mark):
 * the number if var_off is constant ("5", "-1", "0xffffffff"), otherwise "scalar("
 * [id=N,] the bounds list ")", e.g. "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,
 * var_off=(0x0; 0xff))". id 0 prints nothing. snprintf contract. */
int kbpf_scalar_snprint(char *buf, size_t size, const struct scalar *s, uint32_t id);

/* The value part of print_reg_state's list, shared by scalars and pointers (6.12):
 * "imm=N" if var_off is constant and non-zero (nothing for 0), otherwise the ranges
 * (print_scalar_ranges: smin smax umin umax smin32 smax32 umin32 umax32, defaults left
 * out, equal values merged as "smin=smin32=0") then "var_off=(v; m)" unless unknown.
 * Each item is preceded by "," unless first is true and it is the first item printed.
 * snprintf contract. */
int kbpf_scalar_snprint_bounds(char *buf, size_t size, const struct scalar *s, bool first);

/* Linux 6.12's verbose_snum / verbose_unum: decimal for [-32768, 32767] (unsigned:
 * up to 65535), otherwise "0x" and the 64-bit pattern in hex. snprintf contract. */
int kbpf_snum_snprint(char *buf, size_t size, int64_t v);
int kbpf_unum_snprint(char *buf, size_t size, uint64_t v);

#endif
