/* SPDX-License-Identifier: Apache-2.0 */
/* The rewrites after a safe walk that make the program longer, in one pass over the final
 * positions (Linux patches one instruction at a time with bpf_patch_insn_data; the result
 * is the same program):
 *   - an inlined bpf_loop call becomes Linux's 19-instruction loop (loop_inline.c);
 *   - an unprivileged program's tail call gets Linux's Spectre v1 guard (do_misc_fixups);
 *   - a call of a helper whose proto has inline_load becomes R0 = that variable, as
 *     do_misc_fixups inlines bpf_jiffies64 (ld_imm64 of its address, then a load);
 *   - may_goto gets its counter: a stack slot below the subprogram's depth (and below
 *     an inlined bpf_loop's spills), set to BPF_MAX_LOOPS by a store that becomes the
 *     subprogram's first insn (calls enter there, jumps to the old first insn land
 *     after it, as 6.12's adjust_jmp_off moves them). Linux expands may_goto into four
 *     insns on its hidden AX register; kbpf's engines execute it as one insn that reads
 *     and counts down the slot whose offset the rewrite puts in imm (interp_body.h,
 *     jit_x86.c), so the translated program keeps it: ".insn 0xe5, 0, 0, OFF, SLOT";
 *   - a division or modulo by a register gets do_misc_fixups' guard (isa/div_guard.c);
 *   - a call of kbpf's bpf_get_smp_processor_id becomes the load of the CPU number
 *     through a per-CPU move, and bpf_fastcall's dropped spills and fills go (fastcall.c).
 * Every jump, BPF-to-BPF call and function address that crosses a patch is moved as
 * bpf_adj_branches moves it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/insn.h>
#include <kbpf/map.h>
#include "isa/div_guard.h"
#include "verifier/env.h"

/* The subprogram that holds insn i (env->sub[nr_sub].start is cnt). */
static int sub_of(const struct env *env, int i)
{
	int s = 0;
	while (s + 1 < env->nr_sub && env->sub[s + 1].start <= i)
		s++;
	return s;
}

static bool inline_here(const struct env *env, int i)
{
	return loop_inline_here(env, i, sub_of(env, i));
}

/* Linux's do_misc_fixups for a tail call of an unprivileged program (Spectre v1): the
 * index is bounded in 64 bits, then masked, before the call; an index that is in range
 * only once truncated to 32 bits (what the call itself takes) does not call. */
#define TAIL_GUARD_LEN 3

static bool tail_guard_here(const struct env *env, int i)
{
	return !env->perfmon && env->aux[i].tail_map && !env->aux[i].tail_map_poison;
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

/* A helper that returns a variable: Linux's jiffies64 fixup (for a JIT on a 64-bit
 * machine; kbpf's engines are both). The call was verified with the helper's return type,
 * and the load gives what the helper would have returned. */
#define LOAD_PATCH_LEN 3

static bool load_here(const struct env *env, int i)
{
	return env->aux[i].inline_load != NULL;
}

static void emit_load(struct bpf_insn *out, const volatile uint64_t *var)
{
	const struct bpf_insn patch[LOAD_PATCH_LEN] = {
		BPF_LD_IMM64(BPF_REG_0, (uint64_t)(uintptr_t)var),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0),
	};
	memcpy(out, patch, sizeof(patch));
}

static int body_len(const struct env *env, const struct bpf_insn *in, int i);

/* may_goto's counter store, in front of the first insn of a subprogram that has one */
static int prologue_len(const struct env *env, int i)
{
	int s = sub_of(env, i);
	return env->sub[s].start == i && env->sub[s].has_may_goto ? 1 : 0;
}

/* How many instructions old insn i (in[i]) becomes. */
static int patch_len(const struct env *env, const struct bpf_insn *in, int i)
{
	return prologue_len(env, i) + body_len(env, in, i);
}

/* How many instructions old insn i (in[i]) becomes, its prologue not counted: a spill
 * or fill bpf_fastcall drops (fastcall.c) none for a privileged program, a NOP (ja +0)
 * else, as Linux removes NOPs (opt_remove_nops) only for those. */
static int body_len(const struct env *env, const struct bpf_insn *in, int i)
{
	if (env->aux[i].fastcall_drop)
		return env->priv ? 0 : 1;
	if (fastcall_inlines_cpu_id(env, i))
		return FASTCALL_CPU_ID_LEN;
	if (inline_here(env, i))
		return LOOP_PATCH_LEN;
	if (tail_guard_here(env, i))
		return TAIL_GUARD_LEN;
	if (load_here(env, i))
		return LOAD_PATCH_LEN;
	return kbpf_div_guard(&in[i], NULL);
}

/* Relative field (off or imm) of the insn at old index i, whose target is old index t,
 * in the new program; false if it does not fit (Linux: -ERANGE). from: where insn i is in
 * the new program (after its prologue); skip: the target's prologue is jumped over (a
 * jump; calls and function addresses enter at the prologue). */
static bool move_rel(const struct env *env, const int *nidx, int cnt, int i, int64_t t, bool skip, int64_t lo,
		     int64_t hi, int64_t *rel)
{
	if (t < 0 || t > cnt)
		return false; /* not in a verified program */
	int to = nidx[t] + (skip && t < cnt ? prologue_len(env, (int)t) : 0);
	*rel = (int64_t)to - (nidx[i] + prologue_len(env, i)) - 1;
	return *rel >= lo && *rel <= hi;
}

int grow_apply(struct env *env, const struct bpf_insn *in, struct bpf_insn **out, int *out_cnt, uint32_t **out_idx)
{
	int cnt = env->cnt;
	*out = NULL;
	*out_cnt = cnt;
	if (out_idx)
		*out_idx = NULL;
	int64_t grow = 0;
	bool patched = false;
	for (int i = 0; i < cnt; i++) {
		grow += patch_len(env, in, i) - 1;
		patched |= patch_len(env, in, i) != 1 || env->aux[i].fastcall_drop;
	}
	if (!patched)
		return 0;
	if ((int64_t)cnt + grow > KBPF_MAX_PROCESSED_INSNS) {
		vlog(env, "insn %d cannot be patched: the program would be too large\n", cnt);
		return -E2BIG;
	}
	/* nidx[i]: where old insn i (a patched call: its patch) starts; nidx[cnt] the end */
	int *nidx = malloc(((size_t)cnt + 1) * sizeof(*nidx));
	int32_t base[MAX_SUBPROGS + 1], mg_slot[MAX_SUBPROGS + 1];
	int extra[MAX_SUBPROGS + 1];
	bool has_loop[MAX_SUBPROGS + 1] = { false };
	if (!nidx)
		return -ENOMEM;
	for (int i = 0, d = 0; i <= cnt; i++) {
		nidx[i] = i + d;
		if (i < cnt)
			d += patch_len(env, in, i) - 1;
	}
	/* the spill area of each subprogram: below its depth rounded up to 8, the same for
	 * every call in it */
	for (int i = 0; i < cnt; i++)
		if (inline_here(env, i))
			has_loop[sub_of(env, i)] = true;
	for (int s = 0; s < env->nr_sub; s++) {
		int depth = env->sub[s].stack_depth;
		extra[s] = loop_inline_extra_stack(depth);
		base[s] = -(depth + extra[s]);
		/* may_goto's counter: the next 8 bytes down, in the frame kbpf's engines give
		 * every subprogram (Linux's JIT would let the frame grow past 512) */
		int below = has_loop[s] ? depth + extra[s] : (depth + 7) & ~7;
		mg_slot[s] = -(below + 8);
		if (env->sub[s].has_may_goto && below + 8 > KBPF_MAX_STACK) {
			vlog(env, "may_goto's counter does not fit: subprogram %d uses %d of the %d stack bytes\n", s,
			     below, KBPF_MAX_STACK);
			free(nidx);
			return -E2BIG;
		}
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
		int64_t rel = 0;
		bool ok = true;
		int at = nidx[i] + prologue_len(env, i); /* the insn's own patch */

		if (at != nidx[i])
			p[nidx[i]] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, BPF_REG_10, mg_slot[sub_of(env, i)],
								 BPF_MAX_LOOPS);
		if (env->aux[i].fastcall_drop) {
			if (!env->priv)
				p[at] = (struct bpf_insn)BPF_JMP_A(0);
			continue;
		}
		if (fastcall_inlines_cpu_id(env, i)) {
			fastcall_emit_cpu_id(&p[at]);
			continue;
		}
		if (inline_here(env, i)) {
			int s = sub_of(env, i);
			int cb = (int)env->aux[i].loop_cb_subprog;
			loop_inline_emit(&p[at], base[s], nidx[env->sub[cb].start] - (at + LOOP_CALL_OFF) - 1);
			patched_sub[s] = true;
			continue;
		}
		if (load_here(env, i)) {
			emit_load(&p[at], env->aux[i].inline_load);
			continue;
		}
		if (tail_guard_here(env, i)) {
			emit_tail_guard(&p[at], env->aux[i].tail_map, insn);
			continue;
		}
		if (kbpf_div_guard(&insn, NULL) > 1) {
			kbpf_div_guard(&insn, &p[at]);
			continue;
		}
		if (insn.code == (BPF_LD | BPF_IMM | BPF_DW) && insn.src_reg == BPF_PSEUDO_FUNC) {
			ok = move_rel(env, nidx, cnt, i, (int64_t)i + insn.imm + 1, false, INT32_MIN, INT32_MAX, &rel);
			insn.imm = (int32_t)rel;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_EXIT) {
			if (op == BPF_CALL) {
				if (insn.src_reg == BPF_PSEUDO_CALL) {
					ok = move_rel(env, nidx, cnt, i, (int64_t)i + insn.imm + 1, false, INT32_MIN,
						      INT32_MAX, &rel);
					insn.imm = (int32_t)rel;
				}
			} else if (cls == BPF_JMP32 && op == BPF_JA) { /* gotol: the offset is imm */
				ok = move_rel(env, nidx, cnt, i, (int64_t)i + insn.imm + 1, true, INT32_MIN, INT32_MAX,
					      &rel);
				insn.imm = (int32_t)rel;
			} else {
				ok = move_rel(env, nidx, cnt, i, (int64_t)i + insn.off + 1, true, INT16_MIN, INT16_MAX,
					      &rel);
				insn.off = (int16_t)rel;
				if (insn.code == (BPF_JMP | KBPF_JCOND))
					insn.imm = mg_slot[sub_of(env, i)];
			}
		}
		if (!ok) {
			/* Linux's bpf_patch_insn_data fails the load the same way */
			vlog(env, "insn %d cannot be patched due to 16-bit range\n", i);
			err = -ENOMEM;
			break;
		}
		p[at] = insn;
	}
	if (err)
		goto out;
	for (int s = 0; s < env->nr_sub; s++) {
		if (patched_sub[s])
			env->sub[s].stack_depth += extra[s];
		if (env->sub[s].has_may_goto)
			env->sub[s].stack_depth = -mg_slot[s];
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
