/* SPDX-License-Identifier: Apache-2.0 */
/* BTF helpers shared by the kfunc, func_info and BTF-context checks (vbtf.h). */
#include "verifier/vbtf.h"

const struct btf_type vbtf_void;

const struct btf_type *vbtf_type(const struct btf *btf, uint32_t id)
{
	if (!btf || id == 0 || id >= btf__type_cnt(btf))
		return &vbtf_void;
	const struct btf_type *t = btf__type_by_id(btf, id);
	return t ? t : &vbtf_void;
}

const struct btf_type *vbtf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *res_id)
{
	const struct btf_type *t = vbtf_type(btf, id);
	for (int depth = 0; depth < 64 && t != &vbtf_void && (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t));
	     depth++) {
		id = t->type;
		t = vbtf_type(btf, id);
	}
	if (res_id)
		*res_id = id;
	return t;
}

const char *vbtf_name(const struct btf *btf, const struct btf_type *t)
{
	const char *n = !t || t == &vbtf_void ? NULL : btf__name_by_offset(btf, t->name_off);
	return n ? n : "";
}

const char *vbtf_kind_str(const struct btf_type *t)
{
	static const char *const names[] = {
		"UNKNOWN", "INT",      "PTR",   "ARRAY",    "STRUCT", "UNION",      "ENUM", "FWD",
		"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC",   "FUNC_PROTO", "VAR",  "DATASEC",
		"FLOAT",   "DECL_TAG", "TYPE_TAG", "ENUM64",
	};
	unsigned k = t ? btf_kind(t) : 0;
	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "UNKNOWN";
}
