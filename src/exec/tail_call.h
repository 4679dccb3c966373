/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_tail_call (helper 12) as both engines run it: Linux's semantics, one definition.
 * A helper cannot replace the program that calls it, so the interpreter and the JIT
 * recognise the call themselves (as Linux's interpreter and JITs do) and use this to
 * find the program to continue with. docs/jit.md ("Tail calls") has the details. */
#ifndef KBPF_SRC_EXEC_TAIL_CALL_H
#define KBPF_SRC_EXEC_TAIL_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <kbpf/insn.h>
#include <kbpf/map.h>
#include "exec/prog_internal.h"

#define KBPF_HELPER_TAIL_CALL 12
/* Linux 6.1's MAX_TAIL_CALL_CNT: 33 tail calls per run succeed, the 34th falls through. */
#define KBPF_MAX_TAIL_CALL_CNT 33

/* Whether insn is a tail call: "call 12" on a host that did not register a helper of
 * its own under 12 (a host that did gets its helper called, as it asked). */
bool kbpf_insn_is_tail_call(const struct kbpf_host *host, const struct bpf_insn *insn);

/* The program a tail call through map at index continues with, or NULL to fall
 * through, in Linux 6.1's order: an index (u32) beyond max_entries falls through
 * without counting; then a run that has made KBPF_MAX_TAIL_CALL_CNT tail calls falls
 * through; otherwise the call counts (*cnt += 1), even when the slot turns out empty.
 * map must be a map (the fast engines trust the program); a map of another type
 * falls through. */
static inline const struct kbpf_prog *kbpf_tail_call_target(const struct kbpf_map *map, uint32_t index,
							     uint32_t *cnt)
{
	if (index >= kbpf_map_max_entries(map))
		return NULL;
	if (*cnt >= KBPF_MAX_TAIL_CALL_CNT)
		return NULL;
	(*cnt)++;
	return kbpf_prog_array_get(map, index);
}

/* Checked mode: whether r2 is one of the maps prog may name (its LDDW table), so that a
 * wild R2 stops the run instead of being dereferenced. */
bool kbpf_tail_call_map_ok(const struct kbpf_prog *prog, uint64_t r2);

#endif
