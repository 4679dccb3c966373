/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_jiffies64 and the jiffies ticker (hosts/linux/src/jiffies.c): without the ticker the
 * call stays a helper call; with it, hosts set up afterwards get Linux's inlined load, and
 * the count the program reads, on the interpreter and the JIT, is the helper's (up to a
 * tick or two late, as Linux's jiffies); stop is clean and repeatable. */
#include <stdlib.h>
#include <time.h>
#include <linux/bpf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define LINUX_HZ 250

static const struct bpf_insn prog[] = {
	BPF_EMIT_CALL(BPF_FUNC_jiffies64),
	BPF_EXIT_INSN(),
};

/* Linux's count as Debian's kernels have it: CONFIG_HZ=250 ticks since boot. */
static uint64_t helper_jiffies(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) / (1000000000u / LINUX_HZ);
}

/* Given insns after the verifier: 2 when the call stays, 4 when inlined. */
static uint32_t xlated_cnt(struct kbpf_host *host)
{
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "syscall", .license = "GPL",
				       .xlated_alloc = 1 };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	CHECK_EQ_U64(kbpf_prog_verify(prog, 2, &vo, &res), 0);
	free(res.xlated_prog);
	free(res.xlated_idx);
	return res.xlated_cnt;
}

static void test_without_ticker(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	CHECK_EQ_U64(xlated_cnt(host), 2);
	kbpf_host_free(host);
}

static void test_with_ticker(void)
{
	CHECK_EQ_U64(kbpf_linux_jiffies_start(), 0);
	CHECK_EQ_U64(kbpf_linux_jiffies_start(), 0); /* idempotent */
	struct kbpf_host *host = linux_host();
	CHECK(host);
	CHECK_EQ_U64(xlated_cnt(host), 4);
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "syscall", .license = "GPL",
					     .jit = jit };
		struct kbpf_prog *p = NULL;
		uint8_t ctx[8] = { 0 };
		CHECK_EQ_U64(kbpf_prog_create(prog, 2, &po, &p), 0);
		/* across several ticks (4 ms each): the variable follows the clock, never ahead
		 * of it; behind by the ticker thread's wake-up latency, which a loaded machine
		 * (CI, sanitizers) stretches to many ticks, so allow up to a second */
		uint64_t first = 0;
		for (int k = 0; p && k < 3; k++) {
			uint64_t before = helper_jiffies(), got = 0;
			CHECK_EQ_U64(kbpf_prog_run(p, ctx, &got), 0);
			uint64_t after = helper_jiffies();
			if (got + LINUX_HZ < before || got > after)
				fprintf(stderr, "jiffies %llu outside [%llu - %d, %llu]\n", (unsigned long long)got,
					(unsigned long long)before, LINUX_HZ, (unsigned long long)after);
			CHECK(got + LINUX_HZ >= before && got <= after);
			if (!k)
				first = got;
			struct timespec ts = { 0, 9 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		/* and it moves: within 5 s of the clock passing it by 3 ticks */
		uint64_t got = first;
		for (int tries = 0; p && got <= first && tries < 500; tries++) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			CHECK_EQ_U64(kbpf_prog_run(p, ctx, &got), 0);
		}
		CHECK(!p || got > first);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
	kbpf_linux_jiffies_stop();
	kbpf_linux_jiffies_stop(); /* stopped twice: nothing happens */
}

static void test_after_stop(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	CHECK_EQ_U64(xlated_cnt(host), 2); /* a frozen variable is not offered */
	kbpf_host_free(host);
	/* and it starts again */
	CHECK_EQ_U64(kbpf_linux_jiffies_start(), 0);
	host = linux_host();
	CHECK(host);
	CHECK_EQ_U64(xlated_cnt(host), 4);
	kbpf_host_free(host);
	kbpf_linux_jiffies_stop();
}

int main(void)
{
	RUN(test_without_ticker);
	RUN(test_with_ticker);
	RUN(test_after_stop);
	return test_summary();
}
