/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_QUEUE and BPF_MAP_TYPE_STACK (Linux 6.1's kernel/bpf/queue_stack_maps.c):
 * a ring of max_entries + 1 value slots (one always free, so head == tail means empty)
 * behind one spin lock. push writes at head; a queue pops at tail (FIFO), a stack at
 * head - 1 (LIFO). Nothing hands out pointers into the ring: values are copied in and
 * out under the lock, so the lock covers everything. The copies use the relaxed-atomic
 * value copy because the other side may be a program's map value that other threads
 * change with atomic instructions. */
#include <errno.h>
#include <stdlib.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define QUEUE_STACK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | KBPF_MAP_ACCESS_MASK)

struct queue_stack {
	struct kbpf_map map;
	struct kbpf_spinlock lock;
	uint32_t head, tail;
	uint32_t size; /* max_entries + 1 */
	char *elements;
};

static struct queue_stack *qs_of(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct queue_stack, map);
}

static bool qs_empty(const struct queue_stack *qs)
{
	return qs->head == qs->tail;
}

static bool qs_full(const struct queue_stack *qs)
{
	uint32_t head = qs->head + 1;

	return (head >= qs->size ? 0 : head) == qs->tail;
}

static char *slot(struct queue_stack *qs, uint32_t index)
{
	return qs->elements + (size_t)index * qs->map.value_size;
}

/* Linux's __queue_map_get / __stack_map_get: copy the element a pop would take into
 * value (zeroes and -ENOENT when empty), taking it out if del. */
static long qs_get(struct kbpf_map *map, void *value, bool del)
{
	struct queue_stack *qs = qs_of(map);
	bool stack = map->type == BPF_MAP_TYPE_STACK;
	long err = 0;

	kbpf_spin_lock(&qs->lock);
	if (qs_empty(qs)) {
		kbpf_map_zero_value(value, map->value_size);
		err = -ENOENT;
		goto out;
	}
	uint32_t index = stack ? (qs->head ? qs->head - 1 : qs->size - 1) : qs->tail;
	kbpf_map_copy_value(value, slot(qs, index), map->value_size);
	if (del) {
		if (stack)
			qs->head = index;
		else if (++qs->tail >= qs->size)
			qs->tail = 0;
	}
out:
	kbpf_spin_unlock(&qs->lock);
	return err;
}

static long qs_peek(struct kbpf_map *map, void *value)
{
	return qs_get(map, value, false);
}

static long qs_pop(struct kbpf_map *map, void *value)
{
	return qs_get(map, value, true);
}

/* Linux's queue_stack_map_push_elem: BPF_EXIST makes room when full by dropping the
 * oldest element (the tail, for both kinds). */
static long qs_push(struct kbpf_map *map, const void *value, uint64_t flags)
{
	struct queue_stack *qs = qs_of(map);
	long err = 0;

	if ((flags & BPF_NOEXIST) || flags > BPF_EXIST)
		return -EINVAL;
	kbpf_spin_lock(&qs->lock);
	if (qs_full(qs)) {
		if (!(flags & BPF_EXIST)) {
			err = -E2BIG;
			goto out;
		}
		if (++qs->tail >= qs->size)
			qs->tail = 0;
	}
	kbpf_map_copy_value(slot(qs, qs->head), value, map->value_size);
	if (++qs->head >= qs->size)
		qs->head = 0;
out:
	kbpf_spin_unlock(&qs->lock);
	return err;
}

/* Linux: the keyed operations exist and say -EINVAL (lookup gives NULL). */
static long qs_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return -EINVAL;
}

static long qs_delete_elem(struct kbpf_map *map, const void *key)
{
	(void)map, (void)key;
	return -EINVAL;
}

static int qs_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)qs_delete_elem(map, key);
}

static int qs_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	(void)map, (void)key, (void)next_key;
	return -EINVAL;
}

static void qs_free(struct kbpf_map *map)
{
	struct queue_stack *qs = qs_of(map);

	free(qs->elements);
	free(qs);
}

static const struct kbpf_map_ops queue_stack_ops = {
	.update_elem = qs_update_elem,
	.delete_elem = qs_delete_elem,
	.sys_delete = qs_sys_delete,
	.get_next_key = qs_get_next_key,
	.push_elem = qs_push,
	.pop_elem = qs_pop,
	.peek_elem = qs_peek,
	.free = qs_free,
};

int kbpf_queue_stack_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct queue_stack *qs;
	size_t bytes;

	/* Linux's queue_stack_map_alloc_check */
	if (!attr->max_entries || attr->key_size || !attr->value_size ||
	    (attr->map_flags & ~(uint32_t)QUEUE_STACK_CREATE_FLAG_MASK) || !kbpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (attr->value_size > KBPF_KMALLOC_MAX_SIZE)
		return -E2BIG;
	if (__builtin_mul_overflow((size_t)attr->max_entries + 1, (size_t)attr->value_size, &bytes))
		return -ENOMEM;
	qs = calloc(1, sizeof(*qs));
	if (!qs)
		return -ENOMEM;
	/* calloc: a big ring costs address space until it fills (Linux vmallocs it) */
	qs->elements = calloc(1, bytes);
	if (!qs->elements) {
		free(qs);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&qs->map, attr);
	qs->map.ops = &queue_stack_ops;
	qs->size = attr->max_entries + 1;
	kbpf_spin_init(&qs->lock);
	*out = &qs->map;
	return 0;
}
