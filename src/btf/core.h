/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE: relocating a program's field offsets, type ids and enum values from the BTF
 * it was compiled against (local) to the host's (target), with libbpf's semantics
 * (src/btf/core*.c). */
#ifndef KBPF_SRC_BTF_CORE_H
#define KBPF_SRC_BTF_CORE_H

#include <stddef.h>
#include <linux/bpf.h> /* struct bpf_core_relo, enum bpf_core_relo_kind, struct bpf_insn */

struct btf;

/* The instruction libbpf writes in place of one whose relocation cannot be resolved:
 * a call to helper 0xbad2310. It is harmless unless reached; the verifier reports
 * reaching it as "invalid func unknown#195896080" in Linux's wording. */
#define KBPF_CORE_POISON_HELPER 0xbad2310

/* Apply relocation relo (number relo_idx, for messages) to insns[insn_idx] (and its
 * second slot for an LDDW), resolving against target. An unresolvable relocation
 * (no candidate, field missing) poisons the instruction as libbpf does and returns 0
 * with a note in log ("relo #3: poisoned: field 'foo' not found in struct bar").
 * A malformed relocation (bad type id, bad access string, instruction that cannot
 * carry the value) returns -EINVAL with the reason in log. */
int kbpf_core_apply(const struct btf *local, const struct btf *target, const struct bpf_core_relo *relo,
		    int relo_idx, struct bpf_insn *insns, size_t insn_cnt, size_t insn_idx, char *log,
		    size_t log_size);

#endif
