/* SPDX-License-Identifier: Apache-2.0 */
/* struct_ops instances (<kbpf/struct_ops.h>): an object's `.struct_ops` variable made
 * into the host's own struct, function pointers included.
 *
 * The object's struct and the host's are two BTF descriptions of "the same" struct that
 * need not agree on layout (the object may be built against an older or trimmed header,
 * as bpf_cubic.c is against vmlinux.h); members are matched by name, as libbpf matches a
 * struct_ops map against the kernel's struct. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/struct_ops.h>
#include "btf/btf_walk.h"
#include "opts.h"


struct kbpf_struct_ops_inst {
	void *data;
	size_t size;
	bool owned;
	size_t nr_tramps;
	struct kbpf_trampoline *tramps[];
};

static const struct kbpf_struct_ops_member *filled_member(const struct kbpf_struct_ops *so, uint32_t offset)
{
	for (size_t k = 0; k < so->nr_members; k++)
		if (so->members[k].offset == offset)
			return &so->members[k];
	return NULL;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

/* One member of the object's struct into the host's. */
static int fill_member(struct kbpf_struct_ops_inst *inst, const struct kbpf_struct_ops *so, const struct btf *obtf,
		       const struct btf_type *ost, unsigned oi, const struct btf *hbtf, const struct btf_type *hst,
		       const struct kbpf_struct_ops_type *type, const struct kbpf_struct_ops_opts *opts, char *log,
		       size_t log_size)
{
	const struct btf_member *om = btf_members(ost) + oi, *hm;
	const char *name = btf__name_by_offset(obtf, om->name_off);
	uint32_t ooff = btf_member_bit_offset(ost, oi) / 8, hoff;
	const struct kbpf_struct_ops_member *filled = NULL;
	long osize, hsize;
	unsigned hi;
	int ret;

	if (!name || !*name) {
		snprintf(log, log_size, "struct_ops '%s': anonymous member #%u is not supported", so->name, oi);
		return -EINVAL;
	}
	if (kbpf_btf_func_ptr_proto(obtf, om->type))
		filled = filled_member(so, ooff);
	osize = btf__resolve_size(obtf, om->type);
	hm = kbpf_btf_member_by_name(hbtf, hst, name, &hi);
	if (!hm) {
		/* nothing to carry over: an object built against a newer header may name it */
		if ((!filled || !filled->prog) && osize > 0 && ooff + (size_t)osize <= so->data_size &&
		    all_zero((const char *)so->data + ooff, (size_t)osize))
			return 0;
		snprintf(log, log_size, "struct_ops '%s': member '%s' is not in the host's struct %s", so->name, name,
			 so->type_name);
		return -EINVAL;
	}
	if (btf_member_bitfield_size(ost, oi) || btf_member_bitfield_size(hst, hi) ||
	    btf_member_bit_offset(ost, oi) % 8 || btf_member_bit_offset(hst, hi) % 8) {
		snprintf(log, log_size, "struct_ops '%s': member '%s': bitfields are not supported", so->name, name);
		return -EINVAL;
	}
	hoff = btf_member_bit_offset(hst, hi) / 8;
	hsize = btf__resolve_size(hbtf, hm->type);
	if (filled) {
		uint32_t proto = kbpf_btf_func_ptr_proto(hbtf, hm->type);
		struct kbpf_trampoline_opts to = { .sz = sizeof(to), .flags = OPTS_GET(opts, tramp_flags, 0),
						   .log_buf = log, .log_size = log_size };
		struct kbpf_prog *prog;
		kbpf_trampoline_fn_t fn;

		if (!proto) {
			snprintf(log, log_size, "struct_ops '%s': member '%s' is a function pointer in the object but not in the host's struct",
				 so->name, name);
			return -EINVAL;
		}
		if (!filled->prog)
			return 0; /* left NULL by the object: stays NULL */
		if (type && type->check_member) {
			ret = type->check_member(type->cookie, name, filled->prog, log, log_size);
			if (ret)
				return ret < 0 ? ret : -EINVAL;
		}
		prog = kbpf_program_prog(filled->prog);
		if (!prog) {
			snprintf(log, log_size, "struct_ops '%s': member '%s': program '%s' is not loaded", so->name, name,
				 kbpf_program_name(filled->prog));
			return -EINVAL;
		}
		ret = kbpf_trampoline_create(prog, hbtf, proto, &to, &inst->tramps[inst->nr_tramps]);
		if (ret) {
			char why[200];
			snprintf(why, sizeof(why), "%s", log_size ? log : "");
			snprintf(log, log_size, "struct_ops '%s': member '%s': %s", so->name, name, why);
			return ret;
		}
		fn = kbpf_trampoline_fn(inst->tramps[inst->nr_tramps++]);
		memcpy((char *)inst->data + hoff, &fn, sizeof(fn));
		return 0;
	}
	if (kbpf_btf_func_ptr_proto(hbtf, hm->type)) {
		snprintf(log, log_size, "struct_ops '%s': member '%s' is a function pointer in the host's struct but data in the object",
			 so->name, name);
		return -EINVAL;
	}
	if (osize < 0 || hsize < 0 || osize != hsize || ooff + (size_t)osize > so->data_size ||
	    hoff + (size_t)hsize > inst->size) {
		snprintf(log, log_size, "struct_ops '%s': member '%s' is %ld bytes in the object, %ld in the host", so->name,
			 name, osize, hsize);
		return -EINVAL;
	}
	memcpy((char *)inst->data + hoff, (const char *)so->data + ooff, (size_t)osize);
	return 0;
}

int kbpf_struct_ops_instantiate(struct kbpf_object *obj, const char *name, struct kbpf_host *host,
				const struct kbpf_struct_ops_opts *opts, struct kbpf_struct_ops_inst **out)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t log_size = log ? OPTS_GET(opts, log_size, 0) : 0;
	const struct kbpf_struct_ops_type *type = OPTS_GET(opts, type, NULL);
	void *data = OPTS_GET(opts, data, NULL);
	const struct kbpf_struct_ops *so;
	const struct btf *obtf, *hbtf;
	const struct btf_type *ost, *hst;
	struct kbpf_struct_ops_inst *inst;
	int hid, ret = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!obj || !name || !host || !OPTS_VALID(opts, OPTS_MIN_SZ))
		return -EINVAL;
	if (log_size)
		log[0] = 0;
	so = kbpf_object_find_struct_ops(obj, name);
	if (!so) {
		snprintf(log, log_size, "no struct_ops variable '%s' in the object", name);
		return -ENOENT;
	}
	if (!type) /* the host's own rules for this struct, if it registered some */
		type = kbpf_host_struct_ops_find(host, so->type_name);
	if (type && type->name && strcmp(type->name, so->type_name)) {
		snprintf(log, log_size, "struct_ops '%s' is a struct %s, not %s", name, so->type_name, type->name);
		return -EINVAL;
	}
	obtf = kbpf_object_btf(obj);
	hbtf = kbpf_host_btf(host);
	hid = hbtf ? btf__find_by_name_kind(hbtf, so->type_name, BTF_KIND_STRUCT) : -ENOENT;
	if (hid <= 0) {
		snprintf(log, log_size, "struct_ops '%s': the host has no struct %s in its BTF", name, so->type_name);
		return -ENOENT;
	}
	hst = btf__type_by_id(hbtf, (uint32_t)hid);
	ost = obtf ? btf__type_by_id(obtf, so->type_id) : NULL;
	if (!ost || !btf_is_struct(ost))
		return -EINVAL;
	if (data && OPTS_GET(opts, data_size, 0) < hst->size) {
		snprintf(log, log_size, "struct_ops '%s': the caller's buffer (%zu bytes) is smaller than struct %s (%u)",
			 name, OPTS_GET(opts, data_size, (size_t)0), so->type_name, hst->size);
		return -EINVAL;
	}
	inst = calloc(1, sizeof(*inst) + so->nr_members * sizeof(inst->tramps[0]));
	if (!inst)
		return -ENOMEM;
	inst->size = hst->size;
	inst->owned = !data;
	inst->data = data ? data : calloc(1, hst->size ? hst->size : 1);
	if (!inst->data) {
		free(inst);
		return -ENOMEM;
	}
	memset(inst->data, 0, hst->size);
	for (unsigned i = 0; i < btf_vlen(ost) && !ret; i++)
		ret = fill_member(inst, so, obtf, ost, i, hbtf, hst, type, opts, log, log_size);
	if (!ret && type && type->validate) {
		ret = type->validate(type->cookie, inst->data, inst->size, log, log_size);
		if (ret > 0)
			ret = -EINVAL;
	}
	if (ret) {
		kbpf_struct_ops_free(inst);
		return ret;
	}
	*out = inst;
	return 0;
}

void *kbpf_struct_ops_data(const struct kbpf_struct_ops_inst *inst)
{
	return inst ? inst->data : NULL;
}

size_t kbpf_struct_ops_size(const struct kbpf_struct_ops_inst *inst)
{
	return inst ? inst->size : 0;
}

void kbpf_struct_ops_free(struct kbpf_struct_ops_inst *inst)
{
	if (!inst)
		return;
	for (size_t i = 0; i < inst->nr_tramps; i++)
		kbpf_trampoline_free(inst->tramps[i]);
	if (inst->owned)
		free(inst->data);
	else
		memset(inst->data, 0, inst->size); /* no dangling trampolines in the caller's struct */
	free(inst);
}
