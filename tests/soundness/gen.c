/* SPDX-License-Identifier: Apache-2.0 */
/* The soundness generator (gen.h). Invariants every snippet keeps, so that snippets
 * compose into programs the verifier should accept:
 *  - R6 holds ctx in the main program (subprograms have no ctx: R6 is theirs);
 *  - R7, R8, R9 hold scalars; R0-R5 are scratch, set before use in each snippet;
 *  - stack bytes [-136, -1] of every frame are
 *    initialised by the prologue (each frame's): -64..-1 are eight scalar slots, -72 is
 *    a map key, -136..-73 a 64-byte buffer (map values, skb_load_bytes);
 *  - inside a loop body R1 is the counter: only ALU, spills/fills and ctx reads there.
 * Snippets end with nothing pending: a forward jump lands on the next snippet. */
#include <string.h>
#include "gen_internal.h"

#define CAP (SND_GEN_MAX_INSNS - 80) /* room left for the biggest snippet and the exit */
#define MAX_SUBS 2 /* main + 2 frames of 136 bytes (rounded to 160) stay under 512 */

static const uint8_t sizes[4] = { BPF_DW, BPF_W, BPF_H, BPF_B };
static const int size_bytes[4] = { 8, 4, 2, 1 };

struct ctx_field {
	int16_t off;
	uint8_t size; /* bytes */
	uint8_t write;
};
/* __sk_buff: len, pkt_type, mark, queue_mapping, protocol, vlan_present, vlan_tci,
 * vlan_proto, priority, ingress_ifindex, ifindex, tc_index, cb[0..4], hash, and narrow
 * loads of some; mark/priority/tc_index writable by tc only (write 2), cb by both. */
static const struct ctx_field skb_fields[] = {
	{ 0, 4, 0 },  { 4, 4, 0 },  { 8, 4, 2 },  { 12, 4, 0 }, { 16, 4, 0 }, { 20, 4, 0 }, { 24, 4, 0 },
	{ 28, 4, 0 }, { 32, 4, 2 }, { 36, 4, 0 }, { 40, 4, 0 }, { 44, 4, 2 }, { 48, 4, 1 }, { 52, 4, 1 },
	{ 56, 4, 1 }, { 60, 4, 1 }, { 64, 4, 1 }, { 68, 4, 0 }, { 0, 2, 0 },  { 0, 1, 0 },  { 8, 1, 0 },
	{ 10, 2, 0 }, { 48, 1, 0 }, { 51, 1, 0 },
};
static const struct ctx_field xdp_fields[] = { /* xdp_md: 4-byte loads only */
	{ 12, 4, 0 }, { 16, 4, 0 },
};

static int nr_subs;
static size_t call_sites[64];
static int call_target[64];
static int nr_calls;

static void snippet(struct snd_gen *g, struct fn_state *fs);

static void alu(struct snd_gen *g)
{
	static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND,
				       BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MOV, BPF_NEG };
	uint8_t op = ops[rn(g, sizeof(ops))];
	int dst = sreg(g), is64 = pct(g, 65);
	uint8_t cls = is64 ? BPF_ALU64 : BPF_ALU;

	if (pct(g, 4)) {
		static const int w[] = { 16, 32, 64 };
		emit(g, BPF_ENDIAN(pct(g, 50) ? BPF_TO_BE : BPF_TO_LE, dst, w[rn(g, 3)]));
		return;
	}
	if (op == BPF_NEG) {
		emit(g, BPF_RAW_INSN(cls | BPF_NEG | BPF_K, dst, 0, 0, 0));
		return;
	}
	if (pct(g, 50)) {
		int32_t k = imm(g);
		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			k = (int32_t)rn(g, is64 ? 64 : 32);
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 0, k));
	} else {
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, sreg(g), 0, 0));
	}
}

/* Store to / load from the scalar slots of the frame ([-64, -1]). */
static void spill_fill(struct snd_gen *g)
{
	int si = (int)rn(g, 4), sz = size_bytes[si];
	int16_t off = (int16_t)(-64 + (int)rn(g, (unsigned)(64 / sz)) * sz);

	switch (rn(g, 4)) {
	case 0:
		emit(g, BPF_STX_MEM(sizes[si], BPF_REG_10, sreg(g), off));
		break;
	case 1:
		emit(g, BPF_ST_MEM(sizes[si], BPF_REG_10, off, imm(g)));
		break;
	case 2:
		emit(g, BPF_LDX_MEM(sizes[si], sreg(g), BPF_REG_10, off));
		break;
	default: /* a spill and a (maybe narrower) fill */
		off = (int16_t)(-64 + (int)rn(g, 8) * 8);
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, sreg(g), off));
		si = (int)rn(g, 4);
		emit(g, BPF_LDX_MEM(sizes[si], sreg(g), BPF_REG_10, off));
		break;
	}
}

/* Make reg (a copy of a scalar) lie in [0, max] or skip what follows; returns the
 * index of a jump to patch past the user of reg, or (size_t)-1. */
static size_t bound(struct snd_gen *g, int reg, int max)
{
	size_t j;

	if (rn(g, 1000) < 5)
		max += 1 + (int)rn(g, 4); /* wrong on purpose: must be refused (or never reach out) */
	switch (rn(g, 6)) {
	case 0: { /* and with a mask below max */
		int m = 1;
		while (m * 2 - 1 <= max)
			m *= 2;
		emit(g, BPF_ALU64_IMM(BPF_AND, reg, m - 1));
		return (size_t)-1;
	}
	case 1: /* unsigned > */
		return jmp_fwd(g, BPF_JMP_IMM(BPF_JGT, reg, max, 0));
	case 2: /* signed range */
		j = jmp_fwd(g, BPF_JMP_IMM(BPF_JSGT, reg, max, 0));
		emit(g, BPF_JMP_IMM(BPF_JSLT, reg, 0, 0));
		/* the second jump must skip as far as the first: patched with the same end */
		g->insns[g->cnt - 1].off = -32768; /* marker, patched below by patch_pair */
		return j;
	case 3: /* 32-bit compare after zero-extension */
		emit(g, BPF_ALU64_IMM(BPF_AND, reg, 0xffff));
		return jmp_fwd(g, BPF_JMP32_IMM(BPF_JGT, reg, max, 0));
	case 4: /* unsigned >= with a register holding the limit */
		emit(g, BPF_MOV64_IMM(BPF_REG_0, max + 1));
		return jmp_fwd(g, BPF_JMP_REG(BPF_JGE, reg, BPF_REG_0, 0));
	default: /* if reg < max+1 goto use; else skip */
		emit(g, BPF_JMP_IMM(BPF_JLT, reg, max + 1, 1));
		return jmp_fwd(g, BPF_JMP_A(0));
	}
}
/* Patch the skip of bound() (and its signed pair's second jump). */
static void bound_end(struct snd_gen *g, size_t j)
{
	if (j == (size_t)-1)
		return;
	patch(g, j);
	if (j + 1 < g->cnt && g->insns[j + 1].off == -32768)
		g->insns[j + 1].off = (int16_t)(g->cnt - (j + 1) - 1);
}

/* Accesses through ptr (a map value of size bytes, known non-NULL). */
static void value_access(struct snd_gen *g, int ptr, int size)
{
	int n = 1 + (int)rn(g, 4);

	for (int i = 0; i < n; i++) {
		int si = (int)rn(g, 4), sz = size_bytes[si];
		int16_t off = (int16_t)(rn(g, (unsigned)(size / sz)) * sz);
		if (rn(g, 1000) < 5)
			off = (int16_t)(size - sz + 1 + (int)rn(g, 8)); /* out of bounds: must be refused */
		switch (rn(g, 6)) {
		case 0:
			emit(g, BPF_LDX_MEM(sizes[si], sreg(g), ptr, off));
			break;
		case 1:
			emit(g, BPF_STX_MEM(sizes[si], ptr, sreg(g), off));
			break;
		case 2:
			emit(g, BPF_ST_MEM(sizes[si], ptr, off, imm(g)));
			break;
		case 3: { /* atomics: 32/64-bit, aligned */
			static const int32_t aops[] = { BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH,
							BPF_OR | BPF_FETCH, BPF_AND | BPF_FETCH,
							BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG };
			int w = pct(g, 60) ? 8 : 4;
			int32_t op = aops[rn(g, sizeof(aops) / sizeof(aops[0]))];
			int src = sreg(g);
			off = (int16_t)(rn(g, (unsigned)(size / w)) * w);
			if (op == BPF_CMPXCHG)
				emit(g, BPF_MOV64_REG(BPF_REG_0, sreg(g)));
			if (op & BPF_FETCH) { /* the old value lands in a copy, not in a live scalar */
				emit(g, BPF_MOV64_REG(BPF_REG_1, src));
				src = BPF_REG_1;
			}
			emit(g, BPF_ATOMIC_OP(w == 8 ? BPF_DW : BPF_W, op, ptr, src, off));
			if (op == BPF_CMPXCHG)
				emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
			else if (op & BPF_FETCH)
				emit(g, BPF_ALU64_REG(BPF_ADD, sreg(g), BPF_REG_1));
			break;
		}
		default: { /* variable offset, bounded by a branch or a mask */
			int r = sreg(g);
			emit(g, BPF_MOV64_REG(BPF_REG_4, r));
			size_t j = bound(g, BPF_REG_4, size - sz);
			emit(g, BPF_MOV64_REG(BPF_REG_5, ptr));
			emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_5, BPF_REG_4));
			if (pct(g, 50))
				emit(g, BPF_LDX_MEM(sizes[si], sreg(g), BPF_REG_5, 0));
			else
				emit(g, BPF_STX_MEM(sizes[si], BPF_REG_5, sreg(g), 0));
			bound_end(g, j);
			break;
		}
		}
	}
}

static void map_array(struct snd_gen *g)
{
	if (pct(g, 50)) {
		emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -72, (int32_t)rn(g, SND_ARRAY_ENTRIES + 2)));
	} else {
		emit(g, BPF_MOV64_REG(BPF_REG_1, sreg(g)));
		emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_1, 7));
		emit(g, BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -72));
	}
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_ARRAY) });
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
	size_t j = jmp_fwd(g, rn(g, 1000) < 5 ? BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 1, 0) /* not a null check */
				 : BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0));
	value_access(g, BPF_REG_3, SND_ARRAY_VALUE);
	patch(g, j);
}

static void map_hash(struct snd_gen *g)
{
	emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, -72, (int32_t)rn(g, SND_HASH_START + 3)));
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_HASH) });
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72));
	switch (rn(g, 4)) {
	case 0: /* update from the buffer */
		emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -136));
		emit(g, BPF_MOV64_IMM(BPF_REG_4, (int32_t)rn(g, 3)));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
		return;
	case 1:
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_delete_elem));
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
		return;
	default: {
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		size_t j = jmp_fwd(g, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
		emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0));
		value_access(g, BPF_REG_3, SND_HASH_VALUE);
		patch(g, j);
		return;
	}
	}
}

static void map_global(struct snd_gen *g)
{
	int off = (int)rn(g, 4) * 8;
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_VALUE(BPF_REG_3, SND_MAP_GLOBAL, off) });
	value_access(g, BPF_REG_3, SND_GLOBAL_VALUE - off);
}

static void array_update(struct snd_gen *g)
{
	emit(g, BPF_ST_MEM(BPF_W, BPF_REG_10, -72, (int32_t)rn(g, SND_ARRAY_ENTRIES + 1)));
	emit2(g, (struct bpf_insn[]){ BPF_LD_MAP_FD(BPF_REG_1, SND_MAP_ARRAY) });
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72));
	emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -136));
	emit(g, BPF_MOV64_IMM(BPF_REG_4, 0));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
}

static void ctx_access(struct snd_gen *g)
{
	enum snd_type t = g->c.type;

	if (t == SND_SYSCALL) {
		int w = pct(g, 50) ? 8 : 4;
		int16_t off = (int16_t)(rn(g, 64 / w) * w);
		if (pct(g, 60))
			emit(g, BPF_LDX_MEM(w == 8 ? BPF_DW : BPF_W, sreg(g), BPF_REG_6, off));
		else
			emit(g, BPF_STX_MEM(w == 8 ? BPF_DW : BPF_W, BPF_REG_6, sreg(g), off));
		return;
	}
	const struct ctx_field *f;
	if (t == SND_XDP)
		f = &xdp_fields[rn(g, sizeof(xdp_fields) / sizeof(xdp_fields[0]))];
	else
		f = &skb_fields[rn(g, sizeof(skb_fields) / sizeof(skb_fields[0]))];
	uint8_t sz = f->size == 4 ? BPF_W : f->size == 2 ? BPF_H : BPF_B;
	int can_write = f->write == 1 || (f->write == 2 && t == SND_SCHED_CLS);
	if (can_write && pct(g, 40))
		emit(g, BPF_STX_MEM(sz, BPF_REG_6, sreg(g), f->off));
	else
		emit(g, BPF_LDX_MEM(sz, sreg(g), BPF_REG_6, f->off));
}

/* Direct packet access behind a data_end check (tc and xdp). */
static void packet(struct snd_gen *g)
{
	int16_t data = g->c.type == SND_XDP ? 0 : 76, data_end = g->c.type == SND_XDP ? 4 : 80;
	int n = 1 + (int)rn(g, 64);
	size_t j, j2 = (size_t)-1;

	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, data));
	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, data_end));
	emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_2));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, n));
	switch (rn(g, 3)) {
	case 0:
		j = jmp_fwd(g, BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0));
		break;
	case 1:
		j = jmp_fwd(g, BPF_JMP_REG(BPF_JLT, BPF_REG_3, BPF_REG_4, 0));
		break;
	default:
		emit(g, BPF_JMP_REG(BPF_JLE, BPF_REG_4, BPF_REG_3, 1));
		j = jmp_fwd(g, BPF_JMP_A(0));
		break;
	}
	int k = 1 + (int)rn(g, 3);
	for (int i = 0; i < k; i++) {
		int si = (int)rn(g, 4), sz = size_bytes[si];
		if (sz > n)
			si = 3, sz = 1;
		int16_t off = (int16_t)rn(g, (unsigned)(n - sz + 1));
		if (rn(g, 1000) < 5)
			off = (int16_t)(n - sz + 1); /* one past: must be refused */
		if (pct(g, 60))
			emit(g, BPF_LDX_MEM(sizes[si], sreg(g), BPF_REG_2, off));
		else if (pct(g, 50))
			emit(g, BPF_STX_MEM(sizes[si], BPF_REG_2, sreg(g), off));
		else
			emit(g, BPF_ST_MEM(sizes[si], BPF_REG_2, off, imm(g)));
	}
	if (pct(g, 40)) { /* a variable offset from packet data, checked again */
		int m = 1 + (int)rn(g, 16);
		emit(g, BPF_LDX_MEM(BPF_B, BPF_REG_5, BPF_REG_2, 0));
		emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_5, pct(g, 50) ? 0x1f : 0x3f));
		emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_5));
		emit(g, BPF_MOV64_REG(BPF_REG_4, BPF_REG_2));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, m));
		j2 = jmp_fwd(g, BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0));
		int16_t off = (int16_t)rn(g, (unsigned)m);
		if (pct(g, 50))
			emit(g, BPF_LDX_MEM(BPF_B, sreg(g), BPF_REG_2, off));
		else
			emit(g, BPF_STX_MEM(BPF_B, BPF_REG_2, sreg(g), off));
	}
	if (j2 != (size_t)-1)
		patch(g, j2);
	patch(g, j);
}

static void ld_abs(struct snd_gen *g)
{
	static const uint8_t sz[3] = { BPF_B, BPF_H, BPF_W };
	/* Linux's negative offsets: the MAC header (SKF_LL_OFF), the network header (SKF_NET_OFF) */
	static const int32_t neg[2] = { -0x200000, -0x100000 };
	if (pct(g, 10))
		emit(g, BPF_LD_ABS(sz[rn(g, 3)], neg[rn(g, 2)] + (int32_t)rn(g, 80) - 2));
	else if (pct(g, 50))
		emit(g, BPF_LD_ABS(sz[rn(g, 3)], (int32_t)rn(g, 140)));
	else
		emit(g, BPF_LD_IND(sz[rn(g, 3)], sreg(g), (int32_t)rn(g, 64) - 8));
	emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
}

static void skb_load_bytes(struct snd_gen *g)
{
	int len = 1 + (int)rn(g, 32);
	emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6));
	if (pct(g, 50)) {
		emit(g, BPF_MOV64_IMM(BPF_REG_2, (int32_t)rn(g, 100)));
	} else {
		emit(g, BPF_MOV64_REG(BPF_REG_2, sreg(g)));
		emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 0x3f));
	}
	emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -136 + (int)rn(g, (unsigned)(64 - len + 1))));
	emit(g, BPF_MOV64_IMM(BPF_REG_4, len));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
	emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
}

/* Stack read/write at a variable offset bounded by a branch. */
static void stack_var(struct snd_gen *g)
{
	emit(g, BPF_MOV64_REG(BPF_REG_1, sreg(g)));
	size_t j = bound(g, BPF_REG_1, 56);
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64));
	/* the stack wants aligned accesses: byte-sized, or the offset rounded down */
	int si = pct(g, 50) ? 3 : 0;
	if (si == 0)
		emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_1, ~7));
	emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_1));
	if (pct(g, 60))
		emit(g, BPF_LDX_MEM(sizes[si], sreg(g), BPF_REG_2, 0));
	else
		emit(g, BPF_STX_MEM(sizes[si], BPF_REG_2, sreg(g), 0));
	bound_end(g, j);
}

static void stack_atomic(struct snd_gen *g)
{
	static const int32_t aops[] = { BPF_ADD, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG };
	int32_t op = aops[rn(g, 5)];
	int16_t off = (int16_t)(-64 + (int)rn(g, 8) * 8);
	int src = sreg(g);

	if (op == BPF_CMPXCHG)
		emit(g, BPF_MOV64_REG(BPF_REG_0, sreg(g)));
	if (op & BPF_FETCH) {
		emit(g, BPF_MOV64_REG(BPF_REG_1, src));
		src = BPF_REG_1;
	}
	emit(g, BPF_ATOMIC_OP(BPF_DW, op, BPF_REG_10, src, off));
	if (op == BPF_CMPXCHG)
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
	else if (op & BPF_FETCH)
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_1));
}

static void loop(struct snd_gen *g, struct fn_state *fs)
{
	int k = 1 + (int)rn(g, 12);
	struct fn_state in = *fs;

	if (pct(g, 50))
		emit(g, BPF_MOV64_IMM(BPF_REG_1, 0));
	else {
		emit(g, BPF_MOV64_REG(BPF_REG_1, sreg(g)));
		emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_1, 7));
	}
	size_t start = g->cnt;
	in.in_loop = 1;
	int n = 1 + (int)rn(g, 3);
	for (int i = 0; i < n; i++)
		snippet(g, &in);
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1 + (int)rn(g, 2)));
	if (pct(g, 50))
		emit(g, BPF_JMP_IMM(BPF_JLT, BPF_REG_1, k, (int16_t)(start - g->cnt - 1)));
	else
		emit(g, BPF_JMP32_IMM(BPF_JSLT, BPF_REG_1, k, (int16_t)(start - g->cnt - 1)));
}

static void kfunc(struct snd_gen *g, const struct snd_env *env)
{
	int i = (int)rn(g, SND_NR_GEN_KFUNCS);
	uint32_t id = env->kfunc_id[i];

	if (!id)
		return;
	if (i == SND_KF_PTR_READ || i == SND_KF_PTR_STORE) {
		emit(g, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -64 + (int)rn(g, 8) * 8));
		emit(g, BPF_MOV64_REG(BPF_REG_2, sreg(g)));
	} else {
		for (int r = 1; r <= 5; r++) {
			if (pct(g, 70))
				emit(g, BPF_MOV64_REG(r, sreg(g)));
			else
				emit(g, BPF_MOV64_IMM(r, imm(g)));
		}
	}
	emit(g, BPF_CALL_KFUNC(0, (int32_t)id));
	if (i != SND_KF_PTR_STORE)
		emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
}

static void call_sub_to(struct snd_gen *g, int target)
{
	if (nr_calls >= 60)
		return;
	emit(g, BPF_MOV64_REG(BPF_REG_1, sreg(g)));
	emit(g, BPF_MOV64_REG(BPF_REG_2, sreg(g)));
	emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -64 + (int)rn(g, 8) * 8));
	call_sites[nr_calls] = g->cnt;
	call_target[nr_calls++] = target;
	emit(g, BPF_CALL_REL(0));
	emit(g, BPF_MOV64_REG(sreg(g), BPF_REG_0));
}

static void call_sub(struct snd_gen *g, struct fn_state *fs)
{
	int first = fs->sub_index + 1;
	if (first >= nr_subs)
		return;
	call_sub_to(g, first + (int)rn(g, (unsigned)(nr_subs - first)));
}

static const struct snd_env *cur_env;

static void snippet(struct snd_gen *g, struct fn_state *fs)
{
	size_t j = (size_t)-1;
	int t = g->c.type;

	if (g->cnt >= CAP)
		return;
	if (g->tmpl_mask && !fs->in_loop && pct(g, 8)) {
		snd_tmpl_emit(g, fs, cur_env);
		return;
	}
	if (pct(g, 15)) { /* a forward branch over the snippet, on a scalar */
		static const uint8_t jops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE,
						BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };
		uint8_t op = jops[rn(g, sizeof(jops))];
		if (pct(g, 30))
			j = jmp_fwd(g, BPF_JMP_REG(op, sreg(g), sreg(g), 0));
		else if (pct(g, 50))
			j = jmp_fwd(g, BPF_JMP32_IMM(op, sreg(g), imm(g), 0));
		else
			j = jmp_fwd(g, BPF_JMP_IMM(op, sreg(g), imm(g), 0));
	}
	for (;;) {
		unsigned r = rn(g, 100);
		if (r < 22) {
			alu(g);
		} else if (r < 34) {
			spill_fill(g);
		} else if (r < 44) {
			if (fs->in_loop)
				continue;
			map_array(g);
		} else if (r < 50) {
			if (fs->in_loop)
				continue;
			map_hash(g);
		} else if (r < 54) {
			if (fs->in_loop)
				continue;
			map_global(g);
		} else if (r < 56) {
			if (fs->in_loop)
				continue;
			array_update(g);
		} else if (r < 64) {
			if (!fs->has_ctx)
				continue;
			ctx_access(g);
		} else if (r < 72) {
			if (!fs->has_ctx || (t != SND_SCHED_CLS && t != SND_XDP) || fs->in_loop)
				continue;
			packet(g);
		} else if (r < 73) {
			/* LD_ABS/IND: both engines run them through the type's packet hook */
			if (rn(g, 2))
				continue;
			/* Linux: LD_ABS/IND cannot be mixed with bpf-to-bpf calls (templates may add some) */
			if (!fs->has_ctx || (t != SND_SCHED_CLS && t != SND_SOCKET_FILTER) || fs->in_loop || nr_subs ||
			    g->tmpl_mask)
				continue;
			ld_abs(g);
		} else if (r < 77) {
			if (!fs->has_ctx || (t != SND_SCHED_CLS && t != SND_SOCKET_FILTER) || fs->in_loop)
				continue;
			skb_load_bytes(g);
		} else if (r < 82) {
			if (fs->in_loop)
				continue;
			stack_var(g);
		} else if (r < 86) {
			if (fs->in_loop)
				continue;
			stack_atomic(g);
		} else if (r < 90) {
			if (fs->in_loop || g->c.unprivileged)
				continue;
			loop(g, fs);
		} else if (r < 95) {
			if (fs->in_loop || !cur_env->has_kfuncs || g->c.unprivileged)
				continue;
			kfunc(g, cur_env);
		} else {
			if (fs->in_loop || fs->depth >= 3)
				continue;
			call_sub(g, fs);
		}
		break;
	}
	if (j != (size_t)-1)
		patch(g, j);
}

static void prologue(struct snd_gen *g, int main_fn)
{
	if (main_fn) {
		emit(g, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1));
		emit(g, BPF_MOV64_IMM(BPF_REG_7, imm(g)));
		emit(g, BPF_MOV64_IMM(BPF_REG_8, imm(g)));
		emit(g, BPF_MOV64_IMM(BPF_REG_9, imm(g)));
	} else {
		/* r1, r2: scalars; r3: a pointer to one of the caller's scalar slots */
		emit(g, BPF_MOV64_REG(BPF_REG_7, BPF_REG_1));
		emit(g, BPF_MOV64_REG(BPF_REG_8, BPF_REG_2));
		emit(g, BPF_MOV64_REG(BPF_REG_6, BPF_REG_3));
		emit(g, BPF_MOV64_IMM(BPF_REG_9, imm(g)));
	}
	/* the frame's 136 bytes, from scalars only */
	for (int off = -136; off < 0; off += 8) {
		if (pct(g, 50))
			emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, (int16_t)off, imm(g)));
		else
			emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, sreg(g), (int16_t)off));
	}
	if (main_fn) {
		if (pct(g, 50))
			ctx_access(g);
	} else {
		if (pct(g, 60))
			emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_9, BPF_REG_6, 0));
		if (pct(g, 40))
			emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_8, 0));
	}
}

static void mutate(struct snd_gen *g)
{
	int n = 1 + (int)rn(g, 3);
	for (int k = 0; k < n && g->cnt; k++) {
		struct bpf_insn *in = &g->insns[rn(g, (uint32_t)g->cnt)];
		switch (rn(g, 9)) {
		case 0:
			in->off = (int16_t)(in->off + (int)rn(g, 17) - 8);
			break;
		case 1:
			in->imm = pct(g, 50) ? (int32_t)((uint32_t)in->imm + rn(g, 17) - 8u) : imm(g);
			break;
		case 2:
			in->dst_reg = (uint8_t)rn(g, 11);
			break;
		case 3:
			in->src_reg = (uint8_t)rn(g, 11);
			break;
		case 4: /* another size or another op of the same class */
			if ((in->code & 7) == BPF_LDX || (in->code & 7) == BPF_STX || (in->code & 7) == BPF_ST)
				in->code = (uint8_t)((in->code & ~0x18) | sizes[rn(g, 4)]);
			else
				in->code = (uint8_t)((in->code & 0x0f) | (rn(g, 14) << 4));
			break;
		case 5: { /* swap with the next */
			size_t i = (size_t)(in - g->insns);
			if (i + 1 < g->cnt) {
				struct bpf_insn t = *in;
				*in = g->insns[i + 1];
				g->insns[i + 1] = t;
			}
			break;
		}
		case 6:
			in->code ^= (uint8_t)(1u << rn(g, 8));
			break;
		case 7: /* 32-bit <-> 64-bit class */
			if ((in->code & 7) == BPF_ALU || (in->code & 7) == BPF_ALU64)
				in->code ^= BPF_ALU ^ BPF_ALU64;
			else if ((in->code & 7) == BPF_JMP || (in->code & 7) == BPF_JMP32)
				in->code ^= BPF_JMP ^ BPF_JMP32;
			break;
		default: { /* fully random, rarely */
			uint64_t r = rnd(g);
			memcpy(in, &r, sizeof(*in));
			break;
		}
		}
	}
}

void snd_gen(struct snd_gen *g, const struct snd_env *env, uint64_t seed, uint32_t templates)
{
	struct fn_state fs = { .has_ctx = 1, .sub_index = -1 };
	size_t sub_start[MAX_SUBS];

	memset(g, 0, sizeof(*g));
	g->tmpl_mask = templates & SND_TMPL_ALL;
	g->rng = seed * 0x2545f4914f6cdd1dull + 1;
	rnd(g);
	cur_env = env;
	unsigned t = rn(g, 100);
	g->c.type = t < 35 ? SND_SCHED_CLS : t < 60 ? SND_XDP : t < 85 ? SND_SOCKET_FILTER : SND_SYSCALL;
	g->c.unprivileged = g->c.type == SND_SOCKET_FILTER && pct(g, 20);
	g->c.pkt_len = pct(g, 10) ? rn(g, 14) : 14 + rn(g, SND_PKT_MAX - 14 + 1);
	for (size_t i = 0; i < SND_PKT_MAX; i += 8) {
		uint64_t r = rnd(g);
		memcpy(g->c.pkt + i, &r, 8);
	}
	for (size_t i = 0; i < 64; i += 8) {
		uint64_t r = rnd(g);
		memcpy(g->c.seed + i, &r, 8);
	}
	if (g->tmpl_mask) { /* more unprivileged programs; forced checkpoints for some */
		if (g->c.type == SND_SOCKET_FILTER && pct(g, 40))
			g->c.unprivileged = 1;
		g->c.state_freq = pct(g, 30);
	}
	nr_subs = g->c.unprivileged ? 0 : (int)rn(g, MAX_SUBS + 1);
	nr_calls = 0;

	int len = 3 + (int)rn(g, 24);
	prologue(g, 1);
	if (nr_subs) /* every subprogram is called: sub i calls sub i+1 */
		call_sub_to(g, 0);
	if (g->tmpl_mask) /* at least one template per program */
		snd_tmpl_emit(g, &fs, env);
	for (int i = 0; i < len && g->cnt < CAP; i++)
		snippet(g, &fs);
	emit(g, BPF_MOV64_REG(BPF_REG_0, sreg(g)));
	emit(g, BPF_EXIT_INSN());
	for (int s = 0; s < nr_subs; s++) {
		struct fn_state ss = { .has_ctx = 0, .sub_index = s, .depth = s + 1 };
		sub_start[s] = g->cnt;
		prologue(g, 0);
		if (s + 1 < nr_subs)
			call_sub_to(g, s + 1);
		int n = 1 + (int)rn(g, 6);
		for (int i = 0; i < n && g->cnt < SND_GEN_MAX_INSNS - 40; i++)
			snippet(g, &ss);
		emit(g, BPF_MOV64_REG(BPF_REG_0, sreg(g)));
		emit(g, BPF_EXIT_INSN());
	}
	for (int i = 0; i < nr_calls; i++)
		g->insns[call_sites[i]].imm = (int32_t)(sub_start[call_target[i]] - call_sites[i] - 1);
	if (g->tmpl_mask)
		snd_tmpl_funcs_emit(g);
	g->mutated = pct(g, 20);
	/* unmutated programs read only stack they wrote and leak no address: their results
	 * may not depend on the stack's prior contents (harness.h, strict) */
	g->c.strict = g->tmpl_mask && !g->mutated;
	if (g->mutated)
		mutate(g);
	g->c.insns = g->insns;
	g->c.cnt = g->cnt;
}
