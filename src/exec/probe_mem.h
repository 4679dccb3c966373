/* SPDX-License-Identifier: Apache-2.0 */
/* Fault-tolerant loads for LDX | KBPF_PROBE_MEM (src/exec/probe_mem.c). */
#ifndef KBPF_SRC_EXEC_PROBE_MEM_H
#define KBPF_SRC_EXEC_PROBE_MEM_H

#include <stdint.h>

/* The size (1, 2, 4, 8) bytes at addr, zero-extended, or 0 if they cannot be read. */
uint64_t kbpf_probe_load(uint64_t addr, uint64_t size);

#endif
