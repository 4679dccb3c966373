/* SPDX-License-Identifier: Apache-2.0 */
/* The TCP host's socket model: the structures Linux hands to a congestion control
 * (struct sock → inet_sock → inet_connection_sock → tcp_sock, ack_sample, rate_sample,
 * tcp_congestion_ops) with Linux 6.1's type names, member names, sizes, signedness and
 * first-member nesting, so that CO-RE relocations of Linux-built objects resolve by name
 * against this host's BTF (docs/reference/tcp-model.md §1). Offsets differ from
 * Linux's; only the members congestion controls and the simulator use are modelled.
 *
 * Also: Linux's inline helpers CCs use (tcp_sk, inet_csk_ca, before/after, …) and the
 * native congestion controls' exported functions with Linux's prototypes (they become
 * kfuncs), plus the registry of native CCs by name. */
#ifndef KBPF_TCP_H
#define KBPF_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/export.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Jiffies per second. Debian's 6.1 kernels use 250; BPF objects read it as CONFIG_HZ. */
#define KBPF_TCP_HZ 250

#define TCP_CA_NAME_MAX 16
#define TCP_INFINITE_SSTHRESH 0x7fffffffU
#define TCP_INIT_CWND 10
#define ICSK_CA_PRIV_SIZE 104

/* sk_state values (include/net/tcp_states.h). */
enum {
	TCP_ESTABLISHED = 1,
	TCP_CLOSE = 7,
	TCP_LISTEN = 10,
};

/* icsk_ca_state values. */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

/* in_ack_event flags. */
enum tcp_ca_ack_event_flags {
	CA_ACK_SLOWPATH = 1 << 0,
	CA_ACK_WIN_UPDATE = 1 << 1,
	CA_ACK_ECE = 1 << 2,
};

#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_CONG_MASK (TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN)

/* ecn_flags bits. */
#define TCP_ECN_OK 1
#define TCP_ECN_QUEUE_CWR 2
#define TCP_ECN_DEMAND_CWR 4
#define TCP_ECN_SEEN 8

/* icsk_ack.pending bits. */
enum inet_csk_ack_state_t {
	ICSK_ACK_SCHED = 1,
	ICSK_ACK_TIMER = 2,
	ICSK_ACK_PUSHED = 4,
	ICSK_ACK_PUSHED2 = 8,
	ICSK_ACK_NOW = 16,
};

enum sk_pacing {
	SK_PACING_NONE = 0,
	SK_PACING_NEEDED = 1,
	SK_PACING_FQ = 2,
};

/* IP ECN codepoints (low two bits of the TOS byte). */
#define INET_ECN_NOT_ECT 0
#define INET_ECN_ECT_1 1
#define INET_ECN_ECT_0 2
#define INET_ECN_CE 3
#define INET_ECN_MASK 3

/* lib/win_minmax.c: a windowed running min or max over 3 samples. */
struct minmax_sample {
	__u32 t; /* time the measurement was taken */
	__u32 v; /* value measured */
};
struct minmax {
	struct minmax_sample s[3];
};

struct sock_common {
	unsigned char skc_state;
	__u16 skc_num;
};

struct sock {
	struct sock_common __sk_common;
	unsigned long sk_pacing_rate; /* payload bytes/s; ~0UL = unlimited */
	unsigned long sk_max_pacing_rate;
	__u32 sk_pacing_status; /* enum sk_pacing */
	__u8 sk_pacing_shift;
	__u32 sk_gso_max_size;
	__u16 sk_gso_max_segs;
};
#define sk_state __sk_common.skc_state

struct inet_sock {
	struct sock sk;
	__u8 tos; /* the ECN codepoint of outgoing data: INET_ECN_xmit / _dontxmit */
};

struct tcp_congestion_ops;
struct module;

struct list_head {
	struct list_head *next, *prev;
};

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	const struct tcp_congestion_ops *icsk_ca_ops;
	__u32 icsk_rto; /* jiffies, with backoff */
	__u8 icsk_ca_state : 5, icsk_ca_initialized : 1, icsk_ca_setsockopt : 1, icsk_ca_dst_locked : 1;
	__u8 icsk_retransmits;
	__u8 icsk_backoff;
	struct {
		__u8 pending; /* enum inet_csk_ack_state_t */
		__u8 quick; /* quick-ACK budget */
		__u8 pingpong;
		__u32 ato; /* delayed-ACK timeout, jiffies */
		unsigned long timeout; /* jiffies when the delayed ACK is due */
		__u32 lrcvtime;
		__u16 rcv_mss;
	} icsk_ack;
	__u64 icsk_ca_priv[ICSK_CA_PRIV_SIZE / sizeof(__u64)];
};

#define KBPF_TCP_SK_STORAGE_MAPS 8

/* Not Linux: what the host gives native code that Linux takes from globals (jiffies, the
 * PRNG) or from the socket's transmit path (the DCTCP special ACK). Set by the simulator;
 * a bare socket (unit tests) may leave the callback NULL. */
struct kbpf_tcp_host_ext {
	__u32 jiffies; /* the host's tcp_jiffies32 at the event being processed */
	__u64 prandom_state; /* per-socket, seeded: bbr's prandom_u32_max */
	void (*send_ack)(struct sock *sk, __u32 rcv_nxt); /* __tcp_send_ack: ACK rcv_nxt now */
	void *owner; /* the simulator's endpoint */
	__u8 bpf_chg_cc_inprogress; /* Linux's tp->bpf_chg_cc_inprogress (bpf_setsockopt) */
	/* The SK_STORAGE maps holding a value for this socket (struct kbpf_map *), so the
	 * values go when the socket does (Linux: sk->sk_bpf_storage). */
	void *storage_maps[KBPF_TCP_SK_STORAGE_MAPS];
};

struct tcp_rack {
	__u64 mstamp; /* send time of the latest delivered segment */
	__u32 rtt_us; /* its RTT */
	__u32 end_seq; /* its end_seq */
	__u32 last_delivered;
	__u8 reo_wnd_steps;
	__u8 reo_wnd_persist : 5, dsack_seen : 1, advanced : 1;
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;

	/* sequence space (bytes, modular) */
	__u32 rcv_nxt;
	__u32 rcv_wup; /* rcv_nxt at the last ACK sent */
	__u32 snd_nxt;
	__u32 snd_una;
	__u32 window_clamp;
	__u32 high_seq;
	__u8 ecn_flags;

	/* counters (segments) */
	__u32 delivered;
	__u32 delivered_ce;
	__u32 lost;
	__u32 app_limited;
	__u32 packets_out;
	__u32 retrans_out;
	__u32 sacked_out;
	__u32 lost_out;
	__u32 max_packets_out;
	__u32 cwnd_usage_seq;
	__u32 data_segs_out;
	__u32 total_retrans;
	__u32 reordering;
	__u32 reord_seen; /* reordering events seen (tcp_check_sack_reordering) */

	/* congestion window */
	__u32 snd_cwnd;
	__u32 snd_cwnd_cnt;
	__u32 snd_cwnd_clamp;
	__u32 snd_cwnd_used;
	__u32 snd_cwnd_stamp;
	__u32 snd_ssthresh;
	__u32 prior_cwnd;
	__u32 prior_ssthresh;
	__u8 syn_data : 1, syn_fastopen : 1, syn_fastopen_exp : 1, syn_fastopen_ch : 1, syn_data_acked : 1,
		save_syn : 2, is_cwnd_limited : 1;

	/* recovery */
	__u32 undo_marker;
	int undo_retrans;
	__u32 retrans_stamp;
	__u32 prr_delivered;
	__u32 prr_out;
	__u32 tlp_high_seq;
	struct tcp_rack rack;

	/* clocks */
	__u64 tcp_mstamp; /* µs: the event being processed */
	__u64 tcp_clock_cache; /* ns */
	__u64 tcp_wstamp_ns; /* ns: earliest departure time of the next segment */
	__u32 lsndtime; /* jiffies of the last data transmission */

	/* RTT */
	__u32 srtt_us; /* 8 × smoothed RTT, µs */
	__u32 mdev_us;
	__u32 mdev_max_us;
	__u32 rttvar_us;
	__u32 rtt_seq;
	struct minmax rtt_min;

	/* rate sampler */
	__u64 first_tx_mstamp;
	__u64 delivered_mstamp;

	__u32 mss_cache;
	bool is_mptcp;

	struct kbpf_tcp_host_ext kbpf;
};

struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
};

struct rate_sample {
	__u64 prior_mstamp;
	__u32 prior_delivered;
	__u32 prior_delivered_ce;
	__s32 delivered;
	__s32 delivered_ce;
	long interval_us;
	__u32 snd_interval_us;
	__u32 rcv_interval_us;
	long rtt_us;
	int losses;
	__u32 acked_sacked;
	__u32 prior_in_flight;
	__u32 last_end_seq;
	bool is_app_limited;
	bool is_retrans;
	bool is_ack_delayed;
};

union tcp_cc_info;

/* The kernel's short name for __u32 (include/asm-generic/int-ll64.h). */
typedef __u32 u32;

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, __u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	__u32 (*min_tso_segs)(struct sock *sk);
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
	__u32 (*undo_cwnd)(struct sock *sk);
	__u32 (*sndbuf_expand)(struct sock *sk);
	/* Linux spells ext `u32`: the type must be in the host BTF, because a BPF object
	 * built against the host's vmlinux.h (tcp_ca_unsupp_cong_op.c) names it. */
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr, union tcp_cc_info *info);
	char name[TCP_CA_NAME_MAX];
	struct module *owner;
	struct list_head list;
	__u32 key;
	__u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

/* --- Linux's inline helpers, as CC code uses them --- */

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}
static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}
static inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}
static inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1) before(seq1, seq2)

static inline __u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}
static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, __u32 val)
{
	tp->snd_cwnd = val;
}
static inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}
static inline __u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}
static inline __u32 tcp_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}
/* The host's tcp_jiffies32. */
static inline __u32 kbpf_tcp_jiffies32(const struct tcp_sock *tp)
{
	return tp->kbpf.jiffies;
}
static inline __u32 tcp_stamp_us_delta(__u64 t1, __u64 t0)
{
	return t1 > t0 ? (__u32)(t1 - t0) : 0;
}
/* Linux 6.1's rule (docs/reference/tcp-model.md §2.9). */
static inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	if (tp->is_cwnd_limited)
		return true;
	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}
/* usecs/msecs to jiffies, rounded up as Linux does. */
static inline unsigned long kbpf_usecs_to_jiffies(__u64 us)
{
	return (unsigned long)((us * KBPF_TCP_HZ + 999999) / 1000000);
}
static inline unsigned long kbpf_msecs_to_jiffies(__u64 ms)
{
	return (unsigned long)((ms * KBPF_TCP_HZ + 999) / 1000);
}

/* lib/win_minmax.c */
KBPF_API __u32 minmax_running_max(struct minmax *m, __u32 win, __u32 t, __u32 meas);
KBPF_API __u32 minmax_running_min(struct minmax *m, __u32 win, __u32 t, __u32 meas);
static inline __u32 minmax_get(const struct minmax *m)
{
	return m->s[0].v;
}
static inline __u32 minmax_reset(struct minmax *m, __u32 t, __u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };
	m->s[2] = m->s[1] = m->s[0] = val;
	return m->s[0].v;
}

/* --- native congestion controls: Linux 6.1 names and prototypes (future kfuncs) --- */

/* tcp_cong.c: reno and the generic pieces */
KBPF_API __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked);
KBPF_API void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked);
KBPF_API void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked);
KBPF_API __u32 tcp_reno_ssthresh(struct sock *sk);
KBPF_API __u32 tcp_reno_undo_cwnd(struct sock *sk);

/* tcp_cubic.c */
KBPF_API void cubictcp_init(struct sock *sk);
KBPF_API __u32 cubictcp_recalc_ssthresh(struct sock *sk);
KBPF_API void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked);
KBPF_API void cubictcp_state(struct sock *sk, __u8 new_state);
KBPF_API void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event);
KBPF_API void cubictcp_acked(struct sock *sk, const struct ack_sample *sample);

/* tcp_dctcp.c */
KBPF_API void dctcp_init(struct sock *sk);
KBPF_API void dctcp_update_alpha(struct sock *sk, __u32 flags);
KBPF_API void dctcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev);
KBPF_API __u32 dctcp_ssthresh(struct sock *sk);
KBPF_API __u32 dctcp_cwnd_undo(struct sock *sk);
KBPF_API void dctcp_state(struct sock *sk, __u8 new_state);

/* tcp_bbr.c */
KBPF_API void bbr_init(struct sock *sk);
KBPF_API void bbr_main(struct sock *sk, const struct rate_sample *rs);
KBPF_API __u32 bbr_sndbuf_expand(struct sock *sk);
KBPF_API __u32 bbr_undo_cwnd(struct sock *sk);
KBPF_API void bbr_cwnd_event(struct sock *sk, enum tcp_ca_event event);
KBPF_API __u32 bbr_ssthresh(struct sock *sk);
KBPF_API __u32 bbr_min_tso_segs(struct sock *sk);
KBPF_API void bbr_set_state(struct sock *sk, __u8 new_state);

/* BBR's mode (0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT) and, if full_bw_reached is not
 * NULL, whether it found the pipe full: for tests and traces of a socket running bbr. */
KBPF_API __u32 kbpf_tcp_bbr_mode(const struct sock *sk, bool *full_bw_reached);

/* The native ops tables. */
extern KBPF_API const struct tcp_congestion_ops kbpf_tcp_reno;
extern KBPF_API const struct tcp_congestion_ops kbpf_tcp_cubic;
extern KBPF_API const struct tcp_congestion_ops kbpf_tcp_dctcp;
extern KBPF_API const struct tcp_congestion_ops kbpf_tcp_dctcp_reno;
extern KBPF_API const struct tcp_congestion_ops kbpf_tcp_bbr;

/* The native CC called name ("reno", "cubic", "dctcp", "bbr"), or NULL. */
KBPF_API const struct tcp_congestion_ops *kbpf_tcp_cc_find(const char *name);
/* The i-th native CC (0-based), or NULL past the end: for listing them. */
KBPF_API const struct tcp_congestion_ops *kbpf_tcp_cc_get(unsigned int i);

/* Checks Linux's registration rules (tcp_register_congestion_control, bpf_tcp_ca_init_member):
 * ssthresh, undo_cwnd, cong_avoid or cong_control present, a non-empty NUL-terminated name,
 * flags ⊆ TCP_CONG_MASK. Returns 0 or -EINVAL. */
KBPF_API int kbpf_tcp_cc_validate(const struct tcp_congestion_ops *ops);

/* tcp_set_ca_state: set_state(new) with the old state still visible, then the assignment. */
KBPF_API void kbpf_tcp_set_ca_state(struct sock *sk, __u8 ca_state);
/* tcp_ca_event: cwnd_event if the ops have one. */
KBPF_API void kbpf_tcp_ca_event(struct sock *sk, enum tcp_ca_event event);
/* A uniformly distributed value in [0, ceil) from the socket's seeded generator
 * (prandom_u32_max). */
KBPF_API __u32 kbpf_tcp_prandom_u32_max(struct sock *sk, __u32 ceil);

#ifdef __cplusplus
}
#endif
#endif
