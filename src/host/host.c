/* SPDX-License-Identifier: Apache-2.0 */
/* The host registry: helpers by id (program types and kfunc sets join later). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "host/host_internal.h"
#include "host/kfunc_internal.h"
#include "maps/map_host.h"
#include "maps/timer.h"

/* What the maps of this host's types ask of it (kptr fields: their BTF and destructors). */
static const struct kbpf_map_host_ops map_ops = {
	.btf = kbpf_host_btf,
	.kptr_dtor = kbpf_host_kptr_dtor,
};

struct kbpf_host *kbpf_host_new(void)
{
	struct kbpf_host *host = calloc(1, sizeof(struct kbpf_host));

	if (!host)
		return NULL;
	host->map_ops = &map_ops;
	if (pthread_rwlock_init(&host->prog_types_lock, NULL)) {
		free(host);
		return NULL;
	}
	if (kbpf_host_kfunc_init(host)) {
		pthread_rwlock_destroy(&host->prog_types_lock);
		free(host);
		return NULL;
	}
	return host;
}

void kbpf_host_free(struct kbpf_host *host)
{
	if (!host)
		return;
	kbpf_timers_host_release(atomic_load(&host->timers));
	kbpf_host_kfunc_release(host);
	kbpf_host_prog_type_release(host);
	kbpf_host_struct_ops_release(host);
	kbpf_host_vars_release(host);
	kbpf_host_kptr_dtor_release(host);
	kbpf_host_object_types_release(host);
	for (size_t i = 0; i < host->nr_helpers; i++)
		free(host->helpers[i].name);
	free(host->helpers);
	kbpf_host_btf_release(host);
	kbpf_host_kconfig_release(host);
	pthread_rwlock_destroy(&host->prog_types_lock);
	free(host);
}

/* Index of the first helper with id >= the given one (the table is sorted by id). */
static size_t helper_lower_bound(const struct kbpf_host *host, int32_t id)
{
	size_t lo = 0, hi = host->nr_helpers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (host->helpers[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kbpf_host_helper_register(struct kbpf_host *host, int32_t id, const char *name, kbpf_helper_fn fn)
{
	if (!host || id < 0 || !fn)
		return -EINVAL;
	size_t pos = helper_lower_bound(host, id);
	if (pos < host->nr_helpers && host->helpers[pos].id == id)
		return -EEXIST;
	if (host->nr_helpers == host->cap_helpers) {
		size_t cap = host->cap_helpers ? host->cap_helpers * 2 : 16;
		struct kbpf_helper_entry *h = realloc(host->helpers, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		host->helpers = h;
		host->cap_helpers = cap;
	}
	char *copy = strdup(name ? name : "");
	if (!copy)
		return -ENOMEM;
	memmove(&host->helpers[pos + 1], &host->helpers[pos], (host->nr_helpers - pos) * sizeof(host->helpers[0]));
	host->helpers[pos] = (struct kbpf_helper_entry){ .id = id, .name = copy, .fn = fn };
	host->nr_helpers++;
	return 0;
}

kbpf_helper_fn kbpf_host_helper_find(const struct kbpf_host *host, int32_t id, const char **name)
{
	if (!host)
		return NULL;
	size_t pos = helper_lower_bound(host, id);
	if (pos == host->nr_helpers || host->helpers[pos].id != id)
		return NULL;
	if (name)
		*name = host->helpers[pos].name;
	return host->helpers[pos].fn;
}
