/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_STACK_TRACE (Linux 6.1's kernel/bpf/stackmap.c): a table of n_buckets
 * (max_entries rounded up to a power of two) slots, each empty or holding one stack
 * trace; bpf_get_stackid hashes a trace to its slot, whose index is the stack id.
 * Buckets are preallocated (max_entries of them, as Linux's freelist): a program never
 * allocates. One spin lock per map guards the slots and the free list: Linux swaps
 * bucket pointers with xchg and compares a bucket another CPU may be recycling, which
 * in C would be a data race; a trace is at most 127 words, so the lock is held for one
 * hash compare and one copy. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define STACK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_STACK_BUILD_ID)
#define GET_STACKID_FLAGS (BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID)

struct stack_bucket {
	struct stack_bucket *next_free;
	uint32_t hash;
	uint32_t nr; /* entries in data (u64 ips or build-id records) */
	uint64_t data[];
};

struct stack_map {
	struct kbpf_map map;
	struct kbpf_spinlock lock;
	void *elems;                  /* max_entries buckets of elem_size bytes */
	size_t elem_size;
	struct stack_bucket *free_list;
	uint32_t n_buckets;
	struct stack_bucket *buckets[];
};

static struct stack_map *smap_of(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct stack_map, map);
}

static bool use_build_id(const struct kbpf_map *map)
{
	return map->map_flags & BPF_F_STACK_BUILD_ID;
}

/* Bytes of one trace entry. */
static uint32_t data_size(const struct kbpf_map *map)
{
	return use_build_id(map) ? sizeof(struct bpf_stack_build_id) : sizeof(uint64_t);
}

/* A 32-bit hash of the trace's words (the bucket choice is kbpf's own: Linux's jhash2
 * values are not part of its interface). */
static uint32_t trace_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64, folded */

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* --- bpf_get_stackid ------------------------------------------------------------- */

/* Linux's stack_map_get_build_id_offset when it cannot see the task's memory map: each
 * entry falls back to its ip (BPF_STACK_BUILD_ID_IP). kbpf always takes this path
 * (docs/maps.md). */
static void build_id_fallback(struct bpf_stack_build_id *out, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].status = BPF_STACK_BUILD_ID_IP;
		out[i].ip = ips[i];
	}
}

long kbpf_stack_map_get_id(struct kbpf_map *map, const uint64_t *ips, uint32_t nr, uint64_t flags)
{
	if (!map || map->type != BPF_MAP_TYPE_STACK_TRACE || (!ips && nr))
		return -EINVAL;
	if (flags & ~(uint64_t)GET_STACKID_FLAGS)
		return -EINVAL;
	struct stack_map *smap = smap_of(map);
	uint32_t skip = (uint32_t)(flags & BPF_F_SKIP_FIELD_MASK);
	if (nr <= skip)
		return -EFAULT; /* skipping more than the usable trace */
	uint32_t max_depth = map->value_size / data_size(map) + skip;
	if (max_depth > KBPF_STACK_MAX_DEPTH)
		max_depth = KBPF_STACK_MAX_DEPTH;
	if (max_depth <= skip)
		return -EFAULT; /* Linux would store an empty trace; nothing is left to keep */
	uint32_t trace_nr = nr - skip < max_depth - skip ? nr - skip : max_depth - skip;
	const uint64_t *trace = ips + skip;
	/* Linux hashes the ips, also for build-id maps */
	uint32_t hash = trace_hash(trace, (size_t)trace_nr * sizeof(uint64_t));
	uint32_t id = hash & (smap->n_buckets - 1);
	struct bpf_stack_build_id recs[KBPF_STACK_MAX_DEPTH];
	const void *data = trace;
	size_t len = (size_t)trace_nr * sizeof(uint64_t);

	if (use_build_id(map)) {
		build_id_fallback(recs, trace, trace_nr);
		data = recs;
		len = (size_t)trace_nr * sizeof(recs[0]);
	}
	kbpf_spin_lock(&smap->lock);
	struct stack_bucket *bucket = smap->buckets[id];
	bool hash_matches = bucket && bucket->hash == hash;
	long ret = id;
	if (hash_matches && (flags & BPF_F_FAST_STACK_CMP))
		goto out;
	if (hash_matches && bucket->nr == trace_nr && !memcmp(bucket->data, data, len))
		goto out;
	if (bucket && !(flags & BPF_F_REUSE_STACKID)) {
		ret = -EEXIST;
		goto out;
	}
	struct stack_bucket *nb = smap->free_list;
	if (!nb) {
		ret = -ENOMEM;
		goto out;
	}
	smap->free_list = nb->next_free;
	memcpy(nb->data, data, len);
	nb->hash = hash;
	nb->nr = trace_nr;
	smap->buckets[id] = nb;
	if (bucket) {
		bucket->next_free = smap->free_list;
		smap->free_list = bucket;
	}
out:
	kbpf_spin_unlock(&smap->lock);
	return ret;
}

/* --- host side ------------------------------------------------------------------- */

/* Linux's bpf_stackmap_copy: the trace, zero-padded to value_size. */
static int stack_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	struct stack_map *smap = smap_of(map);
	uint32_t id = kbpf_map_key_index(key);
	int ret = -ENOENT;

	if (id >= smap->n_buckets)
		return -ENOENT;
	kbpf_spin_lock(&smap->lock);
	struct stack_bucket *b = smap->buckets[id];
	if (b) {
		size_t len = (size_t)b->nr * data_size(map);
		memcpy(value, b->data, len);
		memset((char *)value + len, 0, map->value_size - len);
		ret = 0;
	}
	kbpf_spin_unlock(&smap->lock);
	return ret;
}

/* Linux's stack_map_get_next_key: the next filled slot after key; a missing key, or one
 * naming an empty or out-of-range slot, restarts at the first. */
static int stack_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	struct stack_map *smap = smap_of(map);
	uint32_t id = 0;

	kbpf_spin_lock(&smap->lock);
	if (key) {
		id = kbpf_map_key_index(key);
		id = id >= smap->n_buckets || !smap->buckets[id] ? 0 : id + 1;
	}
	while (id < smap->n_buckets && !smap->buckets[id])
		id++;
	kbpf_spin_unlock(&smap->lock);
	if (id >= smap->n_buckets)
		return -ENOENT;
	memcpy(next_key, &id, sizeof(id));
	return 0;
}

static int stack_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return -EINVAL; /* Linux: only bpf_get_stackid fills it */
}

/* Linux's stack_map_delete_elem: -E2BIG beyond the slots, -ENOENT for an empty one. */
static int stack_sys_delete(struct kbpf_map *map, const void *key)
{
	struct stack_map *smap = smap_of(map);
	uint32_t id = kbpf_map_key_index(key);
	int ret = -ENOENT;

	if (id >= smap->n_buckets)
		return -E2BIG;
	kbpf_spin_lock(&smap->lock);
	struct stack_bucket *b = smap->buckets[id];
	if (b) {
		smap->buckets[id] = NULL;
		b->next_free = smap->free_list;
		smap->free_list = b;
		ret = 0;
	}
	kbpf_spin_unlock(&smap->lock);
	return ret;
}

static void stack_free(struct kbpf_map *map)
{
	struct stack_map *smap = smap_of(map);

	free(smap->elems);
	free(smap);
}

static const struct kbpf_map_ops stack_trace_ops = {
	/* programs: only bpf_get_stackid (the verifier refuses every map helper) */
	.sys_lookup = stack_sys_lookup,
	.sys_update = stack_sys_update,
	.sys_delete = stack_sys_delete,
	.get_next_key = stack_get_next_key,
	.free = stack_free,
};

/* Linux's stack_map_alloc checks, in its order. */
int kbpf_stack_trace_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	uint32_t value_size = attr->value_size;

	if (attr->map_flags & ~(uint32_t)STACK_CREATE_FLAG_MASK)
		return -EINVAL;
	if (!attr->max_entries || attr->key_size != 4 || value_size < 8 || value_size % 8)
		return -EINVAL;
	if (attr->map_flags & BPF_F_STACK_BUILD_ID) {
		if (value_size % sizeof(struct bpf_stack_build_id) ||
		    value_size / sizeof(struct bpf_stack_build_id) > KBPF_STACK_MAX_DEPTH)
			return -EINVAL;
	} else if (value_size / 8 > KBPF_STACK_MAX_DEPTH) {
		return -EINVAL;
	}
	if (attr->max_entries > 1u << 31)
		return -E2BIG;
	uint32_t n_buckets = 1;
	while (n_buckets < attr->max_entries)
		n_buckets <<= 1;

	size_t elem_size = KBPF_ROUND_UP(sizeof(struct stack_bucket) + value_size, 8), total;
	if (__builtin_mul_overflow(elem_size, (size_t)attr->max_entries, &total))
		return -ENOMEM;
	struct stack_map *smap = calloc(1, sizeof(*smap) + (size_t)n_buckets * sizeof(smap->buckets[0]));
	if (!smap)
		return -ENOMEM;
	smap->elems = malloc(total);
	if (!smap->elems) {
		free(smap);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&smap->map, attr);
	smap->map.ops = &stack_trace_ops;
	kbpf_spin_init(&smap->lock);
	smap->elem_size = elem_size;
	smap->n_buckets = n_buckets;
	/* the free list in address order, so the first buckets used are the first ones */
	for (uint32_t i = attr->max_entries; i-- > 0;) {
		struct stack_bucket *b = (struct stack_bucket *)((char *)smap->elems + (size_t)i * elem_size);
		b->next_free = smap->free_list;
		smap->free_list = b;
	}
	*out = &smap->map;
	return 0;
}
