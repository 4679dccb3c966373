/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE: relocating a program's field offsets, type ids and enum values from the BTF
 * it was compiled against (local) to the host's (target), with libbpf's semantics
 * (src/btf/core*.c). */
#ifndef KBPF_SRC_BTF_CORE_H
#define KBPF_SRC_BTF_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h> /* struct bpf_core_relo, enum bpf_core_relo_kind, struct bpf_insn */

struct btf;

/* Older uapi headers stop at ENUMVAL_VALUE; the kind number is ABI (clang emits it). */
#define KBPF_CORE_TYPE_MATCHES 12

/* The instruction libbpf writes in place of one whose relocation cannot be resolved:
 * a call to helper 0xbad2310. It is harmless unless reached; the verifier reports
 * reaching it as "invalid func unknown#195896080" in Linux's wording. An LDDW gets
 * the same call in both of its slots (as libbpf does), so the poisoned program still
 * passes structural validation: two plain calls, no dangling second half. */
#define KBPF_CORE_POISON_HELPER 0xbad2310

/* Relocation state for one (local BTF, target BTF) pair: the candidate cache. libbpf
 * keeps one per object and narrows a local type's candidate list to those that matched
 * each relocation so far; sharing a ctx across all relocations of an object gives the
 * same results as libbpf. Both BTFs must outlive the ctx and not change under it.
 * A ctx is not thread-safe (it holds scratch space); use one per loading thread. */
struct kbpf_core_ctx;

/* NULL when out of memory or local is NULL. */
struct kbpf_core_ctx *kbpf_core_ctx_new(const struct btf *local, const struct btf *target);
void kbpf_core_ctx_free(struct kbpf_core_ctx *ctx);

/* Apply relocation relo (number relo_idx, for messages) to insns[insn_idx] (and its
 * second slot for an LDDW), resolving against target. relo->insn_off is not read: it
 * is relative to the ELF section, and only the caller knows where that instruction
 * landed in the program (insn_idx). An unresolvable relocation
 * (no candidate, field missing) poisons the instruction as libbpf does and returns 0
 * with a note in log ("relo #3: insn #7 poisoned: field 'foo' not found in struct bar
 * (...)"); a resolved one returns 0 and leaves log empty. A malformed relocation (bad
 * type id, bad access string, instruction that cannot carry the value, ambiguous
 * candidates) returns -EINVAL with the reason in log; -E2BIG (access too deep, bitfield
 * no load can cover) and -ERANGE (offset beyond an instruction's 16 bits) as libbpf;
 * -ENOMEM. target may be NULL only for BPF_CORE_TYPE_ID_LOCAL (else -ENOENT).
 * Candidates come from ctx's cache (and, like libbpf, are pruned per local type). */
int kbpf_core_ctx_apply(struct kbpf_core_ctx *ctx, const struct bpf_core_relo *relo, int relo_idx,
			struct bpf_insn *insns, size_t insn_cnt, size_t insn_idx, char *log, size_t log_size);

/* What a relocation resolves to, before any instruction is touched (for the loader's
 * dumps, the verifier, tests). */
struct kbpf_core_res {
	uint64_t orig_val;   /* the value the compiler put in the instruction (local BTF) */
	uint64_t new_val;    /* the value for the target */
	bool poison;         /* unresolvable: the instruction is to be poisoned */
	bool validate;       /* the instruction must hold orig_val (false when it may
			      * legitimately differ: type ids, bitfield offsets) */
	bool fail_memsz_adjust; /* the field's size changed in a way a load/store cannot
				 * follow (not a pointer or unsigned int): poison LDX/ST/STX */
	uint32_t orig_sz, new_sz; /* field sizes for load/store size adjustment, 0 = n/a */
	uint32_t orig_type_id, new_type_id; /* the field's type in local / target BTF */
	char why[256];       /* when poison: the reason, e.g. "field 'x' not found in struct s" */
};

/* Resolve relo into *res without patching. Returns 0 (res->poison says whether it
 * resolved) or a negative errno with the reason in log, as kbpf_core_ctx_apply. */
int kbpf_core_ctx_calc(struct kbpf_core_ctx *ctx, const struct bpf_core_relo *relo, int relo_idx,
		       struct kbpf_core_res *res, char *log, size_t log_size);

/* Patch insns[insn_idx] with a result from kbpf_core_ctx_calc, as kbpf_core_ctx_apply does. */
int kbpf_core_patch(int relo_idx, const struct kbpf_core_res *res, struct bpf_insn *insns, size_t insn_cnt,
		    size_t insn_idx, char *log, size_t log_size);

/* libbpf's short name of a relocation kind ("byte_off", "field_exists", …, "unknown"). */
const char *kbpf_core_relo_kind_str(uint32_t kind);

/* Length of name without its flavour: "task_struct___v2" -> 11 (libbpf's "essential
 * name": everything after the last "___" that sits between two non-underscores). */
size_t kbpf_core_essential_name_len(const char *name);

#endif
