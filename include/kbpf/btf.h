/* SPDX-License-Identifier: Apache-2.0 */
/* BTF checks and printing for tools: what makes BTF from outside (a host file, an object)
 * safe to hand to libbpf's btf_dump, a function's C declaration, the walk past
 * modifiers and the names of the kinds. The BTF itself is libbpf's (struct btf, <bpf/btf.h>); kbpf adds what
 * libbpf 1.1 leaves unchecked (src/btf/).
 *
 * Ownership: nothing is kept; messages and declarations go to the caller's buffer.
 * Threads: each function only reads btf, so any number of threads may call them on one
 * BTF that no one modifies meanwhile. */
#ifndef KBPF_BTF_H
#define KBPF_BTF_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct btf;      /* libbpf's */
struct btf_type; /* <linux/btf.h>'s */

/* What libbpf 1.1's parser (Debian 12) leaves unchecked, and every consumer of BTF from
 * outside (a host file, an object) relies on: every type id a type refers to exists,
 * every name offset is inside the string section, a DECL_TAG's component index is in
 * range, an INT's bits fit its size, struct members lie inside their struct with holes
 * of sane size, the type records are 4-byte aligned.
 * libbpf 1.1 checks only that the sections and type records are whole; btf_dump__new
 * then indexes its tables with the unchecked ids.
 * Returns 0, or -EINVAL with msg naming the first bad type. */
KBPF_API int kbpf_btf_validate(const struct btf *btf, char *msg, size_t msg_size);

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
KBPF_API int kbpf_btf_check_printable(const struct btf *btf, uint32_t root, char *msg, size_t msg_size);

/* The C declaration of FUNC id (e.g. "int tcp_slow_start(struct tcp_sock *tp, u32 acked)",
 * parameter names from the FUNC_PROTO, "(void)" for none) into buf. Returns 0, -EINVAL
 * (not a FUNC), -ELOOP / -E2BIG (the types it names are cyclic / absurdly deep, as
 * kbpf_btf_check_printable), -ENOSPC (truncated to size-1 bytes), -ENOMEM. */
KBPF_API int kbpf_btf_func_decl(const struct btf *btf, uint32_t func_id, char *buf, size_t size);

/* The type id names once const/volatile/restrict/typedef (and type tags) are skipped:
 * NULL for a bad id or a chain longer than any real BTF has (a loop in hostile BTF);
 * else the type (pointing into btf), with its id in *res_id (if res_id). */
KBPF_API const struct btf_type *kbpf_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *res_id);

/* The name of t's kind as Linux's verifier and bpftool print it: "STRUCT", "INT",
 * "FUNC_PROTO"…; "UNKNOWN" for kind 0, a kind past the last one, or NULL. A static string. */
KBPF_API const char *kbpf_btf_kind_str(const struct btf_type *t);

#ifdef __cplusplus
}
#endif

#endif
