/* SPDX-License-Identifier: Apache-2.0 */
/* The soundness harness (tests/soundness/README.md): one environment (a host with Linux's
 * program types, a few maps, optionally the test host's kfuncs) and one check: verify a
 * program; if it is accepted, run it on the checked interpreter against exactly the
 * memory it was given (ctx, packet, maps) and on the JIT from the same starting state,
 * and compare R0, the maps, the packet and the context. Shared by the soundness runner
 * and the fuzz_verify_exec fuzz target. */
#ifndef KBPF_TESTS_SOUND_HARNESS_H
#define KBPF_TESTS_SOUND_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>

/* Program types a case may have (index = snd_case.type). */
enum snd_type { SND_SOCKET_FILTER, SND_SCHED_CLS, SND_XDP, SND_SYSCALL, SND_NR_TYPES };
extern const char *const snd_type_names[SND_NR_TYPES];

/* Maps of the environment, by index (map[idx:N] of a program). */
enum {
	SND_MAP_ARRAY,   /* array: key 4, value 64, 4 entries */
	SND_MAP_HASH,    /* hash: key 8, value 16, 16 entries; keys 0..3 present at start */
	SND_MAP_GLOBAL,  /* array: key 4, value 32, 1 entry: direct value access (global data) */
	/* used by the generator's templates (gen_tmpl.c) */
	SND_MAP_EMPTY,   /* hash: key 8, value 16, 16 entries, always empty at start */
	SND_MAP_LOCK,    /* array: key 4, value 8 (int cnt; struct bpf_spin_lock at 4), 2 entries */
	SND_MAP_PROGS,   /* prog arrays, one per program type (SND_MAP_PROGS + type), 5 slots: */
	SND_NR_MAPS = SND_MAP_PROGS + 4, /* slots 0 and 1 hold the program itself, 2 and 3 none,
					  * 4 a program returning SND_TAIL_RET */
};
#define SND_ARRAY_VALUE 64
#define SND_ARRAY_ENTRIES 4
#define SND_HASH_KEY 8
#define SND_HASH_VALUE 16
#define SND_HASH_ENTRIES 16
#define SND_HASH_START 4
#define SND_GLOBAL_VALUE 32
#define SND_LOCK_VALUE 8
#define SND_LOCK_OFF 4
#define SND_LOCK_ENTRIES 2
#define SND_PROG_SLOTS 5
#define SND_TAIL_RET_SLOT 4
#define SND_TAIL_RET 0x1000 /* what the program in slot 4 returns: no index into any value */

/* Packet: at most this many bytes, after this much headroom. */
#define SND_PKT_MAX 128
#define SND_HEADROOM KBPF_LINUX_XDP_HEADROOM
/* The syscall type's context: Linux lets such programs read below U16_MAX. */
#define SND_SYSCALL_CTX 65536

/* Test-host kfuncs the generator may call (indexes into snd_env.kfunc_id). */
enum {
	SND_KF_ARG_U8, SND_KF_ARG_S16, SND_KF_ARG_U32, SND_KF_ARG_S32, SND_KF_RET_U8,
	SND_KF_RET_S8, SND_KF_RET_S16, SND_KF_RET_U32, SND_KF_RET_S32, SND_KF_RET_BOOL,
	SND_KF_MIX5, SND_KF_SUM5, SND_KF_INC, SND_KF_PTR_READ, SND_KF_PTR_STORE,
	SND_NR_GEN_KFUNCS, /* the ones the generator's kfunc snippet picks from */
	SND_KF_PAIR_SUM = SND_NR_GEN_KFUNCS, SND_KF_PAIR_FILL, /* struct kt_pair * (templates) */
	SND_NR_KFUNCS,
};

struct snd_snap;

struct snd_env {
	struct kbpf_host *host;
	struct kbpf_map *maps[SND_NR_MAPS];
	uint32_t kfunc_id[SND_NR_KFUNCS]; /* 0: kfunc not available */
	int has_kfuncs;
	/* scratch state, reused across checks */
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	uint8_t *ctx_gen;                 /* SND_SYSCALL_CTX bytes */
	struct snd_snap *snap[3];         /* interpreter, JIT, JIT again */
	struct kbpf_prog *scrub[2];       /* JIT programs filling their stack frames with 0x00 / 0xa5 */
	struct kbpf_prog *tail_ret[SND_NR_TYPES]; /* slot SND_TAIL_RET_SLOT of each type's prog array */
	uint8_t *buf;                     /* headroom + packet */
	char *log;
	size_t log_size;
	unsigned log_level;               /* of the verification (KBPF_LOG_*); 0 by default */
	uint32_t insn_limit;              /* kbpf_verify_opts.insn_limit; 0: Linux's 1M */
	/* BTF for func_info, given to programs with callbacks (ld_imm64 BPF_PSEUDO_FUNC):
	 * FUNC ids of a main-like function and of a callback */
	struct btf *prog_btf;
	uint32_t fn_main, fn_cb, fn_global_skb, fn_global_xdp, fn_global_mem, fn_global_mem_nn;
};
/* The first instruction of a generated global function (r0 = this): see snd_check.
 * SND_GLOBAL_MARK: int f(ctx); the MEM ones: int f(struct gmem *p, u64 n), p SND_GMEM_SIZE
 * bytes or NULL (MEM_NN: tagged arg:nonnull). */
#define SND_GLOBAL_MARK 0x676c6f62
#define SND_GLOBAL_MEM_MARK 0x676d656d
#define SND_GLOBAL_MEM_NN_MARK 0x676d6e6e
#define SND_GMEM_SIZE 32

/* One case: a program and its inputs. */
struct snd_case {
	enum snd_type type;
	int unprivileged;
	int state_freq;                   /* BPF_F_TEST_STATE_FREQ: a checkpoint at every prune point */
	/* deterministic by construction (an unmutated generated program): its results must
	 * not depend on the stack's prior contents or its address, so a difference between
	 * runs with different stack fills is a violation, not "nondet" (unprivileged
	 * programs are always held to this) */
	int strict;
	const struct bpf_insn *insns;
	size_t cnt;
	uint8_t pkt[SND_PKT_MAX];
	size_t pkt_len;
	uint8_t seed[64];                 /* initial map values and ctx fields */
};

enum snd_verdict {
	SND_REJECTED = 0, /* the verifier refused it: nothing to check */
	SND_PASSED,       /* accepted, ran clean, interpreter and JIT agree */
	SND_NONDET,       /* accepted, ran clean; its results depend on addresses, uninitialised
			   * stack or a non-deterministic helper: interp/JIT not compared */
	SND_BUDGET,       /* accepted; ran out of the checked interpreter's budget */
	SND_VIOLATION,    /* a finding: why says what */
	SND_ERROR,        /* the harness itself failed (setup, ENOMEM) */
	SND_UNRUNNABLE,   /* accepted by the verifier, refused by kbpf_prog_create (an engine
			   * lacks an instruction): safe, but listed; why says what */
};

struct snd_result {
	enum snd_verdict verdict;
	int verify_err;         /* kbpf_prog_verify's return */
	int jited;              /* the JIT took the program */
	uint64_t insns_executed;
	char why[1024];
};

/* with_kfuncs: register the test host's kfuncs (needs this binary's BTF: the runner has
 * it, fuzz targets do not). Returns 0 or a negative errno. */
int snd_env_init(struct snd_env *env, int with_kfuncs);
void snd_env_free(struct snd_env *env);
int snd_check(struct snd_env *env, const struct snd_case *c, struct snd_result *res);
/* The func_info snd_check gives c's program (programs with callbacks, or tail calls and
 * bpf2bpf calls): up to max records into fi, typed in env->prog_btf. Returns how many
 * (0: none, the program is verified without BTF). */
struct bpf_func_info;
size_t snd_case_func_info(const struct snd_env *env, const struct snd_case *c, struct bpf_func_info *fi, size_t max);
/* Reset the environment's maps to the state c->seed describes. */
int snd_maps_reset(struct snd_env *env, const struct snd_case *c);

/* A case as bytes (the fuzz_verify_exec input format, also the findings' format):
 * byte 0 type, byte 1 flags (bit 0 unprivileged, bit 1 state_freq, bit 2 strict), byte 2
 * packet length, bytes 3..7 zero,
 * 64 seed bytes, SND_PKT_MAX packet bytes, then the instructions. */
#define SND_HDR_SIZE (8 + 64 + SND_PKT_MAX)
/* Fill c from data (c->insns points into data). Returns 0, or -EINVAL if too short. */
int snd_case_decode(struct snd_case *c, const uint8_t *data, size_t size);
/* Write c to path (and a disassembly to path.txt if why is non-NULL). */
int snd_case_write(const struct snd_case *c, const char *path, const char *why);

#endif
