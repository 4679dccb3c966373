/* SPDX-License-Identifier: Apache-2.0 */
/* The native congestion controls by name, Linux's registration checks, and the core
 * calls every CC goes through (tcp_set_ca_state, tcp_ca_event). */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp.h>

static const struct tcp_congestion_ops *const native_ccs[] = {
	&kbpf_tcp_reno,
	&kbpf_tcp_cubic,
	&kbpf_tcp_dctcp,
	&kbpf_tcp_bbr,
};

const struct tcp_congestion_ops *kbpf_tcp_cc_get(unsigned int i)
{
	return i < sizeof(native_ccs) / sizeof(native_ccs[0]) ? native_ccs[i] : NULL;
}

const struct tcp_congestion_ops *kbpf_tcp_cc_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned int i = 0; i < sizeof(native_ccs) / sizeof(native_ccs[0]); i++)
		if (!strcmp(native_ccs[i]->name, name))
			return native_ccs[i];
	return NULL;
}

int kbpf_tcp_cc_validate(const struct tcp_congestion_ops *ops)
{
	if (!ops || !ops->ssthresh || !ops->undo_cwnd || (!ops->cong_avoid && !ops->cong_control))
		return -EINVAL;
	if (!ops->name[0] || !memchr(ops->name, 0, sizeof(ops->name)))
		return -EINVAL;
	if (ops->flags & ~TCP_CONG_MASK)
		return -EINVAL;
	return 0;
}

void kbpf_tcp_set_ca_state(struct sock *sk, __u8 ca_state)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	/* The CC sees the old state in icsk_ca_state (dctcp compares them). */
	if (icsk->icsk_ca_ops && icsk->icsk_ca_ops->set_state)
		icsk->icsk_ca_ops->set_state(sk, ca_state);
	icsk->icsk_ca_state = ca_state;
}

void kbpf_tcp_ca_event(struct sock *sk, enum tcp_ca_event event)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_ops && icsk->icsk_ca_ops->cwnd_event)
		icsk->icsk_ca_ops->cwnd_event(sk, event);
}

__u32 kbpf_tcp_prandom_u32_max(struct sock *sk, __u32 ceil)
{
	struct tcp_sock *tp = tcp_sk(sk);
	/* splitmix64: cheap, well mixed, and fully determined by the seed. */
	__u64 z = (tp->kbpf.prandom_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	/* Linux's prandom_u32_max: the high part of a 32×32 product, no modulo bias games. */
	return (__u32)(((__u64)(__u32)z * ceil) >> 32);
}
