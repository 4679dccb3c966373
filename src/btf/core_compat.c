/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE type compatibility, with libbpf's three relations:
 *  - types_are_compat (a candidate for TYPE_EXISTS/SIZE/ID_TARGET): same kind after
 *    modifiers and typedefs are skipped (enum and enum64 count as one kind); ints must
 *    not be the deprecated bit-offset ints; pointers and arrays compare what they point
 *    to / hold; function prototypes compare arity, parameters and return type; structs,
 *    unions, enums and forward declarations are compatible by name alone (the caller
 *    already matched names).
 *  - fields_are_compat (a target field standing for a local one): any two composites;
 *    pointers and floats always; enums and forwards if one is anonymous or the names
 *    agree up to flavours; ints regardless of size and sign; arrays by element type.
 *  - types_match (TYPE_MATCHES): stricter, recursive: ints by size and sign, enums by
 *    having every local enumerator name in the target, composites by having every local
 *    member (by name) with a matching type, arrays by element count and type; below a
 *    pointer, composites match by kind alone (or a forward declaration of that kind).
 * All three return 1, 0, or a negative errno on malformed BTF, and spend from a work
 * budget so crafted BTF cannot make them exponential. */
#include <errno.h>
#include <string.h>
#include "btf/core_internal.h"

/* libbpf's recursion limits: nesting through function parameters / struct members. */
#define COMPAT_LEVELS 32
/* And the length of one pointer/array/modifier chain walked iteratively. */
#define CHAIN_DEPTH 32

static int spend(unsigned *budget)
{
	if (!*budget)
		return -E2BIG;
	--*budget;
	return 0;
}

static int types_are_compat(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid, int level,
			    unsigned *budget)
{
	const struct btf_type *lt = btf__type_by_id(local, lid), *tt = btf__type_by_id(targ, tid);
	int depth = CHAIN_DEPTH;

	if (!lt || !tt)
		return -EINVAL;
	if (!btf_kind_core_compat(lt, tt))
		return 0;
	for (;;) {
		if (--depth < 0 || spend(budget))
			return -EINVAL;
		lt = kbpf_btf_skip_mods(local, lid, &lid);
		tt = kbpf_btf_skip_mods(targ, tid, &tid);
		if (!lt || !tt)
			return -EINVAL;
		if (!btf_kind_core_compat(lt, tt))
			return 0;
		switch (btf_kind(lt)) {
		case BTF_KIND_UNKN:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FWD:
			return 1;
		case BTF_KIND_INT:
			return btf_int_offset(lt) == 0 && btf_int_offset(tt) == 0;
		case BTF_KIND_PTR:
			lid = lt->type;
			tid = tt->type;
			continue;
		case BTF_KIND_ARRAY:
			lid = btf_array(lt)->type;
			tid = btf_array(tt)->type;
			continue;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *lp = btf_params(lt), *tp = btf_params(tt);

			if (btf_vlen(lt) != btf_vlen(tt))
				return 0;
			for (int i = 0; i < btf_vlen(lt); i++) {
				uint32_t la, ta;
				int ret;

				if (level <= 0)
					return -EINVAL;
				if (!kbpf_btf_skip_mods(local, lp[i].type, &la) ||
				    !kbpf_btf_skip_mods(targ, tp[i].type, &ta))
					return -EINVAL;
				ret = types_are_compat(local, la, targ, ta, level - 1, budget);
				if (ret <= 0)
					return ret;
			}
			lid = lt->type; /* then the return type */
			tid = tt->type;
			continue;
		}
		default:
			return 0;
		}
	}
}

int kbpf_core_types_are_compat(const struct btf *local, uint32_t local_id, const struct btf *targ,
			       uint32_t targ_id)
{
	unsigned budget = KBPF_CORE_WORK_BUDGET;
	return types_are_compat(local, local_id, targ, targ_id, COMPAT_LEVELS, &budget);
}

int kbpf_core_fields_are_compat(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid)
{
	for (int depth = 0; depth < CHAIN_DEPTH; depth++) {
		const struct btf_type *lt = kbpf_btf_skip_mods(local, lid, &lid);
		const struct btf_type *tt = kbpf_btf_skip_mods(targ, tid, &tid);

		if (!lt || !tt)
			return -EINVAL;
		if (btf_is_composite(lt) && btf_is_composite(tt))
			return 1;
		if (!btf_kind_core_compat(lt, tt))
			return 0;
		switch (btf_kind(lt)) {
		case BTF_KIND_PTR:
		case BTF_KIND_FLOAT:
			return 1;
		case BTF_KIND_FWD:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: {
			const char *ln = kbpf_core_name(local, lt->name_off), *tn = kbpf_core_name(targ, tt->name_off);
			/* one of them anonymous, or the same name up to flavours */
			return !ln[0] || !tn[0] || kbpf_core_names_equal(ln, tn);
		}
		case BTF_KIND_INT:
			return btf_int_offset(lt) == 0 && btf_int_offset(tt) == 0;
		case BTF_KIND_ARRAY:
			lid = btf_array(lt)->type;
			tid = btf_array(tt)->type;
			continue;
		default:
			return 0;
		}
	}
	return -EINVAL;
}

/* Names equal up to flavours; an anonymous target matches only an anonymous local. */
static bool names_match(const struct btf *local, uint32_t loff, const struct btf *targ, uint32_t toff)
{
	const char *ln = kbpf_core_name(local, loff), *tn = kbpf_core_name(targ, toff);

	if (!tn[0])
		return !ln[0];
	return kbpf_core_names_equal(ln, tn);
}

static int enums_match(const struct btf *local, const struct btf_type *lt, const struct btf *targ,
		       const struct btf_type *tt, unsigned *budget)
{
	if (lt->size != tt->size || btf_vlen(lt) > btf_vlen(tt))
		return 0;
	/* every local enumerator has a target one of the same name (values may differ) */
	for (int i = 0; i < btf_vlen(lt); i++) {
		uint32_t loff = kbpf_core_enum_name_off(lt, i);
		bool found = false;

		for (int j = 0; j < btf_vlen(tt) && !found; j++) {
			if (spend(budget))
				return -E2BIG;
			found = names_match(local, loff, targ, kbpf_core_enum_name_off(tt, j));
		}
		if (!found)
			return 0;
	}
	return 1;
}

static int types_match(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid, bool behind_ptr,
		       int level, unsigned *budget);

static int composites_match(const struct btf *local, const struct btf_type *lt, const struct btf *targ,
			    const struct btf_type *tt, bool behind_ptr, int level, unsigned *budget)
{
	const struct btf_member *lm = btf_members(lt);

	if (btf_vlen(lt) > btf_vlen(tt))
		return 0;
	/* every local member has a same-named target member of a matching type */
	for (int i = 0; i < btf_vlen(lt); i++, lm++) {
		const struct btf_member *tm = btf_members(tt);
		bool matched = false;

		for (int j = 0; j < btf_vlen(tt) && !matched; j++, tm++) {
			int ret;

			if (spend(budget))
				return -E2BIG;
			if (!names_match(local, lm->name_off, targ, tm->name_off))
				continue;
			ret = types_match(local, lm->type, targ, tm->type, behind_ptr, level - 1, budget);
			if (ret < 0)
				return ret;
			matched = ret > 0;
		}
		if (!matched)
			return 0;
	}
	return 1;
}

static int types_match(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid, bool behind_ptr,
		       int level, unsigned *budget)
{
	int depth = CHAIN_DEPTH;

	if (level <= 0)
		return -EINVAL;
	for (;;) {
		const struct btf_type *lt, *tt;
		uint16_t lk, tk;

		if (--depth < 0 || spend(budget))
			return -EINVAL;
		lt = kbpf_btf_skip_mods(local, lid, &lid);
		tt = kbpf_btf_skip_mods(targ, tid, &tid);
		if (!lt || !tt)
			return -EINVAL;
		/* names are compared after typedefs are skipped; the root typedef's own name
		 * was matched by the candidate search */
		if (!names_match(local, lt->name_off, targ, tt->name_off))
			return 0;
		lk = btf_kind(lt);
		tk = btf_kind(tt);
		switch (lk) {
		case BTF_KIND_UNKN:
			return lk == tk;
		case BTF_KIND_FWD: {
			bool lf = btf_kflag(lt);

			if (behind_ptr) {
				if (lk == tk)
					return lf == btf_kflag(tt);
				/* a forward's kflag says union (1) or struct (0) */
				return (tk == BTF_KIND_STRUCT && !lf) || (tk == BTF_KIND_UNION && lf);
			}
			return lk == tk && lf == btf_kflag(tt);
		}
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!btf_is_any_enum(tt))
				return 0;
			return enums_match(local, lt, targ, tt, budget);
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (behind_ptr) {
				if (lk == tk)
					return 1;
				if (tk != BTF_KIND_FWD)
					return 0;
				return (lk == BTF_KIND_UNION) == btf_kflag(tt);
			}
			if (lk != tk)
				return 0;
			return composites_match(local, lt, targ, tt, behind_ptr, level, budget);
		case BTF_KIND_INT:
			if (lk != tk)
				return 0;
			return lt->size == tt->size &&
			       (btf_int_encoding(lt) & BTF_INT_SIGNED) == (btf_int_encoding(tt) & BTF_INT_SIGNED);
		case BTF_KIND_PTR:
			if (lk != tk)
				return 0;
			behind_ptr = true;
			lid = lt->type;
			tid = tt->type;
			continue;
		case BTF_KIND_ARRAY:
			if (lk != tk || btf_array(lt)->nelems != btf_array(tt)->nelems)
				return 0;
			lid = btf_array(lt)->type;
			tid = btf_array(tt)->type;
			continue;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *lp = btf_params(lt), *tp = btf_params(tt);

			if (lk != tk || btf_vlen(lt) != btf_vlen(tt))
				return 0;
			for (int i = 0; i < btf_vlen(lt); i++) {
				int ret = types_match(local, lp[i].type, targ, tp[i].type, behind_ptr, level - 1, budget);
				if (ret <= 0)
					return ret;
			}
			lid = lt->type;
			tid = tt->type;
			continue;
		}
		default:
			return 0;
		}
	}
}

int kbpf_core_types_match(const struct btf *local, uint32_t local_id, const struct btf *targ, uint32_t targ_id)
{
	unsigned budget = KBPF_CORE_WORK_BUDGET;
	return types_match(local, local_id, targ, targ_id, false, COMPAT_LEVELS, &budget);
}
