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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#ifdef SND_WITH_KFUNCS
#include <bpf/btf.h>
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

int snd_env_init(struct snd_env *env, int with_kfuncs)
{
	static const struct kbpf_map_def defs[SND_NR_MAPS] = {
		[SND_MAP_ARRAY] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = SND_ARRAY_VALUE, .max_entries = SND_ARRAY_ENTRIES, .name = "array" },
		[SND_MAP_HASH] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_HASH, .key_size = SND_HASH_KEY,
				   .value_size = SND_HASH_VALUE, .max_entries = SND_HASH_ENTRIES, .name = "hash" },
		[SND_MAP_GLOBAL] = { .sz = sizeof(struct kbpf_map_def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				     .value_size = SND_GLOBAL_VALUE, .max_entries = 1, .name = "global" },
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
	for (int i = 0; !ret && i < SND_NR_MAPS; i++)
		ret = kbpf_map_create(&defs[i], &env->maps[i]);
	if (ret) {
		snd_env_free(env);
		return ret;
	}
	kbpf_linux_trace_printk_set(printk_sink, NULL);
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
	for (int i = 0; i < SND_NR_MAPS; i++)
		kbpf_map_free(env->maps[i]);
	kbpf_host_free(env->host);
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
	return 0;
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
	void *ctx;
	uint64_t r0;
};

static __attribute__((noinline)) int run_now(struct run_req *rq)
{
	int ret;

	if (rq->checked) {
		ret = kbpf_prog_run_opts(rq->prog, rq->ropts);
		rq->r0 = rq->ropts->retval;
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
	struct run_req rq = { .prog = prog, .scrub = env->scrub[variant ? 1 : 0], .checked = checked, .ropts = &ro,
			      .ctx = ctx };
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
	if (c->type != SND_SYSCALL)
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
	if (checked) {
		res->insns_executed = ro.insns_executed;
		if (s->ret == -ETIME)
			return -ETIME;
		if (s->ret) {
			snprintf(res->why, sizeof(res->why), "checked interpreter stopped (%d) at insn %lld: %s",
				 s->ret, (long long)ro.fault_insn, err);
			return 1;
		}
	}
	return snap_take(env, s, ctx, ctx_size);
}

int snd_check(struct snd_env *env, const struct snd_case *c, struct snd_result *res)
{
	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = env->host, .prog_type = snd_type_names[c->type], .maps = env->maps,
		.nr_maps = SND_NR_MAPS, .license = "GPL", .unprivileged = c->unprivileged,
		.log_buf = env->log, .log_size = env->log_size, .log_level = env->log_level,
		.insn_limit = env->insn_limit,
	};
	struct kbpf_prog *prog = NULL;
	char diff[512];
	int ret;

	memset(res, 0, sizeof(*res));
	if (c->type >= SND_NR_TYPES || !c->cnt) {
		res->verdict = SND_REJECTED;
		return 0;
	}
	/* every rewrite, the growing ones too (inlined bpf_loop, tail-call guards) */
	vo.xlated_alloc = 1;
	res->verify_err = kbpf_prog_verify(c->insns, c->cnt, &vo);
	if (res->verify_err) {
		res->verdict = res->verify_err == -ENOMEM ? SND_ERROR : SND_REJECTED;
		return 0;
	}
	free(vo.xlated_idx);
	if (!vo.xlated_prog) {
		res->verdict = SND_ERROR;
		return -ENOMEM;
	}
	/* What runs is the verifier's output (as kbpf_prog_create with a prog_type makes it);
	 * created from it directly, so that each program is verified once. */
	struct kbpf_prog_opts po = {
		.sz = sizeof(po), .trusted_unverified = 1, .host = env->host, .name = "sound", .log_buf = env->log,
		.log_size = env->log_size, .maps = env->maps, .nr_maps = SND_NR_MAPS, .jit = 1,
	};
	ret = kbpf_prog_create(vo.xlated_prog, vo.xlated_cnt, &po, &prog);
	free(vo.xlated_prog);
	if (ret && has_ld_abs(c)) {
		/* LD_ABS needs the type's packet hook, which only a create with the type takes:
		 * from the program itself, verified a second time (such programs are rare) */
		po.prog_type = snd_type_names[c->type];
		po.license = "GPL";
		po.unprivileged = c->unprivileged;
		ret = kbpf_prog_create(c->insns, c->cnt, &po, &prog);
	}
	if (ret) {
		res->verdict = SND_UNRUNNABLE;
		snprintf(res->why, sizeof(res->why), "verified program fails kbpf_prog_create (%d): %.400s", ret,
			 env->log);
		return 0;
	}
	res->jited = kbpf_prog_is_jited(prog);
	ret = run_one(env, c, prog, 1, 0, env->snap[0], res);
	if (ret == -ETIME) {
		res->verdict = SND_BUDGET;
		goto out;
	}
	if (ret == 1) {
		res->verdict = SND_VIOLATION;
		goto out;
	}
	if (ret)
		goto error;
	if (!res->jited) {
		res->verdict = SND_PASSED;
		goto out;
	}
	ret = run_one(env, c, prog, 0, 0, env->snap[1], res);
	if (ret)
		goto error;
	if (!snap_diff(env->snap[0], env->snap[1], diff, sizeof(diff))) {
		res->verdict = SND_PASSED;
		goto out;
	}
	/* they differ: is either engine consistent with itself at another depth/pattern? */
	ret = run_one(env, c, prog, 0, 1, env->snap[2], res);
	if (ret)
		goto error;
	if (snap_diff(env->snap[1], env->snap[2], res->why, sizeof(res->why))) {
		res->why[0] = 0;
		res->verdict = SND_NONDET;
		goto out;
	}
	ret = run_one(env, c, prog, 1, 1, env->snap[2], res);
	if (ret == 1) {
		res->verdict = SND_VIOLATION;
		goto out;
	}
	if (ret)
		goto error;
	if (snap_diff(env->snap[0], env->snap[2], res->why, sizeof(res->why))) {
		res->why[0] = 0;
		res->verdict = SND_NONDET;
		goto out;
	}
	res->verdict = SND_VIOLATION;
	snprintf(res->why, sizeof(res->why), "interpreter and JIT differ: %s (interpreter first)", diff);
	goto out;
error:
	res->verdict = SND_ERROR;
	snprintf(res->why, sizeof(res->why), "harness error %d", ret);
out:
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
	c->pkt_len = data[2] % (SND_PKT_MAX + 1);
	memcpy(c->seed, data + 8, 64);
	memcpy(c->pkt, data + 72, SND_PKT_MAX);
	c->insns = (const struct bpf_insn *)(data + SND_HDR_SIZE);
	c->cnt = (size - SND_HDR_SIZE) / sizeof(struct bpf_insn);
	return 0;
}

int snd_case_write(const struct snd_case *c, const char *path, const char *why)
{
	uint8_t hdr[SND_HDR_SIZE] = { (uint8_t)c->type, (uint8_t)(c->unprivileged ? 1 : 0), (uint8_t)c->pkt_len };
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
	fprintf(f, "# %s\n# type %s%s, packet %zu bytes\n", why, snd_type_names[c->type],
		c->unprivileged ? " (unprivileged)" : "", c->pkt_len);
	kbpf_prog_disasm(c->insns, c->cnt, NULL, f);
	fclose(f);
	return 0;
}
