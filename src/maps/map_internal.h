/* SPDX-License-Identifier: Apache-2.0 */
/* What every map type shares: struct kbpf_map (embedded first in each type's own
 * struct), its operations table, and the per-type constructors map.c dispatches to. */
#ifndef KBPF_MAP_INTERNAL_H
#define KBPF_MAP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <kbpf/map.h>
#include <kbpf/prog.h> /* struct kbpf_mem_region */

#define KBPF_ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define KBPF_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* Linux's limits that decide -E2BIG at create time. */
#define KBPF_PCPU_MIN_UNIT_SIZE (32u << 10) /* largest per-CPU value */
#define KBPF_KMALLOC_MAX_SIZE (1ull << 22)  /* largest hash element (x86-64) */

/* Host-side access flags (BPF_F_RDONLY/WRONLY apply to the syscall side). */
#define KBPF_MAP_ACCESS_MASK (BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)

struct kbpf_map;

/* Operations of one map type.  NULL entries mean "not supported by this type":
 * program-side lookups give NULL, the rest -EOPNOTSUPP. */
struct kbpf_map_ops {
	/* program side (helpers) */
	void *(*lookup_elem)(struct kbpf_map *map, const void *key);
	void *(*lookup_percpu_elem)(struct kbpf_map *map, const void *key, uint32_t cpu);
	long (*update_elem)(struct kbpf_map *map, const void *key, const void *value, uint64_t flags);
	long (*delete_elem)(struct kbpf_map *map, const void *key);
	/* host side (syscall semantics: copies, all CPUs' values) */
	int (*sys_lookup)(struct kbpf_map *map, const void *key, void *value);
	int (*sys_update)(struct kbpf_map *map, const void *key, const void *value, uint64_t flags);
	int (*sys_delete)(struct kbpf_map *map, const void *key);
	int (*get_next_key)(struct kbpf_map *map, const void *key, void *next_key);
	/* the storage programs reach (kbpf_map_mem_regions): at most max written, the
	 * number the map has returned; NULL: none */
	size_t (*mem_regions)(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max);
	/* keyless maps (QUEUE, STACK, BLOOM_FILTER): both sides, value_size bytes copied */
	long (*push_elem)(struct kbpf_map *map, const void *value, uint64_t flags);
	long (*pop_elem)(struct kbpf_map *map, void *value);
	long (*peek_elem)(struct kbpf_map *map, void *value);
	/* kbpf_map_freeze, once the host's writes in flight are done: write-protect the
	 * value memory if the type does (ARRAY with BPF_F_RDONLY_PROG, array.c), setting
	 * map->sealed. 0 or a negative errno; NULL: nothing to do */
	int (*seal)(struct kbpf_map *map);
	/* free everything but the common part (name, which map.c owns) */
	void (*free)(struct kbpf_map *map);
};

struct kbpf_map {
	const struct kbpf_map_ops *ops;
	uint32_t type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
	int frozen; /* accessed with __atomic builtins */
	/* host-side writes in flight (kbpf_map_update, _delete, _lookup_and_delete), which
	 * kbpf_map_freeze waits for (Linux's writecnt); __atomic, sequentially consistent */
	uint32_t writers;
	/* the value memory is write-protected (PROT_READ) for good: set once by ops->seal,
	 * __atomic (release / acquire) */
	int sealed;
	/* this map is an outer map's template (Linux's inner_map_meta): a program's pointer
	 * typed by it may point into any matching inner map. Set once, __atomic */
	int is_template;
	char *name;
	/* host-side value buffer size, see kbpf_map_host_value_size */
	size_t host_value_size;
	/* BTF-described special fields of the value (map_btf.c): an offset, or a negative
	 * errno as kbpf_map_spin_lock_off returns; nr_fields: how many are >= 0 */
	bool has_btf;
	int32_t spin_lock_off, timer_off;
	/* the engine this map's timers run on (src/maps/timer.c), a reference; NULL until a
	 * program of some host binds it */
	struct kbpf_timers *_Atomic timer_engine;
	int nr_fields; /* spin lock, timer and kptrs */
	/* kptr fields (map_btf.c), sorted by offset, and the host their types are of */
	int nr_kptrs;
	struct kbpf_map_kptr kptrs[KBPF_MAP_KPTR_MAX];
	const struct kbpf_host *kptr_host;
	/* references (kbpf_map_ref / kbpf_map_free; an outer map holds its inner maps):
	 * __atomic builtins; the map is freed when the count drops to 0 */
	uint32_t refcnt;
	/* ARRAY_OF_MAPS / HASH_OF_MAPS: the template inner map (a reference), what the
	 * verifier types a lookup's result with (Linux's inner_map_meta); else NULL */
	struct kbpf_map *inner_meta;
	/* PROG_ARRAY: the program type (and attach_btf_id) of its verified programs, those
	 * in its slots and those tail-calling through it; NULL until the first
	 * (kbpf_prog_array_owner_check) */
	const void *tail_owner;
	uint32_t tail_owner_attach;
	/* PROG_ARRAY: the verified programs calling through it (until kbpf_prog_free), whose
	 * context needs (kbpf_prog_array_view) no program in its slots may exceed */
	const struct kbpf_prog_array_view **tail_callers;
	uint32_t nr_tail_callers, cap_tail_callers;
};

/* The checked, normalised creation request. */
struct kbpf_map_attr {
	uint32_t type, key_size, value_size, max_entries, map_flags;
	uint64_t map_extra;
};

/* Fill the common part from attr (name is set by map.c). */
void kbpf_map_init_from_attr(struct kbpf_map *map, const struct kbpf_map_attr *attr);

/* The index an array-like map's 4-byte key names (a key on a program's stack may be
 * unaligned). */
static inline uint32_t kbpf_map_key_index(const void *key)
{
	uint32_t index;

	memcpy(&index, key, sizeof(index));
	return index;
}

/* Linux's array_map_get_next_key, for every map indexed 0 .. max_entries - 1 (arrays,
 * prog arrays, arrays of maps): a missing or out-of-range key restarts at 0 (array.c). */
int kbpf_array_get_next_key(struct kbpf_map *map, const void *key, void *next_key);
/* The index of an ARRAY map's value (a timer callback's key). */
uint32_t kbpf_array_index_of(struct kbpf_map *map, const void *value);

/* --- BTF-described values (map_btf.c) --------------------------------------------- */

/* Linux's map_check_btf: check the key and value types against the map and record
 * where the value's bpf_spin_lock and bpf_timer are. 0 or a negative errno. */
int kbpf_map_check_btf(struct kbpf_map *map, const struct btf *btf, uint32_t key_id, uint32_t value_id,
		       const struct kbpf_host *host, char *log_buf, size_t log_size);
/* Linux's copy_map_value: value_size bytes, all but the special fields. */
void kbpf_map_value_copy(const struct kbpf_map *map, void *dst, const void *src);
/* Linux's copy_map_value_locked: the same, holding the bpf_spin_lock of src (lock_src)
 * or of dst. The map must have a spin lock. */
void kbpf_map_value_copy_locked(const struct kbpf_map *map, void *dst, const void *src, bool lock_src);
/* Linux's check_and_init_map_value: zero the special fields of a value (a new element,
 * or a copy handed to the host). */
void kbpf_map_value_init_fields(const struct kbpf_map *map, void *value);
/* Linux's bpf_map_free_kptrs on an element's value (an update replaced it, a delete or
 * the map's end dropped it): each referenced kptr still held is taken out atomically and
 * given to its destructor, each unreferenced one cleared. No-op without kptrs. */
void kbpf_map_value_free_kptrs(const struct kbpf_map *map, void *value);
/* What an update, a delete or an LRU eviction gives up of the value it replaces: its
 * timer (cancelled and freed, Linux's bpf_timer_cancel_and_free) and its kptrs. */
void kbpf_map_value_free_fields(struct kbpf_map *map, void *value, bool timer);
static inline bool kbpf_map_has_free_fields(const struct kbpf_map *map)
{
	return map->nr_kptrs || map->timer_off >= 0;
}

/* Per-type constructors: check attr as Linux's map_alloc_check/map_alloc do, then
 * allocate.  Return 0 and *out, or a negative errno. */
int kbpf_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_prog_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
/* Linux's bpf_prog_map_compatible: a tail call hands the callee its caller's context, so
 * every verified program in a PROG_ARRAY or calling through it must be of one program
 * type (type: its struct kbpf_prog_type) and, for a BTF-typed context, one attach_btf_id;
 * the first sets them. kbpf's addition: where the host sizes the context for the program
 * it runs (a syscall program's max_ctx_offset, raw_tracepoint.w's max_tp_access), no
 * program in the array may need more than a program calling through it (caller: prog
 * is one, created now; else it is being stored). Unverified programs (type NULL) are the
 * host's and not checked. 0, or -EINVAL. */
struct kbpf_prog_array_view;
int kbpf_prog_array_owner_check(struct kbpf_map *map, const struct kbpf_prog_array_view *prog, bool caller);
/* A caller of kbpf_prog_array_owner_check goes (kbpf_prog_free): its need no longer bounds
 * what map may hold. */
void kbpf_prog_array_caller_drop(struct kbpf_map *map, const struct kbpf_prog_array_view *prog);
int kbpf_htab_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_ringbuf_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_sk_storage_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_perf_event_array_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_stack_trace_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_cgroup_storage_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_lpm_trie_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
/* QUEUE and STACK (queue_stack.c). */
int kbpf_queue_stack_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
int kbpf_bloom_filter_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
/* SOCKMAP, SOCKHASH, XSKMAP, REUSEPORT_SOCKARRAY (sock_map.c). */
int kbpf_sock_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out);
/* ARRAY_OF_MAPS / HASH_OF_MAPS (map_of_maps.c): inner is the template (not yet
 * referenced: on success the outer map has taken a reference). */
int kbpf_map_of_maps_alloc(const struct kbpf_map_attr *attr, struct kbpf_map *inner, struct kbpf_map **out);

/* Fill out[0] (if max > 0) with [base, base + size) under the map's name and program
 * access flags; returns 1. */
size_t kbpf_map_one_region(const struct kbpf_map *map, void *base, size_t size, struct kbpf_mem_region *out,
			   size_t max);

/* Linux's array_map_alloc_check, shared by ARRAY, PERCPU_ARRAY and PROG_ARRAY. */
int kbpf_array_map_alloc_check(const struct kbpf_map_attr *attr);
/* Linux's fd_array_map_alloc_check for the arrays whose slots hold objects (PROG_ARRAY,
 * PERF_EVENT_ARRAY, ARRAY_OF_MAPS): u32 values, no program access flags, then the array
 * rules. */
int kbpf_fd_array_map_alloc_check(const struct kbpf_map_attr *attr);

/* BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG together make no sense (Linux's
 * bpf_map_flags_access_ok). */
static inline bool kbpf_map_flags_access_ok(uint32_t flags)
{
	return (flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) !=
	       (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
}

/* One 8-byte chunk (len bytes) of a value copy: an aligned word as one relaxed atomic,
 * anything else byte by byte (relaxed atomics too). */
static inline void kbpf_map_copy_chunk(char *d, const char *s, size_t len)
{
	if (len == 8 && !(((uintptr_t)d | (uintptr_t)s) & 7)) {
		__atomic_store_n((uint64_t *)d, __atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		return;
	}
	char w[8];
	for (size_t j = 0; j < len; j++)
		w[j] = __atomic_load_n(s + j, __ATOMIC_RELAXED);
	for (size_t j = 0; j < len; j++)
		__atomic_store_n(d + j, w[j], __ATOMIC_RELAXED);
}

/* Copy a value into or out of a map.  Programs may be changing or reading the map side
 * at the same time with BPF_ATOMIC operations (counters a host polls, say), so the copy
 * is made of relaxed atomic accesses, word by word: as in Linux (copy_map_value) a
 * concurrent copy may be torn between words, but it is not a C data race (nor a TSan
 * report).  The two may overlap (a program may pass a pointer into the very element it
 * updates): then the copy runs in memmove's direction, each chunk read before written. */
static inline void kbpf_map_copy_value(void *dst, const void *src, size_t size)
{
	char *d = dst;
	const char *s = src;

	if (d == s)
		return;
	if (d > s && d < s + size) {
		for (size_t i = size; i > 0;) {
			size_t len = i % 8 ? i % 8 : 8;
			i -= len;
			kbpf_map_copy_chunk(d + i, s + i, len);
		}
		return;
	}
	for (size_t i = 0; i < size; i += 8)
		kbpf_map_copy_chunk(d + i, s + i, size - i < 8 ? size - i : 8);
}

/* Zero bytes of a map value programs may be touching (see kbpf_map_copy_value). */
static inline void kbpf_map_zero_value(void *dst, size_t size)
{
	static const uint64_t zero;

	for (size_t i = 0; i < size; i += 8)
		kbpf_map_copy_chunk((char *)dst + i, (const char *)&zero, size - i < 8 ? size - i : 8);
}

#endif /* KBPF_MAP_INTERNAL_H */
