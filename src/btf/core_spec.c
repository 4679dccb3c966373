/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE access strings: "0:1:2:3" parsed against the local type into a spec (the field
 * or array element reached, and its bit offset), with libbpf's rules:
 *  - type-based kinds take exactly "0";
 *  - enum value kinds take one index, the enumerator's;
 *  - field kinds take the root index (the pointer used as an array, usually 0), then a
 *    member index per struct/union level (anonymous members included) or an element
 *    index per array level (bounded by the array's size unless it is a flexible array:
 *    the last member of a struct, with zero elements). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "btf/core_internal.h"

/* Strict grammar: decimal numbers separated by single colons. libbpf uses sscanf("%d"),
 * which also takes signs and blanks; clang emits neither, and a negative index would
 * index outside the type. */
static int parse_numbers(const char *s, struct kbpf_core_spec *spec, char *why, size_t why_size)
{
	const char *start = s;

	for (;;) {
		uint64_t v = 0;
		const char *digits = s;

		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (v > INT32_MAX) {
				kbpf_core_msg(why, why_size, "access string \"%s\": index too large", start);
				return -EINVAL;
			}
		}
		if (s == digits) {
			kbpf_core_msg(why, why_size, "access string \"%s\" is malformed at offset %td", start,
				      s - start);
			return -EINVAL;
		}
		if (spec->raw_len == KBPF_CORE_SPEC_MAX_LEN) {
			kbpf_core_msg(why, why_size, "access string \"%s\" is longer than %d steps", start,
				      KBPF_CORE_SPEC_MAX_LEN);
			return -E2BIG;
		}
		spec->raw[spec->raw_len++] = (uint32_t)v;
		if (!*s)
			return 0;
		if (*s++ != ':') {
			kbpf_core_msg(why, why_size, "access string \"%s\" is malformed at offset %td", start,
				      s - 1 - start);
			return -EINVAL;
		}
	}
}

bool kbpf_core_is_flex_array(const struct btf *btf, const struct kbpf_core_acc *prev, const struct btf_array *a)
{
	const struct btf_type *t;

	/* only a zero-sized array that is the last member of the struct holding it */
	if (!prev->name || a->nelems > 0)
		return false;
	t = btf__type_by_id(btf, prev->type_id);
	return t && btf_vlen(t) && prev->idx == (uint32_t)btf_vlen(t) - 1;
}

static int size_of(const struct btf *btf, uint32_t id, int64_t *sz, char *why, size_t why_size)
{
	char tb[128];

	*sz = btf__resolve_size(btf, id);
	if (*sz < 0) {
		kbpf_core_msg(why, why_size, "cannot size %s [%u]", kbpf_core_type_str(btf, id, tb, sizeof(tb)), id);
		return (int)*sz;
	}
	return 0;
}

static int add_offset(struct kbpf_core_spec *spec, uint64_t idx, int64_t sz, char *why, size_t why_size)
{
	/* libbpf's bit offset is 32-bit; anything beyond is not a real field */
	spec->bit_offset += idx * (uint64_t)sz * 8;
	if (spec->bit_offset > UINT32_MAX) {
		kbpf_core_msg(why, why_size, "access lands beyond 4 GiB bits from the root");
		return -EINVAL;
	}
	return 0;
}

static int parse_field_steps(const struct btf *btf, const struct bpf_core_relo *relo, struct kbpf_core_spec *spec,
			     uint32_t id, const char *str, char *why, size_t why_size)
{
	char tb[128];
	int64_t sz;
	int ret;

	if ((ret = size_of(btf, id, &sz, why, why_size)))
		return ret;
	if ((ret = add_offset(spec, spec->raw[0], sz, why, why_size)))
		return ret;

	for (int i = 1; i < spec->raw_len; i++) {
		const struct btf_type *t = kbpf_btf_skip_mods(btf, id, &id);
		uint32_t idx = spec->raw[i];

		if (!t) {
			kbpf_core_msg(why, why_size, "access string \"%s\" step %d: bad type [%u]", str, i, id);
			return -EINVAL;
		}
		if (btf_is_composite(t)) {
			const struct btf_member *m;

			if (idx >= btf_vlen(t)) {
				kbpf_core_msg(why, why_size, "access string \"%s\" step %d: member %u of %s [%u] which has %u",
					      str, i, idx, kbpf_core_type_str(btf, id, tb, sizeof(tb)), id, btf_vlen(t));
				return -EINVAL;
			}
			spec->bit_offset += btf_member_bit_offset(t, idx);
			m = btf_members(t) + idx;
			if (m->name_off) {
				const char *name = btf__name_by_offset(btf, m->name_off);
				if (!name || !name[0]) {
					kbpf_core_msg(why, why_size, "access string \"%s\" step %d: member %u has a bad name",
						      str, i, idx);
					return -EINVAL;
				}
				spec->acc[spec->len++] = (struct kbpf_core_acc){ .type_id = id, .idx = idx, .name = name };
			}
			id = m->type;
		} else if (btf_is_array(t)) {
			const struct btf_array *a = btf_array(t);

			if (!kbpf_btf_skip_mods(btf, a->type, &id)) {
				kbpf_core_msg(why, why_size, "access string \"%s\" step %d: bad element type", str, i);
				return -EINVAL;
			}
			if (!kbpf_core_is_flex_array(btf, &spec->acc[spec->len - 1], a) && idx >= a->nelems) {
				kbpf_core_msg(why, why_size, "access string \"%s\" step %d: index %u of an array of %u",
					      str, i, idx, a->nelems);
				return -EINVAL;
			}
			spec->acc[spec->len++] = (struct kbpf_core_acc){ .type_id = id, .idx = idx };
			if ((ret = size_of(btf, id, &sz, why, why_size)))
				return ret;
			if ((ret = add_offset(spec, idx, sz, why, why_size)))
				return ret;
		} else {
			kbpf_core_msg(why, why_size, "access string \"%s\" step %d: relo for [%u] captures type [%u] of unexpected kind %s",
				      str, i, relo->type_id, id, kbpf_core_kind_str(t));
			return -EINVAL;
		}
	}
	return 0;
}

int kbpf_core_parse_spec(const struct btf *btf, const struct bpf_core_relo *relo, struct kbpf_core_spec *spec,
			 char *why, size_t why_size)
{
	const char *str = btf__name_by_offset(btf, relo->access_str_off);
	const struct btf_type *t;
	uint32_t id;
	int ret;

	memset(spec, 0, sizeof(*spec));
	spec->btf = btf;
	spec->root_type_id = relo->type_id;
	spec->kind = relo->kind;
	if (!str) {
		kbpf_core_msg(why, why_size, "access_str_off %u is not in the BTF string table", relo->access_str_off);
		return -EINVAL;
	}
	if (!str[0]) {
		kbpf_core_msg(why, why_size, "empty access string");
		return -EINVAL;
	}
	if (kbpf_core_kind_is_type(relo->kind)) {
		if (strcmp(str, "0")) {
			kbpf_core_msg(why, why_size, "access string \"%s\" of a type relocation is not \"0\"", str);
			return -EINVAL;
		}
		return 0;
	}
	if ((ret = parse_numbers(str, spec, why, why_size)))
		return ret;

	t = kbpf_btf_skip_mods(btf, relo->type_id, &id);
	if (!t) {
		kbpf_core_msg(why, why_size, "type_id %u is not a valid type", relo->type_id);
		return -EINVAL;
	}
	spec->acc[0] = (struct kbpf_core_acc){ .type_id = id, .idx = spec->raw[0] };
	spec->len = 1;

	if (kbpf_core_kind_is_enumval(relo->kind)) {
		if (!btf_is_any_enum(t)) {
			kbpf_core_msg(why, why_size, "enum value relocation on %s, not an enum", kbpf_core_kind_str(t));
			return -EINVAL;
		}
		if (spec->raw_len > 1 || spec->raw[0] >= btf_vlen(t)) {
			kbpf_core_msg(why, why_size, "access string \"%s\": enum has %u values", str, btf_vlen(t));
			return -EINVAL;
		}
		spec->acc[0].name = kbpf_core_name(btf, kbpf_core_enum_name_off(t, spec->raw[0]));
		return 0;
	}
	if (!kbpf_core_kind_is_field(relo->kind)) {
		kbpf_core_msg(why, why_size, "unrecognized CO-RE relocation kind %u", relo->kind);
		return -EINVAL;
	}
	return parse_field_steps(btf, relo, spec, id, str, why, why_size);
}

void kbpf_core_format_spec(const struct kbpf_core_spec *spec, char *buf, size_t size)
{
	char tb[128];
	size_t n = 0;

#define APPEND(...)                                                                  \
	do {                                                                         \
		if (n < size) {                                                      \
			int r_ = snprintf(buf + n, size - n, __VA_ARGS__);           \
			n = r_ < 0 ? size : n + (size_t)r_;                          \
		}                                                                    \
	} while (0)

	if (!buf || !size)
		return;
	buf[0] = 0;
	APPEND("<%s> [%u] %s", kbpf_core_relo_kind_str(spec->kind), spec->root_type_id,
	       kbpf_core_type_str(spec->btf, spec->root_type_id, tb, sizeof(tb)));
	if (kbpf_core_kind_is_enumval(spec->kind) && spec->len) {
		const struct btf_type *t = btf__type_by_id(spec->btf, spec->acc[0].type_id);
		uint32_t i = spec->acc[0].idx;
		uint64_t v = 0;

		if (t && btf_is_enum(t))
			v = btf_kflag(t) ? (uint64_t)(int64_t)btf_enum(t)[i].val : (uint32_t)btf_enum(t)[i].val;
		else if (t)
			v = btf_enum64_value(btf_enum64(t) + i);
		if (t && btf_kflag(t))
			APPEND("::%s = %" PRId64, spec->acc[0].name ? spec->acc[0].name : "?", (int64_t)v);
		else
			APPEND("::%s = %" PRIu64, spec->acc[0].name ? spec->acc[0].name : "?", v);
	} else if (kbpf_core_kind_is_field(spec->kind)) {
		for (int i = 0; i < spec->len; i++) {
			if (spec->acc[i].name)
				APPEND(".%s", spec->acc[i].name);
			else if (i > 0 || spec->acc[i].idx > 0)
				APPEND("[%u]", spec->acc[i].idx);
		}
		APPEND(" (");
		for (int i = 0; i < spec->raw_len; i++)
			APPEND("%s%u", i ? ":" : "", spec->raw[i]);
		if (spec->bit_offset % 8)
			APPEND(" @ offset %" PRIu64 ".%" PRIu64 ")", spec->bit_offset / 8, spec->bit_offset % 8);
		else
			APPEND(" @ offset %" PRIu64 ")", spec->bit_offset / 8);
	}
#undef APPEND
}
