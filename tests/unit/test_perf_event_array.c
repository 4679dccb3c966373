/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_PERF_EVENT_ARRAY (src/maps/perf_event_array.c), its perf buffer, and
 * bpf_perf_event_output on Linux's program types (hosts/linux/src/helpers_perf.c): Linux's
 * create rules, samples in order per slot with their CPU, lost records, the helper's
 * errnos, BPF_F_CTXLEN_MASK packet bytes on tc and xdp (interpreter and JIT), the
 * verifier refusing lookups, and writer threads racing one consumer. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"

#define MAX_SEEN 256

struct seen {
	int n;
	int cpu[MAX_SEEN];
	uint32_t size[MAX_SEEN];
	unsigned char data[MAX_SEEN][64];
	uint64_t lost[MAX_SEEN]; /* nonzero: record i was a lost count */
	/* for test_lost_in_stream: write one more sample from inside the callback */
	struct kbpf_map *map;
	int write_at;
};

static void on_sample(void *ctx, int cpu, void *data, uint32_t size)
{
	struct seen *s = ctx;

	if (s->n >= MAX_SEEN)
		return;
	s->cpu[s->n] = cpu;
	s->size[s->n] = size;
	memcpy(s->data[s->n], data, size < 64 ? size : 64);
	s->lost[s->n] = 0;
	s->n++;
	if (s->map && s->n == s->write_at) {
		unsigned char b[100] = { 0xee };
		kbpf_perf_event_output(s->map, 0, b, sizeof(b), NULL, 0);
	}
}

static void on_lost(void *ctx, int cpu, uint64_t cnt)
{
	struct seen *s = ctx;

	if (s->n >= MAX_SEEN)
		return;
	s->cpu[s->n] = cpu;
	s->size[s->n] = 0;
	s->lost[s->n] = cnt;
	s->n++;
}

static struct kbpf_map *pea(uint32_t max_entries, uint32_t flags)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = max_entries, .map_flags = flags, .name = "events" };
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static int create(uint32_t key, uint32_t value, uint32_t max, uint32_t flags)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .key_size = key,
				    .value_size = value, .max_entries = max, .map_flags = flags };
	struct kbpf_map *m = NULL;
	int ret = kbpf_map_create(&def, &m);

	kbpf_map_free(m);
	return ret;
}

static void test_create_rules(void)
{
	CHECK_EQ_U64(create(4, 4, 1, 0), 0);
	CHECK_EQ_U64(create(4, 4, 64, BPF_F_PRESERVE_ELEMS), 0);
	CHECK_EQ_U64(create(4, 4, 1, BPF_F_RDONLY), 0);
	CHECK_EQ_U64(create(4, 8, 1, 0), -EINVAL);  /* a perf event fd is a u32 */
	CHECK_EQ_U64(create(8, 4, 1, 0), -EINVAL);
	CHECK_EQ_U64(create(4, 4, 0, 0), -EINVAL);  /* Linux: nonzero (libbpf fills in CPUs) */
	CHECK_EQ_U64(create(4, 4, 1, BPF_F_RDONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create(4, 4, 1, BPF_F_WRONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create(4, 4, 1, BPF_F_MMAPABLE), -EINVAL);
	CHECK_EQ_U64(create(4, 4, 1, BPF_F_NO_PREALLOC), -EINVAL);

	/* Linux's map_check_no_btf: BTF types for the slots are refused */
	struct btf *btf = btf__new_empty();
	CHECK(btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 1, .btf = btf, .btf_key_type_id = 1,
				    .btf_value_type_id = 1 };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EOPNOTSUPP);
	CHECK(m == NULL);
	btf__free(btf);
}

static void test_host_side(void)
{
	struct kbpf_map *m = pea(3, 0);
	uint32_t key = 0, next = 9, v = 0;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &v), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_ANY), -EOPNOTSUPP);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	CHECK_EQ_U64(next, 0);
	key = 2;
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), -ENOENT);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT); /* empty slot */
	key = 3;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -E2BIG);
	size_t ring = 1;
	CHECK_EQ_U64(kbpf_perf_event_array_slot(m, 0, &ring), 0);
	CHECK_EQ_U64(ring, 0);
	CHECK_EQ_U64(kbpf_perf_event_array_slot(m, 3, NULL), -E2BIG);
	kbpf_map_free(m);
}

static void test_buffer_rules(void)
{
	struct kbpf_map_def adef = { .sz = sizeof(adef), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4,
				     .max_entries = 1 };
	struct kbpf_map *m = pea(kbpf_nr_cpus() + 1, 0), *arr = NULL;
	struct kbpf_perf_buffer *pb = NULL, *pb2 = NULL;
	struct seen s = { 0 };

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_map_create(&adef, &arr), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_new(arr, 1, on_sample, on_lost, &s, &pb), -EINVAL);
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 3, on_sample, on_lost, &s, &pb), -EINVAL); /* not a power of 2 */
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 0, on_sample, on_lost, &s, &pb), -EINVAL);
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb2), -EBUSY);
	/* one ring per CPU: the slot past the CPUs stays empty */
	size_t ring = 0;
	CHECK_EQ_U64(kbpf_perf_event_array_slot(m, 0, &ring), 1);
	CHECK(ring >= 4096 && (ring & (ring - 1)) == 0);
	CHECK_EQ_U64(kbpf_perf_event_array_slot(m, kbpf_nr_cpus(), NULL), 0);

	/* the helper's errnos */
	uint64_t x = 1;
	CHECK_EQ_U64(kbpf_perf_event_output(m, kbpf_nr_cpus(), &x, 8, NULL, 0), -ENOENT);
	CHECK_EQ_U64(kbpf_perf_event_output(m, kbpf_nr_cpus() + 1, &x, 8, NULL, 0), -E2BIG);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0x12345, &x, 8, NULL, 0), -E2BIG);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 1ull << 32, &x, 8, NULL, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_perf_event_output(arr, 0, &x, 8, NULL, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_perf_event_output(NULL, 0, &x, 8, NULL, 0), -EINVAL);
	/* a deleted slot receives nothing more */
	uint32_t key = 0;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, &x, 8, NULL, 0), -ENOENT);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_poll(pb, 0), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_poll(pb, 20), 0); /* times out */
	kbpf_perf_buffer_free(pb);
	/* the map is free for another buffer, and outlives the host's reference while held */
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 2, NULL, NULL, NULL, &pb2), 0);
	kbpf_map_free(m);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, &x, 8, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb2), 1); /* no callbacks: counted all the same */
	kbpf_perf_buffer_free(pb2);
	kbpf_perf_buffer_free(NULL);
	kbpf_map_free(arr);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(NULL), -EINVAL);
}

static void test_order_and_cpu(void)
{
	struct kbpf_map *m = pea(kbpf_nr_cpus(), 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct seen s = { 0 };
	unsigned char buf[40];
	unsigned last = kbpf_nr_cpus() - 1;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb), 0);
	for (int i = 0; i < 40; i++)
		buf[i] = (unsigned char)i;
	CHECK_EQ_U64(kbpf_cpu_bind(0), 0);
	/* sizes that are and are not multiples of 8, an empty one, one with extra bytes */
	CHECK_EQ_U64(kbpf_perf_event_output(m, BPF_F_CURRENT_CPU, buf, 1, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, buf + 1, 8, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, last, buf + 2, 13, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, buf, 0, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, buf + 3, 5, buf + 30, 3), 0);
	CHECK_EQ_U64(kbpf_cpu_bind(last), 0);
	CHECK_EQ_U64(kbpf_perf_event_output(m, BPF_F_CURRENT_CPU, buf + 4, 2, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_cpu_bind(0), 0);

	CHECK_EQ_U64(kbpf_perf_buffer_poll(pb, 100), 6);
	CHECK_EQ_U64(s.n, 6);
	/* slot 0's four in order, then the last slot's two (one slot if there is one CPU) */
	CHECK(s.cpu[0] == 0 && s.size[0] == 1 && s.data[0][0] == 0);
	CHECK(s.cpu[1] == 0 && s.size[1] == 8 && !memcmp(s.data[1], buf + 1, 8));
	if (last) {
		CHECK(s.cpu[2] == 0 && s.size[2] == 0);
		CHECK(s.cpu[3] == 0 && s.size[3] == 8 && !memcmp(s.data[3], buf + 3, 5) && s.data[3][5] == 30 &&
		      s.data[3][7] == 32);
		CHECK(s.cpu[4] == (int)last && s.size[4] == 13 && !memcmp(s.data[4], buf + 2, 13));
		CHECK(s.cpu[5] == (int)last && s.size[5] == 2 && s.data[5][0] == 4);
	}
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), 0);
	kbpf_perf_buffer_free(pb);
	kbpf_map_free(m);
}

/* Records that do not fit are counted; the consumer hears of them after the samples
 * before them, and the ring takes samples again once read. */
static void test_lost(void)
{
	struct kbpf_map *m = pea(1, 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct seen s = { 0 };
	unsigned char b[100];
	int written = 0, ret;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb), 0);
	memset(b, 0xab, sizeof(b));
	while ((ret = kbpf_perf_event_output(m, 0, b, sizeof(b), NULL, 0)) == 0)
		written++;
	CHECK_EQ_U64(ret, -ENOSPC);
	CHECK(written > 10);
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, b, sizeof(b), NULL, 0), -ENOSPC);
	/* bigger than the whole ring: lost as well */
	static unsigned char huge[1 << 20];
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, huge, sizeof(huge), NULL, 0), -ENOSPC);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), written + 1);
	CHECK_EQ_U64(s.n, written + 1);
	CHECK(s.size[0] == 100 && s.data[0][63] == 0xab);
	CHECK_EQ_U64(s.lost[written], 3);
	/* room again */
	s.n = 0;
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, b, 4, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), 1);
	CHECK(s.n == 1 && s.size[0] == 4 && s.lost[0] == 0);
	kbpf_perf_buffer_free(pb);
	kbpf_map_free(m);
}

/* Linux's LOST record goes into the ring ahead of the next sample that fits: a sample
 * written while the consumer reads lands after the count. */
static void test_lost_in_stream(void)
{
	struct kbpf_map *m = pea(1, 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct seen s = { 0 };
	unsigned char b[100] = { 0 };
	int written = 0;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb), 0);
	while (kbpf_perf_event_output(m, 0, b, sizeof(b), NULL, 0) == 0)
		written++;
	CHECK_EQ_U64(kbpf_perf_event_output(m, 0, b, sizeof(b), NULL, 0), -ENOSPC); /* 2 lost */
	/* in the 2nd callback the 1st record's room is free (the ring's slack too): the
	 * count and the new sample fit, and come after every sample before them */
	s.map = m;
	s.write_at = 2;
	/* what was there when consume started; then the count and the new sample */
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), written);
	CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), 2);
	CHECK_EQ_U64(s.n, written + 2);
	CHECK_EQ_U64(s.lost[written], 2);
	CHECK(s.size[written + 1] == 100 && s.data[written + 1][0] == 0xee);
	kbpf_perf_buffer_free(pb);
	kbpf_map_free(m);
}

/* --- programs ------------------------------------------------------------------------ */

static struct kbpf_host *host;

/* r2 = 5, *(u64 *)(r10 - 8) = r2, perf_event_output(ctx, map 0, flags, r10 - 8, 8):
 * event_output.c's program with flags from an ld_imm64; R0 = the helper's return. */
static int make_prog(const char *type, uint64_t flags, int jit, struct kbpf_map *m, struct kbpf_prog **p,
		     char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_2, 5),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_LD_IMM64(BPF_REG_3, flags),
		BPF_MOV64_IMM(BPF_REG_5, 8),
		BPF_EMIT_CALL(BPF_FUNC_perf_event_output),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *maps[1] = { m };
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				    .maps = maps, .nr_maps = 1, .jit = jit, .log_buf = log, .log_size = log_size };

	return kbpf_prog_create(insns, sizeof(insns) / sizeof(insns[0]), &o, p);
}

static int64_t run_on(const char *type, uint64_t flags, int jit, struct kbpf_map *m, void *ctx)
{
	char log[4096] = "";
	struct kbpf_prog *p = NULL;
	uint64_t r0 = 0;
	int ret = make_prog(type, flags, jit, m, &p, log, sizeof(log));

	if (ret) {
		fprintf(stderr, "%s: create %d: %s\n", type, ret, log);
		test_failed_now = 1;
		return INT64_MIN;
	}
	ret = kbpf_prog_run(p, ctx, &r0);
	kbpf_prog_free(p);
	CHECK_EQ_U64(ret, 0);
	return (int64_t)r0;
}

static void test_programs(void)
{
	struct kbpf_map *m = pea(kbpf_nr_cpus(), 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct seen s = { 0 };
	uint8_t pkt[64 + 256];
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	uint64_t regs_ctx[64] = { 0 };
	const uint64_t cur = BPF_F_CURRENT_CPU;

	if (!m || !host)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, on_sample, on_lost, &s, &pb), 0);
	CHECK_EQ_U64(kbpf_cpu_bind(0), 0);
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	for (int jit = 0; jit < 2; jit++) {
		s.n = 0;
		CHECK_EQ_U64(kbpf_linux_skb_init(&skb, pkt, sizeof(pkt), 64, 20), 0);
		CHECK_EQ_U64(kbpf_linux_xdp_init(&xdp, pkt, sizeof(pkt), 256, 10), 0);
		/* tc: 4 packet bytes after the data; then a CTXLEN beyond the packet */
		CHECK_EQ_U64(run_on("sched_cls", cur | 4ull << 32, jit, m, &skb), 0);
		CHECK_EQ_U64(run_on("sched_cls", cur | 21ull << 32, jit, m, &skb), -EFAULT);
		CHECK_EQ_U64(run_on("sched_cls", cur | 20ull << 32, jit, m, &skb), 0);
		CHECK_EQ_U64(run_on("socket_filter", 0, jit, m, &skb), 0);
		CHECK_EQ_U64(run_on("sched_cls", 1ull << 60, jit, m, &skb), -EINVAL);
		CHECK_EQ_U64(run_on("sched_cls", 0xfffff, jit, m, &skb), -E2BIG);
		/* xdp: its own packet */
		CHECK_EQ_U64(run_on("xdp", cur | 2ull << 32, jit, m, &xdp), 0);
		CHECK_EQ_U64(run_on("xdp", cur | 11ull << 32, jit, m, &xdp), -EFAULT);
		/* kprobe (bpf_perf_event_output): the index only */
		CHECK_EQ_U64(run_on("kprobe", cur, jit, m, regs_ctx), 0);
		CHECK_EQ_U64(run_on("kprobe", cur | 4ull << 32, jit, m, regs_ctx), -EINVAL);

		CHECK_EQ_U64(kbpf_perf_buffer_consume(pb), 5);
		CHECK_EQ_U64(s.n, 5);
		CHECK(s.size[0] == 12 && s.data[0][0] == 5 && !memcmp(s.data[0] + 8, pkt + 64, 4));
		CHECK(s.size[1] == 28 && !memcmp(s.data[1] + 8, pkt + 64, 20));
		CHECK(s.size[2] == 8 && s.data[2][0] == 5);
		CHECK(s.size[3] == 10 && !memcmp(s.data[3] + 8, pkt + 256, 2));
		CHECK(s.size[4] == 8 && s.cpu[4] == 0);
	}
	kbpf_perf_buffer_free(pb);
	/* no buffer: the slot is empty, the selftests' -ENOENT */
	CHECK_EQ_U64(run_on("sched_cls", 0, 0, m, &skb), -ENOENT);
	kbpf_map_free(m);
}

/* Linux's check_map_func_compatibility: lookups and updates are refused. */
static void test_verifier_refuses(void)
{
	struct kbpf_map *m = pea(1, 0);
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *maps[1] = { m };
	char log[4096] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				    .maps = maps, .nr_maps = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (!m || !host)
		return;
	CHECK_EQ_U64(kbpf_prog_create(insns, sizeof(insns) / sizeof(insns[0]), &o, &p), -EINVAL);
	CHECK_CONTAINS(log, "cannot pass map_type 4 into func bpf_map_lookup_elem#1");
	kbpf_map_free(m);
}

/* --- writers on several threads -------------------------------------------------------- */

#define WRITERS 4
#define PER_WRITER 20000

struct thread_seen {
	uint32_t next[WRITERS]; /* per writer: the sequence number expected next */
	uint64_t samples, lost, out_of_order;
};

static void t_sample(void *ctx, int cpu, void *data, uint32_t size)
{
	struct thread_seen *t = ctx;
	uint32_t w[2];

	(void)cpu;
	if (size != sizeof(w)) {
		t->out_of_order++;
		return;
	}
	memcpy(w, data, sizeof(w));
	/* a writer's samples arrive in its order (lost ones leave gaps) */
	if (w[0] >= WRITERS || w[1] < t->next[w[0]])
		t->out_of_order++;
	else
		t->next[w[0]] = w[1] + 1;
	t->samples++;
}

static void t_lost(void *ctx, int cpu, uint64_t cnt)
{
	(void)cpu;
	((struct thread_seen *)ctx)->lost += cnt;
}

struct writer {
	struct kbpf_map *map;
	uint32_t id;
	uint64_t ok, full;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	for (uint32_t i = 0; i < PER_WRITER; i++) {
		uint32_t rec[2] = { w->id, i };
		long r = kbpf_perf_event_output(w->map, 0, rec, sizeof(rec), NULL, 0);

		if (!r)
			w->ok++;
		else if (r == -ENOSPC)
			w->full++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct kbpf_map *m = pea(1, 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct thread_seen t = { 0 };
	struct writer w[WRITERS];
	pthread_t th[WRITERS];
	uint64_t ok = 0, full = 0;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 2, t_sample, t_lost, &t, &pb), 0);
	for (int i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ .map = m, .id = (uint32_t)i };
		CHECK_EQ_U64(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	/* the one consumer reads while they write */
	for (int k = 0; k < 200; k++)
		kbpf_perf_buffer_poll(pb, 1);
	for (int i = 0; i < WRITERS; i++) {
		pthread_join(th[i], NULL);
		ok += w[i].ok;
		full += w[i].full;
	}
	while (kbpf_perf_buffer_consume(pb) > 0)
		;
	CHECK_EQ_U64(ok + full, WRITERS * PER_WRITER);
	CHECK_EQ_U64(t.samples, ok);
	CHECK_EQ_U64(t.lost, full);
	CHECK_EQ_U64(t.out_of_order, 0);
	kbpf_perf_buffer_free(pb);
	kbpf_map_free(m);
}

/* A thread blocked in poll wakes when a sample comes. */
static void *late_writer(void *arg)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	uint32_t rec[2] = { 0, 0 };

	nanosleep(&ts, NULL);
	kbpf_perf_event_output(arg, 0, rec, sizeof(rec), NULL, 0);
	return NULL;
}

static void test_poll_wakes(void)
{
	struct kbpf_map *m = pea(1, 0);
	struct kbpf_perf_buffer *pb = NULL;
	struct thread_seen t = { 0 };
	pthread_t th;

	if (!m)
		return;
	CHECK_EQ_U64(kbpf_perf_buffer_new(m, 1, t_sample, t_lost, &t, &pb), 0);
	CHECK_EQ_U64(pthread_create(&th, NULL, late_writer, m), 0);
	CHECK_EQ_U64(kbpf_perf_buffer_poll(pb, -1), 1);
	pthread_join(th, NULL);
	CHECK_EQ_U64(t.samples, 1);
	kbpf_perf_buffer_free(pb);
	kbpf_map_free(m);
}

int main(void)
{
	host = kbpf_host_new();
	if (host && kbpf_linux_host_add(host)) {
		kbpf_host_free(host);
		host = NULL;
	}
	CHECK(host != NULL);
	RUN(test_create_rules);
	RUN(test_host_side);
	RUN(test_buffer_rules);
	RUN(test_order_and_cpu);
	RUN(test_lost);
	RUN(test_lost_in_stream);
	RUN(test_programs);
	RUN(test_verifier_refuses);
	RUN(test_threads);
	RUN(test_poll_wakes);
	kbpf_host_free(host);
	return test_summary();
}
