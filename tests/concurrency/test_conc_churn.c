/* SPDX-License-Identifier: Apache-2.0 */
/* Churn while programs run: on one shared host,
 *  - runner threads run long-lived (verified) programs without pause: an atomic counter
 *    on an array map, and a kfunc call through a set registered for the whole test;
 *  - creator threads create, verify, run and free programs (interpreter and JIT), one of
 *    which calls a kfunc of a set that keeps coming and going (0, -ENXIO while it is
 *    being unregistered, -EINVAL while it is gone: nothing else), and open, load, run
 *    and close a clang-built object (tests/bpf/maps.bpf.o) from memory;
 *  - a registrar thread registers and unregisters that kfunc set, registers new
 *    program types and check callbacks, and looks types up — on the host whose
 *    programs the runners run (the creators verify on a second host: see vhost).
 * Afterwards the runners' counts are exact and no thread saw anything unexpected.  This
 * binary is its own kfunc host (tests/host/kfunc_funcs.c, BTF from kbpf_add_host_btf). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <bpf/btf.h>
#include "conc_util.h"
#include "kfunc_funcs.h"
#include "test.h"

#define MAX_THREADS 8u

static unsigned nthreads;
static double seconds;
static void *obj_buf;
static size_t obj_size;

static const char *const conc_types[] = { "conc", NULL };

/* ctx: key (u64).  Adds 1 to the array value of key. */
static const char count_text[] =
	"r6 = r1\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u32 *)(r10 -4) = r1\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 1\n"
	"if r0 == 0 goto miss\n"
	"r1 = 1\n"
	"lock *(u64 *)(r0 +0) += r1\n"
	"r0 = 0\n"
	"exit\n"
	"miss:\n"
	"r0 = 1\n"
	"exit\n";

struct shared {
	struct kbpf_host *host;
	/* The host the creators verify against: the shared one, on which the registrar
	 * registers program types while they verify (the race TSan found in
	 * src/host/prog_type.c, now under a lock). KBPF_CONC_SEPARATE_VERIFY_HOST=1 gives
	 * them a second host instead. */
	struct kbpf_host *vhost;
	struct kbpf_map *array;
	uint32_t kt_inc_id, kt_sum5_id;
	atomic_int stop;
};

static struct kbpf_prog *make_prog(struct shared *s, struct kbpf_host *host, const char *name, const char *text,
				   int jit)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char log[512] = "";
	struct kbpf_prog *prog = NULL;

	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, log, sizeof(log)) == 0) {
		struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .name = name, .log_buf = log,
					    .log_size = sizeof(log), .maps = &s->array, .nr_maps = 1,
					    .jit = jit, .prog_type = "conc", .license = "GPL" };
		if (kbpf_prog_create(insns, cnt, &o, &prog))
			CONC_SAY("%s: %s\n", name, log);
	} else {
		CONC_SAY("%s: %s\n", name, log);
	}
	free(insns);
	return prog;
}

/* r1..r5 = 1..5; call kfunc btf_id; exit.  Returns the create's errno. */
static int make_kfunc_prog(struct shared *s, uint32_t btf_id, int jit, struct kbpf_prog **prog, char *log,
			   size_t log_size)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_MOV64_IMM(BPF_REG_2, 2),
		BPF_MOV64_IMM(BPF_REG_3, 3),
		BPF_MOV64_IMM(BPF_REG_4, 4),
		BPF_MOV64_IMM(BPF_REG_5, 5),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, (int32_t)btf_id),
		BPF_EXIT_INSN(),
	};
	/* Not verified: the verifier refuses kfunc calls until it checks them (verifier/cfg.c);
	 * creating still resolves the call and pins the set, which is what churns here. */
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = s->host, .name = "kfunc", .log_buf = log,
				    .log_size = log_size, .jit = jit };
	*prog = NULL;
	return kbpf_prog_create(insns, sizeof(insns) / sizeof(insns[0]), &o, prog);
}

struct runner {
	pthread_t thread;
	struct shared *s;
	unsigned id;
	struct kbpf_prog *count, *kf; /* made before the churn starts */
	uint64_t counted, kfunc_runs;
	unsigned errors;
};

static void *runner_main(void *p)
{
	struct runner *r = p;
	uint64_t key = r->id, r0;

	while (!atomic_load(&r->s->stop)) {
		if (kbpf_prog_run(r->count, &key, &r0) || r0 != 0)
			r->errors++;
		else
			r->counted++;
		/* kt_inc(1) = 2: the other registers are not its arguments */
		if (kbpf_prog_run(r->kf, NULL, &r0) || r0 != 2)
			r->errors++;
		else
			r->kfunc_runs++;
	}
	return NULL;
}

struct creator {
	pthread_t thread;
	struct shared *s;
	unsigned id;
	uint64_t progs, kfunc_ok, kfunc_enxio, kfunc_gone, objects;
	unsigned errors;
};

static int object_cycle(int jit)
{
	char log[1024] = "";
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .log_buf = log, .log_size = sizeof(log),
					      .jit = jit };
	struct kbpf_object *obj = NULL;
	uint8_t skb[192] = { 0 };
	uint64_t r0 = 0;
	int ret = kbpf_object_open_mem(obj_buf, obj_size, &opts, &obj);

	if (!ret)
		ret = kbpf_object_load(obj);
	if (!ret)
		ret = kbpf_program_run(kbpf_object_find_program(obj, "use_maps"), skb, &r0);
	if (!ret && r0 != 112)
		ret = -EDOM;
	if (ret)
		CONC_SAY("object cycle: %d: %s\n", ret, obj ? kbpf_object_log(obj) : log);
	kbpf_object_close(obj);
	return ret;
}

static void *creator_main(void *p)
{
	struct creator *c = p;
	char log[256];
	uint64_t r0;

	for (unsigned i = 0; !atomic_load(&c->s->stop); i++) {
		int jit = (i + c->id) & 1;
		struct kbpf_prog *prog = make_prog(c->s, c->s->vhost, "count_tmp", count_text, jit);
		uint64_t key = 8 + c->id; /* keys 8..15: counted by the creators, not checked */

		if (!prog || kbpf_prog_run(prog, &key, &r0) || r0 != 0)
			c->errors++;
		kbpf_prog_free(prog);
		c->progs++;

		int ret = make_kfunc_prog(c->s, c->s->kt_sum5_id, jit, &prog, log, sizeof(log));
		if (!ret) {
			if (kbpf_prog_run(prog, NULL, &r0) || r0 != 15)
				c->errors++;
			kbpf_prog_free(prog);
			c->kfunc_ok++;
		} else if (ret == -ENXIO) {
			c->kfunc_enxio++;
		} else if (ret == -EINVAL && strstr(log, "it is not registered on the host")) {
			c->kfunc_gone++;
		} else {
			CONC_SAY("kfunc create: %d: %s\n", ret, log);
			c->errors++;
		}
		if (obj_buf && (i & 7) == 0) {
			if (object_cycle(jit))
				c->errors++;
			c->objects++;
		}
	}
	return NULL;
}

struct registrar {
	struct shared *s;
	uint64_t rounds, types;
	unsigned errors;
};

static int check_none(uint32_t btf_id, void *cookie)
{
	(void)btf_id;
	(void)cookie;
	return 0;
}

static void *registrar_main(void *p)
{
	struct registrar *g = p;
	struct kbpf_kfunc funcs[] = { KBPF_KFUNC(kt_sum5, 0) };
	char log[256];

	for (unsigned i = 0; !atomic_load(&g->s->stop); i++) {
		struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .name = "churn", .funcs = funcs, .nr_funcs = 1,
						 .prog_types = conc_types, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_kfunc_set *set = NULL;
		char name[32];

		if (kbpf_host_kfunc_set_register(g->s->host, &o, &set)) {
			CONC_SAY("register: %s\n", log);
			g->errors++;
			break;
		}
		sched_yield();
		int ret = kbpf_host_kfunc_set_unregister(g->s->host, set, i & 1 ? KBPF_KFUNC_UNREG_NOWAIT : 0);
		if (ret == -EBUSY) /* pinned by a creator's program: wait this time */
			ret = kbpf_host_kfunc_set_unregister(g->s->host, set, 0);
		if (ret)
			g->errors++;
		/* a new program type while others verify against "conc", and a check callback
		 * coming and going on it */
		snprintf(name, sizeof(name), "conc_%u", i);
		struct kbpf_prog_type t = { .sz = sizeof(t), .name = name, .ctx_size = 16 };
		if (kbpf_host_prog_type_register(g->s->host, &t) ||
		    !kbpf_host_prog_type_find(g->s->host, name) || !kbpf_host_prog_type_find(g->s->host, "conc"))
			g->errors++;
		else
			g->types++;
		if (kbpf_host_kfunc_check_register(g->s->host, name, check_none, NULL) ||
		    kbpf_host_kfunc_check_register(g->s->host, name, NULL, NULL))
			g->errors++;
		g->rounds++;
	}
	return NULL;
}

static void test_churn(void)
{
	struct shared s = { 0 };
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 8, .max_entries = 16, .name = "counts" };
	struct kbpf_prog_type conc = { .sz = sizeof(conc), .name = "conc", .ctx_size = 16 };
	struct kbpf_kfunc inc[] = { KBPF_KFUNC(kt_inc, 0) };
	char log[256] = "";
	struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .name = "fixed", .funcs = inc, .nr_funcs = 1,
					 .prog_types = conc_types, .log_buf = log, .log_size = sizeof(log) };
	unsigned nrun = nthreads / 2, ncreate = nthreads - nthreads / 2;
	struct runner run[MAX_THREADS];
	struct creator cr[MAX_THREADS];
	struct registrar g = { .s = &s };
	pthread_t gt;
	uint64_t counted = 0, kruns = 0, progs = 0, kok = 0, kenxio = 0, kgone = 0, objects = 0;
	unsigned errors = 0;
	double t0;

	memset(run, 0, sizeof(run));
	memset(cr, 0, sizeof(cr));
	s.host = kbpf_host_new();
	CHECK(s.host != NULL);
	if (!s.host)
		return;
	CHECK_EQ_U64(kbpf_host_btf_load_self(s.host), 0);
	CHECK_EQ_U64(kbpf_host_add_map_helpers(s.host), 0);
	CHECK_EQ_U64(kbpf_host_prog_type_register(s.host, &conc), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(s.host, &o, NULL), 0);
	CHECK_EQ_U64(kbpf_map_create(&def, &s.array), 0);
	if (!getenv("KBPF_CONC_SEPARATE_VERIFY_HOST")) {
		s.vhost = s.host;
	} else {
		s.vhost = kbpf_host_new();
		CHECK(s.vhost && kbpf_host_add_map_helpers(s.vhost) == 0 &&
		      kbpf_host_prog_type_register(s.vhost, &conc) == 0);
	}
	int id = btf__find_by_name_kind(kbpf_host_btf(s.host), "kt_inc", BTF_KIND_FUNC);
	s.kt_inc_id = id > 0 ? (uint32_t)id : 0;
	id = btf__find_by_name_kind(kbpf_host_btf(s.host), "kt_sum5", BTF_KIND_FUNC);
	s.kt_sum5_id = id > 0 ? (uint32_t)id : 0;
	CHECK(s.kt_inc_id && s.kt_sum5_id);
	if (!s.array || !s.vhost || !s.kt_inc_id || !s.kt_sum5_id || test_failed_now)
		goto out;

	t0 = conc_now();
	for (unsigned i = 0; i < nrun; i++) {
		run[i] = (struct runner){ .s = &s, .id = i };
		run[i].count = make_prog(&s, s.host, "count", count_text, i & 1);
		CHECK(run[i].count != NULL);
		CHECK_EQ_U64(make_kfunc_prog(&s, s.kt_inc_id, i & 1, &run[i].kf, log, sizeof(log)), 0);
		if (!run[i].count || !run[i].kf)
			goto out;
	}
	for (unsigned i = 0; i < nrun; i++) {
		CHECK(pthread_create(&run[i].thread, NULL, runner_main, &run[i]) == 0);
	}
	for (unsigned i = 0; i < ncreate; i++) {
		cr[i] = (struct creator){ .s = &s, .id = i };
		CHECK(pthread_create(&cr[i].thread, NULL, creator_main, &cr[i]) == 0);
	}
	CHECK(pthread_create(&gt, NULL, registrar_main, &g) == 0);
	while (conc_now() - t0 < seconds)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	atomic_store(&s.stop, 1);
	pthread_join(gt, NULL);
	for (unsigned i = 0; i < nrun; i++) {
		pthread_join(run[i].thread, NULL);
		counted += run[i].counted;
		kruns += run[i].kfunc_runs;
		errors += run[i].errors;
	}
	for (unsigned i = 0; i < ncreate; i++) {
		pthread_join(cr[i].thread, NULL);
		progs += cr[i].progs;
		kok += cr[i].kfunc_ok;
		kenxio += cr[i].kfunc_enxio;
		kgone += cr[i].kfunc_gone;
		objects += cr[i].objects;
		errors += cr[i].errors;
	}
	CHECK_EQ_U64(errors, 0);
	CHECK_EQ_U64(g.errors, 0);
	CHECK(g.rounds > 0);
	/* the runners' counts, exactly */
	for (uint32_t k = 0; k < nrun; k++) {
		uint64_t v = 0;
		CHECK_EQ_U64(kbpf_map_lookup(s.array, &k, &v), 0);
		CHECK_EQ_U64(v, run[k].counted);
	}
	printf("churn: %u runner + %u creator threads + 1 registrar, %.2f s: %llu counted runs, %llu kfunc runs; "
	       "%llu programs created/verified/run/freed, kfunc creates %llu ok / %llu -ENXIO / %llu gone; "
	       "%llu objects opened/loaded/run/closed; %llu set register/unregister rounds, %llu program types\n",
	       nrun, ncreate, conc_now() - t0, (unsigned long long)counted, (unsigned long long)kruns,
	       (unsigned long long)progs, (unsigned long long)kok, (unsigned long long)kenxio,
	       (unsigned long long)kgone, (unsigned long long)objects, (unsigned long long)g.rounds,
	       (unsigned long long)g.types);
out:
	for (unsigned i = 0; i < nrun; i++) {
		kbpf_prog_free(run[i].count);
		kbpf_prog_free(run[i].kf);
	}
	kbpf_map_free(s.array);
	if (s.vhost != s.host)
		kbpf_host_free(s.vhost);
	kbpf_host_free(s.host);
}

int main(void)
{
	nthreads = conc_env("KBPF_CONC_THREADS", 4, 2, MAX_THREADS);
	seconds = conc_env("KBPF_CONC_SECONDS", 3, 1, 3600);
	obj_buf = conc_read_bpf_obj("maps", &obj_size);
	if (!obj_buf)
		printf("no tests/bpf/maps.bpf.o (clang missing?): objects not churned\n");
	RUN(test_churn);
	free(obj_buf);
	return test_summary();
}
