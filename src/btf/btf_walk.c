/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>
#include "btf/btf_walk.h"

/* Far more than C declarations produce; a longer chain is a loop. */
#define MAX_MODS_CHAIN 256

const struct btf_type *kbpf_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *res_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int n = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); n++) {
		if (n == MAX_MODS_CHAIN)
			return NULL;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (t && res_id)
		*res_id = id;
	return t;
}

/* Indexed by BTF_KIND_*: Linux's btf_kind_str table (bpftool prints the same names). */
static const char *const kind_upper[] = {
	"UNKNOWN", "INT",      "PTR",   "ARRAY",    "STRUCT", "UNION",      "ENUM", "FWD",
	"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC",   "FUNC_PROTO", "VAR",  "DATASEC",
	"FLOAT",   "DECL_TAG", "TYPE_TAG", "ENUM64",
};
/* ... and libbpf's. */
static const char *const kind_lower[] = {
	"void",    "int",      "ptr",   "array",    "struct", "union",      "enum", "fwd",
	"typedef", "volatile", "const", "restrict", "func",   "func_proto", "var",  "datasec",
	"float",   "decl_tag", "type_tag", "enum64",
};
_Static_assert(sizeof(kind_upper) == sizeof(kind_lower), "one name per kind in each table");

const char *kbpf_btf_kind_str(const struct btf_type *t)
{
	unsigned k = t ? btf_kind(t) : 0;
	return k < sizeof(kind_upper) / sizeof(kind_upper[0]) ? kind_upper[k] : "UNKNOWN";
}

const char *kbpf_btf_kind_str_lower(const struct btf_type *t)
{
	unsigned k = t ? btf_kind(t) : 0;
	return k < sizeof(kind_lower) / sizeof(kind_lower[0]) ? kind_lower[k] : "unknown";
}

uint32_t kbpf_btf_func_ptr_proto(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = kbpf_btf_skip_mods(btf, type_id, NULL);
	uint32_t id = 0;

	if (!t || !btf_is_ptr(t))
		return 0;
	t = kbpf_btf_skip_mods(btf, t->type, &id);
	return t && btf_is_func_proto(t) ? id : 0;
}

const struct btf_member *kbpf_btf_member_by_name(const struct btf *btf, const struct btf_type *st,
						 const char *name, unsigned *idx)
{
	const struct btf_member *m = btf_members(st);

	for (unsigned i = 0; i < btf_vlen(st); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		if (n && !strcmp(n, name)) {
			if (idx)
				*idx = i;
			return m;
		}
	}
	return NULL;
}
