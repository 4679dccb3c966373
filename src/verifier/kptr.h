/* SPDX-License-Identifier: Apache-2.0 */
/* kptrs in map values (src/verifier/kptr.c): Linux 6.1's access rules and messages. */
#ifndef KBPF_VERIFIER_KPTR_H
#define KBPF_VERIFIER_KPTR_H

#include <stdbool.h>
#include "verifier/env.h"

/* check_map_access's kptr part: an access of size bytes at off (fixed offset included)
 * through map value pointer R{regno} that touches a kptr must be a direct (not helper),
 * constant-offset, exactly placed 8-byte access. */
int check_map_kptr_fields(struct env *env, int regno, int off, int size, bool helper);
/* check_map_kptr_access: the LDX/STX/ST at insn_idx of kptr k (value_regno: the loaded
 * or stored register). */
int check_map_kptr_access(struct env *env, int regno, int value_regno, int insn_idx, const struct kbpf_map_kptr *k);
/* map_kptr_match_type: R{regno} may be stored into kptr k. */
int map_kptr_match_type(struct env *env, const struct kbpf_map_kptr *k, const struct reg *r, int regno);
/* process_kptr_func: bpf_kptr_xchg's first argument R{regno} points at a referenced kptr,
 * *out. */
int process_kptr_func(struct env *env, int regno, const struct kbpf_map_kptr **out);
/* A program may use a map with kptrs only if both are of one host (cfg.c, at ld_imm64). */
int check_map_kptr_host(struct env *env, const struct kbpf_map *map);
/* A load through an untrusted BTF pointer at insn_idx (kfunc.c): fixup.c makes it a
 * fault-tolerant LDX | KBPF_PROBE_MEM. */
void kptr_note_untrusted_load(struct env *env, int insn_idx);

#endif
