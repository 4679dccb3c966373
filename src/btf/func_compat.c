/* SPDX-License-Identifier: Apache-2.0 */
/* Checking a program's `extern ... __ksym` function prototype against the host's.
 *
 * The verdict is libbpf's, so that an object loads here exactly when libbpf would load
 * it against a kernel with that function: bpf_core_types_are_compat() over the two
 * FUNC_PROTOs (src/btf/core_compat.c implements it for CO-RE; it is reused here rather
 * than restated). Its rule, after skipping modifiers and typedefs on both sides: the same
 * number of parameters; each parameter and the return type of the same kind (ENUM and
 * ENUM64 count as one); integers of any size and signedness (not bit-offset ones);
 * pointers and arrays by what they point to / hold; structs, unions, enums and forward
 * declarations by kind alone (names are not compared below the function); void with
 * void; anything else (floats included) incompatible.
 *
 * What this file adds is the explanation — which parameter, both prototypes in C — and
 * the C declaration of a function (btf_dump's declarator syntax). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/btf_check.h"
#include "btf/core_internal.h"
#include "btf/func_compat.h"

/* A growing string; oom latches the first allocation failure. */
struct strbuf {
	char *buf;
	size_t len, cap;
	int oom;
};

static void sb_vappend(struct strbuf *sb, const char *fmt, va_list args)
{
	va_list copy;
	int n;

	if (sb->oom)
		return;
	va_copy(copy, args);
	n = vsnprintf(sb->buf ? sb->buf + sb->len : NULL, sb->buf ? sb->cap - sb->len : 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if (!sb->buf || sb->len + (size_t)n >= sb->cap) {
		size_t cap = (sb->len + (size_t)n + 1) * 2;
		char *p = realloc(sb->buf, cap);
		if (!p) {
			sb->oom = 1;
			return;
		}
		sb->buf = p;
		sb->cap = cap;
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, args);
	}
	sb->len += (size_t)n;
}

static void sb_append(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_append(struct strbuf *sb, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	sb_vappend(sb, fmt, args);
	va_end(args);
}

/* btf_dump prints through a callback with a fixed context; the context says which
 * string the output currently goes to. */
struct dump_target {
	struct strbuf *sb;
};

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	struct dump_target *t = ctx;
	sb_vappend(t->sb, fmt, args);
}

static int emit_decl(struct btf_dump *d, uint32_t id, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name);
	return btf_dump__emit_type_decl(d, id, &opts);
}

/* The FUNC_PROTO behind id (a FUNC, or a FUNC_PROTO itself: then the name is ""). */
static const struct btf_type *func_proto(const struct btf *btf, uint32_t id, uint32_t *proto_id, const char **name)
{
	const struct btf_type *t;

	if (!btf || id == 0 || id >= btf__type_cnt(btf) || kbpf_btf_check_aligned(btf))
		return NULL;
	t = btf__type_by_id(btf, id);
	*name = "";
	if (btf_is_func(t)) {
		*name = btf__name_by_offset(btf, t->name_off);
		if (!*name)
			*name = "";
		id = t->type;
		if (id == 0 || id >= btf__type_cnt(btf))
			return NULL;
		t = btf__type_by_id(btf, id);
	}
	if (!btf_is_func_proto(t))
		return NULL;
	*proto_id = id;
	return t;
}

/* "ret name(type1 p1, type2 p2)" into out. The name and parameter list form the
 * declarator of the return type, so C's inside-out syntax stays right even for a
 * function returning a function pointer; no parameters is "(void)", a trailing void
 * parameter (BTF's vararg marker) "...". */
static int format_func(const struct btf *btf, const struct btf_type *proto, const char *name, struct strbuf *out)
{
	const struct btf_param *p = btf_params(proto);
	uint16_t vlen = btf_vlen(proto);
	struct strbuf declarator = { 0 };
	struct dump_target target = { &declarator };
	struct btf_dump *d = btf_dump__new(btf, dump_printf, &target, NULL);
	int err = 0;

	if (!d)
		return errno ? -errno : -ENOMEM;
	sb_append(&declarator, "%s(", name);
	for (uint16_t i = 0; i < vlen && !err; i++) {
		const char *pname = btf__name_by_offset(btf, p[i].name_off);
		if (i)
			sb_append(&declarator, ", ");
		if (i == vlen - 1 && p[i].type == 0)
			sb_append(&declarator, "...");
		else
			err = emit_decl(d, p[i].type, pname ? pname : "");
	}
	sb_append(&declarator, vlen ? ")" : "void)");
	if (!err && declarator.oom)
		err = -ENOMEM;
	if (!err) {
		target.sb = out;
		err = emit_decl(d, proto->type, declarator.buf);
		if (!err && out->oom)
			err = -ENOMEM;
	}
	btf_dump__free(d);
	free(declarator.buf);
	return err;
}

/* The C spelling of type id ("u32", "struct tcp_sock *"), or "?" if it cannot be had. */
static void format_type(const struct btf *btf, uint32_t id, struct strbuf *out)
{
	struct dump_target target = { out };
	struct btf_dump *d = btf_dump__new(btf, dump_printf, &target, NULL);
	size_t len = out->len;

	if (!d || emit_decl(d, id, "")) {
		out->len = len;
		sb_append(out, "?");
	}
	btf_dump__free(d);
}

static const char *kind_words(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_UNKN: return "void";
	case BTF_KIND_INT: return "an integer";
	case BTF_KIND_PTR: return "a pointer";
	case BTF_KIND_ARRAY: return "an array";
	case BTF_KIND_STRUCT: return "a struct";
	case BTF_KIND_UNION: return "a union";
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: return "an enum";
	case BTF_KIND_FWD: return "a forward declaration";
	case BTF_KIND_FUNC_PROTO: return "a function";
	case BTF_KIND_FLOAT: return "a floating-point type";
	default: return "an unexpected kind of type";
	}
}

/* Why two types that the rule found incompatible are: walk both through pointers and
 * arrays to the first difference, which the C spellings alone may not show (a forward
 * declaration and a definition print alike). */
static void explain(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid, struct strbuf *out)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *lt = kbpf_btf_skip_mods(local, lid, &lid);
		const struct btf_type *tt = kbpf_btf_skip_mods(targ, tid, &tid);

		if (!lt || !tt)
			return;
		if (!btf_kind_core_compat(lt, tt)) {
			sb_append(out, " (%s%s vs %s", depth ? "below a pointer: " : "", kind_words(lt),
				  kind_words(tt));
			/* the common surprise: the program declares the struct in full, but clang
			 * writes a forward declaration into BTF when no member of it is used */
			if (btf_is_fwd(lt) && btf_is_composite(tt))
				sb_append(out, "; clang records only a declaration of a struct whose members "
					       "the program never uses");
			sb_append(out, ")");
			return;
		}
		switch (btf_kind(lt)) {
		case BTF_KIND_PTR:
			lid = lt->type;
			tid = tt->type;
			break;
		case BTF_KIND_ARRAY:
			lid = btf_array(lt)->type;
			tid = btf_array(tt)->type;
			break;
		case BTF_KIND_INT:
			sb_append(out, " (an integer with a bit offset, which libbpf rejects)");
			return;
		case BTF_KIND_FLOAT:
			sb_append(out, " (floating point: only integers and pointers pass in BPF registers)");
			return;
		case BTF_KIND_FUNC_PROTO:
			sb_append(out, " (function pointers with different prototypes)");
			return;
		default:
			return;
		}
	}
}

/* Finds what made the prototypes incompatible, into why. Returns 0, or a negative errno
 * if the BTF turns out malformed along the way. */
static int find_mismatch(const struct btf *local, const struct btf_type *lp, const struct btf *targ,
			 const struct btf_type *tp, struct strbuf *why)
{
	uint16_t lvlen = btf_vlen(lp), tvlen = btf_vlen(tp);
	const struct btf_param *la = btf_params(lp), *ta = btf_params(tp);
	uint32_t lid, tid;
	int ret;

	if (lvlen != tvlen) {
		sb_append(why, "%u parameter%s vs %u", lvlen, lvlen == 1 ? "" : "s", tvlen);
		return 0;
	}
	for (uint16_t i = 0; i <= lvlen; i++) {
		/* parameters, then (i == lvlen) the return type */
		uint32_t lraw = i < lvlen ? la[i].type : lp->type, traw = i < lvlen ? ta[i].type : tp->type;

		if (!kbpf_btf_skip_mods(local, lraw, &lid) || !kbpf_btf_skip_mods(targ, traw, &tid))
			return -EINVAL;
		ret = kbpf_core_types_are_compat(local, lid, targ, tid);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		if (i < lvlen) {
			const char *pname = btf__name_by_offset(targ, ta[i].name_off);
			if (!pname || !*pname)
				pname = btf__name_by_offset(local, la[i].name_off);
			sb_append(why, "parameter %u", i + 1);
			if (pname && *pname)
				sb_append(why, " '%s'", pname);
		} else {
			sb_append(why, "return type");
		}
		/* a trailing void parameter is BTF's "...": say so rather than "void" */
		int lvar = i + 1 == lvlen && lraw == 0, tvar = i + 1 == tvlen && traw == 0;
		sb_append(why, ": '");
		if (lvar)
			sb_append(why, "...");
		else
			format_type(local, lraw, why);
		sb_append(why, "' vs '");
		if (tvar)
			sb_append(why, "...");
		else
			format_type(targ, traw, why);
		sb_append(why, "'");
		if (!lvar && !tvar)
			explain(local, lid, targ, tid, why);
		return 0;
	}
	sb_append(why, "incompatible types");
	return 0;
}

int kbpf_btf_func_compat(const struct btf *local, uint32_t local_func_id, const struct btf *target,
			 uint32_t targ_func_id, char *msg, size_t msg_size)
{
	const struct btf_type *lp, *tp;
	uint32_t lproto, tproto;
	const char *lname, *tname;
	struct strbuf ldecl = { 0 }, tdecl = { 0 }, why = { 0 };
	int ret;

	kbpf_core_msg(msg, msg_size, "%s", "");
	lp = func_proto(local, local_func_id, &lproto, &lname);
	if (!lp) {
		kbpf_core_msg(msg, msg_size, "program BTF type [%u] is not a function with a prototype", local_func_id);
		return -EINVAL;
	}
	tp = func_proto(target, targ_func_id, &tproto, &tname);
	if (!tp) {
		kbpf_core_msg(msg, msg_size, "host BTF type [%u] is not a function with a prototype", targ_func_id);
		return -EINVAL;
	}
	ret = kbpf_core_types_are_compat(local, lproto, target, tproto);
	if (ret < 0) {
		kbpf_core_msg(msg, msg_size, "malformed BTF while comparing '%s' [%u] with the host's [%u]", lname,
			local_func_id, targ_func_id);
		return ret;
	}
	if (ret)
		return 1;

	/* Both prototypes are printed with btf_dump, which must not meet a cycle. */
	char bad[160];
	if (kbpf_btf_check_printable(local, lproto, bad, sizeof(bad)) ||
	    kbpf_btf_check_printable(target, tproto, bad, sizeof(bad))) {
		kbpf_core_msg(msg, msg_size, "extern '%s' does not match the host's prototype, and its BTF is malformed: %s",
			lname, bad);
		return -EINVAL;
	}
	ret = find_mismatch(local, lp, target, tp, &why);
	if (!ret)
		ret = format_func(local, lp, lname, &ldecl);
	if (!ret)
		ret = format_func(target, tp, tname, &tdecl);
	if (!ret && why.oom)
		ret = -ENOMEM;
	if (ret)
		kbpf_core_msg(msg, msg_size, "extern '%s' does not match the host's prototype (%s)", lname,
			ret == -ENOMEM ? "out of memory describing it" : "malformed BTF");
	else
		kbpf_core_msg(msg, msg_size, "extern '%s' does not match host '%s': %s", ldecl.buf, tdecl.buf, why.buf);
	free(ldecl.buf);
	free(tdecl.buf);
	free(why.buf);
	/* Not being able to describe the mismatch does not change the verdict. */
	return ret == -ENOMEM || !ret ? 0 : ret;
}

int kbpf_btf_func_decl(const struct btf *btf, uint32_t func_id, char *buf, size_t size)
{
	struct strbuf out = { 0 };
	const struct btf_type *proto;
	const char *name;
	uint32_t proto_id;
	int ret;

	if (!buf || !size)
		return -EINVAL;
	buf[0] = 0;
	proto = func_proto(btf, func_id, &proto_id, &name);
	if (!proto || !btf_is_func(btf__type_by_id(btf, func_id)))
		return -EINVAL;
	ret = kbpf_btf_check_printable(btf, proto_id, NULL, 0);
	if (ret)
		return ret;
	ret = format_func(btf, proto, name, &out);
	if (!ret) {
		snprintf(buf, size, "%s", out.buf);
		if (out.len >= size)
			ret = -ENOSPC;
	}
	free(out.buf);
	return ret;
}
