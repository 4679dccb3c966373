/* SPDX-License-Identifier: Apache-2.0 */
/* RINGBUF: create rules, Linux's record header, reserve/submit/discard, output,
 * query, full ring, records wrapping past the end, the consumer's rules, and
 * several producer threads with a concurrent consumer. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <kbpf/map.h>
#include "test.h"

static uint32_t page_size(void)
{
	return (uint32_t)sysconf(_SC_PAGESIZE);
}

static int mk(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = BPF_MAP_TYPE_RINGBUF, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "rb",
	};
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m = NULL;
	int err = mk(ks, vs, max, flags, &m);

	kbpf_map_free(m);
	return err;
}

static void test_ringbuf_create_rules(void)
{
	uint32_t pg = page_size();

	CHECK_EQ_U64(create_err(0, 0, pg, 0), 0);
	CHECK_EQ_U64(create_err(0, 0, 4 * pg, 0), 0);
	CHECK_EQ_U64(create_err(0, 0, 4 * pg, BPF_F_NUMA_NODE), 0);
	CHECK_EQ_U64(create_err(0, 0, 3 * pg, 0), -EINVAL);  /* not a power of 2 */
	CHECK_EQ_U64(create_err(0, 0, pg / 2, 0), -EINVAL);  /* not a page multiple */
	CHECK_EQ_U64(create_err(0, 0, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(4, 0, pg, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, 4, pg, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, 0, pg, BPF_F_RDONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(0, 0, pg, BPF_F_NO_PREALLOC), -EINVAL);
}

struct collected {
	int n;
	size_t sizes[64];
	unsigned char first[64];
	int stop_at; /* return -7 on this record (1-based), 0: never */
};

static int collect(void *ctx, void *data, size_t size)
{
	struct collected *c = ctx;

	if (c->n < 64) {
		c->sizes[c->n] = size;
		c->first[c->n] = size ? *(unsigned char *)data : 0;
	}
	c->n++;
	return c->stop_at && c->n == c->stop_at ? -7 : 0;
}

static void test_ringbuf_basic(void)
{
	struct kbpf_map *m;
	struct collected c = { 0 };
	uint32_t key = 0;
	uint64_t v = 0;
	uint32_t pg = page_size();

	CHECK_EQ_U64(mk(0, 0, pg, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), 0);
	/* no elements: every element operation is unsupported */
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &v), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &key), -EOPNOTSUPP);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EOPNOTSUPP);

	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_RING_SIZE), pg);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA), 0);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, 99), 0);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 0);
	CHECK(kbpf_ringbuf_reserve(m, 8, 1) == NULL); /* flags must be 0 */

	/* reserve: 8-byte aligned, header busy with the length, pg_off leads to a page */
	unsigned char *a = kbpf_ringbuf_reserve(m, 5, 0);
	CHECK(a != NULL && ((uintptr_t)a & 7) == 0);
	uint32_t *hdr = (uint32_t *)(a - 8);
	CHECK_EQ_U64(hdr[0], 5 | BPF_RINGBUF_BUSY_BIT);
	CHECK_EQ_U64(hdr[1], pg / 4096); /* the ring's control page precedes the data */
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_PROD_POS), 16);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA), 16);
	/* not submitted: the consumer waits */
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 0);
	a[0] = 0xa1;
	kbpf_ringbuf_submit(a, 0);
	CHECK_EQ_U64(hdr[0], 5);

	unsigned char *b = kbpf_ringbuf_reserve(m, 16, 0);
	CHECK(b == a + 16);
	b[0] = 0xb2;
	kbpf_ringbuf_discard(b, BPF_RB_NO_WAKEUP);
	CHECK_EQ_U64(((uint32_t *)(b - 8))[0], 16 | BPF_RINGBUF_DISCARD_BIT);
	unsigned char data[3] = { 0xc3, 0, 0 };
	CHECK_EQ_U64(kbpf_ringbuf_output(m, data, 3, 0), 0);
	CHECK_EQ_U64(kbpf_ringbuf_output(m, data, 3, BPF_RB_FORCE_WAKEUP), 0);
	CHECK_EQ_U64(kbpf_ringbuf_output(m, data, 3, 4), -EINVAL);
	unsigned char *z = kbpf_ringbuf_reserve(m, 0, 0); /* empty records exist */
	CHECK(z != NULL);
	kbpf_ringbuf_submit(z, 0);

	/* the discarded record is skipped */
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 4);
	CHECK_EQ_U64(c.n, 4);
	CHECK(c.sizes[0] == 5 && c.first[0] == 0xa1);
	CHECK(c.sizes[1] == 3 && c.first[1] == 0xc3);
	CHECK(c.sizes[2] == 3 && c.first[2] == 0xc3);
	CHECK_EQ_U64(c.sizes[3], 0);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA), 0);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_CONS_POS), 16 + 24 + 16 + 16 + 8);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 0);

	/* wrong arguments */
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, NULL, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_ringbuf_consume(NULL, collect, &c), -EINVAL);
	CHECK(kbpf_ringbuf_reserve(NULL, 8, 0) == NULL);
	CHECK_EQ_U64(kbpf_ringbuf_output(NULL, data, 1, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_ringbuf_query(NULL, BPF_RB_RING_SIZE), 0);
	kbpf_map_free(m);
}

static void test_ringbuf_full(void)
{
	uint32_t pg = page_size();
	struct kbpf_map *m;
	struct collected c = { 0 };
	void *r[8];

	CHECK_EQ_U64(mk(0, 0, pg, 0, &m), 0);
	/* the largest record leaves 8 bytes: header + data < ring size */
	CHECK(kbpf_ringbuf_reserve(m, pg, 0) == NULL);
	CHECK(kbpf_ringbuf_reserve(m, pg - 15, 0) == NULL);
	CHECK(kbpf_ringbuf_reserve(m, 1ull << 40, 0) == NULL);
	r[0] = kbpf_ringbuf_reserve(m, pg - 16, 0);
	CHECK(r[0] != NULL);
	CHECK(kbpf_ringbuf_reserve(m, 1, 0) == NULL);
	kbpf_ringbuf_discard(r[0], 0);
	CHECK(kbpf_ringbuf_reserve(m, 1, 0) == NULL); /* still full until consumed */
	CHECK_EQ_U64(kbpf_ringbuf_output(m, "x", 1, 0), -EAGAIN);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 0);

	/* four quarter records fill the ring (each pg/4 - 8 data + 8 header)... */
	size_t q = pg / 4 - 8;
	for (int i = 0; i < 3; i++) {
		r[i] = kbpf_ringbuf_reserve(m, q, 0);
		CHECK(r[i] != NULL);
	}
	CHECK(kbpf_ringbuf_reserve(m, q, 0) == NULL); /* ...less the 8 bytes kept free */
	r[3] = kbpf_ringbuf_reserve(m, q - 8, 0);
	CHECK(r[3] != NULL);
	CHECK(kbpf_ringbuf_reserve(m, 0, 0) == NULL);
	/* an uncommitted first record holds back the ones after it */
	for (int i = 1; i < 4; i++) {
		*(unsigned char *)r[i] = (unsigned char)i;
		kbpf_ringbuf_submit(r[i], 0);
	}
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 0);
	*(unsigned char *)r[0] = 0;
	kbpf_ringbuf_submit(r[0], 0);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 4);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(c.first[i], i);
	CHECK(kbpf_ringbuf_reserve(m, q, 0) != NULL); /* room again; left busy on purpose */
	kbpf_map_free(m);
}

/* Record sizes that do not divide the ring: records straddle its end and must read
 * back contiguous, byte for byte. */
static int check_pattern(void *ctx, void *data, size_t size)
{
	uint32_t *seq = ctx;
	unsigned char *d = data;

	for (size_t i = 0; i < size; i++)
		if (d[i] != (unsigned char)(*seq * 31 + i))
			return -EIO;
	(*seq)++;
	return 0;
}

static void test_ringbuf_wraparound(void)
{
	uint32_t pg = page_size(), produced = 0, consumed = 0;
	struct kbpf_map *m;
	int straddled = 0;

	CHECK_EQ_U64(mk(0, 0, pg, 0, &m), 0);
	for (int round = 0; round < 200; round++) {
		/* a burst of 1..3 records, then drain */
		for (int k = 0; k <= round % 3; k++) {
			size_t size = 300 + (round * 37 + k * 11) % 700;
			uint64_t prod = kbpf_ringbuf_query(m, BPF_RB_PROD_POS);
			unsigned char *s = kbpf_ringbuf_reserve(m, size, 0);

			CHECK(s != NULL);
			if (!s)
				break;
			if ((prod % pg) + 8 + size > pg)
				straddled++;
			for (size_t i = 0; i < size; i++)
				s[i] = (unsigned char)(produced * 31 + i);
			produced++;
			kbpf_ringbuf_submit(s, 0);
		}
		CHECK(kbpf_ringbuf_consume(m, check_pattern, &consumed) >= 1);
	}
	CHECK_EQ_U64(consumed, produced);
	CHECK(straddled > 10);
	CHECK(kbpf_ringbuf_query(m, BPF_RB_CONS_POS) > 20ull * pg); /* positions run on */
	kbpf_map_free(m);
}

/* A negative callback return stops, counts that record consumed and is returned;
 * a callback consuming the same ring gets -EBUSY. */
static struct kbpf_map *nested_map;
static int nested_result;

static int nested(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	nested_result = kbpf_ringbuf_consume(nested_map, nested, NULL);
	return 0;
}

static void test_ringbuf_consumer_rules(void)
{
	struct kbpf_map *m;
	struct collected c = { .stop_at = 2 };

	CHECK_EQ_U64(mk(0, 0, page_size(), 0, &m), 0);
	for (unsigned char i = 0; i < 5; i++)
		CHECK_EQ_U64(kbpf_ringbuf_output(m, &i, 1, 0), 0);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), -7);
	CHECK_EQ_U64(c.n, 2);
	c.stop_at = 0;
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, collect, &c), 3);
	CHECK(c.first[2] == 2 && c.first[4] == 4);

	nested_map = m;
	CHECK_EQ_U64(kbpf_ringbuf_output(m, "n", 1, 0), 0);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, nested, NULL), 1);
	CHECK_EQ_U64(nested_result, -EBUSY);

	/* ring buffer calls on another map type */
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 1 };
	struct kbpf_map *arr;
	CHECK_EQ_U64(kbpf_map_create(&def, &arr), 0);
	CHECK(kbpf_ringbuf_reserve(arr, 8, 0) == NULL);
	CHECK_EQ_U64(kbpf_ringbuf_output(arr, "x", 1, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_ringbuf_consume(arr, collect, &c), -EINVAL);
	CHECK_EQ_U64(kbpf_ringbuf_query(arr, BPF_RB_RING_SIZE), 0);
	kbpf_map_free(arr);
	kbpf_map_free(m);
}

/* --- threads: 4 producers, the main thread consumes concurrently ---------------------
 * Each producer sends (id, seq) for seq = 0..N-1; every fifth is reserved and
 * discarded instead.  The consumer checks each producer's sequence arrives in order. */
#define NR_PRODUCERS 4
#define NR_RECORDS 20000

struct rec {
	uint32_t id, seq;
	uint64_t check;
};

struct prod_arg {
	struct kbpf_map *m;
	uint32_t id;
};

static void *producer(void *p)
{
	struct prod_arg *a = p;

	for (uint32_t seq = 0; seq < NR_RECORDS; seq++) {
		struct rec *r;

		while (!(r = kbpf_ringbuf_reserve(a->m, sizeof(*r) + (seq % 3) * 8, 0)))
			sched_yield();
		r->id = a->id;
		r->seq = seq;
		r->check = (uint64_t)a->id * 1000003 + seq;
		if (seq % 5 == 4)
			kbpf_ringbuf_discard(r, 0);
		else
			kbpf_ringbuf_submit(r, 0);
	}
	return NULL;
}

struct consumer_state {
	uint32_t next_seq[NR_PRODUCERS];
	uint64_t received;
	int errors;
};

static int consume_rec(void *ctx, void *data, size_t size)
{
	struct consumer_state *st = ctx;
	struct rec *r = data;

	if (size < sizeof(*r) || r->id >= NR_PRODUCERS || r->check != (uint64_t)r->id * 1000003 + r->seq) {
		st->errors++;
		return 0;
	}
	/* discarded ones (seq % 5 == 4) never arrive */
	uint32_t want = st->next_seq[r->id];
	if (want % 5 == 4)
		want++;
	if (r->seq != want)
		st->errors++;
	st->next_seq[r->id] = r->seq + 1;
	st->received++;
	return 0;
}

static void test_ringbuf_threads(void)
{
	pthread_t t[NR_PRODUCERS];
	struct prod_arg args[NR_PRODUCERS];
	struct consumer_state st = { 0 };
	uint64_t expected = (uint64_t)NR_PRODUCERS * (NR_RECORDS - NR_RECORDS / 5);
	struct kbpf_map *m;

	CHECK_EQ_U64(mk(0, 0, 4 * page_size(), 0, &m), 0);
	for (uint32_t i = 0; i < NR_PRODUCERS; i++) {
		args[i] = (struct prod_arg){ m, i };
		CHECK_EQ_U64(pthread_create(&t[i], NULL, producer, &args[i]), 0);
	}
	while (st.received < expected && !st.errors) {
		int n = kbpf_ringbuf_consume(m, consume_rec, &st);

		CHECK(n >= 0);
		if (n <= 0)
			sched_yield();
	}
	for (uint32_t i = 0; i < NR_PRODUCERS; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(st.errors, 0);
	CHECK_EQ_U64(st.received, expected);
	CHECK_EQ_U64(kbpf_ringbuf_consume(m, consume_rec, &st), 0);
	CHECK_EQ_U64(kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA), 0);
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_ringbuf_create_rules);
	RUN(test_ringbuf_basic);
	RUN(test_ringbuf_full);
	RUN(test_ringbuf_wraparound);
	RUN(test_ringbuf_consumer_rules);
	RUN(test_ringbuf_threads);
	return test_summary();
}
