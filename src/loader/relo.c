/* SPDX-License-Identifier: Apache-2.0 */
/* ELF relocations of executable sections, checked and classified at open (what libbpf
 * calls recording relocations); link.c applies them to each program's copy at load.
 *   LDDW  + symbol in .maps/maps       -> a map
 *   LDDW  + symbol in a data section   -> global data: map value + offset
 *   LDDW  + undefined symbol           -> an extern (kconfig value, ksym address)
 *   LDDW  + .text function/section     -> a subprogram's address (BPF_PSEUDO_FUNC)
 *   CALL  + .text function/section     -> a BPF-to-BPF call
 *   CALL  + undefined symbol           -> a kfunc call */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loader/loader_internal.h"

static int relo_cmp(const void *a, const void *b)
{
	const struct obj_relo *x = a, *y = b;
	if (x->code_idx != y->code_idx)
		return x->code_idx < y->code_idx ? -1 : 1;
	return x->insn_idx < y->insn_idx ? -1 : x->insn_idx > y->insn_idx;
}

static bool is_ldimm64(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW);
}

static bool is_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL);
}

/* Classify relocation #i of REL section rs (targeting code block ci). */
static int record(struct kbpf_object *obj, const struct obj_elf *e, size_t rel_sec, size_t i, const GElf_Rel *rel,
		  size_t ci)
{
	const struct obj_code *c = &obj->code[ci];
	const char *where = c->sec_name;
	uint32_t type = (uint32_t)GELF_R_TYPE(rel->r_info);
	size_t sym_idx = GELF_R_SYM(rel->r_info), insn_idx;
	const struct bpf_insn *insn;
	struct obj_relo *r;
	const char *name;
	GElf_Sym sym;

	if (rel->r_offset % sizeof(struct bpf_insn) || rel->r_offset / sizeof(struct bpf_insn) >= c->insn_cnt) {
		obj_log(&obj->log, "section '%s': relocation #%zu: offset %llu is misaligned or outside the section",
			where, i, (unsigned long long)rel->r_offset);
		return -EINVAL;
	}
	insn_idx = rel->r_offset / sizeof(struct bpf_insn);
	insn = &c->insns[insn_idx];
	if (obj_elf_sym(e, sym_idx, &sym, &name)) {
		obj_log(&obj->log, "section '%s': relocation #%zu: bad symbol index %zu", where, i, sym_idx);
		return -EINVAL;
	}
	if (GELF_ST_TYPE(sym.st_info) == STT_SECTION && sym.st_shndx < e->nr_secs && e->secs[sym.st_shndx].name)
		name = e->secs[sym.st_shndx].name;
	if (type != KBPF_R_BPF_64_64 && type != KBPF_R_BPF_64_32) {
		obj_log(&obj->log, "section '%s': relocation #%zu against '%s': unsupported type %u", where, i, name, type);
		return -EINVAL;
	}
	if (is_ldimm64(insn) && insn_idx + 1 >= c->insn_cnt) {
		obj_log(&obj->log, "section '%s': relocation #%zu: insn %zu is a truncated ld_imm64", where, i, insn_idx);
		return -EINVAL;
	}

	r = OBJ_ADD(obj->relos, obj->nr_relos);
	if (!r || !(r->sym_name = strdup(name)))
		return -ENOMEM;
	r->code_idx = ci;
	r->insn_idx = insn_idx;
	r->rel_sec = rel_sec;
	r->rel_entry = i;

	bool undef = sym.st_shndx == SHN_UNDEF;
	if (undef && (!*name || (GELF_ST_BIND(sym.st_info) != STB_GLOBAL && GELF_ST_BIND(sym.st_info) != STB_WEAK))) {
		obj_log(&obj->log, "section '%s': relocation #%zu: against undefined local symbol #%zu", where, i,
			sym_idx);
		return -EINVAL;
	}
	if (undef) {
		long ext = obj_extern_by_name(obj, name);
		if (ext < 0) {
			obj_log(&obj->log, "section '%s': relocation #%zu: extern '%s' is unknown", where, i, name);
			return -EINVAL;
		}
		r->ext_idx = (size_t)ext;
		if (is_call(insn)) {
			if (insn->src_reg != BPF_PSEUDO_CALL || obj->externs[ext].kind != EXT_KFUNC) {
				obj_log(&obj->log, "section '%s': relocation #%zu: call of '%s', which is not a __ksym function",
					where, i, name);
				return -EINVAL;
			}
			r->kind = RELO_EXTERN_CALL;
			return 0;
		}
		if (!is_ldimm64(insn)) {
			obj_log(&obj->log, "section '%s': relocation #%zu against '%s': insn %zu (code 0x%02x) is not ld_imm64",
				where, i, name, insn_idx, insn->code);
			return -EINVAL;
		}
		r->kind = RELO_LD64_EXTERN;
		return 0;
	}
	if (sym.st_shndx >= e->nr_secs) {
		obj_log(&obj->log, "section '%s': relocation #%zu against '%s': section index %u is out of range", where,
			i, name, sym.st_shndx);
		return -EINVAL;
	}
	const struct obj_sec *target = &e->secs[sym.st_shndx];
	if (is_call(insn)) {
		if (insn->src_reg != BPF_PSEUDO_CALL) {
			obj_log(&obj->log, "section '%s': relocation #%zu: insn %zu: incorrect bpf_call opcode", where, i,
				insn_idx);
			return -EINVAL;
		}
		if (target->kind != SEC_TEXT) {
			obj_log(&obj->log, "section '%s': relocation #%zu: bad call relo against '%s' in section '%s'", where,
				i, name, target->name ? target->name : "?");
			return -EINVAL;
		}
		if (sym.st_value % sizeof(struct bpf_insn)) {
			obj_log(&obj->log, "section '%s': relocation #%zu: bad call relo against '%s' at offset %llu", where,
				i, name, (unsigned long long)sym.st_value);
			return -EINVAL;
		}
		r->kind = RELO_CALL;
		r->sym_off = sym.st_value;
		return 0;
	}
	if (!is_ldimm64(insn)) {
		obj_log(&obj->log, "section '%s': relocation #%zu against '%s': insn %zu (code 0x%02x) is not ld_imm64",
			where, i, name, insn_idx, insn->code);
		return -EINVAL;
	}
	if (target->kind == SEC_TEXT &&
	    (GELF_ST_TYPE(sym.st_info) == STT_FUNC || GELF_ST_TYPE(sym.st_info) == STT_SECTION)) {
		if (sym.st_value % sizeof(struct bpf_insn) || insn->imm % (int)sizeof(struct bpf_insn)) {
			obj_log(&obj->log, "section '%s': relocation #%zu: bad subprog address relo against '%s' (offset %llu%+d)",
				where, i, name, (unsigned long long)sym.st_value, insn->imm);
			return -EINVAL;
		}
		r->kind = RELO_SUBPROG_ADDR;
		r->sym_off = sym.st_value;
		return 0;
	}
	if (target->kind == SEC_MAPS || target->kind == SEC_LEGACY_MAPS) {
		long m = obj_map_by_def(obj, sym.st_shndx, sym.st_value);
		if (m < 0) {
			obj_log(&obj->log, "section '%s': relocation #%zu against '%s': no map at offset %llu of '%s'", where,
				i, name, (unsigned long long)sym.st_value, target->name);
			return -EINVAL;
		}
		r->kind = RELO_LD64_MAP;
		r->map_idx = (size_t)m;
		return 0;
	}
	if (target->kind == SEC_DATA || target->kind == SEC_RODATA || target->kind == SEC_BSS) {
		long m = obj_map_by_data_sec(obj, sym.st_shndx);
		if (m < 0 || sym.st_value >= target->size) {
			obj_log(&obj->log, "section '%s': relocation #%zu against '%s': offset %llu is outside '%s'", where, i,
				name, (unsigned long long)sym.st_value, target->name);
			return -EINVAL;
		}
		r->kind = RELO_LD64_DATA;
		r->map_idx = (size_t)m;
		r->sym_off = sym.st_value;
		return 0;
	}
	obj_log(&obj->log, "section '%s': relocation #%zu against '%s': section '%s' cannot be referenced by a program",
		where, i, name, target->name ? target->name : "?");
	return -EINVAL;
}

int obj_relos_collect(struct kbpf_object *obj, struct obj_elf *e)
{
	for (size_t rs = 1; rs < e->nr_secs; rs++) {
		const struct obj_sec *s = &e->secs[rs];
		Elf_Data *data;
		long ci;

		if (s->kind != SEC_REL || s->shdr.sh_info >= e->nr_secs)
			continue;
		ci = e->secs[s->shdr.sh_info].code_idx;
		if (ci < 0)
			continue; /* relocations of debug info, BTF, … */
		if (s->shdr.sh_link != e->symtab_idx) {
			obj_log(&obj->log, "section '%s': relocations against a symbol table other than the object's", s->name);
			return -EINVAL;
		}
		data = elf_getdata(elf_getscn(e->elf, rs), NULL);
		if (!data) {
			obj_log(&obj->log, "section '%s': cannot read it: %s", s->name, elf_errmsg(-1));
			return -EINVAL;
		}
		size_t n = data->d_size / sizeof(Elf64_Rel);
		for (size_t i = 0; i < n; i++) {
			GElf_Rel rel;
			int ret;

			if (!gelf_getrel(data, (int)i, &rel)) {
				obj_log(&obj->log, "section '%s': relocation #%zu: cannot read it", s->name, i);
				return -EINVAL;
			}
			ret = record(obj, e, rs, i, &rel, (size_t)ci);
			if (ret)
				return ret;
		}
	}
	if (obj->nr_relos)
		qsort(obj->relos, obj->nr_relos, sizeof(*obj->relos), relo_cmp);
	for (size_t i = 1; i < obj->nr_relos; i++) {
		const struct obj_relo *a = &obj->relos[i - 1], *b = &obj->relos[i];
		if (a->code_idx == b->code_idx && a->insn_idx == b->insn_idx) {
			obj_log(&obj->log, "section '%s': two relocations for insn %zu ('%s' and '%s')",
				obj->code[a->code_idx].sec_name, a->insn_idx, a->sym_name, b->sym_name);
			return -EINVAL;
		}
	}
	return 0;
}
