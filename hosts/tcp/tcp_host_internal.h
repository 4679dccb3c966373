/* SPDX-License-Identifier: Apache-2.0 */
/* What the TCP host's BPF side (bpf_*.c) and the simulator share. */
#ifndef KBPF_TCP_HOST_INTERNAL_H
#define KBPF_TCP_HOST_INTERNAL_H

#include <kbpf/prog_type.h>
#include <kbpf/tcp.h>
#include <kbpf/tcp_host.h>

/* Linux's kernel-internal ENOTSUPP (not ENOTSUP/EOPNOTSUPP): what Linux's tcp-cc rules
 * return and its selftests expect. */
#define KBPF_ENOTSUPP 524

/* The simulated clock (ns) the clock helpers read on this thread while a simulation runs:
 * enter returns the previous one, to give back to leave (simulations may nest). */
const __u64 *kbpf_tcp_clock_enter(const __u64 *now_ns);
void kbpf_tcp_clock_leave(const __u64 *saved);

/* bpf_prog_type.c */
extern const struct kbpf_prog_type kbpf_tcp_ca_prog_type;
/* bpf_helpers.c: register the run-time helpers; the proto for id as the type sees it */
int kbpf_tcp_helpers_add(struct kbpf_host *host);
const struct kbpf_helper_proto *kbpf_tcp_helper_proto(const struct kbpf_host *host, int32_t id,
						      const char *attach_member);
/* bpf_kfuncs.c */
int kbpf_tcp_kfuncs_add(struct kbpf_host *host);
/* bpf_struct_ops.c */
int kbpf_tcp_struct_ops_add(struct kbpf_host *host);

/* cc_bbr.c: BBR's state as the scripted peer asserts it (script.c) and
 * kbpf_tcp_sim_bbr_info reports it */
struct kbpf_tcp_bbr_peek {
	__u32 mode, cycle_idx, pacing_gain, cwnd_gain, full_bw_cnt, full_bw_reached, rtt_cnt, min_rtt_us;
	__u64 bw_Bps; /* the model's bandwidth, payload bytes/s */
	__u32 extra_acked; /* the ACK-aggregation allowance, packets */
};
void kbpf_tcp_bbr_peek(const struct sock *sk, struct kbpf_tcp_bbr_peek *out);

#endif
