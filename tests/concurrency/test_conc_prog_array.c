/* SPDX-License-Identifier: Apache-2.0 */
/* A PROG_ARRAY's slots and its callers' bounds (src/maps/prog_array.c) from several
 * threads: one thread creates and frees programs calling through the array (each
 * creation reads every slot's program for its context need), another stores a target,
 * deletes it and frees it — as a host may once the slot is empty and no program runs.
 * The creation's read of a slot must not overlap the target's free: the delete takes the
 * lock the creation's check holds (without it, TSan reports the free racing with the
 * read of the target's type). Every target needs no more than the callers, so every
 * creation and store succeeds. Runs under TSan too (scripts/test). */
#include <pthread.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct bpf_insn caller_insns[] = { /* ctx[0..8) = 0, then tail call */
	BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 0),
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_tail_call),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};
static const struct bpf_insn target_insns[] = { /* ctx[4] = 1 */
	BPF_ST_MEM(BPF_B, BPF_REG_1, 4, 1),
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

struct shared {
	struct kbpf_host *host;
	struct kbpf_map *map;
	unsigned iters;
	atomic_int failures;
};

static struct kbpf_prog *mk(struct shared *s, const struct bpf_insn *insns, size_t n, int with_map)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = s->host, .prog_type = "syscall", .license = "GPL",
				     .maps = with_map ? &s->map : NULL, .nr_maps = with_map ? 1 : 0 };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(insns, n, &po, &p))
		return NULL;
	return p;
}

static void *callers(void *arg)
{
	struct shared *s = arg;

	for (unsigned i = 0; i < s->iters; i++) {
		struct kbpf_prog *c = mk(s, caller_insns, N(caller_insns), 1);

		if (!c) {
			CONC_SAY("caller %u not created\n", i);
			atomic_fetch_add(&s->failures, 1);
			continue;
		}
		kbpf_prog_free(c);
	}
	return NULL;
}

static void *targets(void *arg)
{
	struct shared *s = arg;
	uint32_t key = 0;

	for (unsigned i = 0; i < s->iters; i++) {
		struct kbpf_prog *t = mk(s, target_insns, N(target_insns), 0);

		if (!t || kbpf_map_update(s->map, &key, &t, BPF_ANY) || kbpf_map_delete(s->map, &key)) {
			CONC_SAY("target %u not stored\n", i);
			atomic_fetch_add(&s->failures, 1);
		}
		kbpf_prog_free(t); /* out of the slot, and no program runs */
	}
	return NULL;
}

static void test_create_while_slots_change(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 1, .name = "jmp" };
	struct shared s = { .iters = conc_env("KBPF_CONC_ITERS", 2000, 10, 1000000) };
	pthread_t th[2];

	s.host = kbpf_host_new();
	CHECK(s.host && !kbpf_linux_host_add(s.host));
	CHECK_EQ_U64(kbpf_map_create(&def, &s.map), 0);
	if (!s.host || !s.map)
		return;
	CHECK(!pthread_create(&th[0], NULL, callers, &s));
	CHECK(!pthread_create(&th[1], NULL, targets, &s));
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	CHECK_EQ_U64(atomic_load(&s.failures), 0);
	kbpf_map_free(s.map);
	kbpf_host_free(s.host);
}

int main(void)
{
	RUN(test_create_while_slots_change);
	return test_summary();
}
