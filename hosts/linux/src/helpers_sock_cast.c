/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_skc_to_tcp_sock and its siblings (Linux 6.1's bpf_sk_base_func_proto casts,
 * net/core/filter.c): the socket itself when it is of the kind the name says, else
 * NULL, with Linux's conditions on kbpf's socket model (struct kbpf_linux_sock: a full
 * socket unless its state is TCP_TIME_WAIT or TCP_NEW_SYN_RECV, as Linux's
 * sk_fullsock). Linux types the result as a BTF pointer to tcp_sock, tcp6_sock, …;
 * kbpf's sockets are struct kbpf_linux_sock whatever their kind, so that is the type
 * (helper_protos.c): a program reads no more than a socket has. kbpf has no MPTCP, so
 * bpf_skc_to_mptcp_sock finds no MPTCP socket behind a subflow, ever. */
#include <sys/socket.h>
#include <netinet/in.h>
#include "linux_internal.h"

static const struct kbpf_linux_sock *SK(uint64_t r)
{
	return (const struct kbpf_linux_sock *)(uintptr_t)r;
}

static bool fullsock(const struct kbpf_linux_sock *s)
{
	return s->sk.state != BPF_TCP_TIME_WAIT && s->sk.state != BPF_TCP_NEW_SYN_RECV;
}

/* Linux compares sk_prot with tcp_prot / tcpv6_prot: a TCP socket of AF_INET/AF_INET6 */
static bool is_tcp(const struct kbpf_linux_sock *s)
{
	return s->sk.protocol == IPPROTO_TCP && (s->sk.family == AF_INET || s->sk.family == AF_INET6);
}

/* helper name: the socket in R1 if cond holds of it (s), else NULL */
#define SKC_TO(name, cond)                                              \
	KBPF_LINUX_HELPER(name)                                         \
	{                                                               \
		LINUX_UNUSED5(r2, r3, r4, r5, 0);                       \
		const struct kbpf_linux_sock *s = SK(r1);               \
		return s && (cond) ? (uint64_t)(uintptr_t)s : 0;        \
	}

SKC_TO(skc_to_tcp_sock, fullsock(s) && s->sk.protocol == IPPROTO_TCP)
SKC_TO(skc_to_tcp6_sock, fullsock(s) && s->sk.protocol == IPPROTO_TCP && s->sk.family == AF_INET6)
SKC_TO(skc_to_tcp_timewait_sock, is_tcp(s) && s->sk.state == BPF_TCP_TIME_WAIT)
SKC_TO(skc_to_tcp_request_sock, is_tcp(s) && s->sk.state == BPF_TCP_NEW_SYN_RECV)
SKC_TO(skc_to_udp6_sock,
       fullsock(s) && s->sk.protocol == IPPROTO_UDP && s->sk.type == SOCK_DGRAM && s->sk.family == AF_INET6)
SKC_TO(skc_to_unix_sock, fullsock(s) && s->sk.family == AF_UNIX)

KBPF_LINUX_HELPER(skc_to_mptcp_sock)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}
