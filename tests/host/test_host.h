/* SPDX-License-Identifier: Apache-2.0 */
/* The test host: a small application whose types and functions reach BPF programs only
 * through its own BTF (built with kbpf_add_host_btf, see docs/host-btf.md). Its layouts
 * deliberately differ from what the test programs (the .bpf.c files in tests/host, the loader and
 * CO-RE tests) declare, so that only relocation against this BTF makes them work:
 *   - struct th_flow: extra fields, members in another order, a field renamed (srtt ->
 *     srtt_us), bitfields, a nested struct, an enum member, an array;
 *   - struct th_conn: the "new" layout; programs handle it and the old one through the
 *     flavours th_conn___old / th_conn___new;
 *   - enum th_state: values other than the programs assume, one enumerator missing,
 *     one extra; enum th_big is 64-bit (ENUM64), enum th_signed has negative values;
 *   - functions a host would register as kfuncs: int/u8/s16/u32/u64/s64 parameters,
 *     struct pointers, an acquire/release pair, a void function; and two that cannot
 *     be kfuncs (a double parameter, varargs) for the prototype checks.
 * Field comments give the program-side assumption where it differs. */
#ifndef KBPF_TESTS_HOST_TEST_HOST_H
#define KBPF_TESTS_HOST_TEST_HOST_H

#include <stdint.h>

/* Kernel-style integer names: kfunc prototypes in Linux use them, and so do programs
 * written against a vmlinux.h. */
typedef uint8_t u8;
typedef int8_t s8;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

/* Programs assume TH_STATE_OPEN 1, TH_STATE_RECOVERY 2, TH_STATE_LOSS 3, TH_STATE_CLOSED 4. */
enum th_state {
	TH_STATE_INIT = 0,     /* not known to programs */
	TH_STATE_OPEN = 1,
	TH_STATE_RECOVERY = 5, /* programs: 2 */
	TH_STATE_LOSS = 9,     /* programs: 3 */
	/* TH_STATE_CLOSED does not exist here: bpf_core_enum_value_exists() is false */
};

enum th_big { TH_BIG_SMALL = 1, TH_BIG_LARGE = 0x100000000ULL };
enum th_signed { TH_NEG = -2, TH_POS = 3 };

struct th_opts {
	u16 mss;
	u8 wscale;
	u8 sack_ok;
};

/* Programs declare: struct th_flow { u32 cwnd; u32 ssthresh; u32 srtt; u64 bytes_acked;
 * u8 ecn:2, sack:1; enum th_state state; } (preserve_access_index). */
struct th_flow {
	u64 id;              /* extra */
	u32 flags;           /* extra */
	u32 ssthresh;        /* programs: after cwnd */
	u32 cwnd;            /* programs: offset 0 */
	u32 srtt_us;         /* programs: 'srtt' (the old name) */
	u64 bytes_acked;
	struct th_opts opts; /* extra */
	u8 fastopen : 1;     /* extra bitfield before the ones programs know */
	u8 ecn : 2;
	u8 sack : 1;
	s8 delta : 4;        /* a signed bitfield: FIELD_SIGNED, sign extension */
	enum th_state state;
	char name[12];
	u32 refcnt;          /* th_flow_acquire / th_flow_release */
};

/* The "new" layout; programs also know the old one, where rtt_us was 'rtt' and
 * there was no 'retrans' field:
 *   struct th_conn___old { u32 rtt; u32 lost; };
 *   struct th_conn___new { u32 rtt_us; u32 lost; u32 retrans; }; */
struct th_conn {
	u32 lost;
	u32 rtt_us;
	u32 retrans;
	struct th_flow *flow;
};

union th_addr {
	u32 v4;
	u8 v6[16];
};

typedef struct th_stats {
	u64 packets;
	u64 bytes;
	union th_addr peer;
} th_stats_t;

/* The context the test programs run with: it reaches every type above. */
struct th_ctx {
	struct th_flow *flow;
	struct th_conn *conn;
	th_stats_t stats;
	enum th_big big;
	enum th_signed sgn;
};

/* --- kfunc candidates (deterministic, no global state but the flow pool) --- */
int th_add(int a, int b);
/* Each argument narrowed to its type: tests that callers pass (and extend) by BTF size. */
u32 th_mix(u8 a, s16 b, u32 c);
u64 th_sum5(u64 a, u64 b, u64 c, u64 d, u64 e);
s64 th_negate(s64 v);
u32 th_flow_cwnd(const struct th_flow *flow);
void th_flow_set_cwnd(struct th_flow *flow, u32 cwnd);
/* The pool flow with this id (0..TH_POOL_SIZE-1), one reference taken, or NULL. */
struct th_flow *th_flow_acquire(u64 id);
void th_flow_release(struct th_flow *flow);
int th_state_is_open(enum th_state state);
void th_noop(void);
/* Fill ctx for a test run: flow and conn as given, the rest fixed values (stats 7
 * packets / 1500 bytes, peer 10.0.0.1 = 0x0a000001, TH_BIG_LARGE, TH_NEG). */
void th_ctx_init(struct th_ctx *ctx, struct th_flow *flow, struct th_conn *conn);

/* --- not kfunc material: for the prototype checks --- */
double th_scale(double x, int factor);
int th_log(const char *fmt, ...);

#define TH_POOL_SIZE 4

#endif
