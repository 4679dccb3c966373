/* SPDX-License-Identifier: Apache-2.0 */
/* Eviction for LRU_HASH and LRU_PERCPU_HASH: an approximate LRU, "second chance".
 *
 * Every element holding a key sits on one list, newest at the head.  A program's
 * lookup (or an update of an existing key) only sets the element's reference bit, so
 * lookups never take the list lock.  When a new key finds the pool empty, the
 * evictor walks from the tail: a referenced element loses its bit and goes back to
 * the head, the first unreferenced one is unlinked from its bucket and reused.  Linux
 * approximates LRU in the same spirit (reference bits, active/inactive lists, per-CPU
 * free lists), so neither evicts in exact least-recently-used order.
 *
 * Ownership: whoever unlinks an element from its bucket (delete, or the evictor)
 * owns it and takes it off the list.  An element on the list but in no bucket is
 * being inserted or deleted by another thread: the evictor skips it. */
#include "maps/htab.h"

static void node_del(struct htab_lru_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

static void node_add_head(struct htab_lru_node *head, struct htab_lru_node *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

void htab_lru_init(struct htab_lru *lru)
{
	kbpf_spin_init(&lru->lock);
	lru->head.next = lru->head.prev = &lru->head;
	lru->nr_listed = 0;
}

/* Caller holds the LRU lock.  The first nr_listed steps honour reference bits; past
 * them every listed element has had its second chance, so the scan ignores bits and
 * cannot be kept going by busy lookups. */
static struct htab_elem *evict_one(struct kbpf_htab *htab)
{
	struct htab_lru *lru = &htab->lru_list;
	uint64_t budget = 2ull * lru->nr_listed + 1;

	for (uint64_t step = 0; step < budget; step++) {
		struct htab_lru_node *n = lru->head.prev;
		struct htab_elem *e;
		struct htab_bucket *b;
		bool unlinked;

		if (n == &lru->head)
			return NULL;
		e = KBPF_CONTAINER_OF(n, struct htab_elem, lru);
		if (step < lru->nr_listed && __atomic_load_n(&e->lru_ref, __ATOMIC_RELAXED)) {
			__atomic_store_n(&e->lru_ref, 0, __ATOMIC_RELAXED);
			node_del(n);
			node_add_head(&lru->head, n);
			continue;
		}
		b = htab_bucket_of(htab, __atomic_load_n(&e->hash, __ATOMIC_RELAXED));
		kbpf_spin_lock(&b->lock);
		unlinked = htab_bucket_unlink(b, e);
		kbpf_spin_unlock(&b->lock);
		node_del(n);
		if (unlinked) {
			lru->nr_listed--;
			return e;
		}
		node_add_head(&lru->head, n); /* another thread's insert or delete: skip */
	}
	return NULL;
}

struct htab_elem *htab_lru_get(struct kbpf_htab *htab)
{
	struct htab_elem *e = htab_pool_get(&htab->pool);

	if (e)
		return e;
	kbpf_spin_lock(&htab->lru_list.lock);
	e = evict_one(htab);
	kbpf_spin_unlock(&htab->lru_list.lock);
	return e;
}

void htab_lru_add(struct kbpf_htab *htab, struct htab_elem *e)
{
	kbpf_spin_lock(&htab->lru_list.lock);
	node_add_head(&htab->lru_list.head, &e->lru);
	htab->lru_list.nr_listed++;
	kbpf_spin_unlock(&htab->lru_list.lock);
}

void htab_lru_put(struct kbpf_htab *htab, struct htab_elem *e)
{
	kbpf_spin_lock(&htab->lru_list.lock);
	node_del(&e->lru);
	htab->lru_list.nr_listed--;
	kbpf_spin_unlock(&htab->lru_list.lock);
	htab_pool_put(&htab->pool, e);
}
