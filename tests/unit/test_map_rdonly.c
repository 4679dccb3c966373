/* SPDX-License-Identifier: Apache-2.0 */
/* Read-only maps (docs/maps.md, "Frozen read-only arrays"): a BPF_F_RDONLY_PROG ARRAY's
 * values are write-protected when it is frozen, for the host as for programs, and only
 * then does the verifier take loads from them as constants (Linux 6.12's
 * bpf_map_is_rdonly). Writes after the freeze are refused (-EPERM) or fault; the freeze
 * waits for host writes in flight; an outer map's template gives no constants. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <kbpf/host.h>
#include <kbpf/isa.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "test.h"

static struct kbpf_map *mk(uint32_t type, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = vs,
				    .max_entries = max, .map_flags = flags, .name = "ro" };
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

/* An ARRAY of one u64 holding v, frozen if asked. */
static struct kbpf_map *mk_value(uint32_t flags, uint64_t v, int frozen)
{
	struct kbpf_map *m = mk(BPF_MAP_TYPE_ARRAY, 8, 1, flags);
	uint32_t key = 0;

	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_ANY), 0);
	if (frozen)
		CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	return m;
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

/* Write one byte at p in a child process: 42 if the write faulted, 0 if it went
 * through, else what went wrong. */
static int child_write(void *p)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		signal(SIGSEGV, on_segv);
		signal(SIGBUS, on_segv);
		*(volatile uint8_t *)p = 0x5a;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGSEGV ? 42 : -2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -3;
}

static void test_frozen_rdonly_prog_is_write_protected(void)
{
	struct kbpf_map *m = mk(BPF_MAP_TYPE_ARRAY, 16, 1, BPF_F_RDONLY_PROG);
	uint32_t key = 0;
	uint8_t v[16] = { 1, 2, 3, 4 }, out[16];
	void *p, *addr;

	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_ANY), 0);
	p = kbpf_map_lookup_elem(m, &key);
	CHECK(p != NULL);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 4, &addr), 0);
	CHECK(addr == (char *)p + 4);
	CHECK_EQ_U64(child_write(p), 0); /* writable until frozen */

	CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	/* every kbpf path that writes values refuses */
	v[0] = 9;
	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_ANY), -EPERM);
	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_EXIST), -EPERM);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, v, BPF_ANY), -EPERM);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EPERM);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EINVAL); /* arrays: never */
	/* the pointers stay valid for reading, the same as before */
	CHECK(kbpf_map_lookup_elem(m, &key) == p);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 4, &addr), 0);
	CHECK(addr == (char *)p + 4);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
	CHECK_EQ_U64(out[0], 1);
	CHECK_EQ_U64(((uint8_t *)p)[3], 4);
	/* ... and a write through them faults */
	CHECK_EQ_U64(child_write(p), 42);
	CHECK_EQ_U64(child_write(addr), 42);
	CHECK_EQ_U64(kbpf_map_freeze(m), -EBUSY);
	kbpf_map_free(m);
}

/* Linux reads constants only from what BPF_F_RDONLY_PROG arrays are: other maps keep
 * writable values when frozen (frozen means read-only for the host side's calls). */
static void test_other_frozen_maps_unchanged(void)
{
	uint32_t key = 0;
	struct kbpf_map *plain = mk(BPF_MAP_TYPE_ARRAY, 8, 1, 0);
	struct kbpf_map *pcpu = mk(BPF_MAP_TYPE_PERCPU_ARRAY, 8, 1, BPF_F_RDONLY_PROG);

	CHECK_EQ_U64(kbpf_map_freeze(plain), 0);
	CHECK_EQ_U64(kbpf_map_freeze(pcpu), 0);
	CHECK_EQ_U64(child_write(kbpf_map_lookup_elem(plain, &key)), 0);
	CHECK_EQ_U64(child_write(kbpf_map_lookup_elem(pcpu, &key)), 0);
	kbpf_map_free(plain);
	kbpf_map_free(pcpu);
}

struct writer {
	struct kbpf_map *map;
	uint64_t last_ok; /* the last value an update stored */
	int started;      /* __atomic */
	int refused;      /* the errno that ended the loop */
};

static void *write_until_refused(void *arg)
{
	struct writer *w = arg;
	uint32_t key = 0;

	for (uint64_t i = 1;; i++) {
		int err = kbpf_map_update(w->map, &key, &i, BPF_ANY);
		if (err) {
			w->refused = err;
			return NULL;
		}
		w->last_ok = i;
		__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	}
}

/* A freeze racing with host updates: each update either lands before the values are
 * protected or is refused; none faults, and the value is the last one stored. */
static void test_freeze_waits_for_host_writes(void)
{
	for (int round = 0; round < 50; round++) {
		struct writer w = { .map = mk(BPF_MAP_TYPE_ARRAY, 8, 1, BPF_F_RDONLY_PROG) };
		pthread_t t;
		uint32_t key = 0;
		uint64_t v = 0;

		CHECK_EQ_U64(pthread_create(&t, NULL, write_until_refused, &w), 0);
		while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
			sched_yield();
		CHECK_EQ_U64(kbpf_map_freeze(w.map), 0);
		pthread_join(t, NULL);
		CHECK_EQ_U64(w.refused, -EPERM);
		CHECK_EQ_U64(kbpf_map_lookup(w.map, &key, &v), 0);
		CHECK_EQ_U64(v, w.last_ok);
		kbpf_map_free(w.map);
	}
}

/* --- the verifier's constants --------------------------------------------------- */

static int plain_access(const struct kbpf_prog_type *t, int off, int size, enum kbpf_access_type a,
			struct kbpf_ctx_access_info *info)
{
	(void)t;
	(void)info;
	return a == KBPF_ACCESS_READ && off >= 0 && off + size <= 64 && off % size == 0;
}

static struct kbpf_host *host_new(void)
{
	struct kbpf_host *h = kbpf_host_new();
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "t_plain", .ctx_size = 64,
				    .is_valid_access = plain_access };

	kbpf_host_add_map_helpers(h);
	CHECK_EQ_U64(kbpf_host_prog_type_register(h, &t), 0);
	return h;
}

/* Verify text over maps (map[idx:i]); the number of instructions processed in *processed. */
static int verify(struct kbpf_host *h, const char *text, struct kbpf_map **maps, size_t nr, uint32_t *processed,
		  char *log, size_t log_size)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[256];

	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err))) {
		fprintf(stderr, "asm: %s\n", err);
		return -1000;
	}
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = h, .prog_type = "t_plain", .maps = maps,
				      .nr_maps = nr, .license = "GPL", .log_level = 1, .log_buf = log,
				      .log_size = log_size };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	int r = kbpf_prog_verify(insns, cnt, &o, &res);
	if (processed)
		*processed = res.insns_processed;
	free(insns);
	return r;
}

/* The value is 40; the branch to the read past the value's end is taken only if it is
 * not known to be. */
static const char *prune_text = "r1 = map[idx:0][0]+0\n"
				"r0 = *(u32 *)(r1 +0)\n"
				"if r0 != 40 goto bad\n"
				"exit\n"
				"bad:\n"
				"r0 = *(u64 *)(r1 +8)\n"
				"exit\n";

static void test_verifier_reads_constant(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_map *ro = mk_value(BPF_F_RDONLY_PROG, 40, 1);
	struct kbpf_map *unfrozen = mk_value(BPF_F_RDONLY_PROG, 40, 0);
	struct kbpf_map *writable = mk_value(0, 40, 1);
	static char log[1 << 14];

	CHECK_EQ_U64(verify(h, prune_text, &ro, 1, NULL, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(h, prune_text, &unfrozen, 1, NULL, log, sizeof(log)), -EACCES);
	CHECK_CONTAINS(log, "invalid access to map value, value_size=8 off=8 size=8");
	CHECK_EQ_U64(verify(h, prune_text, &writable, 1, NULL, log, sizeof(log)), -EACCES);
	CHECK_CONTAINS(log, "invalid access to map value, value_size=8 off=8 size=8");

	/* a branch on the constant is walked one way only */
	const char *both = "r1 = map[idx:0][0]+0\n"
			   "r0 = *(u32 *)(r1 +0)\n"
			   "if r0 != 40 goto l\n"
			   "r0 = 1\n"
			   "r0 += 1\n"
			   "r0 += 1\n"
			   "l:\n"
			   "exit\n";
	uint32_t n_ro = 0, n_unknown = 0;
	CHECK_EQ_U64(verify(h, both, &ro, 1, &n_ro, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(h, both, &unfrozen, 1, &n_unknown, log, sizeof(log)), 0);
	CHECK(n_ro > 0 && n_ro < n_unknown);

	/* a freeze after the verdict changes nothing for a program already verified;
	 * one verified after it gets the constant */
	CHECK_EQ_U64(kbpf_map_freeze(unfrozen), 0);
	CHECK_EQ_U64(verify(h, prune_text, &unfrozen, 1, NULL, log, sizeof(log)), 0);

	kbpf_map_free(ro);
	kbpf_map_free(unfrozen);
	kbpf_map_free(writable);
	kbpf_host_free(h);
}

/* What the verifier read is what the program reads at run time, on the checked
 * interpreter (which stops a program reaching code the verifier judged unreachable)
 * and on the JIT. */
static void test_constant_runs(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_map *ro = mk_value(BPF_F_RDONLY_PROG, 40, 1);
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[256], log[512];
	uint8_t ctx[64] = { 0 };

	CHECK_EQ_U64(kbpf_asm(prune_text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)), 0);
	for (int jit = 0; jit < 2; jit++) {
#ifndef __x86_64__
		if (jit) { /* kbpf's JIT is x86-64's only */
			printf("JIT run skipped: no JIT off x86-64\n");
			break;
		}
#endif
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = h, .prog_type = "t_plain", .maps = &ro,
					     .nr_maps = 1, .license = "GPL", .jit = jit, .log_buf = log,
					     .log_size = sizeof(log) };
		struct kbpf_prog *prog = NULL;
		uint64_t r0 = 0;

		CHECK_EQ_U64(kbpf_prog_create(insns, cnt, &po, &prog), 0);
		if (!prog)
			continue;
		if (jit) {
			CHECK(kbpf_prog_is_jited(prog));
			CHECK_EQ_U64(kbpf_prog_run(prog, ctx, &r0), 0);
			CHECK_EQ_U64(r0, 40);
		} else {
			struct kbpf_run_opts ro_opts = { .sz = sizeof(ro_opts), .flags = KBPF_RUN_CHECKED, .err = err,
							 .err_size = sizeof(err) };
			ro_opts.args[0] = (uint64_t)(uintptr_t)ctx;
			struct kbpf_run_result ro_res = { .sz = sizeof(ro_res) };
			CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro_opts, &ro_res), 0);
			CHECK_EQ_U64(ro_res.retval, 40);
		}
		kbpf_prog_free(prog);
	}
	free(insns);
	kbpf_map_free(ro);
	kbpf_host_free(h);
}

/* A pointer typed by an outer map's template may point into any inner map at run time:
 * frozen read-only template or not, no constants come from it (Linux's inner_map_meta is
 * a copy that is never frozen). */
static void test_inner_map_template_gives_no_constant(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_map *tmpl = mk_value(BPF_F_RDONLY_PROG, 40, 1);
	struct kbpf_map *inner = mk_value(BPF_F_RDONLY_PROG, 7, 1);
	struct kbpf_map *outer = NULL;
	static char log[1 << 14];
	struct kbpf_map_def od = { .sz = sizeof(od), .type = BPF_MAP_TYPE_ARRAY_OF_MAPS, .key_size = 4,
				   .value_size = 4, .max_entries = 1, .name = "outer", .inner_map = tmpl };
	uint32_t key = 0;

	CHECK_EQ_U64(kbpf_map_create(&od, &outer), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &key, inner, BPF_ANY), 0);
	const char *through_outer = "*(u32 *)(r10 -4) = 0\n"
				    "r2 = r10\n"
				    "r2 += -4\n"
				    "r1 = map[idx:0]\n"
				    "call bpf_map_lookup_elem#1\n"
				    "if r0 == 0 goto out\n"
				    "r1 = r0\n"
				    "r2 = r10\n"
				    "r2 += -4\n"
				    "call bpf_map_lookup_elem#1\n"
				    "if r0 == 0 goto out\n"
				    "r0 = *(u32 *)(r0 +0)\n"
				    "if r0 != 40 goto bad\n"
				    "exit\n"
				    "bad:\n"
				    "r0 = *(u64 *)(r10 +8)\n"
				    "out:\n"
				    "r0 = 0\n"
				    "exit\n";
	CHECK_EQ_U64(verify(h, through_outer, &outer, 1, NULL, log, sizeof(log)), -EACCES);
	CHECK_CONTAINS(log, "invalid read from stack R10 off=8 size=8");
	/* nor from the template named directly */
	CHECK_EQ_U64(verify(h, prune_text, &tmpl, 1, NULL, log, sizeof(log)), -EACCES);
	CHECK_CONTAINS(log, "5: (79) r0 = *(u64 *)(r1 +8)\ninvalid access to map value, value_size=8 off=8 size=8\n");
	/* the inner map itself, named directly, is an ordinary frozen read-only map */
	const char *seven = "r1 = map[idx:0][0]+0\n"
			    "r0 = *(u32 *)(r1 +0)\n"
			    "if r0 != 7 goto bad\n"
			    "exit\n"
			    "bad:\n"
			    "r0 = *(u64 *)(r1 +8)\n"
			    "exit\n";
	CHECK_EQ_U64(verify(h, seven, &inner, 1, NULL, log, sizeof(log)), 0);
	kbpf_map_free(outer);
	kbpf_map_free(tmpl);
	kbpf_map_free(inner);
	kbpf_host_free(h);
}

int main(void)
{
	RUN(test_frozen_rdonly_prog_is_write_protected);
	RUN(test_other_frozen_maps_unchanged);
	RUN(test_freeze_waits_for_host_writes);
	RUN(test_verifier_reads_constant);
	RUN(test_constant_runs);
	RUN(test_inner_map_template_gives_no_constant);
	return test_summary();
}
