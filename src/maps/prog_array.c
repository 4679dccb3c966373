/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_PROG_ARRAY: the jump table of bpf_tail_call.
 *
 * In Linux the syscall side stores program fds (value_size 4) and the map holds
 * program references.  kbpf has no fds: the host side stores `struct kbpf_prog *`
 * pointers (the value buffer of kbpf_map_update/lookup is a pointer), while the map
 * keeps Linux's value_size == 4 so that the definitions in .bpf.o files load
 * unchanged.  Programs are opaque here and not reference counted: the host keeps a
 * program alive while it sits in a slot and while a tail call may still reach it.
 * Slots are single atomic pointers, so a tail call racing with an update sees the
 * old or the new program, never a torn pointer. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"

struct kbpf_prog_array {
	struct kbpf_map map;
	_Atomic(void *) *slots;
};

static inline struct kbpf_prog_array *to_prog_array(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_prog_array, map);
}

void *kbpf_prog_array_get(const struct kbpf_map *map, uint32_t index)
{
	const struct kbpf_prog_array *array;

	if (!map || map->type != BPF_MAP_TYPE_PROG_ARRAY || index >= map->max_entries)
		return NULL;
	array = KBPF_CONTAINER_OF(map, const struct kbpf_prog_array, map);
	/* acquire: the program's contents, written before it was stored, are visible */
	return atomic_load_explicit(&array->slots[index], memory_order_acquire);
}

/* Linux's bpf_fd_array_map_lookup_elem, giving the program pointer instead of its id. */
static int prog_array_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	uint32_t index = kbpf_map_key_index(key);
	void *prog;

	if (index >= map->max_entries)
		return -ENOENT;
	prog = atomic_load_explicit(&to_prog_array(map)->slots[index], memory_order_acquire);
	if (!prog)
		return -ENOENT;
	memcpy(value, &prog, sizeof(prog));
	return 0;
}

/* Linux's bpf_fd_array_map_update_elem: BPF_ANY only; a NULL program is refused
 * as Linux refuses an fd that is not a program. */
static int prog_array_sys_update(struct kbpf_map *map, const void *key, const void *value,
				 uint64_t flags)
{
	uint32_t index = kbpf_map_key_index(key);
	void *prog;

	if (flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	memcpy(&prog, value, sizeof(prog));
	if (!prog)
		return -EINVAL;
	atomic_store_explicit(&to_prog_array(map)->slots[index], prog, memory_order_release);
	return 0;
}

/* Linux's fd_array_map_delete_elem. */
static int prog_array_sys_delete(struct kbpf_map *map, const void *key)
{
	uint32_t index = kbpf_map_key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	if (!atomic_exchange_explicit(&to_prog_array(map)->slots[index], NULL, memory_order_acq_rel))
		return -ENOENT;
	return 0;
}

static void prog_array_free(struct kbpf_map *map)
{
	struct kbpf_prog_array *array = to_prog_array(map);

	free(array->slots);
	free(array);
}

/* Programs reach a PROG_ARRAY only through bpf_tail_call (Linux's verifier refuses
 * the other map helpers on it), so the program-side entries stay NULL. */
static const struct kbpf_map_ops prog_array_ops = {
	.sys_lookup = prog_array_sys_lookup,
	.sys_update = prog_array_sys_update,
	.sys_delete = prog_array_sys_delete,
	.get_next_key = kbpf_array_get_next_key,
	.free = prog_array_free,
};

/* Linux's fd_array_map_alloc_check, then the array rules. */
int kbpf_prog_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct kbpf_prog_array *array;
	int err;

	err = kbpf_fd_array_map_alloc_check(attr);
	if (err)
		return err;

	array = calloc(1, sizeof(*array));
	if (!array)
		return -ENOMEM;
	array->slots = calloc(attr->max_entries, sizeof(*array->slots));
	if (!array->slots) {
		free(array);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&array->map, attr);
	array->map.ops = &prog_array_ops;
	array->map.host_value_size = sizeof(void *);
	*out = &array->map;
	return 0;
}
