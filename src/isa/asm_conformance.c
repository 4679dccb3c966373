/* SPDX-License-Identifier: Apache-2.0 */
/* The conformance-dialect assembler: the syntax of the bpf_conformance suite's
 * "-- asm" sections and of uBPF's assembler ("mov32 %r0, 1", "ldxw %r1, [%r2+4]",
 * "jne %r1, 0x2, L3", "lock fetch add [%r10-8], %r1", "call local func1").
 *
 * One line holds at most one label and one instruction; '#' starts a comment.
 * The text is parsed in one pass into instructions plus a list of label uses
 * ("fixups"); labels are then sorted and every use is resolved, so forward and
 * backward references cost the same.  The syntax is documented in docs/assembly.md
 * ("Conformance dialect"). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm_internal.h"

/* A piece of the input text (pointer and length; not NUL-terminated). */
struct slice {
	const char *s;
	size_t n;
};

struct label {
	struct slice name;
	size_t idx; /* instruction slot the label names */
	unsigned line;
};

/* A label use, resolved once all labels are known: either the 16-bit off (jumps)
 * or the 32-bit imm (ja32, call local) receives target - (idx + 1). */
struct fixup {
	struct slice name;
	size_t idx;
	unsigned line;
	bool in_imm;
};

struct asm_state {
	struct bpf_insn *insns;
	size_t cnt, cap;
	struct label *labels;
	size_t nlabels, labels_cap;
	struct fixup *fixups;
	size_t nfixups, fixups_cap;
	/* "exit" names the first exit instruction unless a label "exit:" exists, as in
	 * the bpf_conformance assembler (prime.data jumps to "exit" without defining it). */
	bool have_exit;
	size_t first_exit;
	unsigned line;
	char *err;
	size_t err_size;
};

/* ------------------------------------------------------------------------ */
/* Errors and storage                                                        */

static int asm_fail(struct asm_state *st, const char *fmt, ...)
{
	if (st->err && st->err_size) {
		int n = snprintf(st->err, st->err_size, "line %u: ", st->line);
		if (n >= 0 && (size_t)n < st->err_size) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(st->err + n, st->err_size - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static int oom(struct asm_state *st)
{
	if (st->err && st->err_size)
		snprintf(st->err, st->err_size, "line %u: out of memory", st->line);
	return -ENOMEM;
}

/* Make room for one more element of size elem in *arr (capacity *cap, used n). */
static int grow(struct asm_state *st, void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t new_cap;
	void *p;

	if (n < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 64;
	if (new_cap > SIZE_MAX / elem)
		return oom(st);
	p = realloc(*arr, new_cap * elem);
	if (!p)
		return oom(st);
	*arr = p;
	*cap = new_cap;
	return 0;
}

static int emit(struct asm_state *st, struct bpf_insn insn)
{
	int ret = grow(st, (void **)&st->insns, &st->cap, st->cnt, sizeof(insn));

	if (ret)
		return ret;
	st->insns[st->cnt++] = insn;
	return 0;
}

static int add_label(struct asm_state *st, struct slice name)
{
	int ret = grow(st, (void **)&st->labels, &st->labels_cap, st->nlabels, sizeof(struct label));

	if (ret)
		return ret;
	st->labels[st->nlabels++] = (struct label){ name, st->cnt, st->line };
	return 0;
}

/* Record that the instruction about to be emitted (index st->cnt) jumps to name. */
static int add_fixup(struct asm_state *st, struct slice name, bool in_imm)
{
	int ret = grow(st, (void **)&st->fixups, &st->fixups_cap, st->nfixups, sizeof(struct fixup));

	if (ret)
		return ret;
	st->fixups[st->nfixups++] = (struct fixup){ name, st->cnt, st->line, in_imm };
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Lexical helpers (no <ctype.h>: input bytes may be anything, including >0x7f) */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident_start(char c)
{
	return is_alpha(c) || c == '_' || c == '.';
}

static bool is_ident(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static struct slice trim(struct slice sl)
{
	while (sl.n && is_space(sl.s[0])) {
		sl.s++;
		sl.n--;
	}
	while (sl.n && is_space(sl.s[sl.n - 1]))
		sl.n--;
	return sl;
}

static bool slice_is(struct slice sl, const char *word)
{
	return sl.n == strlen(word) && !memcmp(sl.s, word, sl.n);
}

/* Split off the leading identifier-like word of *rest (letters, digits, '_', '.'). */
static struct slice take_word(struct slice *rest)
{
	struct slice word = { rest->s, 0 };

	while (word.n < rest->n && is_ident(rest->s[word.n]))
		word.n++;
	rest->s += word.n;
	rest->n -= word.n;
	*rest = trim(*rest);
	return word;
}

/* Length of the leading run of non-space characters (for quoting a bad token). */
static size_t token_len(struct slice sl)
{
	size_t n = 0;

	while (n < sl.n && !is_space(sl.s[n]))
		n++;
	return n;
}

static bool is_label_name(struct slice sl)
{
	if (!sl.n || !is_ident_start(sl.s[0]))
		return false;
	for (size_t i = 1; i < sl.n; i++)
		if (!is_ident(sl.s[i]))
			return false;
	return true;
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */

/* A number: optional sign, then decimal digits or 0x-prefixed hex digits.
 * Returns false on anything else or on overflow of 64 bits of magnitude. */
static bool parse_number(struct slice sl, bool *neg, uint64_t *mag)
{
	size_t i = 0;
	unsigned base = 10;
	uint64_t v = 0;

	*neg = false;
	if (i < sl.n && (sl.s[i] == '+' || sl.s[i] == '-'))
		*neg = sl.s[i++] == '-';
	if (i + 1 < sl.n && sl.s[i] == '0' && (sl.s[i + 1] == 'x' || sl.s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	if (i == sl.n)
		return false;
	for (; i < sl.n; i++) {
		int d = hex_value(sl.s[i]);
		if (d < 0 || (unsigned)d >= base)
			return false;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return false;
		v = v * base + (unsigned)d;
	}
	*mag = v;
	return true;
}

/* A signed value in [min, max] (max at most INT64_MAX). */
static int parse_signed(struct asm_state *st, struct slice sl, int64_t min, int64_t max,
			const char *what, int64_t *out)
{
	uint64_t mag;
	bool neg;
	bool ok;

	if (!parse_number(sl, &neg, &mag))
		return asm_fail(st, "invalid %s '%.*s'", what, (int)sl.n, sl.s);
	if (neg) /* |min| computed without overflowing int64 */
		ok = min < 0 ? mag <= (uint64_t)(-(min + 1)) + 1 : mag == 0;
	else
		ok = mag <= (uint64_t)max;
	if (!ok)
		return asm_fail(st, "%s '%.*s' out of range [%lld, %lld]", what, (int)sl.n, sl.s,
				(long long)min, (long long)max);
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

/* A 32-bit immediate: signed (-1) or unsigned (0xffffffff) spellings of the same bits. */
static int parse_imm32(struct asm_state *st, struct slice sl, int32_t *out)
{
	int64_t v;
	int ret = parse_signed(st, sl, INT32_MIN, UINT32_MAX, "immediate", &v);

	if (!ret)
		*out = (int32_t)(uint32_t)(uint64_t)v;
	return ret;
}

/* lddw's 64-bit immediate: any 64-bit pattern, written unsigned or negative. */
static int parse_imm64(struct asm_state *st, struct slice sl, uint64_t *out)
{
	bool neg;
	uint64_t mag;

	if (!parse_number(sl, &neg, &mag))
		return asm_fail(st, "invalid immediate '%.*s'", (int)sl.n, sl.s);
	if (neg && mag > (uint64_t)1 << 63)
		return asm_fail(st, "immediate '%.*s' out of range", (int)sl.n, sl.s);
	*out = neg ? 0 - mag : mag;
	return 0;
}

/* "%rN" (the '%' is optional), N in 0..10. */
static int parse_reg(struct asm_state *st, struct slice sl, uint8_t *out)
{
	struct slice d = sl;
	unsigned v = 0;

	if (d.n && d.s[0] == '%') {
		d.s++;
		d.n--;
	}
	if (d.n < 2 || d.n > 3 || d.s[0] != 'r')
		goto bad;
	for (size_t i = 1; i < d.n; i++) {
		if (!is_digit(d.s[i]))
			goto bad;
		v = v * 10 + (unsigned)(d.s[i] - '0');
	}
	if (v <= 10 && !(d.n == 3 && d.s[1] == '0')) {
		*out = (uint8_t)v;
		return 0;
	}
bad:
	return asm_fail(st, "invalid register '%.*s'", (int)sl.n, sl.s);
}

static bool is_reg(struct slice sl)
{
	return sl.n >= 2 && (sl.s[0] == '%' || (sl.s[0] == 'r' && is_digit(sl.s[1])));
}

/* "[%rN]", "[%rN+off]" or "[%rN-off]", spaces allowed inside the brackets. */
static int parse_mem(struct asm_state *st, struct slice sl, uint8_t *reg, int16_t *off)
{
	struct slice in, r;
	size_t i = 0;
	int64_t v = 0;
	int ret;

	if (sl.n < 2 || sl.s[0] != '[' || sl.s[sl.n - 1] != ']')
		return asm_fail(st, "invalid memory operand '%.*s' (expected [%%rN+off])", (int)sl.n, sl.s);
	in = trim((struct slice){ sl.s + 1, sl.n - 2 });
	while (i < in.n && in.s[i] != '+' && in.s[i] != '-')
		i++;
	r = trim((struct slice){ in.s, i });
	ret = parse_reg(st, r, reg);
	if (ret)
		return ret;
	if (i < in.n) {
		/* The sign belongs to the offset; a second sign ("+-4") is rejected. */
		struct slice num = trim((struct slice){ in.s + i + 1, in.n - i - 1 });
		if (!num.n || num.s[0] == '+' || num.s[0] == '-')
			return asm_fail(st, "invalid memory offset in '%.*s'", (int)sl.n, sl.s);
		ret = parse_signed(st, num, 0, (int64_t)INT16_MAX + (in.s[i] == '-'), "offset", &v);
		if (ret)
			return ret;
		if (in.s[i] == '-')
			v = -v;
	}
	*off = (int16_t)v;
	return 0;
}

/* A jump target: a signed offset ("+3", "-2", "7") or a label resolved later. */
static int parse_target(struct asm_state *st, struct slice sl, bool in_imm, int32_t *rel)
{
	int64_t v;
	int ret;

	*rel = 0;
	if (sl.n && (sl.s[0] == '+' || sl.s[0] == '-' || is_digit(sl.s[0]))) {
		ret = in_imm ? parse_signed(st, sl, INT32_MIN, INT32_MAX, "jump offset", &v)
			     : parse_signed(st, sl, INT16_MIN, INT16_MAX, "jump offset", &v);
		if (!ret)
			*rel = (int32_t)v;
		return ret;
	}
	if (!is_label_name(sl))
		return asm_fail(st, "invalid jump target '%.*s'", (int)sl.n, sl.s);
	return add_fixup(st, sl, in_imm);
}

/* ------------------------------------------------------------------------ */
/* Mnemonics                                                                 */

enum kind {
	K_ALU,   /* op dst, src|imm */
	K_NEG,   /* neg dst */
	K_END,   /* le16/be32/swap64 dst */
	K_MOVSX, /* movsx864 dst, src */
	K_LDDW,  /* lddw dst, imm64 */
	K_LDX,   /* ldxw dst, [src+off] */
	K_ST,    /* stw [dst+off], imm */
	K_STX,   /* stxw [dst+off], src */
	K_JA,    /* ja target (off) */
	K_JA32,  /* ja32 target (imm) */
	K_JCOND, /* jeq dst, src|imm, target */
	K_EXIT,
};

struct mnemonic {
	const char *name;
	enum kind kind;
	uint8_t code;
	int16_t off;
	int32_t imm;
};

/* Mnemonics spelled out in full; the ALU and conditional-jump families (with an
 * optional "32" suffix) come from the op tables below. */
static const struct mnemonic fixed_mnemonics[] = {
	{ "neg", K_NEG, BPF_ALU64 | BPF_NEG, 0, 0 },
	{ "neg32", K_NEG, BPF_ALU | BPF_NEG, 0, 0 },
	{ "le16", K_END, BPF_ALU | BPF_END | BPF_TO_LE, 0, 16 },
	{ "le32", K_END, BPF_ALU | BPF_END | BPF_TO_LE, 0, 32 },
	{ "le64", K_END, BPF_ALU | BPF_END | BPF_TO_LE, 0, 64 },
	{ "be16", K_END, BPF_ALU | BPF_END | BPF_TO_BE, 0, 16 },
	{ "be32", K_END, BPF_ALU | BPF_END | BPF_TO_BE, 0, 32 },
	{ "be64", K_END, BPF_ALU | BPF_END | BPF_TO_BE, 0, 64 },
	/* RFC 9669's unconditional byte swap; bpf_conformance spells it both ways. */
	{ "swap16", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 16 },
	{ "swap32", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 32 },
	{ "swap64", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 64 },
	{ "bswap16", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 16 },
	{ "bswap32", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 32 },
	{ "bswap64", K_END, BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 64 },
	/* movsx<from><width>: sign-extend the low <from> bits of src into a <width> dst. */
	{ "movsx864", K_MOVSX, BPF_ALU64 | BPF_MOV | BPF_X, 8, 0 },
	{ "movsx1664", K_MOVSX, BPF_ALU64 | BPF_MOV | BPF_X, 16, 0 },
	{ "movsx3264", K_MOVSX, BPF_ALU64 | BPF_MOV | BPF_X, 32, 0 },
	{ "movsx832", K_MOVSX, BPF_ALU | BPF_MOV | BPF_X, 8, 0 },
	{ "movsx1632", K_MOVSX, BPF_ALU | BPF_MOV | BPF_X, 16, 0 },
	{ "lddw", K_LDDW, BPF_LD | BPF_IMM | BPF_DW, 0, 0 },
	{ "ldxb", K_LDX, BPF_LDX | BPF_MEM | BPF_B, 0, 0 },
	{ "ldxh", K_LDX, BPF_LDX | BPF_MEM | BPF_H, 0, 0 },
	{ "ldxw", K_LDX, BPF_LDX | BPF_MEM | BPF_W, 0, 0 },
	{ "ldxdw", K_LDX, BPF_LDX | BPF_MEM | BPF_DW, 0, 0 },
	{ "ldxsb", K_LDX, BPF_LDX | BPF_MEMSX | BPF_B, 0, 0 },
	{ "ldxsh", K_LDX, BPF_LDX | BPF_MEMSX | BPF_H, 0, 0 },
	{ "ldxsw", K_LDX, BPF_LDX | BPF_MEMSX | BPF_W, 0, 0 },
	{ "stb", K_ST, BPF_ST | BPF_MEM | BPF_B, 0, 0 },
	{ "sth", K_ST, BPF_ST | BPF_MEM | BPF_H, 0, 0 },
	{ "stw", K_ST, BPF_ST | BPF_MEM | BPF_W, 0, 0 },
	{ "stdw", K_ST, BPF_ST | BPF_MEM | BPF_DW, 0, 0 },
	{ "stxb", K_STX, BPF_STX | BPF_MEM | BPF_B, 0, 0 },
	{ "stxh", K_STX, BPF_STX | BPF_MEM | BPF_H, 0, 0 },
	{ "stxw", K_STX, BPF_STX | BPF_MEM | BPF_W, 0, 0 },
	{ "stxdw", K_STX, BPF_STX | BPF_MEM | BPF_DW, 0, 0 },
	{ "ja", K_JA, BPF_JMP | BPF_JA, 0, 0 },
	{ "ja32", K_JA32, BPF_JMP32 | BPF_JA, 0, 0 },
	{ "exit", K_EXIT, BPF_JMP | BPF_EXIT, 0, 0 },
};

struct op_name {
	const char *name;
	uint8_t op;
	int16_t off; /* 1 selects the signed variant of div/mod (RFC 9669) */
};

static const struct op_name alu_ops[] = {
	{ "add", BPF_ADD, 0 }, { "sub", BPF_SUB, 0 }, { "mul", BPF_MUL, 0 },
	{ "div", BPF_DIV, 0 }, { "sdiv", BPF_DIV, 1 }, { "mod", BPF_MOD, 0 },
	{ "smod", BPF_MOD, 1 }, { "or", BPF_OR, 0 }, { "and", BPF_AND, 0 },
	{ "xor", BPF_XOR, 0 }, { "lsh", BPF_LSH, 0 }, { "rsh", BPF_RSH, 0 },
	{ "arsh", BPF_ARSH, 0 }, { "mov", BPF_MOV, 0 },
};

static const struct op_name jmp_ops[] = {
	{ "jeq", BPF_JEQ, 0 }, { "jne", BPF_JNE, 0 }, { "jset", BPF_JSET, 0 },
	{ "jgt", BPF_JGT, 0 }, { "jge", BPF_JGE, 0 }, { "jlt", BPF_JLT, 0 },
	{ "jle", BPF_JLE, 0 }, { "jsgt", BPF_JSGT, 0 }, { "jsge", BPF_JSGE, 0 },
	{ "jslt", BPF_JSLT, 0 }, { "jsle", BPF_JSLE, 0 },
};

static const struct op_name *find_op(const struct op_name *ops, size_t n, struct slice name)
{
	for (size_t i = 0; i < n; i++)
		if (slice_is(name, ops[i].name))
			return &ops[i];
	return NULL;
}

/* Look name up; fills *m. "add32"/"jeq32" select the 32-bit class. */
static bool find_mnemonic(struct slice name, struct mnemonic *m)
{
	const struct op_name *op;
	bool is32 = name.n > 2 && !memcmp(name.s + name.n - 2, "32", 2);
	struct slice base = { name.s, is32 ? name.n - 2 : name.n };

	for (size_t i = 0; i < sizeof(fixed_mnemonics) / sizeof(fixed_mnemonics[0]); i++) {
		if (slice_is(name, fixed_mnemonics[i].name)) {
			*m = fixed_mnemonics[i];
			return true;
		}
	}
	op = find_op(alu_ops, sizeof(alu_ops) / sizeof(alu_ops[0]), base);
	if (op) {
		*m = (struct mnemonic){ op->name, K_ALU, (uint8_t)((is32 ? BPF_ALU : BPF_ALU64) | op->op),
					op->off, 0 };
		return true;
	}
	op = find_op(jmp_ops, sizeof(jmp_ops) / sizeof(jmp_ops[0]), base);
	if (op) {
		*m = (struct mnemonic){ op->name, K_JCOND, (uint8_t)((is32 ? BPF_JMP32 : BPF_JMP) | op->op),
					0, 0 };
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------------ */
/* Instructions                                                              */

#define MAX_OPERANDS 3

/* Split rest on commas into operands; an empty one ("a,,b" or a trailing ',') is an error. */
static int split_operands(struct asm_state *st, struct slice rest, struct slice *ops, int *nops)
{
	*nops = 0;
	if (!rest.n)
		return 0;
	for (;;) {
		size_t i = 0;
		while (i < rest.n && rest.s[i] != ',')
			i++;
		if (*nops == MAX_OPERANDS)
			return asm_fail(st, "too many operands");
		ops[*nops] = trim((struct slice){ rest.s, i });
		if (!ops[*nops].n)
			return asm_fail(st, "empty operand");
		(*nops)++;
		if (i == rest.n)
			return 0;
		rest.s += i + 1;
		rest.n -= i + 1;
	}
}

static int want_operands(struct asm_state *st, struct slice name, int nops, int want)
{
	if (nops == want)
		return 0;
	return asm_fail(st, "'%.*s' takes %d operand%s, got %d", (int)name.n, name.s, want,
			want == 1 ? "" : "s", nops);
}

/* Operand counts by kind, in enum order. */
static const int operand_count[] = {
	[K_ALU] = 2, [K_NEG] = 1, [K_END] = 1, [K_MOVSX] = 2, [K_LDDW] = 2, [K_LDX] = 2,
	[K_ST] = 2, [K_STX] = 2, [K_JA] = 1, [K_JA32] = 1, [K_JCOND] = 3, [K_EXIT] = 0,
};

/* "src" operand of ALU and conditional jumps: a register selects BPF_X, else BPF_K. */
static int parse_src(struct asm_state *st, struct slice sl, struct bpf_insn *insn)
{
	if (is_reg(sl)) {
		uint8_t r = 0;
		int ret = parse_reg(st, sl, &r);
		insn->code |= BPF_X;
		insn->src_reg = r;
		return ret;
	}
	return parse_imm32(st, sl, &insn->imm);
}

static int encode_lddw(struct asm_state *st, const struct slice *ops, struct bpf_insn *insn)
{
	uint64_t imm = 0;
	uint8_t dst = 0;
	int ret = parse_reg(st, ops[0], &dst);

	if (!ret)
		ret = parse_imm64(st, ops[1], &imm);
	if (ret)
		return ret;
	insn->dst_reg = dst;
	insn->imm = (int32_t)(uint32_t)imm;
	ret = emit(st, *insn);
	if (ret)
		return ret;
	return emit(st, (struct bpf_insn){ .imm = (int32_t)(uint32_t)(imm >> 32) });
}

/* Encode one instruction of kind m->kind from its operands and emit it. */
static int encode(struct asm_state *st, const struct mnemonic *m, const struct slice *ops)
{
	struct bpf_insn insn = { .code = m->code, .off = m->off, .imm = m->imm };
	uint8_t r = 0;
	int ret = 0;

	switch (m->kind) {
	case K_ALU:
		ret = parse_reg(st, ops[0], &r);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_src(st, ops[1], &insn);
		break;
	case K_NEG:
	case K_END:
		ret = parse_reg(st, ops[0], &r);
		insn.dst_reg = r;
		break;
	case K_MOVSX:
		ret = parse_reg(st, ops[0], &r);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_reg(st, ops[1], &r);
		insn.src_reg = r;
		break;
	case K_LDDW:
		return encode_lddw(st, ops, &insn);
	case K_LDX:
		ret = parse_reg(st, ops[0], &r);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_mem(st, ops[1], &r, &insn.off);
		insn.src_reg = r;
		break;
	case K_ST:
		ret = parse_mem(st, ops[0], &r, &insn.off);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_imm32(st, ops[1], &insn.imm);
		break;
	case K_STX:
		ret = parse_mem(st, ops[0], &r, &insn.off);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_reg(st, ops[1], &r);
		insn.src_reg = r;
		break;
	case K_JA: {
		int32_t rel = 0;
		ret = parse_target(st, ops[0], false, &rel);
		insn.off = (int16_t)rel;
		break;
	}
	case K_JA32:
		ret = parse_target(st, ops[0], true, &insn.imm);
		break;
	case K_JCOND: {
		int32_t rel = 0;
		ret = parse_reg(st, ops[0], &r);
		insn.dst_reg = r;
		if (!ret)
			ret = parse_src(st, ops[1], &insn);
		if (!ret)
			ret = parse_target(st, ops[2], false, &rel);
		insn.off = (int16_t)rel;
		break;
	}
	case K_EXIT:
		if (!st->have_exit) {
			st->have_exit = true;
			st->first_exit = st->cnt;
		}
		break;
	}
	return ret ? ret : emit(st, insn);
}

/* "call N" / "call helper N": helper; "call local T": BPF-to-BPF call (src_reg 1,
 * imm = target - (pc + 1)); "call runtime N": kfunc by BTF id (src_reg 2);
 * "call %rN": callx, the register in dst_reg as bpf_conformance and LLVM >= 19
 * encode it (older LLVM put it in imm). */
static int encode_call(struct asm_state *st, struct slice rest)
{
	struct bpf_insn insn = { .code = BPF_JMP | BPF_CALL };
	struct slice after = rest, mode = take_word(&after);
	uint8_t r = 0;
	int ret;

	if (slice_is(mode, "local")) {
		if (!after.n)
			return asm_fail(st, "'call local' needs a target");
		insn.src_reg = BPF_PSEUDO_CALL;
		ret = parse_target(st, after, true, &insn.imm);
		return ret ? ret : emit(st, insn);
	}
	if (slice_is(mode, "runtime")) {
		insn.src_reg = BPF_PSEUDO_KFUNC_CALL;
		rest = after;
	} else if (slice_is(mode, "helper")) {
		rest = after;
	}
	if (!rest.n)
		return asm_fail(st, "'call' needs a target");
	if (is_reg(rest) && insn.src_reg == 0) {
		ret = parse_reg(st, rest, &r);
		insn.code |= BPF_X;
		insn.dst_reg = r;
	} else {
		ret = parse_imm32(st, rest, &insn.imm);
	}
	return ret ? ret : emit(st, insn);
}

struct atomic_op {
	const char *name;
	int32_t imm;
	bool fetch_only; /* xchg and cmpxchg always fetch */
};

static const struct atomic_op atomic_ops[] = {
	{ "add", BPF_ADD, false }, { "or", BPF_OR, false },      { "and", BPF_AND, false },
	{ "xor", BPF_XOR, false }, { "xchg", BPF_XCHG, true },   { "cmpxchg", BPF_CMPXCHG, true },
};

/* "lock [fetch] OP[32] [%rD+off], %rS": an atomic read-modify-write of memory. */
static int encode_lock(struct asm_state *st, struct slice rest)
{
	struct bpf_insn insn = { 0 };
	struct slice ops[MAX_OPERANDS], word = take_word(&rest), base;
	bool fetch = false, is32;
	const struct atomic_op *op = NULL;
	uint8_t r = 0;
	int nops, ret;

	if (slice_is(word, "fetch")) {
		fetch = true;
		word = take_word(&rest);
	}
	if (!word.n)
		return asm_fail(st, "'lock' needs an operation (add, or, and, xor, xchg, cmpxchg)");
	is32 = word.n > 2 && !memcmp(word.s + word.n - 2, "32", 2);
	base = (struct slice){ word.s, is32 ? word.n - 2 : word.n };
	for (size_t i = 0; i < sizeof(atomic_ops) / sizeof(atomic_ops[0]); i++)
		if (slice_is(base, atomic_ops[i].name))
			op = &atomic_ops[i];
	if (!op)
		return asm_fail(st, "unknown atomic operation '%.*s'", (int)word.n, word.s);
	ret = split_operands(st, rest, ops, &nops);
	if (!ret)
		ret = want_operands(st, (struct slice){ "lock", 4 }, nops, 2);
	if (!ret)
		ret = parse_mem(st, ops[0], &r, &insn.off);
	insn.dst_reg = r;
	if (!ret)
		ret = parse_reg(st, ops[1], &r);
	if (ret)
		return ret;
	insn.src_reg = r;
	insn.code = BPF_STX | BPF_ATOMIC | (is32 ? BPF_W : BPF_DW);
	insn.imm = op->imm | (fetch && !op->fetch_only ? BPF_FETCH : 0);
	return emit(st, insn);
}

/* One instruction (no label, no comment, already trimmed). */
static int assemble_insn(struct asm_state *st, struct slice text)
{
	struct slice ops[MAX_OPERANDS], rest = text, name = take_word(&rest);
	struct mnemonic m;
	int nops, ret;

	if (!name.n)
		return asm_fail(st, "expected an instruction, found '%.*s'", (int)text.n, text.s);
	if (name.n < text.n && !is_space(text.s[name.n]))
		return asm_fail(st, "unknown mnemonic '%.*s'", (int)token_len(text), text.s);
	if (slice_is(name, "call"))
		return encode_call(st, rest);
	if (slice_is(name, "lock"))
		return encode_lock(st, rest);
	if (!find_mnemonic(name, &m))
		return asm_fail(st, "unknown mnemonic '%.*s'", (int)name.n, name.s);
	ret = split_operands(st, rest, ops, &nops);
	if (!ret)
		ret = want_operands(st, name, nops, operand_count[m.kind]);
	return ret ? ret : encode(st, &m, ops);
}

/* One source line: optional "label:", optional instruction, optional '#' comment. */
static int assemble_line(struct asm_state *st, struct slice line)
{
	const char *hash = memchr(line.s, '#', line.n);
	struct slice rest, word;

	if (hash)
		line.n = (size_t)(hash - line.s);
	line = trim(line);
	rest = line;
	word = take_word(&rest);
	if (word.n && rest.n && rest.s[0] == ':') {
		int ret;
		if (!is_label_name(word))
			return asm_fail(st, "invalid label name '%.*s'", (int)word.n, word.s);
		ret = add_label(st, word);
		if (ret)
			return ret;
		line = trim((struct slice){ rest.s + 1, rest.n - 1 });
	}
	return line.n ? assemble_insn(st, line) : 0;
}

/* ------------------------------------------------------------------------ */
/* Label resolution                                                          */

static int cmp_slice(struct slice a, struct slice b)
{
	int c = memcmp(a.s, b.s, a.n < b.n ? a.n : b.n);

	return c ? c : (a.n > b.n) - (a.n < b.n);
}

/* By name, then by line so a duplicate's later definition follows its first. */
static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	int c = cmp_slice(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_key_label(const void *key, const void *elem)
{
	return cmp_slice(*(const struct slice *)key, ((const struct label *)elem)->name);
}

static int check_duplicates(struct asm_state *st)
{
	for (size_t i = 1; i < st->nlabels; i++) {
		const struct label *a = &st->labels[i - 1], *b = &st->labels[i];
		if (!cmp_slice(a->name, b->name)) {
			st->line = b->line;
			return asm_fail(st, "duplicate label '%.*s' (first defined at line %u)",
					(int)b->name.n, b->name.s, a->line);
		}
	}
	return 0;
}

static int resolve_fixup(struct asm_state *st, const struct fixup *f)
{
	const struct label *l = NULL;
	struct bpf_insn *insn = &st->insns[f->idx];
	int64_t target, rel;

	if (st->nlabels)
		l = bsearch(&f->name, st->labels, st->nlabels, sizeof(*l), cmp_key_label);
	st->line = f->line;
	if (l)
		target = (int64_t)l->idx;
	else if (st->have_exit && slice_is(f->name, "exit"))
		target = (int64_t)st->first_exit;
	else
		return asm_fail(st, "undefined label '%.*s'", (int)f->name.n, f->name.s);
	rel = target - ((int64_t)f->idx + 1);
	if (f->in_imm) {
		if (rel < INT32_MIN || rel > INT32_MAX)
			return asm_fail(st, "jump to '%.*s' is too far for a 32-bit offset", (int)f->name.n,
					f->name.s);
		insn->imm = (int32_t)rel;
	} else {
		if (rel < INT16_MIN || rel > INT16_MAX)
			return asm_fail(st, "jump to '%.*s' is too far for a 16-bit offset (use ja32)",
					(int)f->name.n, f->name.s);
		insn->off = (int16_t)rel;
	}
	return 0;
}

static int resolve_labels(struct asm_state *st)
{
	int ret;

	if (st->nlabels)
		qsort(st->labels, st->nlabels, sizeof(*st->labels), cmp_label);
	ret = check_duplicates(st);
	for (size_t i = 0; !ret && i < st->nfixups; i++)
		ret = resolve_fixup(st, &st->fixups[i]);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */

static int assemble_text(struct asm_state *st, const char *text)
{
	const char *p = text;
	int ret = 0;

	while (!ret && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		st->line++;
		ret = assemble_line(st, (struct slice){ p, n });
		p += n + (nl != NULL);
	}
	if (ret)
		return ret;
	if (!st->cnt) {
		st->line = st->line ? st->line : 1;
		return asm_fail(st, "no instructions");
	}
	return resolve_labels(st);
}

int kbpf_asm_conformance(const char *text, struct bpf_insn **insns, size_t *cnt, char *err,
			 size_t err_size)
{
	struct asm_state st = { .err = err, .err_size = err_size };
	int ret;

	if (err && err_size)
		err[0] = 0;
	if (!insns || !cnt)
		return -EINVAL;
	*insns = NULL;
	*cnt = 0;
	if (!text) {
		st.line = 1;
		return asm_fail(&st, "no text");
	}
	ret = assemble_text(&st, text);
	free(st.labels);
	free(st.fixups);
	if (ret) {
		free(st.insns);
		return ret;
	}
	*insns = st.insns;
	*cnt = st.cnt;
	return 0;
}

/* Words that begin an instruction only in this dialect (pseudo-C lines begin with a
 * register, "if", "goto", "call", "exit", "*(" or "lock *("). */
static bool is_dialect_word(struct slice word)
{
	struct mnemonic m;

	if (slice_is(word, "exit") || slice_is(word, "call") || slice_is(word, "lock"))
		return false;
	return find_mnemonic(word, &m);
}

/* The first word of an instruction line, after an optional "label:". */
static struct slice first_word(struct slice line)
{
	struct slice word = take_word(&line);

	if (word.n && line.n && line.s[0] == ':') {
		line = trim((struct slice){ line.s + 1, line.n - 1 });
		word = take_word(&line);
	}
	return word;
}

int kbpf_asm_is_conformance(const char *text)
{
	const char *p = text;

	if (!text)
		return 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *hash = memchr(p, '#', n);
		struct slice line = trim((struct slice){ p, hash ? (size_t)(hash - p) : n });

		p += n + (nl != NULL);
		/* Pseudo-C never writes '%' before a register. */
		for (size_t i = 0; i + 1 < line.n; i++)
			if (line.s[i] == '%' && line.s[i + 1] == 'r')
				return 1;
		if (is_dialect_word(first_word(line)))
			return 1;
	}
	return 0;
}
