/* SPDX-License-Identifier: Apache-2.0 */
/* Kconfig values a host supplies for `extern ... __kconfig` variables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/host_internal.h"

static struct kbpf_kconfig_entry *kconfig_find(const struct kbpf_host *host, const char *name)
{
	for (size_t i = 0; i < host->nr_kconfig; i++)
		if (!strcmp(host->kconfig[i].name, name))
			return &host->kconfig[i];
	return NULL;
}

int kbpf_host_kconfig_set(struct kbpf_host *host, const char *name, uint64_t value)
{
	if (!host || !name || !*name)
		return -EINVAL;
	struct kbpf_kconfig_entry *e = kconfig_find(host, name);
	if (e) {
		e->value = value;
		return 0;
	}
	e = realloc(host->kconfig, (host->nr_kconfig + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	host->kconfig = e;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	host->kconfig[host->nr_kconfig++] = (struct kbpf_kconfig_entry){ copy, value };
	return 0;
}

int kbpf_host_kconfig_get(const struct kbpf_host *host, const char *name, uint64_t *value)
{
	const struct kbpf_kconfig_entry *e = host && name ? kconfig_find(host, name) : NULL;
	if (!e)
		return -ENOENT;
	if (value)
		*value = e->value;
	return 0;
}

void kbpf_host_kconfig_release(struct kbpf_host *host)
{
	for (size_t i = 0; i < host->nr_kconfig; i++)
		free(host->kconfig[i].name);
	free(host->kconfig);
	host->kconfig = NULL;
	host->nr_kconfig = 0;
}
