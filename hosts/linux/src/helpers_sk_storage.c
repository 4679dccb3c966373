/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_sk_storage_get / bpf_sk_storage_delete (Linux 6.1 net/core/bpf_sk_storage.c): a
 * value per socket in a BPF_MAP_TYPE_SK_STORAGE map, kept by src/maps/sk_storage.c with
 * the socket's address as its owner. The verifier has proved the map is such a map and
 * the socket a socket; the value lives until it is deleted or the map is freed (kbpf's
 * sockets do not tell maps when they go away). */
#include <errno.h>
#include <kbpf/map.h>
#include "linux_internal.h"

/* (map, sk, value or NULL, flags): the socket's value, created from value (zeroes if
 * NULL) with BPF_SK_STORAGE_GET_F_CREATE; NULL if absent or on bad flags. */
KBPF_LINUX_HELPER(sk_storage_get)
{
	(void)r5;
	struct kbpf_map *map = (struct kbpf_map *)(uintptr_t)r1;
	const void *sk = (const void *)(uintptr_t)r2;

	if (!sk)
		return 0;
	return (uint64_t)(uintptr_t)kbpf_local_storage_get(map, sk, (const void *)(uintptr_t)r3, r4);
}

/* (map, sk): 0, or -ENOENT when the socket has no value. */
KBPF_LINUX_HELPER(sk_storage_delete)
{
	(void)r3, (void)r4, (void)r5;
	const void *sk = (const void *)(uintptr_t)r2;

	if (!sk)
		return (uint64_t)-EINVAL;
	return (uint64_t)kbpf_local_storage_delete((struct kbpf_map *)(uintptr_t)r1, sk);
}

/* What Linux's program types run for a verified bpf_sk_storage_get/delete (their protos'
 * run_id): these, whatever another host registered under the Linux ids. */
int kbpf_linux_add_sk_storage_helpers(struct kbpf_host *host)
{
	int ret = kbpf_host_helper_register(host, KBPF_LINUX_RUN_ID(BPF_FUNC_sk_storage_get), "bpf_sk_storage_get",
					    kbpf_linux_sk_storage_get);

	return ret ? ret
		   : kbpf_host_helper_register(host, KBPF_LINUX_RUN_ID(BPF_FUNC_sk_storage_delete),
					       "bpf_sk_storage_delete", kbpf_linux_sk_storage_delete);
}
