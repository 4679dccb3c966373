/* SPDX-License-Identifier: Apache-2.0 */
/* The generator's templates (gen.h, enum snd_tmpl; tests/soundness/README.md): shapes
 * modelled on the holes of issue 16, which random snippets almost never build — paths
 * that differ only in what pruning must compare (scalar ids, the held lock, packet
 * pointer validity, a spilled value filled through a copy of r10), callbacks whose
 * run-time count is not one, helpers on their error paths, pointer JMP32 compares,
 * tail-call chains, packet pointers moved back after a data_end check, kfunc memory
 * arguments. Each keeps gen.c's invariants (R6 ctx in main, R7-R9 scalars, stack
 * [-136, -1] initialised) and uses the stack below -136 only as its own scratch:
 * -144 and -152 for spilled pointers (written before read), -160 as an output buffer
 * never written by the program (a helper that promises to write it must).
 *
 * Unknown scalars come from the global map's value (its bytes are the case's seed):
 * branches on them go both ways over many seeds, and indexes from them are large unless
 * bounded. An index is used into the global map's 32-byte value (or, privileged, the
 * stack): an unsafe program that a verifier bug lets through then reads outside it, and
 * the checked interpreter stops it. */
#include <string.h>
#include "gen_internal.h"

const char *const snd_tmpl_names[SND_NR_TMPL] = {
	[SND_T_PRUNE_IDS] = "prune_ids",     [SND_T_PRUNE_LOCK] = "prune_lock", [SND_T_PRUNE_PKT] = "prune_pkt",
	[SND_T_LOOP_CB] = "loop_cb",         [SND_T_EACH_CB] = "each_cb",       [SND_T_SPILL_PTR] = "spill_ptr",
	[SND_T_LINKED] = "linked",           [SND_T_HELPER_OUT] = "helper_out", [SND_T_PTR_JMP32] = "ptr_jmp32",
	[SND_T_TAIL_CHAIN] = "tail_chain",   [SND_T_PKT_NEG] = "pkt_neg",       [SND_T_KFUNC_MEM] = "kfunc_mem",
	[SND_T_V4] = "v4",                   [SND_T_MAY_GOTO] = "may_goto",     [SND_T_GLOBAL_MEM] = "global_mem",
	[SND_T_FASTCALL] = "fastcall",
};

/* Functions templates append (struct snd_gen_func.kind). */
enum {
	FN_LOOP_CB,   /* bpf_loop callback (r1 index, r2 ctx): a = op, b = value */
	FN_EACH_CB,   /* for_each_map_elem callback (r4 ctx): the same */
	FN_TAIL_SUB,  /* a subprogram taking ctx in r1 that writes its stack and tail-calls: a = map, b = slot */
	FN_PKT_GLOBAL,/* a global function (harness.h, SND_GLOBAL_MARK) that changes the packet: a = xdp, b = len */
	FN_MEM_GLOBAL,/* a global function (SND_GLOBAL_MEM_MARK) using its memory argument: a = GM_* bits, b = offset */
};
/* What a global_mem function does with its argument (struct snd_gen_func.a). */
enum {
	GM_READ,      /* r0 = the u64 at b */
	GM_WRITE,     /* the u64 at b = n, r0 = n */
	GM_WRITE_ALL, /* every u64 = n */
	GM_READ_B,    /* r0 = the byte at b */
	GM_NR,
	GM_OP = 0x7,
	GM_NONNULL = 0x8, /* the arg:nonnull version: no NULL check */
	GM_NO_CHECK = 0x10, /* the nullable version without its NULL check (must be refused) */
};
/* Callback ops on the caller's slot. */
enum { CB_ADD, CB_SET, CB_SET_STOP, CB_NR };

#define SCRATCH_A (-144)
#define SCRATCH_B (-152)
#define OUT_SLOT (-160)
#define GMEM_BUF (-200) /* global_mem's stack buffer: [-200, -168) */
#define FC_LOW (-256)   /* fastcall's pairs: [-256, -216), the lowest spills of a function */

static int add_func(struct snd_gen *g, size_t site, int kind, int32_t a, int32_t b)
{
	if (g->nr_funcs >= (int)(sizeof(g->funcs) / sizeof(g->funcs[0])))
		return -1;
	g->funcs[g->nr_funcs++] = (struct snd_gen_func){ site, kind, a, b };
	return 0;
}

/* reg = an unknown scalar: a load of the global map's value, masked or not. */
static void unknown(struct snd_gen *g, int reg, int32_t mask)
{
	static const uint8_t sz[3] = { BPF_DW, BPF_W, BPF_B };
	int si = (int)rn(g, 3);
	int off = (int)rn(g, 4) * 8;

	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(reg, SND_MAP_GLOBAL, off) });
	emit(g, BPF_LDX_MEM(sz[si], reg, reg, 0));
	if (mask)
		emit(g, BPF_ALU64_IMM(BPF_AND, reg, mask));
}

/* Instructions and jumps that do nothing to R0-R6, so that a prune point after them
 * gets a checkpoint even without BPF_F_TEST_STATE_FREQ (Linux's heuristic: 2 jumps and
 * 8 instructions since the last one). */
static void pad_but(struct snd_gen *g, int avoid)
{
	int n = (int)rn(g, 4);

	for (int i = 0; i < n; i++) {
		int r = sreg(g);
		if (r == avoid)
			r = BPF_REG_7;
		if (pct(g, 40)) {
			emit(g, BPF_JMP_IMM(BPF_JSGT, r, imm(g), 1));
			emit(g, BPF_ALU64_IMM(BPF_ADD, r, 1));
		} else {
			emit(g, BPF_ALU64_IMM(pct(g, 50) ? BPF_XOR : BPF_ADD, r, imm(g)));
		}
	}
}

static void pad(struct snd_gen *g)
{
	pad_but(g, 0);
}

/* A memory base an index in [0, *limit] may be added to: the global map's value (32
 * bytes) or, privileged and if stack is allowed, the scalar slots of the stack (64
 * bytes). */
static void index_base(struct snd_gen *g, int reg, int *limit, int stack)
{
	if (stack && !g->c.unprivileged && pct(g, 35)) {
		emit(g, BPF_MOV64_REG(reg, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, reg, -64));
		*limit = 63;
	} else {
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(reg, SND_MAP_GLOBAL, 0) });
		*limit = SND_GLOBAL_VALUE - 1;
	}
}

/* Use idx (not R1) as a byte index into a base: a load into a scalar register, or a
 * store of one. An index no check bounds (only the verifier's view of its value) goes
 * into the map value only: below the stack base a privileged program may read stack it
 * never wrote, which strict programs do not. */
static void use_index_in(struct snd_gen *g, int idx, int stack)
{
	int limit;

	index_base(g, BPF_REG_1, &limit, stack);
	emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, idx));
	if (pct(g, 60)) {
		emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 0));
		emit(g, BPF_ALU64_REG(BPF_ADD, sreg(g), BPF_REG_0));
	} else {
		emit(g, BPF_STX_MEM(BPF_B, BPF_REG_1, sreg(g), 0));
	}
}

static void use_index(struct snd_gen *g, int idx)
{
	use_index_in(g, idx, 1);
}

/* The bound a checked index gets: right (the base's limit), or a little too big now and
 * then (such programs must be refused). */
static int32_t index_limit(struct snd_gen *g)
{
	int32_t lim = pct(g, 60) ? SND_GLOBAL_VALUE - 1 : (int32_t)rn(g, SND_GLOBAL_VALUE);
	return pct(g, 3) ? lim + 1 + (int32_t)rn(g, 8) : lim;
}

static const int32_t masks[] = { 0xff, 0x3f, 0x1f, 0x7, 0xffff, 0 };

static int32_t a_mask(struct snd_gen *g)
{
	return masks[rn(g, sizeof(masks) / sizeof(masks[0]))];
}

/* A jump on an unknown scalar in R0 (loaded here): both ways happen over seeds. */
static size_t branch_unknown(struct snd_gen *g)
{
	static const uint8_t ops[] = { BPF_JGT, BPF_JLT, BPF_JSET, BPF_JEQ, BPF_JNE, BPF_JSGT };
	unknown(g, BPF_REG_0, pct(g, 50) ? 0xff : 0);
	return jmp_fwd(g, BPF_JMP_IMM(ops[rn(g, sizeof(ops))], BPF_REG_0, (int32_t)rn(g, 256), 0));
}

/* Class 10: "r4 = r5" on one path, r4 independent on the other; the bound check is on
 * r5, the use of r4. Pruning that ignores ids takes the second path for the first. */
static void t_prune_ids(struct snd_gen *g)
{
	int a = BPF_REG_4, b = BPF_REG_5, use_a = pct(g, 80);
	int32_t m = a_mask(g);

	unknown(g, a, m);
	unknown(g, b, m);
	pad(g);
	size_t j = branch_unknown(g);
	emit(g, BPF_MOV64_REG(pct(g, 80) ? a : b, pct(g, 80) ? b : a)); /* the link */
	if (pct(g, 20))
		emit(g, BPF_MOV64_REG(BPF_REG_3, a)); /* a third copy, sometimes */
	pad(g);
	patch(g, j);
	pad(g);
	size_t k = jmp_fwd(g, BPF_JMP_IMM(pct(g, 80) ? BPF_JGT : BPF_JGE, use_a ? b : a, index_limit(g), 0));
	use_index(g, use_a ? a : b);
	patch(g, k);
}

/* Class 3 (and 10): two linked copies; on another path one is re-bound (a fresh unknown,
 * the branch's value, a large or a small constant); a bound check before or after the
 * merge, on either copy; the other one, or the same, used as an index. */
static void t_linked(struct snd_gen *g)
{
	int a = BPF_REG_4, b = BPF_REG_5;
	int32_t m = a_mask(g);
	size_t early = (size_t)-1, late = (size_t)-1;

	unknown(g, a, m);
	emit(g, pct(g, 85) ? BPF_MOV64_REG(b, a) : BPF_MOV32_REG(b, a));
	if (pct(g, 40)) {
		/* the plain one: b re-bound to a small constant on the path walked second; after
		 * the merge "if b > lim" bounds a only where they are linked; a is the index */
		pad(g);
		size_t j = branch_unknown(g);
		pad(g);
		size_t over = jmp_fwd(g, BPF_JMP_A(0));
		patch(g, j);
		emit(g, BPF_MOV64_IMM(b, (int32_t)rn(g, 8)));
		patch(g, over);
		pad(g);
		size_t chk = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, b, index_limit(g), 0));
		use_index(g, a);
		patch(g, chk);
		return;
	}
	if (pct(g, 50))
		early = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, pct(g, 50) ? a : b, index_limit(g), 0));
	pad(g);
	size_t j = branch_unknown(g);
	pad(g);
	size_t over = jmp_fwd(g, BPF_JMP_A(0));
	patch(g, j);
	int re = pct(g, 50) ? a : b;
	switch (rn(g, 4)) {
	case 0:
		unknown(g, re, m);
		break;
	case 1:
		emit(g, BPF_MOV64_REG(re, BPF_REG_0));
		break;
	case 2:
		emit(g, BPF_MOV64_IMM(re, 200 + (int32_t)rn(g, 100)));
		break;
	default: /* small: a later check of it passes and bounds nothing else */
		emit(g, BPF_MOV64_IMM(re, (int32_t)rn(g, 8)));
		break;
	}
	pad(g);
	patch(g, over);
	pad(g);
	if (early == (size_t)-1 || pct(g, 30))
		late = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, pct(g, 50) ? a : b, index_limit(g), 0));
	use_index(g, pct(g, 50) ? a : b);
	if (late != (size_t)-1)
		patch(g, late);
	if (early != (size_t)-1)
		patch(g, early);
}

/* Class 2: a value spilled through a copy of r10 (or r10), small on one path and large
 * on the other, filled through the copy after the merge and used as an index: the fill
 * must carry precision back to the slot. In a subprogram R6 (a pointer to one of the
 * caller's slots) is such a copy too. */
static void t_spill_ptr(struct snd_gen *g, const struct fn_state *fs)
{
	int base = BPF_REG_2;
	int16_t slot = (int16_t)(-8 * (1 + (int)rn(g, 8)));

	if (!fs->has_ctx && fs->sub_index >= 0 && pct(g, 40)) {
		base = BPF_REG_6;
		slot = 0;
	} else {
		emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, slot));
		slot = 0;
	}
	unknown(g, BPF_REG_5, pct(g, 50) ? 0xff : 0);
	pad(g);
	size_t j = branch_unknown(g);
	int32_t small = (int32_t)rn(g, 8);
	if (pct(g, 50))
		emit(g, BPF_ST_MEM(BPF_DW, base, slot, small));
	else {
		emit(g, BPF_MOV64_IMM(BPF_REG_3, small));
		emit(g, BPF_STX_MEM(BPF_DW, base, BPF_REG_3, slot));
	}
	pad(g);
	size_t over = jmp_fwd(g, BPF_JMP_A(0));
	patch(g, j);
	emit(g, BPF_STX_MEM(BPF_DW, base, BPF_REG_5, slot));
	patch(g, over);
	pad(g);
	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_3, base, slot));
	if (pct(g, 15)) /* a sound one now and then: bounded */
		over = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_3, index_limit(g), 0));
	else
		over = (size_t)-1;
	use_index(g, BPF_REG_3);
	if (over != (size_t)-1)
		patch(g, over);
}

/* Class 11: lock element 0, on one path switch the pointer to element 1 (refused) or
 * fill element 0's again (accepted), unlock.
 * Pointers live in -144/-152 across the calls. At most one per program, in main, never
 * with a tail call: a second lock of a lock the first left held would hang the run. */
static void t_prune_lock(struct snd_gen *g)
{
	size_t fail[2];

	for (int k = 0; k < 2; k++) {
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -72, k));
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_LOCK) });
		emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		fail[k] = jmp_fwd(g, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, k ? SCRATCH_B : SCRATCH_A));
	}
	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, SCRATCH_A));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, SND_LOCK_OFF));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_spin_lock));
	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, SCRATCH_A));
	pad(g);
	size_t j = branch_unknown(g);
	/* element 1's pointer, or (40%) element 0's filled again: the same lock, so the
	 * program is safe and runs with the lock held across the merge */
	int16_t other = pct(g, 40) ? SCRATCH_A : SCRATCH_B;
	if (pct(g, 50)) /* the switch on the fall-through path (explored first) or the other */
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, other));
	else {
		size_t over = jmp_fwd(g, BPF_JMP_A(0));
		patch(g, j);
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, other));
		j = over;
	}
	pad(g);
	patch(g, j);
	pad(g);
	if (pct(g, 50)) /* work under the lock */
		emit(g, BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_4, sreg(g), 0) /* not really atomic under lock */);
	emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_4));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, SND_LOCK_OFF));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_spin_unlock));
	patch(g, fail[0]);
	patch(g, fail[1]);
	g->tmpl_lock = 1;
}

/* Class 12: a packet pointer checked, kept (spilled or in R9), then on one path a call
 * that may change the packet (helper, or a tail call that falls through), then used. */
static void t_prune_pkt(struct snd_gen *g, const struct fn_state *fs)
{
	int xdp = g->c.type == SND_XDP;
	int16_t data = xdp ? 0 : 76, data_end = xdp ? 4 : 80;
	int n = 1 + (int)rn(g, 32), spill = pct(g, 50);

	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, data));
	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, data_end));
	emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_2));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, n));
	size_t out = jmp_fwd(g, BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0));
	if (spill)
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, SCRATCH_A));
	else
		emit(g, BPF_MOV64_REG(BPF_REG_9, BPF_REG_2));
	pad_but(g, BPF_REG_9);
	size_t j = branch_unknown(g);
	size_t over = jmp_fwd(g, BPF_JMP_A(0)); /* the unchanged path first */
	patch(g, j);
	emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
	int how = (int)rn(g, 4);
	if (how == 0 && g->tmpl_lock)
		how = 1;
	if (how == 3) { /* a global function that changes the packet: Linux 6.13's changes_pkt_data */
		size_t site = g->cnt;
		emit(g, BPF_CALL_REL(0));
		if (add_func(g, site, FN_PKT_GLOBAL, xdp, (int32_t)rn(g, 16)))
			g->insns[site] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		how = -1;
	}
	switch (how) {
	case -1:
		break;
	case 0: /* a tail call to an empty slot: falls through */
		(void)fs;
		g->tmpl_tail = 1;
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_2, SND_MAP_PROGS + g->c.type) });
		emit(g, BPF_MOV64_IMM(BPF_REG_3, 2 + (int32_t)rn(g, 2)));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_tail_call));
		break;
	case 1:
		if (xdp) {
			emit(g, BPF_MOV64_IMM(BPF_REG_2, pct(g, 50) ? -(int32_t)rn(g, 16) : (int32_t)rn(g, 16)));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_xdp_adjust_head));
		} else {
			emit(g, BPF_MOV64_IMM(BPF_REG_2, (int32_t)rn(g, 64)));
			emit(g, BPF_MOV64_IMM(BPF_REG_3, 0));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_skb_change_head));
		}
		break;
	default:
		if (xdp) {
			emit(g, BPF_MOV64_IMM(BPF_REG_2, -(int32_t)rn(g, 16)));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_xdp_adjust_tail));
		} else {
			emit(g, BPF_MOV64_IMM(BPF_REG_2, (int32_t)rn(g, 16)));
			emit(g, BPF_MOV64_IMM(BPF_REG_3, 0));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_skb_change_head));
		}
		break;
	}
	patch(g, over);
	pad_but(g, BPF_REG_9);
	if (spill)
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, SCRATCH_A));
	else
		emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_9));
	emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, (int16_t)rn(g, (unsigned)n)));
	emit(g, BPF_MOV64_REG(BPF_REG_8, BPF_REG_0));
	emit(g, BPF_MOV64_IMM(BPF_REG_9, imm(g))); /* R9 a scalar again */
	patch(g, out);
}


/* The caller's side of a callback template: a slot with a start value, the call, the
 * slot used as an index (bounded sometimes). */
static void cb_slot_prepare(struct snd_gen *g, int16_t slot, int op)
{
	int32_t start = op == CB_ADD ? (int32_t)rn(g, 8) : pct(g, 50) ? 200 + (int32_t)rn(g, 100) : (int32_t)rn(g, 16);
	emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, slot, start));
}

static void cb_slot_use(struct snd_gen *g, int16_t slot)
{
	size_t j = (size_t)-1;

	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, slot));
	if (pct(g, 15))
		j = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_4, index_limit(g), 0));
	use_index(g, BPF_REG_4);
	if (j != (size_t)-1)
		patch(g, j);
}

static int32_t cb_value(struct snd_gen *g, int op)
{
	return op == CB_ADD ? 1 + (int32_t)rn(g, 8) : (int32_t)rn(g, 16);
}

/* R2 = the callback (a function appended later), R3 = &slot, R4 = 0 (flags), call the
 * helper; then the slot used as an index. */
static void cb_call(struct snd_gen *g, int32_t helper, int kind, int16_t slot, int op)
{
	size_t site = g->cnt;

	emit2(g, (struct bpf_insn[]){ BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_FUNC, 0, 0),
				      BPF_RAW_INSN(0, 0, 0, 0, 0) });
	emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, slot));
	emit(g, BPF_MOV64_IMM(BPF_REG_4, 0));
	emit(g, BPF_EMIT_CALL(helper));
	add_func(g, site, kind, op, cb_value(g, op));
	cb_slot_use(g, slot);
}

/* Class 1: bpf_loop with a count of 0, 1, a few, above Linux's limit (no call at all)
 * or unknown; the callback changes a caller's slot used after the call. */
static void t_loop_cb(struct snd_gen *g)
{
	int16_t slot = (int16_t)(-8 * (1 + (int)rn(g, 8)));
	int op = (int)rn(g, CB_NR);

	cb_slot_prepare(g, slot, op);
	switch (rn(g, 5)) {
	case 0: emit(g, BPF_MOV64_IMM(BPF_REG_1, 0)); break;
	case 1: emit(g, BPF_MOV64_IMM(BPF_REG_1, 1)); break;
	case 2: emit(g, BPF_MOV64_IMM(BPF_REG_1, 2 + (int32_t)rn(g, 30))); break;
	case 3: emit(g, BPF_MOV64_IMM(BPF_REG_1, (1 << 23) + 1)); break;
	default: unknown(g, BPF_REG_1, 0x7); break;
	}
	cb_call(g, BPF_FUNC_loop, FN_LOOP_CB, slot, op);
}

/* may_goto (issue 17): a loop that only the counter may end, whose body adds to or sets
 * a stack slot (or sets it and leaves), maybe ended earlier by a bound on the slot; the
 * slot used as an index after it. Every visit of the may_goto may be the last one, and
 * a deeper visit is cut only against one that covers it: a wrong cut or a widening that
 * forgot a value shows as an index out of bounds. */
static void t_may_goto(struct snd_gen *g)
{
	int16_t slot = (int16_t)(-8 * (1 + (int)rn(g, 8)));
	int op = (int)rn(g, CB_NR);
	int32_t v = cb_value(g, op);
	size_t out[3] = { (size_t)-1, (size_t)-1, (size_t)-1 };

	cb_slot_prepare(g, slot, op);
	size_t head = g->cnt;
	out[0] = jmp_fwd(g, BPF_RAW_INSN(BPF_JMP | KBPF_JCOND | BPF_K, 0, KBPF_MAY_GOTO, 0, 0));
	if (op == CB_ADD) {
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, slot));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, v));
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, slot));
	} else {
		emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, slot, v));
		if (op == CB_SET_STOP)
			out[1] = jmp_fwd(g, BPF_JMP_A(0));
	}
	if (pct(g, 90)) { /* a bound of its own (most runs end long before the counter) */
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, slot));
		out[2] = jmp_fwd(g, BPF_JMP_IMM(pct(g, 80) ? BPF_JGT : BPF_JGE, BPF_REG_0, (int32_t)rn(g, 40), 0));
	}
	emit(g, BPF_JMP_A((int16_t)((int64_t)head - (int64_t)g->cnt - 1)));
	for (int k = 0; k < 3; k++)
		if (out[k] != (size_t)-1)
			patch(g, out[k]);
	cb_slot_use(g, slot);
}

/* Class 1: bpf_for_each_map_elem over the empty hash (no call), the array (4 calls),
 * the hash (its keys) or the global map (1). */
static void t_each_cb(struct snd_gen *g)
{
	static const int maps[] = { SND_MAP_EMPTY, SND_MAP_ARRAY, SND_MAP_HASH, SND_MAP_GLOBAL };
	int16_t slot = (int16_t)(-8 * (1 + (int)rn(g, 8)));
	int op = (int)rn(g, CB_NR);

	cb_slot_prepare(g, slot, op);
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, maps[rn(g, 4)]) });
	cb_call(g, BPF_FUNC_for_each_map_elem, FN_EACH_CB, slot, op);
}

/* Class 4: a helper that promises to write an output buffer (-160, never written by the
 * program), called so that it fails, then the buffer read and stored into a map. */
static void t_helper_out(struct snd_gen *g, const struct fn_state *fs)
{
	static const char *const strs[] = { "", "x", " ", "-", "+", "0x", "12", "-7", "zz9", "0x1g", " \t-" };
	static const int32_t flags[] = { 0, 8, 10, 16, 3, 0x100 };
	static const uint8_t by_len[9] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };
	int t = g->c.type, k = (int)rn(g, 4), len = 1 << rn(g, 4);

	if (k == 2 && (!fs->has_ctx || t == SND_SYSCALL))
		k = 0;
	if (k == 3 && g->c.unprivileged)
		k = 1;
	switch (k) {
	case 0:
	case 1: { /* bpf_strtol / bpf_strtoul on a string that does not parse (or does) */
		const char *str = strs[rn(g, sizeof(strs) / sizeof(strs[0]))];
		uint8_t buf[8] = { 0 };
		int32_t w[2];
		memcpy(buf, str, strlen(str));
		memcpy(w, buf, 8);
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -136, w[0]));
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -132, w[1]));
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -136));
		emit(g, BPF_MOV64_IMM(BPF_REG_2, 1 + (int32_t)rn(g, 8)));
		emit(g, BPF_MOV64_IMM(BPF_REG_3, flags[rn(g, sizeof(flags) / sizeof(flags[0]))]));
		emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, OUT_SLOT));
		emit(g, BPF_EMIT_CALL(k ? BPF_FUNC_strtoul : BPF_FUNC_strtol));
		break;
	}
	case 2: /* skb_load_bytes / xdp_load_bytes past the packet's end */
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
		emit(g, BPF_MOV64_IMM(BPF_REG_2, pct(g, 50) ? 120 + (int32_t)rn(g, 200) : -1));
		emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, OUT_SLOT));
		emit(g, BPF_MOV64_IMM(BPF_REG_4, len));
		emit(g, BPF_EMIT_CALL(t == SND_XDP ? BPF_FUNC_xdp_load_bytes : BPF_FUNC_skb_load_bytes));
		break;
	default: /* bpf_probe_read_kernel from an address that faults */
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, OUT_SLOT));
		emit(g, BPF_MOV64_IMM(BPF_REG_2, len));
		emit(g, BPF_MOV64_IMM(BPF_REG_3, pct(g, 50) ? 0 : 16));
		emit(g, BPF_EMIT_CALL(pct(g, 50) ? BPF_FUNC_probe_read_kernel : BPF_FUNC_probe_read_user));
		break;
	}
	emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
	/* what the promised bytes hold now goes into the global map, which is compared */
	if (k <= 1)
		len = 8; /* a long */
	emit(g, BPF_LDX_MEM(by_len[len], BPF_REG_3, BPF_REG_10, OUT_SLOT));
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_1, SND_MAP_GLOBAL, 0) });
	emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_3, (int16_t)(rn(g, 4) * 8)));
}

/* Class 6: JMP32 compares of a map value pointer (never NULL, or NULL-checked) or of
 * one that may be NULL (the compare is then the NULL check). */
static void t_ptr_jmp32(struct snd_gen *g)
{
	static const uint8_t ops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JLT, BPF_JSET, BPF_JSGE };
	size_t null = (size_t)-1;

	if (pct(g, 50)) {
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_3, SND_MAP_GLOBAL, (int32_t)rn(g, 4) * 8) });
	} else {
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -72, (int32_t)rn(g, SND_ARRAY_ENTRIES)));
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_ARRAY) });
		emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		if (pct(g, 40)) { /* the compare is the NULL check: w0 == 0 does not mean NULL */
			size_t j = jmp_fwd(g, BPF_JMP32_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
			emit(g, BPF_STX_MEM(BPF_B, BPF_REG_0, sreg(g), 0));
			patch(g, j);
			return;
		}
		null = jmp_fwd(g, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
		emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0));
	}
	if (pct(g, 50)) {
		/* "if w3 == 0" / "if w3 != 0": the side a verifier that judges such compares of a
		 * non-NULL pointer by the whole pointer takes for dead reads through a scalar, so
		 * that Linux, which walks both sides, refuses the program (--kernel sees it) */
		int eq = pct(g, 50);
		size_t j = jmp_fwd(g, BPF_JMP32_IMM(eq ? BPF_JEQ : BPF_JNE, BPF_REG_3, 0, 0));
		if (eq) {
			emit(g, BPF_ALU64_IMM(BPF_ADD, sreg(g), 1));
			size_t over = jmp_fwd(g, BPF_JMP_A(0));
			patch(g, j);
			emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, sreg(g), 0));
			emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
			j = over;
		} else {
			emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, sreg(g), 0));
			emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
		}
		patch(g, j);
	} else {
		size_t j = jmp_fwd(g, BPF_JMP32_IMM(ops[rn(g, sizeof(ops))], BPF_REG_3, pct(g, 60) ? 0 : imm(g), 0));
		emit(g, BPF_ALU64_IMM(BPF_ADD, sreg(g), 1));
		if (pct(g, 50))
			emit(g, BPF_STX_MEM(BPF_B, BPF_REG_3, sreg(g), 0));
		patch(g, j);
	}
	if (null != (size_t)-1)
		patch(g, null);
}

/* Class 7: the program tail-calls itself (slots 0 and 1, up to 33 times) or an empty
 * slot, from main or from a subprogram that has the ctx (added at the end), whose
 * frames then pile up under the chain. */
static void t_tail_chain(struct snd_gen *g)
{
	int map = SND_MAP_PROGS + g->c.type;

	g->tmpl_tail = 1;
	int32_t slot = pct(g, 70) ? (int32_t)rn(g, 2) : 2 + (int32_t)rn(g, 2);
	if (pct(g, 25))
		slot = SND_TAIL_RET_SLOT; /* a program returning SND_TAIL_RET */

	if (!g->c.unprivileged && pct(g, 50)) { /* bpf2bpf calls need CAP_BPF */
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
		size_t site = g->cnt;
		emit(g, BPF_CALL_REL(0));
		if (!add_func(g, site, FN_TAIL_SUB, map, slot)) {
			if (pct(g, 40)) {
				/* the function's R0 as an index: -8 from its fall-through, whatever
				 * the program returns from a taken tail call (the caller gets it) */
				emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8));
				size_t j = pct(g, 50) ? jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_0, index_limit(g), 0))
						      : (size_t)-1;
				use_index_in(g, BPF_REG_0, j != (size_t)-1);
				if (j != (size_t)-1)
					patch(g, j);
			} else {
				emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
			}
		} else
			g->insns[site] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		return;
	}
	emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_2, map) });
	if (pct(g, 20))
		unknown(g, BPF_REG_3, 0x3);
	else
		emit(g, BPF_MOV64_IMM(BPF_REG_3, slot));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_tail_call));
	/* R0 after a tail call that fell through is not looked at */
}

/* Class 12: a packet pointer past a data_end compare, moved back by a constant, compared
 * again: the second compare may go either way (a verifier that keeps the first's "at or
 * past the end" mark judges one side dead, and a run that reaches it spins). */
static void t_pkt_neg(struct snd_gen *g)
{
	static const uint8_t ge_ops[] = { BPF_JGE, BPF_JGT };
	int xdp = g->c.type == SND_XDP;
	int16_t data = xdp ? 0 : 76, data_end = xdp ? 4 : 80;
	int n = 1 + (int)rn(g, 64);
	int32_t k = 1 + (int32_t)rn(g, (unsigned)n + 8);
	size_t at;

	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, data));
	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, data_end));
	emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_2));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, n));
	uint8_t op = ge_ops[rn(g, 2)];
	if (pct(g, 50))
		at = jmp_fwd(g, BPF_JMP_REG(op, BPF_REG_4, BPF_REG_3, 0));
	else /* the same, end on the left */
		at = jmp_fwd(g, BPF_JMP_REG(op == BPF_JGE ? BPF_JLE : BPF_JLT, BPF_REG_3, BPF_REG_4, 0));
	size_t out = jmp_fwd(g, BPF_JMP_A(0));
	patch(g, at);
	if (pct(g, 50))
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -k));
	else if (pct(g, 50))
		emit(g, BPF_ALU64_IMM(BPF_SUB, BPF_REG_4, k));
	else {
		emit(g, BPF_MOV64_IMM(BPF_REG_5, k));
		emit(g, BPF_ALU64_REG(BPF_SUB, BPF_REG_4, BPF_REG_5));
	}
	static const uint8_t ops2[] = { BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JEQ, BPF_JNE };
	uint8_t op2 = ops2[rn(g, sizeof(ops2))];
	size_t j2 = pct(g, 50) ? jmp_fwd(g, BPF_JMP_REG(op2, BPF_REG_4, BPF_REG_3, 0))
			       : jmp_fwd(g, BPF_JMP_REG(op2, BPF_REG_3, BPF_REG_4, 0));
	emit(g, BPF_ALU64_IMM(BPF_ADD, sreg(g), 1)); /* one side */
	size_t j3 = jmp_fwd(g, BPF_JMP_A(0));
	patch(g, j2);
	emit(g, BPF_ALU64_IMM(BPF_XOR, sreg(g), 3)); /* the other */
	patch(g, j3);
	patch(g, out);
}

/* Kfunc memory arguments (class 5's kind): a u64 * or a struct kt_pair * (16 bytes, no
 * pointer members: any memory of that size) from the stack at every distance from the
 * frame's top, or from the global map's value near its end. Too little room must be
 * refused; kt_pair_fill writes all 16 bytes, natively. */
static void t_kfunc_mem(struct snd_gen *g, const struct snd_env *env)
{
	static const int16_t offs[] = { -8, -16, -24, -64, -4, -1, 0, 8 }; /* aligned when big enough */
	static const int kf[] = { SND_KF_PTR_READ, SND_KF_PTR_STORE, SND_KF_PAIR_SUM, SND_KF_PAIR_FILL };
	int i = kf[rn(g, 4)];
	uint32_t id = env->kfunc_id[i];

	if (!id)
		return;
	if (pct(g, 25))
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_1, SND_MAP_GLOBAL, 8 * (int32_t)rn(g, 4)) });
	else {
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, offs[rn(g, sizeof(offs) / sizeof(offs[0]))]));
	}
	emit(g, BPF_MOV64_REG(BPF_REG_2, sreg(g)));
	emit(g, BPF_CALL_KFUNC(0, (int32_t)id));
	if (i == SND_KF_PTR_READ || i == SND_KF_PAIR_SUM)
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
}

/* cpu v4's instructions on a value that becomes an index (issue 17): sign-extending
 * moves and loads (of the map value, and of a spilled scalar, at every byte), signed
 * division and modulo (also INT_MIN by -1, both widths), unconditional byte swaps; then
 * maybe a constant added (a negative range moved up), maybe a bound check, and the use.
 * A verifier that gets a sign extension's range wrong lets the index out. */
static void t_v4(struct snd_gen *g)
{
	static const int32_t divs[] = { -1, 1, 2, 3, -7, 0, INT32_MIN, 16 };
	static const int32_t adds[] = { 128, 32768, 0x10000, -1, 0x7fffffff, INT32_MIN };
	int n = 1 + (int)rn(g, 3);

	unknown(g, BPF_REG_2, a_mask(g));
	for (int i = 0; i < n; i++) {
		int is64 = pct(g, 60);
		uint8_t cls = is64 ? BPF_ALU64 : BPF_ALU;
		switch (rn(g, 6)) {
		case 0: { /* movsx: 8/16/32 (32: 64-bit only) */
			static const int16_t w[] = { 8, 16, 32 };
			int16_t bits = w[rn(g, is64 ? 3 : 2)];
			emit(g, BPF_RAW_INSN(cls | BPF_MOV | BPF_X, BPF_REG_2, pct(g, 70) ? BPF_REG_2 : sreg(g), bits, 0));
			break;
		}
		case 1: { /* ldsx of a spilled scalar, any byte of it */
			static const uint8_t sz[] = { BPF_B, BPF_H, BPF_W };
			int si = (int)rn(g, 3), b = 1 << si, w = pct(g, 80) ? 8 : 4;
			/* a 4-byte spill is read only inside it: strict programs read what they wrote */
			emit(g, BPF_STX_MEM(w == 8 ? BPF_DW : BPF_W, BPF_REG_10, BPF_REG_2, SCRATCH_A));
			emit(g, BPF_LDX_MEMSX(sz[si], BPF_REG_2, BPF_REG_10,
					      (int16_t)(SCRATCH_A + (int)rn(g, (unsigned)(w / b)) * b)));
			break;
		}
		case 2: { /* ldsx of the map value */
			static const uint8_t sz[] = { BPF_B, BPF_H, BPF_W };
			int si = (int)rn(g, 3);
			emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_2, SND_MAP_GLOBAL, 8 * (int32_t)rn(g, 4)) });
			emit(g, BPF_LDX_MEMSX(sz[si], BPF_REG_2, BPF_REG_2, (int16_t)(1 << si) * (int16_t)rn(g, 2)));
			break;
		}
		case 3: { /* sdiv / smod by a constant or a register (0 and -1 included) */
			uint8_t op = pct(g, 50) ? BPF_DIV : BPF_MOD;
			int32_t d = divs[rn(g, sizeof(divs) / sizeof(divs[0]))];
			if (d && pct(g, 50)) {
				emit(g, BPF_RAW_INSN(cls | op | BPF_K, BPF_REG_2, 0, 1, d));
			} else {
				if (pct(g, 50))
					emit(g, BPF_MOV64_IMM(BPF_REG_3, d));
				else
					unknown(g, BPF_REG_3, 0);
				emit(g, BPF_RAW_INSN(cls | op | BPF_X, BPF_REG_2, BPF_REG_3, 1, 0));
			}
			break;
		}
		case 4: { /* INT_MIN in either width first, then the same */
			if (is64)
				emit2(g, (struct bpf_insn[]){ BPF_LD_IMM64(BPF_REG_3, (uint64_t)INT64_MIN) });
			else
				emit(g, BPF_MOV32_IMM(BPF_REG_3, INT32_MIN));
			emit(g, BPF_ALU64_REG(BPF_OR, BPF_REG_2, BPF_REG_3));
			emit(g, BPF_RAW_INSN(cls | (pct(g, 50) ? BPF_DIV : BPF_MOD) | BPF_K, BPF_REG_2, 0, 1, -1));
			break;
		}
		default: { /* bswap16/32/64 (ALU64 END TO_LE) */
			static const int32_t w[] = { 16, 32, 64 };
			emit(g, BPF_RAW_INSN(BPF_ALU64 | BPF_END | BPF_TO_LE, BPF_REG_2, 0, 0, w[rn(g, 3)]));
			break;
		}
		}
	}
	if (pct(g, 50))
		emit(g, BPF_ALU64_IMM(pct(g, 70) ? BPF_ADD : BPF_AND, BPF_REG_2, adds[rn(g, sizeof(adds) / sizeof(adds[0]))]));
	size_t j = (size_t)-1, j2 = (size_t)-1;
	switch (rn(g, 4)) {
	case 0:
		break; /* none: only a range the verifier thinks inside the value passes */
	case 1:
		j = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_2, index_limit(g), 0));
		break;
	case 2:
		j = jmp_fwd(g, BPF_JMP_IMM(BPF_JSGT, BPF_REG_2, index_limit(g), 0));
		j2 = jmp_fwd(g, BPF_JMP_IMM(BPF_JSLT, BPF_REG_2, 0, 0));
		break;
	default: /* 32-bit compares: the upper half is the verifier's business */
		j = jmp_fwd(g, BPF_JMP32_IMM(BPF_JGT, BPF_REG_2, index_limit(g), 0));
		break;
	}
	use_index_in(g, BPF_REG_2, j != (size_t)-1);
	if (j != (size_t)-1)
		patch(g, j);
	if (j2 != (size_t)-1)
		patch(g, j2);
}

/* Global functions given memory (issue 17: Linux 6.12's lazily verified global functions,
 * the arg:nonnull tag, 6.13's packet arguments): `int f(struct gmem *p, u64 n)` (32 bytes,
 * or NULL unless tagged arg:nonnull) called with a stack buffer, the global map's value, an
 * unchecked array lookup, NULL, a packet pointer behind a data_end check, or too little of
 * one of them (refused); the function reads or writes p (sometimes past its end or without
 * its NULL check: refused), and sometimes it is called on one path only. After the call
 * its result and the buffer's slots (small constants before it) are used as indexes, and a
 * packet pointer from before it is used again: a verifier that kept the caller's view of
 * memory the function wrote, or trusted its result, lets an index out. */
static void t_global_mem(struct snd_gen *g, const struct fn_state *fs)
{
	int xdp = g->c.type == SND_XDP;
	int pkt = fs->has_ctx && (xdp || g->c.type == SND_SCHED_CLS);
	/* the 200-byte frame only now and then in a subprogram: 512 bytes for every frame */
	int buf = fs->sub_index < 0 || pct(g, 15);
	int src = (int)rn(g, pkt ? 6 : 5), short_by = pct(g, 4) ? 8 : 0;
	int op = (int)rn(g, GM_NR);
	/* arg:nonnull: with memory that is there (NULL or maybe-NULL now and then: refused) */
	int nn = pct(g, 30) && (src == 1 || src == 5 || (buf && (src == 0 || src == 4)) || pct(g, 10));
	int32_t off = op == GM_READ_B ? (int32_t)rn(g, SND_GMEM_SIZE) : 8 * (int32_t)rn(g, SND_GMEM_SIZE / 8);
	size_t out = (size_t)-1, path = (size_t)-1;

	if (pct(g, 3))
		off = SND_GMEM_SIZE; /* past the end: refused */
	if (!buf && (src == 0 || src == 4))
		src = 1;
	if (src == 0 || src == 4)
		short_by = 0; /* the stack above the buffer is there too (never written: strict) */
	for (int k = 0; buf && k < SND_GMEM_SIZE / 8; k++)
		emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, (int16_t)(GMEM_BUF + 8 * k), (int32_t)rn(g, 8)));
	if (pct(g, 25))
		path = branch_unknown(g); /* called on one path only */
	switch (src) {
	case 0: /* the stack buffer */
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, GMEM_BUF + short_by));
		break;
	case 1: /* the global map's value */
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_1, SND_MAP_GLOBAL, short_by) });
		break;
	case 2: /* an array lookup, maybe NULL (key 0-3 exist; 4 not): only nullable takes it */
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, SCRATCH_B, (int32_t)rn(g, SND_ARRAY_ENTRIES + 1)));
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_ARRAY) });
		emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, SCRATCH_B));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0));
		if (short_by)
			emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, SND_ARRAY_VALUE - SND_GMEM_SIZE + short_by));
		break;
	case 3: /* NULL: only nullable takes it */
		emit(g, BPF_MOV64_IMM(BPF_REG_1, 0));
		break;
	case 4: /* the buffer through a spilled copy of its address */
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, GMEM_BUF + short_by));
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, SCRATCH_A));
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, SCRATCH_A));
		break;
	default: { /* the packet, after a data_end check (kept at -144 to be used again) */
		int16_t data = xdp ? 0 : 76, data_end = xdp ? 4 : 80;
		emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, data));
		emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, data_end));
		emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_1));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, SND_GMEM_SIZE - short_by));
		out = jmp_fwd(g, BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0));
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, SCRATCH_A));
		break;
	}
	}
	if (pct(g, 60))
		unknown(g, BPF_REG_2, pct(g, 30) ? a_mask(g) : 0);
	else
		emit(g, BPF_MOV64_IMM(BPF_REG_2, (int32_t)rn(g, 8)));
	size_t site = g->cnt;
	emit(g, BPF_CALL_REL(0));
	int a = op | (nn ? GM_NONNULL : 0) | (!nn && pct(g, 4) ? GM_NO_CHECK : 0);
	if (add_func(g, site, FN_MEM_GLOBAL, a, off)) {
		g->insns[site] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		nn = 0;
	}
	/* the result: unknown to the caller, so bounded first (or, now and then, not) */
	size_t j = (size_t)-1;
	if (pct(g, 95))
		j = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_0, index_limit(g), 0));
	use_index_in(g, BPF_REG_0, j != (size_t)-1);
	if (j != (size_t)-1)
		patch(g, j);
	if (buf && (src == 0 || src == 4 || pct(g, 30))) {
		/* a slot of the buffer: what the function may have written (a verifier that
		 * still sees the small constant lets the unchecked use through) */
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, (int16_t)(GMEM_BUF + 8 * (int)rn(g, SND_GMEM_SIZE / 8))));
		j = pct(g, 85) ? jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_4, index_limit(g), 0)) : (size_t)-1;
		use_index_in(g, BPF_REG_4, j != (size_t)-1);
		if (j != (size_t)-1)
			patch(g, j);
	}
	if (src == 5) { /* the packet pointer from before the call */
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, SCRATCH_A));
		emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, (int16_t)rn(g, SND_GMEM_SIZE)));
		emit(g, BPF_ALU64_REG(BPF_ADD, sreg(g), BPF_REG_0));
	}
	if (out != (size_t)-1)
		patch(g, out);
	if (path != (size_t)-1)
		patch(g, path);
}

/* bpf_fastcall (issue 17, Linux 6.12's contract with clang): R1-R5 spilled at the lowest
 * offsets of the function around bpf_get_smp_processor_id, which kbpf inlines, and filled
 * after it; the verifier drops the pairs (and the stack they used) unless something else
 * touches that stack. Here: 1-5 pairs, R1 a map value pointer, R4 a stack pointer, the
 * others scalars (a bounded index among them), sometimes around a helper that is not
 * inlined (bpf_get_prandom_u32: its pairs stay), sometimes a pattern broken on purpose (a
 * gap, a register twice, R0), and sometimes a later read of a slot of the pairs (through
 * r10 or a copy of it, then used as the pointer it held; or, privileged, at a variable
 * offset over two slots, then used as a number): a verifier that dropped the pairs anyway
 * makes that read find stack never written. After the fills every register is used as
 * what it was. */
/* fastcall's registers (those in mask): R1 a map value pointer, R2 an index below 32, R3
 * a small constant, R4 a stack pointer, R5 a copy of a scalar. */
static void fc_regs_set(struct snd_gen *g, int mask)
{
	if (mask & (1 << 1))
		emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_1, SND_MAP_GLOBAL, 8 * (int32_t)rn(g, 4)) });
	if (mask & (1 << 2))
		unknown(g, BPF_REG_2, 0x1f);
	if (mask & (1 << 3))
		emit(g, BPF_MOV64_IMM(BPF_REG_3, (int32_t)rn(g, 32)));
	if (mask & (1 << 4)) {
		emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -64));
	}
	if (mask & (1 << 5))
		emit(g, BPF_MOV64_REG(BPF_REG_5, sreg(g)));
}

static void t_fastcall(struct snd_gen *g)
{
	int regs[5] = { 1, 2, 3, 4, 5 }, n = 1 + (int)rn(g, 5);
	/* broken on purpose only with 2 pairs or more: one broken pair alone is still a
	 * pattern (a shifted lowest offset, a register spilled once) */
	int inlined = pct(g, 85), broken = n > 1 && pct(g, 8) ? 1 + (int)rn(g, 3) : 0;
	int16_t off[5];
	int sp[5]; /* the register spilled and filled at off[k] */

	for (int i = 4; i > 0; i--) { /* a random order: regs[0] is the innermost pair's */
		int j = (int)rn(g, (uint32_t)i + 1), t = regs[i];
		regs[i] = regs[j];
		regs[j] = t;
	}
	fc_regs_set(g, 0x3e);
	for (int k = 0; k < n; k++) {
		off[k] = (int16_t)(FC_LOW + 8 * k);
		sp[k] = regs[k];
	}
	if (broken == 1)
		off[n - 1] += 8; /* a gap: the outermost pair is no pattern */
	if (broken == 2) { /* R0 (the call's result) spilled and filled: no pattern at all */
		sp[0] = BPF_REG_0;
		emit(g, BPF_MOV64_IMM(BPF_REG_0, (int32_t)rn(g, 32)));
	}
	if (broken == 3) /* regs[0] twice: only the innermost pair is a pattern */
		sp[1] = regs[0];
	for (int k = n - 1; k >= 0; k--)
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, sp[k], off[k]));
	emit(g, BPF_EMIT_CALL(inlined ? BPF_FUNC_get_smp_processor_id : BPF_FUNC_get_prandom_u32));
	for (int k = 0; k < n; k++)
		emit(g, BPF_LDX_MEM(BPF_DW, sp[k], BPF_REG_10, off[k]));
	/* the registers no pair kept: set again (as a compiler would, or leave them dead) */
	int kept = 0;
	for (int k = 0; k < n; k++)
		kept |= 1 << sp[k];
	fc_regs_set(g, ~kept);
	/* R0: the cpu, a random number or what broken == 2 filled -- nothing depends on it */
	emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0));
	if (pct(g, 40)) {
		/* another read of a pair's slot: the pairs must stay */
		int how = (int)rn(g, 3);
		/* a variable offset (privileged only): over two adjacent slots of the pairs */
		int adj = n - 1 - (broken == 1);
		if (how == 2 && (g->c.unprivileged || adj < 1))
			how = 0;
		int k = (int)rn(g, (uint32_t)(how == 2 ? adj : n)), r = sp[k];
		int16_t o = off[k];
		switch (how) {
		case 0:
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, o));
			break;
		case 1:
			emit(g, BPF_MOV64_REG(BPF_REG_0, BPF_REG_10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, o));
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0));
			break;
		default: /* o + 0 or o + 8: the slot is read as a scalar */
			unknown(g, BPF_REG_0, 8);
			emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_10));
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, o));
			r = BPF_REG_0; /* a number only */
			break;
		}
		/* the slot's value used as what was spilled there */
		if (r == BPF_REG_1 || r == BPF_REG_4)
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0));
		else
			emit(g, BPF_ALU64_REG(BPF_XOR, sreg(g), BPF_REG_0));
	}
	/* every register used as what it was before the call */
	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	emit(g, BPF_ALU64_REG(BPF_ADD, sreg(g), BPF_REG_0));
	emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_4, 8 * (int16_t)rn(g, 8)));
	emit(g, BPF_ALU64_REG(BPF_XOR, sreg(g), BPF_REG_0));
	emit(g, BPF_ALU64_REG(BPF_ADD, sreg(g), BPF_REG_5));
	use_index(g, BPF_REG_2);
	size_t j = jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, BPF_REG_3, index_limit(g), 0));
	use_index(g, BPF_REG_3);
	patch(g, j);
}

/* Can template t go here? */
static int fits(const struct snd_gen *g, const struct fn_state *fs, const struct snd_env *env, int t)
{
	int ty = g->c.type, priv = !g->c.unprivileged, main_fn = fs->has_ctx;
	int pkt = main_fn && (ty == SND_XDP || ty == SND_SCHED_CLS);
	int room = g->nr_funcs < (int)(sizeof(g->funcs) / sizeof(g->funcs[0]));

	switch (t) {
	/* a lock left held (the bug the template looks for) and a tail call back into the
	 * program would take it again: the run would hang, so never both in one program */
	/* main only: a subprogram may be called twice */
	case SND_T_PRUNE_LOCK: return priv && main_fn && !g->tmpl_lock && !g->tmpl_tail;
	case SND_T_PRUNE_PKT: return priv && pkt;
	case SND_T_LOOP_CB: case SND_T_EACH_CB: return priv && room;
	case SND_T_MAY_GOTO: return priv; /* unprivileged: the back-edge is refused */
	case SND_T_TAIL_CHAIN: return main_fn && !g->tmpl_lock;
	case SND_T_PKT_NEG: return pkt;
	case SND_T_KFUNC_MEM: return priv && env->has_kfuncs;
	case SND_T_PTR_JMP32: return 1; /* unprivileged: must be refused (pointer comparison) */
	/* bpf2bpf calls need CAP_BPF; a frame for the global function */
	case SND_T_GLOBAL_MEM: return priv && room && fs->depth < 3;
	/* main only: its pairs sit 256 bytes down, and a subprogram's frame adds to that */
	case SND_T_FASTCALL: return fs->sub_index < 0;
	default: return 1;
	}
}

void snd_tmpl_emit(struct snd_gen *g, const struct fn_state *fs, const struct snd_env *env)
{
	/* room for the biggest template and the functions templates append */
	if (!g->tmpl_mask || fs->in_loop || g->cnt + 150 + 24 * (size_t)g->nr_funcs > SND_GEN_MAX_INSNS)
		return;
	int cand[SND_NR_TMPL], n = 0;
	for (int c = 0; c < SND_NR_TMPL; c++)
		if ((g->tmpl_mask >> c) & 1 && fits(g, fs, env, c))
			cand[n++] = c;
	if (!n)
		return;
	int t = cand[rn(g, (uint32_t)n)];
	size_t before = g->cnt;
	switch (t) {
	case SND_T_PRUNE_IDS: t_prune_ids(g); break;
	case SND_T_PRUNE_LOCK: t_prune_lock(g); break;
	case SND_T_PRUNE_PKT: t_prune_pkt(g, fs); break;
	case SND_T_LOOP_CB: t_loop_cb(g); break;
	case SND_T_EACH_CB: t_each_cb(g); break;
	case SND_T_SPILL_PTR: t_spill_ptr(g, fs); break;
	case SND_T_LINKED: t_linked(g); break;
	case SND_T_HELPER_OUT: t_helper_out(g, fs); break;
	case SND_T_PTR_JMP32: t_ptr_jmp32(g); break;
	case SND_T_TAIL_CHAIN: t_tail_chain(g); break;
	case SND_T_PKT_NEG: t_pkt_neg(g); break;
	case SND_T_V4: t_v4(g); break;
	case SND_T_MAY_GOTO: t_may_goto(g); break;
	case SND_T_GLOBAL_MEM: t_global_mem(g, fs); break;
	case SND_T_FASTCALL: t_fastcall(g); break;
	default: t_kfunc_mem(g, env); break;
	}
	if (g->cnt != before)
		g->tmpl_used |= 1u << t;
}

/* A callback's body: op on the caller's slot (ctx in reg), return 0 (1: stop). */
static void cb_body(struct snd_gen *g, int ctx, int op, int32_t v)
{
	switch (op) {
	case CB_ADD:
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, ctx, 0));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, v));
		emit(g, BPF_STX_MEM(BPF_DW, ctx, BPF_REG_0, 0));
		emit(g, BPF_MOV64_IMM(BPF_REG_0, 0));
		break;
	default:
		emit(g, BPF_ST_MEM(BPF_DW, ctx, 0, v));
		emit(g, BPF_MOV64_IMM(BPF_REG_0, op == CB_SET_STOP ? 1 : 0));
		break;
	}
	emit(g, BPF_EXIT_INSN());
}

void snd_tmpl_funcs_emit(struct snd_gen *g)
{
	for (int i = 0; i < g->nr_funcs; i++) {
		const struct snd_gen_func *f = &g->funcs[i];
		size_t start = g->cnt;

		switch (f->kind) {
		case FN_LOOP_CB:
			cb_body(g, BPF_REG_2, f->a, f->b);
			break;
		case FN_EACH_CB:
			cb_body(g, BPF_REG_4, f->a, f->b);
			break;
		case FN_MEM_GLOBAL: { /* p in R1 (maybe NULL), n in R2 */
			size_t null_j = (size_t)-1;
			int op = f->a & GM_OP;
			int16_t off = (int16_t)f->b;
			emit(g, BPF_MOV64_IMM(BPF_REG_0, (f->a & GM_NONNULL) ? SND_GLOBAL_MEM_NN_MARK : SND_GLOBAL_MEM_MARK));
			if (!(f->a & (GM_NONNULL | GM_NO_CHECK)))
				null_j = jmp_fwd(g, BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0));
			switch (op) {
			case GM_READ:
				emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, off));
				break;
			case GM_WRITE:
				emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, off));
				emit(g, BPF_MOV64_REG(BPF_REG_0, BPF_REG_2));
				break;
			case GM_WRITE_ALL:
				for (int k = 0; k < SND_GMEM_SIZE / 8; k++)
					emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, (int16_t)(8 * k)));
				if (off >= SND_GMEM_SIZE) /* past the end: refused */
					emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, off));
				emit(g, BPF_MOV64_IMM(BPF_REG_0, 0));
				break;
			default:
				emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, off));
				break;
			}
			if (null_j != (size_t)-1)
				patch(g, null_j);
			emit(g, BPF_EXIT_INSN());
			break;
		}
		case FN_PKT_GLOBAL: /* ctx in R1 */
			emit(g, BPF_MOV64_IMM(BPF_REG_0, SND_GLOBAL_MARK));
			emit(g, BPF_MOV64_IMM(BPF_REG_2, f->b));
			emit(g, BPF_MOV64_IMM(BPF_REG_3, 0));
			emit(g, BPF_EMIT_CALL(f->a ? BPF_FUNC_xdp_adjust_head : BPF_FUNC_skb_change_head));
			emit(g, BPF_MOV64_IMM(BPF_REG_0, 0));
			emit(g, BPF_EXIT_INSN());
			break;
		default: /* FN_TAIL_SUB: ctx in R1; a frame of its own, then the tail call */
			emit(g, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1));
			for (int off = -8; off >= -64; off -= 8)
				emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, (int16_t)off, off));
			emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
			emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_2, f->a) });
			emit(g, BPF_MOV64_IMM(BPF_REG_3, f->b));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_tail_call));
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8));
			emit(g, BPF_EXIT_INSN());
			break;
		}
		g->insns[f->site].imm = (int32_t)(start - f->site - 1);
	}
}
