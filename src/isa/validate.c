/* SPDX-License-Identifier: Apache-2.0 */
/* Structural validation: what must hold of the instruction bytes before any engine
 * looks at them. Messages follow Linux's verifier texts, prefixed with "insn N: ". */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <kbpf/isa.h>
#include "isa/validate.h"

#define KBPF_MAX_INSNS 1000000 /* Linux's BPF_COMPLEXITY_LIMIT_INSNS, also its length limit */

static int fail(char *err, size_t size, size_t idx, const char *fmt, ...)
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

static bool valid_size(uint8_t code, bool allow_dw)
{
	uint8_t sz = BPF_SIZE(code);
	return sz == BPF_W || sz == BPF_H || sz == BPF_B || (allow_dw && sz == BPF_DW);
}

/* ALU and ALU64: which fields each operation may use (RFC 9669 §4). */
static int check_alu(const struct bpf_insn *in, size_t i, char *err, size_t size)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool is64 = cls == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X;

	if (op > BPF_END)
		return fail(err, size, i, "unknown opcode %02x", in->code);
	if (op == BPF_NEG) {
		if (x || in->src_reg || in->off || in->imm)
			return fail(err, size, i, "BPF_NEG uses reserved fields");
	} else if (op == BPF_END) {
		/* ALU64 | END | TO_LE is the unconditional bswap; ALU64 | END | TO_BE is not an opcode */
		if (is64 && x)
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (in->src_reg || in->off || (in->imm != 16 && in->imm != 32 && in->imm != 64))
			return fail(err, size, i, "BPF_END uses reserved fields");
	} else if (op == BPF_MOV) {
		if (x) {
			bool sx_ok = in->off == 0 || in->off == 8 || in->off == 16 || (is64 && in->off == 32);
			if (in->imm || !sx_ok)
				return fail(err, size, i, "BPF_MOV uses reserved fields");
		} else if (in->src_reg || in->off) {
			return fail(err, size, i, "BPF_MOV uses reserved fields");
		}
	} else {
		bool off_ok = in->off == 0 || ((op == BPF_DIV || op == BPF_MOD) && in->off == 1);
		if (!off_ok || (x ? in->imm != 0 : in->src_reg != 0))
			return fail(err, size, i, "BPF_ALU uses reserved fields");
	}
	if (in->dst_reg == BPF_REG_10)
		return fail(err, size, i, "frame pointer is read only");
	return 0;
}

static int check_jmp(const struct bpf_insn *in, size_t i, char *err, size_t size)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	switch (op) {
	case BPF_JA:
		/* JMP: offset in off. JMP32 ("gotol"): offset in imm. */
		if (x || in->src_reg || in->dst_reg || (cls == BPF_JMP ? in->imm != 0 : in->off != 0))
			return fail(err, size, i, "BPF_JA uses reserved fields");
		return 0;
	case BPF_CALL:
		if (cls != BPF_JMP)
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (x) /* callx (uBPF extension): helper id in a register, named by dst_reg */
			return in->src_reg || in->off || in->imm ? fail(err, size, i, "BPF_CALL uses reserved fields") : 0;
		if (in->dst_reg || in->src_reg > BPF_PSEUDO_KFUNC_CALL ||
		    (in->off && in->src_reg != BPF_PSEUDO_KFUNC_CALL))
			return fail(err, size, i, "BPF_CALL uses reserved fields");
		return 0;
	case BPF_EXIT:
		if (cls != BPF_JMP)
			return fail(err, size, i, "unknown opcode %02x", in->code);
		/* Linux's do_check ignores off here (and its JITs do): a program Linux's
		 * verifier accepts must not be refused on it */
		if (x || in->src_reg || in->dst_reg || in->imm)
			return fail(err, size, i, "BPF_EXIT uses reserved fields");
		return 0;
	case KBPF_JCOND:
		/* may_goto: imm 0 as written; a verified program's has its counter slot there
		 * (a multiple of 8 within the frame, below r10) */
		if (cls != BPF_JMP || x)
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (in->src_reg != KBPF_MAY_GOTO || in->dst_reg || !in->off ||
		    (in->imm && (in->imm > -8 || in->imm < -KBPF_STACK_SIZE || (in->imm & 7))))
			return fail(err, size, i, "invalid may_goto off %d imm %d", in->off, in->imm);
		return 0;
	case 0xf0:
		return fail(err, size, i, "unknown opcode %02x", in->code);
	default:
		if (x ? in->imm != 0 : in->src_reg != 0)
			return fail(err, size, i, "BPF_JMP/JMP32 uses reserved fields");
		return 0;
	}
}

static bool valid_atomic_op(int32_t imm)
{
	switch (imm) {
	case BPF_ADD: case BPF_OR: case BPF_AND: case BPF_XOR:
	case BPF_ADD | BPF_FETCH: case BPF_OR | BPF_FETCH:
	case BPF_AND | BPF_FETCH: case BPF_XOR | BPF_FETCH:
	case BPF_XCHG: case BPF_CMPXCHG:
		return true;
	}
	return false;
}

static int check_mem(const struct bpf_insn *in, size_t i, char *err, size_t size, bool probe_ok)
{
	uint8_t cls = BPF_CLASS(in->code), mode = BPF_MODE(in->code);

	switch (cls) {
	case BPF_LD: /* LDDW is handled by the caller; what remains is legacy packet access */
		if ((mode != BPF_ABS && mode != BPF_IND) || !valid_size(in->code, false))
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (in->dst_reg || in->off || (mode == BPF_ABS && in->src_reg))
			return fail(err, size, i, "BPF_LD_[ABS|IND] uses reserved fields");
		return 0;
	case BPF_LDX:
		if (!((mode == BPF_MEM && valid_size(in->code, true)) ||
		      (mode == BPF_MEMSX && valid_size(in->code, false)) ||
		      (mode == KBPF_PROBE_MEM && probe_ok && valid_size(in->code, true))))
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (in->imm)
			return fail(err, size, i, "BPF_LDX uses reserved fields");
		if (in->dst_reg == BPF_REG_10)
			return fail(err, size, i, "frame pointer is read only");
		return 0;
	case BPF_ST:
		if (mode != BPF_MEM || !valid_size(in->code, true))
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (in->src_reg)
			return fail(err, size, i, "BPF_ST uses reserved fields");
		return 0;
	default: /* BPF_STX */
		if (mode == BPF_MEM && valid_size(in->code, true))
			return in->imm ? fail(err, size, i, "BPF_STX uses reserved fields") : 0;
		if (mode != BPF_ATOMIC || (BPF_SIZE(in->code) != BPF_W && BPF_SIZE(in->code) != BPF_DW))
			return fail(err, size, i, "unknown opcode %02x", in->code);
		if (!valid_atomic_op(in->imm))
			return fail(err, size, i, "BPF_ATOMIC uses invalid atomic opcode %02x", in->imm);
		if ((in->imm & BPF_FETCH) && in->src_reg == BPF_REG_10 && in->imm != BPF_CMPXCHG)
			return fail(err, size, i, "frame pointer is read only");
		return 0;
	}
}

static int check_lddw(const struct bpf_insn *insns, size_t cnt, size_t i, char *err, size_t size)
{
	const struct bpf_insn *in = &insns[i];

	if (i + 1 >= cnt || insns[i + 1].code || insns[i + 1].dst_reg || insns[i + 1].src_reg ||
	    insns[i + 1].off)
		return fail(err, size, i, "invalid bpf_ld_imm64 insn");
	if (in->off)
		return fail(err, size, i, "BPF_LD_IMM64 uses reserved fields");
	if (in->src_reg > BPF_PSEUDO_MAP_IDX_VALUE)
		return fail(err, size, i, "unrecognized bpf_ld_imm64 insn");
	if (in->dst_reg == BPF_REG_10)
		return fail(err, size, i, "frame pointer is read only");
	return 0;
}

#define NO_TARGET INT64_MIN

/* Where control goes from insns[i] besides falling through, or NO_TARGET. */
static int64_t branch_target(const struct bpf_insn *in, size_t i)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_EXIT)
		return NO_TARGET;
	if (op == BPF_CALL)
		return in->src_reg == BPF_PSEUDO_CALL && BPF_SRC(in->code) == BPF_K ? (int64_t)i + in->imm + 1
										  : NO_TARGET;
	if (op == BPF_JA && cls == BPF_JMP32)
		return (int64_t)i + in->imm + 1;
	return (int64_t)i + in->off + 1;
}

/* Control flow stays inside the program and never lands on an LDDW's second half;
 * the last instruction cannot fall off the end. */
static int check_flow(const struct bpf_insn *insns, size_t cnt, char *err, size_t size)
{
	/* second_half[i]: slot i is the immediate half of an LDDW, not an instruction */
	bool *second_half = calloc(cnt, sizeof(*second_half));
	size_t last = 0;
	int ret = 0;

	if (!second_half)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i += kbpf_insn_slots(&insns[i]))
		if (insns[i].code == KBPF_LDDW_CODE)
			second_half[i + 1] = true;
	for (size_t i = 0; i < cnt && !ret; last = i, i += kbpf_insn_slots(&insns[i])) {
		int64_t t = branch_target(&insns[i], i);

		if (t == NO_TARGET)
			continue;
		if (t < 0 || t >= (int64_t)cnt || second_half[t])
			ret = BPF_OP(insns[i].code) == BPF_CALL
				      ? fail(err, size, i, "call to invalid destination")
				      : fail(err, size, i, "jump out of range from insn %zu to %lld", i, (long long)t);
	}
	free(second_half);
	if (ret)
		return ret;

	const struct bpf_insn *in = &insns[last];
	bool is_jmp_class = BPF_CLASS(in->code) == BPF_JMP || BPF_CLASS(in->code) == BPF_JMP32;
	if (in->code != (BPF_JMP | BPF_EXIT) && !(is_jmp_class && BPF_OP(in->code) == BPF_JA))
		return fail(err, size, last, "last insn is not an exit or jmp");
	return 0;
}

static int validate(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size, bool probe_ok)
{
	if (err && err_size)
		err[0] = 0;
	if (!insns || cnt == 0) {
		if (err && err_size)
			snprintf(err, err_size, "empty program");
		return -EINVAL;
	}
	if (cnt > KBPF_MAX_INSNS) {
		if (err && err_size)
			snprintf(err, err_size, "program of %zu insns is over the limit of %d", cnt, KBPF_MAX_INSNS);
		return -E2BIG;
	}

	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		int ret;

		if (in->dst_reg > BPF_REG_10)
			return fail(err, err_size, i, "R%d is invalid", in->dst_reg);
		if (in->src_reg > BPF_REG_10)
			return fail(err, err_size, i, "R%d is invalid", in->src_reg);
		switch (BPF_CLASS(in->code)) {
		case BPF_ALU:
		case BPF_ALU64:
			ret = check_alu(in, i, err, err_size);
			break;
		case BPF_JMP:
		case BPF_JMP32:
			ret = check_jmp(in, i, err, err_size);
			break;
		case BPF_LD:
			if (in->code == KBPF_LDDW_CODE) {
				ret = check_lddw(insns, cnt, i, err, err_size);
				i++; /* the second half was checked with the first */
				break;
			}
			/* fall through */
		default:
			ret = check_mem(in, i, err, err_size, probe_ok);
			break;
		}
		if (ret)
			return ret;
	}
	return check_flow(insns, cnt, err, err_size);
}

int kbpf_insns_validate(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size)
{
	return validate(insns, cnt, err, err_size, false);
}

int kbpf_insns_validate_xlated(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size)
{
	return validate(insns, cnt, err, err_size, true);
}
