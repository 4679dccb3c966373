/* SPDX-License-Identifier: Apache-2.0 */
/* The hash maps (HASH, PERCPU_HASH, LRU_HASH, LRU_PERCPU_HASH): layout shared by
 * htab.c (the table), htab_pool.c (where elements come from) and htab_lru.c
 * (eviction).
 *
 * Memory safety rule: an element's memory is never returned to malloc before the
 * map is freed.  Elements come from a per-map pool and go back to it on delete, so
 * a pointer a program got from bpf_map_lookup_elem stays valid memory (possibly
 * reused by another key), exactly what Linux guarantees for preallocated maps.
 *
 * That same rule lets program-side lookups walk a chain without any lock, as Linux
 * does with RCU and "nulls" lists: an element the reader stands on may be deleted
 * and reused meanwhile, but it is still an element.
 *  - A chain ends in a nulls marker naming its bucket, not in NULL.  A reader carried
 *    into another bucket's chain (its element was moved there) ends on a foreign
 *    marker and starts again.  Only a bucket's head may be NULL: a bucket no key has
 *    used yet (the array is left as calloc gave it, so its pages are not touched
 *    until used); it means this bucket's marker (htab_first).
 *  - The free list links elements through free_next, so the next of a deleted
 *    element still leads along its old chain.
 *  - An element's key and hash change only while it is in no chain, inside a
 *    sequence count (seq odd); a reader that saw the count change ignores its match.
 *  - Every field a lock-free reader loads (head, next, hash, seq, key words) is
 *    written with __atomic stores, so the C memory model (and TSan) agree.
 * Updates, deletes, host-side lookups and iteration take the bucket lock.
 *
 * Locks, and the only orders in which they nest:
 *   bucket lock -> free-list lock          (insert takes an element while holding its bucket)
 *   LRU lock    -> bucket lock             (eviction unlinks a victim from its bucket)
 * Nothing is taken while holding a free-list lock, and the LRU lock is never taken
 * while holding a bucket lock. */
#ifndef KBPF_MAPS_HTAB_H
#define KBPF_MAPS_HTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define KBPF_CACHELINE 64

struct htab_lru_node {
	struct htab_lru_node *prev, *next;
};

struct htab_elem {
	struct htab_elem *next;      /* bucket chain, ending in a nulls marker */
	struct htab_elem *free_next; /* free list (under the free-list lock) */
	struct htab_lru_node lru;    /* LRU maps: position in the eviction list */
	uint32_t hash;
	uint32_t seq;                /* odd while key and hash are being rewritten */
	uint32_t index;              /* position in the pool, fixed: finds per-CPU values */
	uint8_t lru_ref;             /* LRU: used since the last eviction scan */
	/* key, zero-padded to 8 bytes and accessed as atomic words, then (not per-CPU)
	 * the value, padded to 8 bytes */
	char key[] __attribute__((aligned(8)));
};

struct htab_bucket {
	struct kbpf_spinlock lock;
	struct htab_elem *head; /* first element, or this bucket's nulls marker */
};

/* A chain's end: odd, so never an element's address, and naming its bucket. */
static inline struct htab_elem *htab_nulls(uint32_t bucket)
{
	return (struct htab_elem *)(((uintptr_t)bucket << 1) | 1);
}

static inline bool htab_is_nulls(const struct htab_elem *e)
{
	return (uintptr_t)e & 1;
}

static inline uint32_t htab_nulls_bucket(const struct htab_elem *e)
{
	return (uint32_t)((uintptr_t)e >> 1);
}

static inline struct htab_elem *htab_next(struct htab_elem *const *link)
{
	return __atomic_load_n(link, __ATOMIC_ACQUIRE);
}

/* The first element of b or a nulls marker (of bucket 0 when b was never used: for
 * the locked walks, which do not look at whose marker ends them). */
static inline struct htab_elem *htab_first(const struct htab_bucket *b)
{
	struct htab_elem *e = htab_next(&b->head);

	return e ? e : htab_nulls(0);
}

/* One free list per CPU slot, as Linux's pcpu_freelist: threads on different slots
 * insert and delete without sharing a lock. */
struct htab_free_list {
	struct kbpf_spinlock lock;
	struct htab_elem *first; /* __atomic stores under the lock; unlocked emptiness peeks */
} __attribute__((aligned(KBPF_CACHELINE)));

struct htab_pool {
	char *elems;          /* nr_elems * elem_size bytes, zeroed */
	size_t elem_size;
	uint32_t nr_elems;
	atomic_uint used;     /* elements [0, used) have been handed out at least once */
	struct htab_free_list *lists;
	unsigned nr_lists;
};

struct htab_lru {
	struct kbpf_spinlock lock;
	struct htab_lru_node head; /* circular; head.next is the most recently added */
	uint32_t nr_listed;
};

struct kbpf_htab {
	struct kbpf_map map;
	struct htab_bucket *buckets;
	uint32_t n_buckets; /* power of 2 */
	uint32_t hashrnd;
	uint32_t key_size8;
	uint32_t value_size8;
	bool percpu;
	bool lru;
	unsigned nr_cpus;
	/* per-CPU maps: values live apart from elements, [cpu][element index], so that
	 * one CPU's values share no cache line with another CPU's */
	void *pcpu_mem;
	char *pcpu_values;
	size_t cpu_stride;
	struct htab_pool pool;
	struct htab_lru lru_list;
};

static inline struct kbpf_htab *to_htab(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_htab, map);
}

static inline uint32_t htab_bucket_index(const struct kbpf_htab *htab, uint32_t hash)
{
	return hash & (htab->n_buckets - 1);
}

static inline struct htab_bucket *htab_bucket_of(const struct kbpf_htab *htab, uint32_t hash)
{
	return &htab->buckets[htab_bucket_index(htab, hash)];
}

static inline uint64_t htab_mix64(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	return x;
}

/* The last 1..7 bytes as one word, without a variable-length copy (whose byte
 * stores followed by a word load stall store forwarding).  Overlapping loads are
 * fine: for a given length the loaded bytes still determine the tail. */
static inline uint64_t htab_load_tail(const unsigned char *p, uint32_t len)
{
	uint32_t lo, hi;

	if (len >= 4) {
		memcpy(&lo, p, 4);
		memcpy(&hi, p + len - 4, 4);
		return (uint64_t)lo << 32 | hi;
	}
	return (uint64_t)p[0] << 16 | (uint64_t)p[len >> 1] << 8 | p[len - 1];
}

/* The bucket hash (here so white-box tests can aim keys at buckets). Keys are
 * short (a few words): mix 8 bytes at a time, then the tail.  The length
 * is part of the seed, so keys differing only in length hash apart. */
static inline uint32_t htab_hash(const void *key, uint32_t len, uint32_t seed)
{
	const unsigned char *p = key;
	uint64_t h = seed ^ ((uint64_t)len << 32), w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = htab_mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
	}
	if (len)
		h = htab_mix64(h ^ htab_load_tail(p, len) ^ 0xff);
	return (uint32_t)(htab_mix64(h) >> 16);
}

/* The value of e for cpu (ignored unless per-CPU). */
static inline char *htab_elem_value(const struct kbpf_htab *htab, struct htab_elem *e, unsigned cpu)
{
	if (htab->percpu)
		return htab->pcpu_values + htab->cpu_stride * cpu + (size_t)htab->value_size8 * e->index;
	return e->key + htab->key_size8;
}

/* htab_pool.c */
int htab_pool_init(struct htab_pool *pool, uint32_t nr_elems, size_t elem_size, unsigned nr_lists);
void htab_pool_destroy(struct htab_pool *pool);
/* An unused element, or NULL when all nr_elems are in use. */
struct htab_elem *htab_pool_get(struct htab_pool *pool);
void htab_pool_put(struct htab_pool *pool, struct htab_elem *e);

/* htab_lru.c */
void htab_lru_init(struct htab_lru *lru);
/* An element for a new key: an unused one, else the least recently used one, evicted.
 * NULL only if every element is between insert and delete in another thread. */
struct htab_elem *htab_lru_get(struct kbpf_htab *htab);
/* Make e (initialised: hash set) a candidate for eviction. Call before linking it. */
void htab_lru_add(struct kbpf_htab *htab, struct htab_elem *e);
/* Give back an element added with htab_lru_add and no longer (or never) in the table. */
void htab_lru_put(struct kbpf_htab *htab, struct htab_elem *e);

static inline void htab_lru_touch(struct htab_elem *e)
{
	/* check first: a store on every lookup would bounce the line between CPUs */
	if (!__atomic_load_n(&e->lru_ref, __ATOMIC_RELAXED))
		__atomic_store_n(&e->lru_ref, 1, __ATOMIC_RELAXED);
}

/* htab.c: unlink e from bucket b if it is there; caller holds b's lock. */
bool htab_bucket_unlink(struct htab_bucket *b, struct htab_elem *e);

#endif /* KBPF_MAPS_HTAB_H */
