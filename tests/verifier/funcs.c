/* SPDX-License-Identifier: Apache-2.0 */
/* A case's "funcs:" line as the BTF and func_info clang would emit (libbpf's BTF writer):
 * what global functions and callbacks need in the verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include "funcs.h"

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

struct types {
	int int_id, long_id, ctx_id, int_ptr, long_ptr, void_ptr, ctx_ptr;
};

/* The BTF id of a type word, -1 if unknown; void is 0 (return types only). */
static int type_id(const struct types *t, const char *w)
{
	static const struct { const char *name; size_t off; } map[] = {
		{ "int", offsetof(struct types, int_id) },     { "long", offsetof(struct types, long_id) },
		{ "int*", offsetof(struct types, int_ptr) },   { "long*", offsetof(struct types, long_ptr) },
		{ "void*", offsetof(struct types, void_ptr) }, { "ctx", offsetof(struct types, ctx_ptr) },
	};
	if (!strcmp(w, "void"))
		return 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(w, map[i].name))
			return *(const int *)((const char *)t + map[i].off);
	return -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Subprogram starts as the verifier finds them: 0 and every call/function target. */
static unsigned subprog_starts(const struct bpf_insn *insns, size_t cnt, uint32_t *starts, unsigned max)
{
	unsigned n = 0;
	starts[n++] = 0;
	for (size_t i = 0; i < cnt && n < max; i++) {
		bool call = insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL;
		bool func = insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) && insns[i].src_reg == BPF_PSEUDO_FUNC;
		if (!call && !func)
			continue;
		uint32_t t = (uint32_t)((int64_t)i + 1 + insns[i].imm);
		bool seen = false;
		for (unsigned k = 0; k < n; k++)
			seen |= starts[k] == t;
		if (!seen)
			starts[n++] = t;
	}
	qsort(starts, n, sizeof(*starts), cmp_u32);
	return n;
}

int case_funcs_build(const char *spec, const char *ctx_name, const struct bpf_insn *insns, size_t cnt,
		     struct case_funcs *out, char *err, size_t err_size)
{
	char buf[512], *save = NULL;
	memset(out, 0, sizeof(*out));
	snprintf(buf, sizeof(buf), "%s", spec);
	struct btf *btf = btf__new_empty();
	if (!btf) {
		snprintf(err, err_size, "funcs: cannot make a BTF");
		return -1;
	}
	struct types t;
	t.int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t.long_id = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t.ctx_id = btf__add_struct(btf, ctx_name ? ctx_name : "ctx", 0);
	t.int_ptr = btf__add_ptr(btf, t.int_id);
	t.long_ptr = btf__add_ptr(btf, t.long_id);
	t.void_ptr = btf__add_ptr(btf, 0);
	t.ctx_ptr = btf__add_ptr(btf, t.ctx_id);
	uint32_t starts[CASE_MAX_FUNCS];
	unsigned nstarts = subprog_starts(insns, cnt, starts, CASE_MAX_FUNCS);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *f = trim(tok), *open = strchr(f, '('), *close = strrchr(f, ')');
		char kind[16], ret[16], name[64];
		if (out->nr == CASE_MAX_FUNCS || !open || !close || close < open)
			goto bad;
		*open = 0;
		*close = 0;
		if (sscanf(f, "%15s %15s %63s", kind, ret, name) != 3)
			goto bad;
		int linkage = !strcmp(kind, "global") ? BTF_FUNC_GLOBAL : !strcmp(kind, "static") ? BTF_FUNC_STATIC : -1;
		int rid = type_id(&t, ret);
		if (linkage < 0 || rid < 0)
			goto bad;
		int proto = btf__add_func_proto(btf, rid);
		char *asave = NULL, *args = open + 1;
		char tags[5][4][16];
		int nargs = 0, ntags[5] = { 0 };
		for (char *a = strtok_r(args, ",", &asave); a; a = strtok_r(NULL, ",", &asave)) {
			a = trim(a);
			if (!*a)
				continue;
			/* "TYPE [__arg_TAG...]": each tag a decl tag "arg:TAG" on this argument */
			char *wsave = NULL, *w = strtok_r(a, " ", &wsave);
			int aid = w ? type_id(&t, w) : -1;
			if (aid <= 0 || nargs == 5 || btf__add_func_param(btf, "arg", aid))
				goto bad;
			while ((w = strtok_r(NULL, " ", &wsave))) {
				if (strncmp(w, "__arg_", 6) || ntags[nargs] == 4 || strlen(w + 6) + 5 > sizeof(tags[0][0]))
					goto bad;
				snprintf(tags[nargs][ntags[nargs]++], sizeof(tags[0][0]), "arg:%s", w + 6);
			}
			nargs++;
		}
		int fid = btf__add_func(btf, name, linkage, proto);
		if (proto < 0 || fid < 0)
			goto bad;
		for (int i = 0; i < nargs; i++)
			for (int k = 0; k < ntags[i]; k++)
				if (btf__add_decl_tag(btf, tags[i][k], fid, i) < 0)
					goto bad;
		/* records beyond the subprograms found keep counting past the end, so the
		 * verifier's own checks see the mismatch */
		out->info[out->nr].insn_off = out->nr < nstarts ? starts[out->nr] : (uint32_t)cnt + out->nr;
		out->info[out->nr].type_id = (uint32_t)fid;
		out->nr++;
	}
	out->btf = btf;
	return 0;
bad:
	snprintf(err, err_size, "funcs: cannot read \"%.200s\"", spec);
	btf__free(btf);
	return -1;
}

void case_funcs_free(struct case_funcs *f)
{
	btf__free(f->btf);
	f->btf = NULL;
}
