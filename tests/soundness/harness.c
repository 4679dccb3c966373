/* SPDX-License-Identifier: Apache-2.0 */
/* The soundness check (harness.h): verify, then run what was accepted on the checked
 * interpreter with exactly the memory it was given, and on the JIT from the same state.
 *
 * Results that depend on where things are (a stack address turned into a scalar, which
 * privileged programs may do), on uninitialised stack (privileged programs may read it)
 * or on a non-deterministic helper cannot be compared between two engines. Such programs
 * are recognised by running again with the stack at another depth and pre-filled with
 * another pattern: if an engine disagrees with itself, the program is "nondet" and only
 * the checked run counts. */
#include <alloca.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "harness.h"
#ifdef SND_WITH_KFUNCS
#include "kfunc_funcs.h"
#endif

const char *const snd_type_names[SND_NR_TYPES] = { "socket_filter", "sched_cls", "xdp", "syscall" };

#define LOG_SIZE (64u << 10)
#define BUF_SIZE (SND_HEADROOM + SND_PKT_MAX)
/* The checked interpreter's budget: a verified program terminates, but a bounded loop
 * may legitimately run long; beyond this the run is counted, not compared. */
#define CHECK_BUDGET 2000000u

struct snd_snap {
	int ret;
	uint64_t r0;
	uint8_t buf[BUF_SIZE];
	uint8_t array[SND_ARRAY_ENTRIES][SND_ARRAY_VALUE];
	uint8_t global[SND_GLOBAL_VALUE];
	uint32_t nr_hash;
	struct { uint64_t key; uint8_t value[SND_HASH_VALUE]; } hash[SND_HASH_ENTRIES];
	size_t ctx_size;
	uint8_t ctx[]; /* ctx_size bytes */
};

static void printk_sink(const char *msg, void *arg)
{
	(void)msg, (void)arg; /* programs may print; the output is not what is checked */
}

#ifdef SND_WITH_KFUNCS
static const struct kbpf_kfunc snd_kfuncs[SND_NR_KFUNCS] = {
	[SND_KF_ARG_U8] = KBPF_KFUNC(kt_arg_u8, 0),     [SND_KF_ARG_S16] = KBPF_KFUNC(kt_arg_s16, 0),
	[SND_KF_ARG_U32] = KBPF_KFUNC(kt_arg_u32, 0),   [SND_KF_ARG_S32] = KBPF_KFUNC(kt_arg_s32, 0),
	[SND_KF_RET_U8] = KBPF_KFUNC(kt_ret_u8, 0),     [SND_KF_RET_S8] = KBPF_KFUNC(kt_ret_s8, 0),
	[SND_KF_RET_S16] = KBPF_KFUNC(kt_ret_s16, 0),   [SND_KF_RET_U32] = KBPF_KFUNC(kt_ret_u32, 0),
	[SND_KF_RET_S32] = KBPF_KFUNC(kt_ret_s32, 0),   [SND_KF_RET_BOOL] = KBPF_KFUNC(kt_ret_bool, 0),
	[SND_KF_MIX5] = KBPF_KFUNC(kt_mix5, 0),         [SND_KF_SUM5] = KBPF_KFUNC(kt_sum5, 0),
	[SND_KF_INC] = KBPF_KFUNC(kt_inc, 0),           [SND_KF_PTR_READ] = KBPF_KFUNC(kt_ptr_read, 0),
	[SND_KF_PTR_STORE] = KBPF_KFUNC(kt_ptr_store, 0),
	[SND_KF_PAIR_SUM] = KBPF_KFUNC(kt_pair_sum, 0),     [SND_KF_PAIR_FILL] = KBPF_KFUNC(kt_pair_fill, 0),
};

static int kfuncs_add(struct snd_env *env)
{
	static const char *const types[] = { "socket_filter", "sched_cls", "xdp", "syscall", NULL };
	struct kbpf_kfunc_set_opts so = {
		.sz = sizeof(so), .name = "soundness", .funcs = snd_kfuncs, .nr_funcs = SND_NR_KFUNCS,
		.prog_types = types, .log_buf = env->log, .log_size = env->log_size,
	};
	int ret = kbpf_host_btf_load_self(env->host);

	if (!ret)
		ret = kbpf_host_kfunc_set_register(env->host, &so, NULL);
	if (ret) {
		fprintf(stderr, "soundness: kfuncs not available (%d): %s\n", ret, env->log);
		return ret;
	}
	for (int i = 0; i < SND_NR_KFUNCS; i++) {
		int id = btf__find_by_name_kind(kbpf_host_btf(env->host), snd_kfuncs[i].name, BTF_KIND_FUNC);
		env->kfunc_id[i] = id > 0 ? (uint32_t)id : 0;
	}
	env->has_kfuncs = 1;
	return 0;
}
#endif

/* A JIT-compiled program that fills 8 nested frames of 512 bytes with a byte pattern.
 * Run right before a program, from the same place, it leaves that pattern where the
 * program's frames will be: the checked interpreter zeroes its stack, so with 0x00 a
 * privileged program reading stack it never wrote sees the same bytes on both engines,
 * and with 0xa5 such a program gives another result (and is then "nondet"). */
static int scrub_create(struct snd_env *env, uint8_t pattern, struct kbpf_prog **out)
{
	enum { FRAMES = 8, PER = 2 + 64 + 1 + 2 };
	static struct bpf_insn insns[FRAMES * PER];
	uint64_t v = 0x0101010101010101ull * pattern;
	size_t n = 0;

	for (int f = 0; f < FRAMES; f++) {
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_1, v) };
		insns[n++] = ld[0];
		insns[n++] = ld[1];
		for (int s = 1; s <= 64; s++)
			insns[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, (int16_t)(-8 * s));
		/* the next frame starts right after this one's exit */
		insns[n++] = f + 1 < FRAMES ? (struct bpf_insn)BPF_CALL_REL(2) : (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		insns[n++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		insns[n++] = (struct bpf_insn)BPF_EXIT_INSN();
	}
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = env->host, .name = "scrub", .jit = 1,
				     .log_buf = env->log, .log_size = env->log_size };
	return kbpf_prog_create(insns, n, &po, out);
}

/* The BTF of the lock map's value and of func_info: [1] int, [2] struct bpf_spin_lock,
 * [3] struct lockval { int cnt; struct bpf_spin_lock l; }, then a pointer, the
 * prototypes int main(void *ctx) and int cb(u64 a, u64 b, u64 c, u64 d), the FUNCs
 * main and cb (static), and global_skb(struct __sk_buff *) / global_xdp(struct xdp_md *). */
static int btf_build(struct snd_env *env)
{
	struct btf *b = btf__new_empty();

	if (!b)
		return -ENOMEM;
	int t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int t_lock = btf__add_struct(b, "bpf_spin_lock", 4);
	btf__add_field(b, "val", t_int, 0, 0);
	int t_val = btf__add_struct(b, "lockval", SND_LOCK_VALUE);
	btf__add_field(b, "cnt", t_int, 0, 0);
	btf__add_field(b, "l", t_lock, SND_LOCK_OFF * 8, 0);
	int t_u64 = btf__add_int(b, "u64", 8, 0);
	int t_ptr = btf__add_ptr(b, 0);
	int p_main = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "ctx", t_ptr);
	int p_cb = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "a", t_u64);
	btf__add_func_param(b, "b", t_u64);
	btf__add_func_param(b, "c", t_u64);
	btf__add_func_param(b, "d", t_u64);
	int f_main = btf__add_func(b, "main", BTF_FUNC_STATIC, p_main);
	int f_cb = btf__add_func(b, "cb", BTF_FUNC_STATIC, p_cb);
	/* global functions taking the program type's ctx (matched by the struct's name) */
	int f_glob[2];
	static const char *const ctx_names[2] = { "__sk_buff", "xdp_md" };
	for (int i = 0; i < 2; i++) {
		int t_ctx = btf__add_struct(b, ctx_names[i], 0);
		int t_pctx = btf__add_ptr(b, t_ctx);
		int p_glob = btf__add_func_proto(b, t_int);
		btf__add_func_param(b, "ctx", t_pctx);
		f_glob[i] = btf__add_func(b, i ? "global_xdp" : "global_skb", BTF_FUNC_GLOBAL, p_glob);
	}
	/* global functions with a memory argument (template global_mem): int global_mem(struct
	 * gmem *p, u64 n), 32 bytes or NULL, and global_mem_nn, the same with "arg:nonnull" */
	int t_gmem = btf__add_struct(b, "gmem", SND_GMEM_SIZE);
	for (int k = 0; k < SND_GMEM_SIZE / 8; k++) {
		static const char *const names[] = { "a", "b", "c", "d" };
		btf__add_field(b, names[k], t_u64, k * 64, 0);
	}
	int t_pgmem = btf__add_ptr(b, t_gmem);
	int f_gmem[2];
	for (int i = 0; i < 2; i++) {
		int p_gmem = btf__add_func_proto(b, t_int);
		btf__add_func_param(b, "p", t_pgmem);
		btf__add_func_param(b, "n", t_u64);
		f_gmem[i] = btf__add_func(b, i ? "global_mem_nn" : "global_mem", BTF_FUNC_GLOBAL, p_gmem);
	}
	int tag = btf__add_decl_tag(b, "arg:nonnull", f_gmem[1], 0);
	if (t_int != 1 || t_lock != 2 || t_val != 3 || f_main <= 0 || f_cb <= 0 || f_glob[0] <= 0 || f_glob[1] <= 0 ||
	    f_gmem[0] <= 0 || f_gmem[1] <= 0 || tag <= 0) {
		btf__free(b);
		return -EINVAL;
	}
	env->prog_btf = b;
	env->fn_main = (uint32_t)f_main;
	env->fn_cb = (uint32_t)f_cb;
	env->fn_global_skb = (uint32_t)f_glob[0];
	env->fn_global_xdp = (uint32_t)f_glob[1];
	env->fn_global_mem = (uint32_t)f_gmem[0];
	env->fn_global_mem_nn = (uint32_t)f_gmem[1];
	return 0;
}

int snd_env_init(struct snd_env *env, int with_kfuncs)
{
	static const struct kbpf_map_def defs[SND_NR_MAPS] = {
		[SND_MAP_ARRAY] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = SND_ARRAY_VALUE, .max_entries = SND_ARRAY_ENTRIES, .name = "array" },
		[SND_MAP_HASH] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_HASH, .key_size = SND_HASH_KEY,
				   .value_size = SND_HASH_VALUE, .max_entries = SND_HASH_ENTRIES, .name = "hash" },
		[SND_MAP_GLOBAL] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				     .value_size = SND_GLOBAL_VALUE, .max_entries = 1, .name = "global" },
		[SND_MAP_EMPTY] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_HASH, .key_size = SND_HASH_KEY,
				    .value_size = SND_HASH_VALUE, .max_entries = SND_HASH_ENTRIES, .name = "empty" },
		[SND_MAP_LOCK] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				   .value_size = SND_LOCK_VALUE, .max_entries = SND_LOCK_ENTRIES, .name = "lock",
				   .btf_key_type_id = 1, .btf_value_type_id = 3 },
		[SND_MAP_PROGS + 0] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
					.value_size = 4, .max_entries = SND_PROG_SLOTS, .name = "progs0" },
		[SND_MAP_PROGS + 1] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
					.value_size = 4, .max_entries = SND_PROG_SLOTS, .name = "progs1" },
		[SND_MAP_PROGS + 2] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
					.value_size = 4, .max_entries = SND_PROG_SLOTS, .name = "progs2" },
		[SND_MAP_PROGS + 3] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
					.value_size = 4, .max_entries = SND_PROG_SLOTS, .name = "progs3" },
	};
	int ret;

	memset(env, 0, sizeof(*env));
	env->log_size = LOG_SIZE;
	env->log = calloc(1, LOG_SIZE);
	env->ctx_gen = calloc(1, SND_SYSCALL_CTX);
	env->buf = calloc(1, BUF_SIZE);
	for (int i = 0; i < 3; i++)
		env->snap[i] = calloc(1, sizeof(struct snd_snap) + SND_SYSCALL_CTX);
	env->host = kbpf_host_new();
	if (!env->log || !env->ctx_gen || !env->buf || !env->snap[0] || !env->snap[1] || !env->snap[2] ||
	    !env->host) {
		snd_env_free(env);
		return -ENOMEM;
	}
	ret = kbpf_linux_host_add(env->host);
	if (!ret)
		ret = btf_build(env);
	for (int i = 0; !ret && i < SND_NR_MAPS; i++) {
		struct kbpf_map_def d = defs[i];
		if (i == SND_MAP_LOCK)
			d.btf = env->prog_btf;
		ret = kbpf_map_create(&d, &env->maps[i]);
	}
	if (ret) {
		snd_env_free(env);
		return ret;
	}
	kbpf_linux_trace_printk_set(printk_sink, NULL);
	/* slot 4 of each prog array: a program of the type returning SND_TAIL_RET, so that a
	 * tail call from a called function that succeeds hands its caller a value the
	 * verifier must not have assumed (the function's own R0: attack3) */
	for (int t = 0; !ret && t < SND_NR_TYPES; t++) {
		const struct bpf_insn ins[] = { BPF_MOV64_IMM(BPF_REG_0, SND_TAIL_RET), BPF_EXIT_INSN() };
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = env->host, .prog_type = snd_type_names[t],
					     .license = "GPL", .name = "tail_ret", .jit = 1, .log_buf = env->log,
					     .log_size = env->log_size,
					     .prog_flags = t == SND_SYSCALL ? BPF_F_SLEEPABLE : 0 };
		uint32_t k = SND_TAIL_RET_SLOT;
		ret = kbpf_prog_create(ins, 2, &po, &env->tail_ret[t]);
		if (!ret)
			ret = kbpf_map_update(env->maps[SND_MAP_PROGS + t], &k, &env->tail_ret[t], BPF_ANY);
	}
	if (ret) {
		snd_env_free(env);
		return ret;
	}
	for (int i = 0; i < 2; i++)
		if (scrub_create(env, i ? 0xa5 : 0x00, &env->scrub[i]) || !kbpf_prog_is_jited(env->scrub[i])) {
			kbpf_prog_free(env->scrub[i]);
			env->scrub[i] = NULL; /* only the stack pre-fill then */
		}
#ifdef SND_WITH_KFUNCS
	if (with_kfuncs)
		(void)kfuncs_add(env); /* without them kfunc calls are simply not generated */
#else
	(void)with_kfuncs;
#endif
	return 0;
}

void snd_env_free(struct snd_env *env)
{
	for (int i = 0; i < 2; i++)
		kbpf_prog_free(env->scrub[i]);
	for (int t = 0; t < SND_NR_TYPES; t++) {
		uint32_t k = SND_TAIL_RET_SLOT;
		if (env->tail_ret[t] && env->maps[SND_MAP_PROGS + t])
			(void)kbpf_map_delete(env->maps[SND_MAP_PROGS + t], &k);
		kbpf_prog_free(env->tail_ret[t]);
	}
	for (int i = 0; i < SND_NR_MAPS; i++)
		kbpf_map_free(env->maps[i]);
	kbpf_host_free(env->host);
	btf__free(env->prog_btf);
	for (int i = 0; i < 3; i++)
		free(env->snap[i]);
	free(env->ctx_gen);
	free(env->buf);
	free(env->log);
	memset(env, 0, sizeof(*env));
}

static uint64_t seed_u64(const struct snd_case *c, unsigned i)
{
	uint64_t v;
	memcpy(&v, c->seed + (i % 8) * 8, 8);
	return v;
}

int snd_maps_reset(struct snd_env *env, const struct snd_case *c)
{
	uint8_t value[SND_ARRAY_VALUE];
	uint64_t key, next;
	int ret;

	for (uint32_t k = 0; k < SND_ARRAY_ENTRIES; k++) {
		for (unsigned i = 0; i < SND_ARRAY_VALUE; i++)
			value[i] = c->seed[(k * 16 + i) % 64] ^ (uint8_t)(k * 0x35);
		/* small values, so that loaded scalars often make sensible offsets */
		if (k & 1)
			for (unsigned i = 0; i < SND_ARRAY_VALUE; i++)
				value[i] &= 0x1f;
		ret = kbpf_map_update(env->maps[SND_MAP_ARRAY], &k, value, BPF_ANY);
		if (ret)
			return ret;
	}
	uint32_t zero = 0;
	memcpy(value, c->seed + 8, SND_GLOBAL_VALUE);
	ret = kbpf_map_update(env->maps[SND_MAP_GLOBAL], &zero, value, BPF_ANY);
	if (ret)
		return ret;
	/* hash: empty it, then keys 0..SND_HASH_START-1 */
	while (kbpf_map_get_next_key(env->maps[SND_MAP_HASH], NULL, &next) == 0)
		if (kbpf_map_delete(env->maps[SND_MAP_HASH], &next))
			return -EIO;
	for (key = 0; key < SND_HASH_START; key++) {
		uint64_t v[2] = { seed_u64(c, (unsigned)key) & 0xff, seed_u64(c, (unsigned)key + 4) };
		ret = kbpf_map_update(env->maps[SND_MAP_HASH], &key, v, BPF_ANY);
		if (ret)
			return ret;
	}
	while (kbpf_map_get_next_key(env->maps[SND_MAP_EMPTY], NULL, &next) == 0)
		if (kbpf_map_delete(env->maps[SND_MAP_EMPTY], &next))
			return -EIO;
	for (uint32_t k = 0; k < SND_LOCK_ENTRIES; k++) {
		uint8_t v[SND_LOCK_VALUE] = { 0 };
		v[0] = c->seed[k] & 0x7;
		ret = kbpf_map_update(env->maps[SND_MAP_LOCK], &k, v, BPF_ANY);
		if (ret)
			return ret;
	}
	/* the prog arrays are the check's (snd_check fills and empties them), not the run's */
	return 0;
}

/* Every bpf_spin_lock of the lock map must be free after a run: a verified program
 * releases what it takes (Linux: "bpf_spin_unlock is missing"). Releases what is held
 * (the next run would wait for it forever); returns 1 and says why if one was held. */
static int locks_check(struct snd_env *env, char *why, size_t why_size)
{
	int held = 0;

	for (uint32_t k = 0; k < SND_LOCK_ENTRIES; k++) {
		uint8_t *v = kbpf_map_lookup_elem(env->maps[SND_MAP_LOCK], &k);
		if (!v)
			continue;
		_Atomic uint32_t *lock = (_Atomic uint32_t *)(v + SND_LOCK_OFF);
		if (atomic_load(lock)) {
			if (!held++)
				snprintf(why, why_size, "bpf_spin_lock of lock map element %u still "
					 "held when the program returned", k);
			kbpf_map_value_unlock(v + SND_LOCK_OFF);
		}
	}
	return held ? 1 : 0;
}

/* LD_ABS/LD_IND: kbpf_prog_create runs them only with their type's packet hook, and a
 * socket filter's may read the MAC header, the 14 bytes before the packet. */
static bool has_ld_abs(const struct snd_case *c)
{
	for (size_t i = 0; i < c->cnt; i++) {
		uint8_t code = c->insns[i].code;

		if (BPF_CLASS(code) == BPF_LD && (BPF_MODE(code) == BPF_ABS || BPF_MODE(code) == BPF_IND))
			return true;
	}
	return false;
}

/* Helpers that move the packet's start or end inside its buffer (the headroom): a
 * program calling one may reach any byte of the buffer, legitimately. */
static bool moves_packet(const struct snd_case *c)
{
	for (size_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];

		if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0)
			continue;
		switch (in->imm) {
		case BPF_FUNC_xdp_adjust_head: case BPF_FUNC_xdp_adjust_tail: case BPF_FUNC_xdp_adjust_meta:
		case BPF_FUNC_skb_change_head: case BPF_FUNC_skb_change_tail: case BPF_FUNC_skb_pull_data:
		case BPF_FUNC_skb_adjust_room: case BPF_FUNC_skb_vlan_push: case BPF_FUNC_skb_vlan_pop:
			return true;
		default:
			break;
		}
	}
	return false;
}

/* The context and packet of c, fresh; returns the context to pass in R1. */
static void *state_reset(struct snd_env *env, const struct snd_case *c, size_t *ctx_size)
{
	memset(env->buf, 0, BUF_SIZE);
	memcpy(env->buf + SND_HEADROOM, c->pkt, c->pkt_len);
	switch (c->type) {
	case SND_SOCKET_FILTER:
	case SND_SCHED_CLS:
		kbpf_linux_skb_init(&env->skb, env->buf, BUF_SIZE, SND_HEADROOM, c->pkt_len);
		env->skb.md.mark = (uint32_t)seed_u64(c, 0);
		env->skb.md.priority = (uint32_t)(seed_u64(c, 0) >> 32);
		env->skb.md.protocol = (uint32_t)seed_u64(c, 1) & 0xffff;
		env->skb.md.hash = (uint32_t)seed_u64(c, 2);
		env->skb.md.ifindex = (uint32_t)seed_u64(c, 3) & 0xff;
		memcpy(env->skb.md.cb, c->seed + 40, sizeof(env->skb.md.cb));
		*ctx_size = sizeof(env->skb);
		return &env->skb;
	case SND_XDP:
		kbpf_linux_xdp_init(&env->xdp, env->buf, BUF_SIZE, SND_HEADROOM, c->pkt_len);
		env->xdp.md.ingress_ifindex = (uint32_t)seed_u64(c, 0) & 0xff;
		env->xdp.md.rx_queue_index = (uint32_t)seed_u64(c, 1) & 0xf;
		*ctx_size = sizeof(env->xdp);
		return &env->xdp;
	default:
		memset(env->ctx_gen, 0, SND_SYSCALL_CTX);
		memcpy(env->ctx_gen, c->seed, 64);
		*ctx_size = SND_SYSCALL_CTX;
		return env->ctx_gen;
	}
}

static int snap_take(struct snd_env *env, struct snd_snap *s, const void *ctx, size_t ctx_size)
{
	uint64_t key, next;
	uint32_t zero = 0;
	int n = 0;

	memcpy(s->buf, env->buf, BUF_SIZE);
	s->ctx_size = ctx_size;
	memcpy(s->ctx, ctx, ctx_size);
	for (uint32_t k = 0; k < SND_ARRAY_ENTRIES; k++)
		if (kbpf_map_lookup(env->maps[SND_MAP_ARRAY], &k, s->array[k]))
			return -EIO;
	if (kbpf_map_lookup(env->maps[SND_MAP_GLOBAL], &zero, s->global))
		return -EIO;
	/* hash: every key, sorted, so that insertion order does not matter */
	memset(s->hash, 0, sizeof(s->hash));
	for (int ret = kbpf_map_get_next_key(env->maps[SND_MAP_HASH], NULL, &next); !ret && n < SND_HASH_ENTRIES;
	     ret = kbpf_map_get_next_key(env->maps[SND_MAP_HASH], &key, &next)) {
		int i = n++;
		key = next;
		while (i > 0 && s->hash[i - 1].key > key) {
			s->hash[i] = s->hash[i - 1];
			i--;
		}
		s->hash[i].key = key;
		if (kbpf_map_lookup(env->maps[SND_MAP_HASH], &key, s->hash[i].value))
			return -EIO;
	}
	s->nr_hash = (uint32_t)n;
	return 0;
}

/* Where two snapshots differ, in words, or "" if they do not. */
static int snap_diff(const struct snd_snap *a, const struct snd_snap *b, char *out, size_t size)
{
	out[0] = 0;
	if (a->ret != b->ret)
		snprintf(out, size, "run returned %d vs %d", a->ret, b->ret);
	else if (a->r0 != b->r0)
		snprintf(out, size, "R0 0x%llx vs 0x%llx", (unsigned long long)a->r0, (unsigned long long)b->r0);
	else if (memcmp(a->array, b->array, sizeof(a->array)))
		snprintf(out, size, "array map contents differ");
	else if (memcmp(a->global, b->global, sizeof(a->global)))
		snprintf(out, size, "global (array) map contents differ");
	else if (a->nr_hash != b->nr_hash || memcmp(a->hash, b->hash, sizeof(a->hash)))
		snprintf(out, size, "hash map contents differ (%u vs %u keys)", a->nr_hash, b->nr_hash);
	else if (memcmp(a->buf, b->buf, sizeof(a->buf))) {
		size_t i = 0;
		while (a->buf[i] == b->buf[i])
			i++;
		snprintf(out, size, "packet buffer differs at byte %zd of the packet: 0x%02x vs 0x%02x",
			 (ssize_t)i - SND_HEADROOM, a->buf[i], b->buf[i]);
	} else if (a->ctx_size != b->ctx_size || memcmp(a->ctx, b->ctx, a->ctx_size)) {
		size_t i = 0;
		while (a->ctx[i] == b->ctx[i])
			i++;
		snprintf(out, size, "context differs at byte %zu: 0x%02x vs 0x%02x", i, a->ctx[i], b->ctx[i]);
	}
	return out[0] != 0;
}

/* Fill the stack below the caller with a pattern, so that a run called right after
 * finds it where it reads uninitialised stack. */
static __attribute__((noinline)) void stack_prefill(uint8_t pattern)
{
	volatile uint8_t *p = alloca(32768);
	memset((void *)p, pattern, 32768);
	__asm__ volatile("" : : "r"(p) : "memory");
}

struct run_req {
	struct kbpf_prog *prog;
	struct kbpf_prog *scrub;
	int checked;
	struct kbpf_run_opts *ropts;
	struct kbpf_run_result *rres;
	void *ctx;
	uint64_t r0;
};

static __attribute__((noinline)) int run_now(struct run_req *rq)
{
	int ret;

	if (rq->checked) {
		ret = kbpf_prog_run_opts(rq->prog, rq->ropts, rq->rres);
		rq->r0 = rq->rres->retval;
	} else {
		uint64_t ignored;
		if (rq->scrub)
			(void)kbpf_prog_run(rq->scrub, NULL, &ignored);
		ret = kbpf_prog_run(rq->prog, rq->ctx, &rq->r0);
	}
	return ret;
}

/* Run at a stack depth and with a stack pattern of the variant's. */
static __attribute__((noinline)) int run_variant(struct run_req *rq, int variant)
{
	volatile uint8_t *pad = alloca(variant ? 16 + 0x107f0 : 16); /* r10 differs in bits 4-10 and 16 */
	pad[0] = 0;
	stack_prefill(variant ? 0xa5 : 0x00);
	int ret = run_now(rq);
	__asm__ volatile("" : : "r"(pad) : "memory");
	return ret;
}

/* One run of prog from c's starting state into snapshot s. */
static bool calls_tail_call(const struct snd_case *c)
{
	for (size_t i = 0; i < c->cnt; i++)
		if (c->insns[i].code == (BPF_JMP | BPF_CALL) && !c->insns[i].src_reg &&
		    c->insns[i].imm == BPF_FUNC_tail_call)
			return true;
	return false;
}

static int run_one(struct snd_env *env, const struct snd_case *c, struct kbpf_prog *prog, int checked,
		   int variant, struct snd_snap *s, struct snd_result *res)
{
	size_t ctx_size;
	char err[512] = "";
	void *ctx = state_reset(env, c, &ctx_size);
	struct kbpf_mem_region regions[3];
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = regions, .max_insns = CHECK_BUDGET,
		.err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	struct run_req rq = { .prog = prog, .scrub = env->scrub[variant ? 1 : 0], .checked = checked, .ropts = &ro,
			      .rres = &rr, .ctx = ctx };
	if (variant) { /* the checked interpreter's own stack, with the variant's pattern */
		ro.flags |= KBPF_RUN_STACK_FILL;
		ro.stack_fill = 0xa5;
	}
	int ret = snd_maps_reset(env, c);

	if (ret)
		return ret;
	/* exactly what the program was given: its context and the packet's bytes (not the
	 * headroom or tailroom around them); the maps' storage is added by the interpreter */
	regions[0] = (struct kbpf_mem_region){ ctx, ctx_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	ro.nr_regions = 1;
	if (c->type != SND_SYSCALL && moves_packet(c))
		regions[ro.nr_regions++] = (struct kbpf_mem_region){ env->buf, BUF_SIZE, KBPF_MEM_READ | KBPF_MEM_WRITE,
			"packet buffer (headroom included: the program moves the packet)" };
	else if (c->type != SND_SYSCALL)
		regions[ro.nr_regions++] = (struct kbpf_mem_region){ env->buf + SND_HEADROOM, c->pkt_len,
			KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" };
	/* SKF_LL_OFF/SKF_NET_OFF: the MAC header before the packet, read-only, as one region
	 * with the packet (a load may straddle them, as in Linux's skb) */
	if (c->type == SND_SOCKET_FILTER && has_ld_abs(c))
		regions[ro.nr_regions++] = (struct kbpf_mem_region){ env->buf + SND_HEADROOM - 14, 14 + c->pkt_len,
			KBPF_MEM_READ, "mac header and packet" };
	ro.args[0] = (uint64_t)(uintptr_t)ctx;
	s->ret = run_variant(&rq, variant);
	s->r0 = rq.r0;
	char held[256];
	int locked = locks_check(env, held, sizeof(held));
	if (checked) {
		res->insns_executed = rr.insns_executed;
		if (s->ret == -ETIME)
			return -ETIME;
		/* Tail calls from subprograms nest (the target starts at the caller's depth), so
		 * a verified chain may climb past 8 frames: the run stops with -E2BIG, a safe stop
		 * both engines must agree on (docs/jit.md, "Tail calls"), not a violation. The
		 * JIT's run is compared with this one's, return code included. */
		if (s->ret && !(s->ret == -E2BIG && calls_tail_call(c))) {
			snprintf(res->why, sizeof(res->why), "checked interpreter stopped (%d) at insn %lld: %s",
				 s->ret, (long long)rr.fault_insn, err);
			return 1;
		}
	}
	if (locked) {
		snprintf(res->why, sizeof(res->why), "%s (%s)", held, checked ? "checked interpreter" : "JIT");
		return 1;
	}
	return snap_take(env, s, ctx, ctx_size);
}

/* What the case's program contains, for setting up and classifying its run. */
struct prog_shape {
	bool back_jump;    /* a backward jump or a callback: it may legitimately run long */
	uint64_t max_run;  /* without them: at most this many instructions per run */
	bool nondet_call;  /* calls a helper whose result varies between runs */
	bool tail_call;
	size_t nr_funcs;   /* func_info records (only with callbacks: 0 otherwise) */
	struct bpf_func_info fi[64];
};

static bool helper_is_nondet(int32_t id)
{
	switch (id) {
	case BPF_FUNC_ktime_get_ns: case BPF_FUNC_get_prandom_u32: case BPF_FUNC_get_smp_processor_id:
	case BPF_FUNC_get_numa_node_id: case BPF_FUNC_get_current_pid_tgid: case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_get_current_comm: case BPF_FUNC_get_socket_cookie: case BPF_FUNC_jiffies64:
	case BPF_FUNC_ktime_get_boot_ns: case BPF_FUNC_ktime_get_coarse_ns: case BPF_FUNC_ktime_get_tai_ns:
	case BPF_FUNC_get_current_task: case BPF_FUNC_get_current_task_btf: case BPF_FUNC_get_socket_uid:
	case BPF_FUNC_get_hash_recalc: case BPF_FUNC_perf_event_read:
		return true;
	default:
		return false;
	}
}

static void fi_add(struct prog_shape *sh, uint32_t insn, uint32_t type)
{
	for (size_t i = 0; i < sh->nr_funcs; i++)
		if (sh->fi[i].insn_off == insn) {
			if (type > sh->fi[i].type_id)
				sh->fi[i].type_id = type;
			return;
		}
	if (sh->nr_funcs < sizeof(sh->fi) / sizeof(sh->fi[0]))
		sh->fi[sh->nr_funcs++] = (struct bpf_func_info){ insn, type };
}

static int fi_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct bpf_func_info *)a)->insn_off, y = ((const struct bpf_func_info *)b)->insn_off;
	return x < y ? -1 : x > y;
}

/* The most instructions a run of a program without loops or callbacks can execute: a
 * function's length plus what each of its calls may run (the call graph has no cycle
 * in a verified program; a cycle or a call out of range counts as unbounded), times the
 * 34 starts a tail-call chain may give the program. Saturates at UINT64_MAX. */
static uint64_t fn_cost(const struct snd_case *c, const uint32_t *starts, size_t n, size_t f, uint64_t *memo,
			uint8_t *busy)
{
	if (memo[f])
		return memo[f];
	if (busy[f])
		return UINT64_MAX;
	busy[f] = 1;
	size_t end = f + 1 < n ? starts[f + 1] : c->cnt;
	uint64_t cost = end - starts[f];
	for (size_t i = starts[f]; i < end && cost != UINT64_MAX; i++) {
		const struct bpf_insn *in = &c->insns[i];
		if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != BPF_PSEUDO_CALL)
			continue;
		int64_t t = (int64_t)i + in->imm + 1;
		size_t g = 0;
		while (g < n && (int64_t)starts[g] != t)
			g++;
		uint64_t sub = g < n ? fn_cost(c, starts, n, g, memo, busy) : UINT64_MAX;
		cost = sub > UINT64_MAX - cost ? UINT64_MAX : cost + sub;
	}
	busy[f] = 0;
	return memo[f] = cost;
}

static uint64_t max_run(const struct snd_case *c, bool tail_call)
{
	enum { MAX_FN = 64 };
	uint32_t starts[MAX_FN] = { 0 };
	uint64_t memo[MAX_FN] = { 0 };
	uint8_t busy[MAX_FN] = { 0 };
	size_t n = 1;

	for (size_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		int64_t t = (int64_t)i + in->imm + 1;
		if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != BPF_PSEUDO_CALL)
			continue;
		if (t <= 0 || (uint64_t)t >= c->cnt)
			return UINT64_MAX;
		size_t k = 0;
		while (k < n && starts[k] < (uint32_t)t)
			k++;
		if (k < n && starts[k] == (uint32_t)t)
			continue;
		if (n == MAX_FN)
			return UINT64_MAX;
		memmove(starts + k + 1, starts + k, (n - k) * sizeof(starts[0]));
		starts[k] = (uint32_t)t;
		n++;
	}
	uint64_t cost = fn_cost(c, starts, n, 0, memo, busy);
	return tail_call ? (cost > UINT64_MAX / 34 ? UINT64_MAX : cost * 34) : cost;
}

/* A subprogram starting with "r0 = SND_GLOBAL_MARK" is a global function taking the
 * ctx, one starting with "r0 = SND_GLOBAL_MEM_MARK" (or _NN_) one taking a memory
 * argument and a scalar (the generator's convention: func_info makes it BTF_FUNC_GLOBAL).
 * Returns its FUNC's BTF id, 0 for any other subprogram. */
static uint32_t global_func_id(const struct snd_env *env, const struct snd_case *c, size_t t)
{
	const struct bpf_insn *in = &c->insns[t];
	if (in->code != (BPF_ALU64 | BPF_MOV | BPF_K) || in->dst_reg != BPF_REG_0)
		return 0;
	if (in->imm == SND_GLOBAL_MEM_MARK)
		return env->fn_global_mem;
	if (in->imm == SND_GLOBAL_MEM_NN_MARK)
		return env->fn_global_mem_nn;
	if (in->imm == SND_GLOBAL_MARK && (c->type == SND_XDP || c->type == SND_SCHED_CLS || c->type == SND_SOCKET_FILTER))
		return c->type == SND_XDP ? env->fn_global_xdp : env->fn_global_skb;
	return 0;
}

static bool global_called(const struct snd_env *env, const struct snd_case *c)
{
	for (size_t i = 0; i < c->cnt; i++) {
		int64_t t = (int64_t)i + c->insns[i].imm + 1;
		if (c->insns[i].code == (BPF_JMP | BPF_CALL) && c->insns[i].src_reg == BPF_PSEUDO_CALL && t >= 0 &&
		    (uint64_t)t < c->cnt && global_func_id(env, c, (size_t)t))
			return true;
	}
	return false;
}

/* Callbacks (ld_imm64 BPF_PSEUDO_FUNC) and tail calls mixed with bpf2bpf calls need
 * func_info: one record per subprogram (the main function, every bpf2bpf call's target,
 * every callback), typed main-like or as a callback. Other programs get none, as before. */
static void shape_scan(const struct snd_env *env, const struct snd_case *c, struct prog_shape *sh)
{
	bool cb = false, sub = false;

	memset(sh, 0, sizeof(*sh));
	for (size_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		uint8_t cls = BPF_CLASS(in->code);

		if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(in->code) != BPF_CALL &&
		    BPF_OP(in->code) != BPF_EXIT && in->off < 0)
			sh->back_jump = true;
		if (in->code == (BPF_JMP32 | BPF_JA) && in->imm < 0)
			sh->back_jump = true;
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0) {
			sh->nondet_call |= helper_is_nondet(in->imm);
			sh->tail_call |= in->imm == BPF_FUNC_tail_call;
			if (in->imm == BPF_FUNC_loop || in->imm == BPF_FUNC_for_each_map_elem ||
			    in->imm == BPF_FUNC_timer_set_callback || in->imm == BPF_FUNC_find_vma ||
			    in->imm == BPF_FUNC_user_ringbuf_drain)
				sh->back_jump = true;
		}
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC)
			cb = true;
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL)
			sub = true;
	}
	if (cb)
		sh->back_jump = true;
	sh->max_run = sh->back_jump ? UINT64_MAX : max_run(c, sh->tail_call);
	/* tail calls in subprograms need BTF too (Linux: "tail_call is not allowed in
	 * subprogs without BTF") */
	if (!(cb || (sub && sh->tail_call) || global_called(env, c)) || !env->prog_btf)
		return;
	fi_add(sh, 0, env->fn_main);
	for (size_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		int64_t t = (int64_t)i + in->imm + 1;

		if (t < 0 || (uint64_t)t >= c->cnt)
			continue;
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) {
			uint32_t id = global_func_id(env, c, (size_t)t);
			fi_add(sh, (uint32_t)t, id ? id : env->fn_main);
		}
		else if (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC)
			fi_add(sh, (uint32_t)t, env->fn_cb);
	}
	qsort(sh->fi, sh->nr_funcs, sizeof(sh->fi[0]), fi_cmp);
}

size_t snd_case_func_info(const struct snd_env *env, const struct snd_case *c, struct bpf_func_info *fi, size_t max)
{
	static struct prog_shape sh;

	shape_scan(env, c, &sh);
	if (sh.nr_funcs > max)
		return 0;
	memcpy(fi, sh.fi, sh.nr_funcs * sizeof(*fi));
	return sh.nr_funcs;
}

/* A tail call's targets: the program itself in slots 0 and 1 of its type's prog array
 * (a chain of up to 33 tail calls), nothing in slots 2 and 3 (the call falls through);
 * slot 4 (SND_TAIL_RET_SLOT) holds env->tail_ret, set once by snd_env_init. */
static void tail_slots_fill(struct snd_env *env, const struct snd_case *c, struct kbpf_prog *prog)
{
	for (uint32_t k = 0; k < 2; k++)
		(void)kbpf_map_update(env->maps[SND_MAP_PROGS + c->type], &k, &prog, BPF_ANY);
}

int snd_check(struct snd_env *env, const struct snd_case *c, struct snd_result *res)
{
	static struct prog_shape sh;
	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = env->host, .prog_type = snd_type_names[c->type], .maps = env->maps,
		.nr_maps = SND_NR_MAPS, .license = "GPL", .unprivileged = c->unprivileged,
		.log_buf = env->log, .log_size = env->log_size, .log_level = env->log_level,
		.insn_limit = env->insn_limit, .test_state_freq = c->state_freq,
	};
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	struct kbpf_prog *prog = NULL;
	char diff[512];
	int ret;

	memset(res, 0, sizeof(*res));
	if (c->type >= SND_NR_TYPES || !c->cnt) {
		res->verdict = SND_REJECTED;
		return 0;
	}
	shape_scan(env, c, &sh);
	if (sh.nr_funcs) {
		vo.prog_btf = env->prog_btf;
		vo.func_info = sh.fi;
		vo.nr_func_info = (uint32_t)sh.nr_funcs;
	}
	/* every rewrite, the growing ones too (inlined bpf_loop, tail-call guards) */
	vo.xlated_alloc = 1;
	res->verify_err = kbpf_prog_verify(c->insns, c->cnt, &vo, &vr);
	if (res->verify_err) {
		res->verdict = res->verify_err == -ENOMEM ? SND_ERROR : SND_REJECTED;
		return 0;
	}
	free(vr.xlated_idx);
	if (!vr.xlated_prog) {
		res->verdict = SND_ERROR;
		return -ENOMEM;
	}
	/* What runs is the verifier's output (as kbpf_prog_create with a prog_type makes it);
	 * created from it directly, so that each program is verified once. */
	struct kbpf_prog_opts po = {
		.sz = sizeof(po), .trusted_unverified = 1, .host = env->host, .name = "sound", .log_buf = env->log,
		.log_size = env->log_size, .maps = env->maps, .nr_maps = SND_NR_MAPS, .jit = 1,
	};
	/* R11 (the division guards' scratch register) and the per-CPU address move (the
	 * inlined bpf_get_smp_processor_id) are the verifier's: a program created unverified
	 * may not use them */
	bool ax = false;
	for (uint32_t i = 0; i < vr.xlated_cnt && !ax; i++)
		ax = (vr.xlated_prog[i].dst_reg > BPF_REG_10 && vr.xlated_prog[i].code != (BPF_LD | BPF_IMM | BPF_DW)) ||
		     (vr.xlated_prog[i].code == (BPF_ALU64 | BPF_MOV | BPF_X) && vr.xlated_prog[i].off == KBPF_ADDR_PERCPU);
	ret = ax ? -EINVAL : kbpf_prog_create(vr.xlated_prog, vr.xlated_cnt, &po, &prog);
	free(vr.xlated_prog);
	if (ret && (has_ld_abs(c) || ax)) {
		/* LD_ABS needs the type's packet hook, and R11 and the per-CPU move the verifier,
		 * which only a create with the type gives: from the program itself, verified a
		 * second time */
		po.prog_type = snd_type_names[c->type];
		po.license = "GPL";
		po.unprivileged = c->unprivileged;
		po.prog_flags = c->state_freq ? BPF_F_TEST_STATE_FREQ : 0;
		if (sh.nr_funcs) {
			po.prog_btf = env->prog_btf;
			po.func_info = sh.fi;
			po.nr_func_info = (uint32_t)sh.nr_funcs;
		}
		ret = kbpf_prog_create(c->insns, c->cnt, &po, &prog);
	}
	if (ret) {
		res->verdict = SND_UNRUNNABLE;
		snprintf(res->why, sizeof(res->why), "verified program fails kbpf_prog_create (%d): %.400s", ret,
			 env->log);
		return 0;
	}
	if (sh.tail_call)
		tail_slots_fill(env, c, prog);
	res->jited = kbpf_prog_is_jited(prog);
	ret = run_one(env, c, prog, 1, 0, env->snap[0], res);
	if (ret == -ETIME) {
		/* A program without loops or callbacks, whose calls cannot add up to 2M
		 * instructions, spins in code the verifier judged dead (rewritten "goto -1").
		 * Not run on the JIT. */
		if (sh.max_run < CHECK_BUDGET) {
			res->verdict = SND_VIOLATION;
			snprintf(res->why, sizeof(res->why), "a program without loops (at most %llu insns a run) ran "
				 "out of the checked interpreter's budget: it spins in code the verifier judged dead",
				 (unsigned long long)sh.max_run);
		} else {
			res->verdict = SND_BUDGET;
		}
		goto out;
	}
	if (ret == 1)
		goto violation;
	if (ret)
		goto error;
	if (!res->jited) {
		res->verdict = SND_PASSED;
		goto out;
	}
	/* Unprivileged programs may neither read uninitialised stack nor turn addresses into
	 * scalars, and strict cases are built not to: for them a result that changes with the
	 * stack's prior contents or depth (e.g. a helper that promised to write an output
	 * buffer but left it as it was) is a violation, unless a helper is non-deterministic. */
	bool strict = (c->unprivileged || c->strict) && !sh.nondet_call;
	ret = run_one(env, c, prog, 0, 0, env->snap[1], res);
	if (ret == 1)
		goto violation;
	if (ret)
		goto error;
	bool same = !snap_diff(env->snap[0], env->snap[1], diff, sizeof(diff));
	if (same && !strict) {
		res->verdict = SND_PASSED;
		goto out;
	}
	/* Each engine again with the stack at another depth and pre-filled with another byte:
	 * one that disagrees with itself makes the program nondet (strict: a violation). */
	for (int checked = 0; checked <= 1; checked++) {
		char d2[512];

		ret = run_one(env, c, prog, checked, 1, env->snap[2], res);
		if (ret == 1)
			goto violation;
		if (ret)
			goto error;
		if (!snap_diff(env->snap[checked ? 0 : 1], env->snap[2], d2, sizeof(d2)))
			continue;
		if (!strict) {
			res->verdict = SND_NONDET;
			goto out;
		}
		snprintf(res->why, sizeof(res->why), "%s program's result depends on the stack's prior contents "
			 "or address (%s, stack filled with 0x00 vs 0xa5: %s)", c->unprivileged ? "unprivileged" : "strict",
			 checked ? "checked interpreter" : "JIT", d2);
		goto violation;
	}
	if (same) {
		res->verdict = SND_PASSED;
		goto out;
	}
	snprintf(res->why, sizeof(res->why), "interpreter and JIT differ: %s (interpreter first)", diff);
violation:
	res->verdict = SND_VIOLATION;
	goto out;
error:
	res->verdict = SND_ERROR;
	snprintf(res->why, sizeof(res->why), "harness error %d", ret);
out:
	/* the prog arrays must not keep a program about to be freed */
	if (sh.tail_call)
		for (uint32_t k = 0; k < 2; k++)
			(void)kbpf_map_delete(env->maps[SND_MAP_PROGS + c->type], &k);
	kbpf_prog_free(prog);
	return 0;
}

int snd_case_decode(struct snd_case *c, const uint8_t *data, size_t size)
{
	memset(c, 0, sizeof(*c));
	if (size < SND_HDR_SIZE)
		return -EINVAL;
	c->type = (enum snd_type)(data[0] % SND_NR_TYPES);
	c->unprivileged = data[1] & 1;
	c->state_freq = (data[1] >> 1) & 1;
	c->strict = (data[1] >> 2) & 1;
	c->pkt_len = data[2] % (SND_PKT_MAX + 1);
	memcpy(c->seed, data + 8, 64);
	memcpy(c->pkt, data + 72, SND_PKT_MAX);
	c->insns = (const struct bpf_insn *)(data + SND_HDR_SIZE);
	c->cnt = (size - SND_HDR_SIZE) / sizeof(struct bpf_insn);
	return 0;
}

int snd_case_write(const struct snd_case *c, const char *path, const char *why)
{
	uint8_t flags = (uint8_t)((c->unprivileged ? 1 : 0) | (c->state_freq ? 2 : 0) | (c->strict ? 4 : 0));
	uint8_t hdr[SND_HDR_SIZE] = { (uint8_t)c->type, flags, (uint8_t)c->pkt_len };
	FILE *f = fopen(path, "wb");

	if (!f)
		return -errno;
	memcpy(hdr + 8, c->seed, 64);
	memcpy(hdr + 72, c->pkt, SND_PKT_MAX);
	fwrite(hdr, 1, sizeof(hdr), f);
	fwrite(c->insns, sizeof(*c->insns), c->cnt, f);
	if (fclose(f))
		return -EIO;
	if (!why)
		return 0;
	char txt[4096];
	snprintf(txt, sizeof(txt), "%s.txt", path);
	f = fopen(txt, "w");
	if (!f)
		return -errno;
	fprintf(f, "# %s\n# type %s%s%s%s, packet %zu bytes\n", why, snd_type_names[c->type],
		c->unprivileged ? " (unprivileged)" : "", c->state_freq ? " (BPF_F_TEST_STATE_FREQ)" : "",
		c->strict ? " (strict)" : "", c->pkt_len);
	kbpf_prog_disasm(c->insns, c->cnt, NULL, f);
	fclose(f);
	return 0;
}
