/* SPDX-License-Identifier: Apache-2.0 */
/* BPF maps: Linux's map types, by their Linux numbers (enum bpf_map_type of
 * <linux/bpf.h>), with Linux's flag rules, errnos and value layouts.
 *
 * Two faces, as in Linux:
 *  - the host side (kbpf_map_lookup/update/delete/get_next_key) has the semantics of
 *    the bpf(2) syscall: keys and values are copied in and out; a per-CPU map takes
 *    and returns every CPU's value, each rounded up to 8 bytes;
 *  - the program side (kbpf_map_lookup_elem … kbpf_ringbuf_*) is what the helpers
 *    bpf_map_lookup_elem & co. call: lookups return a pointer into the map (this
 *    CPU's slot for per-CPU maps) that stays valid memory for the map's lifetime.
 *
 * Every function may be called concurrently from any number of threads on the same
 * map, except kbpf_map_free.  See docs/maps.md for each type and where kbpf differs
 * from Linux.
 *
 * Ownership: kbpf_map_create's map belongs to the caller; kbpf_map_ref takes another
 * reference and kbpf_map_free drops one (the last frees the map, once no program uses it:
 * programs do not hold references, see kbpf_prog_opts.maps). Keys and values passed to
 * the host side are copied; pointers the program side returns point into the map. */
#ifndef KBPF_MAP_H
#define KBPF_MAP_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h> /* enum bpf_map_type, BPF_ANY/BPF_NOEXIST/BPF_EXIST, BPF_F_*, BPF_RB_* */

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_map;
struct btf; /* libbpf's */
struct kbpf_host;

/* What to create; the fields of Linux's BPF_MAP_CREATE that matter here. */
struct kbpf_map_def {
	size_t sz;            /* sizeof(struct kbpf_map_def) */
	uint32_t type;        /* enum bpf_map_type */
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries; /* RINGBUF: the data size in bytes */
	uint32_t map_flags;   /* BPF_F_* */
	const char *name;     /* copied; NULL: "" */
	/* BTF of the key and value (Linux's btf_fd, btf_key_type_id, btf_value_type_id;
	 * what libbpf passes for a map declared with __type()).  Checked as Linux's
	 * map_check_btf: the types' sizes must be key_size/value_size, an array's key a
	 * 32-bit int (or none, for a one-element global-data array whose value is a
	 * DATASEC).  kbpf reads from it where the value's special fields are (one struct
	 * bpf_spin_lock, one struct bpf_timer, up to 8 kptrs) and keeps no reference to btf.
	 * NULL / 0: a map without BTF. */
	const struct btf *btf;
	uint32_t btf_key_type_id;
	uint32_t btf_value_type_id;
	/* BPF_MAP_TYPE_ARRAY_OF_MAPS / HASH_OF_MAPS (Linux's inner_map_fd): the template
	 * every inner map must match, as Linux's bpf_map_meta_equal (type, key_size,
	 * value_size, map_flags, bpf_spin_lock/bpf_timer offsets, and an ARRAY's
	 * max_entries unless the template has BPF_F_INNER_MAP).  The outer map keeps a
	 * reference to it (the caller may kbpf_map_free its own).  It may not be an outer
	 * map itself (-EINVAL), nor a PROG_ARRAY or a value with a bpf_spin_lock or a
	 * bpf_timer (-EOPNOTSUPP).  Outer maps have value_size 4, as in Linux.  Must be
	 * NULL for every other type (-EINVAL). */
	struct kbpf_map *inner_map;
	/* The host whose BTF types the value's kptr fields (`struct T __kptr_untrusted *` and
	 * `struct T __kptr *`, Linux 6.12's btf type tags "kptr_untrusted" (unreferenced) and
	 * "kptr" (referenced); 6.1's "kptr_ref" fails the creation, -EINVAL; Linux resolves T
	 * in vmlinux BTF). Needed only for a value with such fields: T must be a struct of the
	 * host's BTF and, for __kptr, have a destructor (kbpf_host_kptr_dtor_register).
	 * Programs using the map must be of the same host. NULL: no host. */
	const struct kbpf_host *host;
	/* Receives one line saying why a creation with BTF failed (may be NULL). */
	char *log_buf;
	size_t log_size;
	/* Linux's map_extra: BLOOM_FILTER's number of hash functions (0..15, 0: Linux's
	 * default 5); must be 0 for every other type (-EINVAL). */
	uint64_t map_extra;
};

/* Create a map, checking def as Linux's map_create does.  Returns 0 and *map, or
 * -EINVAL (bad sizes or flags, unknown type number), -E2BIG (sizes Linux refuses as
 * too big), -EOPNOTSUPP (a Linux map type kbpf does not implement, or LRU with
 * BPF_F_NO_PREALLOC, where Linux says ENOTSUPP), -ENOMEM. */
KBPF_API int kbpf_map_create(const struct kbpf_map_def *def, struct kbpf_map **map);
/* Drop the caller's reference to a map (kbpf_map_create gives one); the map is freed
 * with the last one.  An outer map holds a reference to its template and to each
 * inner map it has held, so an inner map outlives the host's kbpf_map_free while an
 * outer map may still hand it to a program.  When the last reference goes, nothing
 * may use the map any more (programs, other threads).  NULL is allowed. */
KBPF_API void kbpf_map_free(struct kbpf_map *map);
/* Take one more reference to map (released by kbpf_map_free). Returns map. */
KBPF_API struct kbpf_map *kbpf_map_ref(struct kbpf_map *map);

KBPF_API uint32_t kbpf_map_type(const struct kbpf_map *map);
KBPF_API uint32_t kbpf_map_key_size(const struct kbpf_map *map);
KBPF_API uint32_t kbpf_map_value_size(const struct kbpf_map *map);
KBPF_API uint32_t kbpf_map_max_entries(const struct kbpf_map *map);
KBPF_API uint32_t kbpf_map_flags(const struct kbpf_map *map);
KBPF_API const char *kbpf_map_name(const struct kbpf_map *map);
/* Bytes of the value buffer the host-side calls read or write: value_size, or
 * kbpf_nr_cpus() * round_up(value_size, 8) for per-CPU maps, or sizeof(void *) for
 * PROG_ARRAY (whose host-side values are program pointers) and the socket maps (socket
 * pointers), 0 for RINGBUF. */
KBPF_API size_t kbpf_map_host_value_size(const struct kbpf_map *map);

/* The template inner map of an ARRAY_OF_MAPS / HASH_OF_MAPS (kbpf_map_def.inner_map),
 * NULL for any other map. */
KBPF_API struct kbpf_map *kbpf_map_inner_meta(const struct kbpf_map *map);

/* The map was created with BTF (kbpf_map_def.btf and a value type): 1, else 0. */
KBPF_API int kbpf_map_has_btf(const struct kbpf_map *map);
/* Offset of the value's struct bpf_spin_lock (4 bytes, 4-aligned; Linux's
 * map->spin_lock_off), or -ENOENT (the value has none), -E2BIG (more than one), -EINVAL
 * (no BTF, the value is not a struct, or the lock is misaligned). */
KBPF_API int kbpf_map_spin_lock_off(const struct kbpf_map *map);
/* The same for struct bpf_timer (16 bytes, 8-aligned). */
KBPF_API int kbpf_map_timer_off(const struct kbpf_map *map);

/* kptr fields of the value (Linux's kptr_off_tab): at most KBPF_MAP_KPTR_MAX, sorted by
 * offset. Each is 8 bytes, 8-aligned; programs reach it only as the verifier allows
 * (docs/maps.md), the host side never sees it (lookups give 0, updates leave it alone). */
#define KBPF_MAP_KPTR_MAX 8
struct kbpf_map_kptr {
	uint32_t offset;
	int referenced;            /* __kptr (tag "kptr"): the map holds a reference */
	uint32_t btf_id;           /* the pointee struct, in the host's BTF */
	char type_name[64];        /* its name (for messages and dumps; may be truncated) */
	void (*dtor)(void *);      /* referenced: the type's destructor */
};
/* Number of kptr fields (0: none, or no BTF). */
KBPF_API int kbpf_map_kptr_cnt(const struct kbpf_map *map);
/* The i-th kptr field (by offset), or NULL. */
KBPF_API const struct kbpf_map_kptr *kbpf_map_kptr_get(const struct kbpf_map *map, int i);
/* The kptr field at exactly offset, or NULL. */
KBPF_API const struct kbpf_map_kptr *kbpf_map_kptr_at(const struct kbpf_map *map, uint32_t offset);
/* The host the kptr fields' types belong to (kbpf_map_def.host), or NULL without kptrs. */
KBPF_API const struct kbpf_host *kbpf_map_kptr_host(const struct kbpf_map *map);

/* Take / release a value's struct bpf_spin_lock (lock: its address, 4-byte aligned),
 * what the bpf_spin_lock / bpf_spin_unlock helpers do: the same lock the host side's
 * BPF_F_LOCK copies take, so programs and the host exclude each other. */
KBPF_API void kbpf_map_value_lock(void *lock);
KBPF_API void kbpf_map_value_unlock(void *lock);

/* --- Host side: bpf(2) syscall semantics ------------------------------------------
 * All return 0 or a negative errno.  Common errnos: -EINVAL (NULL map/key/value,
 * unknown flags, BPF_F_LOCK on a map whose value has no bpf_spin_lock), -EPERM (the map was
 * created BPF_F_RDONLY / BPF_F_WRONLY for the host side, or is frozen: no writes),
 * -EOPNOTSUPP (the operation does not exist for this map type, e.g. RINGBUF). */

/* Copy the value of key into value.  -ENOENT: no such key (array: index out of range).
 * A value's bpf_spin_lock and bpf_timer fields read as zeroes (Linux masks them). */
KBPF_API int kbpf_map_lookup(struct kbpf_map *map, const void *key, void *value);
/* kbpf_map_lookup with Linux's BPF_MAP_LOOKUP_ELEM flags: 0, or BPF_F_LOCK (the copy is
 * made holding the value's bpf_spin_lock, as a program's critical section would). */
KBPF_API int kbpf_map_lookup_flags(struct kbpf_map *map, const void *key, void *value, uint64_t flags);
/* Create or replace key's value.  flags: BPF_ANY, BPF_NOEXIST (-EEXIST if present;
 * always for arrays), BPF_EXIST (-ENOENT if absent).  -E2BIG: hash map full, or array
 * index out of range.  LRU maps evict instead of failing when full.
 * PROG_ARRAY: value points to a `struct kbpf_prog *` (a pointer-sized buffer), flags
 * must be BPF_ANY; the program must outlive its slot (kbpf takes no reference).
 * A value's bpf_spin_lock and bpf_timer fields are never overwritten (Linux's
 * copy_map_value); with BPF_F_LOCK (or-ed into flags) an existing value is written
 * holding its bpf_spin_lock. */
KBPF_API int kbpf_map_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags);
/* --- Maps of maps (ARRAY_OF_MAPS, HASH_OF_MAPS) -------------------------------------
 * Linux stores map fds; kbpf has no fds, so the host side's value buffer is a
 * `struct kbpf_map *` (kbpf_map_host_value_size is sizeof(void *)), as PROG_ARRAY's is a
 * program pointer: kbpf_map_update(outer, key, &inner, flags) and kbpf_map_lookup(outer,
 * key, &inner) work, and these two say it with types.  Programs may only look up (the
 * verifier refuses the other helpers, as Linux): bpf_map_lookup_elem returns the inner
 * map itself, to be passed to further map helpers. */

/* Store inner at key.  inner must match the template (kbpf_map_def.inner_map) or
 * -EINVAL.  flags: ARRAY_OF_MAPS BPF_ANY only (-EINVAL), -E2BIG index out of range;
 * HASH_OF_MAPS BPF_ANY / BPF_NOEXIST (-EEXIST) / BPF_EXIST (-ENOENT), -E2BIG when full.
 * The outer map takes a reference to inner and keeps it until the outer map is freed,
 * even after the slot is replaced or deleted: kbpf cannot know when a program that
 * read the old slot is done with it (Linux waits for an RCU grace period). */
KBPF_API int kbpf_map_update_inner(struct kbpf_map *outer, const void *key, struct kbpf_map *inner, uint64_t flags);
/* The inner map at key, in *inner (no new reference: valid while the outer map is).
 * -ENOENT: empty slot or absent key. */
KBPF_API int kbpf_map_lookup_inner(struct kbpf_map *outer, const void *key, struct kbpf_map **inner);

/* --- Socket maps (SOCKMAP, SOCKHASH, XSKMAP, REUSEPORT_SOCKARRAY; src/maps/sock_map.c) ---
 * Linux's update takes a socket fd and its lookup gives a socket cookie; kbpf has no fds:
 * a slot holds a host's socket object, and the host side's value buffer is that pointer
 * (kbpf_map_host_value_size is sizeof(void *)): kbpf_map_update(map, key, &sock, flags),
 * kbpf_map_lookup(map, key, &sock). The maps keep Linux's value_size (4 or 8; XSKMAP 4)
 * and creation rules (SOCKMAP/XSKMAP key_size 4, SOCKHASH any key up to 512 bytes;
 * flags BPF_F_NUMA_NODE, BPF_F_RDONLY, BPF_F_WRONLY; REUSEPORT_SOCKARRAY an array's; no
 * BTF key/value: -EOPNOTSUPP). Update flags BPF_ANY / BPF_NOEXIST (-EEXIST) / BPF_EXIST
 * (-ENOENT), -E2BIG index out of range or SOCKHASH full, -EINVAL a NULL socket. Delete:
 * SOCKMAP -EINVAL out of range or empty, XSKMAP -EINVAL out of range (an empty slot is
 * fine), REUSEPORT_SOCKARRAY -E2BIG / -ENOENT, SOCKHASH -ENOENT, as Linux. The objects
 * are opaque here: programs read them through the layout the host's program types give
 * sockets (hosts/linux: struct kbpf_linux_sock, struct kbpf_linux_xsk, whose
 * kbpf_linux_sock_map_update checks a socket as Linux does before storing it). kbpf takes
 * no reference: the host keeps a socket alive while it is in a slot and while programs
 * that may have looked it up run. A program's bpf_map_lookup_elem returns the socket
 * itself (SOCKMAP/SOCKHASH: a reference the verifier makes it release; XSKMAP: an xdp
 * socket); its bpf_map_update_elem on SOCKMAP/SOCKHASH stores the socket it passes. */

/* --- Keyless maps: QUEUE, STACK, BLOOM_FILTER (src/maps/queue_stack.c, bloom_filter.c) ---
 * key_size is 0: the host-side calls take key NULL (any key is ignored). As Linux's
 * bpf(2): kbpf_map_update pushes value (QUEUE/STACK flags BPF_ANY, or BPF_EXIST: when
 * full, drop the oldest element to make room; BPF_NOEXIST -EINVAL; -E2BIG full.
 * BLOOM_FILTER flags BPF_ANY only: adds value); kbpf_map_lookup peeks (QUEUE: the oldest,
 * STACK: the newest, -ENOENT empty) or, for BLOOM_FILTER, tests value, which is then an
 * input: 0 maybe present, -ENOENT surely absent; kbpf_map_delete and
 * kbpf_map_get_next_key are -EINVAL (QUEUE/STACK) or -EOPNOTSUPP (BLOOM_FILTER). */

/* Linux's BPF_MAP_LOOKUP_AND_DELETE_ELEM: QUEUE/STACK pop the element a lookup would
 * peek into value (key NULL, flags 0 or -EINVAL; -ENOENT empty). Needs both host read
 * and write access (-EPERM). Other map types: -EOPNOTSUPP (Linux also has it for the
 * hash maps; kbpf not yet). */
KBPF_API int kbpf_map_lookup_and_delete(struct kbpf_map *map, const void *key, void *value, uint64_t flags);
/* kbpf_map_update(map, NULL, value, flags) for QUEUE/STACK/BLOOM_FILTER, said plainly. */
KBPF_API int kbpf_map_push(struct kbpf_map *map, const void *value, uint64_t flags);

/* --- LPM_TRIE (src/maps/lpm_trie.c) -----------------------------------------------
 * Keys are Linux's struct bpf_lpm_trie_key: a u32 prefixlen (host order) then
 * key_size - 4 data bytes, most significant bit first (an address in network order).
 * Created with BPF_F_NO_PREALLOC (else -EINVAL), key_size 5..260, value_size >= 1.
 * kbpf_map_lookup and the program-side lookup give the value of the longest stored
 * prefix that contains the key's first prefixlen bits (-ENOENT / NULL: none, or
 * prefixlen beyond the key's bits); kbpf_map_update stores an exact prefix (bits past
 * prefixlen are kept as given, as Linux does, but never compared), -ENOSPC when
 * max_entries prefixes are stored; kbpf_map_delete removes an exact prefix;
 * kbpf_map_get_next_key walks Linux's order: children before their parent (post-order),
 * the smaller bit first; a NULL key, or one not stored, starts at the first. */

/* Delete key. -ENOENT: absent.  Arrays: -EINVAL (their elements cannot be deleted);
 * PROG_ARRAY and ARRAY_OF_MAPS: empties the slot (-E2BIG out of range, -ENOENT already
 * empty). */
KBPF_API int kbpf_map_delete(struct kbpf_map *map, const void *key);
/* The key after key in the map's iteration order, or the first key if key is NULL or
 * (hash maps, as Linux) not in the map.  -ENOENT: no more keys.  Iteration visits every
 * key present throughout exactly once; keys added or removed meanwhile may or may not
 * be seen, as in Linux. */
KBPF_API int kbpf_map_get_next_key(struct kbpf_map *map, const void *key, void *next_key);
/* Make the map read-only for the host side from now on (Linux's BPF_MAP_FREEZE);
 * programs may still write unless the map is BPF_F_RDONLY_PROG.  Waits for host-side
 * writes in flight.  An ARRAY created with BPF_F_RDONLY_PROG becomes immutable for good:
 * its values are write-protected (PROT_READ), every pointer into them (direct value
 * addresses, program-side lookups) stays valid for reading but a write through it faults,
 * and the verifier reads loads from them as constants (docs/maps.md, "Frozen read-only
 * arrays").  -EBUSY if already frozen; -EOPNOTSUPP for values with special fields
 * (bpf_spin_lock, bpf_timer, kptrs: Linux 6.12's map->record); -EPERM for a map
 * created BPF_F_RDONLY (Linux: freezing needs a writable fd); the errno of a
 * failed mprotect (the map then stays unfrozen). */
KBPF_API int kbpf_map_freeze(struct kbpf_map *map);
KBPF_API int kbpf_map_is_frozen(const struct kbpf_map *map);

/* Address of byte off of the value of a one-element ARRAY (the global-data maps
 * .data/.rodata/.bss; what BPF_PSEUDO_MAP_VALUE loads). -EOPNOTSUPP: not an ARRAY or
 * max_entries != 1; -EINVAL: off >= value_size.  Read-only memory once a
 * BPF_F_RDONLY_PROG array (.rodata, .kconfig) is frozen: writing through it faults. */
KBPF_API int kbpf_map_direct_value_addr(struct kbpf_map *map, uint32_t off, void **addr);

/* Bytes at the start of every map object that a privileged program may read through a
 * map pointer, as Linux's struct bpf_map: ops (opaque), map_type, key_size, value_size,
 * max_entries, map_flags. libkbpf's own declaration of struct bpf_map (and bpf_array,
 * bpf_htab, bpf_ringbuf_map, bpf_local_storage_map, each just a struct bpf_map) reaches
 * the BTF of a host built with -g and pahole; the verifier allows no read beyond these
 * bytes whatever the host's BTF says. */
#define KBPF_MAP_PROG_VIEW_SIZE 32

/* --- Storage, for checked-mode runs ------------------------------------------------ */

struct kbpf_mem_region; /* <kbpf/prog.h> */

/* The memory a program can reach through map: what program-side lookups and ringbuf
 * reservations point into (every element's value, every CPU's slot; a ring's data
 * area, which is mapped twice back to back), then, last, the map object's leading
 * fields a privileged program may read through the map pointer as Linux's struct
 * bpf_map (ops, map_type, key_size, value_size, max_entries, map_flags; read-only).
 * Writes up to max regions to out (named after the map; KBPF_MEM_READ unless
 * BPF_F_WRONLY_PROG, KBPF_MEM_WRITE unless BPF_F_RDONLY_PROG) and returns how many the
 * map has (1, the object's fields alone, for PROG_ARRAY).  The regions
 * are fixed for the map's lifetime, but an outer map's (ARRAY_OF_MAPS, HASH_OF_MAPS):
 * those of the inner maps it holds now (and its own fields), which grow as it is given
 * new ones.  A hash map's region spans its whole element pool,
 * element headers included: checked mode guards against stray accesses, it is not a
 * verifier. */
KBPF_API size_t kbpf_map_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max);

/* --- CPUs --------------------------------------------------------------------------
 * kbpf's "CPU" is a per-thread slot: a thread gets one at its first use, round robin
 * over kbpf_nr_cpus() slots (the number of configured CPUs).  Per-CPU map values and
 * bpf_get_smp_processor_id use it.  With more threads than slots, threads share slots
 * (and so per-CPU values: updates from two threads on one slot may race). */
KBPF_API unsigned kbpf_nr_cpus(void);
KBPF_API unsigned kbpf_cpu_id(void);
/* Give the calling thread slot cpu (e.g. one worker thread per slot, for exclusive
 * per-CPU values). -EINVAL if cpu >= kbpf_nr_cpus(). */
KBPF_API int kbpf_cpu_bind(unsigned cpu);

/* --- Program side: for helper implementations -------------------------------------
 * These have the semantics of the Linux helpers of the same name; they trust their
 * arguments' sizes as a verified program's call does (key: key_size bytes, value:
 * value_size bytes). */

/* bpf_map_lookup_elem: pointer to the value in place (this CPU's slot for per-CPU
 * maps), or NULL.  The pointer stays valid memory until kbpf_map_free; after a delete
 * the memory may be reused by another key, as in Linux (read-only memory in a frozen
 * BPF_F_RDONLY_PROG array: see kbpf_map_freeze).  NULL for RINGBUF/PROG_ARRAY.
 * ARRAY_OF_MAPS / HASH_OF_MAPS: the inner map itself (a `struct kbpf_map *`). */
KBPF_API void *kbpf_map_lookup_elem(struct kbpf_map *map, const void *key);
/* bpf_map_lookup_percpu_elem: like lookup_elem for slot cpu of a per-CPU map. */
KBPF_API void *kbpf_map_lookup_percpu_elem(struct kbpf_map *map, const void *key, uint32_t cpu);
/* bpf_map_update_elem: per-CPU maps update this CPU's slot only (a new element's
 * other slots are zeroed).  Errnos as kbpf_map_update; -EPERM for a frozen
 * BPF_F_RDONLY_PROG array (write-protected values). */
KBPF_API long kbpf_map_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags);
/* bpf_map_delete_elem. */
KBPF_API long kbpf_map_delete_elem(struct kbpf_map *map, const void *key);
/* bpf_map_push_elem (QUEUE, STACK, BLOOM_FILTER; flags as kbpf_map_push),
 * bpf_map_pop_elem (QUEUE, STACK) and bpf_map_peek_elem (QUEUE, STACK: copy out,
 * zeroing value when empty; BLOOM_FILTER: test value). 0 or a negative errno as the
 * host-side calls; -EINVAL for other map types (the verifier refuses those calls). */
KBPF_API long kbpf_map_push_elem(struct kbpf_map *map, const void *value, uint64_t flags);
KBPF_API long kbpf_map_pop_elem(struct kbpf_map *map, void *value);
KBPF_API long kbpf_map_peek_elem(struct kbpf_map *map, void *value);

/* bpf_get_local_storage: the storage of a CGROUP_STORAGE map (this CPU's copy for
 * PERCPU_CGROUP_STORAGE), never NULL for one; NULL for any other map. kbpf has no
 * cgroups: the map's one storage, that of cgroup 0 and attach type 0 (docs/maps.md). */
KBPF_API void *kbpf_map_get_local_storage(struct kbpf_map *map);

/* bpf_tail_call's lookup: the program pointer stored at index (opaque to maps:
 * a `struct kbpf_prog *`), or NULL if empty, out of range or map is not a PROG_ARRAY. */
KBPF_API void *kbpf_prog_array_get(const struct kbpf_map *map, uint32_t index);

/* bpf_ringbuf_reserve: size bytes in the ring, 8-byte aligned, or NULL (full, size
 * too big, flags != 0).  Must be followed by submit or discard of that sample. */
KBPF_API void *kbpf_ringbuf_reserve(struct kbpf_map *map, uint64_t size, uint64_t flags);
/* bpf_ringbuf_submit / bpf_ringbuf_discard of a reserved sample (BPF_RB_* wake-up
 * flags are accepted and have no effect: kbpf consumers poll). */
KBPF_API void kbpf_ringbuf_submit(void *sample, uint64_t flags);
KBPF_API void kbpf_ringbuf_discard(void *sample, uint64_t flags);
/* bpf_ringbuf_output: reserve + copy + submit. -EAGAIN when full, -EINVAL bad flags. */
KBPF_API long kbpf_ringbuf_output(struct kbpf_map *map, const void *data, uint64_t size, uint64_t flags);
/* bpf_ringbuf_query: BPF_RB_AVAIL_DATA, BPF_RB_RING_SIZE, BPF_RB_CONS_POS,
 * BPF_RB_PROD_POS; 0 for anything else. */
KBPF_API uint64_t kbpf_ringbuf_query(struct kbpf_map *map, uint64_t flags);

/* --- Local storage (BPF_MAP_TYPE_SK_STORAGE, src/maps/sk_storage.c) ----------------
 * One value per owner (a socket: any object whose address the helpers are given), as
 * Linux's sk local storage. Created with key_size 4, max_entries 0 and BPF_F_NO_PREALLOC.
 * The bpf(2)-style calls above (keyed by a socket fd in Linux) are -EOPNOTSUPP: the host
 * names the owner itself. Values stay valid memory until kbpf_map_free. */
/* bpf_sk_storage_get: the owner's value; if absent and flags is
 * BPF_SK_STORAGE_GET_F_CREATE, a new one initialised from value (zeroes if NULL). NULL:
 * absent, bad flags, not such a map, or out of memory. */
KBPF_API void *kbpf_local_storage_get(struct kbpf_map *map, const void *owner, const void *value, uint64_t flags);
/* bpf_sk_storage_delete, and what the owning host calls when an owner goes away:
 * 0, -ENOENT (no value), -EINVAL. */
KBPF_API long kbpf_local_storage_delete(struct kbpf_map *map, const void *owner);
/* Host side (Linux: bpf_map_update_elem / lookup_elem with the socket's fd as key):
 * flags BPF_ANY, BPF_NOEXIST, BPF_EXIST (or-ed with BPF_F_LOCK); errnos as kbpf_map_update /
 * kbpf_map_lookup. */
KBPF_API int kbpf_local_storage_update(struct kbpf_map *map, const void *owner, const void *value, uint64_t flags);
KBPF_API int kbpf_local_storage_lookup(struct kbpf_map *map, const void *owner, void *value);

/* --- Ring buffer consumer (host side) ----------------------------------------------
 * libbpf's ring_buffer__consume: call cb for each submitted record in order, skipping
 * discarded ones, until the ring is empty or a record is still being written.  A
 * negative return from cb stops consumption (that record counts as consumed) and is
 * returned.  Returns the number of records passed to cb, -EINVAL (not a RINGBUF or
 * NULL cb), or -EBUSY if another thread is consuming this ring (one consumer at a
 * time; cb must not consume the same ring). */
typedef int (*kbpf_ringbuf_sample_fn)(void *ctx, void *data, size_t size);
KBPF_API int kbpf_ringbuf_consume(struct kbpf_map *map, kbpf_ringbuf_sample_fn cb, void *ctx);

/* --- Perf event array (BPF_MAP_TYPE_PERF_EVENT_ARRAY) and perf buffers -------------
 * What bpf_perf_event_output writes to (src/maps/perf_event_array.c, docs/maps.md).
 * Created as Linux creates it: key_size and value_size 4, max_entries > 0 (the loader
 * makes 0 the number of CPUs, as libbpf does), flags: BPF_F_PRESERVE_ELEMS, the host
 * access flags, not BPF_F_RDONLY_PROG/WRONLY_PROG.  A slot holds a perf buffer's ring
 * instead of Linux's perf event fd: kbpf_map_lookup and kbpf_map_update are
 * -EOPNOTSUPP, kbpf_map_delete empties a slot (later samples for it: -ENOENT),
 * kbpf_map_get_next_key walks the indexes.  Programs may only pass the map to
 * bpf_perf_event_output (the verifier refuses lookups, as Linux). */

/* libbpf's perf_buffer callbacks: a sample (size bytes at data, valid during the call)
 * written for slot cpu; cnt samples of slot cpu dropped because its ring was full
 * (Linux's PERF_RECORD_LOST). */
typedef void (*kbpf_perf_sample_fn)(void *ctx, int cpu, void *data, uint32_t size);
typedef void (*kbpf_perf_lost_fn)(void *ctx, int cpu, uint64_t cnt);
struct kbpf_perf_buffer;

/* libbpf's perf_buffer__new: give slots 0 .. min(max_entries, kbpf_nr_cpus()) - 1 each
 * a ring of page_cnt pages (a power of 2) and read them with sample_cb / lost_cb (either
 * may be NULL) and ctx.  Takes a reference to map.  Returns 0 and *pb, -EINVAL (not a
 * PERF_EVENT_ARRAY, bad page_cnt, pb NULL), -EBUSY (another perf buffer holds the map's
 * slots), -ENOMEM. */
KBPF_API int kbpf_perf_buffer_new(struct kbpf_map *map, size_t page_cnt, kbpf_perf_sample_fn sample_cb,
			 kbpf_perf_lost_fn lost_cb, void *ctx, struct kbpf_perf_buffer **pb);
/* libbpf's perf_buffer__consume: call the callbacks for every record written so far,
 * slot by slot, each slot's in the order written; a lost count comes where Linux puts
 * its LOST record (before the next sample that fitted), or after the slot's last sample.
 * Returns the number of records (samples and lost counts), -EINVAL, or -EBUSY when
 * another thread is consuming (one consumer at a time; callbacks must not consume). */
KBPF_API int kbpf_perf_buffer_consume(struct kbpf_perf_buffer *pb);
/* libbpf's perf_buffer__poll: consume, waiting up to timeout_ms (-1: forever, 0: not at
 * all) for a record if there is none.  Returns what consume returns (0: timed out). */
KBPF_API int kbpf_perf_buffer_poll(struct kbpf_perf_buffer *pb, int timeout_ms);
/* Empty the slots, wait for programs still writing into them, free.  Unread records are
 * dropped.  NULL is allowed. */
KBPF_API void kbpf_perf_buffer_free(struct kbpf_perf_buffer *pb);

/* bpf_perf_event_output's core (Linux's bpf_event_output), for helper implementations:
 * one sample of data (size bytes) followed by extra (extra_size bytes: a packet's
 * BPF_F_CTXLEN_MASK bytes; NULL and 0 for none), to the slot flags & BPF_F_INDEX_MASK
 * names (BPF_F_CURRENT_CPU: kbpf_cpu_id()).  Any number of threads may write to one
 * slot.  Returns 0, -EINVAL (not a PERF_EVENT_ARRAY, flags outside BPF_F_INDEX_MASK),
 * -E2BIG (index >= max_entries), -ENOENT (no ring in the slot), -ENOSPC (the ring is
 * full: the sample counts as lost, as Linux's perf_output_begin). */
KBPF_API long kbpf_perf_event_output(struct kbpf_map *map, uint64_t flags, const void *data, uint64_t size,
			    const void *extra, uint64_t extra_size);
/* What slot index holds: 1 a ring (its size in bytes in *ring_size, if not NULL), 0
 * nothing (*ring_size 0); -EINVAL not a PERF_EVENT_ARRAY, -E2BIG index out of range.
 * Safe while another thread frees the perf buffer (it waits for this call). */
KBPF_API int kbpf_perf_event_array_slot(const struct kbpf_map *map, uint32_t index, size_t *ring_size);

/* --- STACK_TRACE (src/maps/stack_trace.c, docs/maps.md) ---------------------------
 * Buckets of stack traces that bpf_get_stackid fills: key a u32 stack id (< the
 * bucket count, max_entries rounded up to a power of two), value the trace's u64
 * return addresses innermost first, zero-padded (or, with BPF_F_STACK_BUILD_ID, struct
 * bpf_stack_build_id records). Programs may not look it up; the host reads it with
 * kbpf_map_lookup, kbpf_map_get_next_key and kbpf_map_delete (updates: -EINVAL). */

/* Linux's default sysctl_perf_event_max_stack: the deepest trace kept. */
#define KBPF_STACK_MAX_DEPTH 127

/* bpf_get_stackid's core (Linux's __bpf_get_stackid), for helper implementations: store
 * the trace ips[0 .. nr) (innermost first, as captured: flags & BPF_F_SKIP_FIELD_MASK
 * frames are dropped here) under the id its hash picks, honouring BPF_F_FAST_STACK_CMP
 * and BPF_F_REUSE_STACKID. Returns the id (>= 0), -EFAULT (nr <= skip), -EEXIST (the
 * bucket holds another trace), -ENOMEM (no free bucket), -EINVAL (not a STACK_TRACE
 * map, unknown flags). */
KBPF_API long kbpf_stack_map_get_id(struct kbpf_map *map, const uint64_t *ips, uint32_t nr, uint64_t flags);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_MAP_H */
