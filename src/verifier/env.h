/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier's internal state: register, stack, frame and path states, and the
 * per-load environment (Linux 6.1's bpf_verifier_env, reduced to what kbpf checks). */
#ifndef KBPF_VERIFIER_ENV_H
#define KBPF_VERIFIER_ENV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/insn.h>
#include <kbpf/map.h>
#include <kbpf/verifier.h>
#include "verifier/scalar.h"

struct btf; /* libbpf's */

/* Bound on stored checkpoints (each ~2 KiB per frame plus 128 bytes per stack slot
 * the program touched). */
#define MAX_STORED_STATES 30000u

#define MAX_REG 11
#define FP_REG 10
#define STACK_SLOTS (KBPF_MAX_STACK / 8)
/* bpf_loop's bound on nr_loops, and may_goto's loop budget (Linux's BPF_MAX_LOOPS) */
#define BPF_MAX_LOOPS (8 * 1024 * 1024)
#define MAX_REFS 64
#define MAX_SUBPROGS 256
#define MAX_JMP_SEQ 8192
#define MAX_VAR_OFF (1 << 29)
#define MAX_PACKET_OFF 0xffff

/* Byte types of a stack slot, printed as these characters. */
enum { STACK_INVALID = 0, STACK_SPILL, STACK_MISC, STACK_ZERO };

/* Packet pointer ranges learned from "p >= end" / "p > end". */
#define AT_PKT_END (-1)
#define BEYOND_PKT_END (-2)

struct reg {
	uint32_t type;     /* enum kbpf_reg_type | KBPF_PTR_* flags */
	int32_t off;       /* fixed offset of a pointer */
	int32_t range;     /* packet pointers */
	struct kbpf_map *map; /* map_ptr, map_value, map_key */
	uint32_t mem_size; /* PTR_TO_MEM */
	uint32_t btf_id;
	uint32_t subprogno;/* PTR_TO_FUNC */
	uint32_t id, ref_obj_id;
	struct scalar s;   /* the scalar, or a pointer's variable offset */
	uint32_t frameno;  /* PTR_TO_STACK: the frame it points into */
	bool precise;
	/* precise only by one of 6.1's rules that stop backtracking (stack.c: a scalar
	 * spilled through a pointer other than R10, a fill of zeroed slots), not because a
	 * verdict rested on it: a callback's earlier visit may still widen it (callback.c) */
	bool precise_forced;
	/* a pointer read from a BTF object (kfunc.c): Linux types it non-NULL PTR_TO_BTF_ID,
	 * kbpf maybe-NULL; KF_TRUSTED_ARGS refuses it with Linux's reason, not a reference */
	bool btf_walked;
	/* Linux 6.12's PTR_TRUSTED on a PTR_TO_BTF_ID, kept beside the type so kbpf's type
	 * comparisons and log names stay as they were (reg_is_trusted): set only where 6.12
	 * sets it — the BTF context arguments of the program types btf_ctx_access trusts
	 * (btf_ctx.c), bpf_cast_to_kern_ctx's result, an arg:trusted argument inside its
	 * function — and kept by copies, spills, offsets and NULL checks; a pointer loaded
	 * through it is not trusted. Every other BTF pointer is 6.12's plain ptr_. */
	bool btf_trusted;
};

struct stack_slot {
	struct reg spilled;
	uint8_t type[8]; /* index 7 is the lowest address, as in Linux */
};

struct ref {
	uint32_t id;
	int insn;
	uint32_t callback_ref; /* acquired in the callback of this frameno (0: not in one) */
};

struct frame {
	struct reg regs[MAX_REG];
	int callsite;  /* the call insn, -1 for an entry function */
	uint32_t frameno, subprogno;
	/* which call made this frame (env->invocations at the push; 0: an entry function):
	 * may_goto's counter is the frame's own, so a visit is cut against one of the same
	 * invocation only (prune.c) */
	uint32_t invocation;
	/* this frame reached its callback-calling helper call again from the callback's
	 * exit (callback.c), not by its own flow: only such a visit is cut as a callback
	 * iteration (prune.c) */
	bool cb_returning;
	int allocated; /* bytes of stack allocated (multiple of 8) */
	bool in_callback;
	/* an async callback's entry frame (bpf_timer_set_callback, Linux's
	 * in_async_callback_fn): R0 must be 0 at its exit; async_entry_cnt counts the
	 * entries that led here, so a second entry is not taken for a loop */
	bool in_async_callback;
	uint32_t async_entry_cnt;
	/* callbacks (callback.c, Linux 6.7+'s callback_depth): the callback visits pushed
	 * from this frame's current bpf_loop call, bounded by the loop count's maximum */
	uint32_t callback_depth;
	/* zeroed slots (STACK_ZERO) a verdict rested on, that Linux 6.12 (which keeps a
	 * spilled 0 there) would have made precise: not widened (callback.c) */
	uint64_t stack_zero_precise;
	uint16_t written;       /* regs written since the last checkpoint (log: "_w") */
	uint64_t stack_written; /* slots fully written since the last checkpoint */
	/* Liveness (Linux's REG_LIVE_READ, prune.c): in a checkpoint, the regs some path
	 * below it read before writing them; in any state, born = this frame was pushed
	 * (by a call) since the last checkpoint, so its regs have no parents there. */
	uint16_t live_read;
	uint64_t stack_live_read; /* the same for stack slots (bit spi) */
	bool born;
	int nr_refs;
	/* The stack, sized like Linux's allocated_stack: stack[0 .. allocated/8) are valid
	 * (slot 0 is fp-8). It points at inl[] (a copy is one allocation sized to what the
	 * program touched) or, once stack_grow outgrew that in place, at a heap array of
	 * stack_cap slots. Everything above stack is copied as one block; refs up to
	 * nr_refs. Free a frame with frame_free, never free(). */
	struct stack_slot *stack;
	int stack_cap;
	struct ref refs[MAX_REFS];
	struct stack_slot inl[];
};

struct vstate {
	struct frame *frame[KBPF_MAX_CALL_FRAMES];
	int curframe;
	uint32_t active_spin_lock;           /* the held lock: id of the pointer it was taken through */
	const struct kbpf_map *active_lock_map; /* ... and its map (Linux 6.12 active_lock.ptr) */
	bool speculative;
	int insn_idx;
	struct vstate *parent; /* the checkpoint this path descends from */
	uint32_t branches;
	/* precision backtracking: this segment's insns and its non-sequential steps */
	int first_insn_idx, last_insn_idx;
	bool all_precise; /* a checkpoint whose scalars, and its ancestors', are all precise */
	/* the segment's non-sequential steps, newest first, in an immutable list shared by
	 * the states copied from this one (a copy takes a reference, a step adds a node): a
	 * long segment costs one node per step, however many states copy it */
	struct hist {
		int idx, prev;
		int refs;
		bool jump;      /* a non-sequential step into idx (else only a note of idx) */
		/* the scalars linked by id at a conditional jump (Linux 6.12's linked_regs,
		 * HIST_LINK_*): precision of one is precision of all */
		uint8_t nlinked;
		uint16_t linked[6];
		uint32_t flags; /* HIST_* (Linux 6.12's insn flags) */
		struct hist *up;
	} *hist;
	int hist_cnt;
	/* callbacks iterated like loops (Linux 6.7+, callback.c and prune.c): the callback
	 * visits that led to this state (a second visit is not an infinite loop); for a
	 * checkpoint, its depth in the path (dfs_depth) and, once a path below it was cut
	 * against a state whose walk had not finished (a callback's fixed point), the mark
	 * that its liveness and precision may never be complete, so it is compared by
	 * value only, and the topmost such state (loop_hdr, NULL: unknown) */
	uint32_t callback_unroll_depth;
	/* may_goto fall-throughs taken on the way here (Linux 6.9+, jmp.c and prune.c) */
	uint32_t may_goto_depth;
	uint32_t dfs_depth;
	bool loop_incomplete;
	struct vstate *loop_hdr;
	/* explored list bookkeeping */
	struct vstate *next;
	uint32_t miss, hit;
};

struct branch {
	struct vstate *st;
	int insn, prev;
	size_t log_pos;
};

struct subprog {
	int start;
	int stack_depth;
	bool has_tail_call, has_ld_abs, has_may_goto;
	/* func_info (func_info.c): the BTF FUNC, its linkage (BTF_FUNC_STATIC/GLOBAL) */
	uint32_t btf_id;
	uint8_t linkage;
	bool unreliable; /* a call site did not match its prototype (Linux: static only) */
	/* a global function: a walk reached a call of it; it was verified (verifier.c) */
	bool called, verified;
	bool is_async_cb; /* a timer callback: runs on a stack of its own (check_max_stack_depth) */
	bool changes_pkt_data; /* it, or a function it calls, may change packet data (helper.c) */
	/* a global function's argument tags (func_info.c's arg_tags), read from the BTF
	 * once: ARG_TAG_* bits per argument, and the arguments with a tag kbpf does not know */
	bool arg_tags_known;
	uint8_t arg_tags[5], arg_tags_bad;
	/* bpf_fastcall (fastcall.c): the patterns' spill area is [lowest spill offset,
	 * fastcall_hi) (the largest pattern's end; kbpf's contract) and Linux's
	 * fastcall_stack_off (the smallest's end: the depth after removal); fastcall_keep:
	 * a pattern whose call is not inlined keeps the depth (Linux's keep_fastcall_stack);
	 * fastcall_off: another access touched the area, nothing is removed */
	int fastcall_lo, fastcall_hi;
	bool fastcall_keep, fastcall_off;
};

struct insn_aux {
	uint32_t ptr_type;   /* LDX/STX src/dst type seen first (same insn, different ptrs) */
	bool seen;
	uint8_t cfg;         /* check_cfg DFS marks */
	bool prune_point, jmp_point;
	bool calls_callback; /* a helper that calls a callback synchronously (check_cfg) */
	bool may_goto;       /* a may_goto insn: a forced checkpoint (check_cfg) */
	int map_idx;         /* ld_imm64: maps table index */
	uint32_t alu_state, alu_limit; /* unprivileged pointer-ALU sanitation seen here */
	struct kbpf_map *tail_map;    /* tail call: the prog array seen here */
	bool tail_map_poison;         /* ... and a different one on another path */
	/* ctx access conversion (fixup.c): where this access really goes at run time */
	bool ctx_conv;
	uint8_t ctx_conv_size;
	int32_t ctx_conv_off;
	/* ld_imm64 BPF_PSEUDO_BTF_ID (ld.c, Linux's aux->btf_var): the register's type */
	uint32_t btf_var_type, btf_var_id, btf_var_mem_size;
	/* bpf_loop call (loop_inline.c, Linux's loop_inline_state): inlined if fit */
	bool loop_inline_init, loop_inline_fit;
	uint32_t loop_cb_subprog;
	/* helper call whose proto has inline_load (grow.c): the variable it becomes */
	const volatile uint64_t *inline_load;
	/* helper call whose proto has run_id (fixup.c): the helper id it runs as */
	int32_t run_id;
	/* a kfunc call: which of the generic casts it is (enum kfunc_cast, kfunc.h), found
	 * once before the walk (kfunc_add) for the walk, fastcall.c and fixup.c */
	uint8_t kfunc_cast;
	/* a load through an untrusted BTF pointer (kptr.c): made fault-tolerant (fixup.c) */
	bool untrusted_load;
	/* bpf_fastcall (fastcall.c): a spill or fill of a pattern; at a call, how many pairs
	 * around it go once the walk kept the contract; drop: this insn goes (grow.c) */
	bool fastcall_pattern, fastcall_drop;
	uint8_t fastcall_spills;
};

struct env {
	const struct bpf_insn *insns;
	int cnt;
	const struct kbpf_verify_opts *opts;
	struct kbpf_verify_result *res; /* NULL: not wanted */
	struct kbpf_host *host;
	const struct kbpf_prog_type *type;
	/* Linux's two privilege tiers, each from the loader's caps (KBPF_CAP_*; SYS_ADMIN
	 * implies both): priv is bpf_capable (CAP_BPF: calls, loops, precision tracking,
	 * spilled scalars, 64 states per insn, nop removal); perfmon is CAP_PERFMON's
	 * allow_ptr_leaks, allow_uninit_stack and bypass_spec_v1/v4 (pointer leaks and
	 * comparisons, uninitialised stack reads, BTF pointer loads, no Spectre masking) */
	bool priv, perfmon;
	unsigned caps; /* the loader's KBPF_CAP_* (kbpf_verify_opts.caps, defaults applied) */
	uint32_t max_ctx_offset; /* Linux's prog->aux->max_ctx_offset (kbpf_verify_result) */
	uint32_t max_tp_access;  /* Linux's prog->aux->max_tp_access (kbpf_verify_result) */
	unsigned level;
	/* log */
	char *log;
	size_t log_size, log_len;
	bool log_full;
	/* log.c, level >= 1: the log stops at the caller's buffer size (Linux 6.1); while
	 * full only what the current insn logs is kept here, to end the caller's log */
	char log_tail[1024];
	size_t log_tail_len;
	/* program structure */
	struct subprog sub[MAX_SUBPROGS + 1];
	int nr_sub;
	bool pkt_data_known; /* sub[].changes_pkt_data computed (helper.c, at the first global call) */
	struct insn_aux *aux;
	/* walk */
	struct vstate *cur;
	struct branch *stack;
	int stack_len, stack_cap;
	struct vstate **explored; /* per insn list */
	struct vstate *free_list; /* evicted checkpoints (parents may still point at them) */
	int *states_cnt;
	uint32_t id_gen;
	uint32_t insn_processed, prev_insn_processed;
	uint32_t jmps_processed, prev_jmps_processed;
	bool test_state_freq; /* Linux's BPF_F_TEST_STATE_FREQ (kbpf_verify_opts) */
	bool test_reg_invariants; /* BPF_F_TEST_REG_INVARIANTS: inconsistent bounds fail the load */
	bool sleepable;        /* kbpf_verify_opts.sleepable or BPF_F_SLEEPABLE */
	bool strict_alignment; /* BPF_F_STRICT_ALIGNMENT without BPF_F_ANY_ALIGNMENT */
	struct kbpf_map *cgroup_storage[2]; /* the program's shared and per-CPU cgroup storage */
	uint32_t insn_limit;  /* kbpf_verify_opts.insn_limit, else KBPF_MAX_PROCESSED_INSNS */
	/* total_states stops at MAX_STORED_STATES: then no checkpoint is stored */
	uint32_t total_states, peak_states, cur_states, max_states_per_insn;
	uint32_t invocations; /* frames pushed by calls so far (struct frame.invocation) */
	int insn_idx, prev_insn_idx;
	int error_insn;
	bool scratched;
	bool hist_pushed;
	struct hist *cur_hist; /* the current insn's history entry in cur (NULL: none yet) */
	bool explore_alu_limits; /* no scalar pruning (unprivileged variable pointer ALU) */ /* the current insn's arrival was recorded in the history */
	uint32_t scratched_regs;
	uint64_t scratched_stack;
	uint32_t longest_mark_read_walk; /* Linux's "mark_read" statistic */
	int last_insn_log_len; /* length of the last printed insn line, for padding */
	size_t last_insn_log_end;
	/* kfunc.c: Pass A's table of the distinct kfunc BTF ids called (at most 256) */
	bool kfunc_tab;
	int nr_kfuncs;
	uint32_t kfunc_ids[256];
	/* btf_ctx.c: a BTF-typed context (kbpf_verify_opts.attach_btf_id) */
	uint32_t attach_proto_id;   /* its FUNC_PROTO in the host BTF; 0: the type's own ctx */
	uint32_t attach_ctx_size;   /* bytes of the u64 argument array */
	const char *attach_name;    /* "func '%s'" in messages: the member, or the FUNC's name */
	const char *attach_member;  /* the struct_ops member (get_func_proto_member), or NULL */
	struct kbpf_attach_ret ret; /* R0's rule at exit: the type's, or its attach_func's */
	/* func_info.c: BTF func_info of the program (NULL: none, Linux's rules without it) */
	const struct btf *prog_btf;
	bool has_func_info;
};

/* i + delta + 1 with Linux's 32-bit wrap-around, without C overflow. */
static inline int insn_target(int i, int64_t delta)
{
	return (int)(uint32_t)(uint64_t)((int64_t)i + delta + 1);
}

/* fixup.c: ctx access conversion (Linux's convert_ctx_accesses, same-count rewrites) */
int fixup_note_ctx(struct env *env, int insn_idx, int off, int size, const struct kbpf_ctx_access_info *info);
int fixup_apply(struct env *env, struct bpf_insn *out);

/* loop_inline.c: bpf_loop inlining (Linux's update_loop_inline_state, optimize_bpf_loop).
 * note: at a bpf_loop call whose callback is subprogno, before R1-R5 are clobbered.
 * here: whether the call at i is inlined (LOOP_PATCH_LEN insns); emit: its patch at out,
 * base the spill area's offset from R10, callback_rel the BPF-to-BPF call's imm. */
#define LOOP_PATCH_LEN 19
#define LOOP_CALL_OFF 12 /* the BPF-to-BPF call inside the patch */
int loop_inline_note(struct env *env, int insn_idx, uint32_t subprogno);
bool loop_inline_here(const struct env *env, int i, int subprog);
void loop_inline_emit(struct bpf_insn *out, int32_t base, int32_t callback_rel);
/* The spill area of bpf_loop inlining below a subprogram's stack depth (3 registers and
 * the rounding of the depth to 8). */
int loop_inline_extra_stack(int depth);

/* divmod.c: Linux's division guards (do_misc_fixups): sdiv/smod by the constant -1
 * rewritten in place (true if it was one). The guards of register divisors, which grow the
 * program, are isa/div_guard.h's, applied by grow.c. */
bool divmod_k_minus1(struct bpf_insn *in);

/* grow.c: the rewrites that make the program longer (Linux's optimize_bpf_loop and the
 * growing part of do_misc_fixups: inlined bpf_loop calls, unprivileged tail-call guards,
 * helpers that are a variable's load). After a safe walk, in (env->cnt insns, fixup_apply's
 * output) is rewritten into *out (malloc'ed; NULL when nothing grows) of *out_cnt insns,
 * and if out_idx, *out_idx (malloc'ed, with *out) where each of the cnt insns and the end
 * start in it; the subprograms' starts and stack depths in env become the new program's. */
int grow_apply(struct env *env, const struct bpf_insn *in, struct bpf_insn **out, int *out_cnt,
	       uint32_t **out_idx);

/* fastcall.c: Linux 6.12's bpf_fastcall. mark: before the walk, the spill/fill pairs
 * around calls that keep R0-R5 (mark_fastcall_patterns); stack_access: every stack access
 * of the walk into frame f from min_off up (check_fastcall_stack_contract); remove: after
 * a safe walk, the pairs to drop and the depths (remove_fastcall_spills_fills);
 * inlines_cpu_id: the call at i is kbpf's bpf_get_smp_processor_id, which grow.c inlines
 * (FASTCALL_CPU_ID_LEN insns, emitted by fastcall_emit_cpu_id). */
#define FASTCALL_CPU_ID_LEN 3
void fastcall_mark(struct env *env);
void fastcall_stack_access(struct env *env, const struct frame *f, int64_t min_off);
void fastcall_remove(struct env *env);
bool fastcall_inlines_cpu_id(const struct env *env, int i);
void fastcall_emit_cpu_id(struct bpf_insn *out);

/* log.c */
void vlog(struct env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vlog_state(struct env *env, const struct frame *f, bool all);
void mark_all_scratched(struct env *env);
static inline void scratch_reg(struct env *env, int regno)
{
	env->scratched_regs |= 1u << regno;
	env->scratched = true;
}
static inline void scratch_slot(struct env *env, int spi)
{
	if (spi >= 0 && spi < 64)
		env->scratched_stack |= 1ull << spi;
	env->scratched = true;
}
void vlog_insn(struct env *env, int idx);
void vlog_insn_text(struct env *env, int idx);
/* "mark_precise: frame%d: " what "regs=r1,r2 stack=-8,-16" (6.12's backtracking lines) */
void vlog_precise_masks(struct env *env, int frame, const char *what, uint32_t regs, uint64_t stack);
int check_r0_range(struct env *env, const struct reg *r0, int min, int max, const char *where);
const char *reg_type_str(struct env *env, uint32_t type);
void vlog_rewind(struct env *env, size_t pos);
/* Before the log goes to the caller: a truncated log ends with the last lines kept. */
void vlog_finish(struct env *env);

/* state.c */
struct vstate *state_new(void);
struct vstate *state_copy(const struct vstate *src);
void state_free(struct vstate *st);
int state_copy_into(struct vstate *dst, const struct vstate *src);
struct frame *frame_new(int callsite, uint32_t frameno, uint32_t subprogno);
void frame_free(struct frame *f);
void reg_mark_unknown(struct env *env, struct reg *r);
void reg_mark_not_init(struct env *env, struct reg *r);
void reg_mark_known(struct reg *r, uint64_t v);
/* Linux 6.12's reg_bounds_sanity_check after an update of r's bounds (ctx names the
 * update: "alu", "ldx", "true_reg1", "retval"...): 0 if they are consistent; else the
 * "REG INVARIANTS VIOLATION" line, then -EFAULT with BPF_F_TEST_REG_INVARIANTS, or
 * (without) r's eight bounds forgotten and 0. */
int reg_bounds_violation(struct env *env, struct reg *r, const char *ctx, const char *why);
static inline int reg_bounds_sanity_check(struct env *env, struct reg *r, const char *ctx)
{
	const char *why = kbpf_scalar_invariant_violation(&r->s);
	return why ? reg_bounds_violation(env, r, ctx, why) : 0;
}
bool reg_is_pointer(const struct reg *r);
bool reg_is_pkt(const struct reg *r);
/* 0, or -ENOMEM (the frame is unchanged); slots it adds are STACK_INVALID. */
int stack_grow(struct frame *f, int size);
bool reg_identical(const struct reg *a, const struct reg *b);
/* Linux 6.12's is_trusted_reg: referenced, a socket pointer without modifiers, or a
 * PTR_TO_BTF_ID marked trusted (btf_trusted) without modifiers. */
bool reg_is_trusted(const struct reg *r);

static inline struct frame *cur_frame(struct env *env)
{
	return env->cur->frame[env->cur->curframe];
}
static inline struct reg *cur_regs(struct env *env)
{
	return cur_frame(env)->regs;
}

/* walk helpers (verifier.c) */
int check_reg_read(struct env *env, int regno);
int check_reg_write(struct env *env, int regno); /* marks unknown */
struct vstate *push_branch(struct env *env, int insn, int prev, bool speculative, int *err);
int check_reg_write_mark(struct env *env, int regno, bool mark);
int acquire_ref(struct env *env, int insn);
int release_ref(struct env *env, uint32_t ref_obj_id);

/* cfg.c */
int check_subprogs(struct env *env);
int check_cfg(struct env *env);
int find_subprog(struct env *env, int start);
int check_max_stack_depth(struct env *env);
int resolve_ldimm64(struct env *env);
/* ld.c: Linux's check_pseudo_btf_id for the ld_imm64 at idx (a host variable). */
int check_pseudo_btf_id(struct env *env, const struct bpf_insn *insn, int idx);

/* alu.c */
int check_alu(struct env *env, const struct bpf_insn *insn);

/* mem.c */
int check_mem_access(struct env *env, int insn_idx, int regno, int off, int size, bool write,
		     int value_regno, bool strict_align);
int check_ldx_stx(struct env *env, const struct bpf_insn *insn, int idx);
int check_helper_mem(struct env *env, int regno, int size, bool zero_ok, bool write_raw);
int check_ptr_off_reg(struct env *env, const struct reg *r, int regno);
/* Linux's __check_ptr_off_reg: the same, a fixed offset allowed when fixed_off_ok. */
int check_ptr_off_reg_fixed(struct env *env, const struct reg *r, int regno, bool fixed_off_ok);
/* Linux's check_ptr_alignment: stack always strict, packet from NET_IP_ALIGN. */
int check_ptr_alignment(struct env *env, const struct reg *r, int off, int size, bool strict);
int check_ld_abs(struct env *env, const struct bpf_insn *insn);
int check_ld_imm(struct env *env, const struct bpf_insn *insn);

/* btf_ctx.c: BTF-typed contexts */
int btf_ctx_init(struct env *env);
/* 1 if a ctx access is allowed (info filled, log lines as Linux), 0 if not */
int btf_ctx_access(struct env *env, int off, int size, bool write, struct kbpf_ctx_access_info *info);
/* the program fills a void struct_ops member: R0 need not be set at exit */
bool btf_ctx_void_return(const struct env *env);

/* jmp.c */
int check_cond_jmp(struct env *env, const struct bpf_insn *insn, int *insn_idx);

/* helper.c */
int check_helper_call(struct env *env, const struct bpf_insn *insn, int insn_idx);
/* the prototype of helper id for this program (its type's, else the host's), or NULL */
const struct kbpf_helper_proto *helper_proto(const struct env *env, int32_t id);
int check_func_call(struct env *env, const struct bpf_insn *insn, int *insn_idx);
/* After a call: f's R0-R5 not initialised, written, and scratched for the log if asked */
void clobber_caller_saved(struct env *env, struct frame *f, bool scratch);
int prepare_func_exit(struct env *env, int *insn_idx);
int check_return_code(struct env *env);

/* func_info.c: BTF func_info, global functions (Linux's check_btf_func,
 * btf_prepare_func_args, btf_check_subprog_call) */
int check_btf_func(struct env *env);
int global_func_args(struct env *env, int sub, struct reg *regs);
int check_global_call(struct env *env, int sub, const struct reg *regs);
bool subprog_is_global(const struct env *env, int sub);
const char *subprog_name(struct env *env, int sub);

/* callback.c: callbacks of bpf_loop, bpf_for_each_map_elem, bpf_timer_set_callback.
 * is_sync_callback_helper: the callback runs during the call (0..N times).
 * push_callback: at the helper call, before R0-R5 are clobbered: pushes the callback's
 * visit (a synchronous one) or its own root (an asynchronous one).
 * callback_exit: at the callback's exit, R0 is checked, its frame popped, and the walk
 * goes back to the call insn (*insn_idx), which pushes the next visit. */
bool is_callback_helper(int32_t id);
bool is_sync_callback_helper(int32_t id);
int push_callback(struct env *env, int32_t helper_id, int insn_idx, uint32_t subprogno);
int callback_exit(struct env *env, int *insn_idx);
/* 6.12's find_prev_entry and widen_imprecise_scalars, for callbacks and may_goto: the
 * nearest state above st at insn_idx with st's frames; widening cur's imprecise scalars
 * that changed since old (loop counters converge instead of taking a visit per value). */
struct vstate *find_prev_entry(struct vstate *st, int insn_idx);
void widen_imprecise_scalars(struct env *env, const struct vstate *old, struct vstate *cur);

/* precise.c */
int mark_precise(struct env *env, int regno);
int push_hist(struct vstate *st, int idx, int prev);
/* Notes for backtracking on the current insn's history entry (made, or merged into the
 * one its arrival made), Linux 6.12's insn flags: a stack access that saved or restored a
 * spilled scalar of slot spi of frame frameno (any base register); a conditional jump
 * whose dst / src is a stack pointer; the scalars linked at a conditional jump, at most
 * HIST_LINKED_MAX, each frameno << 7 | is_reg << 6 | regno or spi. */
#define HIST_FRAME_MASK 0x7u
#define HIST_STACK_ACCESS 0x8u
#define HIST_SPI_SHIFT 4
#define HIST_DST_STACK 0x400u
#define HIST_SRC_STACK 0x800u
#define HIST_LINKED_MAX 6
#define HIST_LINK(frame, is_reg, n) ((uint16_t)((frame) << 7 | (is_reg) << 6 | (n)))
#define HIST_LINK_FRAME(l) ((int)((l) >> 7) & 7)
#define HIST_LINK_IS_REG(l) (((l) >> 6) & 1)
#define HIST_LINK_IDX(l) ((int)(l) & 63)
int hist_note_stack(struct env *env, uint32_t frameno, int spi);
int hist_note_flags(struct env *env, uint32_t flags);
int hist_note_linked(struct env *env, const uint16_t *linked, int n);
/* prune.c's hit: the precise scalars of the covering state sl (all, or only those read
 * below it) made precise in the current path's checkpoints (Linux 6.12). */
int propagate_precision(struct env *env, const struct vstate *sl, bool all);
/* The history list's references (precise.c): drop one (frees what no state holds), drop
 * the newest step of st, forget st's whole segment. */
void hist_put(struct hist *h);
void hist_pop(struct vstate *st);
void hist_clear(struct vstate *st);
void clear_precision(struct vstate *st);

/* prune.c */
int is_state_visited(struct env *env, int insn_idx);
void mark_reg_read(struct env *env, struct vstate *st, int frameno, int regno);
void mark_stack_slot_read(struct env *env, struct vstate *st, int frameno, int spi);
void update_branch_counts(struct env *env, struct vstate *st);
void explored_free(struct env *env);

#endif
