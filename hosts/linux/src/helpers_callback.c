/* SPDX-License-Identifier: Apache-2.0 */
/* The helpers that call back into the program (Linux 6.1 kernel/bpf/bpf_iter.c
 * bpf_loop, kernel/bpf/{arraymap,hashtab}.c map_for_each_callback): the callback
 * argument is what the program's ld_imm64 of the function loaded, a C function pointer
 * of the helper signature (kbpf runs the subprogram behind it). The verifier has checked
 * that the callback returns 0 (go on) or 1 (stop). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/map.h>
#include "linux_internal.h"

#define BPF_MAX_LOOPS (8 * 1024 * 1024) /* Linux's bound on nr_loops */

/* long bpf_loop(u32 nr_loops, callback_fn(u32 index, void *ctx), void *ctx, u64 flags):
 * the number of iterations made, the last one included. */
KBPF_LINUX_HELPER(loop)
{
	kbpf_helper_fn fn = (kbpf_helper_fn)(uintptr_t)r2;
	uint32_t nr = (uint32_t)r1;
	(void)r5;
	if (r4)
		return (uint64_t)(int64_t)-EINVAL;
	if (nr > BPF_MAX_LOOPS)
		return (uint64_t)(int64_t)-E2BIG;
	if (!fn)
		return (uint64_t)(int64_t)-EINVAL;
	for (uint32_t i = 0; i < nr; i++)
		if (fn(i, r3, 0, 0, 0))
			return (uint64_t)i + 1;
	return nr;
}

/* long bpf_for_each_map_elem(map, callback_fn(map, key, value, ctx), ctx, u64 flags):
 * the number of elements the callback saw. Hash maps are walked with get_next_key on
 * a copy of each key; at most max_entries elements, so a callback that deletes and
 * re-adds cannot make the walk endless. */
KBPF_LINUX_HELPER(for_each_map_elem)
{
	struct kbpf_map *map = (struct kbpf_map *)(uintptr_t)r1;
	kbpf_helper_fn fn = (kbpf_helper_fn)(uintptr_t)r2;
	(void)r5;
	if (r4)
		return (uint64_t)(int64_t)-EINVAL;
	if (!map || !fn)
		return (uint64_t)(int64_t)-EINVAL;
	uint32_t max = kbpf_map_max_entries(map), ksz = kbpf_map_key_size(map), num = 0;
	switch (kbpf_map_type(map)) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		for (uint32_t k = 0; k < max; k++) {
			void *v = kbpf_map_lookup_elem(map, &k);
			if (!v)
				continue;
			num++;
			uint32_t key = k; /* the callback sees a key it cannot change */
			if (fn(r1, (uint64_t)(uintptr_t)&key, (uint64_t)(uintptr_t)v, r3, 0))
				break;
		}
		return num;
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH: {
		uint8_t small[2][64];
		uint8_t *buf = ksz <= sizeof(small[0]) ? &small[0][0] : malloc(2 * (size_t)ksz);
		if (!buf)
			return (uint64_t)(int64_t)-ENOMEM;
		uint8_t *prev = buf, *next = ksz <= sizeof(small[0]) ? &small[1][0] : buf + ksz;
		bool first = true;
		while (num < max && kbpf_map_get_next_key(map, first ? NULL : prev, next) == 0) {
			first = false;
			memcpy(prev, next, ksz);
			void *v = kbpf_map_lookup_elem(map, prev);
			if (!v)
				continue;
			num++;
			memcpy(next, prev, ksz);
			if (fn(r1, (uint64_t)(uintptr_t)next, (uint64_t)(uintptr_t)v, r3, 0))
				break;
		}
		if (buf != &small[0][0])
			free(buf);
		return num;
	}
	default:
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	}
}
