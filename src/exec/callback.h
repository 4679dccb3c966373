/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks at run time (src/exec/callback.c): the C function pointers ld_imm64 of a
 * function (BPF_PSEUDO_FUNC) loads, for helpers like bpf_loop to call. */
#ifndef KBPF_SRC_EXEC_CALLBACK_H
#define KBPF_SRC_EXEC_CALLBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exec/prog_internal.h"

/* One closure per distinct function prog's ld_imm64s name (none: prog->callbacks stays
 * NULL). Before decoding. Returns 0, -ENOMEM, or -EINVAL with "insn N: …" in err; on
 * error prog->callbacks may hold a partial set for kbpf_prog_free to release. */
int kbpf_prog_callbacks_prepare(struct kbpf_prog *prog, char *err, size_t err_size);
void kbpf_prog_callbacks_free(struct kbpf_prog_callbacks *cbs);
/* Whether code is one of prog's (a struct kbpf_prog) callbacks: a timer's callback. */
bool kbpf_prog_callback_owns(const void *prog, uint64_t code);
/* The address the ld_imm64 at insns[idx] (BPF_PSEUDO_FUNC) loads. */
int kbpf_prog_callback_addr(const struct kbpf_prog *prog, size_t idx, uint64_t *value, char *err,
			    size_t err_size);

#endif
