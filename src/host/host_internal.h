/* SPDX-License-Identifier: Apache-2.0 */
#ifndef KBPF_SRC_HOST_HOST_INTERNAL_H
#define KBPF_SRC_HOST_HOST_INTERNAL_H

#include <kbpf/host.h>

struct kbpf_helper_entry {
	int32_t id;
	char *name;
	kbpf_helper_fn fn;
};

struct kbpf_kconfig_entry {
	char *name;
	uint64_t value;
};

struct kbpf_host {
	struct kbpf_helper_entry *helpers; /* sorted by id */
	size_t nr_helpers, cap_helpers;
	struct btf *btf;                   /* host BTF (src/btf/host_btf.c), or NULL */
	struct kbpf_kconfig_entry *kconfig; /* src/host/kconfig.c */
	size_t nr_kconfig;
};

/* Release what host_btf.c / kconfig.c hold (called by kbpf_host_free). */
void kbpf_host_btf_release(struct kbpf_host *host);
void kbpf_host_kconfig_release(struct kbpf_host *host);

#endif
