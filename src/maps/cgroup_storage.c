/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_CGROUP_STORAGE and PERCPU_CGROUP_STORAGE (Linux's
 * kernel/bpf/local_storage.c): the storage bpf_get_local_storage gives a program.
 *
 * Linux creates one storage per (cgroup, attach type) a program using the map is
 * attached to, and a run's program finds the storage of the cgroup it runs for. kbpf
 * has no cgroups: a storage map holds exactly one storage, that of cgroup 0 and attach
 * type 0, shared by every program using the map, as the programs attached to one cgroup
 * with one attach type share theirs. It is an array of one element inside (array.c),
 * per CPU for the per-CPU type, so values, locks of regions and the host's copies are the
 * array's; the key is Linux's struct bpf_cgroup_storage_key (16 bytes) or a u64 cgroup
 * id (8 bytes, a map shared across attach types). Host-side semantics are Linux's:
 * lookup and update of an existing storage only (-ENOENT for another key; updates
 * BPF_ANY or BPF_EXIST), no delete (-EINVAL), max_entries 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "maps/map_internal.h"

#define STORAGE_KEY_SIZE 16 /* struct bpf_cgroup_storage_key, padded */
#define STORAGE_KEY_BYTES 12 /* its fields: u64 cgroup_inode_id, u32 attach_type */
/* Linux's BPF_LOCAL_STORAGE_MAX_VALUE_SIZE: U16_MAX less sizeof(struct
 * bpf_local_storage_elem), 128 bytes on x86-64 (its data is cache-line aligned, at 64) */
#define STORAGE_MAX_VALUE (65535 - 128)

struct kbpf_cgroup_storage {
	struct kbpf_map map;
	struct kbpf_map *array; /* one element: the storage */
};

static inline struct kbpf_cgroup_storage *to_cs(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_cgroup_storage, map);
}

static inline const struct kbpf_cgroup_storage *to_cs_c(const struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, const struct kbpf_cgroup_storage, map);
}

/* The one storage's key names cgroup 0 and attach type 0: its fields are zero (Linux
 * compares the fields, so the padding of a 16-byte key does not count). */
static bool is_storage_key(const struct kbpf_map *map, const void *key)
{
	static const uint8_t zero[STORAGE_KEY_BYTES];

	return key && !memcmp(key, zero, map->key_size == STORAGE_KEY_SIZE ? STORAGE_KEY_BYTES : map->key_size);
}

void *kbpf_map_get_local_storage(struct kbpf_map *map)
{
	static const uint32_t index0;

	if (!map || (map->type != BPF_MAP_TYPE_CGROUP_STORAGE && map->type != BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE))
		return NULL;
	/* the per-CPU array's lookup gives this CPU's copy */
	return to_cs(map)->array->ops->lookup_elem(to_cs(map)->array, &index0);
}

static int cs_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	static const uint32_t index0;

	if (!is_storage_key(map, key))
		return -ENOENT;
	return to_cs(map)->array->ops->sys_lookup(to_cs(map)->array, &index0, value);
}

/* Linux's cgroup_storage_update_elem: only BPF_ANY / BPF_EXIST (and BPF_F_LOCK, which
 * needs a lock kbpf does not keep in these values: -EINVAL). */
static int cs_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	static const uint32_t index0;

	if (flags & ~(uint64_t)BPF_EXIST)
		return -EINVAL;
	if (!is_storage_key(map, key))
		return -ENOENT;
	return to_cs(map)->array->ops->sys_update(to_cs(map)->array, &index0, value, flags);
}

static int cs_sys_delete(struct kbpf_map *map, const void *key)
{
	(void)map, (void)key;
	return -EINVAL;
}

static int cs_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	if (key && is_storage_key(map, key))
		return -ENOENT; /* the last (and only) one */
	if (key)
		return -ENOENT; /* Linux: a key that names no storage */
	memset(next_key, 0, map->key_size);
	return 0;
}

static size_t cs_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	const struct kbpf_map *array = to_cs_c(map)->array;

	return array->ops->mem_regions(array, out, max);
}

static void cs_free(struct kbpf_map *map)
{
	kbpf_map_free(to_cs(map)->array);
	free(to_cs(map));
}

/* Programs reach the storage through bpf_get_local_storage only (Linux's
 * check_map_func_compatibility). */
static const struct kbpf_map_ops cgroup_storage_ops = {
	.sys_lookup = cs_sys_lookup,
	.sys_update = cs_sys_update,
	.sys_delete = cs_sys_delete,
	.get_next_key = cs_get_next_key,
	.mem_regions = cs_mem_regions,
	.free = cs_free,
};

/* Linux's cgroup_storage_map_alloc. */
int kbpf_cgroup_storage_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	bool percpu = attr->type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
	uint32_t max_value = percpu ? KBPF_PCPU_MIN_UNIT_SIZE : STORAGE_MAX_VALUE;

	if (attr->key_size != STORAGE_KEY_SIZE && attr->key_size != sizeof(uint64_t))
		return -EINVAL;
	if (!attr->value_size)
		return -EINVAL;
	if (attr->value_size > max_value)
		return -E2BIG;
	/* LOCAL_STORAGE_CREATE_FLAG_MASK: BPF_F_NUMA_NODE and the access flags */
	if ((attr->map_flags & ~(uint32_t)(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG |
					     BPF_F_WRONLY_PROG)) ||
	    !kbpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (attr->max_entries) /* not used, and Linux enforces 0 */
		return -EINVAL;

	struct kbpf_cgroup_storage *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = percpu ? BPF_MAP_TYPE_PERCPU_ARRAY : BPF_MAP_TYPE_ARRAY,
				    .key_size = 4, .value_size = attr->value_size, .max_entries = 1,
				    .map_flags = attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) };
	int err = kbpf_map_create(&def, &cs->array);
	if (err) {
		free(cs);
		return err;
	}
	kbpf_map_init_from_attr(&cs->map, attr);
	cs->map.ops = &cgroup_storage_ops;
	/* the host's lookup and update copy the inner array's values: per CPU for the
	 * per-CPU type, each rounded up to 8 bytes */
	cs->map.host_value_size = cs->array->host_value_size;
	*out = &cs->map;
	return 0;
}
