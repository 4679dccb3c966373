/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux's sockets in socket maps and the program types that use them: the checks
 * kbpf_linux_sock_map_update makes (Linux's, on the socket behind an fd); programs that
 * look sockets up (sched_cls from SOCKMAP/SOCKHASH, releasing the reference; xdp from
 * XSKMAP, reading queue_id) on the checked interpreter and the JIT; the verifier's
 * socket-map rules with Linux's messages; the sk_reuseport type (context rules, helper
 * set, bpf_sk_select_reuseport's errnos, kbpf_linux_reuseport_run); the bpf_skc_to_*
 * casts, whose result is a BTF pointer to struct kbpf_linux_sock (this binary carries
 * its BTF); and bpf_fib_lookup's answers for a process without routes. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define P(x) ((uint64_t)(uintptr_t)(x))
#define CALL(host, id, a, b, c, d, e) (kbpf_host_helper_find(host, id, NULL)((a), (b), (c), (d), (e)))
#define LINUX_ENOTSUPP 524

static struct kbpf_linux_sock mksock(uint32_t family, uint32_t type, uint32_t protocol, uint32_t state)
{
	struct kbpf_linux_sock s;
	memset(&s, 0, sizeof(s));
	s.sk.family = family;
	s.sk.type = type;
	s.sk.protocol = protocol;
	s.sk.state = state;
	return s;
}

static struct kbpf_map *mkmap(uint32_t type, uint32_t value_size)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = value_size,
				    .max_entries = 4, .name = "socks" };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static void test_update_checks(void)
{
	struct kbpf_map *sm = mkmap(BPF_MAP_TYPE_SOCKMAP, 8), *xm = mkmap(BPF_MAP_TYPE_XSKMAP, 4);
	struct kbpf_map *rm = mkmap(BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, 8), *am = mkmap(BPF_MAP_TYPE_ARRAY, 8);
	struct kbpf_linux_sock est = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_ESTABLISHED);
	struct kbpf_linux_sock lis = mksock(AF_INET6, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_LISTEN);
	struct kbpf_linux_sock syn = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_SYN_SENT);
	struct kbpf_linux_sock udp = mksock(AF_INET, SOCK_DGRAM, IPPROTO_UDP, BPF_TCP_CLOSE);
	struct kbpf_linux_sock unx = mksock(AF_UNIX, SOCK_STREAM, 0, BPF_TCP_CLOSE);
	struct kbpf_linux_sock xsk = mksock(AF_XDP, SOCK_RAW, 0, 0);
	struct kbpf_linux_sock raw = mksock(AF_INET, SOCK_RAW, IPPROTO_ICMP, 0);
	struct kbpf_linux_sock *out = NULL;
	uint32_t k = 1;

	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &est, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(sm, &k, &out), 0);
	CHECK(out == &est);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &lis, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &lis, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &syn, BPF_ANY), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &udp, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &unx, BPF_ANY), -EOPNOTSUPP); /* not connected */
	unx.sk.state = BPF_TCP_ESTABLISHED;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &unx, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &raw, BPF_ANY), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &xsk, BPF_ANY), -EOPNOTSUPP);
	k = 9;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, &est, BPF_ANY), -E2BIG);
	k = 0;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(xm, &k, &est, BPF_ANY), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(xm, &k, &xsk, BPF_ANY), 0);
	/* a reuseport array: TCP/UDP of an inet family in a reuseport group */
	CHECK_EQ_U64(kbpf_linux_sock_map_update(rm, &k, &lis, BPF_ANY), -EINVAL);
	lis.reuseport_id = 3;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(rm, &k, &lis, BPF_ANY), 0);
	unx.reuseport_id = 3;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(rm, &k, &unx, BPF_ANY), -LINUX_ENOTSUPP);
	raw.reuseport_id = 3;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(rm, &k, &raw, BPF_ANY), -LINUX_ENOTSUPP);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(am, &k, &est, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k, NULL, BPF_ANY), -EINVAL);
	kbpf_map_free(sm);
	kbpf_map_free(xm);
	kbpf_map_free(rm);
	kbpf_map_free(am);
}

/* Run p on ctx (ctx_size bytes) with the socket sock readable: checked interpreter, then
 * the fast path (the JIT if p was compiled). Both must give want. */
static void run_both(struct kbpf_prog *p, void *ctx, size_t ctx_size, const void *sock, uint64_t want)
{
	struct kbpf_mem_region regions[] = {
		{ ctx, ctx_size, KBPF_MEM_READ, "ctx" },
		{ (void *)(uintptr_t)sock, sizeof(struct kbpf_linux_sock), KBPF_MEM_READ, "sock" },
	};
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .args = { P(ctx) },
				    .regions = regions, .nr_regions = sock ? 2 : 1 };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	uint64_t r0 = ~0ull;
	CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, want);
	CHECK_EQ_U64(kbpf_prog_run(p, ctx, &r0), 0);
	CHECK_EQ_U64(r0, want);
}

static struct kbpf_prog *create(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt,
				struct kbpf_map **maps, size_t nr_maps, int jit)
{
	char log[4096] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				    .maps = maps, .nr_maps = nr_maps, .jit = jit, .log_buf = log,
				    .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, cnt, &o, &p);
	if (ret)
		fprintf(stderr, "create %s: %d %s\n", type, ret, log);
	CHECK_EQ_U64(ret, 0);
	return p;
}

/* key 0's socket: (protocol << 8 | state), released; 0xff if the slot is empty */
static const struct bpf_insn lookup_sock[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0xff),
	BPF_EXIT_INSN(),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct bpf_sock, protocol)),
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, offsetof(struct bpf_sock, state)),
	BPF_EMIT_CALL(BPF_FUNC_sk_release),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_6, 8),
	BPF_ALU64_REG(BPF_OR, BPF_REG_6, BPF_REG_7),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
	BPF_EXIT_INSN(),
};

/* key 0's xdp socket: its queue_id; XDP_ABORTED (0) ... 0x1ff if empty */
static const struct bpf_insn lookup_xsk[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0x1ff),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, offsetof(struct bpf_xdp_sock, queue_id)),
	BPF_EXIT_INSN(),
};

static void test_program_lookups(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *maps[3] = { mkmap(BPF_MAP_TYPE_SOCKMAP, 4), NULL, mkmap(BPF_MAP_TYPE_XSKMAP, 4) };
	struct kbpf_map_def hd = { .sz = sizeof(hd), .type = BPF_MAP_TYPE_SOCKHASH, .key_size = 4, .value_size = 8,
				   .max_entries = 4 };
	struct kbpf_linux_sock tcp = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_ESTABLISHED);
	struct kbpf_linux_sock udp = mksock(AF_INET6, SOCK_DGRAM, IPPROTO_UDP, BPF_TCP_CLOSE);
	struct kbpf_linux_sock xsk = mksock(AF_XDP, SOCK_RAW, 0, 0);
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	uint8_t buf[256 + 64] = { 0 }, xbuf[256 + 64] = { 0 };
	uint32_t k0 = 0;

	CHECK(host);
	CHECK_EQ_U64(kbpf_map_create(&hd, &maps[1]), 0);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 256, 64), 0);
	CHECK_EQ_U64(kbpf_linux_xdp_init(&xdp, xbuf, sizeof(xbuf), 256, 64), 0);
	xsk.xsk.queue_id = 5;
	for (int jit = 0; jit < 2 && host; jit++) {
		for (int h = 0; h < 2; h++) {
			struct kbpf_map *mm[1] = { maps[h] };
			struct kbpf_prog *p = create(host, "sched_cls", lookup_sock, N(lookup_sock), mm, 1, jit);
			if (!p)
				continue;
			kbpf_map_delete(maps[h], &k0);
			run_both(p, &skb, sizeof(skb), NULL, 0xff);
			CHECK_EQ_U64(kbpf_linux_sock_map_update(maps[h], &k0, h ? &udp : &tcp, BPF_ANY), 0);
			run_both(p, &skb, sizeof(skb), h ? &udp : &tcp,
				 h ? (IPPROTO_UDP << 8 | BPF_TCP_CLOSE) : (IPPROTO_TCP << 8 | BPF_TCP_ESTABLISHED));
			kbpf_prog_free(p);
		}
		struct kbpf_map *mm[1] = { maps[2] };
		struct kbpf_prog *p = create(host, "xdp", lookup_xsk, N(lookup_xsk), mm, 1, jit);
		if (!p)
			continue;
		kbpf_map_delete(maps[2], &k0);
		run_both(p, &xdp, sizeof(xdp), NULL, 0x1ff);
		CHECK_EQ_U64(kbpf_linux_sock_map_update(maps[2], &k0, &xsk, BPF_ANY), 0);
		run_both(p, &xdp, sizeof(xdp), &xsk, 5);
		kbpf_prog_free(p);
	}
	for (size_t i = 0; i < N(maps); i++)
		kbpf_map_free(maps[i]);
	kbpf_host_free(host);
}

static int verify(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt,
		  struct kbpf_map **maps, size_t nr_maps, char *log, size_t log_size)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .maps = maps, .nr_maps = nr_maps, .log_buf = log, .log_size = log_size };
	log[0] = 0;
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

/* The verifier's socket-map rules, with Linux's messages. */
static void test_verifier_rules(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *maps[2] = { mkmap(BPF_MAP_TYPE_SOCKMAP, 4), mkmap(BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, 8) };
	char log[4096];
	/* the reference is never released */
	const struct bpf_insn leak[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	/* bpf_map_update_elem(map, &key, &stack_value, 0), bpf_map_delete_elem(map, &key) */
	const struct bpf_insn update_stack[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_MOV64_IMM(BPF_REG_4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	const struct bpf_insn del[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_delete_elem), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	/* bpf_map_update_elem(sockmap, &key, sk from a lookup of the same map, 0) */
	const struct bpf_insn update_sock[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_IMM(BPF_REG_4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_EMIT_CALL(BPF_FUNC_sk_release), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK(host);
	if (!host)
		return;
	CHECK_EQ_U64(verify(host, "sk_skb", leak, N(leak), maps, 1, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "Unreleased reference id=2 alloc_insn=5");
	CHECK_EQ_U64(verify(host, "sched_cls", update_stack, N(update_stack), maps, 1, log, sizeof(log)),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "R3 type=fp expected=");
	CHECK_EQ_U64(verify(host, "sched_cls", update_sock, N(update_sock), maps, 1, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "sk_skb", update_sock, N(update_sock), maps, 1, log, sizeof(log)),
		     (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot update sockmap in this context");
	CHECK_EQ_U64(verify(host, "sock_ops", del, N(del), maps, 1, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "sk_skb", del, N(del), maps, 1, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot update sockmap in this context");
	/* bpf_sk_redirect_map(skb, map, 0, 0): a SOCKMAP, not a SOCKHASH (nor an array) */
	const struct bpf_insn redirect[] = {
		BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_sk_redirect_map), BPF_EXIT_INSN(),
	};
	struct kbpf_map_def hd = { .sz = sizeof(hd), .type = BPF_MAP_TYPE_SOCKHASH, .key_size = 4, .value_size = 4,
				   .max_entries = 2 };
	struct kbpf_map *hash = NULL;
	CHECK_EQ_U64(kbpf_map_create(&hd, &hash), 0);
	CHECK_EQ_U64(verify(host, "sk_skb", redirect, N(redirect), maps, 1, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "sk_skb", redirect, N(redirect), &hash, 1, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot pass map_type 18 into func bpf_sk_redirect_map#52");
	CHECK_EQ_U64(verify(host, "sk_skb", leak, N(leak), &hash, 1, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "Unreleased reference id=2 alloc_insn=5");
	kbpf_map_free(hash);
	/* a reuseport array is for bpf_sk_select_reuseport only */
	CHECK_EQ_U64(verify(host, "sched_cls", leak, N(leak), maps + 1, 1, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot pass map_type 20 into func bpf_map_lookup_elem#1");
	kbpf_map_free(maps[0]);
	kbpf_map_free(maps[1]);
	kbpf_host_free(host);
}

#define MD(f) ((int)offsetof(struct sk_reuseport_md, f))

static void test_sk_reuseport_type(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = host ? kbpf_host_prog_type_find(host, "sk_reuseport") : NULL;
	struct kbpf_ctx_access_info info;
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK_EQ_U64(t->linux_type, BPF_PROG_TYPE_SK_REUSEPORT);
	CHECK_EQ_U64(t->ctx_size, sizeof(struct sk_reuseport_md));
	CHECK_EQ_U64(t->direct_packet_access, KBPF_PKT_ACCESS_RDONLY);
	CHECK_EQ_U64(t->load_caps, KBPF_CAP_BPF);
	CHECK(!t->has_ret_range);
	CHECK(ctx_ok(t, MD(data), 8, KBPF_ACCESS_READ, &info) && info.reg_type == KBPF_PTR_TO_PACKET);
	CHECK(ctx_ok(t, MD(data_end), 8, KBPF_ACCESS_READ, &info) && info.reg_type == KBPF_PTR_TO_PACKET_END);
	CHECK(!ctx_ok(t, MD(data), 4, KBPF_ACCESS_READ, NULL));
	CHECK(!ctx_ok(t, MD(data), 8, KBPF_ACCESS_WRITE, NULL));
	CHECK(ctx_ok(t, MD(sk), 8, KBPF_ACCESS_READ, &info) && info.reg_type == KBPF_PTR_TO_SOCKET);
	CHECK(ctx_ok(t, MD(migrating_sk), 8, KBPF_ACCESS_READ, &info) &&
	      info.reg_type == (KBPF_PTR_TO_SOCK_COMMON | KBPF_PTR_MAYBE_NULL));
	CHECK(ctx_ok(t, MD(hash), 4, KBPF_ACCESS_READ, NULL));
	CHECK(!ctx_ok(t, MD(hash), 2, KBPF_ACCESS_READ, NULL));
	CHECK(!ctx_ok(t, MD(hash), 4, KBPF_ACCESS_WRITE, NULL));
	CHECK(ctx_ok(t, MD(len), 1, KBPF_ACCESS_READ, &info) && info.ctx_field_size == 4);
	CHECK(ctx_ok(t, MD(ip_protocol) + 3, 1, KBPF_ACCESS_READ, NULL));
	CHECK(ctx_ok(t, MD(bind_inany) + 2, 2, KBPF_ACCESS_READ, NULL));
	CHECK(!ctx_ok(t, MD(eth_protocol), 1, KBPF_ACCESS_READ, NULL)); /* skb->protocol is 2 bytes */
	CHECK(ctx_ok(t, MD(eth_protocol), 2, KBPF_ACCESS_READ, NULL));
	CHECK(!ctx_ok(t, MD(hash) + 4, 4, KBPF_ACCESS_READ, NULL)); /* the padding */
	CHECK(!ctx_ok(t, (int)sizeof(struct sk_reuseport_md), 4, KBPF_ACCESS_READ, NULL));
	/* sk_reuseport_func_proto: its own helpers, then bpf_base_func_proto's (no sk base) */
	static const int32_t has[] = { BPF_FUNC_sk_select_reuseport, BPF_FUNC_skb_load_bytes,
				       BPF_FUNC_skb_load_bytes_relative, BPF_FUNC_get_socket_cookie,
				       BPF_FUNC_ktime_get_coarse_ns, BPF_FUNC_map_lookup_elem };
	static const int32_t hasnt[] = { BPF_FUNC_skc_to_tcp_sock, BPF_FUNC_perf_event_output,
					 BPF_FUNC_sk_lookup_tcp, BPF_FUNC_skb_store_bytes };
	for (size_t i = 0; i < N(has); i++)
		CHECK(t->get_func_proto(t, host, has[i]) != NULL);
	for (size_t i = 0; i < N(hasnt); i++)
		CHECK(t->get_func_proto(t, host, hasnt[i]) == NULL);
	kbpf_host_free(host);
}

/* key = ctx->hash; bpf_sk_select_reuseport(ctx, map, &key, 0) (its result unused: a
 * failed select leaves nothing selected); then SK_PASS if the packet's first byte, read
 * with bpf_skb_load_bytes, is 0x42, else SK_DROP. */
static const struct bpf_insn select_prog[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct sk_reuseport_md, hash)),
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_2, -4),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4),
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	BPF_EMIT_CALL(BPF_FUNC_sk_select_reuseport),
	BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	/* bpf_skb_load_bytes(ctx, 0, fp - 8, 1) */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, 0),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 1),
	BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_10, -8),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0x42, 2),
	BPF_MOV64_IMM(BPF_REG_0, SK_DROP),
	BPF_EXIT_INSN(),
	BPF_MOV64_IMM(BPF_REG_0, SK_PASS),
	BPF_EXIT_INSN(),
};

static void test_sk_reuseport_run(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *arr = mkmap(BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, 8), *sm = mkmap(BPF_MAP_TYPE_SOCKMAP, 8);
	struct kbpf_linux_sock a = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_LISTEN);
	struct kbpf_linux_sock b = a, other = a, outsider = mksock(AF_INET, SOCK_DGRAM, IPPROTO_UDP, BPF_TCP_CLOSE);
	struct kbpf_linux_reuseport ctx;
	struct kbpf_linux_sock *sel = NULL;
	uint8_t pkt[20] = { 0x42 };
	uint32_t k0 = 0, k1 = 1, k2 = 2, k3 = 3;

	a.reuseport_id = b.reuseport_id = 7;
	other.reuseport_id = 8;
	outsider.reuseport_id = 9;
	CHECK(host);
	if (!host)
		return;
	CHECK_EQ_U64(kbpf_linux_sock_map_update(arr, &k0, &a, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(arr, &k1, &b, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(arr, &k2, &other, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(arr, &k3, &outsider, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_reuseport_init(NULL, &a, pkt, sizeof(pkt), 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_linux_reuseport_init(&ctx, NULL, pkt, sizeof(pkt), 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_linux_reuseport_init(&ctx, &a, pkt, sizeof(pkt), 1), 0);
	CHECK(ctx.md.sk == &a.sk && ctx.md.len == sizeof(pkt) && ctx.md.ip_protocol == IPPROTO_TCP);

	/* bpf_sk_select_reuseport's answers, called as a program would */
	uint64_t c = P(&ctx);
	uint32_t k9 = 9;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k1), 0, 0), 0);
	CHECK(ctx.selected_sk == &b);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k9), 0, 0), (uint64_t)-ENOENT);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k2), 0, 0), (uint64_t)-EBADFD);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k3), 0, 0), (uint64_t)-EPROTOTYPE);
	other.sk.family = AF_INET6;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k2), 0, 0), (uint64_t)-EAFNOSUPPORT);
	/* a socket that left its group: -ENOENT from a reuseport array, -EINVAL from a sockmap */
	struct kbpf_linux_sock gone = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_ESTABLISHED);
	CHECK_EQ_U64(kbpf_map_update(arr, &k2, &(struct kbpf_linux_sock *){ &gone }, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k0, &gone, BPF_ANY), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(arr), P(&k2), 0, 0), (uint64_t)-ENOENT);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(sm), P(&k0), 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_linux_sock_map_update(sm, &k1, &a, BPF_ANY), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_select_reuseport, c, P(sm), P(&k1), 0, 0), 0);
	CHECK(ctx.selected_sk == &a);

	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_map *mm[1] = { arr };
		struct kbpf_prog *p = create(host, "sk_reuseport", select_prog, N(select_prog), mm, 1, jit);
		if (!p)
			continue;
		CHECK_EQ_U64(kbpf_linux_reuseport_init(&ctx, &a, pkt, sizeof(pkt), 1), 0);
		sel = NULL;
		CHECK_EQ_U64(kbpf_linux_reuseport_run(p, &ctx, &sel), 0);
		CHECK(sel == &b);
		ctx.md.hash = 0;
		CHECK_EQ_U64(kbpf_linux_reuseport_run(p, &ctx, &sel), 0);
		CHECK(sel == &a);
		ctx.md.hash = 9; /* no such slot: passes, nothing selected */
		CHECK_EQ_U64(kbpf_linux_reuseport_run(p, &ctx, &sel), 0);
		CHECK(sel == NULL);
		/* checked mode: the context and the packet are all it reads */
		struct kbpf_mem_region regions[] = { { &ctx, sizeof(ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
						     { pkt, sizeof(pkt), KBPF_MEM_READ, "packet" } };
		ctx.md.hash = 1;
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .args = { P(&ctx) },
					    .regions = regions, .nr_regions = 2 };
		struct kbpf_run_result rr = { .sz = sizeof(rr) };
		CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
		CHECK_EQ_U64(rr.retval, SK_PASS);
		CHECK(ctx.selected_sk == &b);
		pkt[0] = 0x41;
		CHECK_EQ_U64(kbpf_linux_reuseport_run(p, &ctx, &sel), (uint64_t)-ECONNREFUSED);
		pkt[0] = 0x42;
		kbpf_prog_free(p);
	}
	kbpf_map_free(arr);
	kbpf_map_free(sm);
	kbpf_host_free(host);
}

/* ctx->sk; NULL: 0x100; skc_to_tcp_sock(sk): NULL 0x200, else its sk.protocol read
 * through the BTF pointer */
static const struct bpf_insn cast_prog[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct __sk_buff, sk)),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0x100),
	BPF_EXIT_INSN(),
	BPF_EMIT_CALL(BPF_FUNC_skc_to_tcp_sock),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0x200),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, offsetof(struct kbpf_linux_sock, sk.protocol)),
	BPF_EXIT_INSN(),
};

static void test_skc_casts(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_linux_sock tcp4 = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_ESTABLISHED);
	struct kbpf_linux_sock tcp6 = mksock(AF_INET6, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_LISTEN);
	struct kbpf_linux_sock tw = mksock(AF_INET, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_TIME_WAIT);
	struct kbpf_linux_sock req = mksock(AF_INET6, SOCK_STREAM, IPPROTO_TCP, BPF_TCP_NEW_SYN_RECV);
	struct kbpf_linux_sock udp6 = mksock(AF_INET6, SOCK_DGRAM, IPPROTO_UDP, BPF_TCP_CLOSE);
	struct kbpf_linux_sock unx = mksock(AF_UNIX, SOCK_STREAM, 0, BPF_TCP_ESTABLISHED);
	const struct kbpf_linux_sock *all[] = { &tcp4, &tcp6, &tw, &req, &udp6, &unx };
	/* which casts give each socket back, in the order of all[] */
	static const struct {
		int32_t id;
		unsigned mask;
	} casts[] = {
		{ BPF_FUNC_skc_to_tcp_sock, 0x03 },	     { BPF_FUNC_skc_to_tcp6_sock, 0x02 },
		{ BPF_FUNC_skc_to_tcp_timewait_sock, 0x04 }, { BPF_FUNC_skc_to_tcp_request_sock, 0x08 },
		{ BPF_FUNC_skc_to_udp6_sock, 0x10 },	     { BPF_FUNC_skc_to_unix_sock, 0x20 },
		{ BPF_FUNC_skc_to_mptcp_sock, 0x00 },
	};
	char log[4096];
	CHECK(host);
	if (!host)
		return;
	for (size_t c = 0; c < N(casts); c++)
		for (size_t s = 0; s < N(all); s++)
			CHECK_EQ_U64(CALL(host, casts[c].id, P(all[s]), 0, 0, 0, 0),
				     (casts[c].mask >> s) & 1 ? P(all[s]) : 0);

	/* without the host's BTF the result has no type: Linux's message for an id of 0 */
	CHECK_EQ_U64(verify(host, "sched_cls", cast_prog, N(cast_prog), NULL, 0, log, sizeof(log)),
		     (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "invalid return type 8 of func bpf_skc_to_tcp_sock#137");
	int btf = kbpf_host_btf_load_self(host);
	CHECK_EQ_U64(btf, 0);
	if (btf) {
		kbpf_host_free(host);
		return;
	}
	CHECK_EQ_U64(verify(host, "sched_cls", cast_prog, N(cast_prog), NULL, 0, log, sizeof(log)), 0);
	/* a read past the socket is refused (struct kbpf_linux_sock is 96 bytes) */
	struct bpf_insn past[N(cast_prog)];
	memcpy(past, cast_prog, sizeof(past));
	past[8].off = sizeof(struct kbpf_linux_sock);
	CHECK_EQ_U64(verify(host, "sched_cls", past, N(past), NULL, 0, log, sizeof(log)), (uint64_t)-EACCES);
	/* a cast takes a socket pointer, not a BTF pointer (not even another cast's result):
	 * kbpf's verifier cannot tell a BTF socket from a kfunc's object */
	const struct bpf_insn recast[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 2), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
		BPF_EMIT_CALL(BPF_FUNC_skc_to_tcp_sock), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_skc_to_tcp6_sock),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "sched_cls", recast, N(recast), NULL, 0, log, sizeof(log)), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "R1 type=ptr_ expected=sock_common, sock, tcp_sock, xdp_sock");
	/* the casts need CAP_PERFMON */
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				      .caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN, .log_buf = log,
				      .log_size = sizeof(log) };
	CHECK_EQ_U64(kbpf_prog_verify(cast_prog, N(cast_prog), &o, NULL), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "program of this type cannot use helper bpf_skc_to_tcp_sock#137");

	uint8_t buf[256 + 64] = { 0 };
	struct kbpf_linux_skb skb;
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 256, 64), 0);
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_prog *p = create(host, "sched_cls", cast_prog, N(cast_prog), NULL, 0, jit);
		if (!p)
			continue;
		skb.md.sk = NULL;
		run_both(p, &skb, sizeof(skb), NULL, 0x100);
		skb.md.sk = &tcp6.sk;
		run_both(p, &skb, sizeof(skb), &tcp6, IPPROTO_TCP);
		skb.md.sk = &udp6.sk;
		run_both(p, &skb, sizeof(skb), &udp6, 0x200);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

/* A BTF pointer where a helper wants a socket (ARG_PTR_TO_BTF_ID_SOCK_COMMON): the casts'
 * struct kbpf_linux_sock may be released, but no BTF pointer goes into a socket map,
 * whose lookups hand out what it holds as PTR_TO_SOCKET (a kfunc's object stored there
 * would be read as a socket). Before: any BTF pointer was taken as a socket. */
static void test_btf_socket_args(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *maps[1] = { mkmap(BPF_MAP_TYPE_SOCKMAP, 8) };
	char log[4096];
	/* sk = lookup(sockmap, 0); t = skc_to_tcp_sock(sk); release t if any, else sk */
	const struct bpf_insn release_cast[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_EMIT_CALL(BPF_FUNC_skc_to_tcp_sock), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_EMIT_CALL(BPF_FUNC_sk_release), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	/* bpf_map_update_elem(sockmap, &key, skc_to_tcp_sock(skb->sk), 0) */
	const struct bpf_insn update_cast[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 1), BPF_EXIT_INSN(),
		BPF_EMIT_CALL(BPF_FUNC_skc_to_tcp_sock), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_0), BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_IMM(BPF_REG_4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK(host);
	if (!host || kbpf_host_btf_load_self(host)) {
		CHECK(0);
		kbpf_map_free(maps[0]);
		kbpf_host_free(host);
		return;
	}
	CHECK_EQ_U64(verify(host, "sched_cls", release_cast, N(release_cast), maps, 1, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "sched_cls", update_cast, N(update_cast), maps, 1, log, sizeof(log)),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "R3 is of type kbpf_linux_sock but sock_common is expected");
	kbpf_map_free(maps[0]);
	kbpf_host_free(host);
}

static void test_fib_lookup(void)
{
	struct kbpf_host *host = linux_host();
	struct bpf_fib_lookup params;
	CHECK(host);
	if (!host)
		return;
	memset(&params, 0, sizeof(params));
	params.family = AF_INET;
	const uint64_t pp = P(&params), sz = sizeof(params);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz, 0, 0), BPF_FIB_LKUP_RET_NOT_FWDED);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz, BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_OUTPUT, 0),
		     BPF_FIB_LKUP_RET_NOT_FWDED);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz - 1, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz, 1u << 2, 0), (uint64_t)-EINVAL);
	params.family = AF_INET6;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz, 0, 0), BPF_FIB_LKUP_RET_NOT_FWDED);
	params.family = AF_UNIX;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_fib_lookup, 0, pp, sz, 0, 0), (uint64_t)-EAFNOSUPPORT);
	/* xdp and tc have it, GPL only; sk_reuseport does not */
	const struct bpf_insn prog[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -64, AF_INET), BPF_ST_MEM(BPF_DW, BPF_REG_10, -56, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -48, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -40, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -32, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
		BPF_MOV64_IMM(BPF_REG_3, sizeof(struct bpf_fib_lookup)), BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_fib_lookup), BPF_EXIT_INSN(),
	};
	_Static_assert(sizeof(struct bpf_fib_lookup) == 64, "the stack above holds one");
	char log[4096];
	CHECK_EQ_U64(verify(host, "sched_cls", prog, N(prog), NULL, 0, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "sk_reuseport", prog, N(prog), NULL, 0, log, sizeof(log)), (uint64_t)-EINVAL);
	uint8_t xbuf[256 + 64] = { 0 };
	struct kbpf_linux_xdp xdp;
	CHECK_EQ_U64(kbpf_linux_xdp_init(&xdp, xbuf, sizeof(xbuf), 256, 64), 0);
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_prog *p = create(host, "xdp", prog, N(prog), NULL, 0, jit);
		if (p)
			run_both(p, &xdp, sizeof(xdp), NULL, BPF_FIB_LKUP_RET_NOT_FWDED);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_update_checks);
	RUN(test_program_lookups);
	RUN(test_verifier_rules);
	RUN(test_sk_reuseport_type);
	RUN(test_sk_reuseport_run);
	RUN(test_skc_casts);
	RUN(test_btf_socket_args);
	RUN(test_fib_lookup);
	return test_summary();
}
