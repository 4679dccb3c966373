/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer across threads (tests/bpf/timer.bpf.c churn_*): N threads arm and cancel one
 * array element's timer (JIT-compiled programs; callbacks run interpreted) while the
 * host's timer thread fires it and a host thread keeps replacing the element (which
 * cancels and frees its timer, waiting for a running callback). Then the object closes
 * with the timer possibly armed and the host goes. Nothing may crash, leak (ASan) or
 * race (TSan, scripts/test); at the end a fresh arm still fires. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

struct elem {
	uint64_t t[2];
	uint64_t count, limit;
	int64_t result;
};

static struct kbpf_program *progs[2]; /* arm, cancel */
static unsigned iters;
static atomic_int stop;

static void *runner(void *arg)
{
	uint8_t ctx[256] = { 0 };
	(void)arg;

	for (unsigned i = 0; i < iters; i++) {
		struct kbpf_prog *p = kbpf_program_prog(progs[i % 3 == 2]);
		uint64_t r = 0;
		if (kbpf_prog_run(p, ctx, &r) || r)
			CONC_SAY("run failed\n");
	}
	return NULL;
}

static void *replacer(void *arg)
{
	struct kbpf_map *arr = arg;
	struct elem zero = { 0 };
	uint32_t key = 3;

	while (!atomic_load(&stop)) {
		kbpf_map_update(arr, &key, &zero, BPF_ANY);
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static struct kbpf_object *load(struct kbpf_host *host, int jit)
{
	char path[512], log[4096];
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit, .log_buf = log,
					      .log_size = sizeof(log) };
	struct kbpf_object *obj = NULL;

	snprintf(path, sizeof(path), "%s/timer.bpf.o", KBPF_TEST_BPF_DIR);
	if (kbpf_object_open_file(path, &opts, &obj) || kbpf_object_load(obj)) {
		fprintf(stderr, "load timer.bpf.o: %s\n", log);
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

static void test_churn(void)
{
	unsigned threads = conc_env("KBPF_CONC_THREADS", 4, 2, 64);
	iters = conc_env("KBPF_CONC_ITERS", 20000, 1, 10000000);
	struct kbpf_host *host = kbpf_host_new();
	CHECK(host && kbpf_linux_host_add(host) == 0);
	struct kbpf_object *obj = load(host, 1);
	if (!obj) {
		test_failed_now = 1;
		kbpf_host_free(host);
		return;
	}
	progs[0] = kbpf_object_find_program(obj, "churn_arm");
	progs[1] = kbpf_object_find_program(obj, "churn_cancel");
	CHECK_EQ_U64(kbpf_host_timers_start(host), 0);
	struct kbpf_map *arr = kbpf_object_find_map(obj, "arr");
	pthread_t th[64], rep;
	atomic_store(&stop, 0);
	CHECK_EQ_U64(pthread_create(&rep, NULL, replacer, arr), 0);
	for (unsigned i = 0; i < threads; i++)
		CHECK_EQ_U64(pthread_create(&th[i], NULL, runner, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(rep, NULL);

	/* quiet now: a fresh arm fires on the thread */
	uint32_t key = 3;
	struct elem e = { 0 };
	CHECK_EQ_U64(kbpf_map_update(arr, &key, &e, BPF_ANY), 0);
	uint8_t ctx[256] = { 0 };
	uint64_t r = 1;
	CHECK_EQ_U64(kbpf_prog_run(kbpf_program_prog(progs[0]), ctx, &r), 0);
	CHECK_EQ_U64(r, 0);
	for (int i = 0; i < 2000 && !e.count; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		CHECK_EQ_U64(kbpf_map_lookup(arr, &key, &e), 0);
	}
	CHECK(e.count >= 1);
	/* closed armed (re-armed at once), the thread still running */
	CHECK_EQ_U64(kbpf_prog_run(kbpf_program_prog(progs[0]), ctx, &r), 0);
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

int main(void)
{
	if (!KBPF_TEST_BPF_DIR[0]) {
		printf("skipped: no clang-built objects\n");
		return 0;
	}
	RUN(test_churn);
	return test_summary();
}
