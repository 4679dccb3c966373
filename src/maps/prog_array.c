/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_PROG_ARRAY: the jump table of bpf_tail_call.
 *
 * In Linux the syscall side stores program fds (value_size 4) and the map holds
 * program references.  kbpf has no fds: the host side stores `struct kbpf_prog *`
 * pointers (the value buffer of kbpf_map_update/lookup is a pointer), while the map
 * keeps Linux's value_size == 4 so that the definitions in .bpf.o files load
 * unchanged.  Programs are not reference counted: the host keeps a program alive while
 * it sits in a slot and while a tail call may still reach it. The map looks at a program
 * only for its type (struct kbpf_prog_array_view: one type per map) and the context
 * bytes it needs.
 * Slots are single atomic pointers, so a tail call racing with an update sees the
 * old or the new program, never a torn pointer. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "maps/prog_array.h"
#include "maps/ptr_array.h"

/* owners and bounds are set and compared at program creation and host updates only */
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;

static bool needs_more(const struct kbpf_prog_array_view *t, const struct kbpf_prog_array_view *caller)
{
	return t->tail_ctx_need > caller->tail_ctx_need || t->tail_tp_need > caller->tail_tp_need;
}

/* The owner rule, owner_lock held. */
static int owner_check_locked(struct kbpf_map *map, const struct kbpf_prog_array_view *prog, bool caller)
{
	if (!map->tail_owner) {
		map->tail_owner = prog->type;
		map->tail_owner_attach = prog->attach_btf_id;
	} else if (map->tail_owner != prog->type || map->tail_owner_attach != prog->attach_btf_id) {
		return -EINVAL;
	}
	if (!caller) {
		for (uint32_t i = 0; i < map->nr_tail_callers; i++)
			if (needs_more(prog, map->tail_callers[i]))
				return -EINVAL;
		return 0;
	}
	/* a new caller: what the array holds already must fit it */
	const struct kbpf_ptr_array *a = kbpf_to_ptr_array(map);
	for (uint32_t i = 0; i < map->max_entries; i++) {
		const struct kbpf_prog_array_view *t = atomic_load_explicit(&a->slots[i], memory_order_acquire);
		if (t && t->type && needs_more(t, prog))
			return -EINVAL;
	}
	if (map->nr_tail_callers == map->cap_tail_callers) {
		uint32_t cap = map->cap_tail_callers ? 2 * map->cap_tail_callers : 4;
		void *p = realloc(map->tail_callers, cap * sizeof(*map->tail_callers));
		if (!p)
			return -ENOMEM;
		map->tail_callers = p;
		map->cap_tail_callers = cap;
	}
	map->tail_callers[map->nr_tail_callers++] = prog;
	return 0;
}

void kbpf_prog_array_caller_drop(struct kbpf_map *map, const struct kbpf_prog_array_view *prog)
{
	if (!map || map->type != BPF_MAP_TYPE_PROG_ARRAY || !prog)
		return;
	pthread_mutex_lock(&owner_lock);
	for (uint32_t i = 0; i < map->nr_tail_callers;)
		if (map->tail_callers[i] == prog)
			map->tail_callers[i] = map->tail_callers[--map->nr_tail_callers];
		else
			i++;
	pthread_mutex_unlock(&owner_lock);
}

static void prog_array_free(struct kbpf_map *map)
{
	free(map->tail_callers);
	kbpf_ptr_array_free(map);
}

int kbpf_prog_array_owner_check(struct kbpf_map *map, const struct kbpf_prog_array_view *prog, bool caller)
{
	int ret;

	if (!map || map->type != BPF_MAP_TYPE_PROG_ARRAY || !prog || !prog->type)
		return 0;
	pthread_mutex_lock(&owner_lock);
	ret = owner_check_locked(map, prog, caller);
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
	/* checked and stored under the lock, so that a caller created meanwhile sees it */
	int err = 0;
	pthread_mutex_lock(&owner_lock);
	if (prog->type)
		err = owner_check_locked(map, prog, false); /* Linux: a program of another type */
	if (!err)
		atomic_store_explicit(&kbpf_to_ptr_array(map)->slots[index], (void *)prog, memory_order_release);
	pthread_mutex_unlock(&owner_lock);
	return err;
}

/* Linux's fd_array_map_delete_elem. */
static int prog_array_sys_delete(struct kbpf_map *map, const void *key)
{
	uint32_t index = kbpf_map_key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	/* under the lock a program's creation holds while it reads the slots' programs
	 * (owner_check_locked): once the delete returns, the host may free the program */
	pthread_mutex_lock(&owner_lock);
	const void *old = atomic_exchange_explicit(&kbpf_to_ptr_array(map)->slots[index], NULL, memory_order_acq_rel);
	pthread_mutex_unlock(&owner_lock);
	return old ? 0 : -ENOENT;
}

/* Programs reach a PROG_ARRAY only through bpf_tail_call (Linux's verifier refuses
 * the other map helpers on it), so the program-side entries stay NULL. Host-side
 * lookups give the program pointer (Linux: its id). */
static const struct kbpf_map_ops prog_array_ops = {
	.sys_lookup = kbpf_ptr_array_sys_lookup,
	.sys_update = prog_array_sys_update,
	.sys_delete = prog_array_sys_delete,
	.get_next_key = kbpf_array_get_next_key,
	.free = prog_array_free,
};

/* Linux's fd_array_map_alloc_check, then the array rules. */
int kbpf_prog_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	int err = kbpf_fd_array_map_alloc_check(attr);

	return err ? err : kbpf_ptr_array_alloc(attr, &prog_array_ops, out);
}
