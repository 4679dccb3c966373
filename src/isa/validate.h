/* SPDX-License-Identifier: Apache-2.0 */
#ifndef KBPF_SRC_ISA_VALIDATE_H
#define KBPF_SRC_ISA_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <kbpf/insn.h>

/* kbpf_insns_validate for the verifier's output, which may hold its LDX | KBPF_PROBE_MEM
 * loads. */
/* R11, Linux's BPF_REG_AX: the verifier's scratch register, in its division guards
 * (verifier/divmod.c) only, where it is set and dead within the patch. The forms it may
 * take, in the verifier's output only: R11 = Rs (64-bit), R11 += imm, if R11 > / == imm.
 * The JIT keeps R11 in a register its emitters of these forms never use as scratch. */
#define KBPF_REG_AX (BPF_REG_10 + 1)
bool kbpf_insn_ax_form(const struct bpf_insn *in);
int kbpf_insns_validate_xlated(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size);

#endif
