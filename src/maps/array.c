/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_ARRAY and BPF_MAP_TYPE_PERCPU_ARRAY: max_entries preallocated,
 * zero-initialised values indexed by a u32 key.  Elements always exist, so nothing is
 * ever allocated or freed after create and no lock is needed: values are updated in
 * place (a reader may see a torn value, as in Linux). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "maps/map_internal.h"
#include "maps/map_rdonly.h"

#define ARRAY_CREATE_FLAG_MASK \
	(BPF_F_NUMA_NODE | BPF_F_MMAPABLE | KBPF_MAP_ACCESS_MASK | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP)

/* Keep each CPU's values on cache lines of their own: per-CPU values exist to avoid
 * sharing between CPUs, false sharing included. */
#define ARRAY_ALIGN 64

struct kbpf_array {
	struct kbpf_map map;
	uint32_t elem_size; /* round_up(value_size, 8): values stay 8-byte aligned */
	unsigned nr_cpus;   /* per-CPU: slots; otherwise 1 */
	size_t cpu_stride;  /* bytes from one CPU's values to the next CPU's */
	void *mem;          /* the allocation; values is mem aligned up */
	char *values;
	/* a BPF_F_RDONLY_PROG ARRAY: values is a mapping of its own, map_len bytes (whole
	 * pages), which kbpf_map_freeze makes read-only (array_seal); 0: mem is calloc's */
	size_t map_len;
};

static inline struct kbpf_array *to_array(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct kbpf_array, map);
}

static inline char *elem_ptr(const struct kbpf_array *array, uint32_t index, unsigned cpu)
{
	return array->values + array->cpu_stride * cpu + (size_t)array->elem_size * index;
}

int kbpf_array_map_alloc_check(const struct kbpf_map_attr *attr)
{
	int percpu = attr->type == BPF_MAP_TYPE_PERCPU_ARRAY;

	/* kbpf has no NUMA node attribute: BPF_F_NUMA_NODE stands for "a node was given",
	 * which Linux refuses for per-CPU arrays */
	if (attr->max_entries == 0 || attr->key_size != 4 || attr->value_size == 0 ||
	    (attr->map_flags & ~ARRAY_CREATE_FLAG_MASK) || !kbpf_map_flags_access_ok(attr->map_flags) ||
	    (percpu && (attr->map_flags & BPF_F_NUMA_NODE)))
		return -EINVAL;
	if (attr->type != BPF_MAP_TYPE_ARRAY && (attr->map_flags & (BPF_F_MMAPABLE | BPF_F_INNER_MAP)))
		return -EINVAL;
	if (attr->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY && (attr->map_flags & BPF_F_PRESERVE_ELEMS))
		return -EINVAL;
	if (attr->value_size > INT_MAX)
		return -E2BIG;
	if (percpu && KBPF_ROUND_UP((uint64_t)attr->value_size, 8) > KBPF_PCPU_MIN_UNIT_SIZE)
		return -E2BIG;
	return 0;
}

int kbpf_fd_array_map_alloc_check(const struct kbpf_map_attr *attr)
{
	if (attr->value_size != sizeof(uint32_t))
		return -EINVAL;
	if (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	return kbpf_array_map_alloc_check(attr);
}

/* --- program side ---------------------------------------------------------------- */

static void *array_lookup_elem(struct kbpf_map *map, const void *key)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);

	if (__builtin_expect(index >= map->max_entries, 0))
		return NULL;
	return elem_ptr(array, index, 0);
}

static void *percpu_array_lookup_elem(struct kbpf_map *map, const void *key)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);

	if (__builtin_expect(index >= map->max_entries, 0))
		return NULL;
	return elem_ptr(array, index, kbpf_cpu_id());
}

static void *percpu_array_lookup_percpu_elem(struct kbpf_map *map, const void *key, uint32_t cpu)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);

	if (cpu >= array->nr_cpus || index >= map->max_entries)
		return NULL;
	return elem_ptr(array, index, cpu);
}

/* Linux's array_map_update_elem, for both array types (per-CPU: this CPU's slot). */
static long array_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);
	unsigned cpu = 0;

	if ((flags & ~(uint64_t)BPF_F_LOCK) > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG; /* every element exists: there is nothing to insert */
	if (flags & BPF_NOEXIST)
		return -EEXIST;
	if ((flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		return -EINVAL;
	if (map->type == BPF_MAP_TYPE_PERCPU_ARRAY)
		cpu = kbpf_cpu_id();
	char *elem = elem_ptr(array, index, cpu);
	if (flags & BPF_F_LOCK)
		kbpf_map_value_copy_locked(map, elem, value, false);
	else
		kbpf_map_value_copy(map, elem, value);
	/* Linux's check_and_free_fields: the new value holds no kptr, the old ones go */
	if (kbpf_map_has_free_fields(map)) /* 6.1 check_and_free_fields: timer and kptrs */
		kbpf_map_value_free_fields(map, elem, true);
	return 0;
}

static long array_delete_elem(struct kbpf_map *map, const void *key)
{
	(void)map;
	(void)key;
	return -EINVAL;
}

/* --- host side ------------------------------------------------------------------- */

static int array_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	void *elem = array_lookup_elem(map, key);

	if (!elem)
		return -ENOENT;
	kbpf_map_value_copy(map, value, elem);
	return 0;
}

static int array_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return (int)array_update_elem(map, key, value, flags);
}

static int array_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)array_delete_elem(map, key);
}

/* All CPUs' values, each rounded up to 8 bytes (the pad is always zero: values are
 * zero-initialised and only value_size bytes are ever written by programs). */
static int percpu_array_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);

	if (index >= map->max_entries)
		return -ENOENT;
	for (unsigned cpu = 0; cpu < array->nr_cpus; cpu++) {
		char *out = (char *)value + (size_t)array->elem_size * cpu;
		kbpf_map_copy_value(out, elem_ptr(array, index, cpu), array->elem_size);
		if (map->nr_fields) /* Linux's check_and_init_map_value: the host sees no kptr */
			kbpf_map_value_init_fields(map, out);
	}
	return 0;
}

/* Linux's bpf_percpu_array_update: flags are BPF_ANY/BPF_EXIST only, all CPUs set. */
static int percpu_array_sys_update(struct kbpf_map *map, const void *key, const void *value,
				   uint64_t flags)
{
	struct kbpf_array *array = to_array(map);
	uint32_t index = kbpf_map_key_index(key);

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	for (unsigned cpu = 0; cpu < array->nr_cpus; cpu++) {
		char *elem = elem_ptr(array, index, cpu);
		const char *in = (const char *)value + (size_t)array->elem_size * cpu;
		if (!map->nr_fields) {
			kbpf_map_copy_value(elem, in, array->elem_size);
			continue;
		}
		/* Linux's copy_map_value_long: around the kptrs, then the old ones go */
		kbpf_map_value_copy(map, elem, in);
		kbpf_map_value_free_kptrs(map, elem);
	}
	return 0;
}

uint32_t kbpf_array_index_of(struct kbpf_map *map, const void *value)
{
	struct kbpf_array *array = to_array(map);

	return (uint32_t)(((const char *)value - array->values) / array->elem_size);
}

int kbpf_array_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	uint32_t index = key ? kbpf_map_key_index(key) : UINT32_MAX;
	uint32_t next;

	if (index >= map->max_entries) {
		next = 0;
	} else {
		if (index == map->max_entries - 1)
			return -ENOENT;
		next = index + 1;
	}
	memcpy(next_key, &next, sizeof(next));
	return 0;
}

static size_t array_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	const struct kbpf_array *array = KBPF_CONTAINER_OF(map, const struct kbpf_array, map);
	size_t size = array->cpu_stride * (array->nr_cpus - 1) + (size_t)array->elem_size * map->max_entries;

	return kbpf_map_one_region(map, array->values, size, out, max);
}

static void array_free(struct kbpf_map *map)
{
	struct kbpf_array *array = to_array(map);

	/* Linux's array_map_free: every CPU's slot of every element gives up its kptrs */
	for (uint32_t i = 0; map->nr_kptrs && i < map->max_entries; i++)
		for (unsigned cpu = 0; cpu < array->nr_cpus; cpu++)
			kbpf_map_value_free_kptrs(map, elem_ptr(array, i, cpu));

	if (array->map_len)
		munmap(array->values, array->map_len);
	else
		free(array->mem);
	free(array);
}

/* Frozen, with no host write in flight (kbpf_map_freeze): a BPF_F_RDONLY_PROG array's
 * values become read-only for everyone, for good. Programs may not write them (the
 * verifier), the host side refuses (-EPERM) and a host's own pointer into them faults, so
 * the verifier may take what it reads there as constants (Linux's bpf_map_is_rdonly). */
static int array_seal(struct kbpf_map *map)
{
	struct kbpf_array *array = to_array(map);

	if (!array->map_len)
		return 0;
	if (mprotect(array->values, array->map_len, PROT_READ))
		return -errno;
	__atomic_store_n(&map->sealed, 1, __ATOMIC_RELEASE);
	return 0;
}

static const struct kbpf_map_ops array_ops = {
	.lookup_elem = array_lookup_elem,
	.update_elem = array_update_elem,
	.delete_elem = array_delete_elem,
	.sys_lookup = array_sys_lookup,
	.sys_update = array_sys_update,
	.sys_delete = array_sys_delete,
	.get_next_key = kbpf_array_get_next_key,
	.mem_regions = array_mem_regions,
	.seal = array_seal,
	.free = array_free,
};

static const struct kbpf_map_ops percpu_array_ops = {
	.lookup_elem = percpu_array_lookup_elem,
	.lookup_percpu_elem = percpu_array_lookup_percpu_elem,
	.update_elem = array_update_elem,
	.delete_elem = array_delete_elem,
	.sys_lookup = percpu_array_sys_lookup,
	.sys_update = percpu_array_sys_update,
	.sys_delete = array_sys_delete,
	.get_next_key = kbpf_array_get_next_key,
	.mem_regions = array_mem_regions,
	.free = array_free,
};

int kbpf_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	int percpu = attr->type == BPF_MAP_TYPE_PERCPU_ARRAY;
	struct kbpf_array *array;
	size_t per_cpu_bytes, total;
	int err;

	err = kbpf_array_map_alloc_check(attr);
	if (err)
		return err;

	array = calloc(1, sizeof(*array));
	if (!array)
		return -ENOMEM;
	kbpf_map_init_from_attr(&array->map, attr);
	array->map.ops = percpu ? &percpu_array_ops : &array_ops;
	array->elem_size = KBPF_ROUND_UP(attr->value_size, 8);
	array->nr_cpus = percpu ? kbpf_nr_cpus() : 1;

	if (__builtin_mul_overflow((size_t)attr->max_entries, (size_t)array->elem_size, &per_cpu_bytes) ||
	    per_cpu_bytes > SIZE_MAX - ARRAY_ALIGN)
		goto nomem;
	array->cpu_stride = percpu ? KBPF_ROUND_UP(per_cpu_bytes, ARRAY_ALIGN) : 0;
	if (percpu) {
		if (__builtin_mul_overflow(array->cpu_stride, (size_t)array->nr_cpus, &total))
			goto nomem;
		array->map.host_value_size = (size_t)array->elem_size * array->nr_cpus;
	} else {
		total = per_cpu_bytes;
	}
	if (total > SIZE_MAX - ARRAY_ALIGN)
		goto nomem;
	if (attr->type == BPF_MAP_TYPE_ARRAY && (attr->map_flags & BPF_F_RDONLY_PROG)) {
		/* pages of its own, zeroed, so that freezing can write-protect them alone */
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		if (total > SIZE_MAX - page)
			goto nomem;
		array->map_len = KBPF_ROUND_UP(total, page);
		void *p = mmap(NULL, array->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			goto nomem;
		array->values = p;
		*out = &array->map;
		return 0;
	}
	/* calloc: zero-initialised values, and large sizes come as untouched zero pages */
	array->mem = calloc(1, total + ARRAY_ALIGN);
	if (!array->mem)
		goto nomem;
	array->values = (char *)KBPF_ROUND_UP((uintptr_t)array->mem, ARRAY_ALIGN);
	*out = &array->map;
	return 0;

nomem:
	free(array);
	return -ENOMEM;
}

int kbpf_map_direct_value_addr(struct kbpf_map *map, uint32_t off, void **addr)
{
	if (!map || !addr)
		return -EINVAL;
	if (map->type != BPF_MAP_TYPE_ARRAY || map->max_entries != 1)
		return -EOPNOTSUPP;
	if (off >= map->value_size)
		return -EINVAL;
	*addr = to_array(map)->values + off;
	return 0;
}

int kbpf_map_direct_read(struct kbpf_map *map, uint32_t off, int size, bool sx, uint64_t *val)
{
	void *addr;
	int err = kbpf_map_direct_value_addr(map, off, &addr);

	if (err)
		return err;
	switch (size) {
	case 1: {
		uint8_t v;
		memcpy(&v, addr, 1);
		*val = sx ? (uint64_t)(int64_t)(int8_t)v : v;
		return 0;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, addr, 2);
		*val = sx ? (uint64_t)(int64_t)(int16_t)v : v;
		return 0;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, addr, 4);
		*val = sx ? (uint64_t)(int64_t)(int32_t)v : v;
		return 0;
	}
	case 8:
		memcpy(val, addr, 8);
		return 0;
	default:
		return -EINVAL;
	}
}
