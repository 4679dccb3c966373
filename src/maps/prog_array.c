/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_PROG_ARRAY: the jump table of bpf_tail_call.
 *
 * In Linux the syscall side stores program fds (value_size 4) and the map holds
 * program references.  kbpf has no fds: the host side stores `struct kbpf_prog *`
 * pointers (the value buffer of kbpf_map_update/lookup is a pointer), while the map
 * keeps Linux's value_size == 4 so that the definitions in .bpf.o files load
 * unchanged.  Programs are not reference counted: the host keeps a program alive while
 * it sits in a slot and while a tail call may still reach it. The map looks at a program
 * only for its type (struct kbpf_prog_array_view: one type per map).
 * Slots are single atomic pointers, so a tail call racing with an update sees the
 * old or the new program, never a torn pointer. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "maps/prog_array.h"
#include "maps/ptr_array.h"

/* owners are set and compared at program creation and host updates only */
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;

int kbpf_prog_array_owner_check(struct kbpf_map *map, const void *type, uint32_t attach)
{
	int ret = 0;

	if (!map || map->type != BPF_MAP_TYPE_PROG_ARRAY || !type)
		return 0;
	pthread_mutex_lock(&owner_lock);
	if (!map->tail_owner) {
		map->tail_owner = type;
		map->tail_owner_attach = attach;
	} else if (map->tail_owner != type || map->tail_owner_attach != attach) {
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

void *kbpf_prog_array_get(const struct kbpf_map *map, uint32_t index)
{
	if (!map || map->type != BPF_MAP_TYPE_PROG_ARRAY)
		return NULL;
	return kbpf_ptr_array_get(map, index);
}

/* Linux's bpf_fd_array_map_update_elem: BPF_ANY only; a NULL program is refused
 * as Linux refuses an fd that is not a program. */
static int prog_array_sys_update(struct kbpf_map *map, const void *key, const void *value,
				 uint64_t flags)
{
	uint32_t index = kbpf_map_key_index(key);
	const struct kbpf_prog_array_view *prog;

	if (flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	memcpy(&prog, value, sizeof(prog));
	if (!prog)
		return -EINVAL;
	if (kbpf_prog_array_owner_check(map, prog->type, prog->attach_btf_id))
		return -EINVAL; /* Linux: a program of another type than the map's */
	atomic_store_explicit(&kbpf_to_ptr_array(map)->slots[index], (void *)prog, memory_order_release);
	return 0;
}

/* Linux's fd_array_map_delete_elem. */
static int prog_array_sys_delete(struct kbpf_map *map, const void *key)
{
	uint32_t index = kbpf_map_key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	if (!atomic_exchange_explicit(&kbpf_to_ptr_array(map)->slots[index], NULL, memory_order_acq_rel))
		return -ENOENT;
	return 0;
}

/* Programs reach a PROG_ARRAY only through bpf_tail_call (Linux's verifier refuses
 * the other map helpers on it), so the program-side entries stay NULL. Host-side
 * lookups give the program pointer (Linux: its id). */
static const struct kbpf_map_ops prog_array_ops = {
	.sys_lookup = kbpf_ptr_array_sys_lookup,
	.sys_update = prog_array_sys_update,
	.sys_delete = prog_array_sys_delete,
	.get_next_key = kbpf_array_get_next_key,
	.free = kbpf_ptr_array_free,
};

/* Linux's fd_array_map_alloc_check, then the array rules. */
int kbpf_prog_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	int err = kbpf_fd_array_map_alloc_check(attr);

	return err ? err : kbpf_ptr_array_alloc(attr, &prog_array_ops, out);
}
