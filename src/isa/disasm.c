/* SPDX-License-Identifier: Apache-2.0 */
/* Disassembler: instructions to the pseudo-C text of Linux 6.1's verifier log
 * (kernel/bpf/disasm.c's print_bpf_insn), plus the RFC 9669 "v4" forms as later Linux
 * prints them (movsx "r0 = (s8)r1", sdiv "r0 s/= r1", ldsx "*(s8 *)", "bswap16", "gotol").
 *
 * Where Linux's text cannot be read back unambiguously, kbpf chooses a form the
 * pseudo-C assembler (asm_pseudo.c) parses back to the same bytes:
 *   LDDW src 0                 "r1 = 0x1122334455667788"   (Linux's text)
 *   LDDW BPF_PSEUDO_MAP_FD      "r1 = map[fd:5]"            (bpftool's "map[id:N]" shape)
 *   LDDW BPF_PSEUDO_MAP_VALUE   "r1 = map[fd:5][0]+8"
 *   LDDW BPF_PSEUDO_MAP_IDX     "r1 = map[idx:2]"
 *   LDDW BPF_PSEUDO_MAP_IDX_VALUE "r1 = map[idx:2][0]+8"
 *   LDDW BPF_PSEUDO_BTF_ID      "r1 = btf_id[123]"
 *   LDDW BPF_PSEUDO_FUNC        "r1 = func pc+5"            ("r1 = func LBB7" with labels)
 *   kfunc call                  "call <name>#<btf id>", "call kfunc#<btf id>" unnamed,
 *                               with " off=N" appended when off (module BTF index) is set
 *   callx (uBPF / LLVM)         "callx r2"
 *   anything else               ".insn 0xff, 1, 2, 3, 4" (code, dst, src, off, imm)
 *
 * kbpf_insn_disasm() is lenient like Linux: fields an instruction does not use are not
 * printed, whatever they hold.  kbpf_prog_disasm() is strict, because its output is meant
 * to re-assemble to the same bytes: an instruction whose text would lose a nonzero unused
 * field, name a register above r10, or jump outside the program is printed as ".insn". */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/isa.h>
#include "opts.h"

/* Output buffer that truncates instead of overflowing. */
struct sbuf {
	char *p;
	size_t size, len;
};

static void sb_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	size_t room = sb->len < sb->size ? sb->size - sb->len : 0;

	va_start(ap, fmt);
	int n = vsnprintf(room ? sb->p + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n;
}

struct dis {
	const struct bpf_insn *insns;
	size_t cnt, idx;
	struct kbpf_disasm_opts opts;
	/* Strict mode (kbpf_prog_disasm): reject what would not round-trip. */
	bool strict;
	/* labelable[i]: a label may be printed for slot i (NULL: compute on demand). */
	const uint8_t *labelable;
	struct sbuf out;
	char why[96]; /* reason when the instruction is undecodable */
};

static int bad(struct dis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct dis *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int invalid_code(struct dis *d, uint8_t code)
{
	return bad(d, "invalid insn code 0x%02x", code);
}

/* Strict mode only: a field the printed form does not carry must be zero. */
static int reserved(struct dis *d, bool nonzero, const char *field)
{
	if (d->strict && nonzero)
		return bad(d, "insn code 0x%02x uses reserved field %s", d->insns[d->idx].code, field);
	return 0;
}

/* Strict mode only: the assembler accepts r0..r10. */
static int regs_ok(struct dis *d, const struct bpf_insn *in)
{
	if (d->strict && (in->dst_reg > BPF_REG_10 || in->src_reg > BPF_REG_10))
		return bad(d, "insn code 0x%02x uses register r%d", in->code,
			   in->dst_reg > BPF_REG_10 ? in->dst_reg : in->src_reg);
	return 0;
}

static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=",  [BPF_SUB >> 4] = "-=",	[BPF_MUL >> 4] = "*=",	 [BPF_DIV >> 4] = "/=",
	[BPF_OR >> 4] = "|=",	[BPF_AND >> 4] = "&=",	[BPF_LSH >> 4] = "<<=",	 [BPF_RSH >> 4] = ">>=",
	[BPF_MOD >> 4] = "%=",	[BPF_XOR >> 4] = "^=",	[BPF_MOV >> 4] = "=",	 [BPF_ARSH >> 4] = "s>>=",
};

static const char *const jmp_ops[16] = {
	[BPF_JEQ >> 4] = "==",	[BPF_JGT >> 4] = ">",	[BPF_JGE >> 4] = ">=",	[BPF_JSET >> 4] = "&",
	[BPF_JNE >> 4] = "!=",	[BPF_JSGT >> 4] = "s>", [BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<",
	[BPF_JLE >> 4] = "<=",	[BPF_JSLT >> 4] = "s<", [BPF_JSLE >> 4] = "s<=",
};

static const char *const atomic_ops[16] = {
	[BPF_ADD >> 4] = "add", [BPF_AND >> 4] = "and", [BPF_OR >> 4] = "or", [BPF_XOR >> 4] = "xor",
};

/* Access size names, indexed by BPF_SIZE >> 3 (W=0, H=1, B=2, DW=3). */
static const char *const size_u[4] = { "u32", "u16", "u8", "u64" };
static const char *const size_s[4] = { "s32", "s16", "s8", NULL };

/* Walk instruction boundaries from slot 0 (an LDDW covers two slots) to tell whether a
 * label can stand before slot t: it must start an instruction inside the program. */
static bool starts_insn(const struct bpf_insn *insns, size_t cnt, size_t t)
{
	size_t i = 0;

	while (i < t)
		i += insns[i].code == KBPF_LDDW_CODE && i + 1 < cnt ? 2 : 1;
	return i == t && t < cnt;
}

static bool can_label(const struct dis *d, int64_t t)
{
	if (t < 0 || (uint64_t)t >= d->cnt)
		return false;
	return d->labelable ? d->labelable[t] : starts_insn(d->insns, d->cnt, (size_t)t);
}

/* Print a jump/call target, rel counted from the next slot: "pc+3", or "LBB7". */
static int put_target(struct dis *d, int64_t rel)
{
	int64_t t = (int64_t)d->idx + 1 + rel;

	if (d->strict && (t < 0 || (uint64_t)t >= d->cnt))
		return bad(d, "insn %zu: jump target %" PRId64 " outside the program", d->idx, t);
	if (d->opts.with_labels && can_label(d, t))
		sb_printf(&d->out, "LBB%" PRId64, t);
	else
		sb_printf(&d->out, "pc%+" PRId64, rel);
	return 0;
}

static int dis_alu(struct dis *d, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	char w = is64 ? 'r' : 'w';
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	if (op == BPF_END) {
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return bad(d, "invalid byte swap width %d", in->imm);
		if (is64 && x) /* ALU64 | END | TO_BE is not an opcode */
			return invalid_code(d, in->code);
		if (reserved(d, in->src_reg, "src_reg") || reserved(d, in->off, "off"))
			return -EINVAL;
		if (is64)
			sb_printf(&d->out, "r%d = bswap%d r%d", in->dst_reg, in->imm, in->dst_reg);
		else
			sb_printf(&d->out, "r%d = %s%d r%d", in->dst_reg, x ? "be" : "le", in->imm, in->dst_reg);
		return 1;
	}
	if (op == BPF_NEG) {
		if (reserved(d, x, "source bit") || reserved(d, in->src_reg, "src_reg") ||
		    reserved(d, in->off, "off") || reserved(d, in->imm, "imm"))
			return -EINVAL;
		sb_printf(&d->out, "%c%d = -%c%d", w, in->dst_reg, w, in->dst_reg);
		return 1;
	}
	if (!alu_ops[op >> 4])
		return invalid_code(d, in->code);

	bool sdiv = (op == BPF_DIV || op == BPF_MOD) && in->off == 1;
	bool movsx = x && op == BPF_MOV && (in->off == 8 || in->off == 16 || (is64 && in->off == 32));
	const char *ops = sdiv ? (op == BPF_DIV ? "s/=" : "s%=") : alu_ops[op >> 4];

	if (reserved(d, in->off && !sdiv && !movsx, "off"))
		return -EINVAL;
	if (x) {
		if (reserved(d, in->imm, "imm"))
			return -EINVAL;
		if (movsx)
			sb_printf(&d->out, "%c%d = (s%d)%c%d", w, in->dst_reg, in->off, w, in->src_reg);
		else
			sb_printf(&d->out, "%c%d %s %c%d", w, in->dst_reg, ops, w, in->src_reg);
	} else {
		if (reserved(d, in->src_reg, "src_reg"))
			return -EINVAL;
		sb_printf(&d->out, "%c%d %s %d", w, in->dst_reg, ops, in->imm);
	}
	return 1;
}

static int dis_ldx(struct dis *d, const struct bpf_insn *in)
{
	uint8_t mode = BPF_MODE(in->code);
	/* a fault-tolerant load of the verifier's output reads like any load, as bpftool
	 * shows Linux's BPF_PROBE_MEM */
	const char *sz = mode == BPF_MEM || mode == KBPF_PROBE_MEM ? size_u[BPF_SIZE(in->code) >> 3]
		       : mode == BPF_MEMSX ? size_s[BPF_SIZE(in->code) >> 3]
					    : NULL;

	if (!sz)
		return invalid_code(d, in->code);
	if (reserved(d, in->imm, "imm"))
		return -EINVAL;
	sb_printf(&d->out, "r%d = *(%s *)(r%d %+d)", in->dst_reg, sz, in->src_reg, in->off);
	return 1;
}

static int dis_st(struct dis *d, const struct bpf_insn *in)
{
	if (BPF_MODE(in->code) != BPF_MEM)
		return invalid_code(d, in->code);
	if (reserved(d, in->src_reg, "src_reg"))
		return -EINVAL;
	sb_printf(&d->out, "*(%s *)(r%d %+d) = %d", size_u[BPF_SIZE(in->code) >> 3], in->dst_reg, in->off,
		  in->imm);
	return 1;
}

static int dis_atomic(struct dis *d, const struct bpf_insn *in)
{
	uint8_t size = BPF_SIZE(in->code);
	const char *sz = size_u[size >> 3];
	const char *w64 = size == BPF_DW ? "64" : "";
	int op = in->imm & ~BPF_FETCH;

	if (size != BPF_W && size != BPF_DW)
		return invalid_code(d, in->code);
	if (in->imm == BPF_XCHG) {
		sb_printf(&d->out, "r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)", in->src_reg, w64, sz, in->dst_reg,
			  in->off, in->src_reg);
	} else if (in->imm == BPF_CMPXCHG) {
		sb_printf(&d->out, "r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)", w64, sz, in->dst_reg, in->off,
			  in->src_reg);
	} else if (op >= 0 && op < 0x100 && !(op & 0xf) && atomic_ops[op >> 4]) {
		if (in->imm & BPF_FETCH)
			sb_printf(&d->out, "r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)", in->src_reg, w64,
				  atomic_ops[op >> 4], sz, in->dst_reg, in->off, in->src_reg);
		else
			sb_printf(&d->out, "lock *(%s *)(r%d %+d) %s r%d", sz, in->dst_reg, in->off,
				  alu_ops[op >> 4], in->src_reg);
	} else {
		return bad(d, "invalid atomic operation 0x%x", (unsigned)in->imm);
	}
	return 1;
}

static int dis_stx(struct dis *d, const struct bpf_insn *in)
{
	if (BPF_MODE(in->code) == BPF_ATOMIC)
		return dis_atomic(d, in);
	if (BPF_MODE(in->code) != BPF_MEM)
		return invalid_code(d, in->code);
	if (reserved(d, in->imm, "imm"))
		return -EINVAL;
	sb_printf(&d->out, "*(%s *)(r%d %+d) = r%d", size_u[BPF_SIZE(in->code) >> 3], in->dst_reg, in->off,
		  in->src_reg);
	return 1;
}

/* The 64-bit immediate load; see the top of the file for the pseudo forms. */
static int dis_lddw(struct dis *d, const struct bpf_insn *in)
{
	if (d->idx + 1 >= d->cnt)
		return bad(d, "insn %zu: lddw without its second half", d->idx);

	const struct bpf_insn *hi = in + 1;
	uint64_t imm64 = (uint64_t)(uint32_t)hi->imm << 32 | (uint32_t)in->imm;
	bool imm2_used = in->src_reg == 0 || in->src_reg == BPF_PSEUDO_MAP_VALUE ||
			 in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE;

	if (in->src_reg > BPF_PSEUDO_MAP_IDX_VALUE)
		return bad(d, "invalid lddw src_reg %d", in->src_reg);
	if (reserved(d, in->off, "off") || reserved(d, hi->code, "code of second half") ||
	    reserved(d, hi->dst_reg || hi->src_reg || hi->off, "of second half") ||
	    reserved(d, !imm2_used && hi->imm, "imm of second half"))
		return -EINVAL;

	sb_printf(&d->out, "r%d = ", in->dst_reg);
	switch (in->src_reg) {
	case 0: sb_printf(&d->out, "0x%" PRIx64, imm64); break;
	case BPF_PSEUDO_MAP_FD: sb_printf(&d->out, "map[fd:%d]", in->imm); break;
	case BPF_PSEUDO_MAP_IDX: sb_printf(&d->out, "map[idx:%d]", in->imm); break;
	case BPF_PSEUDO_MAP_VALUE: sb_printf(&d->out, "map[fd:%d][0]+%u", in->imm, (uint32_t)hi->imm); break;
	case BPF_PSEUDO_MAP_IDX_VALUE: sb_printf(&d->out, "map[idx:%d][0]+%u", in->imm, (uint32_t)hi->imm); break;
	case BPF_PSEUDO_BTF_ID: sb_printf(&d->out, "btf_id[%d]", in->imm); break;
	case BPF_PSEUDO_FUNC:
		sb_printf(&d->out, "func ");
		if (put_target(d, in->imm))
			return -EINVAL;
		break;
	}
	return 2;
}

static int dis_ld(struct dis *d, const struct bpf_insn *in)
{
	uint8_t mode = BPF_MODE(in->code), size = BPF_SIZE(in->code);

	if (in->code == KBPF_LDDW_CODE)
		return dis_lddw(d, in);
	if ((mode != BPF_ABS && mode != BPF_IND) || size == BPF_DW)
		return invalid_code(d, in->code);
	if (reserved(d, in->dst_reg, "dst_reg") || reserved(d, in->off, "off") ||
	    reserved(d, mode == BPF_ABS && in->src_reg, "src_reg"))
		return -EINVAL;
	if (mode == BPF_ABS)
		sb_printf(&d->out, "r0 = *(%s *)skb[%d]", size_u[size >> 3], in->imm);
	else
		sb_printf(&d->out, "r0 = *(%s *)skb[r%d + %d]", size_u[size >> 3], in->src_reg, in->imm);
	return 1;
}

static const char *helper_name(const struct dis *d, int32_t id)
{
	const char *name = d->opts.helper_name ? d->opts.helper_name(d->opts.cookie, id) : NULL;

	if (!name)
		name = kbpf_helper_linux_name(id);
	return name ? name : "unknown";
}

static const char *kfunc_name(const struct dis *d, int32_t id)
{
	const char *name = d->opts.kfunc_name ? d->opts.kfunc_name(d->opts.cookie, id) : NULL;

	return name ? name : "kfunc";
}

static int dis_call(struct dis *d, const struct bpf_insn *in)
{
	if (BPF_CLASS(in->code) != BPF_JMP)
		return invalid_code(d, in->code);
	if (BPF_SRC(in->code) == BPF_X) {
		if (reserved(d, in->src_reg, "src_reg") || reserved(d, in->off, "off") ||
		    reserved(d, in->imm, "imm"))
			return -EINVAL;
		sb_printf(&d->out, "callx r%d", in->dst_reg);
		return 1;
	}
	if (reserved(d, in->dst_reg, "dst_reg"))
		return -EINVAL;
	switch (in->src_reg) {
	case 0:
		if (reserved(d, in->off, "off"))
			return -EINVAL;
		sb_printf(&d->out, "call %s#%d", helper_name(d, in->imm), in->imm);
		return 1;
	case BPF_PSEUDO_CALL:
		if (reserved(d, in->off, "off"))
			return -EINVAL;
		sb_printf(&d->out, "call ");
		return put_target(d, in->imm) ? -EINVAL : 1;
	case BPF_PSEUDO_KFUNC_CALL:
		sb_printf(&d->out, "call %s#%d", kfunc_name(d, in->imm), in->imm);
		if (in->off)
			sb_printf(&d->out, " off=%d", in->off);
		return 1;
	default:
		return bad(d, "invalid call src_reg %d", in->src_reg);
	}
}

static int dis_jmp(struct dis *d, const struct bpf_insn *in)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	char w = is32 ? 'w' : 'r';
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	if (op == BPF_CALL)
		return dis_call(d, in);
	if (op == BPF_EXIT) {
		if (is32 || x)
			return invalid_code(d, in->code);
		if (reserved(d, in->dst_reg || in->src_reg || in->off || in->imm, "operands"))
			return -EINVAL;
		sb_printf(&d->out, "exit");
		return 1;
	}
	if (op == BPF_JA) {
		if (x)
			return invalid_code(d, in->code);
		if (reserved(d, in->dst_reg || in->src_reg, "register") ||
		    reserved(d, is32 ? in->off : in->imm, is32 ? "off" : "imm"))
			return -EINVAL;
		sb_printf(&d->out, is32 ? "gotol " : "goto ");
		return put_target(d, is32 ? in->imm : in->off) ? -EINVAL : 1;
	}
	if (op == KBPF_JCOND) {
		/* may_goto (Linux 6.9+). The verifier's rewrite gives it its counter slot in imm:
		 * that form prints as ".insn", which keeps the bytes. */
		if (is32 || x || in->src_reg != KBPF_MAY_GOTO)
			return invalid_code(d, in->code);
		if (reserved(d, in->dst_reg, "register") || reserved(d, in->imm, "imm"))
			return -EINVAL;
		sb_printf(&d->out, "may_goto ");
		return put_target(d, in->off) ? -EINVAL : 1;
	}
	if (!jmp_ops[op >> 4])
		return invalid_code(d, in->code);
	if (x) {
		if (reserved(d, in->imm, "imm"))
			return -EINVAL;
		sb_printf(&d->out, "if %c%d %s %c%d goto ", w, in->dst_reg, jmp_ops[op >> 4], w, in->src_reg);
	} else {
		if (reserved(d, in->src_reg, "src_reg"))
			return -EINVAL;
		sb_printf(&d->out, "if %c%d %s 0x%x goto ", w, in->dst_reg, jmp_ops[op >> 4], (uint32_t)in->imm);
	}
	return put_target(d, in->off) ? -EINVAL : 1;
}

/* Decode d->insns[d->idx] into d->out (no index prefix). Returns slots used or -EINVAL
 * with the reason in d->why. */
static int dis_one(struct dis *d)
{
	const struct bpf_insn *in = &d->insns[d->idx];

	if (regs_ok(d, in))
		return -EINVAL;
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64: return dis_alu(d, in);
	case BPF_LDX: return dis_ldx(d, in);
	case BPF_ST: return dis_st(d, in);
	case BPF_STX: return dis_stx(d, in);
	case BPF_LD: return dis_ld(d, in);
	default: return dis_jmp(d, in); /* BPF_JMP, BPF_JMP32 */
	}
}

/* Copy the caller's options, honouring its sz (an older caller passes a shorter struct). */
static struct kbpf_disasm_opts opts_get(const struct kbpf_disasm_opts *o)
{
	struct kbpf_disasm_opts r;

	OPTS_COPY(&r, o);
	return r;
}

/* Decode into out (prefix included when with_index). Returns slots or -EINVAL. */
static int disasm_into(struct dis *d)
{
	if (d->opts.with_index)
		sb_printf(&d->out, "%zu: (%02x) ", d->idx, d->insns[d->idx].code);
	size_t mark = d->out.len;
	int n = dis_one(d);

	if (n < 0)
		d->out.len = mark; /* drop a partial line */
	return n;
}

int kbpf_insn_disasm(const struct bpf_insn *insns, size_t cnt, size_t idx, const struct kbpf_disasm_opts *opts,
		     char *buf, size_t size)
{
	struct dis d = {
		.insns = insns, .cnt = cnt, .idx = idx, .opts = opts_get(opts),
		.out = { .p = buf, .size = buf ? size : 0 },
	};

	if (!insns || idx >= cnt) {
		if (d.out.size)
			snprintf(buf, size, "insn %zu: index out of range", idx);
		return -EINVAL;
	}
	if (d.out.size)
		buf[0] = '\0';
	int n = disasm_into(&d);
	if (n < 0 && d.out.size)
		snprintf(buf, size, "%s", d.why);
	return n;
}

/* The raw form every instruction has: ".insn code, dst, src, off, imm". */
static void print_raw(FILE *out, const struct bpf_insn *in, size_t idx, bool with_index, const char *why)
{
	if (with_index)
		fprintf(out, "%zu: (%02x) ", idx, in->code);
	fprintf(out, ".insn 0x%02x, %d, %d, %d, %d ; %s\n", in->code, in->dst_reg, in->src_reg, in->off, in->imm,
		why);
}

/* Target slot of a decoded jump, call or func load at idx, or -1 if it has none. */
static int64_t insn_target(const struct bpf_insn *in, size_t idx)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if (in->code == KBPF_LDDW_CODE)
		return in->src_reg == BPF_PSEUDO_FUNC ? (int64_t)idx + 1 + in->imm : -1;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return -1;
	if (op == BPF_EXIT)
		return -1;
	if (op == BPF_CALL)
		return in->src_reg == BPF_PSEUDO_CALL && BPF_SRC(in->code) == BPF_K ? (int64_t)idx + 1 + in->imm : -1;
	if (op == BPF_JA && cls == BPF_JMP32)
		return (int64_t)idx + 1 + in->imm;
	return (int64_t)idx + 1 + in->off;
}

/* First passes of kbpf_prog_disasm: where instructions start (as the strict decoder
 * splits them) and which starts are jump targets that get a label line. */
static void find_labels(struct dis *d, uint8_t *starts, uint8_t *labels)
{
	char scratch[8];
	uint8_t *ok = labels; /* reuse: first "decoded ok", then "is a target" */
	int with_labels = d->opts.with_labels;

	d->opts.with_labels = 0; /* the text is thrown away; skip the label lookups */
	for (size_t i = 0; i < d->cnt;) {
		d->idx = i;
		d->out = (struct sbuf){ .p = scratch, .size = 0 };
		int n = dis_one(d);
		starts[i] = 1;
		ok[i] = n > 0;
		i += n > 0 ? (size_t)n : 1;
	}
	d->opts.with_labels = with_labels;
	for (size_t i = 0; i < d->cnt; i++) {
		if (!starts[i] || !(ok[i] & 1))
			continue;
		int64_t t = insn_target(&d->insns[i], i);
		if (t >= 0 && (uint64_t)t < d->cnt && starts[t])
			ok[t] |= 2;
	}
	for (size_t i = 0; i < d->cnt; i++)
		labels[i] = (ok[i] & 2) != 0;
}

int kbpf_prog_disasm(const struct bpf_insn *insns, size_t cnt, const struct kbpf_disasm_opts *opts, FILE *out)
{
	struct dis d = { .insns = insns, .cnt = cnt, .opts = opts_get(opts), .strict = true };
	uint8_t *starts = NULL, *labels = NULL;
	char line[512];
	int ret = 0;

	if ((!insns && cnt) || !out)
		return -EINVAL;
	if (d.opts.with_labels) {
		starts = calloc(cnt ? cnt : 1, 1);
		labels = calloc(cnt ? cnt : 1, 1);
		if (!starts || !labels) {
			free(starts);
			free(labels);
			return -ENOMEM;
		}
		find_labels(&d, starts, labels);
		d.labelable = labels;
	}
	for (size_t i = 0; i < cnt;) {
		if (labels && labels[i])
			fprintf(out, "LBB%zu:\n", i);
		d.idx = i;
		d.out = (struct sbuf){ .p = line, .size = sizeof(line) };
		int n = disasm_into(&d);
		if (n > 0) {
			fprintf(out, "%s\n", line);
			i += (size_t)n;
		} else {
			print_raw(out, &insns[i], i, d.opts.with_index, d.why);
			ret = -EINVAL;
			i++;
		}
	}
	free(starts);
	free(labels);
	return ret;
}
