/* SPDX-License-Identifier: Apache-2.0 */
/* Linking one program at load, as libbpf does: the program's own instructions, then
 * each .text subprogram it (transitively) calls or takes the address of, appended once;
 * every copied function gets its relocations (maps, global data, externs, calls), its
 * CO-RE relocations (against the host's BTF) and its func_info/line_info, re-based to
 * where it landed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/btf_ext.h"
#include "btf/core.h"
#include "loader/loader_internal.h"

/* The largest program Linux accepts (BPF_COMPLEXITY_LIMIT_INSNS). */
#define LINK_MAX_INSNS (1u << 20)

struct placed {
	size_t func_idx;
	size_t start;
};

struct linker {
	struct kbpf_object *obj;
	struct kbpf_program *prog;
	struct bpf_insn *insns;
	size_t cnt, cap;
	struct placed *placed;
	size_t nr_placed;
	size_t *placed_at;       /* per function: its start, or SIZE_MAX */
	struct bpf_func_info *fi;
	size_t nr_fi;
	struct bpf_line_info *li;
	size_t nr_li;
};

#define LOG(l, fmt, ...) obj_log(&(l)->obj->log, "program '%s': " fmt, (l)->prog->name, ##__VA_ARGS__)

static int ext_info(struct linker *l, const struct obj_func *f, const struct obj_code *c, size_t start)
{
	const struct kbpf_btf_ext_sec *sec = l->obj->btf_ext ? kbpf_btf_ext_find(l->obj->btf_ext, c->sec_name) : NULL;
	uint64_t lo = (uint64_t)f->insn_off * 8, hi = (uint64_t)(f->insn_off + f->insn_cnt) * 8;

	if (!sec)
		return 0;
	for (size_t i = 0; i < sec->nr_func_info; i++) {
		struct bpf_func_info fi = sec->func_info[i];
		if (fi.insn_off < lo || fi.insn_off >= hi)
			continue;
		if (fi.insn_off % 8) {
			LOG(l, "section '%s': func_info #%zu: insn_off %u is not a multiple of 8", c->sec_name, i, fi.insn_off);
			return -EINVAL;
		}
		fi.insn_off = (uint32_t)(fi.insn_off / 8 - f->insn_off + start);
		struct bpf_func_info *d = OBJ_ADD(l->fi, l->nr_fi);
		if (!d)
			return -ENOMEM;
		*d = fi;
	}
	for (size_t i = 0; i < sec->nr_line_info; i++) {
		struct bpf_line_info li = sec->line_info[i];
		if (li.insn_off < lo || li.insn_off >= hi)
			continue;
		if (li.insn_off % 8) {
			LOG(l, "section '%s': line_info #%zu: insn_off %u is not a multiple of 8", c->sec_name, i, li.insn_off);
			return -EINVAL;
		}
		li.insn_off = (uint32_t)(li.insn_off / 8 - f->insn_off + start);
		struct bpf_line_info *d = OBJ_ADD(l->li, l->nr_li);
		if (!d)
			return -ENOMEM;
		*d = li;
	}
	return 0;
}

static int core_relos(struct linker *l, const struct obj_func *f, const struct obj_code *c, size_t start)
{
	struct kbpf_object *obj = l->obj;
	const struct kbpf_btf_ext_sec *sec = obj->btf_ext ? kbpf_btf_ext_find(obj->btf_ext, c->sec_name) : NULL;
	/* the CO-RE target: the object's btf_custom_path, else the host's BTF */
	const struct btf *host_btf = obj->core_btf ? obj->core_btf : kbpf_host_btf(obj->host);
	uint64_t lo = (uint64_t)f->insn_off * 8, hi = (uint64_t)(f->insn_off + f->insn_cnt) * 8;

	if (!sec)
		return 0;
	for (size_t i = 0; i < sec->nr_core_relo; i++) {
		const struct bpf_core_relo *relo = &sec->core_relo[i];
		char log[512] = "";
		int ret;

		if (relo->insn_off < lo || relo->insn_off >= hi)
			continue;
		if (relo->insn_off % 8) {
			LOG(l, "section '%s': CO-RE relocation #%zu: insn_off %u is not a multiple of 8", c->sec_name, i,
			    relo->insn_off);
			return -EINVAL;
		}
		if (!host_btf && relo->kind != BPF_CORE_TYPE_ID_LOCAL) {
			LOG(l, "CO-RE relocation #%zu needs the host's BTF, and the host has none "
			       "(kbpf_host_btf_load_self / kbpf_host_btf_load_file)", i);
			return -ESRCH;
		}
		if (!obj->core_ctx) {
			/* one candidate cache per object, as libbpf keeps */
			obj->core_ctx = kbpf_core_ctx_new(obj->btf, host_btf);
			if (!obj->core_ctx)
				return -ENOMEM;
		}
		ret = kbpf_core_ctx_apply(obj->core_ctx, relo, (int)i, l->insns, l->cnt,
					  relo->insn_off / 8 - f->insn_off + start, log, sizeof(log));
		if (log[0])
			obj_log(&obj->log, "program '%s': %s", l->prog->name, log);
		const char *poisoned = ret ? NULL : strstr(log, " poisoned: ");
		if (poisoned && obj_core_poison_add(l->prog, relo->insn_off / 8 - f->insn_off + start, (int)i,
						    poisoned + strlen(" poisoned: ")))
			return -ENOMEM;
		if (ret) {
			if (!log[0])
				LOG(l, "CO-RE relocation #%zu failed: %s", i, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Copy function func_idx to the end of the program (once); its start in *start. */
static int place(struct linker *l, size_t func_idx, size_t *start)
{
	const struct obj_func *f = &l->obj->funcs[func_idx];
	size_t ci = f->code_idx;
	int ret;

	if (l->placed_at[func_idx] != SIZE_MAX) {
		*start = l->placed_at[func_idx];
		return 0;
	}
	if (l->cnt + f->insn_cnt > LINK_MAX_INSNS) {
		LOG(l, "more than %u instructions with its subprograms", LINK_MAX_INSNS);
		return -E2BIG;
	}
	if (l->cnt + f->insn_cnt > l->cap) {
		size_t cap = l->cap ? l->cap : 64;
		while (cap < l->cnt + f->insn_cnt)
			cap *= 2;
		struct bpf_insn *n = realloc(l->insns, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->insns = n;
		l->cap = cap;
	}
	*start = l->cnt;
	memcpy(l->insns + l->cnt, f->insns, f->insn_cnt * sizeof(*f->insns));
	l->cnt += f->insn_cnt;
	struct placed *p = OBJ_ADD(l->placed, l->nr_placed);
	if (!p)
		return -ENOMEM;
	p->func_idx = func_idx;
	p->start = *start;
	l->placed_at[func_idx] = *start;
	ret = ext_info(l, f, &l->obj->code[ci], *start);
	if (!ret)
		ret = core_relos(l, f, &l->obj->code[ci], *start);
	return ret;
}

/* The function starting at instruction sub of .text (or of section sec_idx), placed. */
static int place_target(struct linker *l, size_t sec_idx, int64_t sub, const char *what, size_t at, size_t *start)
{
	long fn = sub >= 0 ? obj_func_at(l->obj, sec_idx, (size_t)sub) : -1;

	if (fn < 0) {
		LOG(l, "insn %zu: %s insn %lld of section '%s', which is not the start of a function", at, what,
		    (long long)sub, obj_sec_name(l->obj, sec_idx));
		return -EINVAL;
	}
	return place(l, (size_t)fn, start);
}

static int apply(struct linker *l, const struct obj_relo *r, const struct obj_func *f, size_t base)
{
	struct kbpf_object *obj = l->obj;
	size_t i = base + (r->insn_idx - f->insn_off), start;
	struct bpf_insn *insn = &l->insns[i];
	const struct obj_extern *ext;
	int64_t off;
	int ret;

	if ((r->kind == RELO_LD64_MAP || r->kind == RELO_LD64_DATA) && l->obj->maps[r->map_idx].no_create) {
		LOG(l, "insn %zu: uses map '%s', which is not created (autocreate off)", i, l->obj->maps[r->map_idx].name);
		return -ENOENT;
	}
	switch (r->kind) {
	case RELO_LD64_MAP:
		insn[0].src_reg = BPF_PSEUDO_MAP_IDX;
		insn[0].imm = (int32_t)r->map_idx;
		insn[1].imm = 0;
		return 0;
	case RELO_LD64_DATA:
		off = (int64_t)insn[0].imm + (int64_t)r->sym_off;
		if (off < 0 || (uint64_t)off >= obj->maps[r->map_idx].value_size) {
			LOG(l, "insn %zu: relocation #%zu of '%s' against '%s': offset %lld is outside map '%s' (%u bytes)", i,
			    r->rel_entry, obj_sec_name(obj, r->rel_sec), r->sym_name, (long long)off,
			    obj->maps[r->map_idx].name, obj->maps[r->map_idx].value_size);
			return -EINVAL;
		}
		insn[0].src_reg = BPF_PSEUDO_MAP_IDX_VALUE;
		insn[0].imm = (int32_t)r->map_idx;
		insn[1].imm = (int32_t)off;
		return 0;
	case RELO_LD64_EXTERN:
		ext = &obj->externs[r->ext_idx];
		if (ext->err) {
			LOG(l, "%s", ext->err_msg);
			return ext->err;
		}
		if (ext->kind == EXT_KCONFIG) {
			insn[0].src_reg = BPF_PSEUDO_MAP_IDX_VALUE;
			insn[0].imm = obj->kconfig_map;
			insn[1].imm = (int32_t)ext->data_off;
		} else if (ext->kind == EXT_KSYM_VAR && ext->resolved && !ext->typeless) {
			/* a typed ksym, as libbpf: the host VAR's id; the verifier types it */
			insn[0].src_reg = BPF_PSEUDO_BTF_ID;
			insn[0].imm = (int32_t)ext->host_btf_id;
			insn[1].imm = 0;
		} else if (ext->kind == EXT_KSYM_VAR && ext->resolved) {
			/* a typeless ksym: the address itself */
			insn[0].src_reg = 0;
			insn[0].imm = (int32_t)(uint32_t)(uintptr_t)ext->var_addr;
			insn[1].imm = (int32_t)(uint32_t)((uint64_t)(uintptr_t)ext->var_addr >> 32);
		} else if (ext->kind == EXT_KFUNC && ext->resolved) {
			/* bpf_ksym_exists(): the kfunc's BTF id, as libbpf >= 1.2 emits it */
			insn[0].src_reg = BPF_PSEUDO_BTF_ID;
			insn[0].imm = (int32_t)ext->host_btf_id;
			insn[1].imm = 0;
		} else {
			/* an unresolved weak ksym: address 0 */
			insn[0].src_reg = 0;
			insn[0].imm = 0;
			insn[1].imm = 0;
		}
		return 0;
	case RELO_EXTERN_CALL:
		ext = &obj->externs[r->ext_idx];
		if (ext->err) {
			LOG(l, "%s", ext->err_msg);
			return ext->err;
		}
		insn->src_reg = BPF_PSEUDO_KFUNC_CALL;
		insn->imm = ext->resolved ? (int32_t)ext->host_btf_id : 0;
		insn->off = 0;
		return 0;
	case RELO_CALL: {
		/* global callees: imm is -1 and the symbol is the function; static ones: the
		 * symbol is the section and imm + 1 the callee's instruction */
		int64_t sub = (int64_t)(r->sym_off / 8) + insn->imm + 1;
		ret = place_target(l, obj->text_sec, sub, "call to", i, &start);
		if (ret)
			return ret;
		l->insns[i].imm = (int32_t)((int64_t)start - (int64_t)(i + 1));
		return 0;
	}
	case RELO_SUBPROG_ADDR: {
		int64_t sub = ((int64_t)r->sym_off + insn->imm) / 8;
		ret = place_target(l, obj->text_sec, sub, "address of", i, &start);
		if (ret)
			return ret;
		l->insns[i].src_reg = BPF_PSEUDO_FUNC;
		l->insns[i].imm = (int32_t)((int64_t)start - (int64_t)(i + 1));
		l->insns[i + 1].imm = 0;
		return 0;
	}
	}
	return -EINVAL;
}

/* Relocate the copy of placed function #p (and place what it calls). */
static int relocate_func(struct linker *l, size_t p)
{
	const size_t func_idx = l->placed[p].func_idx, base = l->placed[p].start;
	const struct obj_func *f = &l->obj->funcs[func_idx];
	const long ci = (long)f->code_idx;
	size_t lo = 0, hi = l->obj->nr_relos;
	int ret;

	/* first relocation of this function: relos are sorted by (code, insn) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct obj_relo *r = &l->obj->relos[mid];
		if ((long)r->code_idx < ci || ((long)r->code_idx == ci && r->insn_idx < f->insn_off))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t next = lo;
	for (size_t k = 0; k < f->insn_cnt; k++) {
		const struct obj_relo *r = next < l->obj->nr_relos ? &l->obj->relos[next] : NULL;
		size_t i = base + k;

		if (r && (long)r->code_idx == ci && r->insn_idx == f->insn_off + k) {
			if (r->kind != RELO_CALL && r->kind != RELO_EXTERN_CALL && k + 1 >= f->insn_cnt) {
				LOG(l, "insn %zu: ld_imm64 split by the end of function '%s'", i, f->name);
				return -EINVAL;
			}
			ret = apply(l, r, f, base);
			if (ret)
				return ret;
			next++;
			continue;
		}
		const struct bpf_insn *insn = &l->insns[i];
		if (insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL) {
			/* a call without relocation: to a function of the same section */
			int64_t sub = (int64_t)(f->insn_off + k) + insn->imm + 1;
			size_t start;
			ret = place_target(l, f->sec_idx, sub, "call to", i, &start);
			if (ret)
				return ret;
			l->insns[i].imm = (int32_t)((int64_t)start - (int64_t)(i + 1));
		} else if (insn->code == (BPF_LD | BPF_IMM | BPF_DW) && insn->src_reg == BPF_PSEUDO_FUNC) {
			LOG(l, "insn %zu: subprogram address without a relocation", i);
			return -EINVAL;
		} else if (insn->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			k++; /* skip the second slot */
		}
	}
	return 0;
}

int obj_program_link(struct kbpf_object *obj, struct kbpf_program *prog)
{
	struct linker l = { .obj = obj, .prog = prog };
	size_t start;
	int ret;

	obj_core_poisons_free(prog);
	l.placed_at = malloc(obj->nr_funcs * sizeof(*l.placed_at));
	if (!l.placed_at)
		return -ENOMEM;
	for (size_t i = 0; i < obj->nr_funcs; i++)
		l.placed_at[i] = SIZE_MAX;
	ret = place(&l, prog->func_idx, &start);

	for (size_t p = 0; !ret && p < l.nr_placed; p++)
		ret = relocate_func(&l, p);
	free(l.placed);
	free(l.placed_at);
	/* keep what was linked, even on failure: it shows where things went wrong */
	free(prog->insns);
	free(prog->func_info);
	free(prog->line_info);
	prog->insns = l.insns;
	prog->insn_cnt = l.cnt;
	prog->func_info = l.fi;
	prog->nr_func_info = l.nr_fi;
	prog->line_info = l.li;
	prog->nr_line_info = l.nr_li;
	return ret;
}
