/* SPDX-License-Identifier: Apache-2.0 */
/* Maps with BTF-described values (Linux 6.1 map_check_btf, btf_find_spin_lock,
 * btf_find_timer, btf_parse_kptrs, copy_map_value, bpf_map_free_kptrs): where the value's
 * struct bpf_spin_lock, struct bpf_timer and kptr fields live, and value copies that
 * leave them alone.  Why copies skip them: the lock word belongs to whoever holds it (a
 * program between bpf_spin_lock and bpf_spin_unlock); a host update that wrote it would
 * free or take the lock behind that program's back; a kptr is an object reference only
 * bpf_kptr_xchg and the map's destructor calls may move. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "btf/core_internal.h" /* kbpf_core_msg */
#include "maps/map_host.h"
#include "maps/map_internal.h"
#include "maps/map_prog_view.h"
#include "maps/spinlock.h"
#include "maps/timer.h"

#define SPIN_LOCK_SIZE 4 /* struct bpf_spin_lock { __u32 val; } */
#define SPIN_LOCK_ALIGN 4
#define TIMER_SIZE 16 /* struct bpf_timer { __u64 :64; __u64 :64; } */
#define TIMER_ALIGN 8
#define KPTR_SIZE 8
#define MAX_FIELDS (2 + KBPF_MAP_KPTR_MAX)

_Static_assert(sizeof(struct kbpf_spinlock) == SPIN_LOCK_SIZE, "bpf_spin_lock is the maps' 4-byte lock word");

static const char *type_name(const struct btf *btf, const struct btf_type *t)
{
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	return n ? n : "";
}

/* One field found: 1 and *off, ignored: 0, or Linux's -EINVAL for a misplaced one. */
static int field_at(const struct btf_type *ft, uint32_t off, int sz, uint32_t *out)
{
	/* btf_find_struct: a struct of the right size, anything else is not the field */
	if (!ft || !btf_is_struct(ft) || ft->size != (uint32_t)sz)
		return 0;
	*out = off;
	return 1;
}

/* Linux's btf_find_field for one struct field named name (size sz, alignment align)
 * in the value type t: its offset, -ENOENT (none), -E2BIG (more than one), -EINVAL (t
 * is neither a struct nor a DATASEC, or the field is misaligned). */
static int find_field(const struct btf *btf, const struct btf_type *t, const char *name, int sz, int align)
{
	uint32_t off, found_off = 0;
	int n = 0, r;

	if (btf_is_struct(t)) {
		const struct btf_member *m = btf_members(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
			const struct btf_type *mt = btf__type_by_id(btf, m->type);
			if (strcmp(type_name(btf, mt), name))
				continue;
			off = btf_member_bit_offset(t, i);
			if (off % 8)
				return -EINVAL; /* valid C cannot make it */
			off /= 8;
			if (off % align)
				return -EINVAL;
			r = field_at(mt, off, sz, &off);
			if (!r)
				continue;
			if (n++)
				return -E2BIG;
			found_off = off;
		}
	} else if (btf_is_datasec(t)) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			const struct btf_type *vt = var ? btf__type_by_id(btf, var->type) : NULL;
			if (strcmp(type_name(btf, vt), name) || v->size != (uint32_t)sz)
				continue;
			if (v->offset % align)
				return -EINVAL;
			r = field_at(vt, v->offset, sz, &off);
			if (!r)
				continue;
			if (n++)
				return -E2BIG;
			found_off = off;
		}
	} else {
		return -EINVAL;
	}
	return n ? (int)found_off : -ENOENT;
}

/* A 32-bit int, as array and local-storage keys must be described. */
static bool is_i32(const struct btf_type *t)
{
	return t && btf_is_int(t) && btf_int_bits(t) == 32 && !btf_int_offset(t);
}

/* An unsigned-or-signed plain integer of bits bits (Linux's btf_member_is_reg_int). */
static bool is_int_of(const struct btf *btf, uint32_t id, int bits)
{
	int rid = btf__resolve_type(btf, id); /* __u64: a typedef */
	const struct btf_type *t = rid > 0 ? btf__type_by_id(btf, (uint32_t)rid) : NULL;
	return t && btf_is_int(t) && btf_int_bits(t) == bits && !btf_int_offset(t);
}

/* Linux's cgroup_storage_check_btf: struct bpf_cgroup_storage_key { __u64 cgroup_inode_id;
 * __u32 attach_type; } for a 16-byte key, a __u64 for an 8-byte one. */
static bool cgroup_storage_key_ok(const struct btf *btf, const struct kbpf_map *map, const struct btf_type *key)
{
	if (map->key_size == sizeof(uint64_t))
		return key && btf_is_int(key) && btf_int_bits(key) == 64 && !btf_int_offset(key);
	if (!key || !btf_is_struct(key) || btf_vlen(key) != 2)
		return false;
	const struct btf_member *m = btf_members(key);
	return btf_member_bit_offset(key, 0) == 0 && !btf_member_bitfield_size(key, 0) &&
	       is_int_of(btf, m[0].type, 64) && btf_member_bit_offset(key, 1) == 64 &&
	       !btf_member_bitfield_size(key, 1) && is_int_of(btf, m[1].type, 32);
}

/* The type-specific part (Linux's map->ops->map_check_btf); key NULL: no key type. */
static int type_check_btf(const struct btf *btf, const struct kbpf_map *map, const struct btf_type *key,
			  const struct btf_type *value)
{
	switch (map->type) {
	case BPF_MAP_TYPE_CGROUP_STORAGE:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		return cgroup_storage_key_ok(btf, map, key) ? 0 : -EINVAL;
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		if (!key) /* keyless: only .bss/.data/.rodata */
			return map->type == BPF_MAP_TYPE_ARRAY && map->max_entries == 1 && btf_is_datasec(value)
				       ? 0
				       : -EINVAL;
		return is_i32(key) ? 0 : -EINVAL;
	case BPF_MAP_TYPE_SK_STORAGE:
		return is_i32(key) ? 0 : -EINVAL;
	case BPF_MAP_TYPE_LPM_TRIE: /* trie_check_btf: a struct embedding bpf_lpm_trie_key */
		return key && btf_is_struct(key) ? 0 : -EINVAL;
	case BPF_MAP_TYPE_BLOOM_FILTER: /* bloom_map_check_btf: keyless */
		return key ? -EINVAL : 0;
	default:
		/* no check of their own (PROG_ARRAY, QUEUE and STACK neither, in Linux 6.1): a
		 * key type is required */
		return key ? 0 : -EINVAL;
	}
}

/* btf_type_id_size: the type behind id's modifiers and typedefs, with its size. */
static const struct btf_type *sized_type(const struct btf *btf, uint32_t id, long long *size)
{
	int rid = btf__resolve_type(btf, id);
	if (rid <= 0)
		return NULL;
	*size = btf__resolve_size(btf, (uint32_t)rid);
	return *size < 0 ? NULL : btf__type_by_id(btf, (uint32_t)rid);
}

/* Linux's btf_find_kptr for the member (or variable) type ft at byte off: 1 and *k
 * (offset, referenced-ness, the pointee in the value's BTF as k->btf_id), 0 when it is no
 * kptr, or -EINVAL. Unlike Linux 6.1, which fails the whole search on any misaligned
 * member and on any pointer type tag it does not know (and then quietly ignores the
 * failure), only a field tagged "kptr" / "kptr_untrusted" / "kptr_ref" / "percpu_kptr"
 * can be wrong here. The tags are Linux 6.12's: "kptr_untrusted" an unreferenced kptr,
 * "kptr" a referenced one; 6.1's "kptr_ref" is no tag 6.12 knows (its btf_find_kptr fails
 * the map with -EINVAL), and neither is it here, with a message naming 6.12's. */
static int kptr_at(const struct btf *btf, const struct btf_type *ft, uint32_t off, struct kbpf_map_kptr *k,
		   char *log, size_t log_size)
{
	const struct btf_type *tag = ft && btf_is_ptr(ft) ? btf__type_by_id(btf, ft->type) : NULL;
	const char *tname = tag && btf_is_type_tag(tag) ? btf__name_by_offset(btf, tag->name_off) : NULL;
	int referenced;

	if (!tname)
		return 0;
	if (!strcmp(tname, "kptr_untrusted")) {
		referenced = 0;
	} else if (!strcmp(tname, "kptr")) {
		referenced = 1; /* Linux 6.1's "kptr" was unreferenced: 6.12 wins */
	} else if (!strcmp(tname, "kptr_ref")) {
		kbpf_core_msg(log, log_size,
			      "kptr field at offset %u: type tag \"kptr_ref\" is Linux 6.1's; 6.12 (kbpf's reference) "
			      "names a referenced kptr \"kptr\" (__kptr) and an unreferenced one \"kptr_untrusted\"",
			      off);
		return -EINVAL;
	} else if (!strcmp(tname, "percpu_kptr")) {
		/* only bpf_percpu_obj_new's objects go there, which kbpf does not have */
		kbpf_core_msg(log, log_size, "kptr field at offset %u: percpu_kptr is not supported", off);
		return -EINVAL;
	} else {
		return 0; /* another tag ("user", "percpu"…): plain bytes */
	}
	const struct btf_type *next = btf__type_by_id(btf, tag->type);
	if (next && btf_is_type_tag(next)) {
		kbpf_core_msg(log, log_size, "kptr field at offset %u: more than one type tag", off);
		return -EINVAL;
	}
	int rid = btf__resolve_type(btf, tag->type);
	const struct btf_type *pt = rid > 0 ? btf__type_by_id(btf, (uint32_t)rid) : NULL;
	if (!pt || !btf_is_struct(pt)) {
		kbpf_core_msg(log, log_size, "kptr field at offset %u: must point to a struct", off);
		return -EINVAL;
	}
	if (off % KPTR_SIZE) {
		kbpf_core_msg(log, log_size, "kptr field at offset %u: not 8-byte aligned", off);
		return -EINVAL;
	}
	memset(k, 0, sizeof(*k));
	k->offset = off;
	k->referenced = referenced;
	k->btf_id = (uint32_t)rid;
	return 1;
}

/* Linux's btf_find_field(BTF_FIELD_KPTR): the value's kptr fields into map->kptrs (ids
 * still the value BTF's), in member order, which is offset order. */
static int find_kptrs(struct kbpf_map *map, const struct btf *btf, const struct btf_type *t, char *log,
		      size_t log_size)
{
	struct kbpf_map_kptr k;
	uint16_t n = btf_is_struct(t) || btf_is_datasec(t) ? btf_vlen(t) : 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct btf_type *ft;
		uint32_t off;
		int r;

		if (btf_is_struct(t)) {
			const struct btf_member *m = btf_members(t) + i;
			ft = btf__type_by_id(btf, m->type);
			off = btf_member_bit_offset(t, i);
			if (off % 8 || btf_member_bitfield_size(t, i))
				continue; /* no pointer is a bitfield */
			off /= 8;
		} else {
			const struct btf_var_secinfo *v = btf_var_secinfos(t) + i;
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			if (v->size != KPTR_SIZE)
				continue;
			ft = var ? btf__type_by_id(btf, var->type) : NULL;
			off = v->offset;
		}
		r = kptr_at(btf, ft, off, &k, log, log_size);
		if (r < 0)
			return r;
		if (!r)
			continue;
		if (map->nr_kptrs == KBPF_MAP_KPTR_MAX) {
			kbpf_core_msg(log, log_size, "more than %d kptr fields", KBPF_MAP_KPTR_MAX);
			return -E2BIG;
		}
		if ((uint64_t)off + KPTR_SIZE > map->value_size)
			return -EINVAL;
		map->kptrs[map->nr_kptrs++] = k;
	}
	return 0;
}

/* Linux's btf_parse_kptrs after the search: each pointee by name in the host's BTF (its
 * vmlinux BTF), and each referenced one's destructor. */
static int resolve_kptrs(struct kbpf_map *map, const struct btf *btf, const struct kbpf_host *host, char *log,
			 size_t log_size)
{
	const struct btf *hbtf = host ? kbpf_map_host_ops(host)->btf(host) : NULL;

	for (int i = 0; i < map->nr_kptrs; i++) {
		struct kbpf_map_kptr *k = &map->kptrs[i];
		const char *name = btf__name_by_offset(btf, btf__type_by_id(btf, k->btf_id)->name_off);
		int id;

		if (!hbtf) {
			kbpf_core_msg(log, log_size, "kptr field at offset %u: struct %s needs a host with BTF (kbpf_map_def.host)",
				k->offset, name ? name : "");
			return -ENOENT;
		}
		id = name && *name ? btf__find_by_name_kind(hbtf, name, BTF_KIND_STRUCT) : -ENOENT;
		if (id <= 0) {
			kbpf_core_msg(log, log_size, "kptr field at offset %u: no struct %s in the host's BTF", k->offset,
				name ? name : "");
			return -ENOENT;
		}
		k->btf_id = (uint32_t)id;
		snprintf(k->type_name, sizeof(k->type_name), "%s", name);
		if (!k->referenced)
			continue;
		k->dtor = (void (*)(void *))kbpf_map_host_ops(host)->kptr_dtor(host, k->btf_id);
		if (!k->dtor) {
			kbpf_core_msg(log, log_size,
				"kptr field at offset %u: struct %s has no destructor (kbpf_host_kptr_dtor_register)",
				k->offset, name);
			return -ENOENT;
		}
	}
	map->kptr_host = map->nr_kptrs ? host : NULL;
	return 0;
}

int kbpf_map_check_btf(struct kbpf_map *map, const struct btf *btf, uint32_t key_id, uint32_t value_id,
		       const struct kbpf_host *host, char *log, size_t log_size)
{
	const struct btf_type *key = NULL, *value;
	long long size;
	int err;

	if (key_id) {
		key = sized_type(btf, key_id, &size);
		if (!key || size != map->key_size)
			return -EINVAL;
	}
	value = sized_type(btf, value_id, &size);
	if (!value || size != map->value_size)
		return -EINVAL;

	map->spin_lock_off = find_field(btf, value, "bpf_spin_lock", SPIN_LOCK_SIZE, SPIN_LOCK_ALIGN);
	if (map->spin_lock_off >= 0) {
		if (map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) /* 6.12's map_check_btf */
			return -EACCES;
		/* Linux also allows cgroup, inode and task storage, which kbpf has not */
		if (map->type != BPF_MAP_TYPE_HASH && map->type != BPF_MAP_TYPE_ARRAY &&
		    map->type != BPF_MAP_TYPE_SK_STORAGE)
			return -EOPNOTSUPP;
		if ((uint32_t)map->spin_lock_off + SPIN_LOCK_SIZE > map->value_size)
			return -EFAULT;
	}
	map->timer_off = find_field(btf, value, "bpf_timer", TIMER_SIZE, TIMER_ALIGN);
	if (map->timer_off >= 0) {
		if (map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) /* 6.12's map_check_btf */
			return -EACCES;
		if (map->type != BPF_MAP_TYPE_HASH && map->type != BPF_MAP_TYPE_LRU_HASH &&
		    map->type != BPF_MAP_TYPE_ARRAY)
			return -EOPNOTSUPP;
		if ((uint32_t)map->timer_off + TIMER_SIZE > map->value_size)
			return -EFAULT;
	}
	/* Linux 6.1 keeps a failed kptr search in the map and says why only when a program
	 * calls bpf_kptr_xchg; kbpf refuses the map, so a typo'd type or a missing
	 * destructor shows where it is made (docs/maps.md) */
	map->nr_kptrs = 0;
	err = find_kptrs(map, btf, value, log, log_size);
	if (!err)
		err = resolve_kptrs(map, btf, host, log, log_size);
	if (err) {
		map->nr_kptrs = 0;
		return err;
	}
	if (map->nr_kptrs) {
		if (map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) {
			kbpf_core_msg(log, log_size, "kptr fields: not in a map with BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG");
			map->nr_kptrs = 0;
			return -EACCES;
		}
		if (map->type != BPF_MAP_TYPE_HASH && map->type != BPF_MAP_TYPE_LRU_HASH &&
		    map->type != BPF_MAP_TYPE_ARRAY && map->type != BPF_MAP_TYPE_PERCPU_ARRAY) {
			kbpf_core_msg(log, log_size, "kptr fields: only in hash, LRU hash, array and per-CPU array maps");
			map->nr_kptrs = 0;
			return -EOPNOTSUPP;
		}
	}
	err = type_check_btf(btf, map, key, value);
	if (err) {
		map->nr_kptrs = 0;
		return err;
	}
	map->nr_fields = (map->spin_lock_off >= 0) + (map->timer_off >= 0) + map->nr_kptrs;
	map->has_btf = true;
	return 0;
}

/* The special fields of map's value, by offset: how many (at most MAX_FIELDS). */
static int fields_of(const struct kbpf_map *map, uint32_t off[MAX_FIELDS], uint32_t size[MAX_FIELDS])
{
	int n = 0;

	if (map->spin_lock_off >= 0) {
		off[n] = (uint32_t)map->spin_lock_off;
		size[n++] = SPIN_LOCK_SIZE;
	}
	if (map->timer_off >= 0) {
		off[n] = (uint32_t)map->timer_off;
		size[n++] = TIMER_SIZE;
	}
	for (int i = 0; i < map->nr_kptrs; i++) {
		off[n] = map->kptrs[i].offset;
		size[n++] = KPTR_SIZE;
	}
	for (int i = 1; i < n; i++) /* insertion sort: a handful at most */
		for (int j = i; j > 0 && off[j - 1] > off[j]; j--) {
			uint32_t o = off[j], z = size[j];
			off[j] = off[j - 1], size[j] = size[j - 1];
			off[j - 1] = o, size[j - 1] = z;
		}
	return n;
}

void kbpf_map_value_copy(const struct kbpf_map *map, void *dst, const void *src)
{
	uint32_t off[MAX_FIELDS], size[MAX_FIELDS], start[MAX_FIELDS + 1], end[MAX_FIELDS + 1];
	int n = map->nr_fields ? fields_of(map, off, size) : 0;
	char *d = dst;
	const char *s = src;

	if (!n) {
		kbpf_map_copy_value(dst, src, map->value_size);
		return;
	}
	/* the pieces between the fields */
	for (int i = 0; i <= n; i++) {
		start[i] = i ? off[i - 1] + size[i - 1] : 0;
		end[i] = i < n ? off[i] : map->value_size;
	}
	/* an overlapping copy upwards goes last piece first, as memmove would */
	bool down = d > s && d < s + map->value_size;
	for (int j = 0; j <= n; j++) {
		int i = down ? n - j : j;
		if (end[i] > start[i])
			kbpf_map_copy_value(d + start[i], s + start[i], end[i] - start[i]);
	}
}

void kbpf_map_value_copy_locked(const struct kbpf_map *map, void *dst, const void *src, bool lock_src)
{
	struct kbpf_spinlock *lock =
		(struct kbpf_spinlock *)((char *)(lock_src ? (void *)(uintptr_t)src : dst) + map->spin_lock_off);

	kbpf_spin_lock(lock);
	kbpf_map_value_copy(map, dst, src);
	kbpf_spin_unlock(lock);
}

void kbpf_map_value_lock(void *lock)
{
	kbpf_spin_lock(lock);
}

void kbpf_map_value_unlock(void *lock)
{
	kbpf_spin_unlock(lock);
}

void kbpf_map_value_init_fields(const struct kbpf_map *map, void *value)
{
	uint32_t off[MAX_FIELDS], size[MAX_FIELDS];
	int n = map->nr_fields ? fields_of(map, off, size) : 0;

	for (int i = 0; i < n; i++) {
		char *f = (char *)value + off[i];
		if (size[i] == SPIN_LOCK_SIZE && !((uintptr_t)f & 3)) /* the lock word: one atomic store */
			__atomic_store_n((uint32_t *)(void *)f, 0, __ATOMIC_RELAXED);
		else
			kbpf_map_zero_value(f, size[i]);
	}
}

void kbpf_map_value_free_fields(struct kbpf_map *map, void *value, bool timer)
{
	if (timer && map->timer_off >= 0)
		kbpf_map_value_timer_free(map, value);
	if (map->nr_kptrs)
		kbpf_map_value_free_kptrs(map, value);
}

void kbpf_map_value_free_kptrs(const struct kbpf_map *map, void *value)
{
	for (int i = 0; i < map->nr_kptrs; i++) {
		const struct kbpf_map_kptr *k = &map->kptrs[i];
		void **slot = (void **)(void *)((char *)value + k->offset);

		if (!k->referenced) {
			__atomic_store_n(slot, NULL, __ATOMIC_RELAXED);
			continue;
		}
		/* a program may be exchanging it right now: whoever takes it out owns it */
		void *old = __atomic_exchange_n(slot, NULL, __ATOMIC_ACQ_REL);
		if (old) /* Linux calls the destructor with NULL too; theirs accept it */
			k->dtor(old);
	}
}

int kbpf_map_kptr_cnt(const struct kbpf_map *map)
{
	return map ? map->nr_kptrs : 0;
}

const struct kbpf_map_kptr *kbpf_map_kptr_get(const struct kbpf_map *map, int i)
{
	return map && i >= 0 && i < map->nr_kptrs ? &map->kptrs[i] : NULL;
}

const struct kbpf_map_kptr *kbpf_map_kptr_at(const struct kbpf_map *map, uint32_t offset)
{
	for (int i = 0; map && i < map->nr_kptrs; i++)
		if (map->kptrs[i].offset == offset)
			return &map->kptrs[i];
	return NULL;
}

const struct kbpf_host *kbpf_map_kptr_host(const struct kbpf_map *map)
{
	return map ? map->kptr_host : NULL;
}

/* Not used by code: names the program view of map objects (map_prog_view.h) so that the
 * BTF of a host built with -g and pahole describes them, the verifier's map pointer
 * reads resolve against it (each map type's struct by its Linux name). */
const struct kbpf_map_btf_anchor {
	const struct bpf_array *array;
	const struct bpf_htab *htab;
	const struct bpf_ringbuf_map *ringbuf;
	const struct bpf_local_storage_map *local_storage;
} kbpf_map_btf_anchor;
