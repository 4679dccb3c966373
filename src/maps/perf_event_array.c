/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_PERF_EVENT_ARRAY and the host's perf buffer: what bpf_perf_event_output
 * writes to and what libbpf's perf_buffer reads from.
 *
 * In Linux a slot holds a perf event (a BPF_OUTPUT software event, one per CPU, opened
 * by libbpf's perf_buffer__new) whose mmap()ed ring the consumer reads.  kbpf has no
 * perf events: a slot holds a ring of a struct kbpf_perf_buffer, installed by
 * kbpf_perf_buffer_new for slots 0 .. min(max_entries, CPUs) - 1, as libbpf installs one
 * event per CPU.
 *
 * A ring is a byte ring of free-running u64 positions.  Records are an 8-byte header
 * { u32 type; u32 len; } then len bytes, the whole rounded up to 8: type
 * PERF_RECORD_SAMPLE (the sample's bytes) or PERF_RECORD_LOST (a u64 count), as
 * Linux's records.  Producers (programs on any thread, several per slot: kbpf's CPUs
 * are thread slots) serialise on the ring's spin lock; the one consumer reads without
 * it.  A producer publishes head with release after the bytes, the consumer tail with
 * release after reading them, so neither overwrites what the other still uses.  A
 * sample that does not fit is dropped and counted; the count goes into the ring as a
 * LOST record ahead of the next sample that fits (Linux's perf_output_begin), or is
 * handed to the consumer once it has read everything before it.
 *
 * Lifetime: a producer (or the host asking what a slot holds) announces itself on the
 * slot (users[i]) before it reads the slot's ring pointer; kbpf_perf_buffer_free empties
 * the slot and then waits for the slot's users to leave before the ring's memory goes
 * (Linux waits for an RCU grace period).  Both sides use sequentially consistent operations for this handshake. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h> /* PERF_RECORD_SAMPLE, PERF_RECORD_LOST */
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define PERF_REC_HDR 8u
#define PERF_CACHELINE 64

struct perf_rec_hdr {
	uint32_t type;
	uint32_t len;
};

struct kbpf_perf_buffer;

struct perf_ring {
	/* producers' side */
	struct kbpf_spinlock lock __attribute__((aligned(PERF_CACHELINE)));
	uint64_t lost; /* dropped since the last record written: __atomic builtins, written under lock */
	uint64_t head; /* written under lock, read by the consumer: __atomic builtins */
	/* consumer's side, on its own line */
	uint64_t tail __attribute__((aligned(PERF_CACHELINE)));
	struct kbpf_perf_buffer *pb; /* to wake a waiting poll */
	uint32_t slot;
	uint64_t mask; /* data size - 1 */
	char *data;
};

struct kbpf_perf_event_array {
	struct kbpf_map map;
	_Atomic(struct perf_ring *) *slots;
	atomic_uint *users;   /* producers inside each slot (see the lifetime note above) */
	atomic_int attached;  /* a perf buffer owns the slots */
};

struct kbpf_perf_buffer {
	struct kbpf_map *map; /* a reference */
	kbpf_perf_sample_fn sample_cb;
	kbpf_perf_lost_fn lost_cb;
	void *ctx;
	size_t nr_rings;
	struct perf_ring *rings; /* one per slot, slot i = ring i */
	char *scratch;           /* a record that wraps, made contiguous for sample_cb */
	struct kbpf_spinlock consumer_busy;
	/* poll's wait: producers wake it only while someone waits */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int waiters;
};

static inline struct kbpf_perf_event_array *to_pea(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_perf_event_array, map);
}

static inline uint64_t rec_size(uint64_t len)
{
	return PERF_REC_HDR + KBPF_ROUND_UP(len, 8);
}

/* Copy len bytes into the ring at position pos, wrapping at the end. */
static void ring_put(struct perf_ring *r, uint64_t pos, const void *src, size_t len)
{
	size_t off = (size_t)(pos & r->mask), first = (size_t)(r->mask + 1) - off;

	if (!len)
		return;
	if (first >= len) {
		memcpy(r->data + off, src, len);
		return;
	}
	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, len - first);
}

static void ring_get(const struct perf_ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = (size_t)(pos & r->mask), first = (size_t)(r->mask + 1) - off;

	if (first >= len) {
		memcpy(dst, r->data + off, len);
		return;
	}
	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static void pb_wake(struct kbpf_perf_buffer *pb)
{
	/* Dekker's pattern with the poller, all seq_cst: we store head then read the waiter
	 * count, it raises the count then reads head, so at least one sees the other */
	if (atomic_load_explicit(&pb->waiters, memory_order_seq_cst)) {
		pthread_mutex_lock(&pb->mu);
		pthread_cond_broadcast(&pb->cv);
		pthread_mutex_unlock(&pb->mu);
	}
}

/* Write one sample (two fragments) to r: 0, or -ENOSPC (counted lost). */
static long ring_output(struct perf_ring *r, const void *data, uint64_t size, const void *extra,
			uint64_t extra_size)
{
	/* sizes past u32 cannot fit any ring (and must not wrap the sums below) */
	bool huge = size > UINT32_MAX || extra_size > UINT32_MAX;
	uint64_t len = huge ? 0 : size + extra_size, need = rec_size(len), head, lost;
	uint64_t cap = r->mask + 1;

	kbpf_spin_lock(&r->lock);
	lost = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	if (lost)
		need += rec_size(sizeof(uint64_t));
	head = r->head;
	/* acquire: the consumer has finished reading what it gave back */
	if (huge || len > UINT32_MAX || need > cap - (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE))) {
		__atomic_store_n(&r->lost, lost + 1, __ATOMIC_RELAXED);
		kbpf_spin_unlock(&r->lock);
		return -ENOSPC;
	}
	if (lost) {
		struct perf_rec_hdr h = { .type = PERF_RECORD_LOST, .len = sizeof(uint64_t) };

		ring_put(r, head, &h, sizeof(h));
		ring_put(r, head + PERF_REC_HDR, &lost, sizeof(lost));
		head += rec_size(sizeof(uint64_t));
		__atomic_store_n(&r->lost, 0, __ATOMIC_RELAXED);
	}
	struct perf_rec_hdr h = { .type = PERF_RECORD_SAMPLE, .len = (uint32_t)len };
	static const char zero[8];

	ring_put(r, head, &h, sizeof(h));
	ring_put(r, head + PERF_REC_HDR, data, (size_t)size);
	ring_put(r, head + PERF_REC_HDR + size, extra, (size_t)extra_size);
	/* padding to 8: zeroes, so nothing of an older record shows through */
	ring_put(r, head + PERF_REC_HDR + len, zero, (size_t)(KBPF_ROUND_UP(len, 8) - len));
	head += rec_size(len);
	/* seq_cst, not just release: see pb_wake */
	__atomic_store_n(&r->head, head, __ATOMIC_SEQ_CST);
	kbpf_spin_unlock(&r->lock);
	pb_wake(r->pb);
	return 0;
}

/* Enter slot index as one of its users (see the lifetime note above): its ring, if any,
 * stays allocated until slot_leave. */
static struct perf_ring *slot_enter(struct kbpf_perf_event_array *pea, uint64_t index)
{
	atomic_fetch_add_explicit(&pea->users[index], 1, memory_order_seq_cst);
	return atomic_load_explicit(&pea->slots[index], memory_order_seq_cst);
}

static void slot_leave(struct kbpf_perf_event_array *pea, uint64_t index)
{
	atomic_fetch_sub_explicit(&pea->users[index], 1, memory_order_release);
}

long kbpf_perf_event_output(struct kbpf_map *map, uint64_t flags, const void *data, uint64_t size,
			    const void *extra, uint64_t extra_size)
{
	struct kbpf_perf_event_array *pea;
	uint64_t index = flags & BPF_F_INDEX_MASK;
	struct perf_ring *r;
	long ret;

	if (!map || map->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY || (flags & ~(uint64_t)BPF_F_INDEX_MASK) ||
	    (size && !data) || (extra_size && !extra))
		return -EINVAL;
	if (index == BPF_F_CURRENT_CPU)
		index = kbpf_cpu_id();
	if (index >= map->max_entries)
		return -E2BIG;
	pea = to_pea(map);
	r = slot_enter(pea, index);
	ret = r ? ring_output(r, data, size, extra, extra_size) : -ENOENT;
	slot_leave(pea, index);
	return ret;
}

int kbpf_perf_event_array_slot(const struct kbpf_map *map, uint32_t index, size_t *ring_size)
{
	struct kbpf_perf_event_array *pea;
	struct perf_ring *r;
	size_t size;

	if (!map || map->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	/* a user of the slot, as a producer: a perf buffer freed meanwhile waits for us
	 * before its ring goes (the counter is the map's only mutable part here) */
	pea = KBPF_CONTAINER_OF((struct kbpf_map *)(uintptr_t)map, struct kbpf_perf_event_array, map);
	r = slot_enter(pea, index);
	size = r ? (size_t)(r->mask + 1) : 0;
	slot_leave(pea, index);
	if (ring_size)
		*ring_size = size;
	return r != NULL;
}

/* --- the perf buffer (host side) ---------------------------------------------------- */

/* Read the records of r published when it starts (those written meanwhile, by a callback
 * too, wait for the next call: a consumer keeps up with busy producers in bounded
 * steps), then a pending lost count if nothing was written after those records.
 * Returns the number of records handed to the callbacks. */
static int ring_consume(struct kbpf_perf_buffer *pb, struct perf_ring *r)
{
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), lost = 0;
	int cnt = 0;

	while (tail < head) {
		struct perf_rec_hdr h;
		uint64_t pos = tail + PERF_REC_HDR;
		size_t off = (size_t)(pos & r->mask);

		ring_get(r, tail, &h, sizeof(h));
		if (h.type == PERF_RECORD_LOST) {
			uint64_t n;

			ring_get(r, pos, &n, sizeof(n));
			if (pb->lost_cb)
				pb->lost_cb(pb->ctx, (int)r->slot, n);
		} else if (pb->sample_cb) {
			void *p = r->data + off;

			if (off + h.len > r->mask + 1) { /* wraps: copy it out */
				ring_get(r, pos, pb->scratch, h.len);
				p = pb->scratch;
			}
			pb->sample_cb(pb->ctx, (int)r->slot, p, h.len);
		}
		cnt++;
		tail += rec_size(h.len);
		/* release: producers may reuse the space only once it has been read */
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	if (!__atomic_load_n(&r->lost, __ATOMIC_RELAXED))
		return cnt;
	/* losses after everything read: report them unless a record came meanwhile (it
	 * carries them itself, or precedes them: the next call reads it first) */
	kbpf_spin_lock(&r->lock);
	if (r->head == tail) {
		lost = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
		__atomic_store_n(&r->lost, 0, __ATOMIC_RELAXED);
	}
	kbpf_spin_unlock(&r->lock);
	if (!lost)
		return cnt;
	if (pb->lost_cb)
		pb->lost_cb(pb->ctx, (int)r->slot, lost);
	return cnt + 1;
}

int kbpf_perf_buffer_consume(struct kbpf_perf_buffer *pb)
{
	int64_t cnt = 0;

	if (!pb)
		return -EINVAL;
	if (!kbpf_spin_trylock(&pb->consumer_busy))
		return -EBUSY;
	for (size_t i = 0; i < pb->nr_rings; i++)
		cnt += ring_consume(pb, &pb->rings[i]);
	kbpf_spin_unlock(&pb->consumer_busy);
	return cnt > INT32_MAX ? INT32_MAX : (int)cnt;
}

static bool pb_has_data(struct kbpf_perf_buffer *pb)
{
	for (size_t i = 0; i < pb->nr_rings; i++) {
		struct perf_ring *r = &pb->rings[i];

		if (__atomic_load_n(&r->head, __ATOMIC_SEQ_CST) != __atomic_load_n(&r->tail, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&r->lost, __ATOMIC_SEQ_CST))
			return true;
	}
	return false;
}

int kbpf_perf_buffer_poll(struct kbpf_perf_buffer *pb, int timeout_ms)
{
	struct timespec deadline;
	int n;

	if (!pb)
		return -EINVAL;
	n = kbpf_perf_buffer_consume(pb);
	if (n || !timeout_ms)
		return n;
	if (timeout_ms > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout_ms / 1000;
		deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&pb->mu);
	atomic_fetch_add_explicit(&pb->waiters, 1, memory_order_seq_cst);
	while (!pb_has_data(pb)) {
		int err = timeout_ms > 0 ? pthread_cond_timedwait(&pb->cv, &pb->mu, &deadline)
					 : pthread_cond_wait(&pb->cv, &pb->mu);
		if (err == ETIMEDOUT)
			break;
	}
	atomic_fetch_sub_explicit(&pb->waiters, 1, memory_order_relaxed);
	pthread_mutex_unlock(&pb->mu);
	return kbpf_perf_buffer_consume(pb);
}

/* Empty the slots this buffer filled, wait until no producer is still inside one, and
 * free everything. */
void kbpf_perf_buffer_free(struct kbpf_perf_buffer *pb)
{
	struct kbpf_perf_event_array *pea;

	if (!pb)
		return;
	pea = to_pea(pb->map);
	for (size_t i = 0; i < pb->nr_rings; i++) {
		struct perf_ring *expected = &pb->rings[i];

		/* the host may have emptied it already (kbpf_map_delete) */
		atomic_compare_exchange_strong_explicit(&pea->slots[i], &expected, NULL, memory_order_seq_cst,
							memory_order_seq_cst);
	}
	for (size_t i = 0; i < pb->nr_rings; i++) {
		unsigned spins = 0;

		while (atomic_load_explicit(&pea->users[i], memory_order_seq_cst))
			if (++spins < 128)
				kbpf_cpu_relax();
			else
				sched_yield();
	}
	atomic_store_explicit(&pea->attached, 0, memory_order_release);
	for (size_t i = 0; i < pb->nr_rings; i++)
		free(pb->rings[i].data);
	free(pb->rings);
	free(pb->scratch);
	pthread_cond_destroy(&pb->cv);
	pthread_mutex_destroy(&pb->mu);
	kbpf_map_free(pb->map);
	free(pb);
}

int kbpf_perf_buffer_new(struct kbpf_map *map, size_t page_cnt, kbpf_perf_sample_fn sample_cb,
			 kbpf_perf_lost_fn lost_cb, void *ctx, struct kbpf_perf_buffer **out)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t page_size = page > 0 ? (size_t)page : 4096, ring_size;
	struct kbpf_perf_event_array *pea;
	struct kbpf_perf_buffer *pb;
	pthread_condattr_t ca;
	int expected = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	/* libbpf's perf_buffer__new: a power-of-2 number of pages per CPU */
	if (!map || map->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY || !page_cnt || (page_cnt & (page_cnt - 1)) ||
	    page_cnt > SIZE_MAX / page_size || page_cnt * page_size > (1ull << 32))
		return -EINVAL;
	ring_size = page_cnt * page_size;
	pea = to_pea(map);
	if (!atomic_compare_exchange_strong_explicit(&pea->attached, &expected, 1, memory_order_acq_rel,
						     memory_order_acquire))
		return -EBUSY;
	pb = calloc(1, sizeof(*pb));
	if (!pb)
		goto nomem;
	/* libbpf: one ring per CPU, as many as the map has slots for */
	pb->nr_rings = kbpf_nr_cpus() < map->max_entries ? kbpf_nr_cpus() : map->max_entries;
	pb->rings = aligned_alloc(PERF_CACHELINE, KBPF_ROUND_UP(pb->nr_rings * sizeof(*pb->rings), PERF_CACHELINE));
	pb->scratch = malloc(ring_size);
	if (!pb->rings || !pb->scratch)
		goto nomem_pb;
	memset(pb->rings, 0, pb->nr_rings * sizeof(*pb->rings));
	for (size_t i = 0; i < pb->nr_rings; i++) {
		struct perf_ring *r = &pb->rings[i];

		kbpf_spin_init(&r->lock);
		r->pb = pb;
		r->slot = (uint32_t)i;
		r->mask = ring_size - 1;
		r->data = malloc(ring_size);
		if (!r->data) {
			while (i--)
				free(pb->rings[i].data);
			goto nomem_pb;
		}
	}
	pb->map = kbpf_map_ref(map);
	pb->sample_cb = sample_cb;
	pb->lost_cb = lost_cb;
	pb->ctx = ctx;
	kbpf_spin_init(&pb->consumer_busy);
	pthread_mutex_init(&pb->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pb->cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&pb->waiters, 0);
	/* last: programs may write as soon as a slot holds its ring */
	for (size_t i = 0; i < pb->nr_rings; i++)
		atomic_store_explicit(&pea->slots[i], &pb->rings[i], memory_order_release);
	*out = pb;
	return 0;

nomem_pb:
	free(pb->rings);
	free(pb->scratch);
	free(pb);
nomem:
	atomic_store_explicit(&pea->attached, 0, memory_order_release);
	return -ENOMEM;
}

/* --- the map ------------------------------------------------------------------------ */

/* Linux's fd_array_map_delete_elem: the slot no longer receives samples (its ring stays
 * the perf buffer's, which may still read what it holds). */
static int pea_sys_delete(struct kbpf_map *map, const void *key)
{
	struct kbpf_perf_event_array *pea = to_pea(map);
	uint32_t index = kbpf_map_key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	if (!atomic_exchange_explicit(&pea->slots[index], NULL, memory_order_seq_cst))
		return -ENOENT;
	return 0;
}

static void pea_free(struct kbpf_map *map)
{
	struct kbpf_perf_event_array *pea = to_pea(map);

	/* a perf buffer holds a reference to the map, so none is attached here */
	free(pea->slots);
	free(pea->users);
	free(pea);
}

/* Programs only pass the map to bpf_perf_event_output (Linux's verifier refuses the
 * other map helpers on it, lookups included); the host side has no values to read or
 * write: Linux's lookup says ENOTSUPP, an update takes a perf event fd, which kbpf has
 * not (kbpf_perf_buffer_new fills the slots instead). */
static const struct kbpf_map_ops pea_ops = {
	.sys_delete = pea_sys_delete,
	.get_next_key = kbpf_array_get_next_key, /* every index, set or not */
	.free = pea_free,
};

/* Linux's fd_array_map_alloc_check, then the array rules (BPF_F_PRESERVE_ELEMS is this
 * type's alone; it asks Linux to keep the events when the map's creator closes it,
 * which is what kbpf does anyway). */
int kbpf_perf_event_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct kbpf_perf_event_array *pea;
	int err;

	err = kbpf_fd_array_map_alloc_check(attr);
	if (err)
		return err;

	pea = calloc(1, sizeof(*pea));
	if (!pea)
		return -ENOMEM;
	pea->slots = calloc(attr->max_entries, sizeof(*pea->slots));
	pea->users = calloc(attr->max_entries, sizeof(*pea->users));
	if (!pea->slots || !pea->users) {
		free(pea->slots);
		free(pea->users);
		free(pea);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&pea->map, attr);
	pea->map.ops = &pea_ops;
	*out = &pea->map;
	return 0;
}
