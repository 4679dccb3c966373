/* SPDX-License-Identifier: Apache-2.0 */
/* Stack slot access (stack.c). */
#ifndef KBPF_VERIFIER_STACK_H
#define KBPF_VERIFIER_STACK_H

#include "verifier/env.h"

enum stack_access { STACK_READ, STACK_WRITE, STACK_HELPER };

/* off includes the pointer's fixed offset, not its var_off. */
int stack_bounds(struct env *env, int regno, int off, int size, enum stack_access acc);
int stack_write(struct env *env, int regno, int off, int size, int value_regno, const struct bpf_insn *insn,
		int insn_idx);
int stack_read(struct env *env, int regno, int off, int size, int dst);
int stack_range_init(struct env *env, int regno, int off, int size, bool zero_ok, enum stack_access acc,
		     bool *raw, bool clobber);

#endif
