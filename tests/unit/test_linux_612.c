/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: what Linux 6.12's selftests need beyond the verifier core — the helper
 * ids up to 6.12's __BPF_FUNC_MAPPER, the flow_dissector and netfilter program types,
 * bpf_skb_pull_data run — verified and run on the interpreter and the JIT. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_linux_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SKB(f) ((int)offsetof(struct __sk_buff, f))
#define KEYS(f) ((int)offsetof(struct bpf_flow_keys, f))
#define R KBPF_ACCESS_READ
#define W KBPF_ACCESS_WRITE

/* What the netfilter context's pointers are typed as, in this executable's BTF (Linux:
 * vmlinux's). Only the fields read below. */
struct nf_hook_state {
	uint8_t hook;
	uint8_t pf;
};
struct sk_buff {
	unsigned int len;
};
/* kept in the BTF even if nothing else would use them */
struct nf_hook_state test_nf_state = { .hook = 1, .pf = 2 };
struct sk_buff test_nf_skb = { .len = 1234 };

static char vlog_buf[4096];

static int verify(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt, int unpriv)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .unprivileged = unpriv, .log_buf = vlog_buf, .log_size = sizeof(vlog_buf) };
	vlog_buf[0] = 0;
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

/* NR_ENGINES engines: the interpreter, and the JIT on x86-64. */
#if defined(__x86_64__)
#define NR_ENGINES 2
#else
#define NR_ENGINES 1
#endif

/* The program verified as type and created for engine jit (1: the JIT), with maps and
 * Linux load flags; NULL (and a failed check) if it is refused. */
static struct kbpf_prog *create(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt,
				int jit, struct kbpf_map *const *maps, size_t nr_maps, uint32_t prog_flags)
{
	char log[512] = "";
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .host = host, .jit = jit, .prog_type = type,
				       .license = "GPL", .maps = maps, .nr_maps = nr_maps, .prog_flags = prog_flags,
				       .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, cnt, &opts, &p);
	CHECK_EQ_U64(ret, 0);
	if (ret)
		fprintf(stderr, "%s\n", log);
	return ret ? NULL : p;
}

/* Runs a verified program on both engines with ctx; every run must return want. */
static void run_both(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt, void *ctx,
		     uint64_t want)
{
	for (int jit = 0; jit < NR_ENGINES; jit++) {
		struct kbpf_prog *p = create(host, type, insns, cnt, jit, NULL, 0, 0);
		if (!p)
			continue;
		uint64_t r0 = ~0ull;
		CHECK_EQ_U64(kbpf_prog_run(p, ctx, &r0), 0);
		CHECK_EQ_U64(r0, want);
		kbpf_prog_free(p);
	}
}

/* The registered type name (a failed check if missing). */
static const struct kbpf_prog_type *find_type(struct kbpf_host *host, const char *name)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, name);
	CHECK(t);
	return t;
}

/* 6.12's ids 210, 211 have names; no type offers them: 6.12's "cannot use helper" line. */
static void test_helper_names(void)
{
	CHECK_STR(kbpf_helper_linux_name(210), "bpf_cgrp_storage_get");
	CHECK_STR(kbpf_helper_linux_name(211), "bpf_cgrp_storage_delete");
	CHECK(kbpf_helper_linux_name(212) == NULL);
	struct kbpf_host *host = linux_host();
	const struct bpf_insn prog[] = { BPF_EMIT_CALL(211), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(verify(host, "socket_filter", prog, N(prog), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "program of this type cannot use helper bpf_cgrp_storage_delete#211");
	/* past 6.12's __BPF_FUNC_MAX_ID */
	const struct bpf_insn past[] = { BPF_EMIT_CALL(212), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(verify(host, "socket_filter", past, N(past), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "invalid func unknown#212");
	kbpf_host_free(host);
}

static void test_flow_dissector_access(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = find_type(host, "flow_dissector");
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	struct kbpf_ctx_access_info info;
	CHECK(t->linux_type == BPF_PROG_TYPE_FLOW_DISSECTOR && !t->has_ret_range);
	CHECK(t->direct_packet_access == KBPF_PKT_ACCESS_RDONLY);
	CHECK(t->load_caps == (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN));
	CHECK(ctx_ok(t, SKB(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET && info.conv_size == 8 &&
	      info.conv_off == offsetof(struct kbpf_linux_flow_dissector, data));
	CHECK(ctx_ok(t, SKB(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END);
	CHECK(ctx_ok(t, SKB(flow_keys), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_FLOW_KEYS &&
	      info.conv_off == offsetof(struct kbpf_linux_flow_dissector, flow_keys));
	CHECK(ctx_ok(t, SKB(data), 2, R, NULL) == 0);      /* whole fields only */
	CHECK(ctx_ok(t, SKB(flow_keys), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(len), 4, R, NULL) == 0);       /* nothing else */
	CHECK(ctx_ok(t, SKB(mark), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(cb[0]), 4, W, NULL) == 0);     /* never written */
	CHECK(ctx_ok(t, SKB(data), 4, W, NULL) == 0);
	kbpf_host_free(host);
}

/* r0 = flow_keys->nhoff + the byte at data[nhoff] (direct read) + the byte at nhoff+1
 * (bpf_skb_load_bytes); flow_keys->thoff = r0; r0 = load_bytes' error if it fails. */
static const struct bpf_insn fd_prog[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_6, SKB(flow_keys)),
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, SKB(data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, SKB(data_end)),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 4),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 16), /* < 4 bytes: exit 99 */
	BPF_LDX_MEM(BPF_H, BPF_REG_8, BPF_REG_7, KEYS(nhoff)),
	BPF_LDX_MEM(BPF_B, BPF_REG_9, BPF_REG_2, 0),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_9),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 1),
	BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 5),
	BPF_LDX_MEM(BPF_B, BPF_REG_9, BPF_REG_10, -8),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_9),
	BPF_STX_MEM(BPF_H, BPF_REG_7, BPF_REG_8, KEYS(thoff)),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_8),
	BPF_EXIT_INSN(),
	BPF_EXIT_INSN(), /* load_bytes' error */
	BPF_MOV64_IMM(BPF_REG_0, 99),
	BPF_EXIT_INSN(),
};

static void test_flow_dissector_run(void)
{
	struct kbpf_host *host = linux_host();
	CHECK_EQ_U64(verify(host, "flow_dissector", fd_prog, N(fd_prog), 0), 0);
	/* Linux: a net-admin type; an unprivileged loader cannot have it */
	CHECK(verify(host, "flow_dissector", fd_prog, N(fd_prog), 1) < 0);
	uint8_t pkt[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
	struct bpf_flow_keys keys;
	memset(&keys, 0, sizeof(keys));
	keys.nhoff = 5;
	struct kbpf_linux_flow_dissector ctx = { .flow_keys = &keys, .data = pkt, .data_end = pkt + 8, .from_skb = 1 };
	run_both(host, "flow_dissector", fd_prog, N(fd_prog), &ctx, 5 + 10 + 20);
	CHECK_EQ_U64(keys.thoff, 35);
	/* a bare buffer: bpf_skb_load_bytes fails (Linux: no skb behind the context) */
	ctx.from_skb = 0;
	run_both(host, "flow_dissector", fd_prog, N(fd_prog), &ctx, (uint64_t)(int64_t)-EFAULT);
	/* too short a packet */
	ctx.from_skb = 1;
	ctx.data_end = pkt + 3;
	run_both(host, "flow_dissector", fd_prog, N(fd_prog), &ctx, 99);
	kbpf_host_free(host);
}

static void test_flow_dissector_refused(void)
{
	struct kbpf_host *host = linux_host();
	/* past struct bpf_flow_keys */
	const struct bpf_insn past[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, SKB(flow_keys)),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, (int)sizeof(struct bpf_flow_keys) - 2),
		BPF_EXIT_INSN(),
	};
	char want[96];
	snprintf(want, sizeof(want), "invalid access to flow keys off=%d size=4", (int)sizeof(struct bpf_flow_keys) - 2);
	CHECK_EQ_U64(verify(host, "flow_dissector", past, N(past), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, want);
	const struct bpf_insn neg[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, SKB(flow_keys)),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, -4),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "flow_dissector", neg, N(neg), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "invalid access to flow keys off=-4 size=4");
	/* a pointer stored into the keys: allowed to a privileged loader (allow_ptr_leaks),
	 * and flow_dissector has no other */
	const struct bpf_insn leak[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, SKB(flow_keys)),
		BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_7, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "flow_dissector", leak, N(leak), 0), 0);
	/* the packet is read-only */
	const struct bpf_insn pkt_write[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB(data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
		BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "flow_dissector", pkt_write, N(pkt_write), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "cannot write into packet");
	/* ctx writes, other fields */
	const struct bpf_insn ctx_write[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SKB(cb[0])),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "flow_dissector", ctx_write, N(ctx_write), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access");
	/* bpf_sk_base_func_proto + base: no socket lookups, no skb_store_bytes */
	const struct bpf_insn store[] = {
		BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_MOV64_IMM(BPF_REG_4, 1), BPF_MOV64_IMM(BPF_REG_5, 0),
		BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "flow_dissector", store, N(store), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "bpf_skb_store_bytes#9");
	kbpf_host_free(host);
}

static void test_netfilter(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = find_type(host, "netfilter");
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(t->linux_type == KBPF_LINUX_PROG_TYPE_NETFILTER && t->has_ret_range && t->ret_min == 0 &&
	      t->ret_max == 1 && t->load_caps == (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN));
	struct kbpf_ctx_access_info info;
	/* 6.12's nf_is_valid_access: trusted_ptr_ */
	CHECK(ctx_ok(t, 0, 8, R, &info) == 1 && info.reg_type == (KBPF_PTR_TO_BTF_ID | KBPF_PTR_TRUSTED) &&
	      !strcmp(info.btf_name, "nf_hook_state"));
	CHECK(ctx_ok(t, 8, 8, R, &info) == 1 && !strcmp(info.btf_name, "sk_buff"));
	CHECK(ctx_ok(t, 0, 1, R, NULL) == 0); /* size too short */
	CHECK(ctx_ok(t, 8, 2, R, NULL) == 0);
	CHECK(ctx_ok(t, 16, 8, R, NULL) == 0); /* past the end */
	CHECK(ctx_ok(t, 0, 8, W, NULL) == 0);

	/* return ctx->skb->len > 1000 ? NF_ACCEPT : NF_DROP, after reading state->pf */
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_2, offsetof(struct nf_hook_state, pf)),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8),
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_2, offsetof(struct sk_buff, len)),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JLE, BPF_REG_4, 1000, 1),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	/* Without the structs in a host BTF the pointers cannot be read (Linux: no vmlinux
	 * BTF, the access is refused). */
	CHECK_EQ_U64(verify(host, "netfilter", prog, N(prog), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=0 size=8");
	const struct bpf_insn ret2[] = { BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN() };
	CHECK_EQ_U64(verify(host, "netfilter", ret2, N(ret2), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "R0 has");
	if (kbpf_host_btf_load_self(host)) {
		fprintf(stderr, "note: no host BTF, netfilter's BTF pointers not tested\n");
		kbpf_host_free(host);
		return;
	}
	CHECK_EQ_U64(verify(host, "netfilter", prog, N(prog), 0), 0);
	struct kbpf_linux_nf_ctx ctx = { .state = &test_nf_state, .skb = &test_nf_skb };
	run_both(host, "netfilter", prog, N(prog), &ctx, 1);
	test_nf_skb.len = 999;
	run_both(host, "netfilter", prog, N(prog), &ctx, 0);
	/* writes through them: Linux's "only read is supported" */
	const struct bpf_insn write[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_B, BPF_REG_2, offsetof(struct nf_hook_state, pf), 0),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "netfilter", write, N(write), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "only read is supported");
	kbpf_host_free(host);
}

/* bpf_skb_pull_data(skb, len): 0 up to the packet's length (0: the linear part), then
 * -ENOMEM; the program re-reads its packet pointers after the call. */
static void test_skb_pull_data(void)
{
	struct kbpf_host *host = linux_host();
	uint8_t buf[64] = { 0 };
	buf[16] = 0x5a;
	struct kbpf_linux_skb skb;
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 16, 32), 0);
	/* r0 = pull(len) ?: data[0] read after a bounds check */
	for (uint32_t len = 0; len <= 33; len += 11) {
		const struct bpf_insn prog[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_MOV64_IMM(BPF_REG_2, (int32_t)len),
			BPF_EMIT_CALL(BPF_FUNC_skb_pull_data),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 6),
			BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, SKB(data)),
			BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, SKB(data_end)),
			BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
			BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
			BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0),
			BPF_EXIT_INSN(),
		};
		run_both(host, "sched_cls", prog, N(prog), &skb, len <= 32 ? 0x5a : (uint64_t)(int64_t)-ENOMEM);
	}
	/* packet pointers from before the call are gone (a packet-changing helper) */
	const struct bpf_insn stale[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, SKB(data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, SKB(data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 4),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_skb_pull_data),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sched_cls", stale, N(stale), 0), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "R7 invalid mem access 'scalar'");
	kbpf_host_free(host);
}

/* bpf_check_mtu's 6.12 prototype: mtu_len is 4 aligned bytes, read and written; tc and
 * xdp have it, socket filters do not. */
static void test_check_mtu(void)
{
	struct kbpf_host *host = linux_host();
#define MTU_CALL(store, off)                                                                               \
	{ store, BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),                           \
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, off), BPF_MOV64_IMM(BPF_REG_4, 0), BPF_MOV64_IMM(BPF_REG_5, 0),     \
	  BPF_EMIT_CALL(BPF_FUNC_check_mtu), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() }
	const struct bpf_insn init[] = MTU_CALL(BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0), -8);
	const struct bpf_insn uninit[] = MTU_CALL(BPF_ST_MEM(BPF_W, BPF_REG_10, -16, 0), -8);
	const struct bpf_insn misaligned[] = MTU_CALL(BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), -6);
	CHECK_EQ_U64(verify(host, "sched_cls", init, N(init), 0), 0);
	CHECK_EQ_U64(verify(host, "xdp", init, N(init), 0), 0);
	/* uninitialised stack: a privileged loader may pass it (6.12's allow_uninit_stack);
	 * tc and xdp have no other */
	CHECK_EQ_U64(verify(host, "sched_cls", uninit, N(uninit), 0), 0);
	CHECK(verify(host, "sched_cls", misaligned, N(misaligned), 0) < 0);
	CHECK_CONTAINS(vlog_buf, "misaligned");
	CHECK_EQ_U64(verify(host, "socket_filter", init, N(init), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "bpf_check_mtu#163");
	/* verified, not run: kbpf has no devices whose MTU it could give */
	char log[256] = "";
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .host = host, .prog_type = "sched_cls", .license = "GPL",
				       .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	CHECK(kbpf_prog_create(init, N(init), &opts, &p) < 0);
	CHECK_CONTAINS(log, "unknown helper");
	kbpf_host_free(host);
}

/* bpf_copy_from_user(dst, size, user_ptr): sleepable programs only (Linux's might_sleep);
 * the bytes, or -EFAULT with dst zeroed. */
static void test_copy_from_user(void)
{
	struct kbpf_host *host = linux_host();
	static const uint64_t src = 0x1122334455667788ull;
	/* r0 = copy's result ?: the copied u64; the source address from ctx[0] (kprobe's
	 * first register slot) */
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_EMIT_CALL(BPF_FUNC_copy_from_user),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), /* zeroed: r0 stays the error */
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "kprobe", prog, N(prog), 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "helper call might sleep in a non-sleepable prog");
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "kprobe", .prog_flags = BPF_F_SLEEPABLE,
				      .log_buf = vlog_buf, .log_size = sizeof(vlog_buf) };
	CHECK_EQ_U64(kbpf_prog_verify(prog, N(prog), &o, NULL), 0);
	uint64_t regs[KBPF_LINUX_PT_REGS_SIZE / 8] = { (uintptr_t)&src };
	for (int jit = 0; jit < NR_ENGINES; jit++) {
		struct kbpf_prog *p = create(host, "kprobe", prog, N(prog), jit, NULL, 0, BPF_F_SLEEPABLE);
		if (!p)
			continue;
		uint64_t r0 = 0;
		regs[0] = (uintptr_t)&src;
		CHECK_EQ_U64(kbpf_prog_run(p, regs, &r0), 0);
		CHECK_EQ_U64(r0, src);
		regs[0] = 8; /* never mapped */
		CHECK_EQ_U64(kbpf_prog_run(p, regs, &r0), 0);
		CHECK_EQ_U64(r0, (uint64_t)(int64_t)-EFAULT);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

/* bpf_sock_map_update(sock_ops ctx, map, key, flags): the context's socket into a
 * SOCKMAP, only from the established / listen callbacks (Linux's sock_map_op_okay). */
static void test_sock_map_update(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_SOCKMAP, .key_size = 4, .value_size = 8,
				    .max_entries = 4, .name = "socks" };
	struct kbpf_map *map = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	/* ctx->reply = sock_map_update(ctx, map, &(u32){1}, BPF_ANY); return 1 */
	const struct bpf_insn prog[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4),
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_4, BPF_ANY),
		BPF_EMIT_CALL(BPF_FUNC_sock_map_update),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct bpf_sock_ops, reply)),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	struct kbpf_linux_sock sk;
	memset(&sk, 0, sizeof(sk));
	sk.sk.family = AF_INET;
	sk.sk.type = SOCK_STREAM;
	sk.sk.protocol = IPPROTO_TCP;
	sk.sk.state = BPF_TCP_ESTABLISHED;
	struct bpf_sock_ops ops;
	const uint32_t key = 1;
	uint64_t val;
	for (int jit = 0; jit < NR_ENGINES; jit++) {
		struct kbpf_prog *p = create(host, "sock_ops", prog, N(prog), jit, &map, 1, 0);
		if (!p)
			continue;
		kbpf_map_delete(map, &key);
		uint64_t r0 = 0;
		memset(&ops, 0, sizeof(ops));
		ops.op = BPF_SOCK_OPS_TCP_CONNECT_CB; /* not yet established */
		ops.sk = (struct bpf_sock *)&sk;
		CHECK_EQ_U64(kbpf_prog_run(p, &ops, &r0), 0);
		CHECK_EQ_U64(ops.reply, (uint32_t)-EOPNOTSUPP);
		CHECK_EQ_U64(kbpf_map_lookup(map, &key, &val), (uint64_t)-ENOENT);
		ops.op = BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;
		ops.sk = NULL; /* no socket */
		CHECK_EQ_U64(kbpf_prog_run(p, &ops, &r0), 0);
		CHECK_EQ_U64(ops.reply, (uint32_t)-EOPNOTSUPP);
		ops.sk = (struct bpf_sock *)&sk;
		CHECK_EQ_U64(kbpf_prog_run(p, &ops, &r0), 0);
		CHECK_EQ_U64(ops.reply, 0);
		CHECK_EQ_U64(r0, 1);
		CHECK_EQ_U64(kbpf_map_lookup(map, &key, &val), 0);
		kbpf_prog_free(p);
	}
	kbpf_map_free(map);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_sock_map_update);
	RUN(test_copy_from_user);
	RUN(test_check_mtu);
	RUN(test_helper_names);
	RUN(test_flow_dissector_access);
	RUN(test_flow_dissector_run);
	RUN(test_flow_dissector_refused);
	RUN(test_netfilter);
	RUN(test_skb_pull_data);
	return test_summary();
}
