/* SPDX-License-Identifier: Apache-2.0 */
#ifndef KBPF_SRC_ISA_VALIDATE_H
#define KBPF_SRC_ISA_VALIDATE_H

#include <stddef.h>
#include <kbpf/insn.h>

/* kbpf_insns_validate for the verifier's output, which may hold its LDX | KBPF_PROBE_MEM
 * loads and its ALU64 | MOV | X per-CPU address moves (off KBPF_ADDR_PERCPU). */
int kbpf_insns_validate_xlated(const struct bpf_insn *insns, size_t cnt, char *err, size_t err_size);

#endif
