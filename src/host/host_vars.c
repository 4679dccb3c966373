/* SPDX-License-Identifier: Apache-2.0 */
/* Host variables: the globals a host lets programs reach through typed
 * `extern T name __ksym;` (Linux's kernel variables, ld_imm64 BPF_PSEUDO_BTF_ID). The
 * registry maps a VAR of the host's BTF to the variable's address; the verifier types
 * the pointer from the VAR (src/verifier/ld.c) and the engines load the address
 * (kbpf_prog_ldimm64_value). Addresses come from the host, never from a symbol table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "host/host_internal.h"

struct kbpf_host_var_entry {
	uint32_t btf_id;
	void *addr;
};

static void var_log(char *buf, size_t size, const char *fmt, const char *name)
{
	if (buf && size)
		snprintf(buf, size, fmt, name);
}

/* Index of the first entry with btf_id >= id. Caller holds prog_types_lock. */
static size_t var_lower_bound(const struct kbpf_host *host, uint32_t id)
{
	size_t lo = 0, hi = host->nr_vars;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (host->vars[mid].btf_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int entry_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct kbpf_host_var_entry *)a)->btf_id, y = ((const struct kbpf_host_var_entry *)b)->btf_id;
	return x < y ? -1 : x > y;
}

int kbpf_host_var_register(struct kbpf_host *host, const struct kbpf_host_var *vars, size_t nr, char *log_buf,
			   size_t log_size)
{
	const struct btf *btf;
	struct kbpf_host_var_entry *add, *grown;
	int ret = 0;

	if (log_buf && log_size)
		log_buf[0] = 0;
	if (!host || (nr && !vars))
		return -EINVAL;
	btf = kbpf_host_btf(host);
	if (!btf) {
		var_log(log_buf, log_size, "host variable '%s': the host has no BTF (load it first)",
			nr ? (vars[0].name ? vars[0].name : "") : "");
		return -ENOENT;
	}
	if (!nr)
		return 0;
	add = calloc(nr, sizeof(*add));
	if (!add)
		return -ENOMEM;
	/* resolve every name first: all or nothing */
	for (size_t i = 0; i < nr; i++) {
		const char *name = vars[i].name;
		int id;

		if (!name || !*name || !vars[i].addr) {
			var_log(log_buf, log_size, "host variable '%s': needs a name and an address", name ? name : "");
			ret = -EINVAL;
			goto out;
		}
		id = btf__find_by_name_kind(btf, name, BTF_KIND_VAR);
		if (id <= 0) {
			var_log(log_buf, log_size,
				"host variable '%s': no VAR of that name in the host's BTF (pahole encodes the "
				"variables of a .data..percpu section: KBPF_HOST_PERCPU)",
				name);
			ret = -EINVAL;
			goto out;
		}
		add[i].btf_id = (uint32_t)id;
		add[i].addr = vars[i].addr;
	}
	qsort(add, nr, sizeof(*add), entry_cmp);
	for (size_t i = 1; i < nr; i++) {
		if (add[i].btf_id == add[i - 1].btf_id) {
			var_log(log_buf, log_size, "host variable '%s': given twice",
				btf__name_by_offset(btf, btf__type_by_id(btf, add[i].btf_id)->name_off));
			ret = -EEXIST;
			goto out;
		}
	}
	pthread_rwlock_wrlock(&host->prog_types_lock);
	for (size_t i = 0; i < nr; i++) {
		size_t k = var_lower_bound(host, add[i].btf_id);
		if (k < host->nr_vars && host->vars[k].btf_id == add[i].btf_id) {
			var_log(log_buf, log_size, "host variable '%s': registered already",
				btf__name_by_offset(btf, btf__type_by_id(btf, add[i].btf_id)->name_off));
			ret = -EEXIST;
			break;
		}
	}
	if (!ret) {
		grown = realloc(host->vars, (host->nr_vars + nr) * sizeof(*grown));
		if (!grown) {
			ret = -ENOMEM;
		} else {
			memcpy(grown + host->nr_vars, add, nr * sizeof(*add));
			host->vars = grown;
			host->nr_vars += nr;
			qsort(host->vars, host->nr_vars, sizeof(*host->vars), entry_cmp);
		}
	}
	pthread_rwlock_unlock(&host->prog_types_lock);
out:
	free(add);
	return ret;
}

void *kbpf_host_var_addr(const struct kbpf_host *host, uint32_t btf_id)
{
	struct kbpf_host *h = (struct kbpf_host *)host; /* the lock, not the registry, changes */
	void *addr = NULL;

	if (!host)
		return NULL;
	pthread_rwlock_rdlock(&h->prog_types_lock);
	size_t k = var_lower_bound(h, btf_id);
	if (k < h->nr_vars && h->vars[k].btf_id == btf_id)
		addr = h->vars[k].addr;
	pthread_rwlock_unlock(&h->prog_types_lock);
	return addr;
}

void kbpf_host_vars_release(struct kbpf_host *host)
{
	free(host->vars);
	host->vars = NULL;
	host->nr_vars = 0;
}
