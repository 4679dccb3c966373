/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's internals, shared by the sim_*.c files. */
#ifndef KBPF_TCP_SIM_INTERNAL_H
#define KBPF_TCP_SIM_INTERNAL_H

#include <kbpf/tcp.h>
#include <kbpf/tcp_sim.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define USEC_PER_SEC 1000000ULL
/* Simulated time starts here (ns), so that no clock reads 0 ("unset" in places). */
#define SIM_T0_NS NSEC_PER_SEC
/* Jiffies start 5 minutes before wrapping, as Linux's INITIAL_JIFFIES. */
#define SIM_JIFFIES0 ((__u32)(-300 * KBPF_TCP_HZ))
#define SIM_HDR_BYTES 52 /* IPv4 20 + TCP 20 + timestamps 12 */
#define SIM_RTO_MIN_US 200000U
#define SIM_RTO_MAX_J (120U * KBPF_TCP_HZ)
#define SIM_RTO_INIT_J (1U * KBPF_TCP_HZ)
#define SIM_DELACK_J (KBPF_TCP_HZ / 25) /* 40 ms */
#define SIM_QUICKACKS 16

/* Segment scoreboard flags. */
enum {
	SEG_SACKED = 1,
	SEG_LOST = 2,
	SEG_RETRANS = 4, /* retransmitted and that copy still out */
	SEG_EVER_RETRANS = 8,
	SEG_APP_LIMITED = 16, /* rate snapshot: sent while app-limited */
	SEG_DELIVERED = 32, /* counted in delivered (by SACK) */
};

struct sim_seg {
	__u64 xmit_us; /* EDT of the latest transmission */
	__u64 first_tx_mstamp; /* rate snapshot at that transmission */
	__u64 delivered_mstamp;
	__u32 tx_delivered;
	__u32 tx_delivered_ce;
	__u8 flags;
};

enum sim_ev_type {
	EV_FLOW_START,
	EV_DATA, /* data segment reaches the receiver (b: its TSval) */
	EV_ACK, /* ACK reaches the sender */
	EV_TIMER, /* a flow timer: a = which */
};

enum sim_timer_id {
	T_RTO,
	T_REO, /* RACK reorder timer */
	T_PACE, /* pacing hrtimer */
	T_DELACK, /* receiver's delayed ACK */
	T_COMPACK, /* receiver's compressed-SACK hrtimer */
	T_GRO, /* receiver's GRO window closes (opts.gro) */
	T_FQ, /* sch_fq's watchdog (opts.fq) */
	T_NR,
};

struct sim_event {
	__u64 t; /* ns */
	__u64 order; /* FIFO among equal times: determinism */
	__u32 flow;
	__u32 a; /* EV_DATA: segment index; EV_ACK: ack segment index; EV_TIMER: timer id */
	__u32 b; /* EV_DATA: TSval (ms); EV_ACK: SACKed segment index + 1 (0 = none), or with
		  * wire SACK the ACK's TSecr (ms) */
	__u8 type;
	__u8 flags; /* PKT_* */
};

enum {
	PKT_ECN_MASK = 3, /* data: IP ECN codepoint */
	PKT_CWR = 4,
	PKT_ECE = 8,
	PKT_DSACK = 16,
	PKT_RETRANS = 32,
	PKT_SACKBLK = 64, /* ACK (sack_ideal): its SACK block is the flow's next wsack entry */
	PKT_SACKLIST = 128, /* ACK: its SACK option is the flow's next wire_sack entry */
};

/* A SACK block: segment indexes [start, end). */
struct sim_sack_block {
	__u32 start, end;
};

/* The receiver's SACK state as Linux keeps it (struct tcp_options_received): a D-SACK to
 * report once, and up to TCP_NUM_SACKS blocks, the most recently changed first. */
#define SIM_NUM_SACKS 4
/* Blocks per ACK: 40 bytes of options less 12 of timestamps leave room for 3. */
#define SIM_WIRE_SACKS 3
struct sim_sack_list {
	struct sim_sack_block dsack;
	__u8 has_dsack;
	__u8 num;
	struct sim_sack_block blk[SIM_NUM_SACKS];
};

/* The SACK option of one ACK (f->wire_sack): D-SACK first when there is one. */
struct sim_wire_sack {
	__u8 n;
	struct sim_sack_block b[SIM_WIRE_SACKS];
};

struct sim_timer {
	__u64 due; /* ns; 0 = not armed */
	__u64 ev_at; /* time of the queued event that will look at it; 0 = none */
};

struct sim;
struct sim_fq;

struct sim_flow {
	struct sim *sim;
	unsigned int id;
	const struct tcp_congestion_ops *ops;
	const struct tcp_congestion_ops *peer_ops; /* the receiver's */
	struct kbpf_tcp_flow_opts opts;
	struct tcp_sock snd; /* the sender's socket */
	struct tcp_sock rcv; /* the receiver's socket */
	bool started, ecn_ok;
	int tcp_ecn;
	__u32 isn; /* sequence number of the SYN */
	__u32 mss;
	__u64 limit_segs; /* ~0 = unlimited */

	/* sender scoreboard: ring of segments [una_idx, nxt_idx) */
	struct sim_seg *segs;
	__u32 cap; /* power of two */
	__u32 una_idx, nxt_idx; /* modular: compare with (__s32)(a - b) */
	__u64 acked_segs; /* segments cumulatively ACKed, not wrapping with una_idx */
	__u32 lost_pending; /* LOST and not RETRANS */
	__u32 retrans_hint; /* no lost-pending segment below this index */
	__u32 high_sacked_idx; /* highest SACKed index + 1 */
	/* RACK's scan state (Linux walks a send-time-sorted list): originals below rack_hint are
	 * settled (SACKed or marked lost); outstanding retransmissions in send order. */
	__u32 rack_hint;
	struct sim_rtx {
		__u32 idx;
		__u64 xmit_us;
	} *rtxq;
	__u32 rtxq_cap, rtxq_head, rtxq_len;
	__u32 drop_segs[8];
	unsigned int nr_drop;

	struct sim_timer timers[T_NR];
	bool tlp_armed; /* T_RTO is a tail loss probe (icsk_pending = LOSS_PROBE) */
	bool tlp_retrans; /* the outstanding probe was a retransmission */
	bool frto; /* tp->frto: F-RTO (RFC 5682, SACK-enhanced) is judging the last RTO */

	/* receiver */
	__u32 rcv_idx; /* next expected segment index */
	__u8 *ooo; /* ring bitmap (bytes) of segments received above rcv_idx */
	__u32 ooo_cap;
	__u32 ooo_high; /* highest out-of-order index + 1 */
	__u32 ooo_count;
	__u32 rcv_unacked; /* full segments received since the last ACK sent */
	/* SACK compression (tcp_sack_compress, opts.sack_compress): */
	__u32 comp_rcv_idx; /* compressed_ack_rcv_nxt, as an index */
	__u32 dup_ack_counter, compressed_ack;
	__u32 comp_lo, comp_hi; /* out-of-order segments not yet reported: [lo, hi) */
	/* SACK as on the wire: the receiver's block list */
	bool wire_sack; /* !opts.sack_ideal or opts.gro > 1 */
	struct sim_sack_list rsack;
	/* the SACK options of ACKs on the reverse path (FIFO: ACKs arrive in order), for
	 * PKT_SACKLIST and PKT_SACKBLK */
	struct sim_wire_sack *wsack;
	__u32 wsack_cap, wsack_head, wsack_len;
	/* GRO (opts.gro): the aggregate being built: first index, segments, first's flags */
	__u32 gro_idx, gro_n, gro_tsval;
	__u8 gro_flags;
	/* the sender's side of wire_sack: the previous ACK's blocks (Linux's recv_sack_cache:
	 * all SACKed already, so the walk skips them) and D-SACKed segments (tp->dsack_dups) */
	struct sim_sack_block sack_cache[SIM_WIRE_SACKS];
	__u8 sack_cache_n;
	__u64 dsack_dups;
	__u64 dsack_segs; /* D-SACKed segments accepted (not dubious) */
	/* TCP timestamps: the receiver's ts_recent;
	 * the sender's TSecr of the ACK being processed (0: none) and the TSval of the first
	 * retransmission since retrans_stamp was set */
	__u32 ts_recent;
	__u32 ack_tsecr;
	__u32 retrans_tsval;
	/* with sack_ideal, whose ACK events carry a SACKed index instead, the TSecr of the
	 * ACKs on the reverse path (FIFO) */
	__u32 *tsecr_q;
	__u32 tsecr_cap, tsecr_head, tsecr_len;

	/* scripted peer (script.c): no receiver or link, the script ACKs; sysctl-like knobs */
	bool scripted;
	bool tlp_off; /* net.ipv4.tcp_early_retrans without TLP */
	bool ssai_off; /* net.ipv4.tcp_slow_start_after_idle = 0 */
	__u32 init_cwnd; /* the route's initcwnd; 0 = TCP_INIT_CWND */
	__u64 script_sent; /* transmissions handed to the scripted peer */

	/* TSO (opts.tso): the burst being sent: its size and how many of it went out */
	__u32 tso_burst, tso_pos;

	/* sch_fq on the sender's egress (opts.fq, sim_fq.c), or NULL */
	struct sim_fq *fq;

	/* stats */
	__u64 start_ns, done_ns;
	__u64 rtos, segs_sent;
	__u64 recoveries; /* tcp_enter_recovery calls (TcpExtTCPSackRecovery) */
	__u64 acks, acks_old;
};

struct sim {
	struct kbpf_tcp_sim_opts o;
	__u64 now; /* ns */
	__u64 rng;
	__u64 jitter_rng; /* opts.jitter_ns's own generator */
	__u64 jitter_last[2]; /* the last jittered arrival of data [0] and ACKs [1] */
	__u64 order;
	struct sim_event *heap; /* timers and flow starts */
	size_t nr_ev, cap_ev;
	/* Data packets leave the bottleneck in order and ACKs return after a fixed delay, so
	 * each kind is queued in time order already: FIFOs instead of the heap. */
	struct sim_fifo {
		struct sim_event *v;
		__u32 cap, head, len; /* cap: a power of two */
	} fifo[2];
	struct sim_flow **flows;
	unsigned int nr_flows;
	/* CCs registered by name beside the native ones (BPF CCs: kbpf_tcp_sim_register_cc) */
	const struct tcp_congestion_ops **ccs;
	unsigned int nr_ccs;
	kbpf_tcp_trace_fn trace;
	void *trace_ctx;
	int oom;

	/* bottleneck: departure times of queued packets (ring) */
	__u64 link_free; /* ns: when the link finishes the last queued packet */
	__u64 *q;
	__u32 q_cap, q_head, q_len;
	__u64 *q_hist; /* [queue_pkts + 1] */
	/* kbpf_tcp_sim_set_queue_sampler: the queue every q_sample_ns from q_sample_next on */
	kbpf_tcp_queue_fn q_sample;
	void *q_sample_ctx;
	__u64 q_sample_ns, q_sample_next;
	struct kbpf_tcp_sim_stats st;
	/* tests: called for every data packet handed to the bottleneck (or a scripted peer),
	 * before any drop (NULL: none) */
	void (*link_tap)(struct sim *s, struct sim_flow *f, __u32 idx);
	void *link_tap_ctx;
	/* tests: extra time (ns) a data packet that passed the queue takes to reach the
	 * receiver, departing at depart_ns with the one-way delay (NULL: none) */
	__u64 (*link_delay)(struct sim *s, struct sim_flow *f, __u32 idx, __u64 depart_ns);
};

/* sim_core.c */
void sim_push(struct sim *s, __u64 t, __u8 type, __u32 flow, __u32 a, __u32 b, __u8 flags);
/* The same, always through the heap: an event out of its kind's time order (a data packet
 * held back by opts.reorder), which would send every later one to the heap. */
void sim_push_heap(struct sim *s, __u64 t, __u8 type, __u32 flow, __u32 a, __u32 b, __u8 flags);
void sim_timer_arm(struct sim_flow *f, enum sim_timer_id id, __u64 due);
void sim_timer_cancel(struct sim_flow *f, enum sim_timer_id id);
__u64 sim_rand(struct sim *s);
/* Arrival time t of a data packet (ack = false) or an ACK with opts.jitter_ns's noise
 * added, in order behind the previous one of its kind; t itself without jitter. */
__u64 sim_jitter(struct sim *s, bool ack, __u64 t);
/* a × b / c, exact (128-bit product) and saturating at 2^64 - 1; c > 0. */
__u64 sim_muldiv(__u64 a, __u64 b, __u64 c);
__u64 sim_muldiv_longdiv(__u64 a, __u64 b, __u64 c); /* the same without __int128 */
/* Jiffies at time t (ns), and the time jiffy j begins. */
__u32 sim_jiffies(__u64 t);
__u64 sim_jiffy_time(__u32 j);
/* When a timer-wheel timer armed at jiffy now_j for jiffy due_j runs (never early). */
__u64 sim_wheel_time(__u32 now_j, __u32 due_j);
/* Set both sockets' clocks to now (tcp_mstamp, clock cache, jiffies). */
void sim_flow_clock(struct sim_flow *f);

/* sim_link.c */
/* A data packet enters the bottleneck now; schedules its arrival (or drops it). */
void sim_link_send(struct sim *s, struct sim_flow *f, __u32 idx, __u8 flags);
__u32 sim_link_queue(struct sim *s);
void sim_link_sample(struct sim *s, bool through_now);

/* sim_sender.c */
void sim_sender_start(struct sim_flow *f);
/* The connection is established now, rtt_ns after the SYN (the handshake's RTT sample). */
void sim_sender_establish(struct sim_flow *f, __u64 rtt_ns);
void sim_sender_ack(struct sim_flow *f, __u32 ack_idx, __u32 sack_plus1, __u8 flags);
/* tcp_ack with any number of SACK blocks (with PKT_DSACK, blk[0] is the D-SACK). */
void sim_sender_ack_blocks(struct sim_flow *f, __u32 ack_idx, const struct sim_sack_block *blk, unsigned int nblk,
			   __u8 flags);
void sim_sender_xmit(struct sim_flow *f);
/* tcp_tso_should_defer for an skb of skb_segs new segments (sim_sender.c; tests call it) */
bool sim_tso_should_defer(struct sim_flow *f, __u32 skb_segs, __u32 max_segs, bool is_tail, bool *cwnd_limited);
void sim_sender_rto(struct sim_flow *f);
void sim_sender_trace(struct sim_flow *f);
struct sim_seg *sim_seg(struct sim_flow *f, __u32 idx);
__u32 sim_seq(const struct sim_flow *f, __u32 idx);

/* sim_fq.c: Linux 6.12's sch_fq on the sender's egress as one flow meets it, and TCP small
 * queues (docs/tcp-sim.md "fq") */
int sim_fq_create(struct sim_flow *f);
void sim_fq_free(struct sim_flow *f);
/* fq_enqueue's drops (horizon, flow_plimit) for an skb stamped tstamp (ns; 0: no EDT):
 * false if fq would drop it (skb_head: the first segment of its skb). */
bool sim_fq_admit(struct sim_flow *f, __u64 tstamp, bool skb_head);
/* A segment enters fq now (after sim_fq_admit); fq releases it to the link. */
void sim_fq_enqueue(struct sim_flow *f, __u32 idx, __u8 flags, __u64 tstamp, bool skb_head);
/* tcp_small_queue_check for an skb of segs segments (factor 1: a retransmission): true if
 * TCP must wait for fq to release a packet. */
bool sim_fq_tsq_throttled(struct sim_flow *f, __u32 segs, unsigned int factor);
/* The watchdog (T_FQ) fired. */
void sim_fq_watchdog(struct sim_flow *f);
/* skb_still_in_host_queue: segment idx still waits in fq (a retransmission of it is not
 * sent; TCP writes again when fq releases a packet). */
bool sim_fq_still_queued(struct sim_flow *f, __u32 idx);
/* fq's counters (tests) */
struct sim_fq_stats {
	__u64 enqueued, throttled, horizon_drops, plimit_drops, tsq_throttled;
	__u64 rtx_host_queue; /* retransmissions refused: the original still in fq */
	__u32 qlen, max_qlen; /* segments queued now, at most */
};
void sim_fq_stats(const struct sim_flow *f, struct sim_fq_stats *st);

/* sim_recovery.c */
struct sim_ack_state {
	int flag;
	__u32 prior_snd_una, prior_delivered, prior_lost, prior_in_flight;
	__u32 newly_lost;
	bool ece;
	bool rexmit_new; /* out: F-RTO sends new data before any retransmission (REXMIT_NEW) */
};
/* A retransmission of idx was sent: RACK must watch it. */
void sim_rack_rtx_sent(struct sim_flow *f, __u32 idx, __u64 xmit_us);
void sim_rack_advance(struct sim_flow *f, const struct sim_seg *seg, __u32 idx);
void sim_rack_detect(struct sim_flow *f);
void sim_rack_reo_timeout(struct sim_flow *f);
void sim_mark_lost(struct sim_flow *f, __u32 idx);
void sim_fastretrans_alert(struct sim_flow *f, struct sim_ack_state *as);
void sim_cwnd_reduction(struct sim_flow *f, int newly_acked_sacked, int newly_lost, int flag);
void sim_enter_loss(struct sim_flow *f);
void sim_enter_cwr(struct sim_flow *f); /* tcp_enter_cwr */
void sim_process_tlp_ack(struct sim_flow *f, __u32 ack_seq, int flag);
__u32 sim_current_ssthresh(const struct tcp_sock *tp);
/* tcp_check_sack_reordering: segment low_idx, never retransmitted, was delivered after
 * higher ones. */
void sim_check_sack_reordering(struct sim_flow *f, __u32 low_idx);
/* Room for one more element in a power-of-two ring v (*cap elements of size bytes, len of
 * them from *head): v itself, or v grown (doubled, from 64; copied unrolled from index 0,
 * the old one freed, *cap and *head updated), or NULL when out of memory (v kept, s->oom
 * set). Every ring of the simulator grows through it. */
void *sim_ring_reserve(struct sim *s, void *v, size_t size, __u32 *cap, __u32 *head, __u32 len);
/* tcp_rack_update_reo_wnd, after the ACK's rate sample (rs.prior_delivered). */
void sim_rack_update_reo_wnd(struct sim_flow *f, __u32 prior_delivered);

/* tcp_tsopt_ecr_before: the ACK being processed echoes a timestamp older than tsval (ms).
 * Only ACKs over the wire-SACK path carry a TSecr (f->ack_tsecr 0: none). */
static inline bool sim_tsecr_before(const struct sim_flow *f, __u32 tsval)
{
	return f->ack_tsecr && (__s32)(f->ack_tsecr - tsval) < 0;
}

/* sim_rtt.c */
void sim_rtt_update(struct sim_flow *f, long seq_rtt_us, long ca_rtt_us);
void sim_update_pacing_rate(struct tcp_sock *tp);

/* sim_rate.c */
void sim_rate_skb_sent(struct sim_flow *f, struct sim_seg *seg);
void sim_rate_skb_delivered(struct sim_flow *f, struct sim_seg *seg, __u32 idx, struct rate_sample *rs,
			    __u64 *best_xmit, __u32 *best_idx);
void sim_rate_gen(struct sim_flow *f, __u32 delivered, __u32 lost, struct rate_sample *rs);

/* sim_receiver.c */
/* A data segment arrives; tsval: the TCP timestamp it carries. */
void sim_receiver_data(struct sim_flow *f, __u32 idx, __u32 tsval, __u8 flags);
void sim_receiver_delack(struct sim_flow *f);
void sim_receiver_compack(struct sim_flow *f);
void sim_receiver_send_ack_hook(struct sock *sk, __u32 rcv_nxt);
/* One skb of n segments from idx (a GRO aggregate, or one segment), with f->wire_sack. */
void sim_receiver_skb(struct sim_flow *f, __u32 idx, __u32 n, __u8 flags);

/* sim_gro.c: GRO at the receiver (opts.gro) */
void sim_gro_receive(struct sim_flow *f, __u32 idx, __u32 tsval, __u8 flags);
void sim_gro_flush(struct sim_flow *f);

/* sim_sack.c: SACK blocks as Linux's receiver builds them (tcp_input.c) and sends them
 * (tcp_output.c), in segment indexes compared modulo 2^32 */
bool sim_sack_extend(struct sim_sack_block *b, __u32 start, __u32 end);
/* tcp_sack_new_ofo_skb: [start, end) arrived out of order. kick (may be NULL) is
 * tcp_sack_compress_send_ack, called where Linux calls it. */
void sim_sack_new_ofo(struct sim_sack_list *l, __u32 start, __u32 end, void (*kick)(void *), void *ctx);
/* tcp_sack_remove: rcv_nxt advanced to rcv_idx; ofo_empty: nothing is held above it. */
void sim_sack_remove(struct sim_sack_list *l, __u32 rcv_idx, bool ofo_empty);
void sim_dsack_set(struct sim_sack_list *l, __u32 start, __u32 end);
void sim_dsack_extend(struct sim_sack_list *l, __u32 start, __u32 end);
/* The SACK option of the next ACK (tcp_established_options + tcp_options_write): the
 * D-SACK, then the blocks, at most SIM_WIRE_SACKS; the D-SACK is sent once. */
void sim_sack_wire(struct sim_sack_list *l, struct sim_wire_sack *w);
/* tcp_check_dsack's test: is the first block a D-SACK (below the ACK, or inside the
 * second block)? */
bool sim_sack_is_dsack(const struct sim_sack_block *b, unsigned int n, __u32 ack_idx);
/* The reverse path's FIFO of SACK options (ACKs arrive in the order they were sent). */
bool sim_wire_sack_push(struct sim_flow *f, const struct sim_wire_sack *w);
void sim_wire_sack_pop(struct sim_flow *f, struct sim_wire_sack *w);

/* Flags of one ACK's processing (Linux's FLAG_*). */
enum {
	FLAG_DATA_ACKED = 0x04, /* new data cumulatively ACKed */
	FLAG_RETRANS_DATA_ACKED = 0x08,
	FLAG_WIN_UPDATE = 0x02,
	FLAG_SYN_ACKED = 0x10,
	FLAG_DATA_SACKED = 0x20,
	FLAG_ECE = 0x40,
	FLAG_LOST_RETRANS = 0x80,
	FLAG_SLOWPATH = 0x100,
	FLAG_ORIG_SACK_ACKED = 0x200, /* never-retransmitted data up to high_seq (S)ACKed */
	FLAG_SND_UNA_ADVANCED = 0x400,
	FLAG_DSACKING_ACK = 0x800,
	FLAG_SET_XMIT_TIMER = 0x1000,
	FLAG_DSACK_TLP = 0x20000, /* the D-SACK is of one segment ending at tlp_high_seq */
	FLAG_ACKED = FLAG_DATA_ACKED | FLAG_SYN_ACKED,
	FLAG_NOT_DUP = 0x01 | FLAG_WIN_UPDATE | FLAG_ACKED,
	FLAG_CA_ALERT = FLAG_DATA_SACKED | FLAG_ECE | FLAG_DSACKING_ACK,
	FLAG_FORWARD_PROGRESS = FLAG_ACKED | FLAG_DATA_SACKED,
};

#endif
