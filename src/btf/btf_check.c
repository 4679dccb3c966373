/* SPDX-License-Identifier: Apache-2.0 */
/* Making sure libbpf's btf_dump terminates on a BTF before it prints from it.
 *
 * btf_dump walks references recursively: to order the types (btf_dump__dump_type) and to
 * spell a declaration (btf_dump__emit_type_decl, which also prints anonymous structs and
 * function prototypes inline). It stops at a named struct or union reached through a
 * pointer — it then needs only a forward declaration — and, for structs reached by
 * value, detects the cycle itself. Every other cycle makes it recurse without end, and
 * libbpf's parser lets such cycles through. So: walk the same references, with the same
 * "through a pointer" state, and refuse any cycle and any chain deep enough to exhaust
 * the stack. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include "btf/btf_check.h"
#include "btf/core_internal.h"

#define END UINT64_MAX
#define BAD (UINT64_MAX - 1)

/* A state is a type id and whether it is reached through a pointer: id * 2 + ptr. */
static uint64_t state(uint32_t id, unsigned through_ptr)
{
	return (uint64_t)id * 2 + through_ptr;
}

/* The k-th reference btf_dump may follow from state s, END after the last, BAD for a
 * reference to a type that does not exist. */
static uint64_t next_state(const struct btf *btf, uint64_t s, uint32_t k)
{
	uint32_t id = (uint32_t)(s / 2), cnt = btf__type_cnt(btf), to;
	unsigned ptr = s % 2;
	const struct btf_type *t;

	if (id == 0)
		return END;
	t = btf__type_by_id(btf, id);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		if (k)
			return END;
		to = t->type;
		ptr = 1;
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_DECL_TAG:
		if (k)
			return END;
		to = t->type;
		break;
	case BTF_KIND_VAR:
		if (k)
			return END;
		to = t->type;
		ptr = 0;
		break;
	case BTF_KIND_ARRAY:
		if (k > 1)
			return END;
		to = k ? btf_array(t)->index_type : btf_array(t)->type;
		break;
	case BTF_KIND_FUNC_PROTO:
		if (k > btf_vlen(t))
			return END;
		to = k ? btf_params(t)[k - 1].type : t->type;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		/* behind a pointer a named struct is only "struct name": btf_dump stops */
		if ((ptr && t->name_off) || k >= btf_vlen(t))
			return END;
		to = btf_members(t)[k].type;
		ptr = 0;
		break;
	case BTF_KIND_DATASEC:
		if (k >= btf_vlen(t))
			return END;
		to = btf_var_secinfos(t)[k].type;
		ptr = 0;
		break;
	default: /* INT, FLOAT, ENUM, ENUM64, FWD: leaves */
		return END;
	}
	return to < cnt ? state(to, ptr) : BAD;
}

static const char *name_of(const struct btf *btf, uint32_t id)
{
	const char *n = btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off);
	return n && *n ? n : "(anon)";
}

static int bad_name(const struct btf *btf, uint32_t off)
{
	return btf__name_by_offset(btf, off) == NULL;
}

/* Holes btf_dump fills with "long: 64;" lines, one per 64 bits: more than this many bits
 * of them in one struct means a corrupt offset or size, not a real layout. */
#define MAX_HOLE_BITS (1u << 23)

/* Members must lie inside the struct (as Linux requires), and the holes between them
 * stay small: a member at bit 1600062208 of a 216-byte struct would have btf_dump print
 * 25 million padding lines. Returns NULL or what is wrong. */
static const char *check_layout(const struct btf *btf, const struct btf_type *t)
{
	uint64_t size_bits = (uint64_t)t->size * 8, end = 0, holes = 0;

	for (uint32_t i = 0; i < btf_vlen(t); i++) {
		uint64_t off = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
		if (!bits) {
			/* bounded in libbpf (a resolve depth limit); unsized members are refused
			 * later, by the printability check */
			long long sz = btf__resolve_size(btf, btf_members(t)[i].type);
			bits = sz > 0 ? (uint64_t)sz * 8 : 0;
		}
		if (off + bits > size_bits)
			return "a member that lies outside it";
		if (btf_is_struct(t) && off > end)
			holes += off - end;
		if (off + bits > end)
			end = off + bits;
	}
	if (btf_is_struct(t))
		holes += size_bits - end;
	return holes > MAX_HOLE_BITS ? "holes between its members too large to be real" : NULL;
}

int kbpf_btf_check_aligned(const struct btf *btf)
{
	if (!btf)
		return -EINVAL;
	/* the records follow one another in 4-byte multiples: the first one decides */
	return btf__type_cnt(btf) > 1 && ((uintptr_t)btf__type_by_id(btf, 1) % 4) ? -EINVAL : 0;
}

int kbpf_btf_validate(const struct btf *btf, char *msg, size_t msg_size)
{
	uint32_t cnt;

	kbpf_core_msg(msg, msg_size, "%s", "");
	if (!btf)
		return -EINVAL;
	if (kbpf_btf_check_aligned(btf)) {
		kbpf_core_msg(msg, msg_size, "the type records are not 4-byte aligned (a header length that is not a "
				   "multiple of 4)");
		return -EINVAL;
	}
	cnt = btf__type_cnt(btf);
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		uint32_t vlen = btf_vlen(t), i;
		const char *what = NULL;

		if (bad_name(btf, t->name_off)) {
			what = "a name outside the string section";
			goto bad;
		}
		switch (btf_kind(t)) {
		case BTF_KIND_INT: {
			uint32_t bits = btf_int_bits(t), off = btf_int_offset(t);
			if (!t->size || t->size > 16 || bits > 128 || off + bits > t->size * 8)
				what = "an integer whose bits do not fit its size";
			break;
		}
		case BTF_KIND_PTR:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC:
		case BTF_KIND_VAR:
		case BTF_KIND_TYPE_TAG:
			if (t->type >= cnt)
				what = "a reference to a type that does not exist";
			break;
		case BTF_KIND_DECL_TAG: {
			int idx = btf_decl_tag(t)->component_idx;
			if (t->type >= cnt) {
				what = "a reference to a type that does not exist";
				break;
			}
			const struct btf_type *tt = btf__type_by_id(btf, t->type);
			if (btf_is_func(tt) && tt->type < cnt)
				tt = btf__type_by_id(btf, tt->type);
			if (idx < -1 || (idx >= 0 && (uint32_t)idx >= btf_vlen(tt)))
				what = "a tag on a member or parameter that does not exist";
			break;
		}
		case BTF_KIND_ARRAY:
			if (btf_array(t)->type >= cnt || btf_array(t)->index_type >= cnt)
				what = "a reference to a type that does not exist";
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			for (i = 0; i < vlen && !what; i++)
				if (btf_members(t)[i].type >= cnt)
					what = "a member of a type that does not exist";
				else if (bad_name(btf, btf_members(t)[i].name_off))
					what = "a member name outside the string section";
			break;
		case BTF_KIND_FUNC_PROTO:
			if (t->type >= cnt)
				what = "a return type that does not exist";
			for (i = 0; i < vlen && !what; i++)
				if (btf_params(t)[i].type >= cnt)
					what = "a parameter of a type that does not exist";
				else if (bad_name(btf, btf_params(t)[i].name_off))
					what = "a parameter name outside the string section";
			break;
		case BTF_KIND_ENUM:
			for (i = 0; i < vlen && !what; i++)
				if (bad_name(btf, btf_enum(t)[i].name_off))
					what = "an enumerator name outside the string section";
			break;
		case BTF_KIND_ENUM64:
			for (i = 0; i < vlen && !what; i++)
				if (bad_name(btf, btf_enum64(t)[i].name_off))
					what = "an enumerator name outside the string section";
			break;
		case BTF_KIND_DATASEC:
			for (i = 0; i < vlen && !what; i++)
				if (btf_var_secinfos(t)[i].type >= cnt)
					what = "a variable of a type that does not exist";
			break;
		default: /* FWD, FLOAT: nothing refers elsewhere */
			break;
		}
		if (!what)
			continue;
bad:
		kbpf_core_msg(msg, msg_size, "type [%u] has %s", id, what);
		return -EINVAL;
	}
	/* now that every id is known good, sizes can be resolved */
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *what = btf_is_composite(t) ? check_layout(btf, t) : NULL;
		if (what) {
			kbpf_core_msg(msg, msg_size, "type [%u] has %s", id, what);
			return -EINVAL;
		}
	}
	return 0;
}

enum { WHITE, GREY, BLACK };

struct frame {
	uint64_t s;
	uint32_t k;
};

/* Depth-first from root; color/depth are per state, depth being the longest chain
 * below a finished state. The explicit stack never grows past the depth limit. */
static int walk(const struct btf *btf, uint64_t root, uint8_t *color, uint16_t *depth, struct frame *stack,
		char *msg, size_t msg_size)
{
	int top = 0;

	stack[0] = (struct frame){ root, 0 };
	color[root] = GREY;
	depth[root] = 0;
	while (top >= 0) {
		struct frame *f = &stack[top];
		uint64_t n = next_state(btf, f->s, f->k++);

		if (n == END) {
			color[f->s] = BLACK;
			if (top > 0 && depth[stack[top - 1].s] < depth[f->s] + 1)
				depth[stack[top - 1].s] = depth[f->s] + 1;
			top--;
			continue;
		}
		if (n == BAD) {
			kbpf_core_msg(msg, msg_size, "type [%u] refers to a type id that does not exist", (uint32_t)(f->s / 2));
			return -EINVAL;
		}
		if (color[n] == GREY) {
			kbpf_core_msg(msg, msg_size, "type [%u] '%s' refers back to itself (a reference cycle)",
			    (uint32_t)(n / 2), name_of(btf, (uint32_t)(n / 2)));
			return -ELOOP;
		}
		if (color[n] == BLACK) {
			if (top + 1 + depth[n] > KBPF_BTF_MAX_REF_DEPTH)
				goto too_deep;
			if (depth[f->s] < depth[n] + 1)
				depth[f->s] = depth[n] + 1;
			continue;
		}
		if (top + 1 >= KBPF_BTF_MAX_REF_DEPTH)
			goto too_deep;
		stack[++top] = (struct frame){ n, 0 };
		color[n] = GREY;
		depth[n] = 0;
	}
	return 0;
too_deep:
	kbpf_core_msg(msg, msg_size, "type [%u] '%s' starts a chain of more than %d type references", (uint32_t)(root / 2),
	    name_of(btf, (uint32_t)(root / 2)), KBPF_BTF_MAX_REF_DEPTH);
	return -E2BIG;
}

/* btf_dump lays out a struct body with each member's alignment, from libbpf's
 * btf__align_of: as a divisor (a member whose type has none — void, as pahole 1.24
 * encodes a DWARF 5 _Atomic type — divides by zero), and recomputed for every member
 * without memory (a struct of 1000 structs of 1000 structs… is quadratic, exponential
 * with depth). So: whether each type has an alignment, and how many types libbpf visits
 * to find it, memoized here; both only along references the walk proved acyclic and
 * shallow, so the recursion is bounded by KBPF_BTF_MAX_REF_DEPTH. */
#define MAX_ALIGN_VISITS (1u << 20)
/* …and over all the struct bodies of one dump (Linux's vmlinux BTF: about 400 000). */
#define MAX_ALIGN_VISITS_TOTAL (1u << 24)

struct align_memo {
	const struct btf *btf;
	uint32_t *visits; /* 0: not computed; else visits (saturated at MAX_ALIGN_VISITS) */
	uint8_t *aligned;
};

static uint32_t align_visits(struct align_memo *am, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(am->btf, id);
	uint64_t n = 1;
	int ok = 1;

	if (am->visits[id])
		return am->visits[id];
	switch (id ? btf_kind(t) : BTF_KIND_UNKN) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		ok = t->size > 0;
		break;
	case BTF_KIND_PTR:
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		n += align_visits(am, t->type);
		ok = am->aligned[t->type];
		break;
	case BTF_KIND_ARRAY:
		n += align_visits(am, btf_array(t)->type);
		ok = am->aligned[btf_array(t)->type];
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (uint32_t i = 0; i < btf_vlen(t) && n < MAX_ALIGN_VISITS; i++) {
			uint32_t m = btf_members(t)[i].type;
			n += align_visits(am, m);
			ok &= am->aligned[m];
		}
		break;
	default: /* void, FWD, FUNC_PROTO, …: no alignment */
		ok = 0;
		break;
	}
	am->aligned[id] = (uint8_t)ok;
	am->visits[id] = n < MAX_ALIGN_VISITS ? (uint32_t)n : MAX_ALIGN_VISITS;
	return am->visits[id];
}

static int check_members(struct align_memo *am, uint32_t id, char *msg, size_t msg_size)
{
	const struct btf *btf = am->btf;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);

	if (align_visits(am, id) >= MAX_ALIGN_VISITS) {
		kbpf_core_msg(msg, msg_size, "%s '%s' [%u] nests members by value too widely and deeply to be laid out",
		    btf_is_union(t) ? "union" : "struct", name_of(btf, id), id);
		return -E2BIG;
	}
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		if (am->aligned[m->type])
			continue;
		kbpf_core_msg(msg, msg_size, "%s '%s' [%u] member '%s' has a type without size or alignment",
		    btf_is_union(t) ? "union" : "struct", name_of(btf, id), id,
		    m->name_off ? btf__name_by_offset(btf, m->name_off) : "(anon)");
		return -EINVAL;
	}
	return 0;
}

int kbpf_btf_check_printable(const struct btf *btf, uint32_t root, char *msg, size_t msg_size)
{
	uint32_t cnt, first, last;
	uint8_t *color;
	uint16_t *depth;
	struct frame *stack;
	int ret = 0;

	kbpf_core_msg(msg, msg_size, "%s", "");
	if (!btf)
		return -EINVAL;
	cnt = btf__type_cnt(btf);
	if (root >= cnt) {
		kbpf_core_msg(msg, msg_size, "type [%u] does not exist", root);
		return -EINVAL;
	}
	ret = kbpf_btf_validate(btf, msg, msg_size);
	if (ret)
		return ret;
	first = root ? root : 1;
	last = root ? root : cnt - 1;
	color = calloc((size_t)cnt * 2, sizeof(*color));
	depth = calloc((size_t)cnt * 2, sizeof(*depth));
	stack = calloc(KBPF_BTF_MAX_REF_DEPTH + 1, sizeof(*stack));
	if (!color || !depth || !stack)
		ret = -ENOMEM;
	for (uint32_t id = first; !ret && id <= last && id < cnt; id++)
		if (color[state(id, 0)] == WHITE)
			ret = walk(btf, state(id, 0), color, depth, stack, msg, msg_size);
	/* the bodies btf_dump prints: composites reached by value, or anonymous ones (a
	 * named one behind a pointer is just "struct name", and the walk did not enter it) */
	struct align_memo am = { btf, NULL, NULL };
	uint64_t total = 0;
	if (!ret) {
		am.visits = calloc(cnt, sizeof(*am.visits));
		am.aligned = calloc(cnt, sizeof(*am.aligned));
		if (!am.visits || !am.aligned)
			ret = -ENOMEM;
	}
	for (uint32_t id = 1; !ret && id < cnt; id++)
		if (btf_is_composite(btf__type_by_id(btf, id)) &&
		    (color[state(id, 0)] || (color[state(id, 1)] && !btf__type_by_id(btf, id)->name_off))) {
			ret = check_members(&am, id, msg, msg_size);
			total += am.visits[id];
			if (!ret && total > MAX_ALIGN_VISITS_TOTAL) {
				kbpf_core_msg(msg, msg_size, "its structs nest members by value too widely to be laid out");
				ret = -E2BIG;
			}
		}
	free(am.visits);
	free(am.aligned);
	free(color);
	free(depth);
	free(stack);
	return ret;
}
