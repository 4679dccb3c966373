/* SPDX-License-Identifier: Apache-2.0 */
/* .struct_ops / .struct_ops.link: each variable is a struct (e.g. tcp_congestion_ops)
 * whose function-pointer members the object fills with its programs through
 * relocations (R_BPF_64_ABS64 in .rel.struct_ops), libbpf's struct_ops maps. Here they
 * become a description: the struct's type, its initial bytes, and who fills which
 * member. Registering it with a host is the struct_ops work's business. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "loader/loader_internal.h"

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id, uint32_t *res)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int depth = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); depth++) {
		if (depth == 32)
			return NULL;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (res)
		*res = id;
	return t;
}

static bool is_func_ptr(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = skip_mods(btf, type_id, NULL);
	if (!t || !btf_is_ptr(t))
		return false;
	t = skip_mods(btf, t->type, NULL);
	return t && btf_is_func_proto(t);
}

static int add_var(struct kbpf_object *obj, const struct obj_sec *s, const struct btf_var_secinfo *vsi,
		   uint32_t var_off)
{
	const struct btf *btf = obj->btf;
	const struct btf_type *var = btf__type_by_id(btf, vsi->type), *st;
	const char *name, *type_name;
	struct obj_struct_ops *so;
	uint32_t type_id;

	if (!var || !btf_is_var(var)) {
		obj_log(&obj->log, "section '%s': DATASEC entry is not a VAR", s->name);
		return -EINVAL;
	}
	name = btf__name_by_offset(btf, var->name_off);
	st = skip_mods(btf, var->type, &type_id);
	if (!name || !*name || strlen(name) >= KBPF_OBJ_MAX_NAME) {
		obj_log(&obj->log, "section '%s': struct_ops variable without a usable name", s->name);
		return -EINVAL;
	}
	if (!st || !btf_is_struct(st)) {
		obj_log(&obj->log, "struct_ops '%s': not a struct", name);
		return -EINVAL;
	}
	type_name = btf__name_by_offset(btf, st->name_off);
	if (!type_name || !*type_name) {
		obj_log(&obj->log, "struct_ops '%s': its struct has no name", name);
		return -EINVAL;
	}
	if (var_off > s->size || st->size > s->size - var_off) {
		obj_log(&obj->log, "struct_ops '%s': %u bytes at offset %u are outside section '%s' (%zu bytes)", name,
			st->size, var_off, s->name, s->size);
		return -EINVAL;
	}
	so = OBJ_ADD(obj->struct_ops, obj->nr_struct_ops);
	if (!so)
		return -ENOMEM;
	so->name = strdup(name);
	so->sec_name = strdup(s->name);
	so->type_name = strdup(type_name);
	so->data = malloc(st->size ? st->size : 1);
	if (!so->name || !so->sec_name || !so->type_name || !so->data)
		return -ENOMEM;
	memcpy(so->data, (const char *)s->data + var_off, st->size);
	so->desc.data_size = st->size;
	so->desc.type_id = type_id;
	so->var_off = var_off;

	const struct btf_member *m = btf_members(st);
	for (uint16_t i = 0; i < btf_vlen(st); i++, m++) {
		if (!is_func_ptr(btf, m->type))
			continue;
		uint32_t bit = btf_member_bit_offset(st, i);
		const char *mname = btf__name_by_offset(btf, m->name_off);
		if (bit % 64 || bit / 8 + 8 > st->size || !mname) {
			obj_log(&obj->log, "struct_ops '%s': function pointer member #%u is misplaced", name, i);
			return -EINVAL;
		}
		struct kbpf_struct_ops_member *mem = OBJ_ADD(so->members, so->desc.nr_members);
		if (!mem)
			return -ENOMEM;
		mem->name = mname; /* the object's BTF string table lives as long as the object */
		mem->offset = bit / 8;
	}
	return 0;
}

static int apply_relos(struct kbpf_object *obj, struct obj_elf *e, size_t sec, size_t first, size_t end)
{
	for (size_t r = 1; r < e->nr_secs; r++) {
		const struct obj_sec *rs = &e->secs[r];
		Elf_Data *data;

		if (rs->kind != SEC_REL || rs->shdr.sh_info != sec)
			continue;
		data = elf_getdata(elf_getscn(e->elf, r), NULL);
		if (!data) {
			obj_log(&obj->log, "section '%s': cannot read it: %s", rs->name, elf_errmsg(-1));
			return -EINVAL;
		}
		size_t n = data->d_size / sizeof(Elf64_Rel);
		for (size_t i = 0; i < n; i++) {
			struct obj_struct_ops *so = NULL;
			struct kbpf_struct_ops_member *mem = NULL;
			const char *sym_name;
			GElf_Rel rel;
			GElf_Sym sym;

			if (!gelf_getrel(data, (int)i, &rel) || obj_elf_sym(e, GELF_R_SYM(rel.r_info), &sym, &sym_name)) {
				obj_log(&obj->log, "section '%s': relocation #%zu: bad entry or symbol", rs->name, i);
				return -EINVAL;
			}
			for (size_t k = first; k < end && !so; k++)
				if (rel.r_offset >= obj->struct_ops[k].var_off &&
				    rel.r_offset - obj->struct_ops[k].var_off < obj->struct_ops[k].desc.data_size)
					so = &obj->struct_ops[k];
			if (so)
				for (size_t k = 0; k < so->desc.nr_members && !mem; k++)
					if (so->members[k].offset == rel.r_offset - so->var_off)
						mem = &so->members[k];
			if (!mem) {
				obj_log(&obj->log, "section '%s': relocation #%zu at offset %llu is not a function pointer member",
					rs->name, i, (unsigned long long)rel.r_offset);
				return -EINVAL;
			}
			long fn = sym.st_shndx < e->nr_secs && e->secs[sym.st_shndx].kind == SEC_PROG &&
						  sym.st_value % 8 == 0
					  ? obj_func_at(obj, sym.st_shndx, sym.st_value / 8)
					  : -1;
			struct kbpf_program *prog = fn >= 0 ? obj->funcs[fn].prog : NULL;
			if (!prog) {
				obj_log(&obj->log, "struct_ops '%s': member '%s': '%s' is not a program", so->name, mem->name,
					sym_name);
				return -EINVAL;
			}
			if (prog->type != BPF_PROG_TYPE_STRUCT_OPS) {
				obj_log(&obj->log, "struct_ops '%s': member '%s': program '%s' is not a struct_ops program (SEC(\"struct_ops/...\"))",
					so->name, mem->name, prog->name);
				return -EINVAL;
			}
			mem->prog = prog;
			memset((char *)so->data + mem->offset, 0, 8); /* the addend, not a pointer */
		}
	}
	return 0;
}

int obj_struct_ops_collect(struct kbpf_object *obj, struct obj_elf *e)
{
	for (size_t i = 1; i < e->nr_secs; i++) {
		const struct obj_sec *s = &e->secs[i];
		size_t first = obj->nr_struct_ops;
		int id, ret;

		if (s->kind != SEC_STRUCT_OPS || !s->size)
			continue;
		if (!obj->btf) {
			obj_log(&obj->log, "section '%s': struct_ops need the object's BTF (compile with -g)", s->name);
			return -EINVAL;
		}
		id = btf__find_by_name_kind(obj->btf, s->name, BTF_KIND_DATASEC);
		if (id <= 0) {
			obj_log(&obj->log, "section '%s': no DATASEC of that name in the object's BTF", s->name);
			return -EINVAL;
		}
		const struct btf_type *sec = btf__type_by_id(obj->btf, id);
		const struct btf_var_secinfo *vsi = btf_var_secinfos(sec);
		for (uint16_t k = 0; k < btf_vlen(sec); k++, vsi++) {
			ret = add_var(obj, s, vsi, vsi->offset);
			if (ret)
				return ret;
			obj->struct_ops[obj->nr_struct_ops - 1].sec_idx = i;
		}
		ret = apply_relos(obj, e, i, first, obj->nr_struct_ops);
		if (ret)
			return ret;
	}
	/* the public descriptions, now that the arrays no longer move */
	for (size_t k = 0; k < obj->nr_struct_ops; k++) {
		struct obj_struct_ops *so = &obj->struct_ops[k];
		so->desc.name = so->name;
		so->desc.sec_name = so->sec_name;
		so->desc.type_name = so->type_name;
		so->desc.data = so->data;
		so->desc.members = so->members;
	}
	return 0;
}
