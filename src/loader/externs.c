/* SPDX-License-Identifier: Apache-2.0 */
/* Externs, with libbpf's meanings:
 *   extern T NAME __kconfig;    a value the host supplies (kbpf_host_kconfig_set), read
 *                               from the internal '.kconfig' map; LINUX_KERNEL_VERSION
 *                               defaults to the running kernel's, as libbpf's does;
 *   extern R f(A...) __ksym;    a kfunc: resolved by name to the host BTF's FUNC id, its
 *                               prototype checked against the host's;
 *   extern T v __ksym;          a host variable: the host BTF's VAR of that name, its type
 *                               compatible with T, its address registered by the host
 *                               (kbpf_host_var_register); `const void` takes the address;
 *   __weak                      unresolved is not an error: the value/address is 0.
 * Collected at open from the symbol table and the object's BTF (.kconfig / .ksyms
 * DATASECs); resolved at load. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "btf/btf_walk.h"
#include "btf/core.h"
#include "btf/core_internal.h"
#include "btf/func_compat.h"
#include "loader/loader_internal.h"

long obj_extern_by_name(const struct kbpf_object *obj, const char *name)
{
	for (size_t i = 0; i < obj->nr_externs; i++)
		if (!strcmp(obj->externs[i].name, name))
			return (long)i;
	return -1;
}

struct btf_name_idx {
	const char *name;
	uint32_t id;
};

static int name_idx_cmp(const void *a, const void *b)
{
	return strcmp(((const struct btf_name_idx *)a)->name, ((const struct btf_name_idx *)b)->name);
}

/* VARs and FUNCs with extern linkage, sorted by name. */
static int extern_btf_index(const struct btf *btf, struct btf_name_idx **out, size_t *cnt)
{
	uint32_t n = btf__type_cnt(btf);
	struct btf_name_idx *v = calloc(n, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (btf_is_var(t) && btf_var(t)->linkage == BTF_VAR_GLOBAL_EXTERN)
			;
		else if (btf_is_func(t) && btf_vlen(t) == BTF_FUNC_EXTERN)
			;
		else
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (name && *name)
			v[k++] = (struct btf_name_idx){ name, id };
	}
	qsort(v, k, sizeof(*v), name_idx_cmp);
	*out = v;
	*cnt = k;
	return 0;
}

static bool datasec_has(const struct btf *btf, int sec_id, uint32_t type_id)
{
	if (sec_id <= 0)
		return false;
	const struct btf_type *sec = btf__type_by_id(btf, sec_id);
	const struct btf_var_secinfo *vsi = btf_var_secinfos(sec);
	for (uint16_t i = 0; i < btf_vlen(sec); i++, vsi++)
		if (vsi->type == type_id)
			return true;
	return false;
}

/* libbpf's kconfig value kinds, from the variable's type. */
static int kcfg_type(struct kbpf_object *obj, struct obj_extern *ext, const struct btf_type *var)
{
	const struct btf_type *t = kbpf_btf_skip_mods(obj->btf, var->type, NULL);
	long long size = btf__resolve_size(obj->btf, var->type);
	int align = btf__align_of(obj->btf, var->type);

	ext->kcfg_type = KCFG_UNKNOWN;
	if (!t || size <= 0 || size > 4096 || align <= 0) {
		obj_log(&obj->log, "extern (kconfig) '%s': type has no usable size", ext->name);
		return -EINVAL;
	}
	ext->size = (uint32_t)size;
	ext->align = (uint32_t)align;
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		if (size == 1 && (enc & BTF_INT_BOOL))
			ext->kcfg_type = KCFG_BOOL;
		else if (size == 1 && (enc & BTF_INT_CHAR))
			ext->kcfg_type = KCFG_CHAR;
		else if (size == 1 || size == 2 || size == 4 || size == 8)
			ext->kcfg_type = KCFG_INT;
		ext->is_signed = enc & BTF_INT_SIGNED;
	} else if (btf_is_enum(t)) {
		const char *name = btf__name_by_offset(obj->btf, t->name_off);
		if (name && !strcmp(name, "libbpf_tristate"))
			ext->kcfg_type = KCFG_TRISTATE;
	} else if (btf_is_array(t)) {
		const struct btf_type *elem = kbpf_btf_skip_mods(obj->btf, btf_array(t)->type, NULL);
		if (elem && btf_is_int(elem) && elem->size == 1)
			ext->kcfg_type = KCFG_CHAR_ARR;
	}
	if (ext->kcfg_type == KCFG_UNKNOWN) {
		obj_log(&obj->log, "extern (kconfig) '%s': type is not supported (bool, char, tristate, integers, char arrays)",
			ext->name);
		return -ENOTSUP;
	}
	return 0;
}

/* Give the .kconfig externs their offsets in the '.kconfig' map and create it; make the
 * BTF's .kconfig DATASEC say the same (for dumps), as libbpf does. */
static int layout_kconfig(struct kbpf_object *obj)
{
	uint32_t off = 0;
	bool any = false;

	for (size_t i = 0; i < obj->nr_externs; i++) {
		struct obj_extern *ext = &obj->externs[i];
		if (ext->kind != EXT_KCONFIG)
			continue;
		off = (off + ext->align - 1) / ext->align * ext->align;
		ext->data_off = off;
		off += ext->size;
		any = true;
	}
	if (!any)
		return 0;
	for (size_t i = 0; i < obj->nr_maps; i++) {
		if (!strcmp(obj->maps[i].name, ".kconfig")) {
			obj_log(&obj->log, "map '.kconfig': name taken by another map");
			return -EINVAL;
		}
	}
	struct obj_map *m = OBJ_ADD(obj->maps, obj->nr_maps);
	if (!m)
		return -ENOMEM;
	m->name = strdup(".kconfig");
	m->init_data = calloc(1, off);
	if (!m->name || !m->init_data)
		return -ENOMEM;
	m->kind = MAP_KIND_KCONFIG;
	m->values_off = UINT32_MAX;
	m->type = BPF_MAP_TYPE_ARRAY;
	m->key_size = 4;
	m->value_size = off;
	m->max_entries = 1;
	m->map_flags = BPF_F_RDONLY_PROG;
	obj->kconfig_map = (int)(m - obj->maps);

	int sec_id = btf__find_by_name_kind(obj->btf, ".kconfig", BTF_KIND_DATASEC);
	if (sec_id > 0) {
		struct btf_type *sec = (struct btf_type *)btf__type_by_id(obj->btf, sec_id);
		struct btf_var_secinfo *vsi = btf_var_secinfos(sec);
		sec->size = off;
		for (uint16_t i = 0; i < btf_vlen(sec); i++, vsi++) {
			for (size_t k = 0; k < obj->nr_externs; k++) {
				if (obj->externs[k].kind == EXT_KCONFIG && obj->externs[k].btf_id == vsi->type) {
					vsi->offset = obj->externs[k].data_off;
					vsi->size = obj->externs[k].size;
				}
			}
		}
		m->btf_value_type_id = (uint32_t)sec_id;
	}
	return 0;
}

int obj_externs_collect(struct kbpf_object *obj, struct obj_elf *e)
{
	struct btf_name_idx *idx = NULL;
	size_t nr_idx = 0;
	int kconfig_sec = -1, ksyms_sec = -1, ret = 0;

	obj->kconfig_map = -1;
	for (size_t i = 1; i < e->nr_syms && !ret; i++) {
		GElf_Sym sym;
		const char *name;
		struct obj_extern *ext;

		if (obj_elf_sym(e, i, &sym, &name)) {
			obj_log(&obj->log, "symbol #%zu: bad symbol or name", i);
			ret = -EINVAL;
			break;
		}
		if (sym.st_shndx != SHN_UNDEF || !*name ||
		    (GELF_ST_BIND(sym.st_info) != STB_GLOBAL && GELF_ST_BIND(sym.st_info) != STB_WEAK))
			continue;
		if (!obj->btf) {
			obj_log(&obj->log, "extern '%s': externs need the object's BTF (compile with -g)", name);
			ret = -EINVAL;
			break;
		}
		if (!idx) {
			ret = extern_btf_index(obj->btf, &idx, &nr_idx);
			if (ret)
				break;
			kconfig_sec = btf__find_by_name_kind(obj->btf, ".kconfig", BTF_KIND_DATASEC);
			ksyms_sec = btf__find_by_name_kind(obj->btf, ".ksyms", BTF_KIND_DATASEC);
		}
		if (strlen(name) >= KBPF_OBJ_MAX_NAME) {
			obj_log(&obj->log, "extern '%.32s…': name too long", name);
			ret = -EINVAL;
			break;
		}
		if (obj_extern_by_name(obj, name) >= 0) {
			obj_log(&obj->log, "extern '%s': declared twice", name);
			ret = -EINVAL;
			break;
		}
		struct btf_name_idx key = { name, 0 }, *found = bsearch(&key, idx, nr_idx, sizeof(*idx), name_idx_cmp);
		if (!found) {
			obj_log(&obj->log, "extern '%s': no extern VAR or FUNC of that name in the object's BTF", name);
			ret = -EINVAL;
			break;
		}
		ext = OBJ_ADD(obj->externs, obj->nr_externs);
		if (!ext || !(ext->name = strdup(name))) {
			ret = -ENOMEM;
			break;
		}
		ext->weak = GELF_ST_BIND(sym.st_info) == STB_WEAK;
		ext->btf_id = found->id;
		const struct btf_type *t = btf__type_by_id(obj->btf, found->id);
		if (datasec_has(obj->btf, kconfig_sec, found->id)) {
			if (!btf_is_var(t)) {
				obj_log(&obj->log, "extern (kconfig) '%s': not a variable", name);
				ret = -EINVAL;
				break;
			}
			ext->kind = EXT_KCONFIG;
			ret = kcfg_type(obj, ext, t);
		} else if (datasec_has(obj->btf, ksyms_sec, found->id)) {
			ext->kind = btf_is_func(t) ? EXT_KFUNC : EXT_KSYM_VAR;
		} else {
			obj_log(&obj->log, "extern '%s': not in section .kconfig or .ksyms (declare it __kconfig or __ksym)",
				name);
			ret = -ENOTSUP;
		}
	}
	free(idx);
	if (!ret)
		ret = layout_kconfig(obj);
	return ret;
}

/* --- load: resolution --- */

/* The running kernel's version as KERNEL_VERSION(a, b, c) (libbpf's default). */
static uint64_t running_kernel_version(void)
{
	struct utsname u;
	unsigned a = 0, b = 0, c = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u.%u", &a, &b, &c) < 2)
		return 0;
	return ((uint64_t)a << 16) + ((uint64_t)b << 8) + (c > 255 ? 255 : c);
}

static bool fits(uint64_t v, uint32_t size, bool is_signed)
{
	if (size >= 8)
		return true;
	unsigned bits = size * 8;
	if (is_signed) {
		int64_t s = (int64_t)v, lim = (int64_t)1 << (bits - 1);
		return s >= -lim && s < lim;
	}
	return v < (1ull << bits);
}

/* Remember why ext cannot be resolved: the load fails only if a loaded program uses
 * it (then link.c logs this, naming the program). */
static void ext_fail(struct obj_extern *ext, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ext_fail(struct obj_extern *ext, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ext->err_msg, sizeof(ext->err_msg), fmt, ap);
	va_end(ap);
}

static int resolve_kconfig(struct kbpf_object *obj, struct obj_extern *ext, uint8_t *data)
{
	uint64_t v;
	int found = !kbpf_host_kconfig_get(obj->host, ext->name, &v);

	if (!found && !strcmp(ext->name, "LINUX_KERNEL_VERSION")) {
		v = running_kernel_version();
		found = 1;
	}
	if (!found) {
		if (!ext->weak) {
			ext_fail(ext, "extern (kconfig) '%s': not set by the host and not __weak", ext->name);
			return -ESRCH;
		}
		return 0; /* weak: stays 0 */
	}
	switch (ext->kcfg_type) {
	case KCFG_BOOL:
		if (v > 1) {
			ext_fail(ext, "extern (kconfig) '%s': value %llu is not a bool", ext->name,
				(unsigned long long)v);
			return -ERANGE;
		}
		break;
	case KCFG_TRISTATE:
		if (v > 2) {
			ext_fail(ext, "extern (kconfig) '%s': value %llu is not a tristate (0 n, 1 y, 2 m)",
				ext->name, (unsigned long long)v);
			return -ERANGE;
		}
		break;
	case KCFG_CHAR_ARR:
		ext_fail(ext, "extern (kconfig) '%s': string values are not supported", ext->name);
		return -ENOTSUP;
	default:
		if (!fits(v, ext->kcfg_type == KCFG_CHAR ? 1 : ext->size, ext->is_signed)) {
			ext_fail(ext, "extern (kconfig) '%s': value %llu doesn't fit in %u bytes", ext->name,
				(unsigned long long)v, ext->size);
			return -ERANGE;
		}
		break;
	}
	/* little endian: the low `size` bytes */
	for (uint32_t b = 0; b < ext->size && b < 8; b++)
		data[ext->data_off + b] = (uint8_t)(v >> (8 * b));
	ext->resolved = true;
	return 0;
}

static int resolve_kfunc(struct kbpf_object *obj, struct obj_extern *ext)
{
	const struct btf *host_btf = kbpf_host_btf(obj->host);
	char name[KBPF_OBJ_MAX_NAME], msg[512] = "";
	int id = -ENOENT, ret;

	/* libbpf's "essential name": a ___suffix distinguishes flavours of one function */
	snprintf(name, sizeof(name), "%.*s", (int)kbpf_core_essential_name_len(ext->name), ext->name);
	if (host_btf)
		id = btf__find_by_name_kind(host_btf, name, BTF_KIND_FUNC);
	if (id <= 0) {
		if (ext->weak)
			return 0; /* calls get imm 0, loads of its address 0 */
		ext_fail(ext, "extern (func ksym) '%s': not found in the host's BTF%s", ext->name,
			host_btf ? "" : " (the host has none)");
		return -ESRCH;
	}
	ret = kbpf_btf_func_compat(obj->btf, ext->btf_id, host_btf, (uint32_t)id, msg, sizeof(msg));
	if (ret < 0) {
		ext_fail(ext, "extern (func ksym) '%s': cannot compare prototypes: %s", ext->name,
			msg[0] ? msg : strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		ext_fail(ext, "extern (func ksym) '%s': %s", ext->name,
			msg[0] ? msg : "prototype does not match the host's");
		return -EINVAL;
	}
	ext->host_btf_id = (uint32_t)id;
	ext->resolved = true;
	return 0;
}

/* libbpf's typed ksym (bpf_object__resolve_ksym_var_btf_id): a VAR of the host's BTF
 * whose type is compatible with the extern's, and which the host registered with its
 * address (kbpf_host_var_register). A `const void` extern (typeless) takes the address
 * alone. */
static int resolve_ksym_var(struct kbpf_object *obj, struct obj_extern *ext)
{
	const struct btf *host_btf = kbpf_host_btf(obj->host);
	const struct btf_type *var = btf__type_by_id(obj->btf, ext->btf_id);
	int id = host_btf ? btf__find_by_name_kind(host_btf, ext->name, BTF_KIND_VAR) : -ENOENT;
	uint32_t local_id = var->type, targ_id;
	void *addr;

	if (id <= 0) {
		if (ext->weak)
			return 0; /* loads of its address give 0 */
		ext_fail(ext, "extern (var ksym) '%s': not found in the host's BTF%s", ext->name,
			 host_btf ? "" : " (the host has none)");
		return -ESRCH;
	}
	const struct btf_type *lt = kbpf_btf_skip_mods(obj->btf, var->type, NULL);
	ext->typeless = !lt || btf_is_void(lt) || !var->type;
	if (!ext->typeless) {
		/* both sides without modifiers and typedefs, as libbpf compares them */
		kbpf_btf_skip_mods(obj->btf, local_id, &local_id);
		targ_id = btf__type_by_id(host_btf, (uint32_t)id)->type;
		kbpf_btf_skip_mods(host_btf, targ_id, &targ_id);
		int ok = kbpf_core_types_are_compat(obj->btf, local_id, host_btf, targ_id);
		if (ok <= 0) {
			const struct btf_type *l = btf__type_by_id(obj->btf, local_id);
			const struct btf_type *t = btf__type_by_id(host_btf, targ_id);
			ext_fail(ext, "extern (var ksym) '%s': incompatible types, expected [%u] %s %s, but the host has [%u] %s %s",
				 ext->name, local_id, l ? kbpf_btf_kind_str_lower(l) : "?", l ? btf__name_by_offset(obj->btf, l->name_off) : "",
				 targ_id, t ? kbpf_btf_kind_str_lower(t) : "?", t ? btf__name_by_offset(host_btf, t->name_off) : "");
			return -EINVAL;
		}
	}
	addr = kbpf_host_var_addr(obj->host, (uint32_t)id);
	if (!addr) {
		if (ext->weak)
			return 0;
		ext_fail(ext, "extern (var ksym) '%s': the host did not register its address "
			 "(kbpf_host_var_register)", ext->name);
		return -ESRCH;
	}
	ext->host_btf_id = (uint32_t)id;
	ext->var_addr = addr;
	ext->resolved = true;
	return 0;
}

int obj_externs_resolve(struct kbpf_object *obj)
{
	uint8_t *kdata = obj->kconfig_map >= 0 ? obj->maps[obj->kconfig_map].init_data : NULL;

	for (size_t i = 0; i < obj->nr_externs; i++) {
		struct obj_extern *ext = &obj->externs[i];
		int ret = 0;

		ext->err = 0;
		ext->err_msg[0] = 0;
		switch (ext->kind) {
		case EXT_KCONFIG:
			ret = kdata ? resolve_kconfig(obj, ext, kdata) : -EINVAL;
			break;
		case EXT_KFUNC:
			ret = resolve_kfunc(obj, ext);
			break;
		case EXT_KSYM_VAR:
			ret = resolve_ksym_var(obj, ext);
			break;
		}
		if (ret == -ENOMEM)
			return ret;
		ext->err = ret;
	}
	return 0;
}
