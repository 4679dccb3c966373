/* SPDX-License-Identifier: Apache-2.0 */
/* What a map asks of the host its kptr fields are typed by (kbpf_map_def.host, Linux's
 * vmlinux BTF and kfunc destructors): the host's BTF and the destructor of a referenced
 * kptr's type. The host (src/host/, a layer above maps) hands these to every map it
 * creates through this table, which is the first member of struct kbpf_host
 * (src/host/host_internal.h checks it): a map reads it, it never calls up. */
#ifndef KBPF_SRC_MAPS_MAP_HOST_H
#define KBPF_SRC_MAPS_MAP_HOST_H

#include <stdint.h>
#include <kbpf/kfunc.h>

struct btf;
struct kbpf_host;

struct kbpf_map_host_ops {
	/* kbpf_host_btf: its BTF, or NULL */
	const struct btf *(*btf)(const struct kbpf_host *host);
	/* kbpf_host_kptr_dtor: the destructor of BTF type btf_id (in that BTF), or NULL */
	kbpf_kfunc_addr (*kptr_dtor)(const struct kbpf_host *host, uint32_t btf_id);
};

/* The table of host (not NULL). */
static inline const struct kbpf_map_host_ops *kbpf_map_host_ops(const struct kbpf_host *host)
{
	return *(const struct kbpf_map_host_ops *const *)(const void *)host;
}

#endif
