/* SPDX-License-Identifier: Apache-2.0 */
/* What the generator's parts share (gen.c: the snippets; gen_tmpl.c: the templates):
 * the random source, instruction emission and the state of the function being written. */
#ifndef KBPF_TESTS_SOUND_GEN_INTERNAL_H
#define KBPF_TESTS_SOUND_GEN_INTERNAL_H

#include "gen.h"

struct fn_state {
	int has_ctx;      /* main program: R6 is ctx */
	int in_loop;      /* no calls, nothing that clobbers R1 */
	int depth;        /* call nesting (subprograms) */
	int sub_index;    /* -1: main */
};

static inline uint64_t rnd(struct snd_gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static inline uint32_t rn(struct snd_gen *g, uint32_t n) { return n ? (uint32_t)(rnd(g) % n) : 0; }
static inline int pct(struct snd_gen *g, unsigned p) { return rn(g, 100) < p; }

static inline void emit(struct snd_gen *g, struct bpf_insn i)
{
	if (g->cnt < SND_GEN_MAX_INSNS + 64)
		g->insns[g->cnt++] = i;
}
static inline void emit2(struct snd_gen *g, const struct bpf_insn i[2])
{
	emit(g, i[0]);
	emit(g, i[1]);
}
/* A forward jump to patch later: returns its index. */
static inline size_t jmp_fwd(struct snd_gen *g, struct bpf_insn j)
{
	emit(g, j);
	return g->cnt - 1;
}
/* Make the jump at `at` land on the next instruction emitted. */
static inline void patch(struct snd_gen *g, size_t at)
{
	if (at < g->cnt)
		g->insns[at].off = (int16_t)(g->cnt - at - 1);
}

/* One of the scalar registers R7-R9. */
static inline int sreg(struct snd_gen *g) { return 7 + (int)rn(g, 3); }

/* An immediate: small mostly, sometimes a boundary value. */
static inline int32_t imm(struct snd_gen *g)
{
	static const int32_t edge[] = { 0, 1, -1, 2, 7, 8, 31, 32, 63, 64, 255, 256, 0x7fff, 0xffff,
					0x7fffffff, (int32_t)0x80000000, -8, 4096 };
	if (pct(g, 30))
		return edge[rn(g, sizeof(edge) / sizeof(edge[0]))];
	if (pct(g, 60))
		return (int32_t)rn(g, 100) - 20;
	return (int32_t)rnd(g);
}

/* Templates (gen_tmpl.c): emit one of those g->tmpl_mask allows that fits fs (nothing
 * if none does); emit the functions they asked for (callbacks, tail-calling
 * subprograms) after the program's other functions. */
void snd_tmpl_emit(struct snd_gen *g, const struct fn_state *fs, const struct snd_env *env);
void snd_tmpl_funcs_emit(struct snd_gen *g);

#endif
