/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_ARRAY_OF_MAPS and BPF_MAP_TYPE_HASH_OF_MAPS: maps whose values are maps
 * (Linux's kernel/bpf/map_in_map.c, arraymap.c array_of_map_*, hashtab.c htab_of_map_*).
 *
 * A slot holds a `struct kbpf_map *`, read by programs with one atomic acquire load, so a
 * program racing with an update sees the old or the new inner map, never a torn
 * pointer.  The array keeps its slots itself; the hash keeps them as 8-byte values of an
 * ordinary hash map (htab.c, whose lock-free lookups this reuses).
 *
 * Lifetime.  Linux frees a replaced inner map after an RCU grace period, when no
 * program can still be using it.  kbpf has no such period: a program on another thread
 * may have read the old slot and still be calling helpers on that map.  So an outer map
 * keeps a reference to every inner map it has ever held (a set: storing the same map
 * again costs nothing) and drops them all when it is freed.  Any pointer a program can
 * read from a slot, even from a hash element deleted and reused meanwhile, is then a
 * live map.  Updates and deletes are serialised by the outer map's mutex. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"

struct kbpf_map_of_maps {
	struct kbpf_map map;
	pthread_mutex_t lock;          /* updates, deletes, the held set */
	_Atomic(struct kbpf_map *) *slots; /* ARRAY_OF_MAPS */
	struct kbpf_map *htab;         /* HASH_OF_MAPS: key -> 8-byte map pointer */
	/* every inner map ever stored, one reference each: an open-addressing set */
	struct kbpf_map **held;
	size_t held_cap, nr_held;
};

static inline struct kbpf_map_of_maps *to_mom(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_map_of_maps, map);
}

static inline const struct kbpf_map_of_maps *to_mom_c(const struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, const struct kbpf_map_of_maps, map);
}

/* --- the held set -------------------------------------------------------------------- */

static size_t held_slot(struct kbpf_map *const *tab, size_t cap, const struct kbpf_map *m)
{
	size_t i = ((uintptr_t)m >> 4) * 0x9e3779b97f4a7c15ull & (cap - 1);

	while (tab[i] && tab[i] != m)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Make sure the set holds a reference to m; under the lock. */
static int held_add(struct kbpf_map_of_maps *mom, struct kbpf_map *m)
{
	if (mom->held_cap && mom->held[held_slot(mom->held, mom->held_cap, m)] == m)
		return 0;
	if ((mom->nr_held + 1) * 2 > mom->held_cap) {
		size_t cap = mom->held_cap ? mom->held_cap * 2 : 8;
		struct kbpf_map **tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return -ENOMEM;
		for (size_t i = 0; i < mom->held_cap; i++)
			if (mom->held[i])
				tab[held_slot(tab, cap, mom->held[i])] = mom->held[i];
		free(mom->held);
		mom->held = tab;
		mom->held_cap = cap;
	}
	mom->held[held_slot(mom->held, mom->held_cap, m)] = kbpf_map_ref(m);
	mom->nr_held++;
	return 0;
}

/* --- compatibility (Linux's bpf_map_meta_alloc / bpf_map_meta_equal) ------------------ */

static bool is_outer_type(uint32_t type)
{
	return type == BPF_MAP_TYPE_ARRAY_OF_MAPS || type == BPF_MAP_TYPE_HASH_OF_MAPS;
}

/* Can m be the template of an outer map?  Linux: not an outer map (-EINVAL), a type
 * with map_meta_equal (-ENOTSUPP, kbpf's -EOPNOTSUPP), no bpf_spin_lock.  kbpf also
 * refuses a bpf_timer: Linux tells apart the timers of two inner maps of one template
 * by the lookup that produced them (map_uid), which kbpf's verifier does not track, and
 * the types Linux also takes (PERF_EVENT_ARRAY, STACK_TRACE, the socket maps): their
 * use through an inner map is not built yet. */
static int template_ok(const struct kbpf_map *m)
{
	if (m->inner_meta)
		return -EINVAL;
	switch (m->type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_SK_STORAGE:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (m->spin_lock_off >= 0 || m->timer_off >= 0 || m->nr_kptrs)
		return -EOPNOTSUPP;
	return 0;
}

/* A special field's offset, or -1 for "none" whatever the reason (no BTF: -EINVAL, BTF
 * without the field: -ENOENT; Linux tells them apart and so refuses a map created with
 * BTF for a template created without). */
static int32_t field_off(int32_t off)
{
	return off < 0 ? -1 : off;
}

/* Linux's map_meta_equal of the template's type: an inner map's verified uses (value
 * size, special fields, flags) must hold for every map a slot may hold.  The
 * spin-lock offset is compared too (Linux does not): a program verified without a lock
 * must not meet one. */
static bool meta_equal(const struct kbpf_map *meta, const struct kbpf_map *m)
{
	if (meta->type != m->type || meta->key_size != m->key_size || meta->value_size != m->value_size ||
	    field_off(meta->timer_off) != field_off(m->timer_off) ||
	    field_off(meta->spin_lock_off) != field_off(m->spin_lock_off) || meta->map_flags != m->map_flags)
		return false;
	/* Linux's bpf_map_equal_kptr_off_tab: a program verified against a template without
	 * kptrs (kbpf refuses templates with them) would write an inner map's kptr slots as
	 * plain bytes, and its destructor would get what they wrote */
	if (meta->nr_kptrs != m->nr_kptrs)
		return false;
	if (meta->type == BPF_MAP_TYPE_ARRAY && !(meta->map_flags & BPF_F_INNER_MAP))
		return meta->max_entries == m->max_entries;
	return true;
}

/* --- program side ----------------------------------------------------------------- */

static void *array_of_maps_lookup_elem(struct kbpf_map *map, const void *key)
{
	uint32_t index = kbpf_map_key_index(key);

	if (__builtin_expect(index >= map->max_entries, 0))
		return NULL;
	/* acquire: the inner map's contents, made before it was stored, are visible */
	return atomic_load_explicit(&to_mom(map)->slots[index], memory_order_acquire);
}

static void *hash_of_maps_lookup_elem(struct kbpf_map *map, const void *key)
{
	struct kbpf_map *htab = to_mom(map)->htab;
	struct kbpf_map **slot = htab->ops->lookup_elem(htab, key);

	return slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
}

/* --- host side -------------------------------------------------------------------- */

static int of_maps_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	struct kbpf_map *inner = map->ops->lookup_elem(map, key);

	if (!inner)
		return -ENOENT;
	memcpy(value, &inner, sizeof(inner));
	return 0;
}

/* Linux's bpf_fd_array_map_update_elem / bpf_fd_htab_map_update_elem with
 * bpf_map_fd_get_ptr's check. */
static int of_maps_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	struct kbpf_map_of_maps *mom = to_mom(map);
	struct kbpf_map *inner;
	int err;

	memcpy(&inner, value, sizeof(inner));
	if (map->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		if (flags != BPF_ANY)
			return -EINVAL;
		if (kbpf_map_key_index(key) >= map->max_entries)
			return -E2BIG;
	} else if (flags > BPF_EXIST) {
		return -EINVAL;
	}
	if (!inner || !meta_equal(map->inner_meta, inner))
		return -EINVAL;

	pthread_mutex_lock(&mom->lock);
	err = held_add(mom, inner);
	if (err)
		goto out;
	if (map->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		atomic_store_explicit(&mom->slots[kbpf_map_key_index(key)], inner, memory_order_release);
		goto out;
	}
	/* the mutex orders updates: an existing slot is swapped in place (a reader sees old
	 * or new), a new key inserted whole (htab.c links it after writing its value) */
	struct kbpf_map **slot = mom->htab->ops->lookup_elem(mom->htab, key);
	if (slot) {
		if (flags == BPF_NOEXIST)
			err = -EEXIST;
		else
			__atomic_store_n(slot, inner, __ATOMIC_RELEASE);
	} else if (flags == BPF_EXIST) {
		err = -ENOENT;
	} else {
		uint64_t v = (uint64_t)(uintptr_t)inner;

		err = (int)mom->htab->ops->update_elem(mom->htab, key, &v, BPF_NOEXIST);
	}
out:
	pthread_mutex_unlock(&mom->lock);
	return err;
}

/* Linux's fd_array_map_delete_elem / htab_map_delete_elem.  The map stays held. */
static int of_maps_sys_delete(struct kbpf_map *map, const void *key)
{
	struct kbpf_map_of_maps *mom = to_mom(map);
	int err;

	if (map->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		uint32_t index = kbpf_map_key_index(key);

		if (index >= map->max_entries)
			return -E2BIG;
		return atomic_exchange_explicit(&mom->slots[index], NULL, memory_order_acq_rel) ? 0 : -ENOENT;
	}
	pthread_mutex_lock(&mom->lock);
	err = (int)mom->htab->ops->delete_elem(mom->htab, key);
	pthread_mutex_unlock(&mom->lock);
	return err;
}

/* Arrays: 0 .. max_entries - 1, whether the slot is set or not (Linux's
 * array_map_get_next_key); hashes: the inner hash's order. */
static int of_maps_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	if (map->type == BPF_MAP_TYPE_HASH_OF_MAPS)
		return to_mom(map)->htab->ops->get_next_key(to_mom(map)->htab, key, next_key);
	return kbpf_array_get_next_key(map, key, next_key);
}

/* A program reaches no value memory of an outer map, only the inner maps: their
 * storage as it is now (checked mode asks again at each run). */
static size_t of_maps_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	struct kbpf_map_of_maps *mom = (struct kbpf_map_of_maps *)to_mom_c(map);
	size_t n = 0;

	pthread_mutex_lock(&mom->lock);
	for (size_t i = 0; i < mom->held_cap; i++)
		if (mom->held[i])
			n += kbpf_map_mem_regions(mom->held[i], out ? out + (n < max ? n : max) : NULL,
						  n < max ? max - n : 0);
	pthread_mutex_unlock(&mom->lock);
	return n;
}

static void of_maps_free(struct kbpf_map *map)
{
	struct kbpf_map_of_maps *mom = to_mom(map);

	for (size_t i = 0; i < mom->held_cap; i++)
		kbpf_map_free(mom->held[i]);
	free(mom->held);
	kbpf_map_free(mom->htab);
	kbpf_map_free(map->inner_meta);
	free(mom->slots);
	pthread_mutex_destroy(&mom->lock);
	free(mom);
}

/* Programs may only look up (Linux's check_map_func_compatibility): no program-side
 * update or delete. */
static const struct kbpf_map_ops array_of_maps_ops = {
	.lookup_elem = array_of_maps_lookup_elem,
	.sys_lookup = of_maps_sys_lookup,
	.sys_update = of_maps_sys_update,
	.sys_delete = of_maps_sys_delete,
	.get_next_key = of_maps_get_next_key,
	.mem_regions = of_maps_mem_regions,
	.free = of_maps_free,
};

static const struct kbpf_map_ops hash_of_maps_ops = {
	.lookup_elem = hash_of_maps_lookup_elem,
	.sys_lookup = of_maps_sys_lookup,
	.sys_update = of_maps_sys_update,
	.sys_delete = of_maps_sys_delete,
	.get_next_key = of_maps_get_next_key,
	.mem_regions = of_maps_mem_regions,
	.free = of_maps_free,
};

/* Linux's fd_array_map_alloc_check / fd_htab_map_alloc_check, then the template
 * (bpf_map_meta_alloc), then the storage. */
int kbpf_map_of_maps_alloc(const struct kbpf_map_attr *attr, struct kbpf_map *inner, struct kbpf_map **out)
{
	bool array = attr->type == BPF_MAP_TYPE_ARRAY_OF_MAPS;
	struct kbpf_map_of_maps *mom;
	struct kbpf_map_attr slots = *attr;
	int err;

	if (attr->value_size != sizeof(uint32_t))
		return -EINVAL;
	/* the array rules, as for type ARRAY_OF_MAPS (no BPF_F_INNER_MAP, no mmap) */
	if (array && (err = kbpf_fd_array_map_alloc_check(attr)))
		return err;
	if (!inner)
		return -EINVAL; /* Linux: an inner_map_fd that is no map */
	err = template_ok(inner);
	if (err)
		return err;

	mom = calloc(1, sizeof(*mom));
	if (!mom)
		return -ENOMEM;
	if (array) {
		mom->slots = calloc(attr->max_entries, sizeof(*mom->slots));
		if (!mom->slots) {
			free(mom);
			return -ENOMEM;
		}
	} else {
		/* the hash rules come with the hash itself; its values are map pointers */
		slots.type = BPF_MAP_TYPE_HASH;
		slots.value_size = sizeof(uint64_t);
		slots.map_flags &= ~(uint32_t)(BPF_F_RDONLY | BPF_F_WRONLY);
		err = kbpf_htab_map_alloc(&slots, &mom->htab);
		if (err) {
			free(mom);
			return err;
		}
	}
	pthread_mutex_init(&mom->lock, NULL);
	kbpf_map_init_from_attr(&mom->map, attr);
	mom->map.ops = array ? &array_of_maps_ops : &hash_of_maps_ops;
	mom->map.host_value_size = sizeof(struct kbpf_map *);
	mom->map.inner_meta = kbpf_map_ref(inner);
	/* from now on a program's pointer typed by inner may be into another map: the
	 * verifier reads no constants from it (kbpf_map_is_rdonly) */
	__atomic_store_n(&inner->is_template, 1, __ATOMIC_RELEASE);
	*out = &mom->map;
	return 0;
}

struct kbpf_map *kbpf_map_inner_meta(const struct kbpf_map *map)
{
	return map ? map->inner_meta : NULL;
}

int kbpf_map_update_inner(struct kbpf_map *outer, const void *key, struct kbpf_map *inner, uint64_t flags)
{
	if (!outer || !is_outer_type(outer->type))
		return -EINVAL;
	return kbpf_map_update(outer, key, &inner, flags);
}

int kbpf_map_lookup_inner(struct kbpf_map *outer, const void *key, struct kbpf_map **inner)
{
	if (!outer || !is_outer_type(outer->type) || !inner)
		return -EINVAL;
	return kbpf_map_lookup(outer, key, inner);
}
