/* SPDX-License-Identifier: Apache-2.0 */
/* The host's struct_ops types by struct name: what kbpf_struct_ops_instantiate applies
 * when its caller names none, and which program type the loader verifies a struct's
 * programs as (docs/struct-ops.md). Copies live on the heap, one block per record, so
 * the pointers find() hands out stay valid while more are registered. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/host_internal.h"
#include "opts.h"

/* The struct and its two strings in one block (one free). */
static struct kbpf_struct_ops_type *sops_copy(const struct kbpf_struct_ops_type *type)
{
	size_t name_len = strlen(type->name) + 1;
	size_t pt_len = type->prog_type ? strlen(type->prog_type) + 1 : 0;
	struct kbpf_struct_ops_type *t = calloc(1, sizeof(*t) + name_len + pt_len);
	if (!t)
		return NULL;
	*t = *type;
	t->sz = sizeof(*t);
	char *s = (char *)(t + 1);
	t->name = memcpy(s, type->name, name_len);
	t->prog_type = pt_len ? memcpy(s + name_len, type->prog_type, pt_len) : NULL;
	return t;
}

/* Caller holds prog_types_lock. */
static const struct kbpf_struct_ops_type *sops_find_locked(const struct kbpf_host *host, const char *name)
{
	for (size_t i = 0; i < host->nr_struct_ops_types; i++)
		if (!strcmp(host->struct_ops_types[i]->name, name))
			return host->struct_ops_types[i];
	return NULL;
}

int kbpf_host_struct_ops_register(struct kbpf_host *host, const struct kbpf_struct_ops_type *type)
{
	/* sz as for program types: shorter (older caller) reads as zero, longer only if
	 * the bytes we do not know are zero, so nothing a newer caller asks is dropped. */
	if (!host || !type || !OPTS_VALID(type, OPTS_END(struct kbpf_struct_ops_type, name)))
		return -EINVAL;
	struct kbpf_struct_ops_type tmp;
	OPTS_COPY(&tmp, type);
	if (!tmp.name || !*tmp.name || (tmp.prog_type && !*tmp.prog_type))
		return -EINVAL;
	struct kbpf_struct_ops_type *copy = sops_copy(&tmp);
	if (!copy)
		return -ENOMEM;
	int ret = 0;
	pthread_rwlock_wrlock(&host->prog_types_lock);
	if (sops_find_locked(host, tmp.name)) {
		ret = -EEXIST;
	} else {
		struct kbpf_struct_ops_type **arr =
			realloc(host->struct_ops_types, (host->nr_struct_ops_types + 1) * sizeof(*arr));
		if (!arr) {
			ret = -ENOMEM;
		} else {
			host->struct_ops_types = arr;
			host->struct_ops_types[host->nr_struct_ops_types++] = copy;
			copy = NULL;
		}
	}
	pthread_rwlock_unlock(&host->prog_types_lock);
	free(copy);
	return ret;
}

const struct kbpf_struct_ops_type *kbpf_host_struct_ops_find(const struct kbpf_host *host, const char *name)
{
	if (!host || !name)
		return NULL;
	/* the lock is the host's internal state, not part of what const promises */
	pthread_rwlock_t *lock = (pthread_rwlock_t *)&host->prog_types_lock;
	pthread_rwlock_rdlock(lock);
	const struct kbpf_struct_ops_type *t = sops_find_locked(host, name);
	pthread_rwlock_unlock(lock);
	return t; /* never freed before the host */
}

void kbpf_host_struct_ops_release(struct kbpf_host *host)
{
	for (size_t i = 0; i < host->nr_struct_ops_types; i++)
		free(host->struct_ops_types[i]);
	free(host->struct_ops_types);
	host->struct_ops_types = NULL;
	host->nr_struct_ops_types = 0;
}
