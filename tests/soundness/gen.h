/* SPDX-License-Identifier: Apache-2.0 */
/* The soundness generator: random, mostly valid programs from a seed (tests/soundness/
 * README.md). A program is a prologue that fixes the invariants (R6 = ctx, R7-R9
 * scalars, 128 initialised stack bytes), then snippets that each keep them — ALU, stack
 * spills and fills, map lookups with null checks and value accesses, ctx fields, packet
 * accesses behind data_end checks, bounded loops, branches that refine bounds used as
 * offsets, bpf2bpf calls, atomics, helper and kfunc calls — then an exit; and sometimes
 * raw mutations of a few instructions on top, which mostly make programs the verifier
 * must refuse. The same seed always gives the same case. */
#ifndef KBPF_TESTS_SOUND_GEN_H
#define KBPF_TESTS_SOUND_GEN_H

#include <stdint.h>
#include "harness.h"

#define SND_GEN_MAX_INSNS 512

struct snd_gen {
	struct snd_case c;
	struct bpf_insn insns[SND_GEN_MAX_INSNS + 64];
	size_t cnt;
	int mutated;      /* raw mutations were applied */
	uint64_t rng;
};

/* Generate the case of seed into g (env says which kfuncs exist). */
void snd_gen(struct snd_gen *g, const struct snd_env *env, uint64_t seed);

#endif
