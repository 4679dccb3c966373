/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_spin_lock across threads: N threads run one verified program (half on the
 * interpreter, half JIT-compiled, all on the same map) that increments two counters of
 * a map value under the value's bpf_spin_lock, with a plain load and store each (not an
 * atomic add: only the lock keeps them exact). Meanwhile a host thread reads the value
 * with BPF_F_LOCK and must always see both counters equal. At the end nothing is lost:
 * each counter is threads * iterations. Runs under TSan too (scripts/test). */
#include <pthread.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* struct pair { int a; struct bpf_spin_lock l; int b; } (12 bytes, the lock at 4) */
static struct btf *pair_btf(void)
{
	struct btf *b = btf__new_empty();

	if (!b)
		return NULL;
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);  /* [1] */
	btf__add_struct(b, "bpf_spin_lock", 4);     /* [2] */
	btf__add_field(b, "val", 1, 0, 0);
	btf__add_struct(b, "pair", 12);             /* [3] */
	btf__add_field(b, "a", 1, 0, 0);
	btf__add_field(b, "l", 2, 32, 0);
	btf__add_field(b, "b", 1, 64, 0);
	return b;
}

/* r6 = &value[key 0]; lock; a += 1; b += 1 (load, add, store); unlock; return a */
static const struct bpf_insn incr_insns[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, -1),
	BPF_EXIT_INSN(),
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
	BPF_EMIT_CALL(BPF_FUNC_spin_lock),
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, 0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
	BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_7, 0),
	BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, 8),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_8, 1),
	BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_8, 8),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
	BPF_EMIT_CALL(BPF_FUNC_spin_unlock),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
	BPF_EXIT_INSN(),
};

struct worker {
	pthread_t thread;
	struct kbpf_prog *prog;
	unsigned iters;
	unsigned errors;
};

static void *worker_main(void *p)
{
	struct worker *w = p;

	for (unsigned i = 0; i < w->iters; i++) {
		uint64_t r0 = 0;
		if (kbpf_prog_run(w->prog, NULL, &r0) || (int64_t)r0 <= 0)
			w->errors++;
	}
	return NULL;
}

struct reader {
	pthread_t thread;
	struct kbpf_map *map;
	atomic_int stop;
	unsigned reads, torn, errors;
};

/* BPF_F_LOCK lookups: the copy is made holding the lock, so a == b always. */
static void *reader_main(void *p)
{
	struct reader *r = p;
	uint32_t key = 0;

	while (!atomic_load(&r->stop)) {
		int32_t v[3];
		if (kbpf_map_lookup_flags(r->map, &key, v, BPF_F_LOCK)) {
			r->errors++;
			continue;
		}
		r->reads++;
		if (v[0] != v[2] || v[1] != 0)
			r->torn++;
	}
	return NULL;
}

static void test_spin_lock_counters(void)
{
	unsigned threads = conc_env("KBPF_CONC_THREADS", 4, 2, 64);
	unsigned iters = conc_env("KBPF_CONC_ITERS", 100000, 1, 100000000);
	struct kbpf_host *host = kbpf_host_new();
	struct btf *btf = pair_btf();
	struct kbpf_map *map = NULL;
	struct kbpf_prog *progs[2] = { NULL, NULL };
	struct worker w[64];
	struct reader r = { .stop = 0 };

	CHECK(host && !kbpf_linux_host_add(host) && btf);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 12,
				    .max_entries = 1, .name = "pair", .btf = btf, .btf_key_type_id = 1,
				    .btf_value_type_id = 3 };
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(map), 4);
	btf__free(btf);
	for (int jit = 0; jit < 2 && map; jit++) {
		char log[1024] = "";
		struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "syscall", .license = "GPL",
					    .maps = &map, .nr_maps = 1, .jit = jit, .log_buf = log,
					    .log_size = sizeof(log) };
		if (kbpf_prog_create(incr_insns, ARRAY_SIZE(incr_insns), &o, &progs[jit]))
			fprintf(stderr, "create (jit %d): %s\n", jit, log);
		CHECK(progs[jit] && (!jit || kbpf_prog_is_jited(progs[jit])));
	}
	if (test_failed_now)
		goto out;

	double t0 = conc_now();
	r.map = map;
	CHECK(pthread_create(&r.thread, NULL, reader_main, &r) == 0);
	for (unsigned t = 0; t < threads; t++) {
		w[t] = (struct worker){ .prog = progs[t % 2], .iters = iters };
		CHECK(pthread_create(&w[t].thread, NULL, worker_main, &w[t]) == 0);
	}
	unsigned errors = 0;
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(w[t].thread, NULL);
		errors += w[t].errors;
	}
	atomic_store(&r.stop, 1);
	pthread_join(r.thread, NULL);

	uint32_t key = 0;
	int32_t v[3];
	CHECK_EQ_U64(kbpf_map_lookup(map, &key, v), 0);
	printf("%u threads x %u runs (interp and JIT): a = %d, b = %d in %.2f s; %u locked host reads, %u torn\n",
	       threads, iters, v[0], v[2], conc_now() - t0, r.reads, r.torn);
	CHECK_EQ_U64(errors, 0);
	CHECK_EQ_U64((uint64_t)v[0], (uint64_t)threads * iters);
	CHECK_EQ_U64((uint64_t)v[2], (uint64_t)threads * iters);
	CHECK_EQ_U64(r.torn, 0);
	CHECK_EQ_U64(r.errors, 0);
	/* the lock is free at the end: a locked update goes through */
	int32_t nv[3] = { 7, 0, 7 };
	CHECK_EQ_U64(kbpf_map_update(map, &key, nv, BPF_F_LOCK), 0);
out:
	kbpf_prog_free(progs[0]);
	kbpf_prog_free(progs[1]);
	kbpf_map_free(map);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_spin_lock_counters);
	return test_summary();
}
