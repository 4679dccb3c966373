/* SPDX-License-Identifier: Apache-2.0 */
/* One program type per PROG_ARRAY (Linux 6.1's bpf_prog_map_compatible): a tail call
 * hands the callee its caller's context, so a raw_tp.w program (whose ctx[0] is a buffer
 * it may write) reached from a socket filter would write through the first bytes of a
 * struct __sk_buff. Before, kbpf_map_update and the loader's .values put any program
 * in any PROG_ARRAY, and an object doing so crashed `kbpf run`. */
#include <errno.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* bpf_tail_call(ctx, map, 0); return 2 */
static const struct bpf_insn caller[] = {
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_tail_call),
	BPF_MOV64_IMM(BPF_REG_0, 2),
	BPF_EXIT_INSN(),
};
static const struct bpf_insn ret7[] = { BPF_MOV64_IMM(BPF_REG_0, 7), BPF_EXIT_INSN() };
/* *(u32 *)ctx[0] = 0x41 */
static const struct bpf_insn tp_write[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
	BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 0x41),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static char log_buf[4096];

static struct kbpf_prog *create(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt,
				struct kbpf_map *map, int *err)
{
	struct kbpf_prog *p = NULL;
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				    .trusted_unverified = 1, /* type NULL: the host's own program */
				    .maps = &map, .nr_maps = map ? 1 : 0, .log_buf = log_buf,
				    .log_size = sizeof(log_buf) };
	log_buf[0] = 0;
	*err = kbpf_prog_create(insns, cnt, &o, &p);
	return p;
}

static struct kbpf_map *prog_array(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 4, .name = "jmp" };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static void test_one_type(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map *map = prog_array(), *map2 = prog_array();
	int err;

	CHECK(host && !kbpf_linux_host_add(host));
	if (!host || !map || !map2)
		return;
	struct kbpf_prog *call = create(host, "socket_filter", caller, N(caller), map, &err);
	struct kbpf_prog *ok = create(host, "socket_filter", ret7, N(ret7), NULL, &err);
	struct kbpf_prog *bad = create(host, "raw_tracepoint.w", tp_write, N(tp_write), NULL, &err);
	struct kbpf_prog *raw = create(host, NULL, ret7, N(ret7), NULL, &err);
	CHECK(call && ok && bad && raw);
	uint32_t k = 0;
	/* the caller made the map a socket filters' one */
	CHECK_EQ_U64(kbpf_map_update(map, &k, &bad, BPF_ANY), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_map_update(map, &k, &ok, BPF_ANY), 0);
	k = 1; /* an unverified program is the host's own: not checked */
	CHECK_EQ_U64(kbpf_map_update(map, &k, &raw, BPF_ANY), 0);

	/* the other way round: the slot's program came first */
	k = 0;
	CHECK_EQ_U64(kbpf_map_update(map2, &k, &bad, BPF_ANY), 0);
	struct kbpf_prog *call2 = create(host, "socket_filter", caller, N(caller), map2, &err);
	CHECK(call2 == NULL);
	CHECK_EQ_U64(err, (uint64_t)-EINVAL);
	CHECK(strstr(log_buf, "the PROG_ARRAY holds programs of another type") != NULL);
	/* a program that has the map but never loads it does not claim it */
	static const struct bpf_insn dead_use[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *dead = create(host, "socket_filter", dead_use, N(dead_use), map2, &err);
	CHECK(dead != NULL);

	kbpf_prog_free(dead);
	kbpf_prog_free(call2);
	kbpf_prog_free(call);
	kbpf_map_free(map);
	kbpf_map_free(map2);
	kbpf_prog_free(ok);
	kbpf_prog_free(bad);
	kbpf_prog_free(raw);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_one_type);
	return test_summary();
}
