/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the interpreter's unit tests: build a program from insn.h macros, run it in
 * both the fast and the checked mode, and insist the two agree. */
#ifndef KBPF_TEST_INTERP_UTIL_H
#define KBPF_TEST_INTERP_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <kbpf/kbpf.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Create a program (on host, may be NULL); on failure return NULL with the log in log. */
static inline struct kbpf_prog *make_prog(const struct bpf_insn *insns, size_t n, struct kbpf_host *host,
				   int *err, char *log, size_t log_size)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .name = "t", .log_buf = log, .log_size = log_size };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, n, &po, &p);

	if (err)
		*err = ret;
	return ret ? NULL : p;
}

/* Run insns on both engines' modes with R1 = r1 and no memory besides the stack;
 * both must succeed and agree. Returns R0 (and the checked count in *executed). */
static inline uint64_t run_both_at(const struct bpf_insn *insns, size_t n, uint64_t r1, uint64_t *executed,
			    int line)
{
	char log[256] = "", err[256] = "";
	int ret;
	struct kbpf_prog *p = make_prog(insns, n, NULL, &ret, log, sizeof(log));
	uint64_t fast = 0;

	if (!p) {
		fprintf(stderr, "line %d: create failed %d: %s\n", line, ret, log);
		test_failed_now = 1;
		return 0xdeadbeef;
	}
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { r1 }, .flags = KBPF_RUN_CHECKED,
				    .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	ret = kbpf_prog_run_opts(p, &ro, &rr);
	if (ret || rr.fault_insn != -1) {
		fprintf(stderr, "line %d: checked run failed %d at %lld: %s\n", line, ret,
			(long long)rr.fault_insn, err);
		test_failed_now = 1;
	}
	ret = kbpf_prog_run(p, (void *)(uintptr_t)r1, &fast);
	if (ret || fast != rr.retval) {
		fprintf(stderr, "line %d: fast run %d gave 0x%llx, checked 0x%llx\n", line, ret,
			(unsigned long long)fast, (unsigned long long)rr.retval);
		test_failed_now = 1;
	}
	if (executed)
		*executed = rr.insns_executed;
	kbpf_prog_free(p);
	return fast;
}

#define RUN_BOTH(arr) run_both_at((arr), ARRAY_SIZE(arr), 0, NULL, __LINE__)

/* R0 of the program given as the remaining arguments. */
#define R0_OF(...)                                                       \
	({                                                               \
		const struct bpf_insn p_[] = { __VA_ARGS__ };            \
		run_both_at(p_, ARRAY_SIZE(p_), 0, NULL, __LINE__);      \
	})

#endif
