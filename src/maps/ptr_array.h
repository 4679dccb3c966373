/* SPDX-License-Identifier: Apache-2.0 */
/* Arrays of object pointers (ptr_array.c), shared by PROG_ARRAY and the socket arrays
 * (SOCKMAP, XSKMAP, REUSEPORT_SOCKARRAY). */
#ifndef KBPF_MAPS_PTR_ARRAY_H
#define KBPF_MAPS_PTR_ARRAY_H

#include <stdatomic.h>
#include "maps/map_internal.h"

struct kbpf_ptr_array {
	struct kbpf_map map;
	_Atomic(void *) *slots;
};

static inline struct kbpf_ptr_array *kbpf_to_ptr_array(const struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_ptr_array, map);
}

/* max_entries empty slots, ops, and host_value_size sizeof(void *). 0 or -ENOMEM. */
int kbpf_ptr_array_alloc(const struct kbpf_map_attr *attr, const struct kbpf_map_ops *ops, struct kbpf_map **out);
/* The object at index, NULL if empty or out of range (inline: bpf_tail_call's lookup). */
static inline void *kbpf_ptr_array_get(const struct kbpf_map *map, uint32_t index)
{
	if (index >= map->max_entries)
		return NULL;
	/* acquire: the object's contents, written before it was stored, are visible */
	return atomic_load_explicit(&kbpf_to_ptr_array(map)->slots[index], memory_order_acquire);
}
/* Host-side lookup: the pointer copied to value, -ENOENT empty or out of range. */
int kbpf_ptr_array_sys_lookup(struct kbpf_map *map, const void *key, void *value);
void kbpf_ptr_array_free(struct kbpf_map *map);

#endif
