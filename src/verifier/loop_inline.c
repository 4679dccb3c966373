/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_loop inlining (Linux 6.1 update_loop_inline_state, optimize_bpf_loop,
 * inline_bpf_loop): a bpf_loop call whose callback is the same static function on every
 * path that reaches it, and whose flags are always the constant 0, becomes a loop in the
 * program itself that calls the callback with a BPF-to-BPF call. The helper's indirect
 * call per iteration (in kbpf a libffi closure that starts the interpreter anew) becomes a
 * direct call, and the program's xlated form is the one Linux's selftests expect.
 *
 * The walk records, per call insn, what Linux records (loop_inline_note). After a safe
 * verification grow.c rewrites the program: each call grows into Linux's 19 instructions
 * (loop_inline_emit), with the same registers (R6 bound, R7 counter, R8 ctx), the same
 * stack slots for their spills (below the subprogram's stack depth, rounded up to 8) and
 * the same jumps; each patched subprogram's stack depth grows by the spill area. */
#include <errno.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/insn.h>
#include "verifier/env.h"

#define REG_SIZE 8

/* Linux's loop_flag_is_zero: R4 a known 0; the verdict rests on it, so it is made
 * precise (at a callback-calling helper backtracking gives up: every scalar is). */
static int loop_flag_is_zero(struct env *env, bool *zero)
{
	const struct reg *r4 = &cur_regs(env)[4];
	*zero = r4->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r4->s.var_off, 0);
	return *zero ? mark_precise(env, 4) : 0;
}

int loop_inline_note(struct env *env, int insn_idx, uint32_t subprogno)
{
	struct insn_aux *a = &env->aux[insn_idx];
	bool zero;
	int err;

	if (!a->loop_inline_init) {
		a->loop_inline_init = true;
		err = loop_flag_is_zero(env, &zero);
		a->loop_inline_fit = zero;
		a->loop_cb_subprog = subprogno;
		return err;
	}
	if (!a->loop_inline_fit)
		return 0; /* once refused, refused (and no further precision marks) */
	err = loop_flag_is_zero(env, &zero);
	a->loop_inline_fit = zero && a->loop_cb_subprog == subprogno;
	return err;
}

static int round8(int v)
{
	return (v + 7) & ~7;
}

int loop_inline_extra_stack(int depth)
{
	return 3 * REG_SIZE + (round8(depth) - depth);
}

/* Fit on every visit, reached, and (kbpf's engines give every frame exactly
 * KBPF_MAX_STACK bytes, where Linux sizes the frame from the depth) its spill area fits
 * in the frame of subprog, the subprogram holding it, with may_goto's counter below it
 * if the subprogram has one (grow.c). */
bool loop_inline_here(const struct env *env, int i, int subprog)
{
	const struct bpf_insn *in = &env->insns[i];
	const struct insn_aux *a = &env->aux[i];
	if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0 || in->imm != BPF_FUNC_loop)
		return false;
	if (!a->seen || !a->loop_inline_init || !a->loop_inline_fit)
		return false;
	int counter = env->sub[subprog].has_may_goto ? REG_SIZE : 0;
	return round8(env->sub[subprog].stack_depth) + 3 * REG_SIZE + counter <= KBPF_MAX_STACK;
}

/* Linux's inline_bpf_loop body; base is the R6 spill slot's offset. */
void loop_inline_emit(struct bpf_insn *out, int32_t base, int32_t callback_rel)
{
	const struct bpf_insn patch[LOOP_PATCH_LEN] = {
		/* too many iterations: -E2BIG (a 32-bit move, as Linux), to the end */
		BPF_JMP_IMM(BPF_JLE, BPF_REG_1, BPF_MAX_LOOPS, 2),
		BPF_MOV32_IMM(BPF_REG_0, -E2BIG),
		BPF_JMP_IMM(BPF_JA, 0, 0, 16),
		/* R6-R8 are the loop's: spilled, restored at the end */
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_6, base),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_7, base + REG_SIZE),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_8, base + 2 * REG_SIZE),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), /* bound */
		BPF_MOV32_IMM(BPF_REG_7, 0),         /* counter */
		BPF_MOV64_REG(BPF_REG_8, BPF_REG_3), /* callback ctx */
		BPF_JMP_REG(BPF_JGE, BPF_REG_7, BPF_REG_6, 5),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_8),
		BPF_CALL_REL(0), /* the callback */
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, -6), /* the callback said "go on" */
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),    /* iterations made */
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_10, base),
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_10, base + REG_SIZE),
		BPF_LDX_MEM(BPF_DW, BPF_REG_8, BPF_REG_10, base + 2 * REG_SIZE),
	};
	memcpy(out, patch, sizeof(patch));
	out[LOOP_CALL_OFF].imm = callback_rel;
}
