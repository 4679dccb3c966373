/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE against the test host (tests/host/test_host.h): the program declares the host's
 * structs as it believes them to be (an older layout, preserve_access_index); load
 * relocates every access to the host's real layout, read from the host's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;

/* the program's belief; the host has other values, one missing, one extra */
enum th_state { TH_STATE_OPEN = 1, TH_STATE_RECOVERY = 2, TH_STATE_LOSS = 3, TH_STATE_CLOSED = 4 };

/* the host's th_flow has extra fields, another order, srtt renamed srtt_us */
struct th_flow {
	u32 cwnd;
	u32 ssthresh;
	u32 srtt;
	u64 bytes_acked;
	u8 ecn : 2, sack : 1;
	enum th_state state;
} __attribute__((preserve_access_index));

/* flavours: the host has the new layout */
struct th_conn___old {
	u32 rtt;
	u32 lost;
} __attribute__((preserve_access_index));

struct th_conn___new {
	u32 rtt_us;
	u32 lost;
	u32 retrans;
} __attribute__((preserve_access_index));

struct th_ctx {
	struct th_flow *flow;
	void *conn;
} __attribute__((preserve_access_index));

/* cwnd + ssthresh + bytes_acked, read at the host's offsets */
SEC("tc")
int read_flow(struct th_ctx *ctx)
{
	struct th_flow *f = ctx->flow;

	return f->cwnd + f->ssthresh + (u32)f->bytes_acked;
}

/* field and enum relocations: which exist, with what values */
SEC("tc")
int probe_fields(struct th_ctx *ctx)
{
	int r = 0;

	if (bpf_core_field_exists(ctx->flow->srtt))
		r += 1;    /* not in the host: renamed */
	if (bpf_core_field_exists(ctx->flow->cwnd))
		r += 10;
	if (bpf_core_enum_value_exists(enum th_state, TH_STATE_CLOSED))
		r += 100;  /* not in the host */
	r += bpf_core_enum_value(enum th_state, TH_STATE_RECOVERY) * 1000; /* host: 5 */
	return r;
}

/* bitfields at the host's bit positions */
SEC("tc")
int read_bits(struct th_ctx *ctx)
{
	struct th_flow *f = ctx->flow;

	return BPF_CORE_READ_BITFIELD(f, ecn) * 10 + BPF_CORE_READ_BITFIELD(f, sack);
}

/* flavours: the layout the host has decides which branch runs */
SEC("tc")
int conn_rtt(struct th_ctx *ctx)
{
	void *conn = ctx->conn;

	struct th_conn___new *n = conn;

	if (bpf_core_field_exists(n->retrans))
		return n->rtt_us + n->retrans;
	struct th_conn___old *c = conn;
	return c->rtt + 1000000;
}

/* reaching a relocation that could not be resolved: poisoned (a run-time stop) */
SEC("?tc")
int reads_missing(struct th_ctx *ctx)
{
	return ctx->flow->srtt;
}

char LICENSE[] SEC("license") = "GPL";
