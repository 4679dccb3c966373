/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls in the verifier (src/verifier/kfunc.c): Linux 6.1's add_kfunc_call (before
 * the walk), check_kfunc_call (at each reachable call) and fixup_kfunc_call (after it),
 * plus loads through PTR_TO_BTF_ID pointers (check_ptr_to_btf_access) — docs/reference/kfunc-spec.md §1-§2. */
#ifndef KBPF_VERIFIER_KFUNC_H
#define KBPF_VERIFIER_KFUNC_H

#include <stdbool.h>
#include <stdint.h>

struct env;
struct bpf_insn;

/* Linux's MAX_KFUNC_DESCS: distinct kfuncs one program may call. */
#define KFUNC_MAX_DESCS 256

/* Pass A for the kfunc call at insn idx (called by check_subprogs). 0 or a negative errno
 * with Linux's message logged. */
int kfunc_add(struct env *env, int idx);
/* Pass B: the call at insn_idx on the current path. */
int check_kfunc_call(struct env *env, const struct bpf_insn *insn, int insn_idx);
/* After a successful walk: an imm == 0 call that was reached is an error. */
int kfunc_fixup_check(struct env *env);
/* LDX/STX/ST through PTR_TO_BTF_ID register regno at byte off (the register's fixed
 * offset included). Reads walk the host BTF; writes need the type's btf_struct_access. */
int check_btf_access(struct env *env, int regno, int off, int size, bool write, int value_regno);
/* Linux's btf_struct_walk for a read of size bytes at off in host-BTF struct id (mem.c:
 * map pointers read as struct bpf_map): 0 and *ptr_id (the pointee struct of a pointer
 * member, 0 for a scalar), or a negative errno with Linux's message logged. */
int btf_struct_read(struct env *env, const struct btf *btf, uint32_t id, uint32_t off, uint32_t size,
		    uint32_t *ptr_id);
/* Linux's btf_struct_ids_match: a pointer to struct id at fixed offset off is a pointer
 * to struct need (non-strict: or to the type of a first member, or of a member at off). */
bool kfunc_struct_ids_match(const struct btf *btf, uint32_t id, int32_t off, uint32_t need, bool strict);
/* The kfunc's name in the host BTF, for the log (NULL if id is not a FUNC there). */
const char *kfunc_btf_name(struct env *env, int32_t id);

/* Linux's generic casts (kernel/bpf/helpers.c, special_kfunc_list): a call of a host
 * kfunc named bpf_cast_to_kern_ctx (void *(void *)) or bpf_rdonly_cast (void *(const void
 * *, u32)) is typed by the verifier, not by its prototype, and becomes `r0 = r1` after
 * verification (fixup.c; bpf_fastcall: it keeps R2-R5, R3-R5). */
enum kfunc_cast { KFUNC_CAST_NONE, KFUNC_CAST_KERN_CTX, KFUNC_RDONLY_CAST };
/* (env->aux[i].kfunc_cast holds the call's kind) */

/* helper.c: Linux's check_mem_reg (size_regno < 0: size bytes) and
 * check_kfunc_mem_size_reg (size from size_regno): read, then write access. */
int kfunc_check_mem(struct env *env, int regno, int size_regno, int size);
/* helper.c: 6.12's check_reg_const_str, for an argument named *__str (argno for the
 * message): a NUL-terminated string in a read-only map's value. */
int check_const_str(struct env *env, int regno, int argno);

#endif
