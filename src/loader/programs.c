/* SPDX-License-Identifier: Apache-2.0 */
/* Programs and subprograms: every executable section is cut into functions by its
 * STT_FUNC symbols (libbpf: several programs per section). Functions of .text are
 * subprograms, appended at load to the programs that call them; functions of any
 * other executable section are programs, named by their symbol. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loader/loader_internal.h"

void *obj_array_add(void **arr, size_t *nr, size_t elem)
{
	size_t n = *nr;
	/* grow by doubling: capacity is the next power of two >= n + 1 */
	bool full = n == 0 || (n & (n - 1)) == 0;
	if (full) {
		size_t cap = n ? n * 2 : 1;
		void *p = realloc(*arr, cap * elem);
		if (!p)
			return NULL;
		*arr = p;
	}
	void *e = (char *)*arr + n * elem;
	memset(e, 0, elem);
	(*nr)++;
	return e;
}

long obj_func_at(const struct kbpf_object *obj, size_t sec_idx, size_t insn_off)
{
	/* funcs are sorted by (section, offset) */
	size_t lo = 0, hi = obj->nr_funcs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct obj_func *f = &obj->funcs[mid];
		if (f->sec_idx < sec_idx || (f->sec_idx == sec_idx && f->insn_off < insn_off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < obj->nr_funcs && obj->funcs[lo].sec_idx == sec_idx && obj->funcs[lo].insn_off == insn_off)
		return (long)lo;
	return -1;
}

static int func_cmp(const void *a, const void *b)
{
	const struct obj_func *x = a, *y = b;
	if (x->sec_idx != y->sec_idx)
		return x->sec_idx < y->sec_idx ? -1 : 1;
	return x->insn_off < y->insn_off ? -1 : x->insn_off > y->insn_off;
}

static int copy_code(struct kbpf_object *obj, struct obj_elf *e)
{
	for (size_t i = 1; i < e->nr_secs; i++) {
		struct obj_sec *s = &e->secs[i];
		struct obj_code *c;

		if ((s->kind != SEC_PROG && s->kind != SEC_TEXT) || !s->size)
			continue;
		c = OBJ_ADD(obj->code, obj->nr_code);
		if (!c)
			return -ENOMEM;
		c->sec_idx = i;
		s->code_idx = (long)(c - obj->code);
		c->insn_cnt = s->size / sizeof(struct bpf_insn);
		c->sec_name = strdup(s->name);
		c->insns = malloc(s->size);
		if (!c->sec_name || !c->insns)
			return -ENOMEM;
		memcpy(c->insns, s->data, s->size);
	}
	return 0;
}

/* Collect the STT_FUNC symbols of executable sections. */
static int collect_funcs(struct kbpf_object *obj, const struct obj_elf *e)
{
	for (size_t i = 1; i < e->nr_syms; i++) {
		GElf_Sym sym;
		const char *name;
		struct obj_func *f;
		long code;

		if (obj_elf_sym(e, i, &sym, &name)) {
			obj_log(&obj->log, "symbol #%zu: bad symbol or name", i);
			return -EINVAL;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= e->nr_secs)
			continue;
		code = e->secs[sym.st_shndx].code_idx;
		if (code < 0)
			continue;
		const struct obj_code *c = &obj->code[code];
		if (!*name) {
			obj_log(&obj->log, "section '%s': function symbol #%zu has no name", c->sec_name, i);
			return -EINVAL;
		}
		if (sym.st_value % sizeof(struct bpf_insn) || sym.st_size % sizeof(struct bpf_insn) || !sym.st_size ||
		    sym.st_value / sizeof(struct bpf_insn) > c->insn_cnt ||
		    sym.st_size / sizeof(struct bpf_insn) > c->insn_cnt - sym.st_value / sizeof(struct bpf_insn)) {
			obj_log(&obj->log, "section '%s': function '%s' at offset %llu size %llu is misaligned or outside the section",
				c->sec_name, name, (unsigned long long)sym.st_value, (unsigned long long)sym.st_size);
			return -EINVAL;
		}
		if (e->secs[sym.st_shndx].kind == SEC_PROG && GELF_ST_BIND(sym.st_info) == STB_LOCAL) {
			obj_log(&obj->log, "section '%s': program '%s' is static, which is not supported (libbpf neither)",
				c->sec_name, name);
			return -ENOTSUP;
		}
		if (strlen(name) >= KBPF_OBJ_MAX_NAME) {
			obj_log(&obj->log, "section '%s': function name '%.32s…' is too long", c->sec_name, name);
			return -EINVAL;
		}
		f = OBJ_ADD(obj->funcs, obj->nr_funcs);
		if (!f)
			return -ENOMEM;
		f->name = strdup(name);
		if (!f->name)
			return -ENOMEM;
		f->sec_idx = sym.st_shndx;
		f->code_idx = (size_t)code;
		f->insn_off = sym.st_value / sizeof(struct bpf_insn);
		f->insn_cnt = sym.st_size / sizeof(struct bpf_insn);
		f->insns = c->insns + f->insn_off;
	}
	if (obj->nr_funcs)
		qsort(obj->funcs, obj->nr_funcs, sizeof(*obj->funcs), func_cmp);
	return 0;
}

/* Functions must tile each executable section exactly, as libbpf requires. */
static int check_tiling(struct kbpf_object *obj)
{
	size_t f = 0;

	for (size_t ci = 0; ci < obj->nr_code; ci++) {
		const struct obj_code *c = &obj->code[ci];
		size_t off = 0;

		while (f < obj->nr_funcs && obj->funcs[f].sec_idx < c->sec_idx)
			f++;
		for (; f < obj->nr_funcs && obj->funcs[f].sec_idx == c->sec_idx; f++) {
			if (obj->funcs[f].insn_off != off) {
				obj_log(&obj->log, "section '%s': function '%s' at insn %zu %s", c->sec_name,
					obj->funcs[f].name, obj->funcs[f].insn_off,
					obj->funcs[f].insn_off < off ? "overlaps the previous function"
								      : "leaves instructions without a function symbol before it");
				return -EINVAL;
			}
			off += obj->funcs[f].insn_cnt;
		}
		if (off != c->insn_cnt) {
			obj_log(&obj->log, "section '%s': no function symbol at insn %zu", c->sec_name, off);
			return -EINVAL;
		}
	}
	return 0;
}

int obj_programs_collect(struct kbpf_object *obj, struct obj_elf *e)
{
	size_t nr = 0;
	int ret = copy_code(obj, e);

	if (!ret)
		ret = collect_funcs(obj, e);
	if (!ret)
		ret = check_tiling(obj);
	if (ret)
		return ret;

	for (size_t i = 0; i < obj->nr_funcs; i++)
		nr += e->secs[obj->funcs[i].sec_idx].kind == SEC_PROG;
	obj->progs = calloc(nr ? nr : 1, sizeof(*obj->progs));
	if (!obj->progs)
		return -ENOMEM;
	for (size_t i = 0; i < obj->nr_funcs; i++) {
		struct obj_func *f = &obj->funcs[i];
		struct kbpf_program *p;
		const char *sec;

		if (e->secs[f->sec_idx].kind != SEC_PROG)
			continue;
		p = &obj->progs[obj->nr_progs++];
		sec = e->secs[f->sec_idx].name;
		p->obj = obj;
		p->name = strdup(f->name);
		p->sec_name = strdup(sec);
		if (!p->name || !p->sec_name)
			return -ENOMEM;
		p->func_idx = i;
		p->autoload = sec[0] != '?';
		p->type = obj_prog_type_from_sec(sec[0] == '?' ? sec + 1 : sec);
		f->prog = p;
	}
	return 0;
}
