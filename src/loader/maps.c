/* SPDX-License-Identifier: Apache-2.0 */
/* The object's maps: BTF-defined (.maps), legacy (maps: struct bpf_map_def), global
 * data (.data, .rodata, .bss and their .name variants: one-element ARRAYs holding the
 * section) and .kconfig (laid out by externs.c). Definitions are read at open; maps
 * are created at load, in this order, which is the order of the table programs index. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/btf_walk.h"
#include "loader/loader_internal.h"

/* Linux's struct bpf_map_def of the legacy "maps" section (5 words; older loaders
 * added inner_map_idx and numa_node, which must then be zero). */
struct legacy_map_def {
	uint32_t type, key_size, value_size, max_entries, map_flags;
};

long obj_map_by_def(const struct kbpf_object *obj, size_t sec_idx, uint64_t off)
{
	for (size_t i = 0; i < obj->nr_maps; i++) {
		const struct obj_map *m = &obj->maps[i];
		if ((m->kind == MAP_KIND_BTF || m->kind == MAP_KIND_LEGACY) && m->sec_idx == sec_idx && m->sec_off == off)
			return (long)i;
	}
	return -1;
}

long obj_map_by_data_sec(const struct kbpf_object *obj, size_t sec_idx)
{
	for (size_t i = 0; i < obj->nr_maps; i++) {
		const struct obj_map *m = &obj->maps[i];
		if ((m->kind == MAP_KIND_DATA || m->kind == MAP_KIND_RODATA || m->kind == MAP_KIND_BSS) &&
		    m->sec_idx == sec_idx)
			return (long)i;
	}
	return -1;
}

static struct obj_map *add_map(struct kbpf_object *obj, const char *name, enum obj_map_kind kind)
{
	struct obj_map *m;

	for (size_t i = 0; i < obj->nr_maps; i++) {
		if (!strcmp(obj->maps[i].name, name)) {
			obj_log(&obj->log, "map '%s': defined twice", name);
			errno = EINVAL;
			return NULL;
		}
	}
	m = OBJ_ADD(obj->maps, obj->nr_maps);
	if (!m || !(m->name = strdup(name))) {
		if (m)
			obj->nr_maps--;
		errno = ENOMEM;
		return NULL;
	}
	m->kind = kind;
	m->values_off = UINT32_MAX;
	return m;
}

/* --- legacy "maps" section --- */

static int collect_legacy(struct kbpf_object *obj, const struct obj_elf *e)
{
	size_t sec = e->legacy_maps_idx, nr = 0, def_sz;
	const struct obj_sec *s = &e->secs[sec];

	for (size_t i = 1; i < e->nr_syms; i++) {
		GElf_Sym sym;
		if (!obj_elf_sym(e, i, &sym, NULL) && sym.st_shndx == sec && GELF_ST_TYPE(sym.st_info) != STT_SECTION)
			nr++;
	}
	if (!nr)
		return 0;
	if (!s->data || !s->size || s->size % nr) {
		obj_log(&obj->log, "section 'maps': cannot tell the map definition size: %zu maps in %zu bytes", nr,
			s->size);
		return -EINVAL;
	}
	def_sz = s->size / nr;
	for (size_t i = 1; i < e->nr_syms; i++) {
		struct legacy_map_def def = { 0 };
		const char *name;
		struct obj_map *m;
		GElf_Sym sym;

		if (obj_elf_sym(e, i, &sym, &name) || sym.st_shndx != sec || GELF_ST_TYPE(sym.st_info) == STT_SECTION)
			continue;
		if (!*name || strlen(name) >= KBPF_OBJ_MAX_NAME) {
			obj_log(&obj->log, "section 'maps': symbol #%zu: missing or too long name", i);
			return -EINVAL;
		}
		if (sym.st_value > s->size || def_sz > s->size - sym.st_value) {
			obj_log(&obj->log, "section 'maps': map '%s' at offset %llu is outside the section", name,
				(unsigned long long)sym.st_value);
			return -EINVAL;
		}
		const unsigned char *raw = (const unsigned char *)s->data + sym.st_value;
		memcpy(&def, raw, def_sz < sizeof(def) ? def_sz : sizeof(def));
		for (size_t b = sizeof(def); b < def_sz; b++) {
			if (raw[b]) {
				obj_log(&obj->log, "section 'maps': map '%s' has unrecognized, non-zero options", name);
				return -EINVAL;
			}
		}
		m = add_map(obj, name, MAP_KIND_LEGACY);
		if (!m)
			return -errno;
		m->sec_idx = sec;
		m->sec_off = sym.st_value;
		m->type = def.type;
		m->key_size = def.key_size;
		m->value_size = def.value_size;
		m->max_entries = def.max_entries;
		m->map_flags = def.map_flags;
	}
	return 0;
}

/* --- BTF-defined maps: __uint(), __type(), __array() members --- */

/* __uint(name, N) is `int (*name)[N]`: N is the array's element count. */
static int field_uint(struct kbpf_object *obj, const char *map, const char *field, uint32_t type_id, uint32_t *val)
{
	const struct btf_type *t = kbpf_btf_skip_mods(obj->btf, type_id, NULL), *arr;

	if (!t || !btf_is_ptr(t)) {
		obj_log(&obj->log, "map '%s': attr '%s': expected a pointer (__uint), got type [%u]", map, field, type_id);
		return -EINVAL;
	}
	arr = btf__type_by_id(obj->btf, t->type);
	if (!arr || !btf_is_array(arr)) {
		obj_log(&obj->log, "map '%s': attr '%s': expected a pointer to an array (__uint)", map, field);
		return -EINVAL;
	}
	*val = btf_array(arr)->nelems;
	return 0;
}

/* __type(name, T) is `typeof(T) *name`: T's id and size. */
static int field_type(struct kbpf_object *obj, const char *map, const char *field, uint32_t type_id, uint32_t *id,
		      uint32_t *size)
{
	const struct btf_type *t = kbpf_btf_skip_mods(obj->btf, type_id, NULL);
	long long sz;

	if (!t || !btf_is_ptr(t)) {
		obj_log(&obj->log, "map '%s': attr '%s': expected a pointer (__type), got type [%u]", map, field, type_id);
		return -EINVAL;
	}
	sz = btf__resolve_size(obj->btf, t->type);
	if (sz < 0 || sz > UINT32_MAX) {
		obj_log(&obj->log, "map '%s': attr '%s': cannot determine the size of type [%u]", map, field, t->type);
		return -EINVAL;
	}
	*id = t->type;
	*size = (uint32_t)sz;
	return 0;
}

static int parse_btf_map(struct kbpf_object *obj, struct obj_map *m, const struct btf_type *def, bool is_inner);

/* `__array(values, struct inner)` of a map of maps: `typeof(struct inner) *values[]`,
 * whose struct is the template's definition (libbpf's parse of the inner map). */
static int parse_inner_def(struct kbpf_object *obj, struct obj_map *m, const struct btf_type *arr)
{
	const struct btf_type *t = kbpf_btf_skip_mods(obj->btf, btf_array(arr)->type, NULL);
	char name[KBPF_OBJ_MAX_NAME + 8];

	if (t && btf_is_ptr(t))
		t = kbpf_btf_skip_mods(obj->btf, t->type, NULL);
	if (!t || !btf_is_struct(t)) {
		obj_log(&obj->log, "map '%s': map-in-map inner def is not a pointer to a struct", m->name);
		return -EINVAL;
	}
	m->inner = calloc(1, sizeof(*m->inner));
	snprintf(name, sizeof(name), "%s.inner", m->name);
	if (!m->inner || !(m->inner->name = strdup(name)))
		return -ENOMEM;
	m->inner->kind = MAP_KIND_BTF;
	m->inner->values_off = UINT32_MAX;
	return parse_btf_map(obj, m->inner, t, true);
}

static int parse_btf_map(struct kbpf_object *obj, struct obj_map *m, const struct btf_type *def, bool is_inner)
{
	const struct btf_member *mem = btf_members(def);
	uint32_t key_size = 0, value_size = 0, ignored;
	bool has_values = false;
	const struct btf_type *values = NULL;
	int ret = 0;

	for (uint16_t i = 0; i < btf_vlen(def) && !ret; i++, mem++) {
		const char *f = btf__name_by_offset(obj->btf, mem->name_off);

		if (!f || !*f) {
			obj_log(&obj->log, "map '%s': member #%u has no name", m->name, i);
			return -EINVAL;
		}
		if (!strcmp(f, "type")) {
			ret = field_uint(obj, m->name, f, mem->type, &m->type);
		} else if (!strcmp(f, "max_entries")) {
			ret = field_uint(obj, m->name, f, mem->type, &m->max_entries);
		} else if (!strcmp(f, "map_flags")) {
			ret = field_uint(obj, m->name, f, mem->type, &m->map_flags);
		} else if (!strcmp(f, "map_extra")) {
			ret = field_uint(obj, m->name, f, mem->type, &m->map_extra);
		} else if (!strcmp(f, "numa_node")) {
			ret = field_uint(obj, m->name, f, mem->type, &ignored);
		} else if (!strcmp(f, "pinning")) {
			ret = field_uint(obj, m->name, f, mem->type, &ignored); /* pinning: nothing to pin to */
		} else if (!strcmp(f, "key_size") || !strcmp(f, "value_size")) {
			uint32_t v;
			uint32_t *dst = f[0] == 'k' ? &key_size : &value_size;
			ret = field_uint(obj, m->name, f, mem->type, &v);
			if (!ret && *dst && *dst != v) {
				obj_log(&obj->log, "map '%s': conflicting %s %u != %u", m->name, f, *dst, v);
				ret = -EINVAL;
			}
			*dst = v;
		} else if (!strcmp(f, "key") || !strcmp(f, "value")) {
			uint32_t id = 0, sz = 0;
			bool key = f[0] == 'k';
			uint32_t *dst = key ? &key_size : &value_size;
			ret = field_type(obj, m->name, f, mem->type, &id, &sz);
			if (!ret && *dst && *dst != sz) {
				obj_log(&obj->log, "map '%s': conflicting %s size %u != %u", m->name, f, *dst, sz);
				ret = -EINVAL;
			}
			*dst = sz;
			if (key)
				m->btf_key_type_id = id;
			else
				m->btf_value_type_id = id;
		} else if (!strcmp(f, "values")) {
			const struct btf_type *t = kbpf_btf_skip_mods(obj->btf, mem->type, NULL);
			if (is_inner) { /* libbpf's words */
				obj_log(&obj->log, "map '%s': multi-level inner maps not supported", m->name);
				return -ENOTSUP;
			}
			if (!t || !btf_is_array(t) || btf_array(t)->nelems) {
				obj_log(&obj->log, "map '%s': 'values' must be a zero-length array (__array)", m->name);
				return -EINVAL;
			}
			if (btf_member_bit_offset(def, i) % 64) {
				obj_log(&obj->log, "map '%s': 'values' is misaligned", m->name);
				return -EINVAL;
			}
			has_values = true;
			values = t;
			m->values_off = btf_member_bit_offset(def, i) / 8;
		} else {
			obj_log(&obj->log, "map '%s': unknown field '%s'", m->name, f);
			return -ENOTSUP;
		}
	}
	if (ret)
		return ret;
	bool of_maps = m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS || m->type == BPF_MAP_TYPE_HASH_OF_MAPS;
	if (has_values && m->type != BPF_MAP_TYPE_PROG_ARRAY && !of_maps) {
		obj_log(&obj->log, "map '%s': should be map-in-map or prog-array", m->name);
		return -ENOTSUP;
	}
	if (of_maps && !has_values) {
		/* libbpf would take an inner_map_fd set by the application; kbpf's host has no
		 * such call on an object yet */
		obj_log(&obj->log, "map '%s': a map of maps needs its inner map's definition (__array(values, ...))",
			m->name);
		return -EINVAL;
	}
	if (of_maps) {
		ret = parse_inner_def(obj, m, values);
		if (ret)
			return ret;
	}
	if (has_values) {
		/* __array(values, ...): 4-byte values (fds in Linux), as libbpf sets */
		if (value_size && value_size != 4) {
			obj_log(&obj->log, "map '%s': conflicting value size %u != 4", m->name, value_size);
			return -EINVAL;
		}
		value_size = 4;
	}
	m->key_size = key_size;
	m->value_size = value_size;
	return 0;
}

static int collect_btf_maps(struct kbpf_object *obj, const struct obj_elf *e)
{
	const struct obj_sec *s = &e->secs[e->maps_idx];
	const struct btf_type *sec;
	int id;

	if (!obj->btf) {
		obj_log(&obj->log, "section '.maps': BTF-defined maps need the object's BTF (compile with -g)");
		return -EINVAL;
	}
	id = btf__find_by_name_kind(obj->btf, ".maps", BTF_KIND_DATASEC);
	if (id < 0) {
		obj_log(&obj->log, "section '.maps': no DATASEC '.maps' in the object's BTF");
		return -EINVAL;
	}
	sec = btf__type_by_id(obj->btf, id);
	const struct btf_var_secinfo *vsi = btf_var_secinfos(sec);
	for (uint16_t i = 0; i < btf_vlen(sec); i++, vsi++) {
		const struct btf_type *var = btf__type_by_id(obj->btf, vsi->type), *def;
		const char *name;
		struct obj_map *m;
		int ret;

		if (!var || !btf_is_var(var)) {
			obj_log(&obj->log, "section '.maps': DATASEC entry #%u is not a VAR", i);
			return -EINVAL;
		}
		name = btf__name_by_offset(obj->btf, var->name_off);
		if (!name || !*name || strlen(name) >= KBPF_OBJ_MAX_NAME) {
			obj_log(&obj->log, "section '.maps': map #%u: missing or too long name", i);
			return -EINVAL;
		}
		def = kbpf_btf_skip_mods(obj->btf, var->type, NULL);
		if (!def || !btf_is_struct(def)) {
			obj_log(&obj->log, "map '%s': its definition is not a struct", name);
			return -EINVAL;
		}
		if (vsi->offset > s->size || vsi->size > s->size - vsi->offset) {
			obj_log(&obj->log, "map '%s': definition at offset %u size %u is outside section '.maps'", name,
				vsi->offset, vsi->size);
			return -EINVAL;
		}
		m = add_map(obj, name, MAP_KIND_BTF);
		if (!m)
			return -errno;
		m->sec_idx = e->maps_idx;
		m->sec_off = vsi->offset;
		m->def_size = vsi->size;
		ret = parse_btf_map(obj, m, def, false);
		if (ret)
			return ret;
	}
	return 0;
}

/* --- global data --- */

static int collect_data(struct kbpf_object *obj, struct obj_elf *e)
{
	for (size_t i = 1; i < e->nr_secs; i++) {
		struct obj_sec *s = &e->secs[i];
		enum obj_map_kind kind;
		struct obj_map *m;

		if (s->kind == SEC_DATA)
			kind = MAP_KIND_DATA;
		else if (s->kind == SEC_RODATA)
			kind = MAP_KIND_RODATA;
		else if (s->kind == SEC_BSS)
			kind = MAP_KIND_BSS;
		else
			continue;
		if (!s->size)
			continue; /* nothing can point into an empty section */
		if (s->size > UINT32_MAX / 2) {
			obj_log(&obj->log, "section '%s': %zu bytes of global data is too much", s->name, s->size);
			return -E2BIG;
		}
		m = add_map(obj, s->name, kind);
		if (!m)
			return -errno;
		s->map_idx = (int)(m - obj->maps);
		m->sec_idx = i;
		m->type = BPF_MAP_TYPE_ARRAY;
		m->key_size = 4;
		m->value_size = (uint32_t)s->size;
		m->max_entries = 1;
		m->map_flags = kind == MAP_KIND_RODATA ? BPF_F_RDONLY_PROG : 0;
		if (obj->btf) {
			int id = btf__find_by_name_kind(obj->btf, s->name, BTF_KIND_DATASEC);
			m->btf_value_type_id = id > 0 ? (uint32_t)id : 0;
		}
		if (kind != MAP_KIND_BSS) {
			m->init_data = malloc(s->size);
			if (!m->init_data)
				return -ENOMEM;
			memcpy(m->init_data, s->data, s->size);
		}
	}
	return 0;
}

int obj_maps_collect(struct kbpf_object *obj, struct obj_elf *e)
{
	int ret = 0;

	if (e->legacy_maps_idx)
		ret = collect_legacy(obj, e);
	if (!ret && e->maps_idx)
		ret = collect_btf_maps(obj, e);
	if (!ret)
		ret = collect_data(obj, e);
	return ret;
}

/* .rel.maps: program pointers in a PROG_ARRAY's `values` (libbpf's static
 * initialisation of program arrays). */
int obj_maps_collect_inits(struct kbpf_object *obj, struct obj_elf *e)
{
	for (size_t r = 1; r < e->nr_secs; r++) {
		const struct obj_sec *rs = &e->secs[r];
		Elf_Data *data;

		if (rs->kind != SEC_REL || rs->shdr.sh_info != e->maps_idx || !e->maps_idx)
			continue;
		data = elf_getdata(elf_getscn(e->elf, r), NULL);
		if (!data) {
			obj_log(&obj->log, "section '%s': cannot read it: %s", rs->name, elf_errmsg(-1));
			return -EINVAL;
		}
		size_t n = data->d_size / sizeof(Elf64_Rel);
		for (size_t i = 0; i < n; i++) {
			GElf_Rel rel;
			GElf_Sym sym;
			const char *sym_name;
			struct obj_map *m = NULL;
			long fn;

			if (!gelf_getrel(data, (int)i, &rel) ||
			    obj_elf_sym(e, GELF_R_SYM(rel.r_info), &sym, &sym_name)) {
				obj_log(&obj->log, "section '%s': relocation #%zu: bad entry or symbol", rs->name, i);
				return -EINVAL;
			}
			for (size_t k = 0; k < obj->nr_maps && !m; k++) {
				struct obj_map *c = &obj->maps[k];
				if (c->kind == MAP_KIND_BTF && rel.r_offset >= c->sec_off &&
				    rel.r_offset - c->sec_off < c->def_size)
					m = c;
			}
			if (!m || m->values_off == UINT32_MAX || rel.r_offset - m->sec_off < m->values_off ||
			    (rel.r_offset - m->sec_off - m->values_off) % 8) {
				obj_log(&obj->log, "section '%s': relocation #%zu at offset %llu is not in a map's 'values'",
					rs->name, i, (unsigned long long)rel.r_offset);
				return -EINVAL;
			}
			if (m->inner) {
				/* `.values = { [i] = &inner_map }`: a map defined in .maps */
				long target = sym.st_shndx == e->maps_idx ? obj_map_by_def(obj, sym.st_shndx, sym.st_value)
									    : -1;
				if (target < 0) {
					obj_log(&obj->log, "map '%s': relocation #%zu: '%s' is not a BTF-defined map",
						m->name, i, sym_name);
					return -EINVAL;
				}
				struct obj_map_init *init = OBJ_ADD(m->inits, m->nr_inits);
				if (!init)
					return -ENOMEM;
				init->slot = (uint32_t)((rel.r_offset - m->sec_off - m->values_off) / 8);
				init->map_idx = (size_t)target;
				continue;
			}
			fn = GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx < e->nr_secs &&
					     e->secs[sym.st_shndx].kind == SEC_PROG && sym.st_value % 8 == 0
				     ? obj_func_at(obj, sym.st_shndx, sym.st_value / 8)
				     : -1;
			if (fn < 0 || !obj->funcs[fn].prog) {
				obj_log(&obj->log, "map '%s': relocation #%zu: '%s' is not a program", m->name, i, sym_name);
				return -EINVAL;
			}
			struct obj_map_init *init = OBJ_ADD(m->inits, m->nr_inits);
			if (!init)
				return -ENOMEM;
			init->slot = (uint32_t)((rel.r_offset - m->sec_off - m->values_off) / 8);
			init->func_idx = (size_t)fn;
		}
	}
	return 0;
}

/* --- load: creation --- */

void obj_maps_free(struct kbpf_object *obj)
{
	for (size_t i = 0; i < obj->nr_maps; i++) {
		kbpf_map_free(obj->maps[i].map);
		obj->maps[i].map = NULL;
	}
	free(obj->map_table);
	obj->map_table = NULL;
}

static const char *map_kind_what(enum obj_map_kind kind)
{
	switch (kind) {
	case MAP_KIND_BTF: return "map";
	case MAP_KIND_LEGACY: return "legacy map";
	case MAP_KIND_KCONFIG: return "kconfig map";
	default: return "global data map";
	}
}

/* What a hash map's entry costs besides its key and value: the element's header (chain,
 * free list and LRU links, hash) and its share of the buckets. */
#define HASH_ENTRY_OVERHEAD 64

/* About what the map's entries take: the keys (but an array's, which are indexes) and
 * values at 8-byte alignment, values per CPU for per-CPU maps, a hash map's element
 * overhead, or the ring of a ring buffer; saturates instead of wrapping. */
static uint64_t map_bytes(const struct obj_map *m)
{
	bool percpu = m->type == BPF_MAP_TYPE_PERCPU_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_HASH ||
		      m->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool array = m->type == BPF_MAP_TYPE_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		     m->type == BPF_MAP_TYPE_PROG_ARRAY;
	bool hash = m->type == BPF_MAP_TYPE_HASH || m->type == BPF_MAP_TYPE_PERCPU_HASH ||
		    m->type == BPF_MAP_TYPE_LRU_HASH || m->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	uint64_t key = array ? 0 : ((uint64_t)m->key_size + 7) / 8 * 8, value = ((uint64_t)m->value_size + 7) / 8 * 8;
	uint64_t per_entry, bytes;

	if (m->type == BPF_MAP_TYPE_RINGBUF)
		return m->max_entries;
	if (percpu && __builtin_mul_overflow(value, (uint64_t)kbpf_nr_cpus(), &value))
		return UINT64_MAX;
	per_entry = key + value + (hash ? HASH_ENTRY_OVERHEAD : 0);
	if (__builtin_mul_overflow(per_entry, (uint64_t)m->max_entries, &bytes))
		return UINT64_MAX;
	return bytes;
}

/* Create map m (inner: its template if m is a map of maps), with its BTF types as libbpf
 * passes them (BTF_KEY/VALUE_TYPE_ID: where a value's bpf_spin_lock / bpf_timer are),
 * and without them if that fails, as libbpf retries ("Retrying without BTF": a PROG_ARRAY
 * with __type(), say).  A map of maps goes without BTF, as libbpf sends it. */
static int create_map(struct kbpf_object *obj, const struct obj_map *m, struct kbpf_map *inner,
		      struct kbpf_map **out)
{
	char blog[256] = "";
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = m->type, .key_size = m->key_size, .value_size = m->value_size,
		.max_entries = m->max_entries, .map_flags = m->map_flags, .name = m->name, .inner_map = inner,
		.host = obj->host, .log_buf = blog, .log_size = sizeof(blog), .map_extra = m->map_extra,
	};
	int ret;

	/* libbpf's map_set_def_max_entries: a perf event array of no size gets one slot per
	 * CPU (kbpf's CPUs: kbpf_nr_cpus), where Linux itself refuses max_entries 0 */
	if (m->type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && !def.max_entries)
		def.max_entries = kbpf_nr_cpus();
	if (obj->btf && m->btf_value_type_id && !m->inner) {
		def.btf = obj->btf;
		def.btf_key_type_id = m->btf_key_type_id;
		def.btf_value_type_id = m->btf_value_type_id;
	}
	ret = kbpf_map_create(&def, out);
	if (ret && def.btf) {
		/* libbpf says so too ("Retrying without BTF"): a value's kptr fields, say, are
		 * then plain bytes, and bpf_kptr_xchg on them fails verification */
		if (blog[0])
			obj_log(&obj->log, "map '%s': %s: %s; retrying without BTF", m->name, strerror(-ret), blog);
		def.btf = NULL;
		def.btf_key_type_id = def.btf_value_type_id = 0;
		ret = kbpf_map_create(&def, out);
	}
	if (ret) {
		*out = NULL;
		obj_log(&obj->log,
			"%s '%s': cannot create it (type %u, key %u, value %u, max_entries %u, flags %#x): %s%s",
			map_kind_what(m->kind), m->name, m->type, m->key_size, m->value_size, m->max_entries,
			m->map_flags, strerror(-ret), ret == -EOPNOTSUPP ? " (map type not implemented by kbpf)" : "");
	}
	return ret;
}

/* libbpf's init_map_in_map_slots: `.values = { [i] = &map }` once every map exists
 * (libbpf needs the inner maps defined first; kbpf does not). */
static int init_map_in_map_slots(struct kbpf_object *obj)
{
	for (size_t i = 0; i < obj->nr_maps; i++) {
		struct obj_map *m = &obj->maps[i];

		for (size_t k = 0; m->inner && m->map && k < m->nr_inits; k++) {
			struct obj_map *t = &obj->maps[m->inits[k].map_idx];
			if (!t->map) {
				obj_log(&obj->log, "map '%s': slot %u: map '%s' is not created (autocreate off)", m->name,
					m->inits[k].slot, t->name);
				return -ENOENT;
			}
			int ret = m->key_size == sizeof(uint32_t)
					  ? kbpf_map_update_inner(m->map, &m->inits[k].slot, t->map, BPF_ANY)
					  : -EINVAL;

			if (ret) {
				obj_log(&obj->log, "map '%s': cannot set slot %u to map '%s': %s%s", m->name,
					m->inits[k].slot, t->name, strerror(-ret),
					ret == -EINVAL ? " (does it match the inner map's definition?)" : "");
				return ret;
			}
		}
	}
	return 0;
}

int obj_maps_create(struct kbpf_object *obj)
{
	obj->map_table = calloc(obj->nr_maps ? obj->nr_maps : 1, sizeof(*obj->map_table));
	if (!obj->map_table)
		return -ENOMEM;
	for (size_t i = 0; i < obj->nr_maps; i++) {
		struct obj_map *m = &obj->maps[i];
		struct kbpf_map *tmpl = NULL;
		uint64_t bytes = map_bytes(m);
		int ret;

		if (m->no_create)
			continue; /* autocreate off: no program that loads may use it (link checks) */
		if (bytes > KBPF_OBJ_MAX_MAP_BYTES) {
			obj_log(&obj->log,
				"%s '%s': max_entries %u of key %u and value %u bytes needs %llu bytes or more, "
				"over kbpf's limit of %llu per map",
				map_kind_what(m->kind), m->name, m->max_entries, m->key_size, m->value_size,
				(unsigned long long)bytes, (unsigned long long)KBPF_OBJ_MAX_MAP_BYTES);
			return -E2BIG;
		}
		/* libbpf: a map of maps' template first, its fd as inner_map_fd, then gone
		 * (the outer map holds it) */
		if (m->inner && (ret = create_map(obj, m->inner, NULL, &tmpl)))
			return ret;
		ret = create_map(obj, m, tmpl, &m->map);
		kbpf_map_free(tmpl);
		if (ret)
			return ret;
		obj->map_table[i] = m->map;
		if (m->init_data) {
			void *addr;
			ret = kbpf_map_direct_value_addr(m->map, 0, &addr);
			if (ret)
				return ret;
			memcpy(addr, m->init_data, m->value_size);
		}
		/* libbpf freezes what programs must only read */
		if (m->kind == MAP_KIND_RODATA || m->kind == MAP_KIND_KCONFIG) {
			ret = kbpf_map_freeze(m->map);
			if (ret)
				return ret;
		}
	}
	return init_map_in_map_slots(obj);
}

int obj_maps_init_prog_arrays(struct kbpf_object *obj)
{
	for (size_t i = 0; i < obj->nr_maps; i++) {
		struct obj_map *m = &obj->maps[i];

		for (size_t k = 0; !m->inner && m->map && k < m->nr_inits; k++) {
			struct kbpf_program *p = obj->funcs[m->inits[k].func_idx].prog;
			struct kbpf_prog *prog = p ? p->prog : NULL;
			int ret;

			if (!prog) {
				obj_log(&obj->log, "map '%s': slot %u: program '%s' is not loaded", m->name,
					m->inits[k].slot, p ? p->name : "?");
				return -EINVAL;
			}
			ret = kbpf_map_update(m->map, &m->inits[k].slot, &prog, BPF_ANY);
			if (ret) {
				obj_log(&obj->log, "map '%s': cannot set slot %u to program '%s': %s", m->name,
					m->inits[k].slot, p->name, strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}
