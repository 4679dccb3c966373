/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf_prog_verify: the pipeline (Linux 6.1 bpf_check) and the main walk (do_check). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/isa.h>
#include "verifier/env.h"
#include "verifier/kfunc.h"
#include "verifier/kptr.h"
#include "opts.h"

int check_reg_read(struct env *env, int regno)
{
	if (regno >= MAX_REG) {
		vlog(env, "R%d is invalid\n", regno);
		return -EINVAL;
	}
	scratch_reg(env, regno);
	if (cur_regs(env)[regno].type == KBPF_NOT_INIT) {
		vlog(env, "R%d !read_ok\n", regno);
		return -EACCES;
	}
	mark_reg_read(env, env->cur, env->cur->curframe, regno);
	return 0;
}

int check_reg_write_mark(struct env *env, int regno, bool mark)
{
	if (regno >= MAX_REG) {
		vlog(env, "R%d is invalid\n", regno);
		return -EINVAL;
	}
	if (regno == FP_REG) {
		vlog(env, "frame pointer is read only\n");
		return -EACCES;
	}
	scratch_reg(env, regno);
	cur_frame(env)->written |= 1u << regno;
	if (mark)
		reg_mark_unknown(env, &cur_regs(env)[regno]);
	return 0;
}

int check_reg_write(struct env *env, int regno)
{
	return check_reg_write_mark(env, regno, true);
}

struct vstate *push_branch(struct env *env, int insn, int prev, bool speculative, int *err)
{
	if (env->stack_len >= env->stack_cap) {
		int nc = env->stack_cap ? env->stack_cap * 2 : 64;
		struct branch *b = realloc(env->stack, nc * sizeof(*b));
		if (!b) {
			*err = -ENOMEM;
			return NULL;
		}
		env->stack = b;
		env->stack_cap = nc;
	}
	struct vstate *st = state_copy(env->cur);
	if (!st) {
		*err = -ENOMEM;
		return NULL;
	}
	st->insn_idx = insn;
	st->branches = 1;
	st->speculative |= speculative;
	if (st->parent)
		st->parent->branches++;
	env->stack[env->stack_len++] = (struct branch){ st, insn, prev, env->log_len };
	if (env->stack_len > MAX_JMP_SEQ) {
		vlog(env, "The sequence of %d jumps is too complex.\n", env->stack_len);
		*err = -E2BIG;
		return NULL;
	}
	return st;
}

static int pop_branch(struct env *env, int *insn, int *prev)
{
	if (!env->stack_len)
		return -ENOENT;
	struct branch *b = &env->stack[--env->stack_len];
	int err = state_copy_into(env->cur, b->st);
	state_free(b->st);
	*insn = b->insn;
	*prev = b->prev;
	if (!(env->level & KBPF_LOG_LEVEL2))
		vlog_rewind(env, b->log_pos);
	return err;
}

int acquire_ref(struct env *env, int insn)
{
	struct frame *f = cur_frame(env);
	if (f->nr_refs >= MAX_REFS) {
		vlog(env, "too many references held\n");
		return -E2BIG;
	}
	uint32_t id = ++env->id_gen;
	f->refs[f->nr_refs++] = (struct ref){ id, insn, f->in_callback ? f->frameno : 0 };
	return (int)id;
}

/* Drop reference id from the frame and invalidate every register carrying it. */
int release_ref(struct env *env, uint32_t id)
{
	struct frame *f = cur_frame(env);
	int i;
	for (i = 0; i < f->nr_refs; i++)
		if (f->refs[i].id == id)
			break;
	if (i == f->nr_refs)
		return -EINVAL;
	/* a callback may not release what its caller holds */
	if (f->in_callback && f->refs[i].callback_ref != f->frameno)
		return -EINVAL;
	f->refs[i] = f->refs[--f->nr_refs];
	for (int fr = 0; fr <= env->cur->curframe; fr++) {
		struct frame *ff = env->cur->frame[fr];
		for (int r = 0; r < MAX_REG; r++)
			if (ff->regs[r].ref_obj_id == id) {
				if (env->perfmon)
					reg_mark_unknown(env, &ff->regs[r]);
				else
					reg_mark_not_init(env, &ff->regs[r]);
			}
		for (int s = 0; s < ff->allocated / 8; s++)
			if (ff->stack[s].type[7] == STACK_SPILL && ff->stack[s].spilled.ref_obj_id == id) {
				reg_mark_unknown(env, &ff->stack[s].spilled);
				for (int b = 0; b < 8; b++)
					ff->stack[s].type[b] = STACK_MISC;
			}
	}
	return 0;
}

static int check_reference_leak(struct env *env)
{
	struct frame *f = cur_frame(env);
	if (env->cur->curframe && !f->in_callback)
		return 0;
	bool lingering = false;
	for (int i = 0; i < f->nr_refs; i++) {
		/* a callback answers only for what it acquired itself */
		if (f->in_callback && f->refs[i].callback_ref != f->frameno)
			continue;
		vlog(env, "Unreleased reference id=%u alloc_insn=%d\n", f->refs[i].id, f->refs[i].insn);
		lingering = true;
	}
	return lingering ? -EINVAL : 0;
}

static void log_insn_state(struct env *env, int insn_idx)
{
	if (!(env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)))
		return;
	if (env->scratched) {
		/* Nothing logged since the last insn line: the state goes on that line. */
		if (env->last_insn_log_end && env->last_insn_log_end == env->log_len && env->log_len) {
			int len = env->last_insn_log_len;
			vlog_rewind(env, env->log_len - 1);
			int w = len + 4 > 40 ? len + 4 : 40;
			w = ((w + 7) & ~7) - len - 1;
			vlog(env, "%*c;", w, ' ');
		} else {
			vlog(env, "%d:", insn_idx);
		}
		vlog_state(env, cur_frame(env), false);
	}
	vlog_insn(env, insn_idx);
}

/* Linux's print_insn_state at the end of a conditional jump. */
static void log_insn_state_only(struct env *env, int insn_idx)
{
	if (!(env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) || !env->scratched)
		return;
	if (env->last_insn_log_end && env->last_insn_log_end == env->log_len && env->log_len) {
		int len = env->last_insn_log_len;
		vlog_rewind(env, env->log_len - 1);
		int w = len + 4 > 40 ? len + 4 : 40;
		w = ((w + 7) & ~7) - len - 1;
		vlog(env, "%*c;", w, ' ');
	} else {
		vlog(env, "%d:", insn_idx);
	}
	vlog_state(env, cur_frame(env), false);
}

/* The walk returns from a subprog's frame at insn *insn_idx (an exit, or LD_ABS's
 * hidden one) to its caller. */
static int leave_subprog(struct env *env, int *insn_idx, int *prev)
{
	*prev = *insn_idx;
	return prepare_func_exit(env, insn_idx);
}

/* An insn that may also end the called function (LD_ABS finding no packet bytes: R0 = 0;
 * a tail call that succeeds: R0 unknown): the path that goes on is pushed, this one
 * returns to the caller. */
static int hidden_exit(struct env *env, int *insn_idx, int *prev, bool r0_zero)
{
	int err;
	if (!push_branch(env, *insn_idx + 1, *insn_idx, false, &err))
		return err;
	struct reg *r0 = &cur_regs(env)[0];
	if (r0_zero)
		reg_mark_known(r0, 0);
	else
		reg_mark_unknown(env, r0);
	return leave_subprog(env, insn_idx, prev);
}

static int do_check(struct env *env, int start)
{
	const struct bpf_insn *insns = env->insns;
	bool do_print_state = false;
	int insn_idx = start, prev = -1, err;

	mark_all_scratched(env);
	for (;;) {
		env->prev_insn_idx = prev;
		if (insn_idx < 0 || insn_idx >= env->cnt) {
			vlog(env, "invalid insn idx %d insn_cnt %d\n", insn_idx, env->cnt);
			return -EFAULT;
		}
		env->insn_idx = insn_idx;
		env->error_insn = insn_idx;
		const struct bpf_insn *insn = &insns[insn_idx];
		uint8_t cls = BPF_CLASS(insn->code);
		if (++env->insn_processed > env->insn_limit) {
			vlog(env, "BPF program is too large. Processed %d insn\n", env->insn_processed);
			return -E2BIG;
		}
		/* Non-sequential steps go into the path's history (precision backtracking). */
		env->hist_pushed = false;
		env->cur_hist = NULL;
		if (prev >= 0 && insn_idx != prev + 1 &&
		    !(insns[prev].code == (BPF_LD | BPF_IMM | BPF_DW) && insn_idx == prev + 2)) {
			if ((err = push_hist(env->cur, insn_idx, prev)))
				return err;
			env->cur->hist->jump = true;
			env->cur_hist = env->cur->hist;
			env->hist_pushed = true;
		}
		err = is_state_visited(env, insn_idx);
		if (err < 0)
			return err;
		if (err == 1) {
			if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
				if (do_print_state)
					vlog(env, "\nfrom %d to %d%s: safe\n", prev, insn_idx,
					     env->cur->speculative ? " (speculative execution)" : "");
				else
					vlog(env, "%d: safe\n", insn_idx);
			}
			goto process_exit;
		}
		if ((env->level & KBPF_LOG_LEVEL2) && do_print_state) {
			vlog(env, "\nfrom %d to %d%s:", prev, insn_idx,
			     env->cur->speculative ? " (speculative execution)" : "");
			vlog_state(env, cur_frame(env), true);
			env->last_insn_log_end = 0;
		}
		do_print_state = false;
		log_insn_state(env, insn_idx);
		env->aux[insn_idx].seen = true;

		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			err = check_alu(env, insn);
			break;
		case BPF_LDX:
		case BPF_STX:
		case BPF_ST:
			err = check_ldx_stx(env, insn, insn_idx);
			break;
		case BPF_JMP:
		case BPF_JMP32: {
			uint8_t op = BPF_OP(insn->code);
			env->jmps_processed++;
			if (op == BPF_CALL) {
				if (BPF_SRC(insn->code) != BPF_K ||
				    (insn->src_reg != BPF_PSEUDO_KFUNC_CALL && insn->off != 0) ||
				    (insn->src_reg != 0 && insn->src_reg != BPF_PSEUDO_CALL &&
				     insn->src_reg != BPF_PSEUDO_KFUNC_CALL) ||
				    insn->dst_reg != 0 || cls == BPF_JMP32) {
					vlog(env, "BPF_CALL uses reserved fields\n");
					return -EINVAL;
				}
				/* Linux 6.12: under the lock, no helper but bpf_spin_unlock and no
				 * kfunc (kbpf has none of the graph API's); static subprogs may
				 * be called (they run on the caller's state), global ones not */
				if (env->cur->active_spin_lock &&
				    ((insn->src_reg == 0 && insn->imm != BPF_FUNC_spin_unlock) ||
				     insn->src_reg == BPF_PSEUDO_KFUNC_CALL)) {
					vlog(env, "function calls are not allowed while holding a lock\n");
					return -EINVAL;
				}
				if (env->cur->active_spin_lock && insn->src_reg == BPF_PSEUDO_CALL) {
					int callee = find_subprog(env, insn_target(insn_idx, insn->imm));
					if (callee < 0 || subprog_is_global(env, callee)) {
						vlog(env, "global function calls are not allowed while holding a lock,\n"
							  "use static function instead\n");
						return -EINVAL;
					}
				}
				if (insn->src_reg == BPF_PSEUDO_CALL) {
					err = check_func_call(env, insn, &insn_idx);
					if (err)
						return err;
					prev = env->insn_idx;
					do_print_state = true;
					continue;
				}
				if (insn->src_reg == BPF_PSEUDO_KFUNC_CALL) {
					/* liveness: the kfunc's arguments are read (all five: never fewer) */
					for (int a = 1; a <= 5; a++)
						if (cur_regs(env)[a].type != KBPF_NOT_INIT)
							mark_reg_read(env, env->cur, env->cur->curframe, a);
					err = check_kfunc_call(env, insn, insn_idx);
				} else {
					err = check_helper_call(env, insn, insn_idx);
					if (!err && insn->imm == BPF_FUNC_tail_call && env->cur->curframe) {
						/* A tail call that succeeds ends the called function:
						 * its caller goes on with the target's R0 (the engines'
						 * semantics, as Linux's). The fall-through is pushed;
						 * this path takes that exit with R0 unknown (the live
						 * 6.18 kernel does; 6.12 followed the fall-through only,
						 * and the caller trusted the function's own R0) */
						if ((err = hidden_exit(env, &insn_idx, &prev, false)))
							return err;
						do_print_state = true;
						continue;
					}
				}
			} else if (op == BPF_JA) {
				if (BPF_SRC(insn->code) != BPF_K || insn->src_reg || insn->dst_reg ||
				    (cls == BPF_JMP && insn->imm) || (cls == BPF_JMP32 && insn->off)) {
					vlog(env, "BPF_JA uses reserved fields\n");
					return -EINVAL;
				}
				prev = insn_idx;
				insn_idx = insn_target(insn_idx, cls == BPF_JMP ? insn->off : insn->imm);
				continue;
			} else if (op == BPF_EXIT) {
				if (BPF_SRC(insn->code) != BPF_K || insn->imm || insn->src_reg || insn->dst_reg ||
				    cls == BPF_JMP32) {
					vlog(env, "BPF_EXIT uses reserved fields\n");
					return -EINVAL;
				}
				/* Linux 6.12: a static subprog may return with the lock held
				 * (its caller unlocks); the program may not end with it */
				if (env->cur->active_spin_lock && !env->cur->curframe) {
					vlog(env, "bpf_spin_unlock is missing\n");
					return -EINVAL;
				}
				err = check_reference_leak(env);
				if (err)
					return err;
				if (env->cur->curframe) {
					if ((err = leave_subprog(env, &insn_idx, &prev)))
						return err;
					do_print_state = true;
					continue;
				}
				err = check_return_code(env);
				if (err)
					return err;
				goto process_exit;
			} else {
				int next = insn_idx;
				err = check_cond_jmp(env, insn, &next);
				if (err)
					return err;
				log_insn_state_only(env, insn_idx);
				prev = insn_idx;
				insn_idx = next + 1;
				continue;
			}
			break;
		}
		case BPF_LD: {
			uint8_t mode = BPF_MODE(insn->code);
			if (mode == BPF_ABS || mode == BPF_IND) {
				err = check_ld_abs(env, insn);
				if (!err && env->cur->curframe) {
					/* Linux 6.12 (check_ld_abs): a load that finds no packet
					 * bytes returns 0 from the current function (both engines
					 * do so), and in a subprog its caller goes on: the success
					 * path is pushed, this one takes that hidden exit */
					if ((err = hidden_exit(env, &insn_idx, &prev, true)))
						return err;
					do_print_state = true;
					continue;
				}
			} else if (mode == BPF_IMM) {
				err = check_ld_imm(env, insn);
				if (!err) {
					prev = insn_idx;
					insn_idx += 2;
					continue;
				}
			} else {
				vlog(env, "invalid BPF_LD mode\n");
				return -EINVAL;
			}
			break;
		}
		default:
			vlog(env, "unknown insn class %d\n", cls);
			return -EINVAL;
		}
		if (err)
			return err;
		prev = insn_idx;
		insn_idx++;
		continue;
process_exit:
		mark_all_scratched(env);
		update_branch_counts(env, env->cur);
		err = pop_branch(env, &insn_idx, &prev);
		if (err == -ENOENT)
			return 0;
		if (err)
			return err;
		do_print_state = true;
		env->last_insn_log_end = 0;
	}
}

/* One pass of the walk (Linux's do_check_common): from main with R1 = ctx, or from a
 * global function with its arguments typed from BTF. Each pass starts with no
 * explored states. */
static int do_check_common(struct env *env, int sub)
{
	struct vstate *st = state_new();
	if (!st)
		return -ENOMEM;
	st->frame[0] = frame_new(-1, 0, sub);
	if (!st->frame[0]) {
		state_free(st);
		return -ENOMEM;
	}
	st->branches = 1;
	st->first_insn_idx = env->sub[sub].start;
	env->cur = st;
	int err = 0;
	if (sub) {
		err = global_func_args(env, sub, st->frame[0]->regs);
	} else {
		struct reg *r1 = &st->frame[0]->regs[1];
		r1->type = KBPF_PTR_TO_CTX;
		reg_mark_known(r1, 0);
	}
	if (!err)
		err = do_check(env, env->sub[sub].start);
	state_free(env->cur);
	env->cur = NULL;
	while (env->stack_len)
		state_free(env->stack[--env->stack_len].st);
	explored_free(env);
	env->free_list = NULL;
	memset(env->explored, 0, env->cnt * sizeof(*env->explored));
	memset(env->states_cnt, 0, env->cnt * sizeof(int));
	env->cur_states = 0;
	if (!err && !(env->level & KBPF_LOG_LEVEL2))
		vlog_rewind(env, 0);
	return err;
}

/* Linux 6.12's do_check_subprogs (lazy since 6.8): after main, every global function a
 * walk reached a call of, once, until no new one is reached. One no walk reaches is
 * never verified: no path calls it, and its instructions, never seen, become the dead
 * code filler (fixup.c), a stop if ever run. */
static int do_check_subprogs(struct env *env)
{
	int new_cnt;
	do {
		new_cnt = 0;
		for (int i = 1; env->has_func_info && i < env->nr_sub; i++) {
			if (!subprog_is_global(env, i) || !env->sub[i].called || env->sub[i].verified)
				continue;
			env->insn_idx = env->sub[i].start;
			int err = do_check_common(env, i);
			if (err)
				return err;
			if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2))
				vlog(env, "Func#%d ('%s') is safe for any args that match its prototype\n", i,
				     subprog_name(env, i));
			env->sub[i].verified = true;
			new_cnt++;
		}
	} while (new_cnt);
	return 0;
}

static void print_stats(struct env *env, uint64_t ns)
{
	if (env->level & KBPF_LOG_STATS) {
		vlog(env, "verification time %llu usec\n", (unsigned long long)(ns / 1000));
		vlog(env, "stack depth ");
		for (int i = 0; i < env->nr_sub; i++)
			vlog(env, "%s%d", i ? "+" : "", env->sub[i].stack_depth);
		vlog(env, "\n");
	}
	vlog(env, "processed %u insns (limit %u) max_states_per_insn %u total_states %u peak_states %u mark_read %u\n",
	     env->insn_processed, env->insn_limit, env->max_states_per_insn, env->total_states,
	     env->peak_states, env->longest_mark_read_walk);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The rewrites after a safe walk (Linux's bpf_check after check_max_stack_depth): same-count
 * ones (fixup.c) into out_same if given, then the growing ones (grow.c); with alloc the result goes
 * to res->xlated_prog / xlated_cnt. */
static int xlate(struct env *env, struct bpf_insn *out_same, bool alloc)
{
	struct kbpf_verify_result *o = env->res;
	struct bpf_insn *buf = malloc((size_t)env->cnt * sizeof(*buf)), *grown = NULL;
	int grown_cnt = env->cnt;
	if (!buf)
		return -ENOMEM;
	int n = fixup_apply(env, buf);
	if (out_same) {
		memcpy(out_same, buf, (size_t)env->cnt * sizeof(*buf));
		OPTS_SET(o, nr_ctx_conv, (uint32_t)n);
	}
	uint32_t *idx = NULL;
	int err = grow_apply(env, buf, &grown, &grown_cnt, alloc ? &idx : NULL);
	if (!err && alloc && !grown) {
		/* nothing moved: each insn where it was */
		idx = malloc(((size_t)env->cnt + 1) * sizeof(*idx));
		for (int i = 0; idx && i <= env->cnt; i++)
			idx[i] = (uint32_t)i;
		if (!idx)
			err = -ENOMEM;
	}
	if (!err && alloc) {
		o->xlated_prog = grown ? grown : buf;
		o->xlated_cnt = (uint32_t)grown_cnt;
		o->xlated_idx = idx;
		if (grown)
			free(buf);
		return 0;
	}
	free(buf);
	free(grown);
	free(idx);
	return err;
}

/* The caller's buffer gets the log's tail: the reason for a rejection is its last line. */
static void copy_log(struct env *env)
{
	const struct kbpf_verify_opts *o = env->opts;
	if (!o->log_buf || !o->log_size)
		return;
	vlog_finish(env);
	size_t len = env->log_len, room = o->log_size - 1;
	const char *src = env->log ? env->log : "";
	if (len > room) {
		src += len - room;
		len = room;
	}
	memcpy(o->log_buf, src, len);
	o->log_buf[len] = 0;
}

/* Linux 6.12's check_attach_btf_id: only syscall, fentry/fexit/fmod_ret/iter tracing, LSM
 * (not LSM_CGROUP), kprobe (uprobes) and struct_ops programs may be sleepable. A host's
 * own types (no linux_type) decide for themselves. Linux also refuses a syscall program
 * that is not sleepable ("Syscall programs can only be sleepable"); kbpf verifies it as a
 * non-sleepable one (docs/linux-compatibility.md): its embedders run such programs. */
static int check_sleepable(struct env *env)
{
	uint32_t t = env->type->linux_type, eat = OPTS_GET(env->type, expected_attach_type, 0);
	bool can;

	if (!env->sleepable || !t || t == BPF_PROG_TYPE_SYSCALL)
		return 0;
	if (t == BPF_PROG_TYPE_TRACING)
		can = eat == BPF_TRACE_FENTRY || eat == BPF_TRACE_FEXIT || eat == BPF_MODIFY_RETURN ||
		      eat == BPF_TRACE_ITER;
	else if (t == BPF_PROG_TYPE_LSM)
		can = eat != BPF_LSM_CGROUP;
	else
		can = t == BPF_PROG_TYPE_KPROBE || t == BPF_PROG_TYPE_STRUCT_OPS;
	if (can)
		return 0;
	vlog(env, "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable\n");
	return -EINVAL;
}

/* The loader's capabilities: opts->caps if given, else every one (none if unprivileged);
 * the older no_destructive takes CAP_SYS_BOOT away. */
static unsigned verify_caps(const struct kbpf_verify_opts *opts)
{
	unsigned caps = opts->unprivileged ? 0 : KBPF_CAP_ALL;
	if (OPTS_HAS(opts, caps) && opts->caps)
		caps = opts->caps & KBPF_CAP_ALL;
	if (caps & KBPF_CAP_SYS_ADMIN) /* as in Linux: bpf_capable()/perfmon_capable() */
		caps |= KBPF_CAP_BPF | KBPF_CAP_PERFMON | KBPF_CAP_NET_ADMIN;
	if (OPTS_HAS(opts, no_destructive) && opts->no_destructive)
		caps &= ~KBPF_CAP_SYS_BOOT;
	return caps;
}

int kbpf_prog_verify(const struct bpf_insn *insns, size_t cnt, const struct kbpf_verify_opts *opts,
		     struct kbpf_verify_result *res)
{
	if (!opts || !OPTS_VALID(opts, OPTS_END(struct kbpf_verify_opts, prog_name)) || !insns ||
	    !OPTS_RESULT_VALID(res))
		return -EINVAL;
	OPTS_RESULT_RESET(res);
	OPTS_SET(res, error_insn, -1);
	if (opts->log_buf && opts->log_size)
		opts->log_buf[0] = 0;
	/* the full rewrite is malloc'ed: only for a result struct that can take it back */
	bool want_alloc = OPTS_GET(opts, xlated_alloc, 0);
	if (want_alloc && !OPTS_HAS(res, xlated_idx))
		return -EINVAL;
	unsigned caps = verify_caps(opts);
	bool unpriv = !(caps & (KBPF_CAP_BPF | KBPF_CAP_SYS_ADMIN));
	if (!cnt || cnt > KBPF_MAX_PROCESSED_INSNS || (unpriv && cnt > 4096))
		return -E2BIG;
	if (!opts->host || !opts->prog_type)
		return -EINVAL;
	const struct kbpf_prog_type *type = kbpf_host_prog_type_find(opts->host, opts->prog_type);
	if (!type)
		return -ENOENT;
	if (opts->log_level & ~7u)
		return -EINVAL;
	uint32_t prog_flags = OPTS_HAS(opts, prog_flags)
				      ? opts->prog_flags : 0;
	if (prog_flags & ~(uint32_t)(BPF_F_STRICT_ALIGNMENT | BPF_F_ANY_ALIGNMENT | BPF_F_TEST_STATE_FREQ |
				     BPF_F_SLEEPABLE | BPF_F_TEST_REG_INVARIANTS)) {
		if (opts->log_buf && opts->log_size)
			snprintf(opts->log_buf, opts->log_size, "unknown prog_flags 0x%x\n", prog_flags);
		return -EINVAL; /* Linux's bpf_prog_load refuses them before the verifier */
	}
	/* Linux's bpf_prog_load: most types need CAP_BPF, networking ones CAP_NET_ADMIN,
	 * tracing ones CAP_PERFMON (-EPERM, no verifier log). */
	unsigned need = OPTS_HAS(type, load_caps) ? type->load_caps : 0;
	if (need & ~caps) {
		if (opts->log_buf && opts->log_size)
			snprintf(opts->log_buf, opts->log_size, "program type %s needs a capability the loader lacks\n",
				 type->name);
		return -EPERM;
	}
	struct env *env = calloc(1, sizeof(*env));
	if (!env)
		return -ENOMEM;
	uint64_t t0 = now_ns();
	env->insns = insns;
	env->cnt = (int)cnt;
	env->opts = opts;
	env->res = res;
	env->host = opts->host;
	env->type = type;
	env->priv = !unpriv;
	env->perfmon = caps & KBPF_CAP_PERFMON; /* verify_caps: SYS_ADMIN implies it */
	env->caps = caps;
	env->test_state_freq = (OPTS_HAS(opts, test_state_freq) && opts->test_state_freq) ||
			       (prog_flags & BPF_F_TEST_STATE_FREQ);
	env->test_reg_invariants = prog_flags & BPF_F_TEST_REG_INVARIANTS;
	env->sleepable = (OPTS_HAS(opts, sleepable) && opts->sleepable) ||
			 (prog_flags & BPF_F_SLEEPABLE);
	/* Linux: strict if asked for, or on machines without efficient unaligned access
	 * (x86-64 has it, and kbpf's engines never need alignment); ANY cancels it */
	env->strict_alignment = (prog_flags & BPF_F_STRICT_ALIGNMENT) && !(prog_flags & BPF_F_ANY_ALIGNMENT);
	env->insn_limit = KBPF_MAX_PROCESSED_INSNS;
	if (OPTS_HAS(opts, insn_limit) && opts->insn_limit &&
	    opts->insn_limit < KBPF_MAX_PROCESSED_INSNS)
		env->insn_limit = opts->insn_limit;
	env->level = opts->log_level;
	env->error_insn = -1;
	env->aux = calloc(cnt, sizeof(*env->aux));
	env->explored = calloc(cnt, sizeof(*env->explored));
	env->states_cnt = calloc(cnt, sizeof(int));
	int err = -ENOMEM;
	if (!env->aux || !env->explored || !env->states_cnt)
		goto out;

	err = check_sleepable(env);
	if (!err)
		err = btf_ctx_init(env);
	if (!err)
		err = check_subprogs(env);
	if (!err)
		err = check_btf_func(env);
	if (!err)
		err = resolve_ldimm64(env);
	if (!err)
		err = check_cfg(env);
	if (!err)
		fastcall_mark(env);
	if (!err)
		err = do_check_common(env, 0);
	if (!err)
		err = do_check_subprogs(env);
	if (!err) /* before the depths are checked: they may shrink (Linux 6.12's order) */
		fastcall_remove(env);
	if (!err)
		err = check_max_stack_depth(env);
	if (!err)
		err = kfunc_fixup_check(env);
	for (int i = 0; !err && !env->perfmon && i < env->cnt; i++) {
		if (env->aux[i].tail_map_poison) {
			/* 6.1 do_misc_fixups: the index mask needs one map per insn */
			vlog(env, "tail_call abusing map_ptr\n");
			err = -EINVAL;
		}
	}
	/* Every safe program gets the rewrites, asked for or not (as in Linux: the
	 * statistics' stack depths include the inlined loops' slots). */
	if (!err)
		err = xlate(env, OPTS_GET(opts, xlated_insns, NULL), want_alloc);
	uint64_t ns = now_ns() - t0;
	if (env->level)
		print_stats(env, ns);
	OPTS_SET(res, insns_processed, env->insn_processed);
	OPTS_SET(res, max_states_per_insn, env->max_states_per_insn);
	OPTS_SET(res, total_states, env->total_states);
	OPTS_SET(res, peak_states, env->peak_states);
	OPTS_SET(res, mark_read, env->longest_mark_read_walk);
	OPTS_SET(res, verify_ns, ns);
	OPTS_SET(res, max_ctx_offset, env->max_ctx_offset);
	OPTS_SET(res, max_tp_access, env->max_tp_access);
	OPTS_SET(res, error_insn, err ? env->error_insn : -1);
	OPTS_SET(res, nr_subprogs, (uint32_t)env->nr_sub);
	for (int i = 0; OPTS_HAS(res, stack_depth) && i < env->nr_sub && i < 256; i++)
		res->stack_depth[i] = env->sub[i].stack_depth;
	copy_log(env);
out:
	explored_free(env);
	free(env->aux);
	free(env->explored);
	free(env->states_cnt);
	free(env->stack);
	free(env->log);
	free(env);
	return err;
}
