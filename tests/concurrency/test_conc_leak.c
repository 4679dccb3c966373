/* SPDX-License-Identifier: Apache-2.0 */
/* Load-run-unload cycles, for LeakSanitizer (the ASan build) and valgrind
 * (tests/concurrency/valgrind.sh): KBPF_LEAK_CYCLES (10,000) times each,
 *  - a clang-built object (tests/bpf/maps.bpf.o: every map type, a static PROG_ARRAY,
 *    ringbuf records) opened from memory, loaded, run and closed — alternately on the
 *    interpreter and the JIT;
 *  - a raw program with its map and host: created with the JIT, run, freed.
 * Any allocation not freed shows up at exit as an LSan/valgrind report.  The resident
 * size is also compared after the first tenth and at the end: growth that a leak checker
 * would not call a leak (memory still reachable from some global) shows up there. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include "conc_util.h"
#include "test.h"

static unsigned cycles;
static void *obj_buf;
static size_t obj_size;

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * 4;
}

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

static void test_object_cycles(void)
{
	long rss_early = 0;
	double t0 = conc_now();
	unsigned failed = 0;

	if (!obj_buf) {
		printf("no maps.bpf.o: object cycles skipped\n");
		return;
	}
	for (unsigned i = 0; i < cycles; i++) {
		failed += object_cycle(i & 1) != 0;
		if (i == cycles / 10)
			rss_early = rss_kb();
	}
	CHECK_EQ_U64(failed, 0);
	printf("object: %u open/load/run/close cycles (interp and JIT alternately), %.2f s, RSS %ld -> %ld KiB\n",
	       cycles, conc_now() - t0, rss_early, rss_kb());
}

/* ctx: key; bumps an array value and emits a ringbuf record. */
static const char prog_text[] =
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
	"r1 = map[idx:1]\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r3 = 4\n"
	"r4 = 0\n"
	"call 130\n"
	"exit\n"
	"miss:\n"
	"r0 = 1\n"
	"exit\n";

static int raw_cycle(void)
{
	struct kbpf_map_def adef = { .sz = sizeof(adef), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				     .value_size = 8, .max_entries = 4, .name = "a" };
	struct kbpf_map_def rdef = { .sz = sizeof(rdef), .type = BPF_MAP_TYPE_RINGBUF, .max_entries = 4096,
				     .name = "rb" };
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map *maps[2] = { NULL, NULL };
	struct kbpf_prog *prog = NULL;
	uint64_t key = 1, r0 = 1, v = 0;
	uint32_t k = 1;
	int ret = host ? kbpf_host_add_map_helpers(host) : -ENOMEM;

	if (!ret)
		ret = kbpf_map_create(&adef, &maps[0]);
	if (!ret)
		ret = kbpf_map_create(&rdef, &maps[1]);
	if (!ret && !(prog = conc_prog("leak", prog_text, host, maps, 2, 1)))
		ret = -EINVAL;
	if (!ret)
		ret = kbpf_prog_run(prog, &key, &r0);
	if (!ret && (r0 != 0 || kbpf_map_lookup(maps[0], &k, &v) || v != 1))
		ret = -EDOM;
	kbpf_prog_free(prog);
	kbpf_map_free(maps[0]);
	kbpf_map_free(maps[1]);
	kbpf_host_free(host);
	return ret;
}

static void test_raw_jit_cycles(void)
{
	long rss_early = 0;
	double t0 = conc_now();
	unsigned failed = 0;

	for (unsigned i = 0; i < cycles; i++) {
		failed += raw_cycle() != 0;
		if (i == cycles / 10)
			rss_early = rss_kb();
	}
	CHECK_EQ_U64(failed, 0);
	printf("raw: %u host/map/JIT-program create/run/free cycles, %.2f s, RSS %ld -> %ld KiB\n", cycles,
	       conc_now() - t0, rss_early, rss_kb());
}

int main(void)
{
	cycles = conc_env("KBPF_LEAK_CYCLES", 10000, 1, 100000000);
	obj_buf = conc_read_bpf_obj("maps", &obj_size);
	RUN(test_object_cycles);
#if defined(__x86_64__)
	RUN(test_raw_jit_cycles);
#endif
	free(obj_buf);
	return test_summary();
}
