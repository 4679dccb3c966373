/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: the lwt program types (lwt_in, lwt_out, lwt_xmit, lwt_seg6local): their
 * records, Linux 6.1's lwt_is_valid_access at representative offsets, the helper sets of
 * lwt_*_func_proto, the verifier's verdicts with Linux's messages (direct packet writes
 * only from lwt_xmit), and a run as BPF_PROG_TEST_RUN does it, incl. skb_change_head. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define SKB(f) ((int)offsetof(struct __sk_buff, f))
#define R KBPF_ACCESS_READ
#define W KBPF_ACCESS_WRITE

static const char *const lwt_types[] = { "lwt_in", "lwt_out", "lwt_xmit", "lwt_seg6local" };

static void test_types(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	static const uint32_t linux_type[] = { BPF_PROG_TYPE_LWT_IN, BPF_PROG_TYPE_LWT_OUT, BPF_PROG_TYPE_LWT_XMIT,
					       BPF_PROG_TYPE_LWT_SEG6LOCAL };
	for (size_t i = 0; i < 4; i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, lwt_types[i]);
		CHECK(t);
		if (!t)
			continue;
		CHECK_EQ_U64(t->linux_type, linux_type[i]);
		CHECK_EQ_U64(t->ctx_size, 192);
		CHECK_STR(t->ctx_btf_name, "__sk_buff");
		/* may_access_direct_pkt_data: only lwt_xmit writes */
		CHECK_EQ_U64(t->direct_packet_access, i == 2 ? KBPF_PKT_ACCESS_RW : KBPF_PKT_ACCESS_RDONLY);
		CHECK_EQ_U64(t->load_caps, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN);
		CHECK_EQ_U64(t->has_ret_range, 0); /* check_return_code has no case for them */
	}
	kbpf_host_free(host);
}

static void test_access(void)
{
	struct kbpf_host *host = linux_host();
	if (!host)
		return;
	for (size_t i = 0; i < 4; i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, lwt_types[i]);
		struct kbpf_ctx_access_info info;
		if (!t)
			continue;
		/* refused whole: tc_classid, the socket tuple, data_meta, timestamps */
		CHECK(ctx_ok(t, SKB(tc_classid), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(tc_classid), 2, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(family), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(remote_ip6[2]), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(local_port), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(data_meta), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(tstamp), 8, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(wire_len), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(hwtstamp), 8, R, NULL) == 0);
		/* writes: mark, priority, cb[] only */
		CHECK(ctx_ok(t, SKB(mark), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(priority), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(cb[1]), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(cb[2]), 8, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(len), 4, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(tc_index), 4, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(data), 4, W, NULL) == 0);
		/* reads: u32 fields whole or narrow, the packet pointers converted */
		CHECK(ctx_ok(t, SKB(len), 4, R, &info) == 1 && info.ctx_field_size == 4);
		CHECK(ctx_ok(t, SKB(protocol), 2, R, NULL) == 1);
		CHECK(ctx_ok(t, SKB(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET &&
		      info.conv_size == 8 && info.conv_off == offsetof(struct kbpf_linux_skb, data));
		CHECK(ctx_ok(t, SKB(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END &&
		      info.conv_off == offsetof(struct kbpf_linux_skb, data_end));
		CHECK(ctx_ok(t, SKB(data), 2, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(sk), 8, R, &info) == 1 &&
		      info.reg_type == (KBPF_PTR_TO_SOCK_COMMON | KBPF_PTR_MAYBE_NULL));
		CHECK(ctx_ok(t, 192, 4, R, NULL) == 0);
	}
	kbpf_host_free(host);
}

static bool has(const struct kbpf_host *host, const char *type, int32_t id)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, type);
	return t && t->get_func_proto(t, host, id) != NULL;
}

static void test_helpers(void)
{
	struct kbpf_host *host = linux_host();
	if (!host)
		return;
	/* lwt_out_func_proto, shared by all four (seg6local without skb_pull_data) */
	for (size_t i = 0; i < 4; i++) {
		CHECK(has(host, lwt_types[i], BPF_FUNC_skb_load_bytes));
		CHECK(has(host, lwt_types[i], BPF_FUNC_csum_diff));
		CHECK(has(host, lwt_types[i], BPF_FUNC_get_hash_recalc));
		CHECK(has(host, lwt_types[i], BPF_FUNC_map_lookup_elem)); /* bpf_base_func_proto */
		CHECK(has(host, lwt_types[i], BPF_FUNC_skb_pull_data) == (i != 3));
		CHECK(!has(host, lwt_types[i], BPF_FUNC_xdp_adjust_head));
	}
	CHECK(has(host, "lwt_in", BPF_FUNC_lwt_push_encap));
	CHECK(!has(host, "lwt_out", BPF_FUNC_lwt_push_encap));
	CHECK(has(host, "lwt_xmit", BPF_FUNC_lwt_push_encap));
	CHECK(!has(host, "lwt_seg6local", BPF_FUNC_lwt_push_encap));
	/* lwt_xmit's own: packet writes and headroom */
	CHECK(has(host, "lwt_xmit", BPF_FUNC_skb_store_bytes));
	CHECK(has(host, "lwt_xmit", BPF_FUNC_skb_change_head));
	CHECK(has(host, "lwt_xmit", BPF_FUNC_l3_csum_replace));
	CHECK(!has(host, "lwt_in", BPF_FUNC_skb_store_bytes));
	CHECK(!has(host, "lwt_out", BPF_FUNC_skb_change_head));
	CHECK(has(host, "lwt_seg6local", BPF_FUNC_lwt_seg6_action));
	CHECK(has(host, "lwt_seg6local", BPF_FUNC_lwt_seg6_adjust_srh));
	CHECK(!has(host, "lwt_xmit", BPF_FUNC_lwt_seg6_action));
	kbpf_host_free(host);
}

/* A direct packet write after the bounds check: "cannot write into packet" except on
 * lwt_xmit (lwt.c of Linux's selftests). */
static void test_verdicts(void)
{
	struct kbpf_host *host = linux_host();
	if (!host)
		return;
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8),
		BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_3, 1),
		BPF_STX_MEM(BPF_B, BPF_REG_2, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	for (size_t i = 0; i < 4; i++) {
		char log[1024] = "";
		struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = lwt_types[i],
					      .log_buf = log, .log_size = sizeof(log), .license = "GPL" };
		int r = kbpf_prog_verify(prog, sizeof(prog) / sizeof(prog[0]), &o, NULL);
		if (i == 2) {
			CHECK_EQ_U64(r, 0);
		} else {
			CHECK_EQ_U64(r, (uint64_t)-EACCES);
			CHECK_CONTAINS(log, "cannot write into packet");
		}
	}
	/* tc_classid, even half of it: "invalid bpf_context access" */
	const struct bpf_insn classid[] = {
		BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_1, offsetof(struct __sk_buff, tc_classid)),
		BPF_EXIT_INSN(),
	};
	char log[1024] = "";
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "lwt_in", .log_buf = log,
				      .log_size = sizeof(log) };
	CHECK_EQ_U64(kbpf_prog_verify(classid, 2, &o, NULL), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid bpf_context access");
	/* without CAP_NET_ADMIN an lwt program does not load */
	o.caps = KBPF_CAP_BPF;
	log[0] = 0;
	const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK(kbpf_prog_verify(ret0, 2, &o, NULL) != 0);
	kbpf_host_free(host);
}

/* As BPF_PROG_TEST_RUN runs lwt_xmit: the packet from its network header; the program
 * pushes 14 bytes of headroom (skb_change_head), then reads the new length. */
static void test_run(void)
{
	struct kbpf_host *host = linux_host();
	if (!host)
		return;
	const struct bpf_insn prog[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_2, 14),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_skb_change_head),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, offsetof(struct __sk_buff, len)),
		BPF_EXIT_INSN(),
	};
	uint8_t buf[128];
	for (int jit = 0; jit < 2; jit++) {
#if !defined(__x86_64__)
		if (jit)
			break;
#endif
		struct kbpf_linux_skb skb;
		memset(buf, 0xab, sizeof(buf));
		CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 16, 40), 0);
		char log[512] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "lwt_xmit", .jit = jit,
					     .license = "GPL", .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p), 0);
		uint64_t r0 = 0;
		CHECK_EQ_U64(kbpf_prog_run(p, &skb, &r0), 0);
		CHECK_EQ_U64(r0, 54);
		CHECK(skb.data == buf + 2 && skb.md.len == 54 && buf[2] == 0 && buf[15] == 0 && buf[16] == 0xab);
		/* a second push of 14 finds 2 bytes of headroom: kbpf cannot grow the host's buffer */
		CHECK_EQ_U64(kbpf_prog_run(p, &skb, &r0), 0);
		CHECK_EQ_U64(r0, (uint64_t)(int64_t)-ENOMEM);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_types);
	RUN(test_access);
	RUN(test_helpers);
	RUN(test_verdicts);
	RUN(test_run);
	return test_summary();
}
