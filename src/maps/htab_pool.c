/* SPDX-License-Identifier: Apache-2.0 */
/* The element pool of a hash map: all max_entries elements in one zeroed allocation,
 * handed out first from the never-used area (a bump index, no lock) and then from
 * per-CPU free lists that deletes refill.  Elements never go back to malloc, so
 * stale pointers held by programs stay valid memory.
 *
 * BPF_F_NO_PREALLOC maps use the same pool: the allocation is one calloc, whose
 * large sizes the C library maps as zero pages committed on first touch, so an
 * unfilled map costs address space rather than memory, the point of NO_PREALLOC. */
#include <errno.h>
#include <stdlib.h>
#include "maps/htab.h"

int htab_pool_init(struct htab_pool *pool, uint32_t nr_elems, size_t elem_size, unsigned nr_lists)
{
	size_t bytes;

	if (__builtin_mul_overflow((size_t)nr_elems, elem_size, &bytes))
		return -ENOMEM;
	pool->elems = calloc(1, bytes ? bytes : 1);
	if (!pool->elems)
		return -ENOMEM;
	pool->lists = aligned_alloc(KBPF_CACHELINE, sizeof(*pool->lists) * nr_lists);
	if (!pool->lists) {
		free(pool->elems);
		pool->elems = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nr_lists; i++) {
		kbpf_spin_init(&pool->lists[i].lock);
		pool->lists[i].first = NULL;
	}
	pool->elem_size = elem_size;
	pool->nr_elems = nr_elems;
	pool->nr_lists = nr_lists;
	atomic_init(&pool->used, 0);
	return 0;
}

void htab_pool_destroy(struct htab_pool *pool)
{
	free(pool->lists);
	free(pool->elems);
}

static struct htab_elem *list_pop(struct htab_free_list *list)
{
	struct htab_elem *e;

	if (!__atomic_load_n(&list->first, __ATOMIC_RELAXED))
		return NULL; /* don't take the lock of an empty list */
	kbpf_spin_lock(&list->lock);
	e = list->first;
	if (e)
		__atomic_store_n(&list->first, e->free_next, __ATOMIC_RELAXED);
	kbpf_spin_unlock(&list->lock);
	return e;
}

/* Own slot's list first (what this thread freed is likely still in its cache), then
 * the never-used area, then the other slots' lists. */
struct htab_elem *htab_pool_get(struct htab_pool *pool)
{
	unsigned self = kbpf_cpu_id() % pool->nr_lists;
	unsigned used = atomic_load_explicit(&pool->used, memory_order_relaxed);
	struct htab_elem *e;

	e = list_pop(&pool->lists[self]);
	if (e)
		return e;
	while (used < pool->nr_elems) {
		if (atomic_compare_exchange_weak_explicit(&pool->used, &used, used + 1,
							  memory_order_relaxed, memory_order_relaxed)) {
			e = (struct htab_elem *)(pool->elems + pool->elem_size * used);
			e->index = used;
			return e;
		}
	}
	for (unsigned i = 1; i < pool->nr_lists; i++) {
		e = list_pop(&pool->lists[(self + i) % pool->nr_lists]);
		if (e)
			return e;
	}
	return NULL;
}

void htab_pool_put(struct htab_pool *pool, struct htab_elem *e)
{
	struct htab_free_list *list = &pool->lists[kbpf_cpu_id() % pool->nr_lists];

	kbpf_spin_lock(&list->lock);
	e->free_next = list->first;
	__atomic_store_n(&list->first, e, __ATOMIC_RELAXED);
	kbpf_spin_unlock(&list->lock);
}
