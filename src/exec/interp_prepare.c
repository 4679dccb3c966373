/* SPDX-License-Identifier: Apache-2.0 */
/* Pre-decoding for the interpreter: each instruction becomes a struct kbpf_di naming
 * the specialised handler of both loops, with helper addresses and branch targets
 * already resolved, so the loops never look at opcode bits. */
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "btf/core.h" /* KBPF_CORE_POISON_HELPER */
#include "exec/interp_internal.h"
#include "exec/tail_call.h"
#include "host/host_internal.h"

static int decode_fail(char *err, size_t size, size_t idx, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write "insn N: reason" to err and return -EINVAL. */
static int decode_fail(char *err, size_t size, size_t idx, const char *fmt, ...)
{
	if (err && size) {
		int n = snprintf(err, size, "insn %zu: ", idx);
		if (n >= 0 && (size_t)n < size) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(err + n, size - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

/* The first handler (64-bit K form) of an ALU operation's group of four, or -1. */
static int alu_group(uint8_t op, int16_t off)
{
	switch (op) {
	case BPF_ADD: return KBPF_IH_ALU64_ADD_K;
	case BPF_SUB: return KBPF_IH_ALU64_SUB_K;
	case BPF_MUL: return KBPF_IH_ALU64_MUL_K;
	case BPF_DIV: return off == 1 ? KBPF_IH_ALU64_SDIV_K : KBPF_IH_ALU64_DIV_K;
	case BPF_MOD: return off == 1 ? KBPF_IH_ALU64_SMOD_K : KBPF_IH_ALU64_MOD_K;
	case BPF_OR: return KBPF_IH_ALU64_OR_K;
	case BPF_AND: return KBPF_IH_ALU64_AND_K;
	case BPF_LSH: return KBPF_IH_ALU64_LSH_K;
	case BPF_RSH: return KBPF_IH_ALU64_RSH_K;
	case BPF_ARSH: return KBPF_IH_ALU64_ARSH_K;
	case BPF_XOR: return KBPF_IH_ALU64_XOR_K;
	case BPF_MOV: return KBPF_IH_ALU64_MOV_K;
	}
	return -1;
}

/* The first handler (JMP K form) of a conditional jump's group of four, or -1. */
static int jmp_group(uint8_t op)
{
	switch (op) {
	case BPF_JEQ: return KBPF_IH_JMP_JEQ_K;
	case BPF_JNE: return KBPF_IH_JMP_JNE_K;
	case BPF_JGT: return KBPF_IH_JMP_JGT_K;
	case BPF_JGE: return KBPF_IH_JMP_JGE_K;
	case BPF_JLT: return KBPF_IH_JMP_JLT_K;
	case BPF_JLE: return KBPF_IH_JMP_JLE_K;
	case BPF_JSGT: return KBPF_IH_JMP_JSGT_K;
	case BPF_JSGE: return KBPF_IH_JMP_JSGE_K;
	case BPF_JSLT: return KBPF_IH_JMP_JSLT_K;
	case BPF_JSLE: return KBPF_IH_JMP_JSLE_K;
	case BPF_JSET: return KBPF_IH_JMP_JSET_K;
	}
	return -1;
}

/* to_le / to_be (ALU) and bswap (ALU64) of width imm, for this host's byte order. */
static int end_handler(const struct bpf_insn *in)
{
	bool swap = BPF_CLASS(in->code) == BPF_ALU64;

	if (!swap) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		swap = BPF_SRC(in->code) == BPF_TO_BE;
#else
		swap = BPF_SRC(in->code) == BPF_TO_LE;
#endif
	}
	switch (in->imm) {
	case 16: return swap ? KBPF_IH_SWAP16 : KBPF_IH_ZEXT16;
	case 32: return swap ? KBPF_IH_SWAP32 : KBPF_IH_ZEXT32;
	case 64: return swap ? KBPF_IH_SWAP64 : KBPF_IH_NOP;
	}
	return -1;
}

static int decode_alu(const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X;
	uint8_t op = BPF_OP(in->code);
	int base;

	if (op == BPF_NEG)
		return is64 ? KBPF_IH_NEG64 : KBPF_IH_NEG32;
	if (op == BPF_END)
		return end_handler(in);
	if (op == BPF_MOV && x && in->off) {
		switch (in->off) {
		case 8: return is64 ? KBPF_IH_MOVSX64_8 : KBPF_IH_MOVSX32_8;
		case 16: return is64 ? KBPF_IH_MOVSX64_16 : KBPF_IH_MOVSX32_16;
		case 32: return is64 ? KBPF_IH_MOVSX64_32 : -1;
		}
		return -1;
	}
	base = alu_group(op, in->off);
	return base < 0 ? -1 : base + (is64 ? 0 : 2) + (x ? 1 : 0);
}

static int ldx_handler(uint8_t code)
{
	bool sx = BPF_MODE(code) == BPF_MEMSX;

	if (BPF_MODE(code) == KBPF_PROBE_MEM) {
		switch (BPF_SIZE(code)) {
		case BPF_B: return KBPF_IH_LDX_PROBE_B;
		case BPF_H: return KBPF_IH_LDX_PROBE_H;
		case BPF_W: return KBPF_IH_LDX_PROBE_W;
		case BPF_DW: return KBPF_IH_LDX_PROBE_DW;
		}
	}
	if (BPF_MODE(code) != BPF_MEM && !sx)
		return -1;
	switch (BPF_SIZE(code)) {
	case BPF_B: return sx ? KBPF_IH_LDXSX_B : KBPF_IH_LDX_B;
	case BPF_H: return sx ? KBPF_IH_LDXSX_H : KBPF_IH_LDX_H;
	case BPF_W: return sx ? KBPF_IH_LDXSX_W : KBPF_IH_LDX_W;
	case BPF_DW: return sx ? -1 : KBPF_IH_LDX_DW;
	}
	return -1;
}

static int store_handler(uint8_t code)
{
	bool x = BPF_CLASS(code) == BPF_STX;

	switch (BPF_SIZE(code)) {
	case BPF_B: return x ? KBPF_IH_STX_B : KBPF_IH_ST_B;
	case BPF_H: return x ? KBPF_IH_STX_H : KBPF_IH_ST_H;
	case BPF_W: return x ? KBPF_IH_STX_W : KBPF_IH_ST_W;
	case BPF_DW: return x ? KBPF_IH_STX_DW : KBPF_IH_ST_DW;
	}
	return -1;
}

static int atomic_handler(const struct bpf_insn *in)
{
	int base;

	switch (BPF_SIZE(in->code)) {
	case BPF_W: base = KBPF_IH_ATOMIC_W_ADD; break;
	case BPF_DW: base = KBPF_IH_ATOMIC_DW_ADD; break;
	default: return -1;
	}
	/* offsets follow KBPF_IH_ATOMIC_GROUP */
	switch (in->imm) {
	case BPF_ADD: return base + 0;
	case BPF_OR: return base + 1;
	case BPF_AND: return base + 2;
	case BPF_XOR: return base + 3;
	case BPF_ADD | BPF_FETCH: return base + 4;
	case BPF_OR | BPF_FETCH: return base + 5;
	case BPF_AND | BPF_FETCH: return base + 6;
	case BPF_XOR | BPF_FETCH: return base + 7;
	case BPF_XCHG: return base + 8;
	case BPF_CMPXCHG: return base + 9;
	}
	return -1;
}

/* LD_ABS / LD_IND of size B, H or W (Linux has no DW form), or -1. */
static int ld_abs_handler(const struct bpf_insn *in)
{
	bool ind = BPF_MODE(in->code) == BPF_IND;

	switch (BPF_SIZE(in->code)) {
	case BPF_B: return ind ? KBPF_IH_LD_IND_B : KBPF_IH_LD_ABS_B;
	case BPF_H: return ind ? KBPF_IH_LD_IND_H : KBPF_IH_LD_ABS_H;
	case BPF_W: return ind ? KBPF_IH_LD_IND_W : KBPF_IH_LD_ABS_W;
	}
	return -1;
}

_Static_assert(KBPF_IH_ATOMIC_W_CMPXCHG == KBPF_IH_ATOMIC_W_ADD + 9, "atomic group layout");
_Static_assert(KBPF_IH_ALU32_ADD_X == KBPF_IH_ALU64_ADD_K + 3, "ALU group layout");
_Static_assert(KBPF_IH_JMP32_JSET_X == KBPF_IH_JMP_JSET_K + 3, "JMP group layout");

/* Decode insns[i] into *d (all but the labels); returns its handler or -EINVAL with err. */
static int decode_one(const struct kbpf_prog *prog, struct kbpf_interp *ip, size_t i, char *err,
		      size_t err_size)
{
	const struct bpf_insn *in = &prog->insns[i];
	struct kbpf_di *d = &ip->code[i];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool has_target = false;
	int64_t target = 0;
	int h = -1;

	d->dst = in->dst_reg;
	d->src = in->src_reg;
	d->off = in->off;
	d->imm = in->imm;

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		h = decode_alu(in);
		/* Masking here keeps shifts by an immediate free of C's shift-width UB. */
		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			d->imm = (int32_t)((uint32_t)in->imm & (cls == BPF_ALU64 ? 63u : 31u));
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_JA && kbpf_prog_insn_is_dead_stop(prog, i)) {
			h = KBPF_IH_DEAD; /* the verifier's dead-code filler: a stop, not a loop */
		} else if (op == BPF_JA) {
			h = KBPF_IH_JA;
			has_target = true;
			target = (int64_t)i + 1 + (cls == BPF_JMP ? in->off : in->imm);
		} else if (op == KBPF_JCOND && cls == BPF_JMP) {
			/* its counter slot comes from the verifier's rewrite (grow.c) */
			if (in->imm >= 0)
				return decode_fail(err, err_size, i,
						   "may_goto without its counter slot: only a verified program can run it");
			h = KBPF_IH_MAY_GOTO;
			has_target = true;
			target = (int64_t)i + 1 + in->off;
		} else if (op == BPF_EXIT && cls == BPF_JMP) {
			h = KBPF_IH_EXIT;
		} else if (op == BPF_CALL && cls == BPF_JMP) {
			if (BPF_SRC(in->code) == BPF_X) {
				h = KBPF_IH_CALLX;
			} else if (in->src_reg == 0 && in->imm == KBPF_CORE_POISON_HELPER &&
				   !kbpf_host_helper_find(prog->host, in->imm, NULL)) {
				/* an instruction the loader poisoned (unresolvable CO-RE
				 * relocation): fine unless reached, as for the verifier */
				h = KBPF_IH_CALL_UNRESOLVED;
			} else if (kbpf_insn_is_tail_call(prog->host, in)) {
				h = KBPF_IH_TAIL_CALL;
			} else if (in->src_reg == 0) {
				d->x.fn = kbpf_host_helper_find(prog->host, in->imm, NULL);
				if (!d->x.fn)
					return decode_fail(err, err_size, i, "call to unknown helper #%d", in->imm);
				h = KBPF_IH_CALL_HELPER;
			} else if (in->src_reg == BPF_PSEUDO_CALL) {
				h = KBPF_IH_CALL_LOCAL;
				has_target = true;
				target = (int64_t)i + 1 + in->imm;
			} else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm == 0) {
				/* an unresolved __weak kfunc (the loader's imm 0): dead code
				 * behind `if (func)`; reaching it stops the run */
				h = KBPF_IH_CALL_UNRESOLVED;
			} else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL) {
				/* pinned by kbpf_prog_kfuncs_pin before decoding */
				d->x.kfunc = kbpf_prog_kfunc_find(prog, (uint32_t)in->imm);
				if (!d->x.kfunc)
					return decode_fail(err, err_size, i, "kfunc btf_id %d not pinned", in->imm);
				h = KBPF_IH_CALL_KFUNC;
			}
		} else {
			h = jmp_group(op);
			if (h >= 0) {
				h += (cls == BPF_JMP ? 0 : 2) + (BPF_SRC(in->code) == BPF_X ? 1 : 0);
				has_target = true;
				target = (int64_t)i + 1 + in->off;
			}
		}
		break;
	case BPF_LD:
		if (in->code == KBPF_LDDW_CODE) {
			int ret = kbpf_prog_ldimm64_value(prog, i, &d->x.u64, err, err_size);
			if (ret)
				return ret;
			h = KBPF_IH_LDDW;
		} else if (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND) {
			h = ld_abs_handler(in);
			if (h >= 0 && !prog->ld_abs)
				return decode_fail(err, err_size, i,
						   "LD_ABS/LD_IND need a program type with a packet hook "
						   "(kbpf_prog_type.ld_abs: socket_filter, sched_cls, sched_act)");
			d->x.ld_abs = prog->ld_abs;
		}
		break;
	case BPF_LDX:
		h = ldx_handler(in->code);
		break;
	case BPF_ST:
		if (BPF_MODE(in->code) == BPF_MEM)
			h = store_handler(in->code);
		break;
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_MEM)
			h = store_handler(in->code);
		else if (BPF_MODE(in->code) == BPF_ATOMIC)
			h = atomic_handler(in);
		break;
	}
	if (h < 0)
		return decode_fail(err, err_size, i, "unsupported opcode 0x%02x", in->code);
	if (has_target) {
		/* Validation already guarantees this; a wild pointer would be worse than a check. */
		if (target < 0 || (uint64_t)target >= prog->insn_cnt)
			return decode_fail(err, err_size, i, "jump out of range");
		d->x.target = &ip->code[target];
	}
	return h;
}

/* Snapshot the host's helpers for callx (run-time helper ids). */
static int snapshot_helpers(struct kbpf_interp *ip, const struct kbpf_host *host)
{
	if (!host || !host->nr_helpers)
		return 0;
	ip->callx = calloc(host->nr_helpers, sizeof(*ip->callx));
	if (!ip->callx)
		return -ENOMEM;
	for (size_t i = 0; i < host->nr_helpers; i++)
		ip->callx[i] = (struct kbpf_callx_entry){ host->helpers[i].id, host->helpers[i].fn };
	ip->nr_callx = host->nr_helpers;
	return 0;
}

/* The hardened loop's stack guard bytes: one random value for the process, so that a
 * run that tail-calls from one program into another checks the guards the first one
 * filled against the same value (the loop reads it from the running program). */
static uint64_t interp_guard_canary(const struct kbpf_interp *ip)
{
	static _Atomic uint64_t canary;
	uint64_t c = atomic_load_explicit(&canary, memory_order_relaxed), none = 0;

	if (c)
		return c;
	if (getrandom(&c, sizeof(c), GRND_NONBLOCK) != (ssize_t)sizeof(c) || !c)
		c = (uint64_t)(uintptr_t)ip * 0x9e3779b97f4a7c15ull ^ 0x5bd1e9955bd1e995ull;
	if (!atomic_compare_exchange_strong(&canary, &none, c))
		c = none; /* another thread's came first */
	return c;
}

int kbpf_interp_prepare(struct kbpf_prog *prog, char *err, size_t err_size)
{
	const void *const *fast, *const *checked, *const *hardened;
	size_t n = prog->insn_cnt, bytes;
	struct kbpf_interp *ip;
	bool has_callx = false;
	int ret = 0;

	kbpf_interp_labels(&fast, &checked, &hardened);
	/* Cache-line alignment keeps every 32-byte entry inside one line. */
	bytes = sizeof(*ip) + (n + 1) * sizeof(ip->code[0]);
	bytes = (bytes + 63) & ~(size_t)63;
	ip = aligned_alloc(64, bytes);
	if (!ip)
		return -ENOMEM;
	memset(ip, 0, bytes);
	ip->cnt = n;
	ip->prog = prog;
	if (prog->run_budget || (prog->harden & KBPF_HARDEN_STACK_GUARD)) {
		/* the hardened loop's labels stand in for the fast loop's */
		ip->hardened = true;
		fast = hardened;
		ip->canary = interp_guard_canary(ip);
	}

	for (size_t i = 0; i < n; i++) {
		int h = decode_one(prog, ip, i, err, err_size);

		if (h < 0) {
			ret = h;
			goto fail;
		}
		ip->code[i].h = fast[h];
		ip->code[i].hc = checked[h];
		has_callx |= h == KBPF_IH_CALLX;
		if (h == KBPF_IH_LDDW) {
			/* the immediate half: never executed, jumps cannot land on it */
			i++;
			ip->code[i].h = fast[KBPF_IH_FELL_OFF];
			ip->code[i].hc = checked[KBPF_IH_FELL_OFF];
		}
	}
	/* Validation forbids falling off the end; the sentinel makes it a clean stop anyway. */
	ip->code[n].h = fast[KBPF_IH_FELL_OFF];
	ip->code[n].hc = checked[KBPF_IH_FELL_OFF];

	if (has_callx) {
		ret = snapshot_helpers(ip, prog->host);
		if (ret)
			goto fail;
	}
	prog->interp = ip;
	return 0;
fail:
	kbpf_interp_free(ip);
	return ret;
}

void kbpf_interp_free(struct kbpf_interp *ip)
{
	if (!ip)
		return;
	free(ip->callx);
	free(ip);
}
