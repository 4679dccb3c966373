/* SPDX-License-Identifier: Apache-2.0 */
/* Program creation's own steps (src/prog/): what kbpf_prog_create binds to a program
 * before an engine takes it, and kbpf_prog_free releases. */
#ifndef KBPF_SRC_PROG_CREATE_H
#define KBPF_SRC_PROG_CREATE_H

#include <stddef.h>
#include <kbpf/insn.h>

struct kbpf_prog;

/* regions.c: fill prog->map_regions, the memory checked mode lets it touch besides a
 * run's regions; given are the instructions before the verifier's rewrite (prog->insns,
 * xlated_idx set). Returns 0 or -ENOMEM. */
int kbpf_prog_regions_collect(struct kbpf_prog *prog, const struct bpf_insn *given, size_t given_cnt);

/* kfuncs.c: find every kfunc call (src_reg BPF_PSEUDO_KFUNC_CALL, imm != 0) of prog and
 * pin its descriptor on prog->host, into prog->kfuncs. Returns 0, or -EINVAL ("insn N:
 * kernel function ... is not registered on the host") / -ENXIO (its set is being
 * unregistered) / -ENOMEM, with the reason in err; nothing stays pinned on failure. */
int kbpf_prog_kfuncs_pin(struct kbpf_prog *prog, char *err, size_t err_size);
/* Drop the pins (kbpf_prog_free). */
void kbpf_prog_kfuncs_unpin(struct kbpf_prog *prog);

#endif
