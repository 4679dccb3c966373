/* SPDX-License-Identifier: Apache-2.0 */
/* A deterministic discrete-event TCP simulator for congestion-control modules
 * (docs/tcp-sim.md). Flows share one bottleneck link; each flow is a Linux-like sender
 * and receiver (struct tcp_sock, kbpf/tcp.h) whose congestion control is reached only
 * through its struct tcp_congestion_ops, exactly where Linux calls it. The same seed gives
 * the same run, event for event. */
#ifndef KBPF_TCP_SIM_H
#define KBPF_TCP_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/export.h>
#include <kbpf/tcp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_tcp_sim;

struct kbpf_tcp_sim_opts {
	size_t sz; /* sizeof(struct kbpf_tcp_sim_opts) */
	uint64_t rate_bps; /* bottleneck rate, bit/s of wire bytes (default 20 Mbit/s) */
	uint32_t delay_us; /* one-way propagation delay each way (default 20 ms: 40 ms RTT) */
	uint32_t queue_pkts; /* drop-tail limit in packets (default: one BDP, at least 16) */
	double loss; /* probability that a data packet is dropped before the queue (0..1) */
	uint32_t ecn_threshold_pkts; /* mark ECT packets CE when this many are queued; 0 = off */
	uint32_t mtu; /* bytes on the wire per full segment, headers included (default 1500) */
	uint64_t seed;
	/* Reordering (docs/tcp-sim.md "Reordering"): each data packet that leaves the queue is,
	 * with probability reorder (0..1, drawn from the seeded generator only when nonzero),
	 * delayed reorder_delay_us more (0: three full packets' serialization time at the
	 * link rate), so later packets overtake it. Fields after seed: callers built before
	 * them pass a smaller sz and get no reordering. */
	double reorder;
	uint32_t reorder_delay_us;
	/* Ignored: the struct's tail padding before jitter_ns came. Callers built before it
	 * pass this struct's size then (a multiple of 8, 64) with whatever their padding held
	 * here; a field placed here would have read it. */
	uint32_t unused_pad;
	/* Timing noise of the path (docs/tcp-sim.md "Jitter"): each data packet reaches its
	 * receiver, and each ACK its sender, a uniform random 0..jitter_ns later than the
	 * exact arithmetic gives (a generator of its own, seeded from seed, so the loss and
	 * reordering draws stay as they were), never ahead of the packet before it on the same
	 * path. Real hosts and links never time two events to the nanosecond; the exact model
	 * does, and flows can lock into one phase against the bottleneck (TSO bursts meeting
	 * departures to the nanosecond, round after round). 0 (the default): exact timing. At
	 * most 10 ms. Callers built before this field pass a smaller sz and get none. */
	uint32_t jitter_ns;
};

struct kbpf_tcp_flow_opts {
	size_t sz; /* sizeof(struct kbpf_tcp_flow_opts) */
	uint64_t start_us; /* when the connection opens */
	uint64_t bytes; /* application data to send; 0 = unlimited (bulk) */
	int tcp_ecn; /* sysctl net.ipv4.tcp_ecn of both ends: 0, 1 or 2 (Linux's default 2) */
	int tcp_ecn_set; /* nonzero: tcp_ecn above is meant (else Linux's default) */
	/* The receiver's CC (it decides whether an ECT SYN gets ECN: Linux's listener accepts
	 * one only with a NEEDS_ECN CC); NULL: the flow's. Must outlive the simulator. */
	const struct tcp_congestion_ops *peer_ops;
	/* Nonzero: the sender segments as Linux's with TSO/GSO (docs/tcp-sim.md "TSO"): new data
	 * leaves in bursts of tcp_tso_autosize segments (pacing rate >> 10, min_tso_segs), at
	 * most half of cwnd each, held back by tcp_tso_should_defer, paced per burst. 0: one
	 * segment at a time (the default). */
	int tso;
	/* net.ipv4.tcp_min_tso_segs for CCs without min_tso_segs (0: Linux's default 2). */
	uint32_t min_tso_segs;
	/* Nonzero: the receiver compresses SACKs as Linux's (net.ipv4.tcp_comp_sack_nr 44):
	 * after 3 immediate dupACKs per rcv_nxt, out-of-order data is ACKed once per
	 * min(1 ms, RTT/20) or 44 segments, the held ACK carrying the block list as it then is
	 * (with sack_ideal: one block covering what arrived). 0: every out-of-order segment is
	 * ACKed at once (the default). */
	int sack_compress;
	/* 0 (the default): SACK as on the wire (docs/tcp-sim.md "SACK on the wire"): the
	 * receiver keeps Linux's block list (most recent first, merged, at most 4) and each ACK
	 * carries at most 3 blocks (timestamps take the rest of the option space), a D-SACK
	 * first; the sender's scoreboard learns only what the blocks say and recognises a
	 * D-SACK as Linux's tcp_check_dsack does. Nonzero: the earlier idealised model, where
	 * each ACK reports only the segment (or compressed run) that triggered it. */
	int sack_ideal;
	/* GRO at the receiver: up to gro segments that arrive back to back within gro_window_us
	 * (0: 100 µs) of the first are merged into one skb and ACKed as one (stretch ACKs);
	 * at most KBPF_TCP_SIM_MAX_GRO_SEGS. 0 or 1: off. Overrides sack_ideal. */
	uint32_t gro;
	uint32_t gro_window_us;
	/* Nonzero: the sender's egress has Linux's sch_fq (tc qdisc … fq, its defaults;
	 * docs/tcp-sim.md "fq"): the socket's pacing status becomes SK_PACING_FQ, so every
	 * CC is paced (cubic, reno, dctcp at 200 %/120 % of cwnd/SRTT) by the departure time
	 * TCP stamps on each packet, which fq enforces; TCP small queues limit what waits in
	 * fq. 0: no qdisc in the way, only CCs that ask for pacing are paced (the default). */
	int fq;
};

/* The largest GRO aggregate, in segments (gro_max_size 64 KB holds 45 of 1448 bytes). */
#define KBPF_TCP_SIM_MAX_GRO_SEGS 64

/* One point per ACK the sender processes, after the CC ran. */
struct kbpf_tcp_trace_point {
	uint64_t time_us; /* since the start of the simulation */
	uint32_t flow;
	uint32_t cwnd;
	uint32_t ssthresh;
	uint32_t srtt_us; /* smoothed RTT (srtt_us >> 3) */
	uint64_t pacing_rate; /* sk_pacing_rate, bytes/s */
	uint32_t inflight; /* tcp_packets_in_flight */
	uint32_t queue_pkts; /* bottleneck queue now */
	uint32_t delivered;
	uint32_t lost;
	uint32_t retrans; /* total retransmissions so far */
	uint8_t ca_state;
};

typedef void (*kbpf_tcp_trace_fn)(const struct kbpf_tcp_trace_point *pt, void *ctx);

struct kbpf_tcp_flow_stats {
	uint64_t bytes_acked; /* payload cumulatively ACKed */
	uint64_t goodput_bps; /* bytes_acked × 8 over the time the flow was open */
	uint64_t segs_sent; /* data segments transmitted, retransmissions included */
	uint64_t retransmits;
	uint64_t rtos;
	uint64_t lost; /* tp->lost */
	uint64_t delivered_ce;
	uint64_t completion_us; /* when all of opts.bytes were ACKed; 0 if not (or bulk) */
	uint32_t cwnd, ssthresh, srtt_us, min_rtt_us;
	uint8_t ecn_ok; /* ECN was negotiated */
	char cc[TCP_CA_NAME_MAX]; /* the ops' name at the end (dctcp may become dctcp-reno) */
	uint64_t acks; /* ACKs that reached the sender */
	uint64_t acks_old; /* of which cumulatively below snd_una (reordered or stale) */
	uint64_t dsack_segs; /* segments reported by D-SACKs the sender accepted (spurious retransmissions) */
	uint32_t reordering; /* tp->reordering at the end (3 until reordering is seen) */
	uint32_t reord_seen; /* tp->reord_seen: how often the sender saw reordering */
	uint32_t reo_wnd_steps; /* RACK's reorder window in min_rtt/4 steps at the end */
	uint64_t recoveries; /* entries into Recovery (tcp_enter_recovery: Linux's TcpExtTCPSackRecovery) */
};

struct kbpf_tcp_sim_stats {
	uint64_t now_us; /* simulated time reached */
	uint64_t events;
	uint64_t pkts_enqueued, drops_queue, drops_random, ce_marks;
	/* queue length in packets seen by arriving data packets */
	uint32_t queue_p50, queue_p95, queue_p99, queue_max;
	uint32_t queue_limit; /* the drop-tail limit in effect (packets) */
	double jain; /* Jain's fairness index of the flows' goodputs (1 = fair) */
	uint64_t pkts_reordered; /* data packets delayed by opts.reorder */
};

/* Create a simulator. opts may be NULL (all defaults). Returns 0 or -EINVAL/-ENOMEM. */
KBPF_API int kbpf_tcp_sim_create(const struct kbpf_tcp_sim_opts *opts, struct kbpf_tcp_sim **out);
KBPF_API void kbpf_tcp_sim_free(struct kbpf_tcp_sim *sim);

/* The most flows one simulator takes. */
#define KBPF_TCP_SIM_MAX_FLOWS 16384

/* Add a flow whose sender and receiver run ops (Linux runs one CC per end; the receiver's
 * matters for ECN). ops must pass kbpf_tcp_cc_validate and outlive the simulator.
 * opts may be NULL. *id (if not NULL) gets the flow's index. Returns 0 or a negative errno
 * (-ENOSPC past KBPF_TCP_SIM_MAX_FLOWS). */
KBPF_API int kbpf_tcp_sim_add_flow(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops,
			  const struct kbpf_tcp_flow_opts *opts, unsigned int *id);

/* Call fn after every ACK the senders process. */
KBPF_API void kbpf_tcp_sim_set_trace(struct kbpf_tcp_sim *sim, kbpf_tcp_trace_fn fn, void *ctx);

/* The bottleneck's queue length at one instant: packets waiting or being serialized. */
typedef void (*kbpf_tcp_queue_fn)(uint64_t time_us, uint32_t queue_pkts, void *ctx);

/* Call fn with the queue every interval_us of simulated time, at the multiples of
 * interval_us after the simulation's start (from the next one on), as a link emulator
 * samples its queue; the trace's queue_pkts is the queue at ACKs, which a sparse ACK clock
 * samples late. fn NULL stops it. Returns 0 or -EINVAL (no sim, interval_us 0). */
KBPF_API int kbpf_tcp_sim_set_queue_sampler(struct kbpf_tcp_sim *sim, uint64_t interval_us, kbpf_tcp_queue_fn fn,
					    void *ctx);

/* Drop the next transmission of segment seg (0 = the first data segment) of a flow at the
 * link, for tests that need a loss at a known place; call it twice to drop the original and
 * its first retransmission. Returns 0 or -EINVAL/-ENOSPC (at most 8 pending). */
KBPF_API int kbpf_tcp_sim_drop_segment(struct kbpf_tcp_sim *sim, unsigned int flow, uint32_t seg);

/* Advance the simulation until duration_us of simulated time have passed since its start
 * (calling it again continues). Returns 0 or -ENOMEM. */
KBPF_API int kbpf_tcp_sim_run(struct kbpf_tcp_sim *sim, uint64_t duration_us);

KBPF_API int kbpf_tcp_sim_flow_stats(const struct kbpf_tcp_sim *sim, unsigned int flow, struct kbpf_tcp_flow_stats *st);
KBPF_API int kbpf_tcp_sim_stats(const struct kbpf_tcp_sim *sim, struct kbpf_tcp_sim_stats *st);
KBPF_API unsigned int kbpf_tcp_sim_flow_count(const struct kbpf_tcp_sim *sim);

/* The flow's sender socket (live: tests inspect it between runs), or NULL. */
KBPF_API struct tcp_sock *kbpf_tcp_sim_sender(struct kbpf_tcp_sim *sim, unsigned int flow);
/* The flow's receiver socket, or NULL. */
KBPF_API struct tcp_sock *kbpf_tcp_sim_receiver(struct kbpf_tcp_sim *sim, unsigned int flow);

/* BBR's model as Linux's TCP_CC_INFO reports it (struct tcp_bbr_info: bandwidth in payload
 * bytes/s, min RTT, gains in 1/256) plus its mode (0 STARTUP, 1 DRAIN, 2 PROBE_BW,
 * 3 PROBE_RTT) and ACK-aggregation allowance, for comparison with the kernel's. */
struct kbpf_tcp_bbr_info {
	uint64_t bw_Bps;
	uint32_t min_rtt_us, pacing_gain, cwnd_gain, mode;
	uint32_t extra_acked; /* packets */
};
/* The flow's sender must run the native bbr (kbpf_tcp_bbr). Returns 0, -EINVAL (no such
 * flow) or -EOPNOTSUPP (another CC). */
KBPF_API int kbpf_tcp_sim_bbr_info(struct kbpf_tcp_sim *sim, unsigned int flow, struct kbpf_tcp_bbr_info *out);

/* --- the scripted peer (docs/tcp-sim.md "Scripted peer") ---
 * Instead of the simulated receiver and link, a script drives one sender the way
 * packetdrill does: handshake options and sysctl-like knobs, application writes, the
 * peer's ACKs at given times (cumulative, SACK blocks, ECE), idle gaps, and assertions on
 * the sender's state ("expect cwnd=20 ssthresh=inf"). Timers (RTO, TLP, pacing, RACK)
 * run between the script's events. */

/* One message: a failed assertion "NAME:LINE: FIELD: expected X, got Y", or why the
 * script cannot run "NAME:LINE: …". */
typedef void (*kbpf_tcp_script_report_fn)(const char *msg, void *ctx);

struct kbpf_tcp_script_opts {
	size_t sz; /* sizeof(struct kbpf_tcp_script_opts) */
	const char *name; /* the script's name in messages (e.g. its file); NULL: "script" */
	int keep_going; /* nonzero: check every assertion, else stop at the first failure */
	kbpf_tcp_script_report_fn report;
	void *report_ctx;
	kbpf_tcp_trace_fn trace; /* after every ACK the sender processes (flow 0) */
	void *trace_ctx;
};

struct kbpf_tcp_script_result {
	unsigned int lines; /* script lines run */
	unsigned int acks; /* ACKs the peer sent */
	unsigned int checks; /* assertions evaluated */
	unsigned int failed; /* of which failed */
};

/* Run script text (NUL-terminated) against a sender with congestion control ops (native,
 * or a BPF CC: it is registered by name in the run's simulation). Returns 0 when the
 * script ran to its end or stopped at a failed assertion (res->failed says which), -EINVAL
 * when it has a syntax error or asks for what the model does not do (reported with the
 * line), -ENOMEM. res may be NULL. */
KBPF_API int kbpf_tcp_script_run(const char *text, const struct tcp_congestion_ops *ops,
			const struct kbpf_tcp_script_opts *opts, struct kbpf_tcp_script_result *res);

#ifdef __cplusplus
}
#endif
#endif
