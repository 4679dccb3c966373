/* SPDX-License-Identifier: Apache-2.0 */
/* BTF helpers shared by the kfunc, func_info and BTF-context checks (vbtf.h). */
#include <kbpf/btf.h>
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
	const struct btf_type *t = btf ? kbpf_btf_skip_mods(btf, id, &id) : NULL;
	if (res_id)
		*res_id = id;
	return t && id ? t : &vbtf_void; /* void, a bad id, a loop */
}

const char *vbtf_name(const struct btf *btf, const struct btf_type *t)
{
	const char *n = !t || t == &vbtf_void ? NULL : btf__name_by_offset(btf, t->name_off);
	return n ? n : "";
}

const char *vbtf_kind_str(const struct btf_type *t)
{
	return kbpf_btf_kind_str(t); /* vbtf_void is kind 0: "UNKNOWN" */
}
