/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_BLOOM_FILTER (Linux 6.1's kernel/bpf/bloom_filter.c): a bit set of
 * max_entries * nr_hash_funcs * 7 / 5 bits rounded up to a power of two (at least 64,
 * at most 2^32), nr_hash_funcs from map_extra (default 5). push sets each hash's bit,
 * peek tests them: -ENOENT means "surely absent", 0 "maybe present". Lock-free: bits
 * are set with atomic or and tested with relaxed loads, so pushes and peeks from any
 * number of threads never lose a bit (a bit once set stays set).
 *
 * The hash is kbpf's own (the bit positions are not part of Linux's interface): one
 * 64-bit pass over the value with the map's seed, split into two 32-bit halves h1, h2,
 * and bit i = h1 + i * h2 (Kirsch and Mitzenmacher's double hashing), where Linux runs
 * jhash once per function with seed + i. The false-positive rate is the same to first
 * order; one pass instead of nr_hash_funcs. */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include "maps/map_internal.h"

#define BLOOM_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_ZERO_SEED | KBPF_MAP_ACCESS_MASK)
#define BLOOM_DEFAULT_HASHES 5

struct bloom_filter {
	struct kbpf_map map;
	uint32_t bitset_mask; /* bits - 1 */
	uint32_t nr_hash_funcs;
	uint64_t seed;
	uint64_t *bitset;
};

static struct bloom_filter *bloom_of(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct bloom_filter, map);
}

/* 64-bit hash of value: 8 bytes at a time through a multiply-xorshift mix. The value
 * may be a program's map value other threads change atomically: read it with relaxed
 * atomics (kbpf_map_copy_chunk), as the map copies do. */
static uint64_t bloom_hash(const struct bloom_filter *b, const void *value, uint32_t size)
{
	const char *p = value;
	uint64_t h = b->seed ^ (size * 0x9e3779b97f4a7c15ull);

	for (uint32_t i = 0; i < size; i += 8) {
		uint64_t w = 0;
		uint32_t len = size - i < 8 ? size - i : 8;
		kbpf_map_copy_chunk((char *)&w, p + i, len);
		h ^= w;
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h;
}

static long bloom_peek(struct kbpf_map *map, void *value)
{
	struct bloom_filter *b = bloom_of(map);
	uint64_t h = bloom_hash(b, value, map->value_size);
	uint32_t h1 = (uint32_t)h, h2 = (uint32_t)(h >> 32) | 1;

	for (uint32_t i = 0; i < b->nr_hash_funcs; i++) {
		uint32_t bit = (h1 + i * h2) & b->bitset_mask;
		if (!(__atomic_load_n(&b->bitset[bit / 64], __ATOMIC_RELAXED) & (1ull << (bit % 64))))
			return -ENOENT;
	}
	return 0;
}

static long bloom_push(struct kbpf_map *map, const void *value, uint64_t flags)
{
	struct bloom_filter *b = bloom_of(map);

	if (flags != BPF_ANY)
		return -EINVAL;
	uint64_t h = bloom_hash(b, value, map->value_size);
	uint32_t h1 = (uint32_t)h, h2 = (uint32_t)(h >> 32) | 1;
	for (uint32_t i = 0; i < b->nr_hash_funcs; i++) {
		uint32_t bit = (h1 + i * h2) & b->bitset_mask;
		uint64_t *word = &b->bitset[bit / 64];
		uint64_t mask = 1ull << (bit % 64);
		/* skip the locked instruction when the bit is set already (the usual case
		 * once the filter fills) */
		if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & mask))
			__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Linux: programs should push and peek; the keyed calls say -EINVAL (lookup: NULL). */
static long bloom_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return -EINVAL;
}

static void bloom_free(struct kbpf_map *map)
{
	struct bloom_filter *b = bloom_of(map);

	free(b->bitset);
	free(b);
}

static const struct kbpf_map_ops bloom_ops = {
	.update_elem = bloom_update_elem,
	.push_elem = bloom_push,
	.peek_elem = bloom_peek,
	.free = bloom_free,
};

int kbpf_bloom_filter_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct bloom_filter *b;
	uint32_t nr_hash_funcs, nr_bits, bitset_mask;

	/* Linux's bloom_map_alloc_check, then bloom_map_alloc's checks */
	if (attr->value_size > KBPF_KMALLOC_MAX_SIZE)
		return -E2BIG;
	if (attr->key_size || !attr->value_size || !attr->max_entries ||
	    (attr->map_flags & ~(uint32_t)BLOOM_CREATE_FLAG_MASK) || !kbpf_map_flags_access_ok(attr->map_flags) ||
	    (attr->map_extra & ~0xFull))
		return -EINVAL;
	nr_hash_funcs = attr->map_extra ? (uint32_t)attr->map_extra : BLOOM_DEFAULT_HASHES;
	/* Linux's sizing: n * k / ln 2 bits, 7 / 5 standing for 1 / ln 2, a power of two */
	if (__builtin_mul_overflow(attr->max_entries, nr_hash_funcs, &nr_bits) ||
	    __builtin_mul_overflow(nr_bits / 5, 7u, &nr_bits) || nr_bits > (1u << 31)) {
		bitset_mask = UINT32_MAX;
	} else {
		if (nr_bits <= 64)
			nr_bits = 64;
		else
			nr_bits = 1u << (32 - __builtin_clz(nr_bits - 1));
		bitset_mask = nr_bits - 1;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	/* calloc: zero pages committed as bits get set */
	b->bitset = calloc(((uint64_t)bitset_mask + 1) / 64, sizeof(uint64_t));
	if (!b->bitset) {
		free(b);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&b->map, attr);
	b->map.ops = &bloom_ops;
	b->nr_hash_funcs = nr_hash_funcs;
	b->bitset_mask = bitset_mask;
	if (!(attr->map_flags & BPF_F_ZERO_SEED) &&
	    getrandom(&b->seed, sizeof(b->seed), GRND_NONBLOCK) != (ssize_t)sizeof(b->seed))
		b->seed = (uint64_t)(uintptr_t)b * 0x9e3779b97f4a7c15ull;
	*out = &b->map;
	return 0;
}
