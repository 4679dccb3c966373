/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_loop inlining (Linux 6.1 update_loop_inline_state, optimize_bpf_loop,
 * inline_bpf_loop): a bpf_loop call whose callback is the same static function on every
 * path that reaches it, and whose flags are always the constant 0, becomes a loop in the
 * program itself that calls the callback with a BPF-to-BPF call. The helper's indirect
 * call per iteration (in kbpf a libffi closure that starts the interpreter anew) becomes a
 * direct call, and the program's xlated form is the one Linux's selftests expect.
 *
 * The same pass adds the tail-call guard of unprivileged programs (do_misc_fixups):
 * three instructions for each tail call (tail_guard_here).
 *
 * The walk records, per call insn, what Linux records (loop_inline_note). After a safe
 * verification the program is rewritten in one pass (loop_inline_apply): each call grows
 * into Linux's 19 instructions, with the same registers (R6 bound, R7 counter, R8 ctx),
 * the same stack slots for their spills (below the subprogram's stack depth, rounded up to
 * 8) and the same jumps; every jump, BPF-to-BPF call and function address that crosses a
 * patch is moved as bpf_adj_branches moves it, and each patched subprogram's stack depth
 * grows by the spill area. Linux patches one call at a time; one pass over the final
 * positions gives the same program. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/insn.h>
#include <kbpf/map.h>
#include "verifier/env.h"

#define LOOP_PATCH_LEN 19
#define LOOP_CALL_OFF 12         /* the BPF-to-BPF call inside the patch */
#define BPF_MAX_LOOPS (8 * 1024 * 1024) /* bpf_loop's bound on nr_loops (Linux's) */
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

static bool is_loop_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 && in->imm == BPF_FUNC_loop;
}

static int round8(int v)
{
	return (v + 7) & ~7;
}

/* The subprogram that holds insn i (env->sub[nr_sub].start is cnt). */
static int sub_of(const struct env *env, int i)
{
	int s = 0;
	while (s + 1 < env->nr_sub && env->sub[s + 1].start <= i)
		s++;
	return s;
}

/* Whether the call at i is inlined: fit on every visit, reached, and (kbpf's engines give
 * every frame exactly KBPF_MAX_STACK bytes, where Linux sizes the frame from the depth)
 * its spill area fits in the frame. */
static bool inline_here(const struct env *env, int i)
{
	const struct insn_aux *a = &env->aux[i];
	if (!is_loop_call(&env->insns[i]) || !a->seen || !a->loop_inline_init || !a->loop_inline_fit)
		return false;
	int depth = env->sub[sub_of(env, i)].stack_depth;
	return round8(depth) + 3 * REG_SIZE <= KBPF_MAX_STACK;
}

/* Linux's do_misc_fixups for a tail call of an unprivileged program (Spectre v1): the
 * index is bounded in 64 bits, then masked, before the call; an index that is in range
 * only once truncated to 32 bits (what the call itself takes) does not call. */
#define TAIL_GUARD_LEN 3

static bool tail_guard_here(const struct env *env, int i)
{
	return !env->priv && env->aux[i].tail_map && !env->aux[i].tail_map_poison;
}

static void emit_tail_guard(struct bpf_insn *out, const struct kbpf_map *map, struct bpf_insn call)
{
	uint32_t max = kbpf_map_max_entries(map), mask = 0;
	while (max && mask < max - 1) /* Linux's array index_mask: the next power of two, less 1 */
		mask = mask << 1 | 1;
	out[0] = (struct bpf_insn)BPF_JMP_IMM(BPF_JGE, BPF_REG_3, (int32_t)max, 2);
	out[1] = (struct bpf_insn)BPF_ALU32_IMM(BPF_AND, BPF_REG_3, (int32_t)mask);
	out[2] = call;
}

/* How many instructions old insn i becomes. */
static int patch_len(const struct env *env, int i)
{
	return inline_here(env, i) ? LOOP_PATCH_LEN : tail_guard_here(env, i) ? TAIL_GUARD_LEN : 1;
}

/* Linux's inline_bpf_loop body at out[0..18]; base is the R6 spill slot's offset. */
static void emit_loop(struct bpf_insn *out, int32_t base)
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
		BPF_CALL_REL(0), /* the callback: its imm is set by the caller */
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, -6), /* the callback said "go on" */
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),    /* iterations made */
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_10, base),
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_10, base + REG_SIZE),
		BPF_LDX_MEM(BPF_DW, BPF_REG_8, BPF_REG_10, base + 2 * REG_SIZE),
	};
	memcpy(out, patch, sizeof(patch));
}

/* Relative field (off or imm) of the insn at old index i, whose target is old index t,
 * in the new program; false if it does not fit (Linux: -ERANGE). */
static bool move_rel(const int *nidx, int cnt, int i, int64_t t, int64_t lo, int64_t hi, int64_t *rel)
{
	if (t < 0 || t > cnt)
		return false; /* not in a verified program */
	*rel = (int64_t)nidx[t] - nidx[i] - 1;
	return *rel >= lo && *rel <= hi;
}

int loop_inline_apply(struct env *env, const struct bpf_insn *in, struct bpf_insn **out, int *out_cnt,
		      uint32_t **out_idx)
{
	int cnt = env->cnt;
	*out = NULL;
	*out_cnt = cnt;
	if (out_idx)
		*out_idx = NULL;
	int64_t grow = 0;
	for (int i = 0; i < cnt; i++)
		grow += patch_len(env, i) - 1;
	if (!grow)
		return 0;
	if ((int64_t)cnt + grow > KBPF_MAX_PROCESSED_INSNS) {
		vlog(env, "insn %d cannot be patched: the program would be too large\n", cnt);
		return -E2BIG;
	}
	/* nidx[i]: where old insn i (a patched call: its patch) starts; nidx[cnt] the end */
	int *nidx = malloc(((size_t)cnt + 1) * sizeof(*nidx));
	int32_t base[MAX_SUBPROGS + 1];
	int extra[MAX_SUBPROGS + 1];
	if (!nidx)
		return -ENOMEM;
	for (int i = 0, d = 0; i <= cnt; i++) {
		nidx[i] = i + d;
		if (i < cnt)
			d += patch_len(env, i) - 1;
	}
	/* the spill area of each subprogram: below its depth rounded up to 8, the same for
	 * every call in it */
	for (int s = 0; s < env->nr_sub; s++) {
		int depth = env->sub[s].stack_depth;
		extra[s] = 3 * REG_SIZE + (round8(depth) - depth);
		base[s] = -(depth + extra[s]);
	}
	int new_cnt = nidx[cnt];
	struct bpf_insn *p = calloc((size_t)new_cnt, sizeof(*p));
	bool *patched_sub = calloc((size_t)env->nr_sub, sizeof(*patched_sub));
	int err = 0;
	if (!p || !patched_sub) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < cnt && !err; i++) {
		struct bpf_insn insn = in[i];
		uint8_t cls = BPF_CLASS(insn.code), op = BPF_OP(insn.code);
		int64_t rel;
		bool ok = true;

		if (inline_here(env, i)) {
			int s = sub_of(env, i);
			int cb = (int)env->aux[i].loop_cb_subprog;
			emit_loop(&p[nidx[i]], base[s]);
			p[nidx[i] + LOOP_CALL_OFF].imm = nidx[env->sub[cb].start] - (nidx[i] + LOOP_CALL_OFF) - 1;
			patched_sub[s] = true;
			continue;
		}
		if (tail_guard_here(env, i)) {
			emit_tail_guard(&p[nidx[i]], env->aux[i].tail_map, insn);
			continue;
		}
		if (insn.code == (BPF_LD | BPF_IMM | BPF_DW) && insn.src_reg == BPF_PSEUDO_FUNC) {
			ok = move_rel(nidx, cnt, i, (int64_t)i + insn.imm + 1, INT32_MIN, INT32_MAX, &rel);
			insn.imm = (int32_t)rel;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_EXIT) {
			if (op == BPF_CALL) {
				if (insn.src_reg == BPF_PSEUDO_CALL) {
					ok = move_rel(nidx, cnt, i, (int64_t)i + insn.imm + 1, INT32_MIN, INT32_MAX, &rel);
					insn.imm = (int32_t)rel;
				}
			} else if (cls == BPF_JMP32 && op == BPF_JA) { /* gotol: the offset is imm */
				ok = move_rel(nidx, cnt, i, (int64_t)i + insn.imm + 1, INT32_MIN, INT32_MAX, &rel);
				insn.imm = (int32_t)rel;
			} else {
				ok = move_rel(nidx, cnt, i, (int64_t)i + insn.off + 1, INT16_MIN, INT16_MAX, &rel);
				insn.off = (int16_t)rel;
			}
		}
		if (!ok) {
			/* Linux's bpf_patch_insn_data fails the load the same way */
			vlog(env, "insn %d cannot be patched due to 16-bit range\n", i);
			err = -ENOMEM;
			break;
		}
		p[nidx[i]] = insn;
	}
	if (err)
		goto out;
	for (int s = 0; s < env->nr_sub; s++) {
		if (patched_sub[s])
			env->sub[s].stack_depth += extra[s];
		env->sub[s].start = nidx[env->sub[s].start];
	}
	env->sub[env->nr_sub].start = new_cnt;
	*out = p;
	*out_cnt = new_cnt;
	p = NULL;
	if (out_idx) {
		/* the same map, for the caller: int and uint32_t agree on every value here */
		uint32_t *idx = malloc(((size_t)cnt + 1) * sizeof(*idx));
		if (!idx) {
			free(*out);
			*out = NULL;
			err = -ENOMEM;
			goto out;
		}
		for (int i = 0; i <= cnt; i++)
			idx[i] = (uint32_t)nidx[i];
		*out_idx = idx;
	}
out:
	free(p);
	free(patched_sub);
	free(nidx);
	return err;
}
