/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_RINGBUF: Linux's multi-producer, single-consumer ring of variable
 * size records, with Linux's record format, so that code written against libbpf's
 * ring_buffer reads kbpf's rings the same way.
 *
 * Record: an 8-byte header { u32 len; u32 pg_off; } then len bytes, the whole
 * rounded up to 8.  len carries BPF_RINGBUF_BUSY_BIT while the producer writes and
 * BPF_RINGBUF_DISCARD_BIT if the record was discarded; pg_off is the distance, in
 * 4 KiB units, from the header back to the start of the ring's mapping, where a
 * pointer to the ring lives (how submit finds the ring from a bare sample).
 *
 * A record may wrap past the end of the data area yet must be contiguous for the
 * program: as in Linux, the data pages are mapped twice, back to back, so the
 * bytes after the end are the bytes at the start.
 *
 * Positions only grow (free-running u64); producers serialise on a spin lock to
 * claim space, then fill and commit without it.  The consumer never passes a record
 * still marked busy, and a producer never claims space past the oldest record not
 * yet committed (pending_pos), so a slow producer cannot be overwritten. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define RB_PG_OFF_UNIT 4096u       /* pg_off unit; system pages are multiples of it */
#define RB_MAX_RECORD_SZ (UINT32_MAX / 4)
#define RB_CACHELINE 64

struct kbpf_ringbuf;

/* The first page of the mapping; records point back here through pg_off. */
struct rb_ctrl {
	struct kbpf_ringbuf *rb;
};

struct rb_hdr {
	uint32_t len; /* __atomic builtins: producer and consumer hand records over by it */
	uint32_t pg_off;
};

struct kbpf_ringbuf {
	struct kbpf_map map;
	char *area;        /* ctrl page, data, data again */
	size_t area_size;
	size_t ctrl_size;  /* one system page */
	char *data;
	uint64_t mask;     /* data size - 1 */
	/* producers' side */
	struct kbpf_spinlock lock __attribute__((aligned(RB_CACHELINE)));
	uint64_t pending_pos;  /* under lock: oldest record possibly still busy */
	uint64_t producer_pos; /* written under lock, read by anyone: __atomic builtins */
	/* consumer's side, on its own line */
	uint64_t consumer_pos __attribute__((aligned(RB_CACHELINE)));
	struct kbpf_spinlock consumer_busy;
};

static inline struct kbpf_ringbuf *to_rb(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_ringbuf, map);
}

static inline uint64_t rb_record_size(uint32_t len)
{
	return KBPF_ROUND_UP((uint64_t)(len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT)) +
				     BPF_RINGBUF_HDR_SZ, 8);
}

static void *rb_reserve(struct kbpf_ringbuf *rb, uint64_t size)
{
	uint64_t len, cons_pos, prod_pos, pend_pos, new_prod_pos;
	struct rb_hdr *hdr;

	if (size > RB_MAX_RECORD_SZ)
		return NULL;
	len = KBPF_ROUND_UP(size + BPF_RINGBUF_HDR_SZ, 8);
	if (len > rb->mask + 1)
		return NULL;
	cons_pos = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);

	kbpf_spin_lock(&rb->lock);
	pend_pos = rb->pending_pos;
	prod_pos = __atomic_load_n(&rb->producer_pos, __ATOMIC_RELAXED);
	new_prod_pos = prod_pos + len;
	/* move pending_pos past the records committed since */
	while (prod_pos > pend_pos) {
		uint32_t hdr_len;

		hdr = (struct rb_hdr *)(rb->data + (pend_pos & rb->mask));
		hdr_len = __atomic_load_n(&hdr->len, __ATOMIC_ACQUIRE);
		if (hdr_len & BPF_RINGBUF_BUSY_BIT)
			break;
		pend_pos += rb_record_size(hdr_len);
	}
	rb->pending_pos = pend_pos;
	/* full: the producer would lap the consumer, or the oldest busy record */
	if (new_prod_pos - cons_pos > rb->mask || new_prod_pos - pend_pos > rb->mask) {
		kbpf_spin_unlock(&rb->lock);
		return NULL;
	}
	hdr = (struct rb_hdr *)(rb->data + (prod_pos & rb->mask));
	hdr->pg_off = (uint32_t)(((char *)hdr - rb->area) / RB_PG_OFF_UNIT);
	__atomic_store_n(&hdr->len, (uint32_t)size | BPF_RINGBUF_BUSY_BIT, __ATOMIC_RELAXED);
	/* release: the busy header is written before the consumer can see the record */
	__atomic_store_n(&rb->producer_pos, new_prod_pos, __ATOMIC_RELEASE);
	kbpf_spin_unlock(&rb->lock);
	return (char *)hdr + BPF_RINGBUF_HDR_SZ;
}

static void rb_commit(void *sample, bool discard)
{
	struct rb_hdr *hdr = (struct rb_hdr *)((char *)sample - BPF_RINGBUF_HDR_SZ);
	uint32_t new_len = __atomic_load_n(&hdr->len, __ATOMIC_RELAXED) & ~BPF_RINGBUF_BUSY_BIT;

	if (discard)
		new_len |= BPF_RINGBUF_DISCARD_BIT;
	/* release: the record's bytes are visible before it stops being busy.  Linux
	 * would also wake up pollers here; kbpf consumers poll themselves. */
	__atomic_exchange_n(&hdr->len, new_len, __ATOMIC_ACQ_REL);
}

void *kbpf_ringbuf_reserve(struct kbpf_map *map, uint64_t size, uint64_t flags)
{
	if (!map || map->type != BPF_MAP_TYPE_RINGBUF || flags)
		return NULL;
	return rb_reserve(to_rb(map), size);
}

void kbpf_ringbuf_submit(void *sample, uint64_t flags)
{
	(void)flags;
	if (sample)
		rb_commit(sample, false);
}

void kbpf_ringbuf_discard(void *sample, uint64_t flags)
{
	(void)flags;
	if (sample)
		rb_commit(sample, true);
}

long kbpf_ringbuf_output(struct kbpf_map *map, const void *data, uint64_t size, uint64_t flags)
{
	void *sample;

	if (!map || map->type != BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;
	if (flags & ~(uint64_t)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
		return -EINVAL;
	sample = rb_reserve(to_rb(map), size);
	if (!sample)
		return -EAGAIN;
	memcpy(sample, data, size);
	rb_commit(sample, false);
	return 0;
}

uint64_t kbpf_ringbuf_query(struct kbpf_map *map, uint64_t flags)
{
	struct kbpf_ringbuf *rb;

	if (!map || map->type != BPF_MAP_TYPE_RINGBUF)
		return 0;
	rb = to_rb(map);
	switch (flags) {
	case BPF_RB_AVAIL_DATA:
		return __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE) -
		       __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	case BPF_RB_RING_SIZE:
		return rb->mask + 1;
	case BPF_RB_CONS_POS:
		return __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	case BPF_RB_PROD_POS:
		return __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);
	default:
		return 0;
	}
}

/* libbpf's ringbuf_process_ring, record for record. */
int kbpf_ringbuf_consume(struct kbpf_map *map, kbpf_ringbuf_sample_fn cb, void *ctx)
{
	struct kbpf_ringbuf *rb;
	uint64_t cons_pos, prod_pos;
	int64_t cnt = 0;
	bool got_new_data;

	if (!map || map->type != BPF_MAP_TYPE_RINGBUF || !cb)
		return -EINVAL;
	rb = to_rb(map);
	if (!kbpf_spin_trylock(&rb->consumer_busy))
		return -EBUSY;
	cons_pos = __atomic_load_n(&rb->consumer_pos, __ATOMIC_RELAXED);
	do {
		got_new_data = false;
		prod_pos = __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);
		while (cons_pos < prod_pos) {
			struct rb_hdr *hdr = (struct rb_hdr *)(rb->data + (cons_pos & rb->mask));
			uint32_t len = __atomic_load_n(&hdr->len, __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				goto done; /* not committed yet: later records wait behind it */
			got_new_data = true;
			cons_pos += rb_record_size(len);
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				int err = cb(ctx, (char *)hdr + BPF_RINGBUF_HDR_SZ, len);

				if (err < 0) {
					__atomic_store_n(&rb->consumer_pos, cons_pos, __ATOMIC_RELEASE);
					kbpf_spin_unlock(&rb->consumer_busy);
					return err;
				}
				cnt++;
			}
			/* release: producers may reuse the space only after we read it */
			__atomic_store_n(&rb->consumer_pos, cons_pos, __ATOMIC_RELEASE);
		}
	} while (got_new_data);
done:
	kbpf_spin_unlock(&rb->consumer_busy);
	return cnt > INT32_MAX ? INT32_MAX : (int)cnt;
}

/* --- create and free ----------------------------------------------------------- */

static void ringbuf_free(struct kbpf_map *map)
{
	struct kbpf_ringbuf *rb = to_rb(map);

	munmap(rb->area, rb->area_size);
	free(rb);
}

/* Samples: anywhere in the data area, possibly running into its second mapping. */
static size_t ringbuf_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	const struct kbpf_ringbuf *rb = KBPF_CONTAINER_OF(map, const struct kbpf_ringbuf, map);

	return kbpf_map_one_region(map, rb->data, 2 * (size_t)(rb->mask + 1), out, max);
}

/* No lookups, updates, deletes or iteration: every entry -EOPNOTSUPP (Linux ENOTSUPP). */
static const struct kbpf_map_ops ringbuf_ops = {
	.mem_regions = ringbuf_mem_regions,
	.free = ringbuf_free,
};

/* Map ctrl page + data, then the data pages again right after. */
static int rb_map_area(struct kbpf_ringbuf *rb, size_t ctrl_size, size_t data_size)
{
	size_t total = ctrl_size + 2 * data_size;
	char *area;
	int fd, err = 0;

	fd = memfd_create("kbpf-ringbuf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)(ctrl_size + data_size))) {
		err = -errno;
		goto out;
	}
	/* reserve the whole range first so the two data views land back to back */
	area = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		err = -ENOMEM;
		goto out;
	}
	if (mmap(area, ctrl_size + data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED ||
	    mmap(area + ctrl_size + data_size, data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, (off_t)ctrl_size) == MAP_FAILED) {
		munmap(area, total);
		err = -ENOMEM;
		goto out;
	}
	rb->area = area;
	rb->area_size = total;
	rb->ctrl_size = ctrl_size;
	rb->data = area + ctrl_size;
	((struct rb_ctrl *)area)->rb = rb;
out:
	close(fd);
	return err;
}

int kbpf_ringbuf_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t page_size = page > 0 ? (size_t)page : RB_PG_OFF_UNIT;
	/* Linux: the 32-bit pg_off, 8 bits kept for later, minus the position pages */
	uint64_t max_data = ((1ull << 24) - 3) * page_size;
	struct kbpf_ringbuf *rb;
	int err;

	if (attr->map_flags & ~(uint32_t)BPF_F_NUMA_NODE)
		return -EINVAL;
	if (attr->key_size || attr->value_size || !attr->max_entries ||
	    (attr->max_entries & (attr->max_entries - 1)) || attr->max_entries % page_size)
		return -EINVAL;
	if (attr->max_entries > max_data)
		return -E2BIG;

	rb = aligned_alloc(RB_CACHELINE, KBPF_ROUND_UP(sizeof(*rb), RB_CACHELINE));
	if (!rb)
		return -ENOMEM;
	memset(rb, 0, sizeof(*rb));
	kbpf_map_init_from_attr(&rb->map, attr);
	rb->map.ops = &ringbuf_ops;
	rb->map.host_value_size = 0;
	rb->mask = attr->max_entries - 1;
	kbpf_spin_init(&rb->lock);
	kbpf_spin_init(&rb->consumer_busy);
	err = rb_map_area(rb, page_size, attr->max_entries);
	if (err) {
		free(rb);
		return err == -EMFILE || err == -ENFILE ? err : -ENOMEM;
	}
	*out = &rb->map;
	return 0;
}
