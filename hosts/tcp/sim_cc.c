/* SPDX-License-Identifier: Apache-2.0 */
/* CCs by name in a simulation (Linux's tcp_cong_list: the native CCs plus registered BPF
 * ones) and changing a live socket's CC, as bpf_setsockopt(SOL_TCP, TCP_CONGESTION) does
 * (net/core/filter.c sol_tcp_sockopt_congestion, net/ipv4/tcp_cong.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"
#include "tcp_host_internal.h"

static const struct tcp_congestion_ops *registered(const struct sim *s, const char *name)
{
	for (unsigned int i = 0; s && i < s->nr_ccs; i++)
		if (!strncmp(s->ccs[i]->name, name, TCP_CA_NAME_MAX))
			return s->ccs[i];
	return NULL;
}

int kbpf_tcp_sim_register_cc(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops)
{
	struct sim *s = (struct sim *)sim;
	const struct tcp_congestion_ops **ccs;

	if (!s || kbpf_tcp_cc_validate(ops))
		return -EINVAL;
	if (kbpf_tcp_cc_find(ops->name) || registered(s, ops->name))
		return -EEXIST;
	ccs = realloc(s->ccs, (s->nr_ccs + 1) * sizeof(*ccs));
	if (!ccs)
		return -ENOMEM;
	ccs[s->nr_ccs++] = ops;
	s->ccs = ccs;
	return 0;
}

const struct tcp_congestion_ops *kbpf_tcp_sim_find_cc(const struct kbpf_tcp_sim *sim, const char *name)
{
	const struct tcp_congestion_ops *ops;

	if (!name)
		return NULL;
	ops = registered((const struct sim *)sim, name);
	return ops ? ops : kbpf_tcp_cc_find(name);
}

/* tcp_init_congestion_control */
static void init_congestion_control(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	tcp_sk(sk)->prior_ssthresh = 0;
	if (icsk->icsk_ca_ops->init)
		icsk->icsk_ca_ops->init(sk);
	if (icsk->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)
		icsk->icsk_inet.tos |= INET_ECN_ECT_0;
	else
		icsk->icsk_inet.tos &= (__u8)~INET_ECN_MASK;
	icsk->icsk_ca_initialized = 1;
}

/* tcp_reinit_congestion_control */
static void reinit_congestion_control(struct sock *sk, const struct tcp_congestion_ops *ca)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_ops && icsk->icsk_ca_ops->release)
		icsk->icsk_ca_ops->release(sk);
	icsk->icsk_ca_ops = ca;
	icsk->icsk_ca_setsockopt = 1;
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
	if (ca->flags & TCP_CONG_NEEDS_ECN)
		icsk->icsk_inet.tos |= INET_ECN_ECT_0;
	else
		icsk->icsk_inet.tos &= (__u8)~INET_ECN_MASK;
	if (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN)
		init_congestion_control(sk);
}

int kbpf_tcp_set_congestion_control(struct sock *sk, const char *optval, size_t optlen)
{
	struct tcp_sock *tp = tcp_sk(sk);
	const struct sim_flow *f;
	const struct tcp_congestion_ops *ca;
	char name[TCP_CA_NAME_MAX];
	size_t n;

	if (!sk || !optval || optlen < 1)
		return -EINVAL;
	/* "cdg" keeps a pointer in icsk_ca_priv, which a BPF CC could overwrite: refused by
	 * name even where it does not exist (so Linux's selftest sees -ENOTSUPP) */
	if (optlen >= 3 && !strncmp("cdg", optval, optlen))
		return -KBPF_ENOTSUPP;
	/* .init → setsockopt → .init → … : only the first level may switch (Linux's comment:
	 * a CC picks a fallback, the fallback's init cannot pick another) */
	if (tp->kbpf.bpf_chg_cc_inprogress)
		return -EBUSY;
	n = optlen < TCP_CA_NAME_MAX - 1 ? optlen : TCP_CA_NAME_MAX - 1;
	memcpy(name, optval, n);
	name[n] = 0;
	name[strnlen(name, n)] = 0;

	if (inet_csk(sk)->icsk_ca_dst_locked)
		return -EPERM;
	f = tp->kbpf.owner;
	ca = kbpf_tcp_sim_find_cc(f ? (const struct kbpf_tcp_sim *)f->sim : NULL, name);
	if (ca == inet_csk(sk)->icsk_ca_ops) {
		inet_csk(sk)->icsk_ca_setsockopt = 1;
		return 0;
	}
	if (!ca)
		return -ENOENT;
	/* TCP_CONG_NON_RESTRICTED or CAP_NET_ADMIN: the simulator's sockets are the
	 * administrator's */
	tp->kbpf.bpf_chg_cc_inprogress = 1;
	reinit_congestion_control(sk, ca);
	tp->kbpf.bpf_chg_cc_inprogress = 0;
	return 0;
}
