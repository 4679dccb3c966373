/* SPDX-License-Identifier: Apache-2.0 */
/* What a program may read through a map pointer (the verifier's CONST_PTR_TO_MAP read
 * as Linux's struct bpf_map, Linux 6.1 check_ptr_to_map_access): these types, in the
 * host's BTF (a host built with -g, then pahole, has them: map_btf.c names them), are
 * exactly the leading fields of struct kbpf_map, so a verified read returns the real
 * value. Each map type's struct (bpf_array, bpf_htab, ...) is bpf_map and nothing more:
 * the rest of kbpf's map objects is not for programs to read. Kept out of
 * map_internal.h: libbpf's <bpf/libbpf.h> declares a struct bpf_map of its own. */
#ifndef KBPF_MAP_PROG_VIEW_H
#define KBPF_MAP_PROG_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include "maps/map_internal.h"

struct bpf_map_ops; /* opaque: a program cannot follow ops */

struct bpf_map {
	const struct bpf_map_ops *ops;
	uint32_t map_type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
};

struct bpf_array { struct bpf_map map; };
struct bpf_htab { struct bpf_map map; };
struct bpf_ringbuf_map { struct bpf_map map; };
struct bpf_local_storage_map { struct bpf_map map; };

#define KBPF_VIEW_SAME(f, g) \
	_Static_assert(offsetof(struct bpf_map, f) == offsetof(struct kbpf_map, g) && \
		       sizeof(((struct bpf_map *)0)->f) == sizeof(((struct kbpf_map *)0)->g), \
		       "struct bpf_map." #f " is struct kbpf_map." #g)
KBPF_VIEW_SAME(ops, ops);
KBPF_VIEW_SAME(map_type, type);
KBPF_VIEW_SAME(key_size, key_size);
KBPF_VIEW_SAME(value_size, value_size);
KBPF_VIEW_SAME(max_entries, max_entries);
KBPF_VIEW_SAME(map_flags, map_flags);
#undef KBPF_VIEW_SAME
_Static_assert(sizeof(struct bpf_map) <= sizeof(struct kbpf_map), "the view is a prefix");
_Static_assert(sizeof(struct bpf_map) == KBPF_MAP_PROG_VIEW_SIZE, "<kbpf/map.h> says how big it is");

#endif
