/* SPDX-License-Identifier: Apache-2.0 */
/* What the tests of hosts/linux share: a host with Linux's program types and helpers, and
 * one context-access verdict of a program type. */
#ifndef KBPF_TEST_LINUX_UTIL_H
#define KBPF_TEST_LINUX_UTIL_H

#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>

/* A host with kbpf_linux_host_add done, or NULL. */
static inline struct kbpf_host *linux_host(void)
{
	struct kbpf_host *host = kbpf_host_new();
	if (host && kbpf_linux_host_add(host)) {
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

/* The verdict of type t for an access; *info (if given) gets what the callback filled. */
static inline int ctx_ok(const struct kbpf_prog_type *t, int off, int size, enum kbpf_access_type a,
			 struct kbpf_ctx_access_info *info)
{
	struct kbpf_ctx_access_info local;
	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	return t->is_valid_access(t, off, size, a, info);
}

#endif
