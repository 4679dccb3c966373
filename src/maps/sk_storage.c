/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_SK_STORAGE: Linux's socket local storage, as a generic owner-keyed map.
 *
 * Linux hangs each socket's values off the socket itself (sk->sk_bpf_storage); kbpf has
 * no socket of its own, so the map keeps them, keyed by the owner's address (the pointer
 * the helpers bpf_sk_storage_get/delete are given). The host that owns the sockets (the
 * TCP host) drops an owner's value when the owner goes away (kbpf_local_storage_delete),
 * so a new owner at the same address starts empty, as a new socket does in Linux.
 *
 * Values are allocated one by one and never move; a deleted element goes to a free list
 * and is reused, never freed before the map: a pointer a program still holds after a
 * delete stays valid memory (Linux gets the same from RCU). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

/* Linux 6.1's BPF_LOCAL_STORAGE_MAX_VALUE_SIZE: U16_MAX less sizeof(struct
 * bpf_local_storage_elem), 128 on x86-64 (its sdata is cache-line aligned, which pads
 * the 72 bytes of fields to 128; cgroup_storage.c has the same limit). */
#define SK_STORAGE_MAX_VALUE_SIZE (65535u - 128u)
#define SK_STORAGE_CREATE_FLAGS (BPF_F_NO_PREALLOC | BPF_F_CLONE)

struct ls_elem {
	struct ls_elem *next; /* bucket chain, or the free list */
	const void *owner;
	uint64_t data[]; /* value_size bytes, 8-byte aligned as map values are */
};

struct ls_map {
	struct kbpf_map map;
	struct kbpf_spinlock lock;
	struct ls_elem **buckets;
	uint32_t nr_buckets; /* power of two */
	uint32_t count;
	struct ls_elem *free_list;
};

static uint32_t owner_hash(const struct ls_map *m, const void *owner)
{
	uint64_t x = (uint64_t)(uintptr_t)owner;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x & (m->nr_buckets - 1);
}

static struct ls_elem *find_locked(struct ls_map *m, const void *owner)
{
	for (struct ls_elem *e = m->buckets[owner_hash(m, owner)]; e; e = e->next)
		if (e->owner == owner)
			return e;
	return NULL;
}

/* Double the table when it is as full as it has buckets: chains stay short. */
static void grow_locked(struct ls_map *m)
{
	uint32_t n = m->nr_buckets * 2;
	struct ls_elem **b;

	if (m->count < m->nr_buckets || n > (1u << 24))
		return;
	b = calloc(n, sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	struct ls_elem **old = m->buckets;
	uint32_t old_n = m->nr_buckets;
	m->buckets = b;
	m->nr_buckets = n;
	for (uint32_t i = 0; i < old_n; i++) {
		for (struct ls_elem *e = old[i], *next; e; e = next) {
			next = e->next;
			uint32_t h = owner_hash(m, e->owner);
			e->next = b[h];
			b[h] = e;
		}
	}
	free(old);
}

static struct ls_elem *new_elem_locked(struct ls_map *m, const void *owner, const void *value)
{
	struct ls_elem *e = m->free_list;

	if (e)
		m->free_list = e->next;
	else if (!(e = malloc(sizeof(*e) + KBPF_ROUND_UP((size_t)m->map.value_size, 8))))
		return NULL;
	e->owner = owner;
	if (value) {
		kbpf_map_value_copy(&m->map, e->data, value);
		kbpf_map_value_init_fields(&m->map, e->data); /* a new value's lock is free */
	} else {
		kbpf_map_zero_value(e->data, m->map.value_size);
	}
	uint32_t h = owner_hash(m, owner);
	e->next = m->buckets[h];
	m->buckets[h] = e;
	m->count++;
	grow_locked(m);
	return e;
}

static int delete_locked(struct ls_map *m, const void *owner)
{
	for (struct ls_elem **p = &m->buckets[owner_hash(m, owner)]; *p; p = &(*p)->next) {
		struct ls_elem *e = *p;
		if (e->owner != owner)
			continue;
		*p = e->next;
		e->next = m->free_list;
		m->free_list = e;
		m->count--;
		return 0;
	}
	return -ENOENT;
}

static void ls_free(struct kbpf_map *map)
{
	struct ls_map *m = KBPF_CONTAINER_OF(map, struct ls_map, map);

	for (uint32_t i = 0; i < m->nr_buckets; i++)
		for (struct ls_elem *e = m->buckets[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	for (struct ls_elem *e = m->free_list, *next; e; e = next) {
		next = e->next;
		free(e);
	}
	free(m->buckets);
	free(m);
}

/* Programs reach values only through bpf_sk_storage_get; the host side (Linux: keyed by
 * a socket fd) goes through kbpf_local_storage_update/lookup/delete with the owner. */
static const struct kbpf_map_ops ls_ops = {
	.free = ls_free,
};

int kbpf_sk_storage_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct ls_map *m;

	/* bpf_local_storage_map_alloc_check (the BTF key/value ids it also demands are the
	 * loader's business) */
	if ((attr->map_flags & ~SK_STORAGE_CREATE_FLAGS) ||
	    !(attr->map_flags & BPF_F_NO_PREALLOC) || attr->max_entries || attr->key_size != sizeof(int) ||
	    !attr->value_size)
		return -EINVAL;
	if (attr->value_size > SK_STORAGE_MAX_VALUE_SIZE)
		return -E2BIG;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->nr_buckets = 16;
	m->buckets = calloc(m->nr_buckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&m->map, attr);
	m->map.ops = &ls_ops;
	kbpf_spin_init(&m->lock);
	*out = &m->map;
	return 0;
}

static struct ls_map *ls_map(struct kbpf_map *map)
{
	return map && map->type == BPF_MAP_TYPE_SK_STORAGE ? KBPF_CONTAINER_OF(map, struct ls_map, map) : NULL;
}

void *kbpf_local_storage_get(struct kbpf_map *map, const void *owner, const void *value, uint64_t flags)
{
	struct ls_map *m = ls_map(map);
	struct ls_elem *e;

	if (!m || !owner || flags > BPF_SK_STORAGE_GET_F_CREATE)
		return NULL;
	kbpf_spin_lock(&m->lock);
	e = find_locked(m, owner);
	if (!e && flags == BPF_SK_STORAGE_GET_F_CREATE)
		e = new_elem_locked(m, owner, value);
	kbpf_spin_unlock(&m->lock);
	return e ? e->data : NULL;
}

long kbpf_local_storage_delete(struct kbpf_map *map, const void *owner)
{
	struct ls_map *m = ls_map(map);
	long ret;

	if (!m || !owner)
		return -EINVAL;
	kbpf_spin_lock(&m->lock);
	ret = delete_locked(m, owner);
	kbpf_spin_unlock(&m->lock);
	return ret;
}

int kbpf_local_storage_update(struct kbpf_map *map, const void *owner, const void *value, uint64_t flags)
{
	struct ls_map *m = ls_map(map);
	struct ls_elem *e;
	int ret = 0;

	uint64_t lock = flags & BPF_F_LOCK;

	flags &= ~(uint64_t)BPF_F_LOCK;
	if (!m || !owner || !value || (flags & ~(uint64_t)BPF_EXIST & ~(uint64_t)BPF_NOEXIST) ||
	    (flags & BPF_EXIST && flags & BPF_NOEXIST) || (lock && map->spin_lock_off < 0))
		return -EINVAL;
	if (kbpf_map_is_frozen(map)) /* frozen: read-only for the host side */
		return -EPERM;
	kbpf_spin_lock(&m->lock);
	e = find_locked(m, owner);
	if (e && flags == BPF_NOEXIST)
		ret = -EEXIST;
	else if (!e && flags == BPF_EXIST)
		ret = -ENOENT;
	else if (e && lock)
		kbpf_map_value_copy_locked(map, e->data, value, false);
	else if (e)
		kbpf_map_value_copy(map, e->data, value);
	else if (!new_elem_locked(m, owner, value))
		ret = -ENOMEM;
	kbpf_spin_unlock(&m->lock);
	return ret;
}

int kbpf_local_storage_lookup(struct kbpf_map *map, const void *owner, void *value)
{
	struct ls_map *m = ls_map(map);
	struct ls_elem *e;

	if (!m || !owner || !value)
		return -EINVAL;
	kbpf_spin_lock(&m->lock);
	e = find_locked(m, owner);
	if (e) {
		kbpf_map_value_copy(map, value, e->data);
		kbpf_map_value_init_fields(map, value);
	}
	kbpf_spin_unlock(&m->lock);
	return e ? 0 : -ENOENT;
}
