/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: the socket program types sk_skb, sk_msg, sk_lookup and sock_ops — their
 * records, Linux 6.1's context rules (sk_skb_is_valid_access, sk_msg_is_valid_access,
 * sk_lookup_is_valid_access, sock_ops_is_valid_access) at representative offsets, their
 * helper sets, and verdicts with Linux's messages. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define R KBPF_ACCESS_READ
#define W KBPF_ACCESS_WRITE
#define SKB(f) ((int)offsetof(struct __sk_buff, f))
#define MSG(f) ((int)offsetof(struct sk_msg_md, f))
#define LK(f) ((int)offsetof(struct bpf_sk_lookup, f))
#define OPS(f) ((int)offsetof(struct bpf_sock_ops, f))

static bool has(const struct kbpf_host *host, const char *type, int32_t id)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, type);
	return t && t->get_func_proto(t, host, id) != NULL;
}

static int verify(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt, char *log,
		  size_t log_size)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .log_buf = log, .log_size = log_size };
	log[0] = 0;
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

static void test_records(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	static const struct {
		const char *name;
		uint32_t linux_type, ctx_size;
		int pkt, ret_range, ret_min, ret_max;
		unsigned caps;
	} want[] = {
		{ "sk_skb", BPF_PROG_TYPE_SK_SKB, 192, KBPF_PKT_ACCESS_RW, 0, 0, 0, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
		{ "sk_msg", BPF_PROG_TYPE_SK_MSG, sizeof(struct sk_msg_md), KBPF_PKT_ACCESS_RW, 0, 0, 0,
		  KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
		{ "sk_lookup", BPF_PROG_TYPE_SK_LOOKUP, sizeof(struct bpf_sk_lookup), KBPF_PKT_ACCESS_NONE, 1, 0, 1,
		  KBPF_CAP_BPF },
		{ "sock_ops", BPF_PROG_TYPE_SOCK_OPS, sizeof(struct bpf_sock_ops), KBPF_PKT_ACCESS_NONE, 1, 0, 1,
		  KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, want[i].name);
		CHECK(t);
		if (!t)
			continue;
		CHECK_EQ_U64(t->linux_type, want[i].linux_type);
		CHECK_EQ_U64(t->ctx_size, want[i].ctx_size);
		CHECK_EQ_U64(t->direct_packet_access, want[i].pkt);
		CHECK_EQ_U64(t->has_ret_range, want[i].ret_range);
		CHECK(t->ret_min == want[i].ret_min && t->ret_max == want[i].ret_max);
		CHECK_EQ_U64(t->load_caps, want[i].caps);
	}
	kbpf_host_free(host);
}

static void test_sk_skb(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = host ? kbpf_host_prog_type_find(host, "sk_skb") : NULL;
	struct kbpf_ctx_access_info info;
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(ctx_ok(t, SKB(mark), 4, R, NULL) == 0); /* no mark at all */
	CHECK(ctx_ok(t, SKB(tc_classid), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(data_meta), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(tstamp), 8, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(tc_index), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(priority), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(cb[0]), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, SKB(family), 4, R, NULL) == 1); /* the socket tuple is readable */
	CHECK(ctx_ok(t, SKB(remote_ip4), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(remote_ip6[1]), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(remote_ip4), 2, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(local_port), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET && info.conv_size == 8);
	CHECK(ctx_ok(t, SKB(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END);
	CHECK(has(host, "sk_skb", BPF_FUNC_skb_load_bytes) && has(host, "sk_skb", BPF_FUNC_skb_store_bytes));
	CHECK(has(host, "sk_skb", BPF_FUNC_skb_change_head) && has(host, "sk_skb", BPF_FUNC_sk_lookup_tcp));
	CHECK(!has(host, "sk_skb", BPF_FUNC_redirect) && !has(host, "sk_skb", BPF_FUNC_csum_diff));
	kbpf_host_free(host);
}

static void test_sk_msg(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = host ? kbpf_host_prog_type_find(host, "sk_msg") : NULL;
	struct kbpf_ctx_access_info info;
	char log[2048];
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(ctx_ok(t, MSG(data), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET && info.conv_size == 0);
	CHECK(ctx_ok(t, MSG(data_end), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END);
	CHECK(ctx_ok(t, MSG(data), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, MSG(sk), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_SOCKET);
	CHECK(ctx_ok(t, MSG(family), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, MSG(remote_ip6[3]), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, MSG(size), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, MSG(family), 2, R, NULL) == 0); /* no narrow reads */
	CHECK(ctx_ok(t, MSG(local_port), 4, W, NULL) == 0); /* read-only */
	CHECK(ctx_ok(t, MSG(size) + 4, 4, R, NULL) == 0);   /* the padding before sk */
	CHECK(has(host, "sk_msg", BPF_FUNC_msg_apply_bytes) && has(host, "sk_msg", BPF_FUNC_msg_pull_data));
	CHECK(has(host, "sk_msg", BPF_FUNC_get_netns_cookie));
	CHECK(!has(host, "sk_msg", BPF_FUNC_skb_load_bytes));
	/* direct writes to the message after a bounds check (ctx_sk_msg.c) */
	const struct bpf_insn write[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct sk_msg_md, data)),
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, offsetof(struct sk_msg_md, data_end)),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8),
		BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_3, 1),
		BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sk_msg", write, sizeof(write) / sizeof(write[0]), log, sizeof(log)), 0);
	kbpf_host_free(host);
}

static void test_sk_lookup(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = host ? kbpf_host_prog_type_find(host, "sk_lookup") : NULL;
	struct kbpf_ctx_access_info info;
	char log[2048];
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(ctx_ok(t, LK(sk), 8, R, &info) == 1 && info.reg_type == (KBPF_PTR_TO_SOCKET | KBPF_PTR_MAYBE_NULL));
	CHECK(ctx_ok(t, LK(sk), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, LK(family), 4, R, &info) == 1 && info.ctx_field_size == 4);
	CHECK(ctx_ok(t, LK(family), 1, R, NULL) == 1);
	CHECK(ctx_ok(t, LK(local_ip6[2]) + 2, 2, R, NULL) == 1);
	CHECK(ctx_ok(t, LK(remote_port), 4, R, NULL) == 1); /* a u32 read of the __be16 */
	CHECK(ctx_ok(t, LK(remote_port), 2, R, &info) == 1 && info.ctx_field_size == 2);
	CHECK(ctx_ok(t, LK(remote_port) + 2, 2, R, NULL) == 1); /* the zero padding */
	CHECK(ctx_ok(t, LK(remote_port) + 2, 4, R, NULL) == 0);
	CHECK(ctx_ok(t, LK(ingress_ifindex), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, LK(family), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, (int)sizeof(struct bpf_sk_lookup), 4, R, NULL) == 0);
	CHECK(has(host, "sk_lookup", BPF_FUNC_sk_assign) && has(host, "sk_lookup", BPF_FUNC_sk_release));
	CHECK(!has(host, "sk_lookup", BPF_FUNC_skb_load_bytes));
	/* bpf_sk_assign(ctx, NULL, 0) is fine: the socket may be NULL */
	const struct bpf_insn assign[] = {
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_sk_assign),
		BPF_MOV64_IMM(BPF_REG_0, SK_PASS),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sk_lookup", assign, 5, log, sizeof(log)), 0);
	/* return SK_DROP or SK_PASS only */
	const struct bpf_insn ret2[] = { BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN() };
	CHECK_EQ_U64(verify(host, "sk_lookup", ret2, 2, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "should have been in [0, 1]");
	kbpf_host_free(host);
}

static void test_sock_ops(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = host ? kbpf_host_prog_type_find(host, "sock_ops") : NULL;
	struct kbpf_ctx_access_info info;
	char log[4096];
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(ctx_ok(t, OPS(reply), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, OPS(sk_txhash), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, OPS(op), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, OPS(op), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, OPS(op), 2, R, NULL) == 0);
	CHECK(ctx_ok(t, OPS(bytes_received), 8, R, NULL) == 1);
	CHECK(ctx_ok(t, OPS(bytes_acked), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, OPS(sk), 8, R, &info) == 1 && info.reg_type == (KBPF_PTR_TO_SOCKET | KBPF_PTR_MAYBE_NULL));
	CHECK(ctx_ok(t, OPS(skb_data), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET);
	CHECK(ctx_ok(t, OPS(skb_tcp_flags), 1, R, &info) == 1 && info.ctx_field_size == 4);
	CHECK(has(host, "sock_ops", BPF_FUNC_getsockopt) && has(host, "sock_ops", BPF_FUNC_sock_ops_cb_flags_set));
	/* var_off.c: an unbounded stack pointer into getsockopt */
	const struct bpf_insn unbounded[] = {
		BPF_MOV64_IMM(BPF_REG_2, 6),
		BPF_MOV64_IMM(BPF_REG_3, 28),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_1, offsetof(struct bpf_sock_ops, bytes_received)),
		BPF_JMP_IMM(BPF_JSLT, BPF_REG_4, 0, 4),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_4, 16),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_4, BPF_REG_10),
		BPF_MOV64_IMM(BPF_REG_5, 8),
		BPF_EMIT_CALL(BPF_FUNC_getsockopt),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sock_ops", unbounded, sizeof(unbounded) / sizeof(unbounded[0]), log, sizeof(log)),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid unbounded variable-offset indirect access to stack R4");
	/* the TCP header at skb_data is read directly (Linux checks only writes against
	 * may_access_direct_pkt_data, which has no sock_ops) */
	struct bpf_insn deref[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct bpf_sock_ops, skb_data)),
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, offsetof(struct bpf_sock_ops, skb_data_end)),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_3, 1),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sock_ops", deref, sizeof(deref) / sizeof(deref[0]), log, sizeof(log)), 0);
	deref[5] = (struct bpf_insn)BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 1);
	CHECK_EQ_U64(verify(host, "sock_ops", deref, sizeof(deref) / sizeof(deref[0]), log, sizeof(log)),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "cannot write into packet");
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_records);
	RUN(test_sk_skb);
	RUN(test_sk_msg);
	RUN(test_sk_lookup);
	RUN(test_sock_ops);
	return test_summary();
}
