/* SPDX-License-Identifier: Apache-2.0 */
#include "btf/btf_mods.h"

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
