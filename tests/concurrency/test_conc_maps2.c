/* SPDX-License-Identifier: Apache-2.0 */
/* LPM_TRIE, QUEUE and BLOOM_FILTER under threads: N program threads (half on the
 * interpreter, half JIT-compiled) each push a tagged value into one queue and pop one
 * back, add to a bloom filter and test what they added, and look up an address in an
 * LPM trie whose /8 is always there while a host thread inserts and deletes longer
 * prefixes under it. Nothing lost from the queue (pushed = popped + left), no false
 * negative from the bloom filter, every LPM lookup finds a prefix. Runs under TSan too
 * (scripts/test). */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ctx[0]: a value. r0 bit 0: the queue push failed, bit 1: the bloom filter missed it,
 * bit 2: the LPM lookup found nothing; bit 3: the pop failed. */
static const struct bpf_insn insns[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	BPF_MOV64_IMM(BPF_REG_7, 0),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	/* queue push (BPF_EXIST: never full) and pop */
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_IMM(BPF_REG_3, BPF_EXIST),
	BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_ALU64_IMM(BPF_OR, BPF_REG_7, 1),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
	BPF_EMIT_CALL(BPF_FUNC_map_pop_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_ALU64_IMM(BPF_OR, BPF_REG_7, 8),
	/* bloom: add, then test */
	BPF_LD_MAP_FD(BPF_REG_1, 1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
	BPF_LD_MAP_FD(BPF_REG_1, 1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	BPF_ALU64_IMM(BPF_OR, BPF_REG_7, 2),
	/* LPM: {32, 10.x.y.z} with x.y.z from the value */
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_10, -8),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_1, 8),
	BPF_ALU64_IMM(BPF_OR, BPF_REG_1, 10),
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -20),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -24, 32),
	BPF_LD_MAP_FD(BPF_REG_1, 2),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -24),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_ALU64_IMM(BPF_OR, BPF_REG_7, 4),
	BPF_JMP_IMM(BPF_JA, 0, 0, 2),
	/* write the value found: programs write into LPM values while the host replaces */
	BPF_MOV64_IMM(BPF_REG_1, 1),
	BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
	BPF_EXIT_INSN(),
};

struct shared {
	struct kbpf_map *maps[3];
	struct kbpf_prog *progs[2];
	unsigned iters;
	atomic_int stop;
	atomic_int bad;
};

struct worker {
	struct shared *s;
	int jit;
	unsigned id;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	for (unsigned i = 0; i < w->s->iters; i++) {
		uint64_t ctx[2] = { (uint64_t)w->id << 24 | i, 0 }, r0 = ~0ull;
		int err = kbpf_prog_run(w->s->progs[w->jit], ctx, &r0);
		/* a pop may take another thread's value, but never finds the queue empty:
		 * every thread pushed before it pops */
		if (err || r0) {
			CONC_SAY("thread %u iter %u: err %d r0 %llu\n", w->id, i, err, (unsigned long long)r0);
			atomic_fetch_add(&w->s->bad, 1);
		}
	}
	return NULL;
}

/* The host inserts and deletes prefixes under 10/8, replaces the /8's value, and
 * walks the trie. */
static void *host_fn(void *arg)
{
	struct shared *s = arg;
	struct kbpf_map *lpm = s->maps[2];
	for (uint32_t i = 0; !atomic_load(&s->stop); i++) {
		struct { uint32_t len; uint8_t ip[4]; } k = { 9 + i % 24, { 10, (uint8_t)i, (uint8_t)(i >> 3), 1 } }, next;
		uint64_t v = i;
		kbpf_map_update(lpm, &k, &v, BPF_ANY);
		if (i % 3)
			kbpf_map_delete(lpm, &k);
		k.len = 8;
		if (kbpf_map_update(lpm, &k, &v, BPF_EXIST))
			atomic_fetch_add(&s->bad, 1);
		if (kbpf_map_get_next_key(lpm, NULL, &next) && kbpf_map_get_next_key(lpm, NULL, &next) != -ENOENT)
			atomic_fetch_add(&s->bad, 1);
	}
	return NULL;
}

static void test_maps2_threads(void)
{
	unsigned nthreads = conc_env("KBPF_CONC_THREADS", 8, 2, 64);
	struct shared s = { .iters = conc_env("KBPF_CONC_ITERS", 20000, 100, 10000000) };
	struct kbpf_map_def defs[3] = {
		{ .sz = sizeof(defs[0]), .type = BPF_MAP_TYPE_QUEUE, .value_size = 8, .max_entries = 16, .name = "q" },
		{ .sz = sizeof(defs[0]), .type = BPF_MAP_TYPE_BLOOM_FILTER, .value_size = 8, .max_entries = 100000,
		  .name = "bloom" },
		{ .sz = sizeof(defs[0]), .type = BPF_MAP_TYPE_LPM_TRIE, .key_size = 8, .value_size = 8, .max_entries = 256,
		  .map_flags = BPF_F_NO_PREALLOC, .name = "lpm" },
	};
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U64(kbpf_map_create(&defs[i], &s.maps[i]), 0);
	struct { uint32_t len; uint8_t ip[4]; } k8 = { 8, { 10, 0, 0, 0 } };
	uint64_t zero = 0;
	CHECK_EQ_U64(kbpf_map_update(s.maps[2], &k8, &zero, 0), 0);
	struct kbpf_host *host = kbpf_host_new();
	CHECK(host && !kbpf_linux_host_add(host));
	for (int jit = 0; jit <= 1; jit++) {
		char log[1024] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "raw_tracepoint",
					     .license = "GPL", .maps = s.maps, .nr_maps = 3, .jit = jit,
					     .log_buf = log, .log_size = sizeof(log) };
		int err = kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &s.progs[jit]);
		if (err)
			fprintf(stderr, "%s\n", log);
		CHECK_EQ_U64(err, 0);
	}
	if (!s.progs[0] || !s.progs[1])
		return;
	pthread_t th[64], hth;
	struct worker w[64];
	for (unsigned i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .s = &s, .jit = (int)(i & 1), .id = i };
		pthread_create(&th[i], NULL, worker_fn, &w[i]);
	}
	pthread_create(&hth, NULL, host_fn, &s);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&s.stop, 1);
	pthread_join(hth, NULL);
	CHECK_EQ_U64(atomic_load(&s.bad), 0);
	uint64_t v;
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(s.maps[0], NULL, &v, 0), -ENOENT); /* each push popped */
	for (unsigned i = 0; i < nthreads; i++) {
		v = (uint64_t)i << 24 | (s.iters - 1);
		CHECK_EQ_U64(kbpf_map_lookup(s.maps[1], NULL, &v), 0);
	}
	kbpf_prog_free(s.progs[0]);
	kbpf_prog_free(s.progs[1]);
	for (int i = 0; i < 3; i++)
		kbpf_map_free(s.maps[i]);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_maps2_threads);
	return test_summary();
}
