/* SPDX-License-Identifier: Apache-2.0 */
/* The socket maps: BPF_MAP_TYPE_SOCKMAP, SOCKHASH, XSKMAP and REUSEPORT_SOCKARRAY.
 *
 * In Linux their syscall side stores socket fds (value_size 4 or 8) and the map holds
 * socket references. kbpf has no fds and no kernel sockets: a slot holds a host's socket
 * object, an opaque pointer here (hosts/linux gives it a layout: struct kbpf_linux_sock,
 * struct kbpf_linux_xsk, and checks a socket before storing it). The host side's value
 * buffer is that pointer (kbpf_map_host_value_size is sizeof(void *)), as PROG_ARRAY's
 * is a program pointer, while the map keeps Linux's value_size so that definitions in
 * .bpf.o files load unchanged. Sockets are not reference counted: the host keeps a
 * socket alive while it sits in a slot and while a program that looked it up may run.
 *
 * Program side: bpf_map_lookup_elem gives the socket itself (Linux: the struct sock,
 * typed PTR_TO_SOCKET — a reference the program must release — for SOCKMAP/SOCKHASH,
 * PTR_TO_XDP_SOCK for XSKMAP); REUSEPORT_SOCKARRAY is read only by
 * bpf_sk_select_reuseport, which uses the same lookup. A program's bpf_map_update_elem
 * on SOCKMAP/SOCKHASH stores the socket pointer it passes (the verifier makes it a
 * socket). Array slots are single atomic pointers; SOCKHASH is a hash map whose 8-byte
 * values are the pointers (htab.c's lock-free lookups). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "maps/ptr_array.h"

#define SOCK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY)
#define MAX_BPF_STACK 512
/* Linux's sock_hash_alloc: max_entries rounded up to a power of two 16-byte buckets must
 * count in a u32 (U32_MAX / 16 is just under 2^28) */
#define SOCKHASH_MAX_ENTRIES (1u << 27)

struct sock_hash {
	struct kbpf_map map;
	struct kbpf_map *tab; /* a HASH of key_size -> void * */
};

static inline struct sock_hash *to_hash(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct sock_hash, map);
}

/* --- arrays: SOCKMAP, XSKMAP, REUSEPORT_SOCKARRAY ---------------------------------- */

static void *array_get(struct kbpf_map *map, const void *key)
{
	return kbpf_ptr_array_get(map, kbpf_map_key_index(key));
}

/* Linux's sock_map_update_common, xsk_map_update_elem and reuseport_array_update_elem
 * share these rules: BPF_ANY, BPF_NOEXIST (-EEXIST over a socket), BPF_EXIST (-ENOENT
 * over an empty slot); -E2BIG beyond max_entries. */
static long array_store(struct kbpf_map *map, const void *key, void *sock, uint64_t flags)
{
	uint32_t index = kbpf_map_key_index(key);
	_Atomic(void *) *slot;
	void *old;

	if (flags > BPF_EXIST || !sock)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	slot = &kbpf_to_ptr_array(map)->slots[index];
	old = atomic_load_explicit(slot, memory_order_acquire);
	do {
		if (old && flags == BPF_NOEXIST)
			return -EEXIST;
		if (!old && flags == BPF_EXIST)
			return -ENOENT;
	} while (!atomic_compare_exchange_weak_explicit(slot, &old, sock, memory_order_acq_rel,
							memory_order_acquire));
	return 0;
}

/* Deleting: SOCKMAP says -EINVAL both beyond max_entries and for an empty slot (Linux's
 * sock_map_delete_elem), XSKMAP -EINVAL beyond and 0 for an empty slot
 * (xsk_map_delete_elem), REUSEPORT_SOCKARRAY -E2BIG and -ENOENT. */
static long array_delete(struct kbpf_map *map, const void *key)
{
	uint32_t index = kbpf_map_key_index(key);
	bool reuseport = map->type == BPF_MAP_TYPE_REUSEPORT_SOCKARRAY;
	void *old;

	if (index >= map->max_entries)
		return reuseport ? -E2BIG : -EINVAL;
	old = atomic_exchange_explicit(&kbpf_to_ptr_array(map)->slots[index], NULL, memory_order_acq_rel);
	if (!old && map->type != BPF_MAP_TYPE_XSKMAP)
		return reuseport ? -ENOENT : -EINVAL;
	return 0;
}

static int array_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	void *sock;

	memcpy(&sock, value, sizeof(sock));
	return (int)array_store(map, key, sock, flags);
}

static long array_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return array_store(map, key, (void *)(uintptr_t)value, flags);
}

static int array_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)array_delete(map, key);
}

/* Programs may update and delete SOCKMAP slots (the verifier allows it to the types
 * Linux's may_update_sockmap names); XSKMAP and REUSEPORT_SOCKARRAY are written by the
 * host only (Linux's verifier refuses those helpers on them). */
static const struct kbpf_map_ops sockmap_ops = {
	.lookup_elem = array_get,
	.update_elem = array_update_elem,
	.delete_elem = array_delete,
	.sys_lookup = kbpf_ptr_array_sys_lookup,
	.sys_update = array_sys_update,
	.sys_delete = array_sys_delete,
	.get_next_key = kbpf_array_get_next_key, /* every index, empty or not (Linux) */
	.free = kbpf_ptr_array_free,
};

static const struct kbpf_map_ops host_written_array_ops = {
	.lookup_elem = array_get,
	.sys_lookup = kbpf_ptr_array_sys_lookup,
	.sys_update = array_sys_update,
	.sys_delete = array_sys_delete,
	.get_next_key = kbpf_array_get_next_key, /* every index, empty or not (Linux) */
	.free = kbpf_ptr_array_free,
};

/* --- SOCKHASH ------------------------------------------------------------------------ */

static void *hash_get(struct kbpf_map *map, const void *key)
{
	struct kbpf_map *tab = to_hash(map)->tab;
	_Atomic(void *) *slot = tab->ops->lookup_elem(tab, key);

	/* an element deleted meanwhile stays valid memory (htab_pool.c): the socket read is
	 * the old or a new one, as Linux's RCU lookup may see */
	return slot ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
}

static long hash_store(struct kbpf_map *map, const void *key, void *sock, uint64_t flags)
{
	struct kbpf_map *tab = to_hash(map)->tab;

	/* Linux's sock_hash_update_common: flags beyond BPF_EXIST are -EINVAL; a full map
	 * -E2BIG (the hash map's own answer) */
	if (flags > BPF_EXIST || !sock)
		return -EINVAL;
	return tab->ops->sys_update(tab, key, &sock, flags);
}

static int hash_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	void *sock = hash_get(map, key);

	if (!sock)
		return -ENOENT;
	memcpy(value, &sock, sizeof(sock));
	return 0;
}

static int hash_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	void *sock;

	memcpy(&sock, value, sizeof(sock));
	return (int)hash_store(map, key, sock, flags);
}

static long hash_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return hash_store(map, key, (void *)(uintptr_t)value, flags);
}

/* Linux's sock_hash_delete_elem: -ENOENT for an absent key. */
static long hash_delete(struct kbpf_map *map, const void *key)
{
	struct kbpf_map *tab = to_hash(map)->tab;

	return tab->ops->sys_delete(tab, key);
}

static int hash_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)hash_delete(map, key);
}

static int hash_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	struct kbpf_map *tab = to_hash(map)->tab;

	return tab->ops->get_next_key(tab, key, next_key);
}

static void hash_free(struct kbpf_map *map)
{
	struct sock_hash *hash = to_hash(map);

	kbpf_map_free(hash->tab);
	free(hash);
}

static const struct kbpf_map_ops sockhash_ops = {
	.lookup_elem = hash_get,
	.update_elem = hash_update_elem,
	.delete_elem = hash_delete,
	.sys_lookup = hash_sys_lookup,
	.sys_update = hash_sys_update,
	.sys_delete = hash_sys_delete,
	.get_next_key = hash_get_next_key,
	.free = hash_free,
};

static int hash_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct kbpf_map_attr tab_attr = { .type = BPF_MAP_TYPE_HASH, .key_size = attr->key_size,
					  .value_size = sizeof(void *), .max_entries = attr->max_entries };
	struct sock_hash *hash = calloc(1, sizeof(*hash));
	int err;

	if (!hash)
		return -ENOMEM;
	err = kbpf_htab_map_alloc(&tab_attr, &hash->tab);
	if (err) {
		free(hash);
		return err;
	}
	kbpf_map_init_from_attr(&hash->map, attr);
	hash->map.ops = &sockhash_ops;
	hash->map.host_value_size = sizeof(void *);
	*out = &hash->map;
	return 0;
}

/* --- creation ------------------------------------------------------------------------ */

/* Linux's sock_map_alloc, sock_hash_alloc, xsk_map_alloc and reuseport_array_alloc_check
 * (the CAP_NET_ADMIN / CAP_SYS_ADMIN checks aside: kbpf maps have no creator
 * capabilities). */
int kbpf_sock_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	bool value_ok = attr->value_size == 4 || attr->value_size == 8;

	switch (attr->type) {
	case BPF_MAP_TYPE_SOCKMAP:
		if (!attr->max_entries || attr->max_entries > INT32_MAX || attr->key_size != 4 || !value_ok ||
		    (attr->map_flags & ~SOCK_CREATE_FLAG_MASK))
			return -EINVAL;
		return kbpf_ptr_array_alloc(attr, &sockmap_ops, out);
	case BPF_MAP_TYPE_SOCKHASH:
		if (!attr->max_entries || !attr->key_size || !value_ok || (attr->map_flags & ~SOCK_CREATE_FLAG_MASK))
			return -EINVAL;
		if (attr->key_size > MAX_BPF_STACK)
			return -E2BIG;
		if (attr->max_entries > SOCKHASH_MAX_ENTRIES)
			return -EINVAL;
		return hash_alloc(attr, out);
	case BPF_MAP_TYPE_XSKMAP:
		if (!attr->max_entries || attr->key_size != 4 || attr->value_size != 4 ||
		    (attr->map_flags & ~SOCK_CREATE_FLAG_MASK))
			return -EINVAL;
		return kbpf_ptr_array_alloc(attr, &host_written_array_ops, out);
	case BPF_MAP_TYPE_REUSEPORT_SOCKARRAY: {
		int err = value_ok ? kbpf_array_map_alloc_check(attr) : -EINVAL;

		return err ? err : kbpf_ptr_array_alloc(attr, &host_written_array_ops, out);
	}
	default:
		return -EINVAL;
	}
}
