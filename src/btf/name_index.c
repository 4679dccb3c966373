/* SPDX-License-Identifier: Apache-2.0 */
/* Hash index of a BTF's named types (name_index.h): open addressing, FNV-1a of the name
 * mixed with the kind, a power-of-two table at most half full. */
#include "btf/name_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

struct kbpf_btf_name_index {
	const struct btf *btf;
	uint32_t mask;
	uint32_t *slot; /* type id, 0 = empty */
};

static uint32_t hash(const char *name, uint32_t kind)
{
	uint32_t h = 2166136261u ^ kind;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

struct kbpf_btf_name_index *kbpf_btf_name_index_new(const struct btf *btf)
{
	uint32_t n = btf__type_cnt(btf), size = 16;
	while (size < 2 * n)
		size *= 2;
	struct kbpf_btf_name_index *idx = malloc(sizeof(*idx));
	uint32_t *slot = calloc(size, sizeof(*slot));
	if (!idx || !slot) {
		free(idx);
		free(slot);
		return NULL;
	}
	*idx = (struct kbpf_btf_name_index){ .btf = btf, .mask = size - 1, .slot = slot };
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);
		if (!name || !*name)
			continue;
		uint32_t kind = btf_kind(t);
		uint32_t h = hash(name, kind) & idx->mask;
		for (;; h = (h + 1) & idx->mask) {
			if (!slot[h]) {
				slot[h] = id; /* ids rise: the first of a name and kind stays */
				break;
			}
			const struct btf_type *o = btf__type_by_id(btf, slot[h]);
			if (btf_kind(o) == kind && !strcmp(btf__name_by_offset(btf, o->name_off), name))
				break;
		}
	}
	return idx;
}

void kbpf_btf_name_index_free(struct kbpf_btf_name_index *idx)
{
	if (idx)
		free(idx->slot);
	free(idx);
}

int32_t kbpf_btf_name_index_find(const struct kbpf_btf_name_index *idx, const char *name, uint32_t kind)
{
	if (!name)
		return -ENOENT;
	for (uint32_t h = hash(name, kind) & idx->mask;; h = (h + 1) & idx->mask) {
		uint32_t id = idx->slot[h];
		if (!id)
			return -ENOENT;
		const struct btf_type *t = btf__type_by_id(idx->btf, id);
		if (btf_kind(t) == kind && !strcmp(btf__name_by_offset(idx->btf, t->name_off), name))
			return (int32_t)id;
	}
}
