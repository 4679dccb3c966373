/* SPDX-License-Identifier: Apache-2.0 */
/* A hash index of a BTF's named types by (name, kind): libbpf 1.1's
 * btf__find_by_name_kind walks every type, which made name lookups during verification
 * (a struct_ops context access asks for struct sock / tcp_sock on every access) most of
 * the time of verifying a small program against a host's BTF. Built once from an
 * immutable BTF; read-only afterwards, so lookups may run on many threads. */
#ifndef KBPF_BTF_NAME_INDEX_H
#define KBPF_BTF_NAME_INDEX_H

#include <stdint.h>

struct btf;
struct kbpf_btf_name_index;

/* NULL on allocation failure (callers then fall back to btf__find_by_name_kind). */
struct kbpf_btf_name_index *kbpf_btf_name_index_new(const struct btf *btf);
void kbpf_btf_name_index_free(struct kbpf_btf_name_index *idx);
/* The lowest type id of that name and kind (as btf__find_by_name_kind), else -ENOENT. */
int32_t kbpf_btf_name_index_find(const struct kbpf_btf_name_index *idx, const char *name, uint32_t kind);

#endif
