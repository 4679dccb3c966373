/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE candidates: the target types a local type may stand for. As in libbpf, a
 * candidate has a compatible kind (the same, or both enums) and the same essential
 * name: "foo", "foo___v1" and "foo___v2" are all candidates for each other, which is
 * how a program carries several layouts of one type. The search is a linear scan of
 * the target BTF; callers cache the result per local type (struct kbpf_core_ctx). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "btf/core_internal.h"

int kbpf_core_find_cands(const struct btf *local, uint32_t local_id, const struct btf *targ,
			 struct kbpf_core_cands *cands)
{
	const struct btf_type *lt = btf__type_by_id(local, local_id);
	const char *lname;
	size_t llen, cap = 0;
	uint32_t n;

	cands->ids = NULL;
	cands->len = 0;
	if (!lt)
		return -EINVAL;
	lname = kbpf_core_name(local, lt->name_off);
	if (!lname[0])
		return -EINVAL; /* libbpf does not search for anonymous types */
	llen = kbpf_core_essential_name_len(lname);

	n = btf__type_cnt(targ);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(targ, id);
		const char *tname;

		if (!t || !btf_kind_core_compat(t, lt))
			continue;
		tname = kbpf_core_name(targ, t->name_off);
		if (!tname[0] || kbpf_core_essential_name_len(tname) != llen || strncmp(lname, tname, llen))
			continue;
		if (cands->len == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			uint32_t *ids = realloc(cands->ids, ncap * sizeof(*ids));

			if (!ids) {
				kbpf_core_cands_release(cands);
				return -ENOMEM;
			}
			cands->ids = ids;
			cap = ncap;
		}
		cands->ids[cands->len++] = id;
	}
	return 0;
}

void kbpf_core_cands_release(struct kbpf_core_cands *cands)
{
	free(cands->ids);
	cands->ids = NULL;
	cands->len = 0;
}
