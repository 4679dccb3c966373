/* SPDX-License-Identifier: Apache-2.0 */
/* Host object types: structs a host declares to be objects only it hands out
 * (kbpf_host_object_type_register). The verifier (src/verifier/kfunc.c) takes only a BTF
 * pointer for a kfunc parameter pointing to one, never program memory of its size. By
 * name, so a host may declare them before it loads its BTF. Few entries: a linear table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/host_internal.h"

/* Caller holds prog_types_lock. */
static bool object_type_find(const struct kbpf_host *host, const char *name)
{
	for (size_t i = 0; i < host->nr_object_types; i++)
		if (!strcmp(host->object_types[i], name))
			return true;
	return false;
}

int kbpf_host_object_type_register(struct kbpf_host *host, const char *name)
{
	int ret = 0;

	if (!host || !name || !*name)
		return -EINVAL;
	pthread_rwlock_wrlock(&host->prog_types_lock);
	if (!object_type_find(host, name)) {
		char *copy = strdup(name);
		char **grown = copy ? realloc(host->object_types, (host->nr_object_types + 1) * sizeof(*grown)) : NULL;
		if (grown) {
			host->object_types = grown;
			host->object_types[host->nr_object_types++] = copy;
		} else {
			free(copy);
			ret = -ENOMEM;
		}
	}
	pthread_rwlock_unlock(&host->prog_types_lock);
	return ret;
}

bool kbpf_host_is_object_type(const struct kbpf_host *host, const char *name)
{
	bool found;

	if (!host || !name)
		return false;
	pthread_rwlock_rdlock((pthread_rwlock_t *)&host->prog_types_lock);
	found = object_type_find(host, name);
	pthread_rwlock_unlock((pthread_rwlock_t *)&host->prog_types_lock);
	return found;
}

void kbpf_host_object_types_release(struct kbpf_host *host)
{
	for (size_t i = 0; i < host->nr_object_types; i++)
		free(host->object_types[i]);
	free(host->object_types);
	host->object_types = NULL;
	host->nr_object_types = 0;
}
