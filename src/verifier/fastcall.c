/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_fastcall, Linux 6.12's contract with clang (mark_fastcall_patterns,
 * check_fastcall_stack_contract, remove_fastcall_spills_fills): a call that clobbers only
 * R0 (if it returns something) and its argument registers may be wrapped by clang in
 * spills and fills of the other live R0-R5, at the lowest stack offsets of the function,
 *
 *     *(u64 *)(r10 - 16) = r2        <- offsets from the lowest spill offset up,
 *     *(u64 *)(r10 - 8) = r1            the innermost pair the lowest
 *     call bpf_get_smp_processor_id
 *     r1 = *(u64 *)(r10 - 8)
 *     r2 = *(u64 *)(r10 - 16)
 *
 * and where the call really keeps those registers and nothing else touches that stack
 * area, the pairs are dropped after verification and the function's stack depth shrinks.
 *
 * In kbpf the only such call is its own bpf_get_smp_processor_id, which grow.c inlines
 * (as Linux's x86-64 JIT case): w0 = offset; r0 = &(void __percpu *)(r0); r0 = *(u32 *)(r0
 * + 0). No call remains, so R1-R5 are kept on every engine (the interpreter, checked or
 * not, and the JIT, whose per-CPU move saves what its host call clobbers). Other helpers
 * whose prototype spares registers get their patterns marked but kept (Linux's
 * keep_fastcall_stack). Of the kfuncs, bpf_cast_to_kern_ctx and bpf_rdonly_cast are
 * inlined as in Linux (r0 = r1, fixup.c: R2-R5 resp. R3-R5 kept); other kfunc calls are
 * taken as clobbering R0-R5 (Linux marks patterns of any kfunc by its BTF prototype, and
 * keeps them): their spills count as other stack accesses.
 *
 * One difference, for soundness: Linux checks other accesses only below the smallest
 * pattern's end (fastcall_stack_off), so with patterns of different sizes an access to a
 * slot of a larger pattern, above that, does not stop the removal and would read a slot
 * never written. kbpf checks below the largest pattern's end (sub.fastcall_hi); the stack
 * depth after removal is Linux's. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include "host/host_internal.h"
#include "maps/pcpu.h"
#include "verifier/env.h"
#include "verifier/kfunc.h"

#define CALLER_SAVED 0x3fu /* R0-R5 */

/* The call at i is of kbpf's own bpf_get_smp_processor_id: another host's helper 8 is
 * called as it is. */
static bool is_cpu_id(const struct env *env, int i)
{
	const struct bpf_insn *in = &env->insns[i];

	if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0 || in->imm != BPF_FUNC_get_smp_processor_id)
		return false;
	const struct kbpf_helper_proto *fn = helper_proto(env, in->imm);
	return fn && fn->fn == kbpf_helper_get_smp_processor_id && !fn->run_id && !fn->inline_load;
}

bool fastcall_inlines_cpu_id(const struct env *env, int i)
{
	/* a call no path reached is dead code, filled with goto -1 (fixup.c) */
	return env->aux[i].seen && is_cpu_id(env, i);
}

/* The call at i is replaced by code that keeps the registers it does not return or
 * take: the inlined bpf_get_smp_processor_id, the casts' r0 = r1 (fixup.c). */
static bool inlines_call(const struct env *env, int i)
{
	return fastcall_inlines_cpu_id(env, i) ||
	       (env->aux[i].seen && env->aux[i].kfunc_cast != KFUNC_CAST_NONE);
}

void fastcall_emit_cpu_id(struct bpf_insn *out)
{
	const struct bpf_insn patch[FASTCALL_CPU_ID_LEN] = {
		BPF_MOV32_IMM(BPF_REG_0, KBPF_PCPU_CPU_NUMBER_OFF),
		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_0, KBPF_ADDR_PERCPU, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
	};
	for (int k = 0; k < FASTCALL_CPU_ID_LEN; k++)
		out[k] = patch[k];
}

/* The registers of R0-R5 the call at i may change (all of them if unknown), and whether
 * it is inlined keeping the others. */
static uint32_t clobbered(const struct env *env, int i, bool *inlined)
{
	const struct bpf_insn *in = &env->insns[i];
	uint32_t mask = 0;

	*inlined = false;
	switch ((enum kfunc_cast)env->aux[i].kfunc_cast) {
	case KFUNC_CAST_KERN_CTX: /* void *(void *): R0, R1 */
		*inlined = true;
		return 1u << BPF_REG_0 | 1u << BPF_REG_1;
	case KFUNC_RDONLY_CAST: /* void *(const void *, u32): R0-R2 */
		*inlined = true;
		return 1u << BPF_REG_0 | 1u << BPF_REG_1 | 1u << BPF_REG_2;
	default:
		break;
	}
	if (in->src_reg != 0)
		return CALLER_SAVED; /* BPF-to-BPF calls; other kfuncs (see above) */
	const struct kbpf_helper_proto *fn = helper_proto(env, in->imm);
	if (!fn)
		return CALLER_SAVED; /* refused by the walk */
	if (KBPF_RET_BASE(fn->ret_type) != KBPF_RET_VOID)
		mask |= 1u << BPF_REG_0;
	for (int a = 0; a < 5; a++)
		if (fn->arg_type[a] != KBPF_ARG_DONTCARE)
			mask |= 1u << (BPF_REG_1 + a);
	*inlined = is_cpu_id(env, i);
	return mask;
}

static bool is_spill(const struct bpf_insn *in)
{
	return in->code == (BPF_STX | BPF_MEM | BPF_DW) && in->dst_reg == BPF_REG_10;
}

/* Linux's mark_fastcall_pattern_for_call: the pairs around the call at i, offsets from
 * lowest up, each a register the call keeps, seen once; no pair insn but the outermost
 * spill may be a jump target (a pattern runs as a unit). */
static void mark_call(struct env *env, struct subprog *s, int end, int i, int lowest, const bool *target)
{
	bool inlined;
	uint32_t mask = clobbered(env, i, &inlined);
	if (mask == CALLER_SAVED)
		return;
	uint32_t expected = ~mask & CALLER_SAVED;
	int k, off;

	for (k = 1, off = lowest; k <= 6; k++, off += 8) {
		if (i - k < s->start || i + k >= end || target[i - k + 1] || target[i + k])
			break;
		const struct bpf_insn *stx = &env->insns[i - k], *ldx = &env->insns[i + k];
		if (!is_spill(stx) || ldx->code != (BPF_LDX | BPF_MEM | BPF_DW) || ldx->src_reg != BPF_REG_10 ||
		    stx->src_reg != ldx->dst_reg || !(expected & (1u << stx->src_reg)) || stx->off != off ||
		    ldx->off != off)
			break;
		expected &= ~(1u << stx->src_reg);
		env->aux[i - k].fastcall_pattern = true;
		env->aux[i + k].fastcall_pattern = true;
	}
	if (k == 1)
		return;
	if (inlined)
		env->aux[i].fastcall_spills = (uint8_t)(k - 1);
	else
		s->fastcall_keep = true; /* a later kernel's fastcall: its pairs stay */
	if (off < s->fastcall_lo)
		s->fastcall_lo = off;
	if (off > s->fastcall_hi)
		s->fastcall_hi = off;
}

/* Where a jump, a BPF-to-BPF call or a callback reference may land (Linux's jump_target
 * from check_cfg; here every insn's, reachable or not: a superset). */
static void jump_targets(const struct env *env, bool *target)
{
	for (int i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in = &env->insns[i];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		int64_t t = -1;

		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (in->src_reg == BPF_PSEUDO_FUNC)
				t = (int64_t)i + in->imm + 1;
			i++;
		} else if (cls == BPF_JMP || cls == BPF_JMP32) {
			if (op == BPF_CALL)
				t = in->src_reg == BPF_PSEUDO_CALL ? (int64_t)i + in->imm + 1 : -1;
			else if (op == BPF_JA && cls == BPF_JMP32)
				t = (int64_t)i + in->imm + 1;
			else if (op != BPF_EXIT)
				t = (int64_t)i + in->off + 1;
		}
		if (t >= 0 && t < env->cnt)
			target[t] = true;
	}
}

void fastcall_mark(struct env *env)
{
	bool *target = calloc((size_t)env->cnt + 1, sizeof(*target));

	for (int n = 0; n < env->nr_sub; n++) {
		struct subprog *s = &env->sub[n];
		s->fastcall_lo = 0;
		s->fastcall_hi = INT_MIN; /* no pattern: no access is checked */
		s->fastcall_keep = s->fastcall_off = false;
	}
	if (!target)
		return; /* no patterns: nothing is removed */
	jump_targets(env, target);
	for (int n = 0; n < env->nr_sub; n++) {
		struct subprog *s = &env->sub[n];
		int end = env->sub[n + 1].start, lowest = 0;

		for (int i = s->start; i < end; i++)
			if (is_spill(&env->insns[i]) && env->insns[i].off < lowest)
				lowest = env->insns[i].off;
		for (int i = s->start; i < end; i++)
			if (env->insns[i].code == (BPF_JMP | BPF_CALL))
				mark_call(env, s, end, i, lowest, target);
	}
	free(target);
}

void fastcall_stack_access(struct env *env, const struct frame *f, int64_t min_off)
{
	struct subprog *s = &env->sub[f->subprogno];

	if (s->fastcall_off || min_off >= s->fastcall_hi || env->aux[env->insn_idx].fastcall_pattern)
		return;
	/* another access to the spill area: nothing of this function's patterns goes */
	s->fastcall_off = true;
	for (int i = s->start; i < env->sub[f->subprogno + 1].start; i++) {
		env->aux[i].fastcall_spills = 0;
		env->aux[i].fastcall_pattern = false;
	}
}

void fastcall_remove(struct env *env)
{
	for (int n = 0; n < env->nr_sub; n++) {
		struct subprog *s = &env->sub[n];
		bool removed = false;

		for (int i = s->start; !s->fastcall_off && i < env->sub[n + 1].start; i++) {
			if (!inlines_call(env, i))
				continue; /* dead code: its pairs stay goto -1 (fixup.c) */
			for (int k = 1; k <= env->aux[i].fastcall_spills; k++)
				env->aux[i - k].fastcall_drop = env->aux[i + k].fastcall_drop = true;
			removed |= env->aux[i].fastcall_spills > 0;
		}
		if (removed && !s->fastcall_keep && s->stack_depth > -s->fastcall_lo)
			s->stack_depth = -s->fastcall_lo;
	}
}
