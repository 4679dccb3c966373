/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's load flags (kbpf_verify_opts.prog_flags, kbpf_prog_opts.prog_flags):
 * BPF_F_STRICT_ALIGNMENT refuses misaligned map value and packet accesses with Linux's
 * messages (packets as if at NET_IP_ALIGN 2), BPF_F_ANY_ALIGNMENT cancels it, an unknown
 * bit is -EINVAL, BPF_F_TEST_STATE_FREQ is the test_state_freq option. */
#include <errno.h>
#include <linux/bpf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

static struct kbpf_host *host;
static struct kbpf_map *map;
static char log_buf[1 << 16];

/* a 4-byte read at offset 2 of an 8-byte map value */
static const struct bpf_insn map_prog[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

/* a 4-byte read at the packet's start, and a 2-byte one at offset 2 */
static const struct bpf_insn pkt_prog[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 2),
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_2, 2),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static int verify(const struct bpf_insn *insns, size_t cnt, const char *type, uint32_t flags,
		  struct kbpf_verify_result *out)
{
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = type, .maps = &map, .nr_maps = 1,
				       .license = "GPL", .log_level = KBPF_LOG_STATS, .log_buf = log_buf,
				       .log_size = sizeof(log_buf), .prog_flags = flags };
	if (out)
		*out = (struct kbpf_verify_result){ .sz = sizeof(*out) };
	return kbpf_prog_verify(insns, cnt, &vo, out);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_map_value(void)
{
	CHECK_EQ_U64(verify(map_prog, N(map_prog), "socket_filter", 0, NULL), 0);
	CHECK_EQ_U64(verify(map_prog, N(map_prog), "socket_filter", BPF_F_STRICT_ALIGNMENT, NULL), (uint64_t)-EACCES);
	CHECK_CONTAINS(log_buf, "misaligned value access off 0+0+2 size 4");
	CHECK_EQ_U64(verify(map_prog, N(map_prog), "socket_filter", BPF_F_STRICT_ALIGNMENT | BPF_F_ANY_ALIGNMENT, NULL), 0);
}

static void test_packet(void)
{
	CHECK_EQ_U64(verify(pkt_prog, N(pkt_prog), "sched_cls", 0, NULL), 0);
	/* offset 2 is aligned once NET_IP_ALIGN's 2 bytes are added; offset 0 is not */
	CHECK_EQ_U64(verify(pkt_prog, N(pkt_prog), "sched_cls", BPF_F_STRICT_ALIGNMENT, NULL), (uint64_t)-EACCES);
	CHECK_CONTAINS(log_buf, "misaligned packet access off 2+0+0+0 size 4");
	CHECK(!strstr(log_buf, "+2 size 2"));
}

static void test_unknown_flag(void)
{
	CHECK_EQ_U64(verify(map_prog, N(map_prog), "socket_filter", 1u << 9, NULL), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log_buf, "unknown prog_flags 0x200");
	/* BPF_F_TEST_RND_HI32 (1 << 2): a flag of Linux's that kbpf does not model */
	CHECK_EQ_U64(verify(map_prog, N(map_prog), "socket_filter", 1u << 2, NULL), (uint64_t)-EINVAL);
}

static void test_state_freq(void)
{
	struct kbpf_verify_result a, b, r = { .sz = sizeof(r) };
	CHECK_EQ_U64(verify(pkt_prog, N(pkt_prog), "sched_cls", 0, &a), 0);
	CHECK_EQ_U64(verify(pkt_prog, N(pkt_prog), "sched_cls", BPF_F_TEST_STATE_FREQ, &b), 0);
	struct kbpf_verify_opts c = { .sz = sizeof(c), .host = host, .prog_type = "sched_cls", .test_state_freq = 1 };
	CHECK_EQ_U64(kbpf_prog_verify(pkt_prog, N(pkt_prog), &c, &r), 0);
	CHECK(b.total_states > a.total_states); /* a checkpoint at every prune point */
	CHECK_EQ_U64(b.total_states, r.total_states);
}

static void test_prog_create(void)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "socket_filter", .license = "GPL",
				     .maps = &map, .nr_maps = 1, .log_buf = log_buf, .log_size = sizeof(log_buf),
				     .prog_flags = BPF_F_STRICT_ALIGNMENT };
	struct kbpf_prog *p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(map_prog, N(map_prog), &po, &p), (uint64_t)-EACCES);
	CHECK_CONTAINS(log_buf, "misaligned value access");
	po.prog_flags = 0;
	CHECK_EQ_U64(kbpf_prog_create(map_prog, N(map_prog), &po, &p), 0);
	kbpf_prog_free(p);
}

int main(void)
{
	host = linux_host();
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1 };
	CHECK(host && !kbpf_map_create(&def, &map));
	RUN(test_map_value);
	RUN(test_packet);
	RUN(test_unknown_flag);
	RUN(test_state_freq);
	RUN(test_prog_create);
	kbpf_map_free(map);
	kbpf_host_free(host);
	return test_summary();
}
