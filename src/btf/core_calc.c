/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE values: what a relocation's instruction holds for a given spec, computed the
 * same way for the local spec (what the compiler wrote, checked before patching) and
 * for the target spec (what is written). Arithmetic is 32-bit where libbpf's is, so
 * that the values (and their wrap-around on absurd inputs) are the same. */
#include <errno.h>
#include <string.h>
#include "btf/core_internal.h"

/* -EUCLEAN from a calc step means "not resolvable here: poison the instruction". */
#define POISON (-EUCLEAN)

/* Field value when the access ends in an array element (or is just the root). */
static int calc_elem(const struct bpf_core_relo *relo, const struct kbpf_core_spec *spec,
		     const struct kbpf_core_acc *acc, uint64_t *val, uint32_t *field_sz, uint32_t *type_id,
		     bool *validate, char *why, size_t why_size)
{
	int64_t sz = btf__resolve_size(spec->btf, acc->type_id);

	if (relo->kind != BPF_CORE_FIELD_BYTE_OFFSET && relo->kind != BPF_CORE_FIELD_BYTE_SIZE) {
		kbpf_core_msg(why, why_size, "relocation <%s> can't be applied to an array element",
			      kbpf_core_relo_kind_str(relo->kind));
		return -EINVAL;
	}
	if (sz < 0) {
		kbpf_core_msg(why, why_size, "cannot size type [%u]", acc->type_id);
		return -EINVAL;
	}
	if (relo->kind == BPF_CORE_FIELD_BYTE_OFFSET) {
		*val = (uint32_t)spec->bit_offset / 8;
		/* remembered so a load/store of the element can follow a size change */
		*field_sz = (uint32_t)sz;
		*type_id = acc->type_id;
	} else {
		*val = (uint64_t)sz;
	}
	if (validate)
		*validate = true;
	return 0;
}

/* Field kinds. spec NULL: the field was not found in any candidate. */
static int calc_field(const struct bpf_core_relo *relo, const struct kbpf_core_spec *spec, uint64_t *val,
		      uint32_t *field_sz, uint32_t *type_id, bool *validate, char *why, size_t why_size)
{
	const struct kbpf_core_acc *acc;
	const struct btf_type *t, *mt;
	uint32_t byte_off, byte_sz, bit_off, bit_sz, field_type_id = 0;
	bool bitfield;

	*field_sz = 0;
	if (relo->kind == BPF_CORE_FIELD_EXISTS) {
		*val = spec ? 1 : 0;
		return 0;
	}
	if (!spec)
		return POISON;
	acc = &spec->acc[spec->len - 1];
	if (!acc->name)
		return calc_elem(relo, spec, acc, val, field_sz, type_id, validate, why, why_size);

	t = btf__type_by_id(spec->btf, acc->type_id);
	mt = kbpf_btf_skip_mods(spec->btf, btf_members(t)[acc->idx].type, &field_type_id);
	if (!mt) {
		kbpf_core_msg(why, why_size, "field '%s' has a malformed type", acc->name);
		return -EINVAL;
	}
	bit_off = (uint32_t)spec->bit_offset;
	bit_sz = btf_member_bitfield_size(t, acc->idx);
	bitfield = bit_sz > 0;
	if (bitfield) {
		/* the smallest naturally aligned load (of at least the base type's size)
		 * that holds all the bits */
		byte_sz = mt->size;
		if (!byte_sz || (!btf_is_int(mt) && !btf_is_any_enum(mt))) {
			kbpf_core_msg(why, why_size, "bitfield '%s' has a base type of kind %s, size %u", acc->name,
				      kbpf_core_kind_str(mt), byte_sz);
			return -EINVAL;
		}
		byte_off = bit_off / 8 / byte_sz * byte_sz;
		while (bit_off + bit_sz - byte_off * 8 > byte_sz * 8) {
			if (byte_sz >= 8) {
				kbpf_core_msg(why, why_size, "relocation <%s> can't be satisfied for bitfield '%s'",
					      kbpf_core_relo_kind_str(relo->kind), acc->name);
				return -E2BIG;
			}
			byte_sz *= 2;
			byte_off = bit_off / 8 / byte_sz * byte_sz;
		}
		if (byte_sz > 8) { /* a 128-bit base type: no BPF load is that wide */
			kbpf_core_msg(why, why_size, "relocation <%s> can't be satisfied for bitfield '%s'",
				      kbpf_core_relo_kind_str(relo->kind), acc->name);
			return -E2BIG;
		}
	} else {
		int64_t sz = btf__resolve_size(spec->btf, field_type_id);

		if (sz < 0) {
			kbpf_core_msg(why, why_size, "cannot size field '%s'", acc->name);
			return -EINVAL;
		}
		byte_sz = (uint32_t)sz;
		byte_off = bit_off / 8;
		bit_sz = byte_sz * 8;
	}
	/* the compiler and we may legitimately pick different loads for a bitfield, so
	 * only the unambiguous values are checked against the instruction */
	if (validate)
		*validate = !bitfield;

	switch (relo->kind) {
	case BPF_CORE_FIELD_BYTE_OFFSET:
		*val = byte_off;
		if (!bitfield) {
			/* the size a load/store of the field uses: an array's element's, not
			 * the whole array's (libbpf since 2024: int a[5] vs int a[7] is the
			 * same int access; an element size change still poisons) */
			uint32_t elem_id = field_type_id;
			const struct btf_type *et = kbpf_btf_skip_mods(spec->btf, elem_id, &elem_id);
			for (int depth = 0; et && btf_is_array(et) && depth < 32; depth++)
				et = kbpf_btf_skip_mods(spec->btf, btf_array(et)->type, &elem_id);
			int64_t esz = et ? btf__resolve_size(spec->btf, elem_id) : -1;
			if (esz < 0) {
				kbpf_core_msg(why, why_size, "cannot size field '%s'", acc->name);
				return -EINVAL;
			}
			*field_sz = (uint32_t)esz;
			*type_id = field_type_id;
		}
		break;
	case BPF_CORE_FIELD_BYTE_SIZE:
		*val = byte_sz;
		break;
	case BPF_CORE_FIELD_SIGNED:
		*val = (btf_is_any_enum(mt) && btf_kflag(mt)) || (btf_is_int(mt) && (btf_int_encoding(mt) & BTF_INT_SIGNED));
		if (validate)
			*validate = true;
		break;
	case BPF_CORE_FIELD_LSHIFT_U64:
		/* little endian: the field's top bit goes to bit 63 */
		*val = (uint32_t)(64 - (bit_off + bit_sz - byte_off * 8));
		break;
	case BPF_CORE_FIELD_RSHIFT_U64:
		*val = (uint32_t)(64 - bit_sz);
		if (validate)
			*validate = true;
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Type kinds. spec NULL: no compatible type in the target (the value is then 0). */
static int calc_type(const struct bpf_core_relo *relo, const struct kbpf_core_spec *spec, uint64_t *val,
		     bool *validate, char *why, size_t why_size)
{
	int64_t sz;

	if (validate)
		*validate = true;
	if (!spec) {
		*val = 0;
		return 0;
	}
	switch (relo->kind) {
	case BPF_CORE_TYPE_ID_TARGET:
		*val = spec->root_type_id;
		/* type ids shift when objects are linked: the compiler's is only a hint */
		if (validate)
			*validate = false;
		return 0;
	case BPF_CORE_TYPE_EXISTS:
	case KBPF_CORE_TYPE_MATCHES:
		*val = 1;
		return 0;
	case BPF_CORE_TYPE_SIZE:
		sz = btf__resolve_size(spec->btf, spec->root_type_id);
		if (sz < 0) {
			kbpf_core_msg(why, why_size, "cannot size type [%u]", spec->root_type_id);
			return -EINVAL;
		}
		*val = (uint64_t)sz;
		return 0;
	default: /* TYPE_ID_LOCAL never gets here */
		return -EOPNOTSUPP;
	}
}

static int calc_enumval(const struct bpf_core_relo *relo, const struct kbpf_core_spec *spec, uint64_t *val)
{
	const struct btf_type *t;

	switch (relo->kind) {
	case BPF_CORE_ENUMVAL_EXISTS:
		*val = spec ? 1 : 0;
		return 0;
	case BPF_CORE_ENUMVAL_VALUE:
		if (!spec)
			return POISON;
		t = btf__type_by_id(spec->btf, spec->acc[0].type_id);
		/* a 32-bit enumerator is sign-extended, as in libbpf */
		*val = btf_is_enum(t) ? (uint64_t)(int64_t)btf_enum(t)[spec->acc[0].idx].val
				      : btf_enum64_value(btf_enum64(t) + spec->acc[0].idx);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Whether a load/store may change size with its field: pointers (a 32-bit target
 * pointer zero-extends) and unsigned ints (zero extension keeps the value). */
static bool memsz_adjust_ok(const struct btf *local, uint32_t lid, const struct btf *targ, uint32_t tid)
{
	const struct btf_type *lt = btf__type_by_id(local, lid), *tt = btf__type_by_id(targ, tid);

	if (!lt || !tt)
		return false;
	if (btf_is_ptr(lt) && btf_is_ptr(tt))
		return true;
	return btf_is_int(lt) && btf_is_int(tt) && btf_int_encoding(lt) != BTF_INT_SIGNED &&
	       btf_int_encoding(tt) != BTF_INT_SIGNED;
}

int kbpf_core_calc_relo(const struct bpf_core_relo *relo, const struct kbpf_core_spec *local,
			const struct kbpf_core_spec *targ, struct kbpf_core_res *res, char *why, size_t why_size)
{
	int ret = -EOPNOTSUPP;

	memset(res, 0, sizeof(*res));
	res->validate = true;
	if (kbpf_core_kind_is_field(relo->kind)) {
		ret = calc_field(relo, local, &res->orig_val, &res->orig_sz, &res->orig_type_id, &res->validate, why,
				 why_size);
		if (!ret)
			ret = calc_field(relo, targ, &res->new_val, &res->new_sz, &res->new_type_id, NULL, why, why_size);
		if (!ret && res->orig_sz != res->new_sz &&
		    !memsz_adjust_ok(local->btf, res->orig_type_id, targ->btf, res->new_type_id))
			res->fail_memsz_adjust = true; /* only matters to LDX/ST/STX */
	} else if (kbpf_core_kind_is_type(relo->kind)) {
		ret = calc_type(relo, local, &res->orig_val, &res->validate, why, why_size);
		if (!ret)
			ret = calc_type(relo, targ, &res->new_val, NULL, why, why_size);
	} else if (kbpf_core_kind_is_enumval(relo->kind)) {
		ret = calc_enumval(relo, local, &res->orig_val);
		if (!ret)
			ret = calc_enumval(relo, targ, &res->new_val);
	}
	if (ret == POISON) {
		res->poison = true;
		return 0;
	}
	if (ret == -EOPNOTSUPP)
		kbpf_core_msg(why, why_size, "unrecognized CO-RE relocation %s (%u)", kbpf_core_relo_kind_str(relo->kind),
			      relo->kind);
	return ret;
}
