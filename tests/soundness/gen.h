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

/* Templates (gen_tmpl.c, tests/soundness/README.md): shapes of the verifier's known
 * weak spots, each a snippet that keeps the generator's invariants. */
enum snd_tmpl {
	SND_T_PRUNE_IDS,     /* paths differing only in which scalars share an id */
	SND_T_PRUNE_LOCK,    /* paths differing only in which lock is held */
	SND_T_PRUNE_PKT,     /* paths differing in packet-pointer validity (packet-changing call) */
	SND_T_LOOP_CB,       /* bpf_loop whose callback changes the caller's stack; 0/1/N/too many */
	SND_T_EACH_CB,       /* bpf_for_each_map_elem on an empty / a full map, the same */
	SND_T_SPILL_PTR,     /* spill/fill through a copy of r10 across a prune point */
	SND_T_LINKED,        /* linked scalars, one copy re-bound on another path */
	SND_T_HELPER_OUT,    /* helpers on their error paths with a never-written output buffer */
	SND_T_PTR_JMP32,     /* JMP32 compares of a non-NULL pointer */
	SND_T_TAIL_CHAIN,    /* tail calls of the program itself, from main and from subprograms */
	SND_T_PKT_NEG,       /* packet pointer minus a constant after a data_end check */
	SND_T_KFUNC_MEM,     /* kfunc memory arguments from stack buffers of every size */
	SND_T_V4,            /* cpu v4 ops (movsx, ldsx, sdiv/smod, bswap) on an index */
	SND_T_MAY_GOTO,      /* a may_goto loop whose body changes a slot used after it */
	SND_T_GLOBAL_MEM,    /* a global function given memory (stack, map value, NULL, packet) */
	SND_T_FASTCALL,      /* bpf_fastcall spill/fill pairs around bpf_get_smp_processor_id */
	SND_NR_TMPL,
};
#define SND_TMPL_ALL ((1u << SND_NR_TMPL) - 1)
extern const char *const snd_tmpl_names[SND_NR_TMPL];

/* A function a template asked for, emitted after the subprograms (gen_tmpl.c). */
struct snd_gen_func {
	size_t site;      /* the call or ld_imm64 whose imm points at it */
	int kind;
	int32_t a, b;     /* the kind's parameters */
};

struct snd_gen {
	struct snd_case c;
	struct bpf_insn insns[SND_GEN_MAX_INSNS + 64];
	size_t cnt;
	int mutated;      /* raw mutations were applied */
	uint64_t rng;
	uint32_t tmpl_mask;        /* templates allowed (0: none, the generator as before) */
	uint32_t tmpl_used;        /* out: the templates the program has */
	int tmpl_lock;             /* a lock template was emitted (at most one per program) */
	int tmpl_tail;             /* a tail call was emitted (never with a lock template) */
	struct snd_gen_func funcs[8];
	int nr_funcs;
};

/* Generate the case of seed into g (env says which kfuncs exist). templates: a mask of
 * (1 << SND_T_*) the program may use; 0 gives the programs of the generator before
 * templates, seed for seed. With templates, programs are also generated unprivileged
 * more often, 30% with BPF_F_TEST_STATE_FREQ, and unmutated ones are strict. */
void snd_gen(struct snd_gen *g, const struct snd_env *env, uint64_t seed, uint32_t templates);

#endif
