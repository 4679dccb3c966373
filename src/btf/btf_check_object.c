/* SPDX-License-Identifier: Apache-2.0 */
/* Checks on an object's BTF before anything walks it (kbpf_btf_check_object,
 * btf/btf_check.h). libbpf's btf__new (1.1) checks the layout of the type section but
 * not what types refer to: an out-of-range type id makes btf__type_by_id return NULL,
 * and a struct that contains itself by value sends btf__align_of into endless
 * recursion. Both are what a corrupted or hostile object holds; here they become
 * "type [N] …" errors instead of crashes. (Newer libbpf has a similar sanity pass; this
 * is the part kbpf relies on.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include "btf/btf_check.h"
#include "btf/core_internal.h"

/* Ids t refers to by value (a cycle through them is an infinitely large type) or
 * through a pointer/function prototype (any id in range is fine). Calls fn for each;
 * stops and returns its non-zero result. value_ref below must list the by-value ones
 * in the same order. */
/* Kinds whose one reference, t->type, is by value: modifiers, typedefs, variables. */
static bool refs_type_by_value(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR:
		return true;
	default:
		return false;
	}
}

typedef int (*ref_fn)(void *ctx, uint32_t from, uint32_t to, bool by_value);

static int for_each_ref(const struct btf_type *t, uint32_t id, ref_fn fn, void *ctx)
{
	int ret = 0;

	if (refs_type_by_value(t))
		return fn(ctx, id, t->type, true);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_FUNC:
	case BTF_KIND_DECL_TAG:
		return fn(ctx, id, t->type, false);
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		ret = fn(ctx, id, a->type, true);
		return ret ? ret : fn(ctx, id, a->index_type, false);
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		for (uint16_t i = 0; i < btf_vlen(t) && !ret; i++, m++)
			ret = fn(ctx, id, m->type, true);
		return ret;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		ret = fn(ctx, id, t->type, false);
		for (uint16_t i = 0; i < btf_vlen(t) && !ret; i++, p++)
			ret = fn(ctx, id, p->type, false);
		return ret;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t) && !ret; i++, v++)
			ret = fn(ctx, id, v->type, false);
		return ret;
	}
	default:
		return 0;
	}
}

struct check {
	char *msg;
	size_t msg_size;
	const struct btf *btf;
	uint32_t n;
	/* cycle search */
	uint8_t *state;  /* 0 new, 1 on the path, 2 done */
	uint32_t *stack; /* ids on the path */
	uint32_t *next;  /* per path entry: how many of its by-value refs were visited */
	size_t depth;
};

static int check_range(void *ctx, uint32_t from, uint32_t to, bool by_value)
{
	struct check *c = ctx;
	(void)by_value;
	if (to >= c->n) {
		kbpf_core_msg(c->msg, c->msg_size, "type [%u] refers to type [%u], beyond the last type [%u]", from, to, c->n - 1);
		return -EINVAL;
	}
	return 0;
}

/* The k-th by-value reference of t (the order for_each_ref visits them in), in *to;
 * false after the last. Constant time, so that the search below is linear in the
 * number of references: a struct of 65535 members is walked once, not 65535 times. */
static bool value_ref(const struct btf_type *t, uint32_t k, uint32_t *to)
{
	if (refs_type_by_value(t)) {
		*to = t->type;
		return k == 0;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		*to = btf_array(t)->type;
		return k == 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (k >= btf_vlen(t))
			return false;
		*to = btf_members(t)[k].type;
		return true;
	default:
		return false;
	}
}

static int find_cycles(struct check *c)
{
	int ret = 0;

	c->state = calloc(c->n, 1);
	c->stack = calloc(c->n, sizeof(*c->stack));
	c->next = calloc(c->n, sizeof(*c->next));
	if (!c->state || !c->stack || !c->next) {
		ret = -ENOMEM;
		goto out;
	}
	/* iterative depth-first search: chains of types may be as long as the object */
	for (uint32_t root = 1; root < c->n && !ret; root++) {
		if (c->state[root])
			continue;
		c->depth = 0;
		c->stack[c->depth] = root;
		c->next[c->depth++] = 0;
		c->state[root] = 1;
		while (c->depth) {
			uint32_t top = c->stack[c->depth - 1];
			uint32_t to = 0;
			if (!value_ref(btf__type_by_id(c->btf, top), c->next[c->depth - 1]++, &to)) {
				c->state[top] = 2;
				c->depth--;
				continue;
			}
			if (to == 0 || c->state[to] == 2)
				continue;
			if (c->state[to] == 1) {
				kbpf_core_msg(c->msg, c->msg_size, "type [%u] contains itself (through type [%u])", to, top);
				ret = -EINVAL;
				break;
			}
			c->state[to] = 1;
			c->stack[c->depth] = to;
			c->next[c->depth++] = 0;
		}
	}
out:
	free(c->state);
	free(c->stack);
	free(c->next);
	return ret;
}

int kbpf_btf_check_object(const struct btf *btf, char *msg, size_t msg_size)
{
	struct check c = { .msg = msg, .msg_size = msg_size, .btf = btf, .n = btf__type_cnt(btf) };

	for (uint32_t id = 1; id < c.n; id++) {
		const struct btf_type *t = btf__type_by_id(c.btf, id);
		int ret;

		if (!t || btf_kind(t) > BTF_KIND_ENUM64 || btf_kind(t) == BTF_KIND_UNKN) {
			kbpf_core_msg(c.msg, c.msg_size, "type [%u] has unknown kind %u", id, t ? btf_kind(t) : 0);
			return -EINVAL;
		}
		ret = for_each_ref(t, id, check_range, &c);
		if (ret)
			return ret;
		if (btf_is_func(t)) {
			const struct btf_type *proto = btf__type_by_id(c.btf, t->type);
			if (!proto || !btf_is_func_proto(proto)) {
				kbpf_core_msg(c.msg, c.msg_size, "FUNC [%u]'s type [%u] is not a FUNC_PROTO", id, t->type);
				return -EINVAL;
			}
		}
	}
	return find_cycles(&c);
}
