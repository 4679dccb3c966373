/* SPDX-License-Identifier: Apache-2.0 */
/* The kfunc allowlist of commit e78aea8b2170 as Linux 6.1 registers it: bpf_tcp_ca.c's
 * five generic functions, and one set each from tcp_cubic.c, tcp_dctcp.c and tcp_bbr.c,
 * all for the struct_ops program type and without flags. The functions are the native
 * CCs of this host (cc_*.c): a BPF CC calling them runs the very code a native flow runs. */
#include <kbpf/kfunc.h>
#include "tcp_host_internal.h"

static const struct kbpf_kfunc generic_funcs[] = {
	KBPF_KFUNC(tcp_reno_ssthresh, 0),
	KBPF_KFUNC(tcp_reno_cong_avoid, 0),
	KBPF_KFUNC(tcp_reno_undo_cwnd, 0),
	KBPF_KFUNC(tcp_slow_start, 0),
	KBPF_KFUNC(tcp_cong_avoid_ai, 0),
};

static const struct kbpf_kfunc cubic_funcs[] = {
	KBPF_KFUNC(cubictcp_init, 0),
	KBPF_KFUNC(cubictcp_recalc_ssthresh, 0),
	KBPF_KFUNC(cubictcp_cong_avoid, 0),
	KBPF_KFUNC(cubictcp_state, 0),
	KBPF_KFUNC(cubictcp_cwnd_event, 0),
	KBPF_KFUNC(cubictcp_acked, 0),
};

static const struct kbpf_kfunc dctcp_funcs[] = {
	KBPF_KFUNC(dctcp_init, 0),
	KBPF_KFUNC(dctcp_update_alpha, 0),
	KBPF_KFUNC(dctcp_cwnd_event, 0),
	KBPF_KFUNC(dctcp_ssthresh, 0),
	KBPF_KFUNC(dctcp_cwnd_undo, 0),
	KBPF_KFUNC(dctcp_state, 0),
};

static const struct kbpf_kfunc bbr_funcs[] = {
	KBPF_KFUNC(bbr_init, 0),
	KBPF_KFUNC(bbr_main, 0),
	KBPF_KFUNC(bbr_sndbuf_expand, 0),
	KBPF_KFUNC(bbr_undo_cwnd, 0),
	KBPF_KFUNC(bbr_cwnd_event, 0),
	KBPF_KFUNC(bbr_ssthresh, 0),
	KBPF_KFUNC(bbr_min_tso_segs, 0),
	KBPF_KFUNC(bbr_set_state, 0),
};

int kbpf_tcp_kfuncs_add(struct kbpf_host *host)
{
	static const char *const types[] = { KBPF_TCP_CA_PROG_TYPE, NULL };
	static const struct {
		const char *name;
		const struct kbpf_kfunc *funcs;
		size_t nr;
	} sets[] = {
		{ "bpf_tcp_ca_kfunc_set", generic_funcs, sizeof(generic_funcs) / sizeof(generic_funcs[0]) },
		{ "tcp_cubic_kfunc_set", cubic_funcs, sizeof(cubic_funcs) / sizeof(cubic_funcs[0]) },
		{ "tcp_dctcp_kfunc_set", dctcp_funcs, sizeof(dctcp_funcs) / sizeof(dctcp_funcs[0]) },
		{ "tcp_bbr_kfunc_set", bbr_funcs, sizeof(bbr_funcs) / sizeof(bbr_funcs[0]) },
	};

	/* The socket structs are the host's objects: the kfuncs take any of them as the
	 * head of a whole tcp_sock (inet_csk_ca, tcp_sk), so program memory of a struct
	 * sock's size (a struct without pointer members, which Linux's rule would take)
	 * must not pass for one. */
	static const char *const objects[] = { "sock_common", "sock", "inet_sock", "inet_connection_sock",
					       "tcp_sock" };
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		int ret = kbpf_host_object_type_register(host, objects[i]);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct kbpf_kfunc_set_opts o = {
			.sz = sizeof(o), .name = sets[i].name, .funcs = sets[i].funcs, .nr_funcs = sets[i].nr,
			.prog_types = types,
		};
		int ret = kbpf_host_kfunc_set_register(host, &o, NULL);
		if (ret)
			return ret;
	}
	return 0;
}
