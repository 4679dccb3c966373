/* SPDX-License-Identifier: Apache-2.0 */
/* Helper output arguments on their error paths (docs/program-types.md, "Helper output
 * arguments"): the verifier takes a write-only (uninit) memory argument as written after
 * the call whatever the helper returns, so each helper must write every promised byte on
 * every path. Each case fills the stack buffer with a canary, makes the helper fail (or,
 * for a string shorter than the buffer, succeed), and copies the buffer into a map
 * value: every promised byte must be zero, on the
 * interpreter, the JIT and in checked mode. Also the attack shape itself: bpf_strtol's
 * *res left uninitialised by an unprivileged program, read after a parse error, on a
 * checked run whose stack starts filled. */
#include <errno.h>
#include <string.h>
#include <linux/bpf.h>
#include "test.h"
#include "test_linux_util.h"

#define BUF      (-64) /* the output buffer: fp-64 .. fp-1 */
#define KEY      (-72) /* the map key (u32 0) */
#define STR      (-80) /* an input string */
#define CANARY   0xa5a5a5a5a5a5a5a5ull
#define NR_INSNS 96

/* The case's own instructions: r6 = ctx, the buffer at fp+BUF filled with the canary;
 * they call the helper, leaving its result in r0. map 1 is a queue of 64-byte values. */
struct out_case {
	const char *name;
	const char *type;
	int unprivileged;
	struct bpf_insn call[12];
	size_t nr_call;
	uint32_t size;  /* promised bytes from fp+BUF */
	int64_t want;   /* the helper's result (an error, but for the _str_tail case) */
};

#define CASE(n_, t_, u_, size_, want_, ...)                                                          \
	{ .name = n_, .type = t_, .unprivileged = u_, .call = { __VA_ARGS__ },                        \
	  .nr_call = sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn), .size = size_, \
	  .want = want_ }
#define BUF_TO(reg) BPF_MOV64_REG(reg, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, reg, BUF)
#define STR_TO(reg) BPF_MOV64_REG(reg, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, reg, STR)


/* canary fill, the case, then the 64 buffer bytes into map 0's value; r0 = the helper's */
static size_t build(const struct out_case *c, struct bpf_insn *p)
{
	size_t n = 0;
	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	struct bpf_insn canary[] = { BPF_LD_IMM64(BPF_REG_7, CANARY) };
	p[n++] = canary[0];
	p[n++] = canary[1];
	for (int off = BUF; off < 0; off += 8)
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_7, off);
	for (size_t i = 0; i < c->nr_call; i++)
		p[n++] = c->call[i];
	p[n++] = BPF_MOV64_REG(BPF_REG_8, BPF_REG_0);
	p[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, KEY, 0);
	struct bpf_insn map0[] = { BPF_LD_MAP_FD(BPF_REG_1, 0) };
	p[n++] = map0[0];
	p[n++] = map0[1];
	p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, KEY);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
	p[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	p[n++] = BPF_EXIT_INSN();
	for (int off = BUF; off < 0; off += 8) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, off);
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, off - BUF);
	}
	p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_8);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

static struct kbpf_map *make_map(uint32_t type, uint32_t key, uint32_t value)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = key, .value_size = value,
				    .max_entries = 1, .name = "m" };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

/* engine 0: interpreter, 1: JIT, 2: checked */
static void run_case(struct kbpf_host *host, const struct out_case *c, int engine)
{
	struct kbpf_map *maps[2] = { make_map(BPF_MAP_TYPE_ARRAY, 4, 64), make_map(BPF_MAP_TYPE_QUEUE, 0, 64) };
	struct bpf_insn insns[NR_INSNS];
	size_t n = build(c, insns);
	char log[512] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = c->type, .license = "GPL",
				     .maps = maps, .nr_maps = 2, .jit = engine == 1, .unprivileged = c->unprivileged,
				     .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	int err = kbpf_prog_create(insns, n, &po, &p);
	if (err) {
		fprintf(stderr, "%s: create %d: %s\n", c->name, err, log);
		CHECK(0);
		goto out;
	}
	/* contexts: a 32-byte packet for the skb, xdp and reuseport types, else zeroes */
	uint8_t pkt[256] = { 0 }, zero_ctx[128] = { 0 };
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	struct kbpf_linux_reuseport rp;
	struct kbpf_linux_sock sk;
	memset(&sk, 0, sizeof(sk));
	void *ctx = zero_ctx;
	if (!strcmp(c->type, "socket_filter")) {
		CHECK_EQ_U64(kbpf_linux_skb_init(&skb, pkt, sizeof(pkt), 0, 32), 0);
		ctx = &skb;
	} else if (!strcmp(c->type, "xdp")) {
		CHECK_EQ_U64(kbpf_linux_xdp_init(&xdp, pkt, sizeof(pkt), 0, 32), 0);
		ctx = &xdp;
	} else if (!strcmp(c->type, "sk_reuseport")) {
		CHECK_EQ_U64(kbpf_linux_reuseport_init(&rp, &sk, pkt, 32, 0), 0);
		ctx = &rp;
	}
	uint64_t r0 = 0;
	if (engine == 2) {
		char why[256] = "";
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx },
					    .flags = KBPF_RUN_CHECKED, .err = why, .err_size = sizeof(why) };
		struct kbpf_run_result rr = { .sz = sizeof(rr) };
		err = kbpf_prog_run_opts(p, &ro, &rr);
		if (err)
			fprintf(stderr, "%s: checked run %d: %s\n", c->name, err, why);
		r0 = rr.retval;
	} else {
		err = kbpf_prog_run(p, ctx, &r0);
	}
	CHECK_EQ_U64(err, 0);
	if ((int64_t)r0 != c->want)
		fprintf(stderr, "%s (engine %d): r0 %lld, expected %lld\n", c->name, engine, (long long)r0,
			(long long)c->want);
	CHECK_EQ_U64(r0, (uint64_t)c->want);
	uint8_t value[64];
	uint32_t key = 0;
	CHECK_EQ_U64(kbpf_map_lookup(maps[0], &key, value), 0);
	for (uint32_t i = 0; i < c->size; i++)
		if (value[i]) {
			fprintf(stderr, "%s (engine %d): byte %u of %u is %#x after the call, not 0\n", c->name,
				engine, i, c->size, value[i]);
			CHECK(0);
			break;
		}
	/* the bytes past the promise are the program's own */
	for (uint32_t i = c->size; i < 64; i++)
		CHECK_EQ_U64(value[i], 0xa5);
out:
	kbpf_prog_free(p);
	kbpf_map_free(maps[0]);
	kbpf_map_free(maps[1]);
}

static void test_error_paths_write_every_byte(void)
{
	const struct out_case cases[] = {
		/* "x": nothing to parse */
		CASE("strtol", "socket_filter", 1, 8, -EINVAL, BPF_ST_MEM(BPF_B, BPF_REG_10, STR, 'x'), STR_TO(BPF_REG_1),
		     BPF_MOV64_IMM(BPF_REG_2, 1), BPF_MOV64_IMM(BPF_REG_3, 0), BUF_TO(BPF_REG_4), BPF_EMIT_CALL(BPF_FUNC_strtol)),
		/* "-1": a sign for strtoul */
		CASE("strtoul", "socket_filter", 1, 8, -EINVAL, BPF_ST_MEM(BPF_H, BPF_REG_10, STR, '-' | '1' << 8),
		     STR_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 2), BPF_MOV64_IMM(BPF_REG_3, 0), BUF_TO(BPF_REG_4),
		     BPF_EMIT_CALL(BPF_FUNC_strtoul)),
		/* "1" in base 2: bad flags */
		CASE("strtol_flags", "socket_filter", 1, 8, -EINVAL, BPF_ST_MEM(BPF_B, BPF_REG_10, STR, '1'), STR_TO(BPF_REG_1),
		     BPF_MOV64_IMM(BPF_REG_2, 1), BPF_MOV64_IMM(BPF_REG_3, 2), BUF_TO(BPF_REG_4), BPF_EMIT_CALL(BPF_FUNC_strtol)),
		/* past the packet */
		CASE("skb_load_bytes", "socket_filter", 1, 64, -EFAULT, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		     BPF_MOV64_IMM(BPF_REG_2, 1000), BUF_TO(BPF_REG_3), BPF_MOV64_IMM(BPF_REG_4, 64),
		     BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes)),
		CASE("xdp_load_bytes", "xdp", 0, 64, -EINVAL, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, 1000),
		     BUF_TO(BPF_REG_3), BPF_MOV64_IMM(BPF_REG_4, 64), BPF_EMIT_CALL(BPF_FUNC_xdp_load_bytes)),
		CASE("xdp_load_bytes_len", "xdp", 0, 64, -EINVAL, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, 0),
		     BUF_TO(BPF_REG_3), BPF_MOV64_IMM(BPF_REG_4, 64), BPF_EMIT_CALL(BPF_FUNC_xdp_load_bytes)),
		CASE("reuseport_load_bytes", "sk_reuseport", 0, 64, -EFAULT, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		     BPF_MOV64_IMM(BPF_REG_2, 1000), BUF_TO(BPF_REG_3), BPF_MOV64_IMM(BPF_REG_4, 64),
		     BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes)),
		/* from an address no process has mapped */
		CASE("probe_read_kernel", "raw_tracepoint", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel)),
		CASE("probe_read_user", "raw_tracepoint", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read_user)),
		CASE("probe_read_kernel_str", "raw_tracepoint", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel_str)),
		CASE("probe_read_user_str", "raw_tracepoint", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read_user_str)),
		/* success: "" read from the (zeroed) context; the bytes after the NUL too */
		CASE("probe_read_kernel_str_tail", "raw_tracepoint", 0, 64, 1, BUF_TO(BPF_REG_1),
		     BPF_MOV64_IMM(BPF_REG_2, 64), BPF_MOV64_REG(BPF_REG_3, BPF_REG_6),
		     BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel_str)),
		CASE("probe_read", "kprobe", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read)),
		CASE("probe_read_str", "kprobe", 0, 64, -EFAULT, BUF_TO(BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 64),
		     BPF_MOV64_IMM(BPF_REG_3, 16), BPF_EMIT_CALL(BPF_FUNC_probe_read_str)),
		/* an unknown flag; a size not a whole number of entries */
		CASE("get_stack_flags", "raw_tracepoint", 0, 64, -EINVAL, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BUF_TO(BPF_REG_2),
		     BPF_MOV64_IMM(BPF_REG_3, 64), BPF_MOV64_IMM(BPF_REG_4, 1 << 20), BPF_EMIT_CALL(BPF_FUNC_get_stack)),
		CASE("get_stack_size", "raw_tracepoint", 0, 60, -EINVAL, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BUF_TO(BPF_REG_2),
		     BPF_MOV64_IMM(BPF_REG_3, 60), BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_get_stack)),
		/* an empty queue */
		CASE("map_pop_elem", "socket_filter", 0, 64, -ENOENT, BPF_LD_MAP_FD(BPF_REG_1, 1), BUF_TO(BPF_REG_2),
		     BPF_EMIT_CALL(BPF_FUNC_map_pop_elem)),
		CASE("map_peek_elem", "socket_filter", 0, 64, -ENOENT, BPF_LD_MAP_FD(BPF_REG_1, 1), BUF_TO(BPF_REG_2),
		     BPF_EMIT_CALL(BPF_FUNC_map_peek_elem)),
	};
	struct kbpf_host *host = linux_host();
	CHECK(host != NULL);
	for (size_t i = 0; host && i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int engine = 0; engine < 3; engine++) {
#if !defined(__x86_64__)
			if (engine == 1)
				continue;
#endif
			run_case(host, &cases[i], engine);
		}
	kbpf_host_free(host);
}

/* The attack: an unprivileged socket filter passes uninitialised stack as strtol's
 * result, makes it fail, and returns what is there. A checked run whose stack starts
 * filled with 0xab stands for stale host stack: the program must see 0. */
static void test_strtol_result_never_stale(void)
{
	struct kbpf_host *host = linux_host();
	const struct bpf_insn prog[] = {
		BPF_ST_MEM(BPF_B, BPF_REG_10, STR, 'x'),
		STR_TO(BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BUF_TO(BPF_REG_4),
		BPF_EMIT_CALL(BPF_FUNC_strtol),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, BUF),
		BPF_EXIT_INSN(),
	};
	char log[512] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "socket_filter",
				     .unprivileged = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p), 0);
	if (!p) {
		fprintf(stderr, "%s\n", log);
		kbpf_host_free(host);
		return;
	}
	uint8_t pkt[64] = { 0 };
	struct kbpf_linux_skb skb;
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, pkt, sizeof(pkt), 0, 32), 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&skb },
				    .flags = KBPF_RUN_CHECKED | KBPF_RUN_STACK_FILL, .stack_fill = 0xab };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 0);
	kbpf_prog_free(p);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_error_paths_write_every_byte);
	RUN(test_strtol_result_never_stale);
	return test_summary();
}
