/* SPDX-License-Identifier: Apache-2.0 */
/* The small BTF walks every layer shares, each written once (src/btf/btf_walk.c): past
 * modifiers and typedefs, the names of the kinds, a struct's member by name, a member
 * that is a function pointer. Every one is bounded and NULL-safe on hostile BTF. */
#ifndef KBPF_BTF_WALK_H
#define KBPF_BTF_WALK_H

#include <stdint.h>
#include <bpf/btf.h>
#include <kbpf/btf.h>

/* kbpf_btf_skip_mods and kbpf_btf_kind_str ("STRUCT"): <kbpf/btf.h> (public: the kbpf
 * command uses them too). */

/* libbpf's btf_kind_str, for messages worded as libbpf's: "struct", "int", "void" for
 * kind 0, "unknown" past the last kind. */
const char *kbpf_btf_kind_str_lower(const struct btf_type *t);

/* The FUNC_PROTO id a member (or variable) of type type_id points to, modifiers and
 * typedefs skipped on both sides of the pointer; 0 if it is not a function pointer. */
uint32_t kbpf_btf_func_ptr_proto(const struct btf *btf, uint32_t type_id);

/* The member of struct/union st named name, with its index in *idx (if idx), or NULL. */
const struct btf_member *kbpf_btf_member_by_name(const struct btf *btf, const struct btf_type *st,
						 const char *name, unsigned *idx);

#endif
