/* SPDX-License-Identifier: Apache-2.0 */
/* A host putting its sockets into socket maps (kbpf_linux_sock_map_update): the checks
 * Linux's BPF_MAP_UPDATE_ELEM makes on the socket behind an fd (net/core/sock_map.c's
 * sock_map_sk_is_suitable / sock_map_sk_state_allowed, net/xdp/xskmap.c,
 * kernel/bpf/reuseport_array.c's reuseport_array_update_check), written from their
 * behaviour for kbpf's socket model; the slot itself is the core map's. */
#include <errno.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <kbpf/map.h>
#include "linux_internal.h"

#define LINUX_ENOTSUPP 524

static bool is_inet(const struct bpf_sock *sk)
{
	return sk->family == AF_INET || sk->family == AF_INET6;
}

/* SOCKMAP / SOCKHASH: TCP (established or listening), UDP, unix (a stream one
 * connected). Linux's UDP check is that the socket is hashed (bound): kbpf's sockets
 * are what the host says they are. */
static int sockmap_check(const struct bpf_sock *sk)
{
	if (is_inet(sk) && sk->protocol == IPPROTO_TCP)
		return sk->state == BPF_TCP_ESTABLISHED || sk->state == BPF_TCP_LISTEN ? 0 : -EOPNOTSUPP;
	if (is_inet(sk) && sk->protocol == IPPROTO_UDP)
		return 0;
	if (sk->family == AF_UNIX)
		return sk->type != SOCK_STREAM || sk->state == BPF_TCP_ESTABLISHED ? 0 : -EOPNOTSUPP;
	return -EOPNOTSUPP;
}

static int reuseport_check(const struct kbpf_linux_sock *s)
{
	const struct bpf_sock *sk = &s->sk;

	if ((sk->protocol != IPPROTO_TCP && sk->protocol != IPPROTO_UDP) || !is_inet(sk) ||
	    (sk->type != SOCK_STREAM && sk->type != SOCK_DGRAM))
		return -LINUX_ENOTSUPP;
	return s->reuseport_id ? 0 : -EINVAL; /* Linux: no sk_reuseport_cb */
}

int kbpf_linux_sock_map_update(struct kbpf_map *map, const void *key, struct kbpf_linux_sock *sk, uint64_t flags)
{
	int err;

	if (!map || !key || !sk)
		return -EINVAL;
	switch (kbpf_map_type(map)) {
	case BPF_MAP_TYPE_SOCKMAP:
	case BPF_MAP_TYPE_SOCKHASH:
		err = sockmap_check(&sk->sk);
		break;
	case BPF_MAP_TYPE_XSKMAP:
		err = sk->sk.family == AF_XDP ? 0 : -EOPNOTSUPP;
		break;
	case BPF_MAP_TYPE_REUSEPORT_SOCKARRAY:
		err = reuseport_check(sk);
		break;
	default:
		return -EINVAL;
	}
	return err ? err : kbpf_map_update(map, key, &sk, flags);
}

/* bpf_sock_map_update / bpf_sock_hash_update(sock_ops ctx, map, key, flags): sock_ops'
 * socket into a SOCKMAP / SOCKHASH (the verifier pairs each helper with its map type).
 * Linux 6.12 (net/core/sock_map.c) allows it only from the callbacks where the
 * connection is established or listening (sock_map_op_okay), else -EOPNOTSUPP, as for a
 * context without a socket; then the socket's own checks and the map's slot. */
KBPF_LINUX_HELPER(sock_ops_map_update)
{
	(void)r5;
	const struct bpf_sock_ops *ops = (const struct bpf_sock_ops *)(uintptr_t)r1;
	struct kbpf_linux_sock *sk = (struct kbpf_linux_sock *)(uintptr_t)ops->sk;

	if (!sk || (ops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB && ops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
		    ops->op != BPF_SOCK_OPS_TCP_LISTEN_CB))
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	return (uint64_t)(int64_t)kbpf_linux_sock_map_update((struct kbpf_map *)(uintptr_t)r2,
							       (const void *)(uintptr_t)r3, sk, r4);
}
