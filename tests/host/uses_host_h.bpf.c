/* SPDX-License-Identifier: Apache-2.0 */
/* A BPF program written against the test host's types the way Linux programs are
 * written against vmlinux.h: host.h is `kbpf btf dump --host kbpf-test-host --format c`.
 * tests/host/dump_compiles.sh compiles it (it is not run here): that the dump, together
 * with libbpf's headers, makes a valid translation unit for clang -target bpf — CO-RE
 * reads, flavours, bitfields, enum value relocations, kfunc externs. */
#include "host.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* The old layout of struct th_conn, matched to the host's by CO-RE flavour rules. */
struct th_conn___old {
	u32 rtt;
	u32 lost;
} __attribute__((preserve_access_index));

extern u32 th_mix(u8 a, s16 b, u32 c) __ksym;
extern struct th_flow *th_flow_acquire(u64 id) __ksym;
extern void th_flow_release(struct th_flow *flow) __ksym;

SEC("tc")
int read_host(struct th_ctx *ctx)
{
	struct th_flow *flow = ctx->flow; /* preserve_access_index from the header's pragma */
	struct th_conn *conn = ctx->conn;
	u64 r = 0;

	r += BPF_CORE_READ(flow, cwnd) + BPF_CORE_READ(flow, ssthresh);
	r += BPF_CORE_READ_BITFIELD_PROBED(flow, ecn);
	r += BPF_CORE_READ_BITFIELD(flow, delta);
	if (bpf_core_field_exists(conn->rtt_us))
		r += BPF_CORE_READ(conn, rtt_us);
	else
		r += BPF_CORE_READ((struct th_conn___old *)conn, rtt);
	if (bpf_core_enum_value_exists(enum th_state, TH_STATE_LOSS))
		r += bpf_core_enum_value(enum th_state, TH_STATE_LOSS);
	r += bpf_core_type_size(struct th_flow);
	r += ctx->stats.peer.v4 + ctx->big;

	struct th_flow *f = th_flow_acquire(2);
	if (f) {
		r += th_mix(1, -1, f->cwnd);
		th_flow_release(f);
	}
	return r;
}

char _license[] SEC("license") = "GPL";
