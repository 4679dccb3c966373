/* SPDX-License-Identifier: Apache-2.0 */
/* The test host's functions (tests/host/test_host.h): small, deterministic, callable as
 * kfuncs. Linked into kbpf-test-host and into any test that wants to call them natively;
 * their BTF comes from the binary that links them (kbpf_add_host_btf). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "test_host.h"

static struct th_flow pool[TH_POOL_SIZE] = {
	{ .id = 0, .cwnd = 10, .ssthresh = 100, .srtt_us = 1000, .state = TH_STATE_OPEN, .name = "flow0" },
	{ .id = 1, .cwnd = 20, .ssthresh = 200, .srtt_us = 2000, .state = TH_STATE_RECOVERY, .name = "flow1" },
	{ .id = 2, .cwnd = 30, .ssthresh = 300, .srtt_us = 3000, .state = TH_STATE_LOSS, .name = "flow2" },
	{ .id = 3, .cwnd = 40, .ssthresh = 400, .srtt_us = 4000, .state = TH_STATE_INIT, .name = "flow3" },
};

int th_add(int a, int b)
{
	return a + b;
}

u32 th_mix(u8 a, s16 b, u32 c)
{
	/* b is sign-extended: th_mix(1, -1, 0) is 0, not 0x10000 */
	return (u32)a + (u32)(s32)b + c;
}

u64 th_sum5(u64 a, u64 b, u64 c, u64 d, u64 e)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e; /* weights: argument order matters */
}

s64 th_negate(s64 v)
{
	return -v;
}

u32 th_flow_cwnd(const struct th_flow *flow)
{
	return flow->cwnd;
}

void th_flow_set_cwnd(struct th_flow *flow, u32 cwnd)
{
	flow->cwnd = cwnd;
}

struct th_flow *th_flow_acquire(u64 id)
{
	if (id >= TH_POOL_SIZE)
		return NULL;
	pool[id].refcnt++;
	return &pool[id];
}

void th_flow_release(struct th_flow *flow)
{
	if (flow && flow->refcnt)
		flow->refcnt--;
}

int th_state_is_open(enum th_state state)
{
	return state == TH_STATE_OPEN;
}

void th_noop(void)
{
}

void th_ctx_init(struct th_ctx *ctx, struct th_flow *flow, struct th_conn *conn)
{
	*ctx = (struct th_ctx){
		.flow = flow,
		.conn = conn,
		.stats = { .packets = 7, .bytes = 1500, .peer = { .v4 = 0x0a000001 } },
		.big = TH_BIG_LARGE,
		.sgn = TH_NEG,
	};
}

double th_scale(double x, int factor)
{
	return x * factor;
}

int th_log(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}
