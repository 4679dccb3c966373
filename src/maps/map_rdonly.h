/* SPDX-License-Identifier: Apache-2.0 */
/* What the verifier may read from a map as constants (Linux's bpf_map_is_rdonly and
 * bpf_map_direct_read): the values of a frozen BPF_F_RDONLY_PROG array, whose memory
 * kbpf_map_freeze has write-protected (array.c, docs/maps.md). */
#ifndef KBPF_MAP_RDONLY_H
#define KBPF_MAP_RDONLY_H

#include <stdbool.h>
#include <stdint.h>

struct kbpf_map;

/* Linux's bpf_map_is_rdonly: programs cannot write the map (BPF_F_RDONLY_PROG) and its
 * values are sealed (frozen, no host write in flight, PROT_READ), so they never change
 * again. Not for an outer map's template: a pointer typed by it may point into any
 * matching inner map at run time (Linux's inner_map_meta is a copy never frozen). */
bool kbpf_map_is_rdonly(const struct kbpf_map *map);

/* Linux's bpf_map_direct_read: the size-byte (1, 2, 4, 8) value at off of the map's value,
 * zero-extended (sign-extended: sx) to 64 bits, in *val. The caller has checked that
 * [off, off + size) is inside the value. -EOPNOTSUPP: not a one-element ARRAY (Linux's
 * array_map_direct_value_addr answers ENOTSUPP, and so its verifier refuses the load);
 * -EINVAL: off beyond the value, or another size. */
int kbpf_map_direct_read(struct kbpf_map *map, uint32_t off, int size, bool sx, uint64_t *val);

#endif /* KBPF_MAP_RDONLY_H */
