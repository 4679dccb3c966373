/* SPDX-License-Identifier: Apache-2.0 */
/* Programs using LPM_TRIE, QUEUE, STACK and BLOOM_FILTER, on the interpreter and the
 * JIT: bpf_map_push_elem / pop_elem / peek_elem and an LPM lookup run; the verifier
 * keeps Linux's map/helper compatibility ("cannot pass map_type …"), takes an
 * uninitialized buffer for pop/peek, and refuses pushes and pops on BPF_F_RDONLY_PROG maps. */
#include <errno.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct kbpf_map *make_map(uint32_t type, uint32_t key, uint32_t value, uint32_t max, uint32_t flags)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = key, .value_size = value,
				    .max_entries = max, .map_flags = flags, .name = "m" };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static char log_buf[4096];

static int load(struct kbpf_host *host, struct kbpf_map **maps, size_t nr_maps, const struct bpf_insn *insns,
		size_t n, int jit, struct kbpf_prog **p)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "raw_tracepoint", .license = "GPL",
				     .maps = maps, .nr_maps = nr_maps, .jit = jit, .log_buf = log_buf,
				     .log_size = sizeof(log_buf) };
	log_buf[0] = 0;
	*p = NULL;
	return kbpf_prog_create(insns, n, &po, p);
}

static uint64_t run(const struct kbpf_prog *p)
{
	uint64_t ctx[4] = { 0 }, r0 = 0;
	CHECK_EQ_U64(kbpf_prog_run(p, ctx, &r0), 0);
	return r0;
}

/* r0 = push(map0, &ctx-less value 7, BPF_ANY) ? -1 : pop twice, returning first * 100 + second */
static const struct bpf_insn qs_prog[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 7),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_EXIT_INSN(),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 9),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
	/* pop into an uninitialized slot: fine for pop */
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
	BPF_EMIT_CALL(BPF_FUNC_map_pop_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_EXIT_INSN(),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -24),
	BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -16),
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 100),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -24),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
};

static void test_queue_stack_progs(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *q = make_map(BPF_MAP_TYPE_QUEUE, 0, 8, 4, 0);
		struct kbpf_map *s = make_map(BPF_MAP_TYPE_STACK, 0, 8, 4, 0);
		struct kbpf_prog *p;
		uint64_t v;
		int err = load(host, &q, 1, qs_prog, N(qs_prog), jit, &p);
		if (err)
			fprintf(stderr, "%s\n", log_buf);
		CHECK_EQ_U64(err, 0);
		/* queue: pops 7 (the oldest), peeks 9 */
		CHECK_EQ_U64(run(p), 709);
		CHECK_EQ_U64(kbpf_map_lookup_and_delete(q, NULL, &v, 0), 0);
		CHECK_EQ_U64(v, 9);
		kbpf_prog_free(p);
		CHECK_EQ_U64(load(host, &s, 1, qs_prog, N(qs_prog), jit, &p), 0);
		/* stack: pops 9 (the newest), peeks 7 */
		CHECK_EQ_U64(run(p), 907);
		CHECK_EQ_U64(run(p), 907);
		/* full: the first push fails with -E2BIG */
		v = 1;
		CHECK_EQ_U64(kbpf_map_push(s, &v, 0), 0);
		CHECK_EQ_U64(kbpf_map_push(s, &v, 0), 0);
		CHECK_EQ_U64(run(p), (uint64_t)-E2BIG);
		kbpf_prog_free(p);
		kbpf_map_free(q);
		kbpf_map_free(s);
	}
	kbpf_host_free(host);
}

/* r0 = *lookup(map0, {32, 10.1.2.3}) or -1 */
static const struct bpf_insn lpm_prog[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 32),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0x0302010a), /* 10.1.2.3 in network order */
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, -1),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_lpm_prog(void)
{
	struct kbpf_host *host = linux_host();
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *m = make_map(BPF_MAP_TYPE_LPM_TRIE, 8, 4, 8, BPF_F_NO_PREALLOC);
		struct kbpf_prog *p;
		CHECK_EQ_U64(load(host, &m, 1, lpm_prog, N(lpm_prog), jit, &p), 0);
		CHECK_EQ_U64(run(p), (uint64_t)-1);
		struct { uint32_t len; uint8_t ip[4]; } k = { 8, { 10, 0, 0, 0 } };
		uint32_t v = 8;
		CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0);
		CHECK_EQ_U64(run(p), 8);
		k.len = 24, k.ip[1] = 1, k.ip[2] = 2, v = 24;
		CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0);
		CHECK_EQ_U64(run(p), 24);
		k.ip[2] = 3;
		CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0); /* a sibling, not a match */
		CHECK_EQ_U64(run(p), 24);
		kbpf_prog_free(p);
		kbpf_map_free(m);
	}
	kbpf_host_free(host);
}

/* push the value at fp-8 (= ctx[0]'s address low bits stand-in: 5), peek 5 and 6 */
static const struct bpf_insn bloom_prog[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 5),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 6),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_6, 8),
	BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_6),
	BPF_EXIT_INSN(),
};

static void test_bloom_prog(void)
{
	struct kbpf_host *host = linux_host();
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *m = make_map(BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 100, BPF_F_ZERO_SEED);
		struct kbpf_prog *p;
		int err = load(host, &m, 1, bloom_prog, N(bloom_prog), jit, &p);
		if (err)
			fprintf(stderr, "%s\n", log_buf);
		CHECK_EQ_U64(err, 0);
		/* 5 present (0), 6 absent (-ENOENT, low byte 0xfe) */
		CHECK_EQ_U64(run(p), (uint64_t)-ENOENT);
		uint64_t v = 6;
		CHECK_EQ_U64(kbpf_map_push(m, &v, 0), 0);
		CHECK_EQ_U64(run(p), 0);
		kbpf_prog_free(p);
		kbpf_map_free(m);
	}
	kbpf_host_free(host);
}

/* call func on map 0 with r2 = fp-8 (initialized unless uninit); r3 = fp-16 (an
 * initialized value) for update, else 0; r4 = 0 */
static int verdict(struct kbpf_host *host, struct kbpf_map *m, int32_t func, int uninit)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
		uninit ? BPF_MOV64_IMM(BPF_REG_0, 0) : BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		func == BPF_FUNC_map_update_elem ? BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_10) : BPF_MOV64_IMM(BPF_REG_0, 0),
		func == BPF_FUNC_map_update_elem ? BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16) : BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(func),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *p;
	int err = load(host, &m, 1, insns, N(insns), 0, &p);
	kbpf_prog_free(p);
	return err;
}

static void test_verdicts(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *q = make_map(BPF_MAP_TYPE_QUEUE, 0, 8, 4, 0);
	struct kbpf_map *b = make_map(BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 4, 0);
	struct kbpf_map *h = make_map(BPF_MAP_TYPE_HASH, 8, 8, 4, 0);
	struct kbpf_map *l = make_map(BPF_MAP_TYPE_LPM_TRIE, 8, 8, 4, BPF_F_NO_PREALLOC);
	struct kbpf_map *ro = make_map(BPF_MAP_TYPE_STACK, 0, 8, 4, BPF_F_RDONLY_PROG);

	/* Linux checks the arguments first: a keyless map's key is a zero-sized read */
	CHECK(verdict(host, q, BPF_FUNC_map_lookup_elem, 0) < 0);
	CHECK_CONTAINS(log_buf, "invalid zero-sized read");
	CHECK(verdict(host, l, BPF_FUNC_map_pop_elem, 1) < 0);
	CHECK_CONTAINS(log_buf, "cannot pass map_type 11 into func bpf_map_pop_elem#88");
	CHECK(verdict(host, b, BPF_FUNC_map_pop_elem, 0) < 0);
	CHECK_CONTAINS(log_buf, "cannot pass map_type 30 into func bpf_map_pop_elem#88");
	CHECK(verdict(host, h, BPF_FUNC_map_peek_elem, 0) < 0);
	CHECK_CONTAINS(log_buf, "cannot pass map_type 1 into func bpf_map_peek_elem#89");
	CHECK(verdict(host, l, BPF_FUNC_map_push_elem, 0) < 0);
	CHECK_CONTAINS(log_buf, "cannot pass map_type 11 into func bpf_map_push_elem#87");
	CHECK_EQ_U64(verdict(host, l, BPF_FUNC_map_lookup_elem, 0), 0);
	CHECK_EQ_U64(verdict(host, l, BPF_FUNC_map_update_elem, 0), 0);
	CHECK_EQ_U64(verdict(host, l, BPF_FUNC_map_delete_elem, 0), 0);
	/* pop / peek fill the buffer: it may be uninitialized (a privileged load, as here,
	 * may also pass uninitialized stack to push: the verifier's rule, not the map's) */
	CHECK_EQ_U64(verdict(host, q, BPF_FUNC_map_pop_elem, 1), 0);
	CHECK_EQ_U64(verdict(host, q, BPF_FUNC_map_peek_elem, 1), 0);
	/* a bloom filter's peek reads the value it tests */
	CHECK_EQ_U64(verdict(host, b, BPF_FUNC_map_peek_elem, 0), 0);
	CHECK_EQ_U64(verdict(host, b, BPF_FUNC_map_push_elem, 0), 0);
	/* read-only for programs: peek yes, push and pop no */
	CHECK_EQ_U64(verdict(host, ro, BPF_FUNC_map_peek_elem, 1), 0);
	CHECK(verdict(host, ro, BPF_FUNC_map_pop_elem, 1) < 0);
	CHECK_CONTAINS(log_buf, "write into map forbidden");
	CHECK(verdict(host, ro, BPF_FUNC_map_push_elem, 0) < 0);
	CHECK_CONTAINS(log_buf, "write into map forbidden");
	kbpf_map_free(q);
	kbpf_map_free(b);
	kbpf_map_free(h);
	kbpf_map_free(l);
	kbpf_map_free(ro);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_queue_stack_progs);
	RUN(test_lpm_prog);
	RUN(test_bloom_prog);
	RUN(test_verdicts);
	return test_summary();
}
