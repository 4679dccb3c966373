/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_perf_event_output from many threads (several per CPU slot: kbpf's CPUs are thread
 * slots) into one perf buffer read by one consumer, on the interpreter and the JIT:
 * every write is either read back in its writer's order or counted lost, and freeing the
 * perf buffer while programs still write leaves them -ENOENT, never a freed ring. Run
 * under TSan by scripts/test (label concurrency) and under ASan in the ASan build. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define MAX_WRITERS 16

/* skb->cb[0] = writer id, cb[1] = sequence number: out as an 8-byte sample to this
 * CPU's slot; R0 = the helper's return. */
static const struct bpf_insn writer_insns[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, cb[0])),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_LD_IMM64(BPF_REG_3, BPF_F_CURRENT_CPU),
	BPF_MOV64_IMM(BPF_REG_5, 8),
	BPF_EMIT_CALL(BPF_FUNC_perf_event_output),
	BPF_EXIT_INSN(),
};

struct seen {
	uint32_t next[MAX_WRITERS];
	uint64_t samples, lost, bad;
};

static void on_sample(void *ctx, int cpu, void *data, uint32_t size)
{
	struct seen *s = ctx;
	uint32_t w[2];

	(void)cpu;
	if (size != sizeof(w)) {
		s->bad++;
		return;
	}
	memcpy(w, data, sizeof(w));
	if (w[0] >= MAX_WRITERS || w[1] < s->next[w[0]])
		s->bad++; /* out of its writer's order */
	else
		s->next[w[0]] = w[1] + 1;
	s->samples++;
}

static void on_lost(void *ctx, int cpu, uint64_t cnt)
{
	(void)cpu;
	((struct seen *)ctx)->lost += cnt;
}

struct writer {
	const struct kbpf_prog *prog;
	uint32_t id, iters;
	atomic_int *stop; /* phase 2: write until told */
	uint64_t ok, full, gone, other;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint8_t pkt[64] = { 0 };
	struct kbpf_linux_skb skb;

	kbpf_cpu_bind(w->id % kbpf_nr_cpus());
	kbpf_linux_skb_init(&skb, pkt, sizeof(pkt), 0, sizeof(pkt));
	for (uint32_t i = 0; w->stop ? !atomic_load(w->stop) : i < w->iters; i++) {
		uint64_t r0 = 0;

		skb.md.cb[0] = w->id;
		skb.md.cb[1] = i;
		if (kbpf_prog_run(w->prog, &skb, &r0))
			w->other++;
		else if (r0 == 0)
			w->ok++;
		else if ((int64_t)r0 == -ENOSPC)
			w->full++;
		else if ((int64_t)r0 == -ENOENT)
			w->gone++;
		else
			w->other++;
	}
	return NULL;
}

static struct kbpf_prog *make(struct kbpf_host *host, struct kbpf_map *m, int jit)
{
	struct kbpf_map *maps[1] = { m };
	char log[1024] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				    .maps = maps, .nr_maps = 1, .jit = jit, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(writer_insns, sizeof(writer_insns) / sizeof(writer_insns[0]), &o, &p))
		fprintf(stderr, "create (jit %d): %s\n", jit, log);
	return p;
}

static void run_phase(struct kbpf_host *host, int jit, unsigned threads, unsigned iters)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = kbpf_nr_cpus(), .name = "events" };
	struct kbpf_map *m = NULL;
	struct kbpf_perf_buffer *pb = NULL;
	struct kbpf_prog *prog;
	struct writer w[MAX_WRITERS];
	pthread_t th[MAX_WRITERS];
	struct seen s = { 0 };
	uint64_t ok = 0, full = 0, gone = 0, other = 0;
	atomic_int stop = 0;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	prog = m ? make(host, m, jit) : NULL;
	CHECK(prog != NULL);
	if (!prog) {
		kbpf_map_free(m);
		return;
	}
	/* phase 1: a fixed number of writes each, read back while they happen */
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 4, on_sample, on_lost, &s, &pb), 0);
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct writer){ .prog = prog, .id = i, .iters = iters };
		CHECK_EQ_U64(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	double until = conc_now() + 30;
	while (s.samples + s.lost < (uint64_t)threads * iters && conc_now() < until)
		kbpf_perf_buffer_poll(pb, 5);
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ok += w[i].ok, full += w[i].full, gone += w[i].gone, other += w[i].other;
	}
	while (kbpf_perf_buffer_consume(pb) > 0)
		;
	CHECK_EQ_U64(ok + full, (uint64_t)threads * iters);
	CHECK_EQ_U64(gone + other, 0);
	CHECK_EQ_U64(s.samples, ok);
	CHECK_EQ_U64(s.lost, full);
	CHECK_EQ_U64(s.bad, 0);

	/* phase 2: free the buffer under running writers; then they find empty slots */
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct writer){ .prog = prog, .id = i, .stop = &stop };
		CHECK_EQ_U64(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	for (int k = 0; k < 5; k++)
		kbpf_perf_buffer_poll(pb, 2);
	kbpf_perf_buffer_free(pb);
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	atomic_store(&stop, 1);
	gone = other = 0;
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		gone += w[i].gone, other += w[i].other;
	}
	CHECK(gone > 0);
	CHECK_EQ_U64(other, 0);
	kbpf_prog_free(prog);
	kbpf_map_free(m);
}

static struct kbpf_host *host;
static unsigned threads, iters;

/* kbpf_perf_event_array_slot (what `kbpf map dump` asks) on one thread while another
 * makes and frees perf buffers on the map: the answer is a ring's size or nothing,
 * never a read of a freed ring. */
struct slot_reader {
	struct kbpf_map *map;
	atomic_int *stop;
	uint64_t held, bad;
};

static void *slot_reader_main(void *arg)
{
	struct slot_reader *r = arg;

	while (!atomic_load(r->stop)) {
		size_t size = 1;
		int ret = kbpf_perf_event_array_slot(r->map, 0, &size);

		if (ret == 1 && size == 4096 * 2)
			r->held++;
		else if (ret != 0 || size != 0)
			r->bad++;
	}
	return NULL;
}

static void test_slot_query_while_freed(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 1, .name = "events" };
	struct kbpf_map *m = NULL;
	atomic_int stop = 0;
	struct slot_reader r[2];
	pthread_t th[2];

	if (sysconf(_SC_PAGESIZE) != 4096)
		return; /* the size checked below */
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	if (!m)
		return;
	for (int i = 0; i < 2; i++) {
		r[i] = (struct slot_reader){ .map = m, .stop = &stop };
		CHECK_EQ_U64(pthread_create(&th[i], NULL, slot_reader_main, &r[i]), 0);
	}
	for (unsigned i = 0; i < iters / 4; i++) {
		struct kbpf_perf_buffer *pb = NULL;

		CHECK_EQ_U64(kbpf_perf_buffer_new(m, 2, NULL, NULL, NULL, &pb), 0);
		kbpf_perf_buffer_free(pb);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_U64(r[i].bad, 0);
	}
	kbpf_map_free(m);
}


static void test_interpreter(void) { run_phase(host, 0, threads, iters); }
static void test_jit(void) { run_phase(host, 1, threads, iters); }

int main(void)
{
	threads = conc_env("KBPF_CONC_THREADS", 6, 2, MAX_WRITERS);
	iters = conc_env("KBPF_CONC_ITERS", 20000, 100, 10000000);
	host = kbpf_host_new();
	if (host && kbpf_linux_host_add(host)) {
		kbpf_host_free(host);
		host = NULL;
	}
	CHECK(host != NULL);
	if (host) {
		RUN(test_interpreter);
		RUN(test_jit);
	}
	RUN(test_slot_query_while_freed);
	kbpf_host_free(host);
	return test_summary();
}
