/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's common kfunc set (kernel/bpf/helpers.c, common_btf_ids: callable from every
 * program type), the part kbpf has: the two casts. The verifier gives them their meaning
 * and replaces each call by `r0 = r1`, as Linux's fixup_kfunc_call does, so neither
 * function runs: they are here for their BTF (the program's __ksym externs resolve to
 * them) and their registration (which program types may call them).
 *   bpf_cast_to_kern_ctx(ctx): the context as the struct it is at run time
 *     (kbpf_prog_type.kern_ctx_btf_name), a trusted BTF pointer;
 *   bpf_rdonly_cast(obj, btf_id): any value as an untrusted, read-only pointer to the
 *     struct or union btf_id of the host BTF, read with fault-tolerant loads. */
#include <errno.h>
#include <stdio.h>
#include <kbpf/kfunc.h>
#include "linux_internal.h"

#define KFUNC_COMMON __attribute__((noinline, used))

KFUNC_COMMON void *bpf_cast_to_kern_ctx(void *obj)
{
	return obj;
}

KFUNC_COMMON void *bpf_rdonly_cast(const void *obj__ign, uint32_t btf_id__k)
{
	(void)btf_id__k;
	return (void *)(uintptr_t)obj__ign;
}

static const struct kbpf_kfunc common_kfuncs[] = {
	KBPF_KFUNC(bpf_cast_to_kern_ctx, 0),
	KBPF_KFUNC(bpf_rdonly_cast, 0),
};

#define MAX_TYPES 256

struct type_names {
	const char *names[MAX_TYPES + 1]; /* and the NULL that ends them */
	size_t n; /* every type the host has: more than MAX_TYPES is too many */
};

static void add_name(const struct kbpf_prog_type *type, void *arg)
{
	struct type_names *t = arg;
	if (t->n < MAX_TYPES)
		t->names[t->n] = type->name;
	t->n++;
}

int kbpf_linux_host_add_kfuncs(struct kbpf_host *host, char *log_buf, size_t log_size)
{
	struct type_names types = { .n = 0 };

	if (!host) {
		if (log_buf && log_size)
			snprintf(log_buf, log_size, "kfunc set 'common_kfunc_set': no host");
		return -EINVAL;
	}
	kbpf_host_prog_type_foreach(host, add_name, &types);
	if (types.n > MAX_TYPES) {
		if (log_buf && log_size)
			snprintf(log_buf, log_size,
				 "kfunc set 'common_kfunc_set': the host has %zu program types, more than the %d "
				 "it is registered for", types.n, MAX_TYPES);
		return -E2BIG;
	}
	types.names[types.n] = NULL;
	struct kbpf_kfunc_set_opts opts = {
		.sz = sizeof(opts),
		.name = "common_kfunc_set",
		.funcs = common_kfuncs,
		.nr_funcs = sizeof(common_kfuncs) / sizeof(common_kfuncs[0]),
		.prog_types = types.names,
		.log_buf = log_buf,
		.log_size = log_size,
	};
	return kbpf_host_kfunc_set_register(host, &opts, NULL);
}
