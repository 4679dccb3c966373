/* SPDX-License-Identifier: Apache-2.0 */
/* The few things the runner asks of the TCP host beyond the simulator's own API
 * (tcp_ca.h): SK_STORAGE values set from C as Linux's test sets them through a socket fd. */
#include <errno.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/map.h>
#include <kbpf/tcp_host.h>
#include "tcp_ca.h"

int ca_sim_register(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops)
{
	return kbpf_tcp_sim_register_cc(sim, ops);
}

/* Linux's dctcp_fallback: the client connects with "cubic", which does not ask for ECN
 * (tcp_ecn 2), to a bpf_dctcp listener. */
void ca_flow_opts_no_ecn_peer(struct kbpf_tcp_flow_opts *fo)
{
	fo->peer_ops = kbpf_tcp_cc_find("cubic");
}

int ca_sk_storage_update(struct ca_obj *o, const char *map, const void *sk, const void *value)
{
	struct kbpf_map *m = kbpf_object_find_map(o->obj, map);

	if (!m)
		return -ENOENT;
	return kbpf_tcp_sk_storage_update(m, (struct sock *)sk, value, BPF_NOEXIST);
}

int ca_sk_storage_lookup(struct ca_obj *o, const char *map, const void *sk, void *value)
{
	struct kbpf_map *m = kbpf_object_find_map(o->obj, map);

	if (!m)
		return -ENOENT;
	return kbpf_tcp_sk_storage_lookup(m, (struct sock *)sk, value);
}
