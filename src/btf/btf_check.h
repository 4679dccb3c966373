/* SPDX-License-Identifier: Apache-2.0 */
/* Checks that make BTF safe to hand to libbpf's btf_dump (src/btf/btf_check.c). */
#ifndef KBPF_SRC_BTF_BTF_CHECK_H
#define KBPF_SRC_BTF_BTF_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* Whether the type records are 4-byte aligned, as struct btf_type needs. libbpf 1.1
 * checks the type section's offset but not the header length it is added to: a header
 * of 25 bytes puts every record at an odd address. Cheap (one pointer); 0 or -EINVAL. */
int kbpf_btf_check_aligned(const struct btf *btf);

/* What libbpf 1.1's parser (Debian 12) leaves unchecked, and every consumer of BTF from
 * outside (a host file, an object) relies on: every type id a type refers to exists,
 * every name offset is inside the string section, a DECL_TAG's component index is in
 * range, an INT's bits fit its size, struct members lie inside their struct with holes
 * of sane size, the records are aligned (kbpf_btf_check_aligned).
 * libbpf 1.1 checks only that the sections and type records are whole; btf_dump__new
 * then indexes its tables with the unchecked ids.
 * Returns 0, or -EINVAL with msg naming the first bad type. */
int kbpf_btf_validate(const struct btf *btf, char *msg, size_t msg_size);

/* Longest chain of references btf_dump may follow (its recursion depth); real BTF,
 * the kernel's included, stays far below. */
#define KBPF_BTF_MAX_REF_DEPTH 512

/* Whether libbpf's btf_dump can print the types reachable from root (every type when
 * root is 0) without recursing forever. libbpf's parser accepts reference cycles — a PTR
 * to itself, a typedef of itself, CONST <-> VOLATILE, an anonymous struct holding a
 * pointer to itself, a function taking a pointer to its own prototype — and btf_dump then
 * overflows the stack, loops, or allocates until memory runs out. The only cycles C allows
 * (and btf_dump handles) go through a named struct or union reached through a pointer.
 * It also divides by each struct member's alignment: a member without size or alignment
 * (void, as pahole 1.24 encodes DWARF 5 _Atomic types) is refused too.
 * The whole BTF is validated first (kbpf_btf_validate): btf_dump__new reads every type.
 * Returns 0; -ELOOP (a cycle; msg names a type on it), -E2BIG (a chain longer than
 * KBPF_BTF_MAX_REF_DEPTH, or members nested by value too widely for libbpf to lay out),
 * -EINVAL (root out of range, a reference to a missing type, a
 * member without size; msg says which), -ENOMEM. */
int kbpf_btf_check_printable(const struct btf *btf, uint32_t root, char *msg, size_t msg_size);

#endif
