/* SPDX-License-Identifier: Apache-2.0 */
#ifndef KBPF_SRC_HOST_HOST_INTERNAL_H
#define KBPF_SRC_HOST_HOST_INTERNAL_H

#include <kbpf/host.h>

struct kbpf_helper_entry {
	int32_t id;
	char *name;
	kbpf_helper_fn fn;
};

struct kbpf_host {
	struct kbpf_helper_entry *helpers; /* sorted by id */
	size_t nr_helpers, cap_helpers;
};

#endif
