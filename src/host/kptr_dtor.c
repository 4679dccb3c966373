/* SPDX-License-Identifier: Apache-2.0 */
/* Destructors of referenced kptr types (Linux 6.1's register_btf_id_dtor_kfuncs and
 * btf_find_dtor_kfunc): which host function a map calls for an object it still holds
 * when the element goes away (src/maps/map_btf.c). The table is also the list of types a
 * referenced (`__kptr`, 6.12's tag "kptr") field may name, as in Linux. Few entries: a linear table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "host/host_internal.h"

struct kbpf_kptr_dtor_entry {
	uint32_t type_id; /* the struct, in the host's BTF */
	kbpf_kfunc_addr addr;
};

static void dtor_log(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	if (buf && size)
		snprintf(buf, size, fmt, a ? a : "", b ? b : "");
}

/* Linux's btf_check_dtor_kfuncs: `void f(<pointer>)`. */
static bool dtor_proto_ok(const struct btf *btf, int func_id)
{
	const struct btf_type *f = btf__type_by_id(btf, (uint32_t)func_id);
	const struct btf_type *proto = f ? btf__type_by_id(btf, f->type) : NULL;

	if (!proto || !btf_is_func_proto(proto) || proto->type || btf_vlen(proto) != 1)
		return false;
	const struct btf_type *arg = btf__type_by_id(btf, btf_params(proto)[0].type);
	return arg && btf_is_ptr(arg);
}

/* Index of type_id in host's table, or -1. Caller holds prog_types_lock. */
static ssize_t dtor_find(const struct kbpf_host *host, uint32_t type_id)
{
	for (size_t i = 0; i < host->nr_dtors; i++)
		if (host->dtors[i].type_id == type_id)
			return (ssize_t)i;
	return -1;
}

int kbpf_host_kptr_dtor_register(struct kbpf_host *host, const struct kbpf_kptr_dtor *dtors, size_t nr,
				 char *log_buf, size_t log_size)
{
	struct kbpf_kptr_dtor_entry *add, *grown;
	const struct btf *btf;
	int ret = 0;

	if (log_buf && log_size)
		log_buf[0] = 0;
	if (!host || (nr && !dtors))
		return -EINVAL;
	btf = kbpf_host_btf(host);
	if (!btf) {
		dtor_log(log_buf, log_size, "kptr destructor for '%s'%s: the host has no BTF (load it first)",
			 nr ? dtors[0].type : "", "");
		return -ENOENT;
	}
	if (!nr)
		return 0;
	add = calloc(nr, sizeof(*add));
	if (!add)
		return -ENOMEM;
	for (size_t i = 0; i < nr && !ret; i++) {
		const struct kbpf_kptr_dtor *d = &dtors[i];
		int tid, fid;

		if (!d->type || !*d->type || !d->func || !*d->func || !d->addr) {
			dtor_log(log_buf, log_size, "kptr destructor '%s' for '%s': needs a type, a name and an address",
				 d->func, d->type);
			ret = -EINVAL;
			break;
		}
		tid = btf__find_by_name_kind(btf, d->type, BTF_KIND_STRUCT);
		if (tid <= 0) {
			dtor_log(log_buf, log_size, "kptr destructor for '%s'%s: no struct of that name in the host's BTF",
				 d->type, "");
			ret = -EINVAL;
			break;
		}
		fid = btf__find_by_name_kind(btf, d->func, BTF_KIND_FUNC);
		if (fid <= 0 || !dtor_proto_ok(btf, fid)) {
			dtor_log(log_buf, log_size,
				 fid <= 0 ? "kptr destructor '%s' for '%s': no FUNC of that name in the host's BTF"
					  : "kptr destructor '%s' for '%s': the prototype must be void f(T *)",
				 d->func, d->type);
			ret = -EINVAL;
			break;
		}
		for (size_t k = 0; k < i; k++)
			if (add[k].type_id == (uint32_t)tid) {
				dtor_log(log_buf, log_size, "kptr destructor for '%s'%s: given twice", d->type, "");
				ret = -EEXIST;
			}
		add[i].type_id = (uint32_t)tid;
		add[i].addr = d->addr;
	}
	if (ret)
		goto out;
	pthread_rwlock_wrlock(&host->prog_types_lock);
	for (size_t i = 0; i < nr && !ret; i++)
		if (dtor_find(host, add[i].type_id) >= 0) {
			dtor_log(log_buf, log_size, "kptr destructor for '%s'%s: registered already", dtors[i].type, "");
			ret = -EEXIST;
		}
	if (!ret) {
		grown = realloc(host->dtors, (host->nr_dtors + nr) * sizeof(*grown));
		if (!grown) {
			ret = -ENOMEM;
		} else {
			memcpy(grown + host->nr_dtors, add, nr * sizeof(*add));
			host->dtors = grown;
			host->nr_dtors += nr;
		}
	}
	pthread_rwlock_unlock(&host->prog_types_lock);
out:
	free(add);
	return ret;
}

kbpf_kfunc_addr kbpf_host_kptr_dtor(const struct kbpf_host *host, uint32_t btf_id)
{
	struct kbpf_host *h = (struct kbpf_host *)host; /* the lock, not the table, changes */
	kbpf_kfunc_addr addr = NULL;

	if (!host)
		return NULL;
	pthread_rwlock_rdlock(&h->prog_types_lock);
	ssize_t i = dtor_find(h, btf_id);
	if (i >= 0)
		addr = h->dtors[i].addr;
	pthread_rwlock_unlock(&h->prog_types_lock);
	return addr;
}

void kbpf_host_kptr_dtor_release(struct kbpf_host *host)
{
	free(host->dtors);
	host->dtors = NULL;
	host->nr_dtors = 0;
}
