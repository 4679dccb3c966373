/* SPDX-License-Identifier: Apache-2.0 */
/* Pseudo-C assembler: reads what disasm.c prints (Linux's verifier-log syntax plus kbpf's
 * forms for pseudo LDDWs and kfunc calls), bpftool's "N: (code) " prefixes, and
 * llvm-objdump -d output (addresses and hex bytes skipped, "goto +3", "r1 = 0 ll",
 * "<LBB0_2>" labels, "w0 = w1", "call 1", LLVM's atomic spellings).  The syntax is
 * described for users in docs/assembly.md.
 *
 * The whole text is copied once and split into NUL-terminated lines, so every parser
 * step reads inside one string and stops at its NUL; parsing is iterative (no
 * recursion).  Labels and jump targets are resolved after the last line. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "isa/asm_internal.h"

struct label {
	const char *name; /* points into the text copy; not NUL-terminated */
	size_t len, slot;
	int line;
};

/* A jump or call operand to patch once every label is known. */
enum fix_kind {
	FIX_OFF,  /* 16-bit insn->off: goto, if ... goto */
	FIX_IMM,  /* 32-bit insn->imm: gotol, call pc+N, r1 = func ... */
	FIX_CALL, /* "call name": a label (BPF-to-BPF call) or else a helper by Linux name */
};

struct fixup {
	const char *name; /* label, or NULL for a numeric relative offset in rel */
	size_t len, slot;
	int64_t rel;
	int line;
	enum fix_kind kind;
};

struct asm_ctx {
	struct bpf_insn *insns;
	size_t cnt, cap;
	struct label *labels;
	size_t nlabels, labels_cap;
	size_t *hash; /* open addressing over labels: index + 1, 0 = empty */
	size_t hash_cap;
	struct fixup *fix;
	size_t nfix, fix_cap;
	int line;
	int err; /* first error: -EINVAL or -ENOMEM */
	char msg[256];
};

/* Parser cursor over one NUL-terminated line. */
struct ps {
	const char *p;
	struct asm_ctx *a;
	/* The instruction bytes on an llvm-objdump line: "<unknown>" and "call N" need them. */
	uint8_t bytes[16];
	int nbytes;
};

static bool fail(struct asm_ctx *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct asm_ctx *a, const char *fmt, ...)
{
	va_list ap;

	if (a->err)
		return false;
	a->err = -EINVAL;
	int n = snprintf(a->msg, sizeof(a->msg), "line %d: ", a->line);
	va_start(ap, fmt);
	vsnprintf(a->msg + n, sizeof(a->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static bool nomem(struct asm_ctx *a)
{
	if (!a->err) {
		a->err = -ENOMEM;
		snprintf(a->msg, sizeof(a->msg), "out of memory");
	}
	return false;
}

/* Ensure room for one more element in a growable array. */
static bool grow(struct asm_ctx *a, void **arr, size_t *cap, size_t used, size_t elem)
{
	if (used < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 64;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return nomem(a);
	void *n = realloc(*arr, ncap * elem);
	if (!n)
		return nomem(a);
	*arr = n;
	*cap = ncap;
	return true;
}

/* --- characters and tokens --- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_val(char c)
{
	return is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static bool is_ident0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
}

static bool is_ident(char c)
{
	return is_ident0(c) || is_digit(c);
}

static void skip_ws(struct ps *ps)
{
	while (is_space(*ps->p))
		ps->p++;
}

static bool at_end(struct ps *ps)
{
	skip_ws(ps);
	return !*ps->p;
}

/* Consume literal punctuation (after blanks) if it is next. */
static bool eat(struct ps *ps, const char *lit)
{
	size_t n = strlen(lit);

	skip_ws(ps);
	if (strncmp(ps->p, lit, n))
		return false;
	ps->p += n;
	return true;
}

/* Consume a whole word (not the prefix of a longer identifier). */
static bool eat_word(struct ps *ps, const char *word)
{
	size_t n = strlen(word);

	skip_ws(ps);
	if (strncmp(ps->p, word, n) || is_ident(ps->p[n]))
		return false;
	ps->p += n;
	return true;
}

static bool expect(struct ps *ps, const char *lit)
{
	if (eat(ps, lit))
		return true;
	return fail(ps->a, "expected '%s' at '%.32s'", lit, ps->p);
}

/* Read an identifier; returns its length (0 if none is next). */
static size_t read_ident(struct ps *ps, const char **s)
{
	skip_ws(ps);
	*s = ps->p;
	if (!is_ident0(*ps->p))
		return 0;
	while (is_ident(*ps->p))
		ps->p++;
	return (size_t)(ps->p - *s);
}

static bool word_is(const char *s, size_t len, const char *w)
{
	return strlen(w) == len && !memcmp(s, w, len);
}

/* --- numbers --- */

struct num {
	bool neg, hex;
	uint64_t mag;
	const char *s; /* the text, for messages */
	int len;
};

/* Does a number (optionally signed) start here? */
static bool peek_num(struct ps *ps)
{
	skip_ws(ps);
	const char *p = ps->p;
	if (*p == '-' || *p == '+')
		p++;
	return is_digit(*p);
}

/* Decimal or 0x hex, optionally signed; magnitude up to 2^64-1. */
static bool get_num(struct ps *ps, struct num *n)
{
	const char *p;
	bool over = false;

	skip_ws(ps);
	p = n->s = ps->p;
	n->neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	n->mag = 0;
	n->hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	if (n->hex) {
		p += 2;
		if (!is_xdigit(*p))
			return fail(ps->a, "bad number '%.32s'", n->s);
		for (; is_xdigit(*p); p++) {
			unsigned d = hex_val(*p);
			over |= n->mag > UINT64_MAX >> 4;
			n->mag = n->mag << 4 | d;
		}
	} else {
		if (!is_digit(*p))
			return fail(ps->a, "expected a number at '%.32s'", n->s);
		for (; is_digit(*p); p++) {
			unsigned d = (unsigned)(*p - '0');
			over |= n->mag > (UINT64_MAX - d) / 10;
			n->mag = n->mag * 10 + d;
		}
	}
	if (is_ident(*p))
		return fail(ps->a, "bad number '%.32s'", n->s);
	n->len = (int)(p - n->s);
	ps->p = p;
	if (over)
		return fail(ps->a, "value %.*s out of range", n->len, n->s);
	return true;
}

static bool range_fail(struct ps *ps, const struct num *n, const char *what)
{
	return fail(ps->a, "value %.*s out of range for %s", n->len, n->s, what);
}

/* Signed value of n if it lies in [lo, hi]. */
static bool num_in(const struct num *n, int64_t lo, int64_t hi, int64_t *v)
{
	if (n->neg) {
		if (n->mag > (uint64_t)INT64_MAX + 1 || (n->mag && -(int64_t)(n->mag - 1) - 1 < lo))
			return false;
		*v = n->mag ? -(int64_t)(n->mag - 1) - 1 : 0;
		return true;
	}
	if (n->mag > (uint64_t)hi)
		return false;
	*v = (int64_t)n->mag;
	return *v >= lo;
}

/* A 32-bit immediate: signed or unsigned ("0xffffffff" is -1). */
static bool to_imm32(struct ps *ps, const struct num *n, int32_t *out)
{
	int64_t v;

	if (!num_in(n, INT32_MIN, UINT32_MAX, &v))
		return range_fail(ps, n, "a 32-bit immediate");
	*out = (int32_t)(uint32_t)v;
	return true;
}

static bool to_off16(struct ps *ps, const struct num *n, int16_t *out)
{
	int64_t v;

	if (!num_in(n, INT16_MIN, INT16_MAX, &v))
		return range_fail(ps, n, "a 16-bit offset");
	*out = (int16_t)v;
	return true;
}

/* --- registers --- */

/* 1: a register was read; 0: none is next (nothing consumed); -1: bad register. */
static int try_reg(struct ps *ps, int *reg, bool *w)
{
	skip_ws(ps);
	const char *p = ps->p;
	int v = 0;

	if ((*p != 'r' && *p != 'w') || !is_digit(p[1]))
		return 0;
	const char *q = p + 1;
	for (; is_digit(*q); q++)
		if (v < 1000) /* enough to tell r10 from r11 without overflowing */
			v = v * 10 + (*q - '0');
	if (is_ident(*q))
		return 0; /* an identifier such as "r1x" */
	if (v > BPF_REG_10 || (q - p > 2 && p[1] == '0')) {
		fail(ps->a, "bad register '%.*s'", (int)(q - p), p);
		return -1;
	}
	*reg = v;
	*w = *p == 'w';
	ps->p = q;
	return 1;
}

static bool need_reg(struct ps *ps, int *reg, bool *w)
{
	int r = try_reg(ps, reg, w);

	if (r == 0)
		fail(ps->a, "expected a register at '%.32s'", ps->p);
	return r > 0;
}

/* A register that must be 64-bit (a base address, or Linux's 64-bit-only forms). */
static bool need_reg64(struct ps *ps, int *reg)
{
	bool w;
	const char *at;

	skip_ws(ps);
	at = ps->p;
	if (!need_reg(ps, reg, &w))
		return false;
	if (w)
		return fail(ps->a, "expected a 64-bit register at '%.32s'", at);
	return true;
}

static bool same_width(struct ps *ps, bool w1, bool w2)
{
	if (w1 != w2)
		return fail(ps->a, "mixed 32-bit and 64-bit registers");
	return true;
}

/* --- emission and labels --- */

static bool emit(struct asm_ctx *a, uint8_t code, int dst, int src, int16_t off, int32_t imm)
{
	if (!grow(a, (void **)&a->insns, &a->cap, a->cnt, sizeof(*a->insns)))
		return false;
	a->insns[a->cnt++] = (struct bpf_insn){
		.code = code, .dst_reg = (uint8_t)dst, .src_reg = (uint8_t)src, .off = off, .imm = imm,
	};
	return true;
}

static bool emit_lddw(struct asm_ctx *a, int dst, int src, uint64_t imm64)
{
	return emit(a, KBPF_LDDW_CODE, dst, src, 0, (int32_t)(uint32_t)imm64) &&
	       emit(a, 0, 0, 0, 0, (int32_t)(uint32_t)(imm64 >> 32));
}

/* Jump target as written: a label name or a relative offset. */
struct target {
	const char *name;
	size_t len;
	int64_t rel;
	const char *s; /* the text, for messages */
};

/* Record that the operand of the instruction emitted last (slot) needs patching. */
static bool add_fix(struct asm_ctx *a, enum fix_kind kind, const struct target *t, size_t slot)
{
	if (!grow(a, (void **)&a->fix, &a->fix_cap, a->nfix, sizeof(*a->fix)))
		return false;
	a->fix[a->nfix++] = (struct fixup){
		.name = t->name, .len = t->len, .slot = slot, .rel = t->rel, .line = a->line, .kind = kind,
	};
	return true;
}

static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

/* Index of label name in a->labels, or -1. */
static ptrdiff_t label_find(const struct asm_ctx *a, const char *name, size_t len)
{
	if (!a->hash_cap)
		return -1;
	size_t mask = a->hash_cap - 1;
	for (size_t i = hash_name(name, len) & mask;; i = (i + 1) & mask) {
		size_t e = a->hash[i];
		if (!e)
			return -1;
		const struct label *l = &a->labels[e - 1];
		if (l->len == len && !memcmp(l->name, name, len))
			return (ptrdiff_t)(e - 1);
	}
}

static void hash_put(struct asm_ctx *a, size_t idx)
{
	size_t mask = a->hash_cap - 1;
	size_t i = hash_name(a->labels[idx].name, a->labels[idx].len) & mask;

	while (a->hash[i])
		i = (i + 1) & mask;
	a->hash[i] = idx + 1;
}

/* Keep the table at most half full so probing stays short. */
static bool hash_grow(struct asm_ctx *a)
{
	if ((a->nlabels + 1) * 2 <= a->hash_cap)
		return true;
	size_t ncap = a->hash_cap ? a->hash_cap * 2 : 64;
	size_t *n = ncap < SIZE_MAX / sizeof(*n) ? calloc(ncap, sizeof(*n)) : NULL;
	if (!n)
		return nomem(a);
	free(a->hash);
	a->hash = n;
	a->hash_cap = ncap;
	for (size_t i = 0; i < a->nlabels; i++)
		hash_put(a, i);
	return true;
}

static bool label_define(struct asm_ctx *a, const char *name, size_t len)
{
	ptrdiff_t old = label_find(a, name, len);

	if (old >= 0)
		return fail(a, "duplicate label '%.*s' (first defined at line %d)", (int)len, name,
			    a->labels[old].line);
	if (!hash_grow(a) || !grow(a, (void **)&a->labels, &a->labels_cap, a->nlabels, sizeof(*a->labels)))
		return false;
	a->labels[a->nlabels] = (struct label){ .name = name, .len = len, .slot = a->cnt, .line = a->line };
	hash_put(a, a->nlabels++);
	return true;
}

/* --- operands --- */

/* "pc+3", "+3", "-3", "3", "LBB7", "<LBB0_2>"; llvm's "+3 <LBB0_2>" uses the number. */
static bool parse_target(struct ps *ps, struct target *t)
{
	struct num n;

	skip_ws(ps);
	*t = (struct target){ .s = ps->p };
	if (eat(ps, "<")) {
		t->len = read_ident(ps, &t->name);
		if (!t->len)
			return fail(ps->a, "expected a label at '%.32s'", t->s);
		return expect(ps, ">");
	}
	if (ps->p[0] == 'p' && ps->p[1] == 'c' && (ps->p[2] == '+' || ps->p[2] == '-'))
		ps->p += 2;
	else if (!peek_num(ps)) {
		t->len = read_ident(ps, &t->name);
		return t->len ? true : fail(ps->a, "expected a jump target at '%.32s'", t->s);
	}
	if (!get_num(ps, &n))
		return false;
	if (!num_in(&n, INT32_MIN, INT32_MAX, &t->rel))
		return range_fail(ps, &n, "a jump offset");
	if (eat(ps, "<")) { /* llvm-objdump's symbolized target: the number already says it */
		while (*ps->p && *ps->p != '>')
			ps->p++;
		return expect(ps, ">");
	}
	return true;
}

/* "(u32 *)": access size, and whether the type is signed (s8/s16/s32). */
static bool parse_cast(struct ps *ps, int *size, bool *sx)
{
	static const struct {
		const char *name;
		int size;
		bool sx;
	} types[] = {
		{ "u8", BPF_B, false }, { "u16", BPF_H, false }, { "u32", BPF_W, false }, { "u64", BPF_DW, false },
		{ "s8", BPF_B, true },	{ "s16", BPF_H, true },	 { "s32", BPF_W, true },
	};
	const char *s;
	size_t len;

	if (!expect(ps, "("))
		return false;
	len = read_ident(ps, &s);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (word_is(s, len, types[i].name)) {
			*size = types[i].size;
			*sx = types[i].sx;
			return expect(ps, "*") && expect(ps, ")");
		}
	}
	return fail(ps->a, "unknown access size '%.*s'", (int)len, s);
}

/* "r1", "r1 +4", "r1 - 4", "r1 + -4": base register and signed offset. */
static bool parse_addr(struct ps *ps, int *base, int16_t *off)
{
	struct num n;

	*off = 0;
	if (!need_reg64(ps, base))
		return false;
	skip_ws(ps);
	if (*ps->p != '+' && *ps->p != '-')
		return true;
	bool minus = *ps->p++ == '-';
	if (!get_num(ps, &n))
		return false;
	n.neg ^= minus;
	return to_off16(ps, &n, off);
}

/* "(r1 +4)" */
static bool parse_mem(struct ps *ps, int *base, int16_t *off)
{
	return expect(ps, "(") && parse_addr(ps, base, off) && expect(ps, ")");
}

/* --- statements --- */

static bool parse_exit(struct ps *ps)
{
	return emit(ps->a, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

static bool parse_goto(struct ps *ps, bool is_long)
{
	struct target t;

	if (!parse_target(ps, &t))
		return false;
	if (!t.name && !is_long && (t.rel < INT16_MIN || t.rel > INT16_MAX))
		return fail(ps->a, "jump offset %" PRId64 " out of range for a 16-bit offset (use gotol)", t.rel);
	size_t slot = ps->a->cnt;
	if (is_long)
		return emit(ps->a, BPF_JMP32 | BPF_JA, 0, 0, 0, 0) && add_fix(ps->a, FIX_IMM, &t, slot);
	return emit(ps->a, BPF_JMP | BPF_JA, 0, 0, 0, 0) && add_fix(ps->a, FIX_OFF, &t, slot);
}

/* "may_goto pc+3" / "may_goto LABEL": BPF_JMP | BPF_JCOND, src_reg BPF_MAY_GOTO (0) */
static bool parse_may_goto(struct ps *ps)
{
	struct target t;

	if (!parse_target(ps, &t))
		return false;
	if (!t.name && (t.rel < INT16_MIN || t.rel > INT16_MAX))
		return fail(ps->a, "jump offset %" PRId64 " out of range for a 16-bit offset", t.rel);
	size_t slot = ps->a->cnt;
	return emit(ps->a, BPF_JMP | KBPF_JCOND, 0, 0, 0, 0) && add_fix(ps->a, FIX_OFF, &t, slot);
}

/* "if r1 > 0x2 goto pc+3", "if w1 s< w2 goto LBB4" */
static bool parse_if(struct ps *ps)
{
	static const struct {
		const char *op;
		uint8_t code;
	} ops[] = { /* longest first, so "s>=" is not read as "s>" */
		    { "s>=", BPF_JSGE }, { "s<=", BPF_JSLE }, { "s>", BPF_JSGT }, { "s<", BPF_JSLT },
		    { ">=", BPF_JGE },	 { "<=", BPF_JLE },   { "==", BPF_JEQ },  { "!=", BPF_JNE },
		    { ">", BPF_JGT },	 { "<", BPF_JLT },    { "&", BPF_JSET },
	};
	int dst, src = 0, found = -1;
	bool w, w2;
	int32_t imm = 0;
	struct num n;
	struct target t;

	if (!need_reg(ps, &dst, &w))
		return false;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && found < 0; i++)
		if (eat(ps, ops[i].op))
			found = (int)i;
	if (found < 0)
		return fail(ps->a, "unknown comparison at '%.32s'", ps->p);
	int r = try_reg(ps, &src, &w2);
	if (r < 0 || (r > 0 && !same_width(ps, w, w2)))
		return false;
	if (r == 0 && !(get_num(ps, &n) && to_imm32(ps, &n, &imm)))
		return false;
	if (!eat_word(ps, "goto"))
		return fail(ps->a, "expected 'goto' at '%.32s'", ps->p);
	if (!parse_target(ps, &t))
		return false;
	if (!t.name && (t.rel < INT16_MIN || t.rel > INT16_MAX))
		return fail(ps->a, "jump offset %" PRId64 " out of range for a 16-bit offset", t.rel);
	uint8_t code = (w ? BPF_JMP32 : BPF_JMP) | ops[found].code | (r > 0 ? BPF_X : BPF_K);
	size_t slot = ps->a->cnt;
	return emit(ps->a, code, dst, src, 0, imm) && add_fix(ps->a, FIX_OFF, &t, slot);
}

/* Helper id whose Linux name is s, or -1. */
static int32_t helper_by_name(const char *s, size_t len)
{
	const char *n;

	for (int32_t id = 0; (n = kbpf_helper_linux_name(id)); id++)
		if (word_is(s, len, n))
			return id;
	return -1;
}

/* "name#id": a helper when the name is Linux's for that id (or "unknown", which Linux
 * prints for helper ids it has no name for); any other name is a kfunc's. */
static bool call_named(struct ps *ps, const char *name, size_t len)
{
	struct num n;
	int32_t id;
	int16_t off = 0;

	ps->p++; /* '#' */
	if (!get_num(ps, &n) || !to_imm32(ps, &n, &id))
		return false;
	const char *h = kbpf_helper_linux_name(id);
	if (word_is(name, len, "unknown") || (h && word_is(name, len, h)))
		return emit(ps->a, BPF_JMP | BPF_CALL, 0, 0, 0, id);
	if (eat_word(ps, "off")) {
		if (!expect(ps, "=") || !get_num(ps, &n) || !to_off16(ps, &n, &off))
			return false;
	}
	return emit(ps->a, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, off, id);
}

/* llvm-objdump prints every call as "call N"; a BPF-to-BPF or kfunc call differs only
 * in src_reg, which the instruction bytes on the same line still show. */
static int objdump_call_src(const struct ps *ps, int32_t id)
{
	struct bpf_insn in;

	if (ps->nbytes != 8)
		return 0;
	memcpy(&in, ps->bytes, sizeof(in));
	if (in.code != (BPF_JMP | BPF_CALL) || in.imm != id || in.src_reg > BPF_PSEUDO_KFUNC_CALL)
		return 0;
	return in.src_reg;
}

/* "call bpf_map_lookup_elem#1", "call 1", "call pc+3", "call LBB7", "call kfunc#123". */
static bool parse_call(struct ps *ps)
{
	struct target t;
	struct num n;
	int32_t id;
	size_t slot = ps->a->cnt;

	skip_ws(ps);
	if (ps->p[0] == 'p' && ps->p[1] == 'c' && (ps->p[2] == '+' || ps->p[2] == '-')) {
		if (!parse_target(ps, &t))
			return false;
		return emit(ps->a, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0) && add_fix(ps->a, FIX_IMM, &t, slot);
	}
	if (peek_num(ps)) /* llvm-objdump: "call 1" */
		return get_num(ps, &n) && to_imm32(ps, &n, &id) &&
		       emit(ps->a, BPF_JMP | BPF_CALL, 0, objdump_call_src(ps, id), 0, id);
	if (*ps->p != '<') {
		struct ps save = *ps;
		const char *name;
		size_t len = read_ident(ps, &name);
		if (len && *ps->p == '#')
			return call_named(ps, name, len);
		*ps = save;
	}
	if (!parse_target(ps, &t))
		return false;
	return emit(ps->a, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0) && add_fix(ps->a, FIX_CALL, &t, slot);
}

static bool parse_callx(struct ps *ps)
{
	int reg;

	return need_reg64(ps, &reg) && emit(ps->a, BPF_JMP | BPF_CALL | BPF_X, reg, 0, 0, 0);
}

/* A value register of an atomic or store: 64-bit, or 32-bit (LLVM) for sizes below u64. */
static bool value_reg(struct ps *ps, int size, int *reg, bool *w)
{
	if (!need_reg(ps, reg, w))
		return false;
	if (*w && size == BPF_DW)
		return fail(ps->a, "a u64 access needs a 64-bit register");
	return true;
}

/* "lock *(u64 *)(r1 +0) += r2" (also |= &= ^=). */
static bool parse_lock(struct ps *ps)
{
	static const struct {
		const char *op;
		int imm;
	} ops[] = { { "+=", BPF_ADD }, { "|=", BPF_OR }, { "&=", BPF_AND }, { "^=", BPF_XOR } };
	int size, base, src;
	bool sx, w;
	int16_t off;

	if (!expect(ps, "*") || !parse_cast(ps, &size, &sx) || !parse_mem(ps, &base, &off))
		return false;
	if (sx || (size != BPF_W && size != BPF_DW))
		return fail(ps->a, "atomic operations take u32 or u64");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (eat(ps, ops[i].op))
			return value_reg(ps, size, &src, &w) &&
			       emit(ps->a, BPF_STX | BPF_ATOMIC | (uint8_t)size, base, src, off, ops[i].imm);
	}
	return fail(ps->a, "unknown atomic operation at '%.32s'", ps->p);
}

/* "*(u32 *)(r10 -4) = r1" or "= 5". */
static bool parse_store(struct ps *ps)
{
	int size, base, src;
	bool sx, w;
	int16_t off;
	int32_t imm;
	struct num n;

	if (!expect(ps, "*") || !parse_cast(ps, &size, &sx) || !parse_mem(ps, &base, &off))
		return false;
	if (sx)
		return fail(ps->a, "stores take an unsigned size");
	if (!expect(ps, "="))
		return false;
	int r = try_reg(ps, &src, &w);
	if (r < 0)
		return false;
	if (r > 0) {
		if (w && size == BPF_DW)
			return fail(ps->a, "a u64 store needs a 64-bit register");
		return emit(ps->a, BPF_STX | BPF_MEM | (uint8_t)size, base, src, off, 0);
	}
	return get_num(ps, &n) && to_imm32(ps, &n, &imm) && emit(ps->a, BPF_ST | BPF_MEM | (uint8_t)size, base, 0, off, imm);
}

/* ".insn code, dst, src, off, imm": any single slot, raw. */
static bool parse_raw(struct ps *ps)
{
	static const int64_t lo[5] = { 0, 0, 0, INT16_MIN, INT32_MIN };
	static const int64_t hi[5] = { 0xff, 0xf, 0xf, UINT16_MAX, UINT32_MAX };
	static const char *const what[5] = { "code", "dst_reg", "src_reg", "off", "imm" };
	int64_t v[5];
	struct num n;

	for (int i = 0; i < 5; i++) {
		if ((i && !expect(ps, ",")) || !get_num(ps, &n))
			return false;
		if (!num_in(&n, lo[i], hi[i], &v[i]))
			return range_fail(ps, &n, what[i]);
	}
	return emit(ps->a, (uint8_t)v[0], (int)v[1], (int)v[2], (int16_t)(uint16_t)v[3], (int32_t)(uint32_t)v[4]);
}

/* "r1 += r2", "w1 s/= 3" ... (op is the operator already read; off 1 for signed div/mod) */
static bool alu_op(struct ps *ps, int dst, bool w, uint8_t op, int16_t off)
{
	int src;
	bool w2;
	struct num n;
	int32_t imm;
	uint8_t cls = w ? BPF_ALU : BPF_ALU64;
	int r = try_reg(ps, &src, &w2);

	if (r < 0)
		return false;
	if (r > 0)
		return same_width(ps, w, w2) && emit(ps->a, cls | op | BPF_X, dst, src, off, 0);
	return get_num(ps, &n) && to_imm32(ps, &n, &imm) && emit(ps->a, cls | op | BPF_K, dst, 0, off, imm);
}

/* "r0 = -r0" */
static bool rhs_neg(struct ps *ps, int dst, bool w)
{
	int src;
	bool w2;

	ps->p++; /* '-' */
	if (!need_reg(ps, &src, &w2) || !same_width(ps, w, w2))
		return false;
	if (src != dst)
		return fail(ps->a, "negation works in place: expected %c%d = -%c%d", w ? 'w' : 'r', dst, w ? 'w' : 'r',
			    dst);
	return emit(ps->a, (w ? BPF_ALU : BPF_ALU64) | BPF_NEG | BPF_K, dst, 0, 0, 0);
}

/* "r0 = (s8)r1", "w0 = (s16)w1" */
static bool rhs_movsx(struct ps *ps, int dst, bool w)
{
	const char *s;
	size_t len;
	int src, bits;
	bool w2;

	ps->p++; /* '(' */
	len = read_ident(ps, &s);
	if (word_is(s, len, "s8"))
		bits = 8;
	else if (word_is(s, len, "s16"))
		bits = 16;
	else if (word_is(s, len, "s32") && !w)
		bits = 32;
	else
		return fail(ps->a, "unknown sign-extension '%.*s'", (int)len, s);
	if (!expect(ps, ")") || !need_reg(ps, &src, &w2) || !same_width(ps, w, w2))
		return false;
	return emit(ps->a, (w ? BPF_ALU : BPF_ALU64) | BPF_MOV | BPF_X, dst, src, (int16_t)bits, 0);
}

/* "r0 = *(u8 *)skb[12]", "r0 = *(u16 *)skb[r3 + 4]" (legacy packet loads) */
static bool rhs_skb(struct ps *ps, int dst, bool w, int size, bool sx)
{
	int src = 0;
	bool w2;
	int32_t imm = 0;
	struct num n;
	uint8_t mode = BPF_ABS;

	if (dst != 0 || w || sx || size == BPF_DW)
		return fail(ps->a, "packet loads are 'r0 = *(u8|u16|u32 *)skb[...]'");
	if (!expect(ps, "["))
		return false;
	int r = try_reg(ps, &src, &w2);
	if (r < 0 || (r > 0 && w2 && !fail(ps->a, "expected a 64-bit register")))
		return false;
	if (r > 0) {
		mode = BPF_IND;
		skip_ws(ps);
		if (*ps->p == '+' || *ps->p == '-') {
			bool minus = *ps->p++ == '-';
			if (!get_num(ps, &n))
				return false;
			n.neg ^= minus;
			if (!to_imm32(ps, &n, &imm))
				return false;
		}
	} else if (!get_num(ps, &n) || !to_imm32(ps, &n, &imm)) {
		return false;
	}
	return expect(ps, "]") && emit(ps->a, BPF_LD | mode | (uint8_t)size, 0, src, 0, imm);
}

/* "r0 = *(u32 *)(r1 +4)", "r0 = *(s8 *)(r1 +0)", LLVM's "w0 = *(u32 *)(r1 + 4)" */
static bool rhs_load(struct ps *ps, int dst, bool w)
{
	int size, base;
	bool sx;
	int16_t off;

	ps->p++; /* '*' */
	if (!parse_cast(ps, &size, &sx))
		return false;
	if (eat_word(ps, "skb"))
		return rhs_skb(ps, dst, w, size, sx);
	if (!parse_mem(ps, &base, &off))
		return false;
	if (w && (sx || size == BPF_DW))
		return fail(ps->a, "this load needs a 64-bit destination register");
	return emit(ps->a, BPF_LDX | (sx ? BPF_MEMSX : BPF_MEM) | (uint8_t)size, dst, base, off, 0);
}

/* "r1 = be16 r1", "r1 = le64 r1", "r1 = bswap32 r1" (word already read) */
static bool rhs_endian(struct ps *ps, int dst, bool w, const char *s, size_t len)
{
	int bits = 0, src;
	uint8_t code;

	if (len > 2 && !memcmp(s, "be", 2))
		code = BPF_ALU | BPF_END | BPF_TO_BE;
	else if (len > 2 && !memcmp(s, "le", 2))
		code = BPF_ALU | BPF_END | BPF_TO_LE;
	else
		code = BPF_ALU64 | BPF_END | BPF_TO_LE;
	const char *width = s + (code == (BPF_ALU64 | BPF_END | BPF_TO_LE) ? 5 : 2);
	size_t wlen = len - (size_t)(width - s);
	if (word_is(width, wlen, "16"))
		bits = 16;
	else if (word_is(width, wlen, "32"))
		bits = 32;
	else if (word_is(width, wlen, "64"))
		bits = 64;
	if (w)
		return fail(ps->a, "byte swaps take 64-bit registers");
	if (!need_reg64(ps, &src))
		return false;
	if (src != dst)
		return fail(ps->a, "byte swaps work in place: expected r%d = %.*s r%d", dst, (int)len, s, dst);
	return emit(ps->a, code, dst, 0, 0, bits);
}

static bool is_endian_word(const char *s, size_t len)
{
	static const char *const words[] = { "be16", "be32", "be64", "le16", "le32", "le64", "bswap16", "bswap32", "bswap64" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (word_is(s, len, words[i]))
			return true;
	return false;
}

/* "r1 = map[fd:5]", "map[idx:2]", "map[fd:5][0]+8", "map[idx:2][0]+8" ("map" already read) */
static bool rhs_map(struct ps *ps, int dst, bool w)
{
	const char *s;
	size_t len;
	struct num n;
	int32_t ref, value_off = 0;
	bool idx, value = false;

	if (w)
		return fail(ps->a, "64-bit loads need a 64-bit register");
	if (!expect(ps, "["))
		return false;
	len = read_ident(ps, &s);
	idx = word_is(s, len, "idx");
	if (!idx && !word_is(s, len, "fd"))
		return fail(ps->a, "expected map[fd:N] or map[idx:N]");
	if (!expect(ps, ":") || !get_num(ps, &n) || !to_imm32(ps, &n, &ref) || !expect(ps, "]"))
		return false;
	if (eat(ps, "[")) {
		if (!get_num(ps, &n) || n.mag != 0)
			return fail(ps->a, "expected map[...][0]+OFFSET");
		if (!expect(ps, "]") || !expect(ps, "+") || !get_num(ps, &n) || !to_imm32(ps, &n, &value_off))
			return false;
		value = true;
	}
	int src = idx ? (value ? BPF_PSEUDO_MAP_IDX_VALUE : BPF_PSEUDO_MAP_IDX)
		      : (value ? BPF_PSEUDO_MAP_VALUE : BPF_PSEUDO_MAP_FD);
	return emit_lddw(ps->a, dst, src, (uint64_t)(uint32_t)value_off << 32 | (uint32_t)ref);
}

/* "r1 = btf_id[123]" ("btf_id" already read) */
static bool rhs_btf_id(struct ps *ps, int dst)
{
	struct num n;
	int32_t id;

	return expect(ps, "[") && get_num(ps, &n) && to_imm32(ps, &n, &id) && expect(ps, "]") &&
	       emit_lddw(ps->a, dst, BPF_PSEUDO_BTF_ID, (uint32_t)id);
}

/* "r1 = func pc+5", "r1 = func LBB7" ("func" already read) */
static bool rhs_func(struct ps *ps, int dst)
{
	struct target t;
	size_t slot = ps->a->cnt;

	return parse_target(ps, &t) && emit_lddw(ps->a, dst, BPF_PSEUDO_FUNC, 0) && add_fix(ps->a, FIX_IMM, &t, slot);
}

/* The atomic read-modify-writes that return a value, in Linux's spelling
 *   r2 = atomic64_fetch_add((u64 *)(r1 +0), r2)     r2 = atomic64_xchg((u64 *)(r1 +0), r2)
 *   r0 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)   ("atomic_" for u32, or any size: LLVM)
 * and LLVM's: r2 = xchg_64(r1 + 0, r2), w2 = xchg32_32(...), r0 = cmpxchg_64(r1 + 0, r0, r2). */
static bool rhs_atomic(struct ps *ps, int dst, bool w, const char *s, size_t len)
{
	static const struct {
		const char *name;
		int imm;
	} fns[] = {
		{ "fetch_add", BPF_ADD | BPF_FETCH }, { "fetch_and", BPF_AND | BPF_FETCH },
		{ "fetch_or", BPF_OR | BPF_FETCH },   { "fetch_xor", BPF_XOR | BPF_FETCH },
		{ "xchg", BPF_XCHG },		      { "cmpxchg", BPF_CMPXCHG },
	};
	int imm = -1, size = -1, base, src, r0;
	bool sx, w0, w2, bare = false;
	int16_t off;

	if (word_is(s, len, "xchg_64") || word_is(s, len, "xchg32_32") || word_is(s, len, "cmpxchg_64") ||
	    word_is(s, len, "cmpxchg32_32")) {
		bare = true; /* LLVM: no cast, size in the name */
		size = s[len - 1] == '4' ? BPF_DW : BPF_W;
		imm = s[0] == 'c' ? BPF_CMPXCHG : BPF_XCHG;
	} else {
		size_t pre = len > 9 && !memcmp(s, "atomic64_", 9) ? 9 : 7; /* else "atomic_" */
		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			if (word_is(s + pre, len - pre, fns[i].name))
				imm = fns[i].imm;
		if (imm < 0)
			return fail(ps->a, "unknown atomic operation '%.*s'", (int)len, s);
		if (pre == 9)
			size = BPF_DW;
	}
	if (!expect(ps, "("))
		return false;
	if (bare) {
		if (!parse_addr(ps, &base, &off))
			return false;
	} else {
		int csize;
		if (!parse_cast(ps, &csize, &sx) || !parse_mem(ps, &base, &off))
			return false;
		if (sx || (csize != BPF_W && csize != BPF_DW) || (size >= 0 && size != csize))
			return fail(ps->a, "atomic operations take u32 or u64 (atomic64_ takes u64)");
		size = csize;
	}
	if (!expect(ps, ","))
		return false;
	if (imm == BPF_CMPXCHG) {
		if (!value_reg(ps, size, &r0, &w0) || !expect(ps, ","))
			return false;
		if (r0 != 0 || dst != 0 || w0 != w)
			return fail(ps->a, "cmpxchg compares with and returns in r0");
	}
	if (!value_reg(ps, size, &src, &w2) || !expect(ps, ")"))
		return false;
	if (w && size == BPF_DW)
		return fail(ps->a, "a u64 access needs a 64-bit register");
	if (imm != BPF_CMPXCHG && (src != dst || w2 != w))
		return fail(ps->a, "the result register must be the value register (%c%d)", w2 ? 'w' : 'r', src);
	return emit(ps->a, BPF_STX | BPF_ATOMIC | (uint8_t)size, base, src, off, imm);
}

/* "r1 = 5" is a mov; a 64-bit register gets an LDDW when the value as written is not
 * what a sign-extended 32-bit mov would load (e.g. 0xffffffff, 1 << 40), when it is
 * written in hex (Linux prints LDDW values in hex and movs in decimal, so its text
 * round-trips), or with LLVM's "ll" suffix. */
static bool rhs_number(struct ps *ps, int dst, bool w)
{
	struct num n;
	int64_t v;
	int32_t imm;

	if (!get_num(ps, &n))
		return false;
	bool ll = eat_word(ps, "ll");
	if (w) {
		if (ll)
			return fail(ps->a, "'ll' needs a 64-bit register");
		return to_imm32(ps, &n, &imm) && emit(ps->a, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, imm);
	}
	if (!ll && !(n.hex && !n.neg) && num_in(&n, INT32_MIN, INT32_MAX, &v))
		return emit(ps->a, BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, (int32_t)v);
	if (n.neg && !num_in(&n, INT64_MIN, 0, &v))
		return range_fail(ps, &n, "a 64-bit immediate");
	return emit_lddw(ps->a, dst, 0, n.neg ? (uint64_t)v : n.mag);
}

/* Right-hand side of "rN = ..." */
static bool parse_rhs(struct ps *ps, int dst, bool w)
{
	int src;
	bool w2;
	const char *s;
	size_t len;

	skip_ws(ps);
	if (*ps->p == '-') {
		struct ps look = *ps;
		look.p++;
		skip_ws(&look);
		if ((*look.p == 'r' || *look.p == 'w') && is_digit(look.p[1]))
			return rhs_neg(ps, dst, w);
	}
	if (*ps->p == '(')
		return rhs_movsx(ps, dst, w);
	if (*ps->p == '*')
		return rhs_load(ps, dst, w);
	if (peek_num(ps))
		return rhs_number(ps, dst, w);
	int r = try_reg(ps, &src, &w2);
	if (r != 0)
		return r > 0 && same_width(ps, w, w2) &&
		       emit(ps->a, (w ? BPF_ALU : BPF_ALU64) | BPF_MOV | BPF_X, dst, src, 0, 0);
	len = read_ident(ps, &s);
	if (is_endian_word(s, len))
		return rhs_endian(ps, dst, w, s, len);
	if (word_is(s, len, "map"))
		return rhs_map(ps, dst, w);
	if ((word_is(s, len, "func") || word_is(s, len, "btf_id")) && w)
		return fail(ps->a, "64-bit loads need a 64-bit register");
	if (word_is(s, len, "func"))
		return rhs_func(ps, dst);
	if (word_is(s, len, "btf_id"))
		return rhs_btf_id(ps, dst);
	if ((len > 7 && !memcmp(s, "atomic_", 7)) || (len > 9 && !memcmp(s, "atomic64_", 9)) ||
	    word_is(s, len, "xchg_64") || word_is(s, len, "xchg32_32") || word_is(s, len, "cmpxchg_64") ||
	    word_is(s, len, "cmpxchg32_32"))
		return rhs_atomic(ps, dst, w, s, len);
	return fail(ps->a, "unknown instruction: bad operand '%.32s'", s);
}

/* "rN op ..." */
static bool parse_assign(struct ps *ps, int dst, bool w)
{
	static const struct {
		const char *op;
		uint8_t code;
		int16_t off;
	} ops[] = { /* longest first */
		    { "s>>=", BPF_ARSH, 0 }, { "s/=", BPF_DIV, 1 }, { "s%=", BPF_MOD, 1 }, { "<<=", BPF_LSH, 0 },
		    { ">>=", BPF_RSH, 0 },   { "+=", BPF_ADD, 0 },  { "-=", BPF_SUB, 0 },  { "*=", BPF_MUL, 0 },
		    { "/=", BPF_DIV, 0 },    { "|=", BPF_OR, 0 },   { "&=", BPF_AND, 0 },  { "%=", BPF_MOD, 0 },
		    { "^=", BPF_XOR, 0 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (eat(ps, ops[i].op))
			return alu_op(ps, dst, w, ops[i].code, ops[i].off);
	skip_ws(ps);
	if (ps->p[0] == '=' && ps->p[1] != '=') {
		ps->p++;
		return parse_rhs(ps, dst, w);
	}
	return fail(ps->a, "unknown instruction: expected an assignment at '%.32s'", ps->p);
}

static bool parse_stmt(struct ps *ps)
{
	int dst;
	bool w;
	const char *start = ps->p;

	if (eat_word(ps, "exit"))
		return parse_exit(ps);
	if (eat_word(ps, "may_goto"))
		return parse_may_goto(ps);
	if (eat_word(ps, "gotol"))
		return parse_goto(ps, true);
	if (eat_word(ps, "goto"))
		return parse_goto(ps, false);
	if (eat_word(ps, "callx"))
		return parse_callx(ps);
	if (eat_word(ps, "call"))
		return parse_call(ps);
	if (eat_word(ps, "if"))
		return parse_if(ps);
	if (eat_word(ps, "lock"))
		return parse_lock(ps);
	if (eat_word(ps, ".insn"))
		return parse_raw(ps);
	if (*ps->p == '*')
		return parse_store(ps);
	int r = try_reg(ps, &dst, &w);
	if (r > 0)
		return parse_assign(ps, dst, w);
	if (r == 0)
		fail(ps->a, "unknown instruction '%.40s'", start);
	return false;
}

/* --- lines --- */

/* Cut the comment off: ';' and "//" anywhere, '#' at the start or after a blank (so
 * "call bpf_map_lookup_elem#1" keeps its '#'). */
static void strip_comment(char *line)
{
	for (char *c = line; *c; c++) {
		if (*c == ';' || (c[0] == '/' && c[1] == '/') || (*c == '#' && (c == line || is_space(c[-1])))) {
			*c = '\0';
			return;
		}
	}
}

/* After "N:", skip Linux's/bpftool's "(b7)" or llvm-objdump's 8 or 16 hex bytes. */
static void skip_code_bytes(struct ps *ps)
{
	const char *p = ps->p;
	int bytes = 0;

	skip_ws(ps);
	if (ps->p[0] == '(' && is_xdigit(ps->p[1]) && is_xdigit(ps->p[2]) && ps->p[3] == ')') {
		ps->p += 4;
		return;
	}
	for (;;) {
		while (is_space(*p))
			p++;
		if (!is_xdigit(p[0]) || !is_xdigit(p[1]) || (p[2] && !is_space(p[2])) || bytes == 17)
			break;
		if (bytes < 16)
			ps->bytes[bytes] = (uint8_t)(hex_val(p[0]) << 4 | hex_val(p[1]));
		p += 2;
		bytes++;
	}
	if (bytes == 8 || bytes == 16) {
		ps->p = p;
		ps->nbytes = bytes;
	}
}

/* llvm-objdump prints "<unknown>" for encodings it cannot name (LLVM 14: 32-bit atomic
 * and/or/xor); its bytes on the same line say what the slots are. */
static bool emit_unknown(struct ps *ps)
{
	for (int i = 0; i < ps->nbytes; i += 8) {
		struct bpf_insn in;
		memcpy(&in, ps->bytes + i, sizeof(in)); /* the object's order: bpfel on a little-endian host */
		if (!emit(ps->a, in.code, in.dst_reg, in.src_reg, in.off, in.imm))
			return false;
	}
	ps->p += strlen("<unknown>");
	return true;
}

/* Handle what may precede a statement: an index "N:" (then code bytes), llvm-objdump's
 * "0000000000000000 <name>:" symbol lines (a label) and relocation lines (skipped).
 * Returns false when the rest of the line is to be ignored (or on error). */
static bool skip_prefix(struct ps *ps)
{
	const char *p = ps->p, *q = p;
	bool decimal = true;

	while (is_xdigit(*q))
		decimal &= is_digit(*q++);
	if (q == p)
		return true;
	if (*q == ':') {
		struct ps r = { .p = q + 1, .a = ps->a };
		skip_ws(&r);
		if (r.p[0] == 'R' && r.p[1] == '_')
			return false; /* llvm-objdump -r relocation line */
		if (!decimal)
			return true; /* a label such as "abc:" */
		ps->p = r.p;
		skip_code_bytes(ps);
		return true;
	}
	if (is_space(*q)) {
		struct ps r = { .p = q, .a = ps->a };
		const char *name;
		size_t len;
		if (!eat(&r, "<"))
			return true;
		len = read_ident(&r, &name);
		if (!len || !eat(&r, ">") || !eat(&r, ":"))
			return true;
		label_define(ps->a, name, len);
		ps->p = r.p;
		return !ps->a->err;
	}
	return true;
}

/* Zero or more "name:" / "<name>:" label definitions at the start of a statement. */
static bool parse_labels(struct ps *ps)
{
	for (;;) {
		struct ps look = *ps;
		const char *name;
		size_t len;
		bool angle = eat(&look, "<");

		len = read_ident(&look, &name);
		if (!len || (angle && !eat(&look, ">")) || *look.p != ':')
			return true;
		if (len == 5 && !memcmp(name, ".insn", 5))
			return true;
		look.p++;
		if (!label_define(ps->a, name, len))
			return false;
		*ps = look;
	}
}

static bool ignored_line(const char *p)
{
	return !strncmp(p, "Disassembly of section", 22) || strstr(p, "file format");
}

static bool parse_line(struct asm_ctx *a, char *line)
{
	struct ps ps = { .p = line, .a = a };

	strip_comment(line);
	if (at_end(&ps) || ignored_line(ps.p))
		return true;
	if (!skip_prefix(&ps))
		return !a->err;
	if (!parse_labels(&ps))
		return false;
	if (at_end(&ps))
		return true;
	if (ps.nbytes && !strncmp(ps.p, "<unknown>", 9)) {
		if (!emit_unknown(&ps))
			return false;
	} else if (!parse_stmt(&ps)) {
		return false;
	}
	if (!at_end(&ps))
		return fail(a, "unexpected '%.32s' after the instruction", ps.p);
	return true;
}

/* --- resolution --- */

static bool resolve_one(struct asm_ctx *a, const struct fixup *f)
{
	struct bpf_insn *in = &a->insns[f->slot];
	int64_t rel = f->rel;

	a->line = f->line;
	if (f->name) {
		ptrdiff_t l = label_find(a, f->name, f->len);
		if (l < 0) {
			int32_t id = f->kind == FIX_CALL ? helper_by_name(f->name, f->len) : -1;
			if (id < 0)
				return fail(a, "undefined label '%.*s'", (int)f->len, f->name);
			in->src_reg = 0; /* "call bpf_map_lookup_elem": the helper */
			in->imm = id;
			return true;
		}
		rel = (int64_t)a->labels[l].slot - (int64_t)f->slot - 1;
	}
	int64_t target = (int64_t)f->slot + 1 + rel;
	if (target < 0 || target >= (int64_t)a->cnt)
		return fail(a, "jump target %" PRId64 " is outside the program (%zu instructions)", target, a->cnt);
	if (f->kind == FIX_OFF) {
		if ((rel < INT16_MIN || rel > INT16_MAX) && f->name)
			return fail(a, "jump to '%.*s' is too far for a 16-bit offset (use gotol)", (int)f->len, f->name);
		if (rel < INT16_MIN || rel > INT16_MAX)
			return fail(a, "jump offset %" PRId64 " out of range for a 16-bit offset", rel);
		in->off = (int16_t)rel;
	} else {
		if (rel < INT32_MIN || rel > INT32_MAX)
			return fail(a, "jump offset out of range");
		in->imm = (int32_t)rel;
	}
	return true;
}

static void asm_free(struct asm_ctx *a)
{
	free(a->labels);
	free(a->hash);
	free(a->fix);
}

int kbpf_asm_pseudo_c(const char *text, struct bpf_insn **insns, size_t *cnt, char *err, size_t err_size)
{
	struct asm_ctx a = { 0 };
	char *copy, *line, *next;

	if (insns)
		*insns = NULL;
	if (cnt)
		*cnt = 0;
	if (!text || !insns || !cnt) {
		if (err && err_size)
			snprintf(err, err_size, "no text or no output");
		return -EINVAL;
	}
	copy = strdup(text);
	if (!copy)
		nomem(&a);
	for (line = copy; line && !a.err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		a.line++;
		parse_line(&a, line);
	}
	for (size_t i = 0; i < a.nfix && !a.err; i++)
		resolve_one(&a, &a.fix[i]);
	if (!a.err && !a.insns)
		a.insns = malloc(sizeof(*a.insns)); /* an empty program still gets an array */
	if (!a.err && !a.insns)
		nomem(&a);
	free(copy);
	asm_free(&a);
	if (a.err) {
		free(a.insns);
		if (err && err_size)
			snprintf(err, err_size, "%s", a.msg);
		return a.err;
	}
	*insns = a.insns;
	*cnt = a.cnt;
	return 0;
}
