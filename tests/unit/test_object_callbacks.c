/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks and global functions end to end: clang's objects (tests/bpf/callback.bpf.c,
 * callbacks.bpf.c) load verified on Linux's program types with their BTF func_info, and
 * bpf_loop / bpf_for_each_map_elem really call the callbacks, on the interpreter
 * (fast and checked) and JIT-compiled. */
#include <errno.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_object_util.h"

static struct kbpf_host *host; /* Linux's program types and helpers */

static struct kbpf_object *load_linux(const char *name, int jit)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit, .log_buf = test_log, .log_size = sizeof(test_log),
	};
	struct kbpf_object *obj = NULL;

	if (kbpf_object_open_file(bpf_obj(name), &opts, &obj)) {
		fprintf(stderr, "open %s: %s\n", name, test_log);
		test_failed_now = 1;
		return NULL;
	}
	if (kbpf_object_load(obj)) {
		fprintf(stderr, "load %s (jit %d): %s\n", name, jit, test_log);
		test_failed_now = 1;
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

/* The verified program runs with its callbacks: each mode gives the same R0. */
static void check_runs(const char *file, const char *prog, uint64_t want)
{
	uint8_t ctx[256] = { 0 };

	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_object *obj = load_linux(file, jit);
		if (!obj)
			return;
		CHECK_EQ_U64(run_prog(obj, prog, ctx, 0), want);
		if (!jit)
			CHECK_EQ_U64(run_prog(obj, prog, ctx, 1), want);
		else
			CHECK(kbpf_prog_is_jited(kbpf_program_prog(kbpf_object_find_program(obj, prog))));
		kbpf_object_close(obj);
	}
}

static void test_bpf_loop_callback(void)
{
	check_runs("callback", "loop", 6); /* 0 + 1 + 2 + 3 */
	check_runs("callbacks", "loop_stop", 21 * 100 + 8);
}

static void test_for_each_map_elem(void)
{
	check_runs("callbacks", "each_array", 6631);
	check_runs("callbacks", "each_hash", 73);
}

static void test_global_functions(void)
{
	check_runs("callbacks", "globals_call", 83);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host)) {
		printf("cannot make the Linux host\n");
		return 1;
	}
	RUN(test_bpf_loop_callback);
	RUN(test_for_each_map_elem);
	RUN(test_global_functions);
	kbpf_host_free(host);
	return test_summary();
}
