/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_HASH, PERCPU_HASH, LRU_HASH and LRU_PERCPU_HASH: a chained hash
 * table of power-of-two size with a spin lock per bucket.
 *
 * Program-side lookups take no lock (htab.h says why that is safe): a lookup
 * writes no shared memory, so threads reading one map do not bounce cache lines.
 * Everything else holds the bucket lock.
 *
 * Updates of an existing key copy the value in place under the bucket lock (Linux
 * swaps in a new element instead): host-side readers, which copy under the lock,
 * never see a torn value, while a program holding a pointer to the value can, as it
 * can in Linux's arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "maps/htab.h"

#define HTAB_CREATE_FLAG_MASK \
	(BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE | KBPF_MAP_ACCESS_MASK | BPF_F_ZERO_SEED)

/* --- hashing (htab_hash is in htab.h) ---------------------------------------------- */

static uint32_t random_seed(void)
{
	uint32_t seed;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)htab_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uintptr_t)&ts);
}

/* --- keys and chains ---------------------------------------------------------------- */

/* Give an element that is in no chain its key and hash, inside its sequence count.
 * The seqlock needs no fences: each word is a release store after seq went odd, so a
 * reader whose acquire load sees a new word then also sees seq changed. */
static void elem_set_key(struct kbpf_htab *htab, struct htab_elem *e, const void *key, uint32_t hash)
{
	uint32_t len = htab->map.key_size;
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELAXED);
	for (uint32_t off = 0; off < len; off += 8) {
		uint64_t w = 0;

		memcpy(&w, (const char *)key + off, len - off < 8 ? len - off : 8);
		__atomic_store_n((uint64_t *)(e->key + off), w, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&e->hash, hash, __ATOMIC_RELEASE);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}

/* Compare e's key word by word with acquire loads: a lock-free reader may race with
 * elem_set_key (and then checks the sequence count).  u32 and u64 keys need no call. */
static inline bool elem_key_equal(const struct htab_elem *e, const void *key, uint32_t len)
{
	const char *k = key;
	uint32_t off = 0;
	uint64_t w, x;

	for (; off + 8 <= len; off += 8) {
		w = __atomic_load_n((const uint64_t *)(e->key + off), __ATOMIC_ACQUIRE);
		memcpy(&x, k + off, 8);
		if (w != x)
			return false;
	}
	if (off == len)
		return true;
	w = __atomic_load_n((const uint64_t *)(e->key + off), __ATOMIC_ACQUIRE);
	if (len - off == 4) {
		uint32_t a, b;

		memcpy(&a, &w, 4);
		memcpy(&b, k + off, 4);
		return a == b;
	}
	return !memcmp(&w, k + off, len - off);
}

/* Under the bucket lock. */
static struct htab_elem *bucket_find(const struct htab_bucket *b, uint32_t hash, const void *key,
				     uint32_t key_size)
{
	for (struct htab_elem *e = htab_first(b); !htab_is_nulls(e); e = htab_next(&e->next))
		if (__atomic_load_n(&e->hash, __ATOMIC_RELAXED) == hash && elem_key_equal(e, key, key_size))
			return e;
	return NULL;
}

/* Without a lock: Linux's lookup_nulls_elem_raw, plus the sequence check. */
static struct htab_elem *htab_find_nolock(const struct kbpf_htab *htab, uint32_t hash, const void *key)
{
	uint32_t idx = htab_bucket_index(htab, hash), key_size = htab->map.key_size;
	struct htab_bucket *b = &htab->buckets[idx];
	struct htab_elem *e;

again:
	e = htab_next(&b->head);
	if (!e)
		return NULL; /* a bucket never used (htab.h: NULL is its nulls marker) */
	for (; !htab_is_nulls(e); e = htab_next(&e->next)) {
		uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&e->hash, __ATOMIC_ACQUIRE) != hash || !elem_key_equal(e, key, key_size))
			continue;
		if (!(seq & 1) && __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq)
			return e;
	}
	/* ended in another bucket's chain: an element we stood on was moved there */
	if (htab_nulls_bucket(e) != idx)
		goto again;
	return NULL;
}

/* Under the bucket lock.  Release: a lock-free reader that reaches e sees its key,
 * hash and value. */
static void bucket_link(const struct kbpf_htab *htab, struct htab_bucket *b, struct htab_elem *e)
{
	struct htab_elem *next = htab_next(&b->head);

	/* an element's next always names its bucket at the end: never NULL */
	__atomic_store_n(&e->next, next ? next : htab_nulls((uint32_t)(b - htab->buckets)), __ATOMIC_RELAXED);
	__atomic_store_n(&b->head, e, __ATOMIC_RELEASE);
}

/* Under the bucket lock.  e->next is left as it is, so a reader standing on e
 * carries on along this chain. */
bool htab_bucket_unlink(struct htab_bucket *b, struct htab_elem *e)
{
	struct htab_elem **link = &b->head, *cur;

	while ((cur = htab_next(link)) && !htab_is_nulls(cur)) {
		if (cur == e) {
			__atomic_store_n(link, htab_next(&e->next), __ATOMIC_RELEASE);
			return true;
		}
		link = &cur->next;
	}
	return false;
}

/* --- values ---------------------------------------------------------------------- */

/* Store value into e.  all_cpus: value holds every CPU's value, 8-byte strided (the
 * host side); otherwise it is this CPU's only, and a new element's other CPUs start
 * at zero (Linux's pcpu_init_value) so a program can rely on their contents. */
static void elem_set_value(struct kbpf_htab *htab, struct htab_elem *e, const void *value,
			   bool all_cpus, bool new_elem, uint64_t flags)
{
	uint32_t vs = htab->map.value_size, vs8 = htab->value_size8;
	char *dst;

	if (!htab->percpu) {
		/* a bpf_spin_lock (only here: Linux allows none in per-CPU values) is the
		 * holder's: an update writes around it, a new element starts unlocked */
		dst = htab_elem_value(htab, e, 0);
		if (!new_elem && (flags & BPF_F_LOCK))
			kbpf_map_value_copy_locked(&htab->map, dst, value, false);
		else
			kbpf_map_value_copy(&htab->map, dst, value);
		/* the replaced value's kptrs go (Linux frees the old element's); a recycled
		 * element may hold one a program stored after its delete */
		if (kbpf_map_has_free_fields(&htab->map)) /* an in-place BPF_F_LOCK update keeps
							    * the timer (Linux: same element) */
			kbpf_map_value_free_fields(&htab->map, dst, new_elem || !(flags & BPF_F_LOCK));
		if (new_elem) {
			kbpf_map_value_init_fields(&htab->map, dst);
			kbpf_map_zero_value(dst + vs, vs8 - vs); /* no stale bytes of a previous key */
		}
		return;
	}
	if (all_cpus) {
		for (unsigned cpu = 0; cpu < htab->nr_cpus; cpu++)
			kbpf_map_copy_value(htab_elem_value(htab, e, cpu), (const char *)value + (size_t)vs8 * cpu,
					    vs8);
		return;
	}
	unsigned self = kbpf_cpu_id();

	if (new_elem) {
		for (unsigned cpu = 0; cpu < htab->nr_cpus; cpu++)
			if (cpu != self)
				kbpf_map_zero_value(htab_elem_value(htab, e, cpu), vs8);
		kbpf_map_zero_value(htab_elem_value(htab, e, self) + vs, vs8 - vs);
	}
	kbpf_map_copy_value(htab_elem_value(htab, e, self), value, vs);
}

/* --- lookup, update, delete ------------------------------------------------------- */

static void *htab_lookup_on(struct kbpf_map *map, const void *key, unsigned cpu, bool touch)
{
	struct kbpf_htab *htab = to_htab(map);
	uint32_t hash = htab_hash(key, map->key_size, htab->hashrnd);
	struct htab_elem *e = htab_find_nolock(htab, hash, key);

	if (!e)
		return NULL;
	if (touch)
		htab_lru_touch(e);
	return htab_elem_value(htab, e, cpu);
}

static void *htab_lookup_elem(struct kbpf_map *map, const void *key)
{
	return htab_lookup_on(map, key, 0, false);
}

static void *htab_lru_lookup_elem(struct kbpf_map *map, const void *key)
{
	return htab_lookup_on(map, key, 0, true);
}

static void *htab_percpu_lookup_elem(struct kbpf_map *map, const void *key)
{
	return htab_lookup_on(map, key, kbpf_cpu_id(), to_htab(map)->lru);
}

static void *htab_percpu_lookup_percpu_elem(struct kbpf_map *map, const void *key, uint32_t cpu)
{
	if (cpu >= to_htab(map)->nr_cpus)
		return NULL;
	return htab_lookup_on(map, key, cpu, to_htab(map)->lru);
}

/* Linux's check_flags: what an existing or missing element means for flags. */
static int check_flags(const struct htab_elem *old, uint64_t flags)
{
	if (old && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!old && flags == BPF_EXIST)
		return -ENOENT;
	return 0;
}

/* Update key; all_cpus: value carries every CPU's value (host side of per-CPU maps). */
static int htab_update(struct kbpf_htab *htab, const void *key, const void *value, uint64_t flags,
		       bool all_cpus)
{
	uint32_t key_size = htab->map.key_size;
	uint32_t hash = htab_hash(key, key_size, htab->hashrnd);
	struct htab_bucket *b = htab_bucket_of(htab, hash);
	struct htab_elem *old, *e;
	int err;

	if ((flags & ~(uint64_t)BPF_F_LOCK) > BPF_EXIST)
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && htab->map.spin_lock_off < 0)
		return -EINVAL;

	kbpf_spin_lock(&b->lock);
	old = bucket_find(b, hash, key, key_size);
	err = check_flags(old, flags & ~(uint64_t)BPF_F_LOCK);
	if (err || old) {
		if (old && !err) { /* a refused BPF_NOEXIST leaves the value alone */
			elem_set_value(htab, old, value, all_cpus, false, flags);
			if (htab->lru)
				htab_lru_touch(old);
		}
		kbpf_spin_unlock(&b->lock);
		return err;
	}
	if (!htab->lru) {
		e = htab_pool_get(&htab->pool);
		if (!e) {
			kbpf_spin_unlock(&b->lock);
			return -E2BIG; /* all elements in use */
		}
		goto insert;
	}

	/* LRU: eviction takes the LRU lock and other buckets' locks, which must not be
	 * taken under a bucket lock; get the element unlocked, then look again. */
	kbpf_spin_unlock(&b->lock);
	e = htab_lru_get(htab);
	if (!e)
		return -ENOMEM;
	elem_set_value(htab, e, value, all_cpus, true, flags);
	elem_set_key(htab, e, key, hash);
	__atomic_store_n(&e->lru_ref, 0, __ATOMIC_RELAXED);
	htab_lru_add(htab, e);
	kbpf_spin_lock(&b->lock);
	old = bucket_find(b, hash, key, key_size);
	err = check_flags(old, flags & ~(uint64_t)BPF_F_LOCK);
	if (err || old) {
		if (old && !err) { /* inserted by another thread meanwhile */
			elem_set_value(htab, old, value, all_cpus, false, flags);
			htab_lru_touch(old);
		}
		kbpf_spin_unlock(&b->lock);
		htab_lru_put(htab, e);
		return err;
	}
	bucket_link(htab, b, e);
	kbpf_spin_unlock(&b->lock);
	return 0;

insert:
	/* value first: a reader standing on this recycled element may match the new key
	 * as soon as it is stored, and must then see the new value (release/acquire) */
	elem_set_value(htab, e, value, all_cpus, true, flags);
	elem_set_key(htab, e, key, hash);
	bucket_link(htab, b, e);
	kbpf_spin_unlock(&b->lock);
	return 0;
}

static long htab_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return htab_update(to_htab(map), key, value, flags, false);
}

static int htab_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return htab_update(to_htab(map), key, value, flags, true);
}

static long htab_delete_elem(struct kbpf_map *map, const void *key)
{
	struct kbpf_htab *htab = to_htab(map);
	uint32_t hash = htab_hash(key, map->key_size, htab->hashrnd);
	struct htab_bucket *b = htab_bucket_of(htab, hash);
	struct htab_elem *e;

	kbpf_spin_lock(&b->lock);
	e = bucket_find(b, hash, key, map->key_size);
	if (e)
		htab_bucket_unlink(b, e);
	kbpf_spin_unlock(&b->lock);
	if (!e)
		return -ENOENT;
	if (kbpf_map_has_free_fields(map))
		kbpf_map_value_free_fields(map, htab_elem_value(htab, e, 0), true);
	if (htab->lru)
		htab_lru_put(htab, e);
	else
		htab_pool_put(&htab->pool, e);
	return 0;
}

static int htab_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)htab_delete_elem(map, key);
}

/* Copy out under the bucket lock: never a torn value against a host-side update.
 * Per-CPU: every CPU's value, rounded up to 8 bytes.  Host lookups do not count as
 * uses for LRU (as Linux: a map walk must not disturb eviction). */
static int htab_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	struct kbpf_htab *htab = to_htab(map);
	uint32_t hash = htab_hash(key, map->key_size, htab->hashrnd);
	struct htab_bucket *b = htab_bucket_of(htab, hash);
	struct htab_elem *e;

	kbpf_spin_lock(&b->lock);
	e = bucket_find(b, hash, key, map->key_size);
	if (e) {
		if (htab->percpu) {
			for (unsigned cpu = 0; cpu < htab->nr_cpus; cpu++)
				kbpf_map_copy_value((char *)value + (size_t)htab->value_size8 * cpu,
						    htab_elem_value(htab, e, cpu), htab->value_size8);
		} else {
			kbpf_map_value_copy(map, value, htab_elem_value(htab, e, 0));
		}
	}
	kbpf_spin_unlock(&b->lock);
	return e ? 0 : -ENOENT;
}

/* Linux's htab_map_get_next_key: bucket by bucket, chain order within a bucket; a
 * key that is not in the map restarts from the first key. */
static int htab_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	struct kbpf_htab *htab = to_htab(map);
	uint32_t key_size = map->key_size;
	uint32_t i = 0;

	if (key) {
		uint32_t hash = htab_hash(key, key_size, htab->hashrnd);
		struct htab_bucket *b = htab_bucket_of(htab, hash);
		struct htab_elem *e;

		kbpf_spin_lock(&b->lock);
		e = bucket_find(b, hash, key, key_size);
		if (e && !htab_is_nulls(htab_next(&e->next))) {
			memcpy(next_key, htab_next(&e->next)->key, key_size);
			kbpf_spin_unlock(&b->lock);
			return 0;
		}
		kbpf_spin_unlock(&b->lock);
		if (e)
			i = htab_bucket_index(htab, hash) + 1;
	}
	for (; i < htab->n_buckets; i++) {
		struct htab_bucket *b = &htab->buckets[i];
		int found = 0;

		if (htab_is_nulls(htab_first(b)))
			continue; /* most buckets of a sparse map are empty: skip their locks */
		kbpf_spin_lock(&b->lock);
		if (!htab_is_nulls(htab_first(b))) {
			memcpy(next_key, htab_first(b)->key, key_size);
			found = 1;
		}
		kbpf_spin_unlock(&b->lock);
		if (found)
			return 0;
	}
	return -ENOENT;
}

static void htab_free(struct kbpf_map *map)
{
	struct kbpf_htab *htab = to_htab(map);
	unsigned used = atomic_load_explicit(&htab->pool.used, memory_order_relaxed);

	/* Linux's htab_free_prealloced_kptrs: every element ever handed out, in the map or
	 * on a free list (a program may have stored into a deleted one) */
	for (unsigned i = 0; map->nr_kptrs && i < used; i++) {
		struct htab_elem *e = (struct htab_elem *)(htab->pool.elems + htab->pool.elem_size * i);
		kbpf_map_value_free_kptrs(map, htab_elem_value(htab, e, 0));
	}

	htab_pool_destroy(&htab->pool);
	free(htab->pcpu_mem);
	free(htab->buckets);
	free(htab);
}

/* Values live in the elements (the pool), or per CPU apart from them. */
static size_t htab_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	const struct kbpf_htab *htab = KBPF_CONTAINER_OF(map, const struct kbpf_htab, map);

	if (htab->percpu)
		return kbpf_map_one_region(map, htab->pcpu_values,
					   htab->cpu_stride * (htab->nr_cpus - 1) +
						   (size_t)htab->value_size8 * htab->pool.nr_elems,
					   out, max);
	return kbpf_map_one_region(map, htab->pool.elems, htab->pool.elem_size * htab->pool.nr_elems, out, max);
}

static const struct kbpf_map_ops htab_ops = {
	.lookup_elem = htab_lookup_elem,
	.update_elem = htab_update_elem,
	.delete_elem = htab_delete_elem,
	.sys_lookup = htab_sys_lookup,
	.sys_update = htab_sys_update,
	.sys_delete = htab_sys_delete,
	.get_next_key = htab_get_next_key,
	.mem_regions = htab_mem_regions,
	.free = htab_free,
};

static const struct kbpf_map_ops htab_lru_ops = {
	.lookup_elem = htab_lru_lookup_elem,
	.update_elem = htab_update_elem,
	.delete_elem = htab_delete_elem,
	.sys_lookup = htab_sys_lookup,
	.sys_update = htab_sys_update,
	.sys_delete = htab_sys_delete,
	.get_next_key = htab_get_next_key,
	.mem_regions = htab_mem_regions,
	.free = htab_free,
};

static const struct kbpf_map_ops htab_percpu_ops = {
	.lookup_elem = htab_percpu_lookup_elem,
	.lookup_percpu_elem = htab_percpu_lookup_percpu_elem,
	.update_elem = htab_update_elem,
	.delete_elem = htab_delete_elem,
	.sys_lookup = htab_sys_lookup,
	.sys_update = htab_sys_update,
	.sys_delete = htab_sys_delete,
	.get_next_key = htab_get_next_key,
	.mem_regions = htab_mem_regions,
	.free = htab_free,
};

/* --- create ---------------------------------------------------------------------- */

/* Linux's htab_map_alloc_check.  Without capabilities there is no EPERM case. */
static int htab_alloc_check(const struct kbpf_map_attr *attr)
{
	bool percpu = attr->type == BPF_MAP_TYPE_PERCPU_HASH || attr->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool lru = attr->type == BPF_MAP_TYPE_LRU_HASH || attr->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool percpu_lru = attr->map_flags & BPF_F_NO_COMMON_LRU;
	bool prealloc = !(attr->map_flags & BPF_F_NO_PREALLOC);
	bool numa = attr->map_flags & BPF_F_NUMA_NODE;

	if ((attr->map_flags & ~HTAB_CREATE_FLAG_MASK) || !kbpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (!lru && percpu_lru)
		return -EINVAL;
	if (lru && !prealloc)
		return -EOPNOTSUPP; /* Linux: ENOTSUPP (524), which has no user-space name */
	if (numa && (percpu || percpu_lru))
		return -EINVAL;
	if (attr->max_entries == 0 || attr->key_size == 0 || attr->value_size == 0)
		return -EINVAL;
	if ((uint64_t)attr->key_size + attr->value_size >= KBPF_KMALLOC_MAX_SIZE - sizeof(struct htab_elem))
		return -E2BIG;
	if (percpu && KBPF_ROUND_UP((uint64_t)attr->value_size, 8) > KBPF_PCPU_MIN_UNIT_SIZE)
		return -E2BIG;
	return 0;
}

static uint32_t roundup_pow_of_two(uint32_t x)
{
	return x <= 1 ? 1 : 1u << (32 - __builtin_clz(x - 1));
}

int kbpf_htab_map_alloc(const struct kbpf_map_attr *attr_in, struct kbpf_map **out)
{
	struct kbpf_map_attr attr = *attr_in;
	struct kbpf_htab *htab;
	size_t elem_size, per_cpu_bytes, bytes;
	unsigned nr_cpus = kbpf_nr_cpus();
	int err;

	err = htab_alloc_check(&attr);
	if (err)
		return err;
	if (attr.map_flags & BPF_F_NO_COMMON_LRU) {
		/* Linux gives each CPU an equal share of the elements; kbpf keeps one list
		 * but reports the same max_entries */
		uint64_t up = KBPF_ROUND_UP((uint64_t)attr.max_entries, nr_cpus);

		attr.max_entries = up <= UINT32_MAX ? (uint32_t)up : attr.max_entries / nr_cpus * nr_cpus;
	}
	if (attr.max_entries > 1u << 31)
		return -E2BIG;
	/* Linux's u32 overflow check of the bucket array (16-byte buckets on x86-64):
	 * above 2^27 elements, -E2BIG rather than gigabytes allocated */
	if (roundup_pow_of_two(attr.max_entries) > UINT32_MAX / 16)
		return -E2BIG;

	htab = calloc(1, sizeof(*htab));
	if (!htab)
		return -ENOMEM;
	kbpf_map_init_from_attr(&htab->map, &attr);
	htab->percpu = attr.type == BPF_MAP_TYPE_PERCPU_HASH || attr.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	htab->lru = attr.type == BPF_MAP_TYPE_LRU_HASH || attr.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	htab->map.ops = htab->percpu ? &htab_percpu_ops : htab->lru ? &htab_lru_ops : &htab_ops;
	htab->nr_cpus = htab->percpu ? nr_cpus : 1;
	htab->key_size8 = KBPF_ROUND_UP(attr.key_size, 8);
	htab->value_size8 = KBPF_ROUND_UP(attr.value_size, 8);
	htab->hashrnd = (attr.map_flags & BPF_F_ZERO_SEED) ? 0 : random_seed();
	htab->n_buckets = roundup_pow_of_two(attr.max_entries);
	if (htab->percpu)
		htab->map.host_value_size = (size_t)htab->value_size8 * nr_cpus;
	htab_lru_init(&htab->lru_list);

	/* zeroed is ready: an unlocked lock and a NULL head (empty), so that the pages of
	 * a large map's buckets stay untouched until keys land in them */
	htab->buckets = calloc(htab->n_buckets, sizeof(*htab->buckets));
	if (!htab->buckets)
		goto nomem;

	elem_size = sizeof(struct htab_elem) + htab->key_size8 + (htab->percpu ? 0 : htab->value_size8);
	if (htab_pool_init(&htab->pool, attr.max_entries, elem_size, nr_cpus))
		goto nomem;

	if (htab->percpu) {
		if (__builtin_mul_overflow((size_t)attr.max_entries, (size_t)htab->value_size8, &per_cpu_bytes) ||
		    per_cpu_bytes > SIZE_MAX - KBPF_CACHELINE)
			goto nomem_pool;
		htab->cpu_stride = KBPF_ROUND_UP(per_cpu_bytes, KBPF_CACHELINE);
		if (__builtin_mul_overflow(htab->cpu_stride, (size_t)nr_cpus, &bytes) ||
		    bytes > SIZE_MAX - KBPF_CACHELINE)
			goto nomem_pool;
		htab->pcpu_mem = calloc(1, bytes + KBPF_CACHELINE);
		if (!htab->pcpu_mem)
			goto nomem_pool;
		htab->pcpu_values = (char *)KBPF_ROUND_UP((uintptr_t)htab->pcpu_mem, KBPF_CACHELINE);
	}
	*out = &htab->map;
	return 0;

nomem_pool:
	htab_pool_destroy(&htab->pool);
nomem:
	free(htab->buckets);
	free(htab);
	return -ENOMEM;
}
