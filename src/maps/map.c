/* SPDX-License-Identifier: Apache-2.0 */
/* Map creation, destruction and the dispatch of the public calls to each type.
 * The checks common to all types (syscall access flags, frozen maps, BPF_F_LOCK) live
 * here, in the order Linux's bpf(2) makes them; type rules live with each type. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"
#include "maps/map_prog_view.h"
#include "maps/map_rdonly.h"
#include "maps/timer.h"
#include "opts.h"

/* The struct the caller was compiled with may be older (down to name) or newer than
 * ours (src/opts.h). */
static int def_valid(const struct kbpf_map_def *def)
{
	return def && OPTS_VALID(def, OPTS_END(struct kbpf_map_def, name));
}

/* A field of def, or dflt if the caller's struct is too old to have it. */
#define DEF_FIELD(def, f, dflt) OPTS_GET(def, f, dflt)

/* Linux map types kbpf does not implement: -EOPNOTSUPP says "known, not here";
 * numbers Linux does not know get Linux's -EINVAL. */
static int unsupported_type(uint32_t type)
{
	const uint32_t last_linux_type = 33; /* BPF_MAP_TYPE_ARENA as of Linux 6.9 */

	return type != BPF_MAP_TYPE_UNSPEC && type <= last_linux_type ? -EOPNOTSUPP : -EINVAL;
}

int kbpf_map_create(const struct kbpf_map_def *def, struct kbpf_map **out)
{
	struct kbpf_map_attr attr;
	struct kbpf_map *map = NULL, *inner;
	const struct btf *btf;
	uint32_t btf_key_id, btf_value_id;
	char *name;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!def_valid(def))
		return -EINVAL;
	if (DEF_FIELD(def, log_buf, NULL) && DEF_FIELD(def, log_size, 0))
		def->log_buf[0] = 0;
	btf = DEF_FIELD(def, btf, NULL);
	btf_key_id = DEF_FIELD(def, btf_key_type_id, 0);
	btf_value_id = DEF_FIELD(def, btf_value_type_id, 0);
	inner = DEF_FIELD(def, inner_map, NULL);
	if (inner && def->type != BPF_MAP_TYPE_ARRAY_OF_MAPS && def->type != BPF_MAP_TYPE_HASH_OF_MAPS)
		return -EINVAL;
	/* Linux: type ids need the BTF they name */
	if ((btf_key_id || btf_value_id) && !btf)
		return -EINVAL;
	attr = (struct kbpf_map_attr){
		.type = def->type,
		.key_size = def->key_size,
		.value_size = def->value_size,
		.max_entries = def->max_entries,
		.map_flags = def->map_flags,
		.map_extra = DEF_FIELD(def, map_extra, 0),
	};
	/* Linux's map_create: only a bloom filter has a use for map_extra */
	if (attr.type != BPF_MAP_TYPE_BLOOM_FILTER && attr.map_extra)
		return -EINVAL;
	/* bpf_get_file_flag: the syscall side cannot be both read-only and write-only */
	if ((attr.map_flags & BPF_F_RDONLY) && (attr.map_flags & BPF_F_WRONLY))
		return -EINVAL;

	switch (attr.type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		err = kbpf_array_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_PROG_ARRAY:
		err = kbpf_prog_array_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		err = kbpf_htab_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_RINGBUF:
		err = kbpf_ringbuf_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_SK_STORAGE:
		err = kbpf_sk_storage_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		err = kbpf_perf_event_array_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
		err = kbpf_map_of_maps_alloc(&attr, inner, &map);
		break;
	case BPF_MAP_TYPE_CGROUP_STORAGE:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		err = kbpf_cgroup_storage_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_STACK_TRACE:
		err = kbpf_stack_trace_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_SOCKMAP:
	case BPF_MAP_TYPE_SOCKHASH:
	case BPF_MAP_TYPE_XSKMAP:
	case BPF_MAP_TYPE_REUSEPORT_SOCKARRAY:
		err = kbpf_sock_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_LPM_TRIE:
		err = kbpf_lpm_trie_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		err = kbpf_queue_stack_map_alloc(&attr, &map);
		break;
	case BPF_MAP_TYPE_BLOOM_FILTER:
		err = kbpf_bloom_filter_map_alloc(&attr, &map);
		break;
	default:
		err = unsupported_type(attr.type);
		break;
	}
	if (err)
		return err;
	/* Linux: BTF without type ids is ignored; with them, map_check_btf decides */
	if (btf_key_id || btf_value_id) {
		/* Linux's map_check_no_btf: an outer map's values are maps, a perf event
		 * array's slots perf events, a stack map's values traces, a socket map's
		 * slots sockets: not BTF types (REUSEPORT_SOCKARRAY has no map_check_btf in
		 * Linux: the generic checks take its types) */
		bool no_btf = map->inner_meta || attr.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY ||
			      attr.type == BPF_MAP_TYPE_STACK_TRACE || attr.type == BPF_MAP_TYPE_SOCKMAP ||
			      attr.type == BPF_MAP_TYPE_SOCKHASH || attr.type == BPF_MAP_TYPE_XSKMAP;
		err = no_btf ? -EOPNOTSUPP
			     : kbpf_map_check_btf(map, btf, btf_key_id, btf_value_id, DEF_FIELD(def, host, NULL),
						  DEF_FIELD(def, log_buf, NULL), DEF_FIELD(def, log_size, 0));
		if (err) {
			map->ops->free(map);
			return err;
		}
	}

	name = strdup(def->name ? def->name : "");
	if (!name) {
		map->ops->free(map);
		return -ENOMEM;
	}
	map->name = name;
	*out = map;
	return 0;
}

void kbpf_map_init_from_attr(struct kbpf_map *map, const struct kbpf_map_attr *attr)
{
	map->type = attr->type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags;
	map->host_value_size = attr->value_size;
	/* Linux: -EINVAL until map_check_btf finds out more */
	map->has_btf = false;
	map->spin_lock_off = -EINVAL;
	map->timer_off = -EINVAL;
	map->nr_fields = 0;
	map->nr_kptrs = 0;
	map->kptr_host = NULL;
	map->refcnt = 1;
	map->inner_meta = NULL;
	map->writers = 0;
	map->sealed = 0;
	map->is_template = 0;
}

void kbpf_map_free(struct kbpf_map *map)
{
	char *name;

	if (!map)
		return;
	/* acq_rel: the last holder sees every other holder's writes before freeing */
	if (__atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL))
		return;
	name = map->name;
	kbpf_timers_map_release(map); /* before the values go: waits for a running callback */
	map->ops->free(map);
	free(name);
}

struct kbpf_map *kbpf_map_ref(struct kbpf_map *map)
{
	if (map)
		__atomic_add_fetch(&map->refcnt, 1, __ATOMIC_RELAXED);
	return map;
}

uint32_t kbpf_map_type(const struct kbpf_map *map) { return map ? map->type : 0; }
uint32_t kbpf_map_key_size(const struct kbpf_map *map) { return map ? map->key_size : 0; }
uint32_t kbpf_map_value_size(const struct kbpf_map *map) { return map ? map->value_size : 0; }
uint32_t kbpf_map_max_entries(const struct kbpf_map *map) { return map ? map->max_entries : 0; }
uint32_t kbpf_map_flags(const struct kbpf_map *map) { return map ? map->map_flags : 0; }
const char *kbpf_map_name(const struct kbpf_map *map) { return map ? map->name : NULL; }
size_t kbpf_map_host_value_size(const struct kbpf_map *map) { return map ? map->host_value_size : 0; }
int kbpf_map_has_btf(const struct kbpf_map *map) { return map && map->has_btf; }
int kbpf_map_spin_lock_off(const struct kbpf_map *map) { return map ? map->spin_lock_off : -EINVAL; }
int kbpf_map_timer_off(const struct kbpf_map *map) { return map ? map->timer_off : -EINVAL; }

/* --- host side ------------------------------------------------------------------ */

/* BPF_F_RDONLY / BPF_F_WRONLY restrict the host side (Linux: the map fd's mode);
 * a frozen map is read-only for the host side. */
static int host_can_read(const struct kbpf_map *map)
{
	return !(map->map_flags & BPF_F_WRONLY);
}

static int host_can_write(const struct kbpf_map *map)
{
	return !(map->map_flags & BPF_F_RDONLY) && !__atomic_load_n(&map->frozen, __ATOMIC_SEQ_CST);
}

/* A host-side write starts: counted in map->writers before the frozen flag is read, as
 * kbpf_map_freeze sets the flag before it reads the count (both sequentially consistent),
 * so either the write sees the map frozen and is refused, or the freeze waits for it:
 * no host write can land in a value kbpf_map_freeze has sealed. false: refused. */
static bool host_write_begin(struct kbpf_map *map)
{
	__atomic_add_fetch(&map->writers, 1, __ATOMIC_SEQ_CST);
	if (host_can_write(map))
		return true;
	__atomic_sub_fetch(&map->writers, 1, __ATOMIC_RELEASE);
	return false;
}

static void host_write_end(struct kbpf_map *map)
{
	__atomic_sub_fetch(&map->writers, 1, __ATOMIC_RELEASE);
}

/* Keyless maps (key_size 0: QUEUE, STACK, BLOOM_FILTER) take a NULL key. */
static bool key_ok(const struct kbpf_map *map, const void *key)
{
	return key || !map->key_size;
}

int kbpf_map_lookup(struct kbpf_map *map, const void *key, void *value)
{
	return kbpf_map_lookup_flags(map, key, value, 0);
}

int kbpf_map_lookup_flags(struct kbpf_map *map, const void *key, void *value, uint64_t flags)
{
	int err;

	if (!map || !key_ok(map, key) || !value)
		return -EINVAL;
	if (flags & ~(uint64_t)BPF_F_LOCK)
		return -EINVAL;
	if (!host_can_read(map))
		return -EPERM;
	if ((flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		return -EINVAL;
	if (map->ops->peek_elem) /* Linux's bpf_map_copy_value: keyless maps peek */
		return (int)map->ops->peek_elem(map, value);
	if (!map->ops->sys_lookup)
		return -EOPNOTSUPP;
	if (flags & BPF_F_LOCK) {
		/* maps with a lock (array, hash; local storage is keyed by owner and has no
		 * sys_lookup) keep their values in place: copy from there under the lock.
		 * A hash element deleted meanwhile stays valid memory (htab_pool.c), as in
		 * Linux, which copies the same way without the bucket lock. */
		void *elem = map->ops->lookup_elem ? map->ops->lookup_elem(map, key) : NULL;
		if (!elem)
			return -ENOENT;
		kbpf_map_value_copy_locked(map, value, elem, true);
		kbpf_map_value_init_fields(map, value);
		return 0;
	}
	err = map->ops->sys_lookup(map, key, value);
	if (!err && map->nr_fields)
		kbpf_map_value_init_fields(map, value); /* Linux masks them in the copy */
	return err;
}

static int map_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	/* BPF_F_LOCK needs a bpf_spin_lock in the value (Linux's map_update_elem) */
	if ((flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		return -EINVAL;
	if (map->ops->push_elem) /* Linux's bpf_map_update_value: keyless maps push */
		return (int)map->ops->push_elem(map, value, flags);
	if (!map->ops->sys_update)
		return -EOPNOTSUPP;
	return map->ops->sys_update(map, key, value, flags);
}

int kbpf_map_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	int err;

	if (!map || !key_ok(map, key) || !value)
		return -EINVAL;
	if (!host_write_begin(map))
		return -EPERM;
	err = map_update(map, key, value, flags);
	host_write_end(map);
	return err;
}

int kbpf_map_push(struct kbpf_map *map, const void *value, uint64_t flags)
{
	return kbpf_map_update(map, NULL, value, flags);
}

int kbpf_map_lookup_and_delete(struct kbpf_map *map, const void *key, void *value, uint64_t flags)
{
	int err;

	if (!map || !key_ok(map, key) || !value)
		return -EINVAL;
	if (flags & ~(uint64_t)BPF_F_LOCK)
		return -EINVAL;
	/* Linux's map_lookup_and_delete_elem: the map must be readable and writable */
	if (!host_can_read(map) || !host_can_write(map))
		return -EPERM;
	if (flags && (map->type == BPF_MAP_TYPE_QUEUE || map->type == BPF_MAP_TYPE_STACK))
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		return -EINVAL;
	if (!map->ops->pop_elem)
		return -EOPNOTSUPP;
	if (!host_write_begin(map))
		return -EPERM;
	err = (int)map->ops->pop_elem(map, value);
	host_write_end(map);
	return err;
}

int kbpf_map_delete(struct kbpf_map *map, const void *key)
{
	int err;

	if (!map || !key_ok(map, key))
		return -EINVAL;
	if (!host_write_begin(map))
		return -EPERM;
	err = map->ops->sys_delete ? map->ops->sys_delete(map, key) : -EOPNOTSUPP;
	host_write_end(map);
	return err;
}

int kbpf_map_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	if (!map || !next_key)
		return -EINVAL;
	if (!host_can_read(map))
		return -EPERM;
	if (!map->ops->get_next_key)
		return -EOPNOTSUPP;
	return map->ops->get_next_key(map, key, next_key);
}

int kbpf_map_freeze(struct kbpf_map *map)
{
	int expected = 0;

	if (!map)
		return -EINVAL;
	/* Linux 6.12's map_freeze: ENOTSUPP for a value with special fields (map->record:
	 * spin lock, timer, kptrs), which programs write even where the map is read-only */
	if (map->nr_fields > 0 || map->nr_kptrs)
		return -EOPNOTSUPP;
	if (map->map_flags & BPF_F_RDONLY) /* Linux's map_freeze: the fd must be writable */
		return -EPERM;
	if (!__atomic_compare_exchange_n(&map->frozen, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return -EBUSY;
	/* Linux refuses the freeze (-EBUSY) while a write is in flight and has its verifier
	 * wait for writes that slipped past (bpf_map_is_rdonly reads writecnt); kbpf
	 * write-protects the values here, so it waits for them: host writes are short */
	while (__atomic_load_n(&map->writers, __ATOMIC_SEQ_CST))
		sched_yield();
	if (map->ops->seal) {
		int err = map->ops->seal(map);
		if (err) {
			__atomic_store_n(&map->frozen, 0, __ATOMIC_SEQ_CST);
			return err;
		}
	}
	return 0;
}

int kbpf_map_is_frozen(const struct kbpf_map *map)
{
	return map ? __atomic_load_n(&map->frozen, __ATOMIC_ACQUIRE) : 0;
}

bool kbpf_map_is_rdonly(const struct kbpf_map *map)
{
	return map && (map->map_flags & BPF_F_RDONLY_PROG) && __atomic_load_n(&map->sealed, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&map->is_template, __ATOMIC_ACQUIRE);
}

/* --- storage -------------------------------------------------------------------- */

size_t kbpf_map_one_region(const struct kbpf_map *map, void *base, size_t size, struct kbpf_mem_region *out,
			   size_t max)
{
	if (max) {
		unsigned flags = KBPF_MEM_READ | KBPF_MEM_WRITE;
		if (map->map_flags & BPF_F_RDONLY_PROG)
			flags &= ~KBPF_MEM_WRITE;
		if (map->map_flags & BPF_F_WRONLY_PROG)
			flags &= ~KBPF_MEM_READ;
		*out = (struct kbpf_mem_region){ .base = base, .size = size, .flags = flags, .name = map->name };
	}
	return 1;
}

size_t kbpf_map_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	size_t n;

	if (!map)
		return 0;
	if (!out)
		max = 0;
	n = map->ops->mem_regions ? map->ops->mem_regions(map, out, max) : 0;
	/* last, the map object's fields a verified program may read through a map
	 * pointer (struct bpf_map, map_prog_view.h): read-only */
	if (n < max)
		out[n] = (struct kbpf_mem_region){ .base = (void *)(uintptr_t)map, .size = sizeof(struct bpf_map),
						   .flags = KBPF_MEM_READ, .name = map->name };
	return n + 1;
}

/* --- program side ---------------------------------------------------------------- */

void *kbpf_map_lookup_elem(struct kbpf_map *map, const void *key)
{
	if (__builtin_expect(!map || !map->ops->lookup_elem, 0))
		return NULL;
	return map->ops->lookup_elem(map, key);
}

void *kbpf_map_lookup_percpu_elem(struct kbpf_map *map, const void *key, uint32_t cpu)
{
	if (!map || !map->ops->lookup_percpu_elem)
		return NULL;
	return map->ops->lookup_percpu_elem(map, key, cpu);
}

long kbpf_map_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	if (!map)
		return -EINVAL;
	if (!map->ops->update_elem)
		return -EOPNOTSUPP;
	/* write-protected values (a frozen BPF_F_RDONLY_PROG array): the verifier refuses the
	 * helper on such a map ("write into map forbidden"); a host calling this directly
	 * gets the host side's errno for a frozen map, not a fault */
	if (__builtin_expect(__atomic_load_n(&map->sealed, __ATOMIC_ACQUIRE), 0))
		return -EPERM;
	return map->ops->update_elem(map, key, value, flags);
}

long kbpf_map_delete_elem(struct kbpf_map *map, const void *key)
{
	if (!map)
		return -EINVAL;
	if (!map->ops->delete_elem)
		return -EOPNOTSUPP;
	return map->ops->delete_elem(map, key);
}

long kbpf_map_push_elem(struct kbpf_map *map, const void *value, uint64_t flags)
{
	if (!map || !map->ops->push_elem)
		return -EINVAL;
	return map->ops->push_elem(map, value, flags);
}

long kbpf_map_pop_elem(struct kbpf_map *map, void *value)
{
	if (!map || !map->ops->pop_elem)
		return -EINVAL;
	return map->ops->pop_elem(map, value);
}

long kbpf_map_peek_elem(struct kbpf_map *map, void *value)
{
	if (!map || !map->ops->peek_elem)
		return -EINVAL;
	return map->ops->peek_elem(map, value);
}
