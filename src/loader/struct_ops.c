/* SPDX-License-Identifier: Apache-2.0 */
/* .struct_ops / .struct_ops.link: each variable is a struct (e.g. tcp_congestion_ops)
 * whose function-pointer members the object fills with its programs through
 * relocations (R_BPF_64_ABS64 in .rel.struct_ops), libbpf's struct_ops maps. Here they
 * become a description: the struct's type, its initial bytes, and who fills which
 * member. Registering it with a host is the struct_ops work's business; at load, a
 * program filling a member of a struct the host registered rules for is verified with
 * that member's prototype as its context (obj_struct_ops_attach). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/struct_ops.h>
#include "btf/btf_walk.h"
#include "loader/loader_internal.h"

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
	st = kbpf_btf_skip_mods(btf, var->type, &type_id);
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
		if (!kbpf_btf_func_ptr_proto(btf, m->type))
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

/* --- verifying the programs that fill members (Linux's check_struct_ops_btf_id) --- */

static bool license_gpl_compatible(const char *lic)
{
	static const char *const ok[] = { "GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
					  "Dual MIT/GPL", "Dual MPL/GPL" };
	for (size_t i = 0; lic && i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(lic, ok[i]))
			return true;
	return false;
}

/* The struct_ops variable and member p fills (the first one, in section order), and
 * whether it fills another member too. */
static const struct obj_struct_ops *filled_by(const struct kbpf_object *obj, const struct kbpf_program *p,
					      const struct kbpf_struct_ops_member **mem, const struct obj_struct_ops **so2,
					      const struct kbpf_struct_ops_member **mem2)
{
	const struct obj_struct_ops *first = NULL;
	*mem = *mem2 = NULL;
	*so2 = NULL;
	for (size_t k = 0; k < obj->nr_struct_ops; k++) {
		const struct obj_struct_ops *so = &obj->struct_ops[k];
		for (size_t j = 0; j < so->desc.nr_members; j++) {
			if (so->members[j].prog != p)
				continue;
			if (!first) {
				first = so;
				*mem = &so->members[j];
			} else if (strcmp(first->type_name, so->type_name) || strcmp((*mem)->name, so->members[j].name)) {
				/* libbpf: one program, one member of one struct (it may be
				 * shared by several variables of that struct) */
				*so2 = so;
				*mem2 = &so->members[j];
				return first;
			}
		}
	}
	return first;
}

int obj_struct_ops_attach(struct kbpf_object *obj, struct kbpf_program *p, struct obj_sops_attach *out)
{
	const struct kbpf_struct_ops_member *mem, *mem2;
	const struct obj_struct_ops *so2;
	const struct obj_struct_ops *so = filled_by(obj, p, &mem, &so2, &mem2);

	memset(out, 0, sizeof(*out));
	if (!so) {
		/* fills no member: nothing to type its context by, nothing to call it; not
		 * loaded (libbpf turns such programs' autoload off) */
		out->unused = true;
		return 0;
	}
	const struct kbpf_struct_ops_type *type = kbpf_host_struct_ops_find(obj->host, so->type_name);
	if (!type || !type->prog_type)
		return 0; /* a struct the host has no rules for: unverified, as before */
	if (so2) {
		obj_log(&obj->log,
			"struct_ops reloc %s: cannot use prog %s in sec %s for func ptr %s: it already fills %s of struct %s (a program fills one member)",
			so2->name, p->name, p->sec_name, mem2->name, mem->name, so->type_name);
		return -EINVAL;
	}
	if (!license_gpl_compatible(obj->license)) {
		obj_log(&obj->log, "program '%s': struct ops programs must have a GPL compatible license", p->name);
		return -EINVAL;
	}
	const struct btf *hbtf = kbpf_host_btf(obj->host);
	int sid = hbtf ? btf__find_by_name_kind(hbtf, so->type_name, BTF_KIND_STRUCT) : -ENOENT;
	if (sid <= 0) {
		obj_log(&obj->log, "struct_ops init_kern: struct %s is not found in kernel BTF", so->type_name);
		return -EOPNOTSUPP;
	}
	const struct btf_type *st = btf__type_by_id(hbtf, (uint32_t)sid);
	unsigned idx = 0;
	const struct btf_member *m = kbpf_btf_member_by_name(hbtf, st, mem->name, &idx);
	if (!m) {
		obj_log(&obj->log, "struct_ops init_kern %s: Cannot find member %s in kernel BTF", so->name, mem->name);
		return -EOPNOTSUPP;
	}
	if (!kbpf_btf_func_ptr_proto(hbtf, m->type)) {
		obj_log(&obj->log, "program '%s': attach to invalid member %s(@idx %u) of struct %s", p->name, mem->name, idx,
			so->type_name);
		return -EINVAL;
	}
	if (type->check_member) {
		char msg[256] = "";
		int err = type->check_member(type->cookie, mem->name, p, msg, sizeof(msg));
		if (err) {
			char line[256];
			snprintf(line, sizeof(line), "attach to unsupported member %s of struct %s", mem->name,
				 so->type_name);
			if (msg[0] && strcmp(msg, line)) /* the host's own reason, if it gave another */
				obj_log(&obj->log, "program '%s': %s", p->name, msg);
			obj_log(&obj->log, "program '%s': %s", p->name, line);
			return err < 0 ? err : -EINVAL;
		}
	}
	out->prog_type = type->prog_type;
	out->attach_btf_id = m->type; /* the pointer to the prototype: the verifier resolves it */
	out->member = mem->name;
	return 0;
}

int kbpf_program_struct_ops_attach(struct kbpf_object *obj, struct kbpf_program *prog, const char **prog_type,
				   uint32_t *attach_btf_id, const char **member)
{
	struct obj_sops_attach sa;
	int ret;

	if (!obj || !prog || prog < obj->progs || prog >= obj->progs + obj->nr_progs)
		return -EINVAL;
	ret = obj_struct_ops_attach(obj, prog, &sa);
	if (ret)
		return ret;
	if (prog_type)
		*prog_type = sa.prog_type;
	if (attach_btf_id)
		*attach_btf_id = sa.attach_btf_id;
	if (member)
		*member = sa.member;
	return 0;
}
