/* SPDX-License-Identifier: Apache-2.0 */
/* Matching a parsed local access against one target candidate type, libbpf's way:
 * named fields are looked up by exact name in the target struct/union, descending into
 * anonymous members (so a field may move in or out of an anonymous struct/union), and
 * must have a compatible type; array indices must be within the target array; the
 * result is the target's own access (raw steps and bit offset). */
#include <errno.h>
#include <string.h>
#include "btf/core_internal.h"

struct match {
	const struct kbpf_core_spec *local;
	const struct btf *targ;
	struct kbpf_core_spec *ts;
	unsigned budget;
	char *why;
	size_t why_size;
};

/* Find local accessor lacc's field in target composite targ_id (or in its anonymous
 * members, recursively), pushing raw steps as it goes. 1 found (*next_id: the field's
 * type), 0 not found or incompatible, <0 malformed. */
static int match_member(struct match *mt, const struct kbpf_core_acc *lacc, uint32_t targ_id, uint32_t *next_id)
{
	const struct btf *local = mt->local->btf, *targ = mt->targ;
	struct kbpf_core_spec *ts = mt->ts;
	const struct btf_type *tt = kbpf_btf_skip_mods(targ, targ_id, &targ_id);
	const struct btf_member *lm, *m;
	char lb[128], tb[128], fb[128];

	if (!tt)
		return -EINVAL;
	if (!btf_is_composite(tt))
		return 0;
	lm = btf_members(btf__type_by_id(local, lacc->type_id)) + lacc->idx;
	m = btf_members(tt);
	for (int i = 0; i < btf_vlen(tt); i++, m++) {
		uint32_t bit_off = btf_member_bit_offset(tt, i);
		const char *tname;
		int found;

		if (!mt->budget--) {
			kbpf_core_msg(mt->why, mt->why_size, "target BTF too deeply nested");
			return -E2BIG;
		}
		if (ts->raw_len == KBPF_CORE_SPEC_MAX_LEN) {
			kbpf_core_msg(mt->why, mt->why_size, "target access longer than %d steps", KBPF_CORE_SPEC_MAX_LEN);
			return -E2BIG;
		}
		/* speculatively step into member i */
		ts->bit_offset += bit_off;
		ts->raw[ts->raw_len++] = (uint32_t)i;
		tname = kbpf_core_name(targ, m->name_off);
		if (!tname[0]) {
			found = match_member(mt, lacc, m->type, next_id);
			if (found)
				return found;
		} else if (!strcmp(lacc->name, tname)) {
			ts->acc[ts->len++] = (struct kbpf_core_acc){ .type_id = targ_id, .idx = (uint32_t)i, .name = tname };
			*next_id = m->type;
			found = kbpf_core_fields_are_compat(local, lm->type, targ, m->type);
			if (found == 0) {
				ts->len--;
				kbpf_core_msg(mt->why, mt->why_size, "field '%s' of %s has an incompatible type (%s here, %s in the program)",
					      tname, kbpf_core_type_str(targ, targ_id, tb, sizeof(tb)),
					      kbpf_core_type_str(targ, m->type, fb, sizeof(fb)),
					      kbpf_core_type_str(local, lm->type, lb, sizeof(lb)));
			} else if (found < 0) {
				kbpf_core_msg(mt->why, mt->why_size, "field '%s': malformed BTF", tname);
			}
			return found;
		}
		ts->bit_offset -= bit_off;
		ts->raw_len--;
	}
	return 0;
}

static int match_enumval(struct match *mt, uint32_t targ_id)
{
	const struct kbpf_core_acc *lacc = &mt->local->acc[0];
	const struct btf_type *tt = kbpf_btf_skip_mods(mt->targ, targ_id, &targ_id);
	char tb[128];

	if (!tt) {
		kbpf_core_msg(mt->why, mt->why_size, "target type [%u] is malformed", targ_id);
		return -EINVAL;
	}
	if (!btf_is_any_enum(tt)) {
		kbpf_core_msg(mt->why, mt->why_size, "%s is not an enum", kbpf_core_type_str(mt->targ, targ_id, tb, sizeof(tb)));
		return 0;
	}
	for (int i = 0; i < btf_vlen(tt); i++) {
		const char *tname = kbpf_core_name(mt->targ, kbpf_core_enum_name_off(tt, i));

		if (kbpf_core_names_equal(lacc->name, tname)) {
			mt->ts->acc[0] = (struct kbpf_core_acc){ .type_id = targ_id, .idx = (uint32_t)i, .name = tname };
			mt->ts->len = 1;
			mt->ts->raw[0] = (uint32_t)i;
			mt->ts->raw_len = 1;
			return 1;
		}
	}
	kbpf_core_msg(mt->why, mt->why_size, "enum value '%s' not found in %s", lacc->name,
		      kbpf_core_type_str(mt->targ, targ_id, tb, sizeof(tb)));
	return 0;
}

/* Array element (or, for i == 0, the root pointer used as an array) step i. */
static int match_index(struct match *mt, int i, uint32_t *targ_id, const struct btf_type *tt)
{
	const struct kbpf_core_acc *lacc = &mt->local->acc[i];
	struct kbpf_core_spec *ts = mt->ts;
	int64_t sz;

	/* the root is the candidate itself: the "array" is the pointer the program used */
	if (i > 0) {
		const struct btf_array *a;

		if (!btf_is_array(tt)) {
			kbpf_core_msg(mt->why, mt->why_size, "'%s' is not an array here",
				      ts->len && ts->acc[ts->len - 1].name ? ts->acc[ts->len - 1].name : "?");
			return 0;
		}
		a = btf_array(tt);
		if (!kbpf_core_is_flex_array(mt->targ, &ts->acc[ts->len - 1], a) && lacc->idx >= a->nelems) {
			kbpf_core_msg(mt->why, mt->why_size, "index %u is beyond the %u elements of '%s' here", lacc->idx,
				      a->nelems, ts->acc[ts->len - 1].name ? ts->acc[ts->len - 1].name : "?");
			return 0;
		}
		if (!kbpf_btf_skip_mods(mt->targ, a->type, targ_id)) {
			kbpf_core_msg(mt->why, mt->why_size, "target array element type is malformed");
			return -EINVAL;
		}
	}
	if (ts->raw_len == KBPF_CORE_SPEC_MAX_LEN) {
		kbpf_core_msg(mt->why, mt->why_size, "target access longer than %d steps", KBPF_CORE_SPEC_MAX_LEN);
		return -E2BIG;
	}
	ts->acc[ts->len++] = (struct kbpf_core_acc){ .type_id = *targ_id, .idx = lacc->idx };
	ts->raw[ts->raw_len++] = lacc->idx;
	sz = btf__resolve_size(mt->targ, *targ_id);
	if (sz < 0) {
		kbpf_core_msg(mt->why, mt->why_size, "cannot size target type [%u]", *targ_id);
		return (int)sz;
	}
	ts->bit_offset += (uint64_t)lacc->idx * (uint64_t)sz * 8;
	if (ts->bit_offset > UINT32_MAX) {
		kbpf_core_msg(mt->why, mt->why_size, "target access lands beyond 4 GiB bits from the root");
		return -EINVAL;
	}
	return 1;
}

int kbpf_core_spec_match(const struct kbpf_core_spec *local, const struct btf *targ, uint32_t targ_id,
			 struct kbpf_core_spec *ts, char *why, size_t why_size)
{
	struct match mt = { .local = local, .targ = targ, .ts = ts, .budget = KBPF_CORE_WORK_BUDGET, .why = why,
			    .why_size = why_size };
	char tb[128];
	int ret;

	if (why && why_size)
		why[0] = 0;
	memset(ts, 0, sizeof(*ts));
	ts->btf = targ;
	ts->root_type_id = targ_id;
	ts->kind = local->kind;

	if (kbpf_core_kind_is_type(local->kind)) {
		if (local->kind == KBPF_CORE_TYPE_MATCHES)
			ret = kbpf_core_types_match(local->btf, local->root_type_id, targ, targ_id);
		else
			ret = kbpf_core_types_are_compat(local->btf, local->root_type_id, targ, targ_id);
		if (ret <= 0)
			kbpf_core_msg(why, why_size, ret ? "%s [%u]: malformed or too deeply nested BTF"
							 : (local->kind == KBPF_CORE_TYPE_MATCHES ? "%s [%u] does not match"
												   : "%s [%u] is not compatible"),
				      kbpf_core_type_str(targ, targ_id, tb, sizeof(tb)), targ_id);
		return ret;
	}
	if (kbpf_core_kind_is_enumval(local->kind))
		return match_enumval(&mt, targ_id);
	if (!kbpf_core_kind_is_field(local->kind))
		return -EINVAL;

	for (int i = 0; i < local->len; i++) {
		const struct btf_type *tt = kbpf_btf_skip_mods(targ, targ_id, &targ_id);

		if (!tt) {
			kbpf_core_msg(why, why_size, "target type [%u] is malformed", targ_id);
			return -EINVAL;
		}
		if (local->acc[i].name) {
			ret = match_member(&mt, &local->acc[i], targ_id, &targ_id);
			if (ret == 0 && (!why || !why[0]))
				kbpf_core_msg(why, why_size, "field '%s' not found in %s", local->acc[i].name,
					      kbpf_core_type_str(targ, targ_id, tb, sizeof(tb)));
		} else {
			ret = match_index(&mt, i, &targ_id, tt);
		}
		if (ret <= 0)
			return ret;
	}
	return 1;
}
