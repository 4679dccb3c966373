/* SPDX-License-Identifier: Apache-2.0 */
/* Program structure before the walk (Linux 6.1 bpf_check stages 1, 2, 5, 6 and 8):
 * subprogram discovery, jumps staying inside their subprogram, ld_imm64 resolution and
 * the opcode table, the control-flow DFS (back-edges, unreachable code, prune points)
 * and the static call-graph stack limit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "verifier/env.h"
#include "verifier/map_compat.h"
#include "verifier/spin_lock.h"
#include "verifier/kfunc.h"

static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

static bool is_pseudo_func(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC;
}

static bool is_kfunc_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int find_subprog(struct env *env, int start)
{
	for (int i = 0; i < env->nr_sub; i++)
		if (env->sub[i].start == start)
			return i;
	return -1;
}

static int add_subprog(struct env *env, int off)
{
	if (off < 0 || off >= env->cnt) {
		vlog(env, "call to invalid destination\n");
		return -EINVAL;
	}
	if (find_subprog(env, off) >= 0)
		return 0;
	if (env->nr_sub >= MAX_SUBPROGS) {
		vlog(env, "too many subprograms\n");
		return -E2BIG;
	}
	env->sub[env->nr_sub++].start = off;
	int starts[MAX_SUBPROGS];
	for (int i = 0; i < env->nr_sub; i++)
		starts[i] = env->sub[i].start;
	qsort(starts, env->nr_sub, sizeof(int), cmp_int);
	for (int i = 0; i < env->nr_sub; i++)
		env->sub[i].start = starts[i];
	return 0;
}

/* add_subprog_and_kfunc + check_subprogs. */
int check_subprogs(struct env *env)
{
	const struct bpf_insn *insn = env->insns;
	int ret = add_subprog(env, 0);
	if (ret)
		return ret;
	for (int i = 0; i < env->cnt; i++) {
		if (!is_pseudo_call(&insn[i]) && !is_pseudo_func(&insn[i]) && !is_kfunc_call(&insn[i]))
			continue;
		if (!env->priv) {
			vlog(env, "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n");
			return -EPERM;
		}
		if (is_kfunc_call(&insn[i])) {
			/* Pass A: descriptors before the walk (kfunc.c) */
			ret = kfunc_add(env, i);
			if (ret)
				return ret;
			continue;
		}
		ret = add_subprog(env, insn_target(i, insn[i].imm));
		if (ret)
			return ret;
	}
	env->sub[env->nr_sub].start = env->cnt;
	if (env->level & KBPF_LOG_LEVEL2)
		for (int i = 0; i < env->nr_sub; i++)
			vlog(env, "func#%d @%d\n", i, env->sub[i].start);

	int cur = 0, start = env->sub[0].start, end = env->sub[1].start;
	for (int i = 0; i < env->cnt; i++) {
		uint8_t code = insn[i].code;
		if (code == (BPF_JMP | BPF_CALL) && insn[i].imm == 12 && insn[i].src_reg != BPF_PSEUDO_CALL)
			env->sub[cur].has_tail_call = true;
		if (BPF_CLASS(code) == BPF_LD && (BPF_MODE(code) == BPF_ABS || BPF_MODE(code) == BPF_IND))
			env->sub[cur].has_ld_abs = true;
		if (code == (BPF_JMP | KBPF_JCOND))
			env->sub[cur].has_may_goto = true;
		if ((BPF_CLASS(code) == BPF_JMP || BPF_CLASS(code) == BPF_JMP32) && BPF_OP(code) != BPF_EXIT &&
		    BPF_OP(code) != BPF_CALL) {
			int t = insn_target(i, code == (BPF_JMP32 | BPF_JA) ? insn[i].imm : insn[i].off);
			if (t < start || t >= end) {
				vlog(env, "jump out of range from insn %d to %d\n", i, t);
				return -EINVAL;
			}
		}
		if (i == end - 1) {
			if (code != (BPF_JMP | BPF_EXIT) && code != (BPF_JMP32 | BPF_JA) && code != (BPF_JMP | BPF_JA)) {
				vlog(env, "last insn is not an exit or jmp\n");
				return -EINVAL;
			}
			start = end;
			cur++;
			if (cur < env->nr_sub)
				end = env->sub[cur + 1].start;
		}
	}
	/* LD_ABS and tail calls in subprogs: check_btf_func (func_info.c), next */
	return 0;
}

/* Linux's bpf_opcode_in_insntable. */
static bool opcode_known(uint8_t code)
{
	uint8_t cls = BPF_CLASS(code), op = BPF_OP(code), mode = BPF_MODE(code), sz = BPF_SIZE(code);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op > BPF_END)
			return false;
		if (op == BPF_NEG)
			return BPF_SRC(code) == BPF_K;
		if (op == BPF_END) /* ALU64 | END | TO_LE: cpu v4's bswap */
			return cls == BPF_ALU || BPF_SRC(code) == BPF_TO_LE;
		return true;
	case BPF_JMP:
	case BPF_JMP32:
		if (op == KBPF_JCOND) /* may_goto: 6.12's table has BPF_JMP | BPF_JCOND | BPF_K */
			return cls == BPF_JMP && BPF_SRC(code) == BPF_K;
		if (op == 0xf0)
			return false;
		if (op == BPF_JA)
			return BPF_SRC(code) == BPF_K;
		if (op == BPF_CALL || op == BPF_EXIT)
			return cls == BPF_JMP && BPF_SRC(code) == BPF_K;
		return true;
	case BPF_LDX: /* MEMSX: cpu v4's sign-extending loads, B/H/W */
		return mode == BPF_MEM || (mode == BPF_MEMSX && sz != BPF_DW);
	case BPF_ST:
		return mode == BPF_MEM;
	case BPF_STX:
		return mode == BPF_MEM || (mode == BPF_ATOMIC && (sz == BPF_W || sz == BPF_DW));
	case BPF_LD:
		if (mode == BPF_IMM)
			return sz == BPF_DW;
		return (mode == BPF_ABS || mode == BPF_IND) && sz != BPF_DW;
	}
	return false;
}

/* resolve_pseudo_ldimm64: ld_imm64 shapes, map references, the opcode table. */
int resolve_ldimm64(struct env *env)
{
	const struct bpf_insn *insn = env->insns;
	for (int i = 0; i < env->cnt; i++) {
		if (BPF_CLASS(insn[i].code) == BPF_LDX &&
		    ((BPF_MODE(insn[i].code) != BPF_MEM && BPF_MODE(insn[i].code) != BPF_MEMSX) ||
		     insn[i].imm != 0)) {
			vlog(env, "BPF_LDX uses reserved fields\n");
			return -EINVAL;
		}
		if (insn[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (i == env->cnt - 1 || insn[i + 1].code || insn[i + 1].dst_reg || insn[i + 1].src_reg ||
			    insn[i + 1].off) {
				vlog(env, "invalid bpf_ld_imm64 insn\n");
				return -EINVAL;
			}
			uint8_t src = insn[i].src_reg;
			if (src == 0 || src == BPF_PSEUDO_FUNC) {
				i++;
				continue;
			}
			if (src == BPF_PSEUDO_BTF_ID) {
				int err = check_pseudo_btf_id(env, &insn[i], i);
				if (err)
					return err;
				i++;
				continue;
			}
			bool ok = src == BPF_PSEUDO_MAP_VALUE || src == BPF_PSEUDO_MAP_IDX_VALUE ||
				  ((src == BPF_PSEUDO_MAP_FD || src == BPF_PSEUDO_MAP_IDX) && insn[i + 1].imm == 0);
			if (!ok) {
				vlog(env, "unrecognized bpf_ld_imm64 insn\n");
				return -EINVAL;
			}
			if (insn[i].imm < 0 || !env->opts->maps || (size_t)insn[i].imm >= env->opts->nr_maps ||
			    !env->opts->maps[insn[i].imm]) {
				vlog(env, "fd %d is not pointing to valid bpf_map\n", insn[i].imm);
				return -EBADF;
			}
			struct kbpf_map *map = env->opts->maps[insn[i].imm];
			int ferr = check_map_prog_fields(env, map);
			if (ferr)
				return ferr;
			/* Linux's bpf_cgroup_storage_assign: a run has one storage of each kind */
			uint32_t mt = kbpf_map_type(map);
			if (mt == BPF_MAP_TYPE_CGROUP_STORAGE || mt == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE) {
				struct kbpf_map **slot = &env->cgroup_storage[mt == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE];
				if (*slot && *slot != map) {
					vlog(env, "only one cgroup storage of each type is allowed\n");
					return -EBUSY;
				}
				*slot = map;
			}
			if (src == BPF_PSEUDO_MAP_VALUE || src == BPF_PSEUDO_MAP_IDX_VALUE) {
				uint32_t off = (uint32_t)insn[i + 1].imm;
				void *addr;
				if (off >= MAX_VAR_OFF) {
					vlog(env, "direct value offset of %u is not allowed\n", off);
					return -EINVAL;
				}
				int r = kbpf_map_direct_value_addr(map, off, &addr);
				if (r == -EOPNOTSUPP) {
					vlog(env, "no direct value access support for this map type\n");
					return -EINVAL;
				}
				if (r) {
					vlog(env, "invalid access to map value pointer, value_size=%u off=%u\n",
					     kbpf_map_value_size(map), off);
					return -EINVAL;
				}
			}
			env->aux[i].map_idx = insn[i].imm;
			i++;
			continue;
		}
		if (!opcode_known(insn[i].code)) {
			vlog(env, "unknown opcode %02x\n", insn[i].code);
			return -EINVAL;
		}
	}
	return 0;
}

enum { DISCOVERED = 0x10, EXPLORED = 0x20, FALLTHROUGH = 1, BRANCH = 2 };
enum { DONE_EXPLORING = 0, KEEP_EXPLORING = 1 };

struct cfg {
	int *state, *stack, top;
};

static void mark_prune(struct env *env, int i)
{
	if (i >= 0 && i < env->cnt)
		env->aux[i].prune_point = true;
}

static int push_insn(struct env *env, struct cfg *c, int t, int w, int e)
{
	if (e == FALLTHROUGH && c->state[t] >= (DISCOVERED | FALLTHROUGH))
		return DONE_EXPLORING;
	if (e == BRANCH && c->state[t] >= (DISCOVERED | BRANCH))
		return DONE_EXPLORING;
	if (w < 0 || w >= env->cnt) {
		vlog(env, "jump out of range from insn %d to %d\n", t, w);
		return -EINVAL;
	}
	if (e == BRANCH)
		mark_prune(env, w);
	if (c->state[w] == 0) {
		c->state[t] = DISCOVERED | e;
		c->state[w] = DISCOVERED;
		if (c->top >= env->cnt)
			return -E2BIG;
		c->stack[c->top++] = w;
		return KEEP_EXPLORING;
	} else if ((c->state[w] & 0xf0) == DISCOVERED) {
		/* Linux 6.12: any back-edge of a privileged program, whatever insn it leaves
		 * from (6.1 allowed only jumps'); the walk bounds the loop (is_state_visited,
		 * the processed-insn limit), the call-graph check the recursion */
		if (env->priv)
			return DONE_EXPLORING;
		vlog(env, "back-edge from insn %d to %d\n", t, w);
		return -EINVAL;
	} else if (c->state[w] == EXPLORED) {
		c->state[t] = DISCOVERED | e;
	}
	return DONE_EXPLORING;
}

static int visit_call(struct env *env, struct cfg *c, int t, bool visit_callee)
{
	const struct bpf_insn *in = &env->insns[t];
	int sz = in->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1;
	int ret = push_insn(env, c, t, t + sz, FALLTHROUGH);
	if (ret)
		return ret;
	mark_prune(env, t + sz);
	if (visit_callee) {
		mark_prune(env, t);
		ret = push_insn(env, c, t, insn_target(t, in->imm), BRANCH);
	}
	return ret;
}

static int visit_insn(struct env *env, struct cfg *c, int t)
{
	const struct bpf_insn *in = &env->insns[t];
	uint8_t cls = BPF_CLASS(in->code);
	if (is_pseudo_func(in))
		return visit_call(env, c, t, true);
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return push_insn(env, c, t, t + (in->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1), FALLTHROUGH);
	switch (BPF_OP(in->code)) {
	case BPF_EXIT:
		return DONE_EXPLORING;
	case BPF_CALL:
		if (in->imm == 170) /* bpf_timer_set_callback */
			mark_prune(env, t);
		/* Linux 6.7+: a callback's exit returns to its helper call, a forced
		 * checkpoint where the callback's visits converge (prune.c) */
		if (in->src_reg == 0 && is_sync_callback_helper(in->imm)) {
			mark_prune(env, t);
			env->aux[t].calls_callback = true;
		}
		return visit_call(env, c, t, in->src_reg == BPF_PSEUDO_CALL);
	case BPF_JA: {
		if (BPF_SRC(in->code) != BPF_K)
			return -EINVAL;
		int off = cls == BPF_JMP ? in->off : in->imm;
		int ret = push_insn(env, c, t, insn_target(t, off), FALLTHROUGH);
		if (ret)
			return ret;
		mark_prune(env, insn_target(t, off));
		return ret;
	}
	default: {
		mark_prune(env, t);
		if (in->code == (BPF_JMP | KBPF_JCOND))
			env->aux[t].may_goto = true; /* 6.12: a forced checkpoint */
		int ret = push_insn(env, c, t, t + 1, FALLTHROUGH);
		if (ret)
			return ret;
		return push_insn(env, c, t, t + in->off + 1, BRANCH);
	}
	}
}

int check_cfg(struct env *env)
{
	struct cfg c = { calloc(env->cnt, sizeof(int)), calloc(env->cnt, sizeof(int)), 0 };
	int ret = 0;
	if (!c.state || !c.stack) {
		ret = -ENOMEM;
		goto out;
	}
	c.state[0] = DISCOVERED;
	c.stack[0] = 0;
	c.top = 1;
	while (c.top > 0) {
		int t = c.stack[c.top - 1];
		ret = visit_insn(env, &c, t);
		if (ret == DONE_EXPLORING) {
			c.state[t] = EXPLORED;
			c.top--;
		} else if (ret != KEEP_EXPLORING) {
			goto out;
		}
	}
	ret = 0;
	for (int i = 0; i < env->cnt; i++) {
		if (c.state[i] != EXPLORED) {
			vlog(env, "unreachable insn %d\n", i);
			ret = -EINVAL;
			goto out;
		}
		if (env->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (i + 1 < env->cnt && c.state[i + 1] != 0) {
				vlog(env, "jump into the middle of ldimm64 insn %d\n", i);
				ret = -EINVAL;
				goto out;
			}
			i++;
		}
	}
out:
	free(c.state);
	free(c.stack);
	return ret;
}

/* A frame's share of the 512 bytes: Linux 6.12's round_up_stack_depth for a program
 * with jit_requested (16 bytes; 6.1 and 6.12's interpreter: 32, at least 1). kbpf's
 * engines give every frame 512 bytes of its own, so only the verdict depends on it. */
static int frame_cost(int depth)
{
	return (depth + 15) & ~15;
}

/* check_max_stack_depth over the static call graph from one root (callbacks referenced
 * by ld_imm64 count as calls, as in Linux for synchronous callbacks; an async one's stack
 * is its own). A call cycle (recursion, which check_cfg lets through for privileged
 * programs since 6.12) runs past the frame limit. */
static int max_stack_depth_from(struct env *env, int root)
{
	const struct bpf_insn *insn = env->insns;
	int ret_insn[KBPF_MAX_CALL_FRAMES], ret_prog[KBPF_MAX_CALL_FRAMES];
	int depth = 0, frame = 0, idx = root, i = env->sub[root].start;
process:
	if (idx && env->sub[idx].has_tail_call && depth >= 256) {
		vlog(env, "tail_calls are not allowed when call stack of previous frames is %d bytes. Too large\n",
		     depth);
		return -EACCES;
	}
	depth += frame_cost(env->sub[idx].stack_depth);
	if (depth > KBPF_MAX_STACK) {
		vlog(env, "combined stack size of %d calls is %d. Too large\n", frame + 1, depth);
		return -EACCES;
	}
cont:
	for (; i < env->sub[idx + 1].start; i++) {
		if (!is_pseudo_call(&insn[i]) && !is_pseudo_func(&insn[i]))
			continue;
		ret_insn[frame] = i + 1;
		ret_prog[frame] = idx;
		int next = insn_target(i, insn[i].imm), sidx = find_subprog(env, next);
		if (sidx < 0)
			return -EFAULT;
		if (env->sub[sidx].is_async_cb) {
			if (env->sub[sidx].has_tail_call) {
				vlog(env, "verifier bug. subprog has tail_call and async cb\n");
				return -EFAULT;
			}
			/* 6.1: an async callback's stack is its own, unless called directly */
			if (!is_pseudo_call(&insn[i]))
				continue;
		}
		i = next;
		idx = sidx;
		frame++;
		if (frame >= KBPF_MAX_CALL_FRAMES) {
			vlog(env, "the call stack of %d frames is too deep !\n", frame);
			return -E2BIG;
		}
		goto process;
	}
	if (frame == 0)
		return 0;
	depth -= frame_cost(env->sub[idx].stack_depth);
	frame--;
	i = ret_insn[frame];
	idx = ret_prog[frame];
	goto cont;
}

/* Linux 6.12: main and every async callback are roots of their own stacks; each call
 * graph below them must fit (and be free of recursion). */
int check_max_stack_depth(struct env *env)
{
	for (int i = env->nr_sub - 1; i >= 0; i--) {
		if (i && !env->sub[i].is_async_cb)
			continue;
		int err = max_stack_depth_from(env, i);
		if (err)
			return err;
	}
	return 0;
}
