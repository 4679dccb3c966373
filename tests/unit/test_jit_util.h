/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the JIT's unit tests: create a program twice — on the interpreter and
 * JIT-compiled — run both on the same memory (restored in between, so that pointers
 * into it are equal on both runs) and insist that return code, R0 and memory agree.
 * The interpreter is the reference; tests add hand-computed expectations on top. */
#ifndef KBPF_TEST_JIT_UTIL_H
#define KBPF_TEST_JIT_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h" /* white-box: compile flags (KBPF_JIT_NO_BMI2) */
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Compile flags for programs made by jit_check (0: as kbpf_prog_create does). */
static unsigned jit_test_flags;

struct jit_run {
	struct kbpf_host *host;
	struct kbpf_map *const *maps;
	size_t nr_maps;
	uint64_t args[5];
	void *mem; /* R1 = mem unless args[0] is set; compared after the runs */
	size_t mem_len;
	int expect_ret; /* the run's expected return (0, -E2BIG, -EINVAL) */
};

/* The JIT-compiled twin of a created program, compiled with jit_test_flags. */
static inline struct kbpf_prog *jit_make(const struct bpf_insn *insns, size_t n, const struct jit_run *r,
					 char *log, size_t log_size, int *err)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = r->host, .name = "t", .log_buf = log,
				     .log_size = log_size, .maps = r->maps, .nr_maps = r->nr_maps,
				     .jit = !jit_test_flags };
	struct kbpf_prog *p = NULL;

	*err = kbpf_prog_create(insns, n, &po, &p);
	if (*err || !jit_test_flags)
		return p;
	/* Reach the compile flags: recompile the interpreter-only program by hand. */
	*err = kbpf_jit_attach(p, jit_test_flags, log, log_size);
	if (*err) {
		kbpf_prog_free(p);
		p = NULL;
	}
	return p;
}

/* Run insns on both engines; both must agree and the run must return r->expect_ret.
 * Returns R0 (of the JIT). */
static inline uint64_t jit_check_at(const struct bpf_insn *insns, size_t n, const struct jit_run *r, int line)
{
	char log[512] = "";
	int err;
	struct kbpf_prog *pi = NULL, *pj = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = r->host, .name = "t", .log_buf = log,
				     .log_size = sizeof(log), .maps = r->maps, .nr_maps = r->nr_maps };
	uint8_t *before = NULL, *after_interp = NULL;
	struct kbpf_run_opts ri = { .sz = sizeof(ri) }, rj = { .sz = sizeof(rj) };
	struct kbpf_run_result rir = { .sz = sizeof(rir) }, rjr = { .sz = sizeof(rjr) };
	int ret_i, ret_j;

	err = kbpf_prog_create(insns, n, &po, &pi);
	if (err) {
		fprintf(stderr, "line %d: create failed %d: %s\n", line, err, log);
		test_failed_now = 1;
		return 0xdeadbeef;
	}
	pj = jit_make(insns, n, r, log, sizeof(log), &err);
	if (!pj || !kbpf_prog_is_jited(pj)) {
		fprintf(stderr, "line %d: not JIT-compiled (%d): %s\n", line, err, log);
		test_failed_now = 1;
		kbpf_prog_free(pi);
		kbpf_prog_free(pj);
		return 0xdeadbeef;
	}
	memcpy(ri.args, r->args, sizeof(ri.args));
	if (r->mem && !ri.args[0])
		ri.args[0] = (uint64_t)(uintptr_t)r->mem;
	memcpy(rj.args, ri.args, sizeof(rj.args));
	if (r->mem_len) {
		before = malloc(r->mem_len);
		after_interp = malloc(r->mem_len);
		memcpy(before, r->mem, r->mem_len);
	}
	ret_i = kbpf_prog_run_opts(pi, &ri, &rir);
	if (r->mem_len) {
		memcpy(after_interp, r->mem, r->mem_len);
		memcpy(r->mem, before, r->mem_len);
	}
	ret_j = kbpf_prog_run_opts(pj, &rj, &rjr);
	if (ret_i != ret_j || rir.retval != rjr.retval) {
		fprintf(stderr, "line %d: interpreter %d R0 0x%llx, JIT %d R0 0x%llx\n", line, ret_i,
			(unsigned long long)rir.retval, ret_j, (unsigned long long)rjr.retval);
		test_failed_now = 1;
	} else if (ret_j != r->expect_ret) {
		fprintf(stderr, "line %d: run returned %d, expected %d\n", line, ret_j, r->expect_ret);
		test_failed_now = 1;
	}
	if (r->mem_len && memcmp(after_interp, r->mem, r->mem_len)) {
		size_t k = 0;
		while (after_interp[k] == ((uint8_t *)r->mem)[k])
			k++;
		fprintf(stderr, "line %d: memory differs at byte %zu: interpreter 0x%02x, JIT 0x%02x\n", line, k,
			after_interp[k], ((uint8_t *)r->mem)[k]);
		test_failed_now = 1;
	}
	if (!ri.args[1] && !ri.args[2] && !ri.args[3] && !ri.args[4]) {
		/* R1 alone: the ctx entry (kbpf_prog_jited_func) must run it exactly as the
		 * five-argument entry did */
		kbpf_prog_fn fn = kbpf_prog_jited_func(pj);
		struct kbpf_prog_result fr = { 0, 0 };

		if (r->mem_len)
			memcpy(r->mem, before, r->mem_len);
		if (fn)
			fr = fn((void *)(uintptr_t)ri.args[0]);
		if (!fn || fr.err != ret_j || fr.retval != rjr.retval) {
			fprintf(stderr, "line %d: kbpf_prog_jited_func: %s %lld R0 0x%llx, the JIT's entry %d R0 0x%llx\n",
				line, fn ? "returned" : "NULL", (long long)fr.err, (unsigned long long)fr.retval, ret_j,
				(unsigned long long)rjr.retval);
			test_failed_now = 1;
		} else if (r->mem_len && memcmp(after_interp, r->mem, r->mem_len)) {
			fprintf(stderr, "line %d: memory after kbpf_prog_jited_func differs\n", line);
			test_failed_now = 1;
		}
		/* and the run entry kbpf_prog_run jumps into, with and without a retval */
		uint64_t r0 = 0x5a5a5a5a5a5a5a5aull;
		int rr;

		if (r->mem_len)
			memcpy(r->mem, before, r->mem_len);
		rr = kbpf_prog_run(pj, (void *)(uintptr_t)ri.args[0], &r0);
		if (rr != ret_j || r0 != rjr.retval) {
			fprintf(stderr, "line %d: kbpf_prog_run: %d R0 0x%llx, the JIT's entry %d R0 0x%llx\n", line, rr,
				(unsigned long long)r0, ret_j, (unsigned long long)rjr.retval);
			test_failed_now = 1;
		} else if (r->mem_len && memcmp(after_interp, r->mem, r->mem_len)) {
			fprintf(stderr, "line %d: memory after kbpf_prog_run differs\n", line);
			test_failed_now = 1;
		}
		if (r->mem_len)
			memcpy(r->mem, before, r->mem_len);
		rr = kbpf_prog_run(pj, (void *)(uintptr_t)ri.args[0], NULL);
		if (rr != ret_j) {
			fprintf(stderr, "line %d: kbpf_prog_run without retval: %d, the JIT's entry %d\n", line, rr,
				ret_j);
			test_failed_now = 1;
		}
	}
	free(before);
	free(after_interp);
	kbpf_prog_free(pi);
	kbpf_prog_free(pj);
	return rjr.retval;
}

/* R0 of a program without memory or helpers, checked on both engines. */
#define JR0(...)                                                                            \
	({                                                                                  \
		const struct bpf_insn p_[] = { __VA_ARGS__ };                               \
		jit_check_at(p_, ARRAY_SIZE(p_), &(struct jit_run){ 0 }, __LINE__);         \
	})

#endif
