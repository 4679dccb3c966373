/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_l3_csum_replace, bpf_l4_csum_replace and bpf_csum_update
 * (hosts/linux/src/helpers_csum_replace.c): after rewriting an IPv4 address, TTL or port
 * and updating the checksums incrementally, each header checksums to 0xffff exactly as a
 * full recomputation would; the size-0 form takes a bpf_csum_diff result; Linux's
 * argument checks (flags, odd or out-of-packet offsets, from with size 0); UDP's
 * "no checksum" 0 is kept, and a result of 0 becomes 0xffff, with BPF_F_MARK_MANGLED_0;
 * csum_update is -ENOTSUPP on kbpf's CHECKSUM_NONE skb; and a sched_cls program doing a
 * source NAT gives the same bytes on the interpreter and the JIT. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include "test.h"
#include "test_linux_util.h"

#define CALL(host, id, a, b, c, d, e) (kbpf_host_helper_find(host, id, NULL)((a), (b), (c), (d), (e)))
#define P(x) ((uint64_t)(uintptr_t)(x))
#define IP_OFF 14        /* the IPv4 header after the Ethernet header */
#define IP_CSUM (IP_OFF + 10)
#define L4_OFF (IP_OFF + 20)
#define TCP_CSUM (L4_OFF + 16)
#define UDP_CSUM (L4_OFF + 6)

static struct kbpf_host *host;

/* The ones'-complement sum of len bytes, folded (0xffff for a header whose checksum is right). */
static uint16_t sum16(const uint8_t *p, size_t len, uint32_t acc)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The TCP/UDP pseudo-header's sum (addresses, protocol, length). */
static uint32_t pseudo(const uint8_t *ip, uint16_t l4_len)
{
	return (uint32_t)sum16(ip + 12, 8, 0) + ip[9] + l4_len;
}

/* An Ethernet + IPv4 + TCP (or UDP) frame with correct checksums. */
static void build(uint8_t *f, int udp)
{
	memset(f, 0, 14 + 20 + 20);
	f[12] = 0x08;
	uint8_t *ip = f + IP_OFF;
	ip[0] = 0x45, ip[3] = 40, ip[8] = 64, ip[9] = udp ? 17 : 6;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 1, 192, 168, 7, 9 }, 8);
	uint16_t c = (uint16_t)~sum16(ip, 20, 0);
	ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	uint8_t *l4 = f + L4_OFF;
	l4[0] = 0x30, l4[1] = 0x39, l4[2] = 0x00, l4[3] = 0x50; /* ports 12345 -> 80 */
	if (udp) {
		l4[5] = 20; /* length */
	} else {
		l4[12] = 0x50; /* data offset 5 */
		l4[13] = 0x02; /* SYN */
	}
	uint16_t lc = (uint16_t)~sum16(l4, 20, pseudo(ip, 20));
	uint8_t *cp = f + (udp ? UDP_CSUM : TCP_CSUM);
	cp[0] = (uint8_t)(lc >> 8), cp[1] = (uint8_t)lc;
}

static int ip_ok(const uint8_t *f)
{
	return sum16(f + IP_OFF, 20, 0) == 0xffff;
}

static int l4_ok(const uint8_t *f)
{
	return sum16(f + L4_OFF, 20, pseudo(f + IP_OFF, 20)) == 0xffff;
}

static void test_nat_source(void)
{
	uint8_t f[14 + 20 + 20 + 8];
	struct kbpf_linux_skb skb;
	build(f, 0);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, f, sizeof(f), 0, 54), 0);
	CHECK(ip_ok(f) && l4_ok(f));
	uint32_t from, to = htonl(0xc0a80101); /* 10.0.0.1 -> 192.168.1.1 */
	memcpy(&from, f + IP_OFF + 12, 4);
	memcpy(f + IP_OFF + 12, &to, 4);
	CHECK(!ip_ok(f) && !l4_ok(f));
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, from, to, 4), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, from, to, BPF_F_PSEUDO_HDR | 4), 0);
	CHECK(ip_ok(f) && l4_ok(f));
	/* a 16-bit field: the source port, then TTL + protocol's word in the IP header */
	uint16_t pf, pt = htons(40000);
	memcpy(&pf, f + L4_OFF, 2);
	memcpy(f + L4_OFF, &pt, 2);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, pf, pt, 2), 0);
	CHECK(l4_ok(f));
	uint16_t wf, wt;
	memcpy(&wf, f + IP_OFF + 8, 2);
	f[IP_OFF + 8]--; /* TTL */
	memcpy(&wt, f + IP_OFF + 8, 2);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, wf, wt, 2), 0);
	CHECK(ip_ok(f));
}

static void test_by_diff(void)
{
	uint8_t f[14 + 20 + 20 + 8];
	struct kbpf_linux_skb skb;
	build(f, 0);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, f, sizeof(f), 0, 54), 0);
	uint32_t from[2], to[2] = { htonl(0x01020304), htonl(0x05060708) };
	memcpy(from, f + IP_OFF + 12, 8);
	memcpy(f + IP_OFF + 12, to, 8);
	uint64_t diff = CALL(host, BPF_FUNC_csum_diff, P(from), 8, P(to), 8, 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, 0, diff, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, 0, diff, BPF_F_PSEUDO_HDR), 0);
	CHECK(ip_ok(f) && l4_ok(f));
	/* size 0 with a from: Linux's -EINVAL */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, 1, diff, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, 1, diff, 0), (uint64_t)-EINVAL);
}

static void test_bad_args(void)
{
	uint8_t f[14 + 20 + 20 + 8];
	struct kbpf_linux_skb skb;
	build(f, 0);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, f, sizeof(f), 0, 54), 0);
	uint8_t copy[sizeof(f)];
	memcpy(copy, f, sizeof(f));
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM + 1, 0, 0, 2), (uint64_t)-EFAULT);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), 54, 0, 0, 2), (uint64_t)-EFAULT); /* past the packet */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), 52, 0, 0, 2), 0);                /* its last 2 bytes */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), 0x10000, 0, 0, 2), (uint64_t)-EFAULT);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, 0, 0, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l3_csum_replace, P(&skb), IP_CSUM, 0, 0, BPF_F_PSEUDO_HDR | 2), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, 0, 0, 1ull << 20), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), TCP_CSUM, 0, 0, 8), (uint64_t)-EINVAL);
	CHECK(!memcmp(copy, f, 52)); /* nothing written but the allowed no-op at 52 */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_update, P(&skb), 1234, 0, 0, 0), (uint64_t)-524);
}

static void test_udp_zero(void)
{
	uint8_t f[14 + 20 + 20 + 8];
	struct kbpf_linux_skb skb;
	build(f, 1);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, f, sizeof(f), 0, 54), 0);
	/* a datagram sent without a checksum keeps none */
	f[UDP_CSUM] = f[UDP_CSUM + 1] = 0;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), UDP_CSUM, 1, 2, BPF_F_MARK_MANGLED_0 | 4), 0);
	CHECK(f[UDP_CSUM] == 0 && f[UDP_CSUM + 1] == 0);
	/* a change whose result folds to 0 is written as 0xffff (CSUM_MANGLED_0) */
	f[UDP_CSUM] = 0xff, f[UDP_CSUM + 1] = 0xfe; /* ~sum = 1: replacing 1 by 0 gives 0 */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), UDP_CSUM, htons(1), 0, BPF_F_MARK_MANGLED_0 | 2), 0);
	CHECK(f[UDP_CSUM] == 0xff && f[UDP_CSUM + 1] == 0xff);
	f[UDP_CSUM] = 0xff, f[UDP_CSUM + 1] = 0xfe;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_l4_csum_replace, P(&skb), UDP_CSUM, htons(1), 0, 2), 0);
	CHECK(f[UDP_CSUM] == 0 && f[UDP_CSUM + 1] == 0); /* without the flag, 0 stays */
}

/* sched_cls: source NAT of 10.0.0.1 to 192.168.1.1 with both checksums updated */
static const struct bpf_insn snat[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, IP_OFF + 12),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 4),
	BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),                        /* old address at fp-8 */
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0x0101a8c0),                /* new one at fp-4 */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, IP_OFF + 12),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4),
	BPF_MOV64_IMM(BPF_REG_4, 4),
	BPF_MOV64_IMM(BPF_REG_5, 0),
	BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, IP_CSUM),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_10, -8),
	BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_10, -4),
	BPF_MOV64_IMM(BPF_REG_5, 4),
	BPF_EMIT_CALL(BPF_FUNC_l3_csum_replace),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_2, TCP_CSUM),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_10, -8),
	BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_10, -4),
	BPF_MOV64_IMM(BPF_REG_5, BPF_F_PSEUDO_HDR | 4),
	BPF_EMIT_CALL(BPF_FUNC_l4_csum_replace),
	BPF_EXIT_INSN(),
};

static void test_program(void)
{
	uint8_t out[2][14 + 20 + 20 + 8] = { { 0 } };
	for (int jit = 0; jit <= 1; jit++) {
		char log[4096] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "sched_cls", .license = "GPL",
					     .jit = jit, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		int ret = kbpf_prog_create(snat, sizeof(snat) / sizeof(snat[0]), &po, &p);
		if (ret)
			fprintf(stderr, "create: %d: %s\n", ret, log);
		CHECK_EQ_U64(ret, 0);
		struct kbpf_linux_skb skb;
		build(out[jit], 0);
		CHECK_EQ_U64(kbpf_linux_skb_init(&skb, out[jit], sizeof(out[jit]), 0, 54), 0);
		uint64_t r0 = 1;
		CHECK_EQ_U64(p ? kbpf_prog_run(p, &skb, &r0) : -1, 0);
		CHECK_EQ_U64(r0, 0);
		CHECK(out[jit][IP_OFF + 12] == 192 && out[jit][IP_OFF + 15] == 1);
		CHECK(ip_ok(out[jit]) && l4_ok(out[jit]));
		kbpf_prog_free(p);
	}
	CHECK(!memcmp(out[0], out[1], sizeof(out[0])));
}

int main(void)
{
	host = linux_host();
	CHECK(host);
	RUN(test_nat_source);
	RUN(test_by_diff);
	RUN(test_bad_args);
	RUN(test_udp_zero);
	RUN(test_program);
	kbpf_host_free(host);
	return test_summary();
}
