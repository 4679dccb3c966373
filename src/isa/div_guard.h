/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's division guards (do_misc_fixups): the sequence a division or modulo by a
 * register becomes after verification (div_guard.c). The verifier writes them
 * (verifier/divmod.c); the interpreter recognizes the signed ones (exec/interp_prepare.c). */
#ifndef KBPF_SRC_ISA_DIV_GUARD_H
#define KBPF_SRC_ISA_DIV_GUARD_H

#include <kbpf/insn.h>

#define KBPF_DIV_GUARD_MAX 9 /* the longest guard: 32-bit smod */

/* The guard of div (a division or modulo by a register) at out (if out; room for
 * KBPF_DIV_GUARD_MAX insns), div itself inside it; returns its length. Any other insn:
 * 1, nothing written. */
int kbpf_div_guard(const struct bpf_insn *div, struct bpf_insn *out);

#endif
