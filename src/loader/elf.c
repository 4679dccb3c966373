/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the ELF container through libelf: sections classified by libbpf's naming
 * conventions, the symbol table, the license, and the object's BTF with libbpf's
 * DATASEC fix-ups (clang leaves section sizes and global variables' offsets at 0).
 * Every size, offset and index read from the file is checked here or where it is used:
 * objects are untrusted input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <gelf.h>
#include <libelf.h>
#include "btf/btf_check.h"
#include "btf/btf_ext.h"
#include "loader/loader_internal.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

/* libbpf's rule: NAME exactly, or NAME followed by '.' and anything. */
static bool is_sec_family(const char *name, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(name, base, n) && (name[n] == 0 || name[n] == '.');
}

int obj_elf_sym(const struct obj_elf *e, size_t idx, GElf_Sym *sym, const char **name)
{
	if (!e->symbols || idx >= e->nr_syms || !gelf_getsym(e->symbols, (int)idx, sym))
		return -EINVAL;
	if (name) {
		*name = elf_strptr(e->elf, e->strtab_idx, sym->st_name);
		if (!*name)
			return -EINVAL;
	}
	return 0;
}

static int read_sec_data(struct kbpf_object *obj, Elf_Scn *scn, struct obj_sec *s, size_t idx)
{
	Elf_Data *data;

	if (s->shdr.sh_type == SHT_NOBITS) {
		s->data = NULL;
		s->size = s->shdr.sh_size;
		return 0;
	}
	data = elf_getdata(scn, NULL);
	if (!data) {
		obj_log(&obj->log, "section %zu '%s': cannot read its data: %s", idx, s->name, elf_errmsg(-1));
		return -EINVAL;
	}
	if (data->d_size && !data->d_buf) {
		obj_log(&obj->log, "section %zu '%s': no data", idx, s->name);
		return -EINVAL;
	}
	s->data = data->d_buf;
	s->size = data->d_size;
	return 0;
}

/* Decide what section idx is, by libbpf's conventions. */
static int classify(struct kbpf_object *obj, struct obj_elf *e, size_t idx)
{
	struct obj_sec *s = &e->secs[idx];
	const GElf_Shdr *sh = &s->shdr;
	const char *name = s->name;

	if (sh->sh_type == SHT_SYMTAB) {
		if (e->symtab_idx) {
			obj_log(&obj->log, "section %zu '%s': a second symbol table", idx, name);
			return -EINVAL;
		}
		if (sh->sh_link == 0 || sh->sh_link >= e->nr_secs) {
			obj_log(&obj->log, "section %zu '%s': string table index %u out of range", idx, name,
				sh->sh_link);
			return -EINVAL;
		}
		e->symtab_idx = idx;
		e->strtab_idx = sh->sh_link;
		s->kind = SEC_SYMTAB;
		return 0;
	}
	if (sh->sh_type == SHT_REL) {
		s->kind = SEC_REL;
		return 0;
	}
	if (!strcmp(name, "license"))
		s->kind = SEC_LICENSE;
	else if (!strcmp(name, "version"))
		s->kind = SEC_VERSION;
	else if (!strcmp(name, "maps"))
		s->kind = SEC_LEGACY_MAPS;
	else if (!strcmp(name, ".maps"))
		s->kind = SEC_MAPS;
	else if (!strcmp(name, ".BTF"))
		s->kind = SEC_BTF;
	else if (!strcmp(name, ".BTF.ext"))
		s->kind = SEC_BTF_EXT;
	else if (sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR))
		s->kind = !strcmp(name, ".text") ? SEC_TEXT : SEC_PROG;
	else if (sh->sh_type == SHT_PROGBITS && is_sec_family(name, ".data"))
		s->kind = SEC_DATA;
	else if (sh->sh_type == SHT_PROGBITS && is_sec_family(name, ".rodata"))
		s->kind = SEC_RODATA;
	else if (sh->sh_type == SHT_PROGBITS && (!strcmp(name, ".struct_ops") || !strcmp(name, ".struct_ops.link")))
		s->kind = SEC_STRUCT_OPS;
	else if (sh->sh_type == SHT_NOBITS && is_sec_family(name, ".bss"))
		s->kind = SEC_BSS;
	else
		return 0; /* debug info, .llvm_addrsig, …: not ours */
	return 0;
}

int obj_elf_open(struct kbpf_object *obj, struct obj_elf *e)
{
	GElf_Ehdr ehdr;
	size_t shstrndx, nr;
	Elf_Scn *scn = NULL;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		obj_log(&obj->log, "libelf is too old: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	e->elf = elf_memory(e->image, e->image_size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		obj_log(&obj->log, "not an ELF object%s%s", e->elf ? "" : ": ", e->elf ? "" : elf_errmsg(-1));
		return -EINVAL;
	}
	if (gelf_getclass(e->elf) != ELFCLASS64 || !gelf_getehdr(e->elf, &ehdr)) {
		obj_log(&obj->log, "not a 64-bit ELF object");
		return -EINVAL;
	}
	if (ehdr.e_ident[EI_DATA] != ELFDATA2LSB) {
		obj_log(&obj->log, "big-endian BPF objects are not supported (compile with -target bpfel or bpf)");
		return -ENOTSUP;
	}
	if (ehdr.e_type != ET_REL || (ehdr.e_machine && ehdr.e_machine != EM_BPF)) {
		obj_log(&obj->log, "not a BPF object (e_type %u, e_machine %u; expected a relocatable EM_BPF file)",
			ehdr.e_type, ehdr.e_machine);
		return -EINVAL;
	}
	if (elf_getshdrstrndx(e->elf, &shstrndx) || elf_getshdrnum(e->elf, &nr)) {
		obj_log(&obj->log, "bad section header table: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	/* each header takes 64 bytes of the file: a count beyond that is a lie */
	if (nr > e->image_size / sizeof(Elf64_Shdr) + 1) {
		obj_log(&obj->log, "bad section count %zu for a %zu-byte file", nr, e->image_size);
		return -EINVAL;
	}
	e->secs = calloc(nr ? nr : 1, sizeof(*e->secs));
	obj->sec_names = calloc(nr ? nr : 1, sizeof(*obj->sec_names));
	if (!e->secs || !obj->sec_names)
		return -ENOMEM;
	e->nr_secs = nr;
	obj->nr_secs = nr;
	/* section 0 is never visited below, yet a REL section's sh_info or a symbol can
	 * name it: it must not look like code block or map 0 */
	for (size_t i = 0; i < nr; i++) {
		e->secs[i].map_idx = -1;
		e->secs[i].code_idx = -1;
	}

	while ((scn = elf_nextscn(e->elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		struct obj_sec *s;

		if (idx == SHN_UNDEF || idx >= nr) {
			obj_log(&obj->log, "section index %zu out of range", idx);
			return -EINVAL;
		}
		s = &e->secs[idx];
		if (!gelf_getshdr(scn, &s->shdr)) {
			obj_log(&obj->log, "section %zu: bad header: %s", idx, elf_errmsg(-1));
			return -EINVAL;
		}
		s->name = elf_strptr(e->elf, shstrndx, s->shdr.sh_name);
		if (!s->name) {
			obj_log(&obj->log, "section %zu: name offset %u is outside the section name table", idx,
				s->shdr.sh_name);
			return -EINVAL;
		}
		s->map_idx = -1;
		s->code_idx = -1;
		ret = classify(obj, e, idx);
		if (ret)
			return ret;
		if (s->kind == SEC_UNUSED || s->kind == SEC_REL)
			continue; /* REL data is read when its target matters */
		obj->sec_names[idx] = strdup(s->name);
		if (!obj->sec_names[idx])
			return -ENOMEM;
		ret = read_sec_data(obj, scn, s, idx);
		if (ret)
			return ret;
		if ((s->kind == SEC_PROG || s->kind == SEC_TEXT) && s->size % sizeof(struct bpf_insn)) {
			obj_log(&obj->log, "section '%s': size %zu is not a multiple of 8 (instructions)", s->name,
				s->size);
			return -EINVAL;
		}
		if (s->kind == SEC_TEXT)
			e->text_idx = idx;
		if (s->kind == SEC_MAPS)
			e->maps_idx = idx;
		if (s->kind == SEC_LEGACY_MAPS)
			e->legacy_maps_idx = idx;
	}
	if (!e->symtab_idx) {
		obj_log(&obj->log, "no symbol table (a stripped object?)");
		return -EINVAL;
	}
	if (e->secs[e->strtab_idx].shdr.sh_type != SHT_STRTAB) {
		obj_log(&obj->log, "symbol table: section %zu is not a string table", e->strtab_idx);
		return -EINVAL;
	}
	e->symbols = elf_getdata(elf_getscn(e->elf, e->symtab_idx), NULL);
	if (!e->symbols) {
		obj_log(&obj->log, "symbol table: cannot read it: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	e->nr_syms = e->symbols->d_size / sizeof(Elf64_Sym);

	for (size_t i = 1; i < nr; i++) {
		const struct obj_sec *s = &e->secs[i];
		if (s->kind == SEC_LICENSE) {
			size_t n = s->size < sizeof(obj->license) - 1 ? s->size : sizeof(obj->license) - 1;
			if (s->data)
				memcpy(obj->license, s->data, n);
			obj->license[n] = 0;
		}
	}
	return 0;
}

void obj_elf_close(struct obj_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	free(e->secs);
	free(e->image);
	memset(e, 0, sizeof(*e));
}

/* --- BTF --------------------------------------------------------------------------- */

struct sym_name {
	const char *name;
	uint64_t value;
	size_t shndx;
};

static int sym_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sym_name *)a)->name, ((const struct sym_name *)b)->name);
}

/* Global and weak object symbols sorted by name, for the DATASEC fix-up. */
static int global_objects(const struct obj_elf *e, struct sym_name **out, size_t *cnt)
{
	struct sym_name *v = calloc(e->nr_syms ? e->nr_syms : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 1; i < e->nr_syms; i++) {
		GElf_Sym sym;
		const char *name;

		if (obj_elf_sym(e, i, &sym, &name))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    (GELF_ST_BIND(sym.st_info) != STB_GLOBAL && GELF_ST_BIND(sym.st_info) != STB_WEAK))
			continue;
		v[n++] = (struct sym_name){ name, sym.st_value, sym.st_shndx };
	}
	qsort(v, n, sizeof(*v), sym_name_cmp);
	*out = v;
	*cnt = n;
	return 0;
}

/* Give each DATASEC backed by an ELF section that section's size, and each global
 * variable in it its symbol's offset, as libbpf does before using the BTF. The types
 * live in memory btf__new allocated, so writing them is writing our own copy. */
static int fixup_datasecs(struct kbpf_object *obj, const struct obj_elf *e)
{
	struct btf *btf = obj->btf;
	uint32_t n = btf__type_cnt(btf);
	struct sym_name *syms;
	size_t nr_syms;
	int ret = global_objects(e, &syms, &nr_syms);

	if (ret)
		return ret;
	for (uint32_t id = 1; id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf__type_by_id(btf, id);
		const char *sec_name;
		size_t sec = 0;

		if (!t || !btf_is_datasec(t))
			continue;
		sec_name = btf__name_by_offset(btf, t->name_off);
		if (!sec_name)
			continue;
		for (size_t i = 1; i < e->nr_secs && !sec; i++)
			if (e->secs[i].name && !strcmp(e->secs[i].name, sec_name))
				sec = i;
		if (!sec)
			continue; /* .kconfig/.ksyms: laid out by the extern code */
		if (t->size == 0)
			t->size = (uint32_t)(e->secs[sec].size > UINT32_MAX ? UINT32_MAX : e->secs[sec].size);
		struct btf_var_secinfo *vsi = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, vsi++) {
			const struct btf_type *var = btf__type_by_id(btf, vsi->type);
			struct sym_name key, *found;

			if (!var || !btf_is_var(var)) {
				obj_log(&obj->log, "BTF: DATASEC '%s' entry %u: type [%u] is not a VAR", sec_name, i,
					vsi->type);
				free(syms);
				return -EINVAL;
			}
			if (btf_var(var)->linkage != BTF_VAR_GLOBAL_ALLOCATED)
				continue;
			key.name = btf__name_by_offset(btf, var->name_off);
			if (!key.name)
				continue;
			found = bsearch(&key, syms, nr_syms, sizeof(*syms), sym_name_cmp);
			if (found && found->shndx == sec && found->value <= UINT32_MAX)
				vsi->offset = (uint32_t)found->value;
		}
	}
	free(syms);
	return 0;
}

int obj_btf_init(struct kbpf_object *obj, struct obj_elf *e)
{
	const struct obj_sec *btf_sec = NULL, *ext_sec = NULL;
	char err[256] = "";
	int ret;

	for (size_t i = 1; i < e->nr_secs; i++) {
		if (e->secs[i].kind == SEC_BTF)
			btf_sec = &e->secs[i];
		else if (e->secs[i].kind == SEC_BTF_EXT)
			ext_sec = &e->secs[i];
	}
	if (!btf_sec)
		return 0;
	if (!btf_sec->data || !btf_sec->size) {
		obj_log(&obj->log, "section .BTF: empty");
		return -EINVAL;
	}
	obj->btf = btf__new(btf_sec->data, btf_sec->size);
	if (!obj->btf) {
		ret = errno ? -errno : -EINVAL;
		obj->btf = NULL;
		obj_log(&obj->log, "section .BTF: invalid BTF (%s)", strerror(-ret));
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	char why[160];
	ret = kbpf_btf_check_object(obj->btf, why, sizeof(why));
	if (ret == -EINVAL)
		obj_log(&obj->log, "BTF: %s", why);
	if (!ret)
		ret = fixup_datasecs(obj, e);
	if (ret)
		return ret;
	if (!ext_sec)
		return 0;
	if (!ext_sec->data || !ext_sec->size) {
		obj_log(&obj->log, "section .BTF.ext: empty");
		return -EINVAL;
	}
	ret = kbpf_btf_ext_parse(ext_sec->data, ext_sec->size, obj->btf, &obj->btf_ext, err, sizeof(err));
	if (ret) {
		obj->btf_ext = NULL;
		obj_log(&obj->log, "section .BTF.ext: %s", err[0] ? err : strerror(-ret));
		return ret;
	}
	return 0;
}
