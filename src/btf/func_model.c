/* SPDX-License-Identifier: Apache-2.0 */
/* Function models from BTF (Linux's btf_distill_func_proto, kernel/bpf/btf.c), with the
 * limits of a call from BPF: at most five arguments, each an integer, enum or pointer of
 * at most 8 bytes. Linux lets a 16-byte integer and (for trampolines) structs through;
 * a kfunc call passes each argument in one 64-bit register, so kbpf refuses them here,
 * at registration, instead of calling with half an argument. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/btf_walk.h"
#include "btf/func_model.h"

/* Typedefs and modifiers skipped; void (id 0, also behind modifiers), a bad id or a
 * loop give NULL. */
static const struct btf_type *resolve(const struct btf *btf, uint32_t id)
{
	uint32_t rid = 0;
	const struct btf_type *t = kbpf_btf_skip_mods(btf, id, &rid);
	return t && rid ? t : NULL;
}

/* Size and flags of one value type; 0 on success, -EINVAL when a register cannot carry it. */
static int value_model(const struct btf_type *t, uint8_t *size, uint8_t *flags)
{
	*flags = 0;
	if (btf_is_ptr(t)) {
		*size = sizeof(void *);
		*flags = KBPF_FMODEL_PTR;
		return 0;
	}
	if (btf_is_int(t)) {
		/* bit-offset / bit-size integers do not occur as C parameters */
		if (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)
			return -EINVAL;
		if (btf_int_encoding(t) & BTF_INT_SIGNED)
			*flags = KBPF_FMODEL_SIGNED;
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		/* kflag marks a signed enum (libbpf >= 1.0 / pahole >= 1.24); older BTF
		 * says nothing, and C's enums with no negative values are unsigned anyway */
		if (btf_kflag(t))
			*flags = KBPF_FMODEL_SIGNED;
	} else {
		return -EINVAL;
	}
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		return -EINVAL;
	*size = (uint8_t)t->size;
	return 0;
}

int kbpf_btf_func_model(const struct btf *btf, uint32_t id, struct kbpf_func_model *m, char *msg, size_t msg_size)
{
	const struct btf_type *t, *proto, *ret;
	const char *name = "";

	memset(m, 0, sizeof(*m));
	if (!btf || id == 0 || id >= btf__type_cnt(btf))
		goto not_func;
	t = btf__type_by_id(btf, id);
	if (btf_is_func(t)) {
		name = btf__name_by_offset(btf, t->name_off);
		if (!name)
			name = "";
		if (t->type == 0 || t->type >= btf__type_cnt(btf))
			goto bad_proto;
		proto = btf__type_by_id(btf, t->type);
	} else {
		proto = t;
	}
	if (!btf_is_func_proto(proto))
		goto bad_proto;

	const struct btf_param *p = btf_params(proto);
	int nargs = btf_vlen(proto);
	if (nargs && p[nargs - 1].type == 0) {
		snprintf(msg, msg_size, "The function %s with variable args is unsupported.", name);
		return -EINVAL;
	}
	if (nargs > KBPF_KFUNC_MAX_ARGS) {
		snprintf(msg, msg_size, "Function %s has %d > %d args", name, nargs, KBPF_KFUNC_MAX_ARGS);
		return -EINVAL;
	}
	if (proto->type) {
		ret = resolve(btf, proto->type);
		if (!ret || value_model(ret, &m->ret_size, &m->ret_flags)) {
			snprintf(msg, msg_size, "The function %s return type %s is unsupported.%s", name,
				 kbpf_btf_kind_str(ret), ret && btf_is_int(ret) && ret->size > 8 ? " (wider than 8 bytes)" : "");
			return -EINVAL;
		}
	}
	for (int i = 0; i < nargs; i++) {
		if (p[i].type == 0) {
			snprintf(msg, msg_size, "The function %s has malformed void argument.", name);
			return -EINVAL;
		}
		const struct btf_type *a = resolve(btf, p[i].type);
		if (!a) {
			snprintf(msg, msg_size, "The function %s has malformed void argument.", name);
			return -EINVAL;
		}
		if (value_model(a, &m->arg_size[i], &m->arg_flags[i])) {
			const char *why = "";
			if (btf_is_composite(a))
				why = " (struct/union by value)";
			else if (btf_is_float(a))
				why = " (floating point)";
			else if ((btf_is_int(a) || btf_is_any_enum(a)) && a->size > 8)
				why = " (wider than 8 bytes)";
			snprintf(msg, msg_size, "The function %s arg%d type %s is unsupported.%s", name, i, kbpf_btf_kind_str(a), why);
			return -EINVAL;
		}
	}
	m->nr_args = (uint8_t)nargs;
	return 0;

not_func:
	snprintf(msg, msg_size, "kernel btf_id %u is not a function", id);
	return -EINVAL;
bad_proto:
	snprintf(msg, msg_size, "kernel function btf_id %u does not have a valid func_proto", id);
	return -EINVAL;
}
