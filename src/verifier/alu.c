/* SPDX-License-Identifier: Apache-2.0 */
/* ALU and ALU64 instructions (Linux 6.1 check_alu_op, adjust_reg_min_max_vals,
 * adjust_ptr_min_max_vals): scalar arithmetic goes to the scalar domain, pointer
 * arithmetic follows Linux's rules and messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "verifier/env.h"

int check_mem_region(struct env *env, int regno, int off, int size, uint32_t mem_size, bool zero_ok);

static const char *const alu_str[16] = { "+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=",
					 "neg", "%=", "^=", "=", "s>>=", "endian", "?", "?" };

static bool is_pointer_value(struct env *env, int regno)
{
	return reg_is_pointer(&cur_regs(env)[regno]) && !env->perfmon;
}

static bool check_reg_sane_offset(struct env *env, const struct reg *r, uint32_t type)
{
	bool known = kbpf_tnum_is_const(r->s.var_off);
	int64_t val = (int64_t)r->s.var_off.value, smin = r->s.smin_value;
	if (known && (val >= MAX_VAR_OFF || val <= -MAX_VAR_OFF)) {
		vlog(env, "math between %s pointer and %lld is not allowed\n", reg_type_str(env, type), (long long)val);
		return false;
	}
	if (r->off >= MAX_VAR_OFF || r->off <= -MAX_VAR_OFF) {
		vlog(env, "%s pointer offset %d is not allowed\n", reg_type_str(env, type), r->off);
		return false;
	}
	if (smin == INT64_MIN) {
		vlog(env, "math between %s pointer and register with unbounded min value is not allowed\n",
		     reg_type_str(env, type));
		return false;
	}
	if (smin >= MAX_VAR_OFF || smin <= -MAX_VAR_OFF) {
		vlog(env, "value %lld makes %s pointer be out of bounds\n", (long long)smin, reg_type_str(env, type));
		return false;
	}
	return true;
}

static bool sadd_overflows(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r);
}

static bool ssub_overflows(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_sub_overflow(a, b, &r);
}

/* Unprivileged (Spectre v1) limits on the result of pointer arithmetic. */
static int sanitize_check_bounds(struct env *env, const struct bpf_insn *insn, struct reg *dst)
{
	if (env->perfmon)
		return 0;
	if (dst->type == KBPF_PTR_TO_STACK) {
		char tn[TNUM_STR_MAX];
		if (!kbpf_tnum_is_const(dst->s.var_off)) {
			kbpf_tnum_strn(tn, sizeof(tn), dst->s.var_off);
			vlog(env, "R%d variable stack access prohibited for !root, var_off=%s off=%d\n", insn->dst_reg,
			     tn, dst->off);
			return -EACCES;
		}
		int64_t off = dst->off + (int64_t)dst->s.var_off.value;
		if (off >= 0 || off < -KBPF_MAX_STACK) {
			vlog(env, "R%d stack pointer arithmetic goes out of range, prohibited for !root; off=%lld\n",
			     insn->dst_reg, (long long)off);
			return -EACCES;
		}
	} else if (dst->type == KBPF_PTR_TO_MAP_VALUE && dst->map) {
		if (check_mem_region(env, insn->dst_reg, dst->off, 1, kbpf_map_value_size(dst->map), false)) {
			vlog(env, "R%d pointer arithmetic of map value goes out of range, prohibited for !root\n",
			     insn->dst_reg);
			return -EACCES;
		}
	}
	return 0;
}

/* Unprivileged (Spectre v1) sanitation of pointer +/- register (6.1 sanitize_ptr_alu):
 * the reasons, the per-insn state that must be the same on every path, and the
 * speculative path on which the pointer did not move. */
enum { REASON_BOUNDS = -1, REASON_TYPE = -2, REASON_PATHS = -3, REASON_LIMIT = -4, REASON_STACK = -5 };
enum { ALU_SANITIZE_SRC = 1, ALU_SANITIZE_DST = 2, ALU_NEG_VALUE = 4, ALU_NON_POINTER = 8, ALU_IMMEDIATE = 16 };

struct sanitize_info {
	uint32_t alu_state, alu_limit;
	bool mask_to_left;
};

static int update_alu_state(struct insn_aux *aux, uint32_t state, uint32_t limit)
{
	if (aux->alu_state && (aux->alu_state != state || aux->alu_limit != limit))
		return REASON_PATHS;
	aux->alu_state = state;
	aux->alu_limit = limit;
	return 0;
}

static int retrieve_ptr_limit(const struct reg *ptr, uint32_t *limit, bool mask_to_left)
{
	uint32_t max, lim;
	switch (ptr->type) {
	case KBPF_PTR_TO_STACK:
		max = KBPF_MAX_STACK + mask_to_left;
		lim = (uint32_t)-(int64_t)(ptr->s.var_off.value + ptr->off);
		break;
	case KBPF_PTR_TO_MAP_VALUE:
		max = ptr->map ? kbpf_map_value_size(ptr->map) : 0;
		lim = (uint32_t)((mask_to_left ? (uint64_t)ptr->s.smin_value : ptr->s.umax_value) + ptr->off);
		break;
	default:
		return REASON_TYPE;
	}
	if (lim >= max)
		return REASON_LIMIT;
	*limit = lim;
	return 0;
}

static int sanitize_ptr_alu(struct env *env, const struct bpf_insn *insn, const struct reg *ptr,
			    const struct reg *off, bool ptr_is_dst, struct sanitize_info *info, bool commit)
{
	bool off_is_imm = kbpf_tnum_is_const(off->s.var_off), off_is_neg = off->s.smin_value < 0;
	uint8_t op = BPF_OP(insn->code);
	uint32_t state, limit;
	int err;

	if (env->perfmon || BPF_SRC(insn->code) == BPF_K)
		return 0;
	if (env->cur->speculative)
		goto sim;
	if (!commit) {
		if (!off_is_imm && (off->s.smin_value < 0) != (off->s.smax_value < 0))
			return REASON_BOUNDS;
		info->mask_to_left = (op == BPF_ADD && off_is_neg) || (op == BPF_SUB && !off_is_neg);
	}
	if ((err = retrieve_ptr_limit(ptr, &limit, info->mask_to_left)))
		return err;
	if (commit) {
		state = info->alu_state;
		limit = (uint32_t)abs((int)(info->alu_limit - limit));
		if ((err = update_alu_state(&env->aux[env->insn_idx], state, limit)))
			return err;
	} else {
		state = (off_is_neg ? ALU_NEG_VALUE : 0) | (off_is_imm ? ALU_IMMEDIATE : 0) |
			(ptr_is_dst ? ALU_SANITIZE_SRC : ALU_SANITIZE_DST);
		if (!off_is_imm)
			env->explore_alu_limits = true;
		info->alu_state = state;
		info->alu_limit = limit;
	}
sim:
	if (commit || off_is_imm)
		return 0;
	{
		/* Speculatively the offset may be masked to 0: walk the next insns with the
		 * pointer unmoved in dst. */
		struct reg *dst = &cur_regs(env)[insn->dst_reg], tmp = *dst;
		if (!ptr_is_dst)
			*dst = *ptr;
		int perr = 0;
		struct vstate *b = push_branch(env, env->insn_idx + 1, env->insn_idx, true, &perr);
		if (!ptr_is_dst)
			*dst = tmp;
		if (!b)
			return perr == -E2BIG ? REASON_STACK : perr;
	}
	return 0;
}

static int sanitize_err(struct env *env, const struct bpf_insn *insn, int reason, bool off_is_dst)
{
	static const char *err = "pointer arithmetic with it prohibited for !root";
	const char *op = BPF_OP(insn->code) == BPF_ADD ? "add" : "sub";
	int dst = insn->dst_reg, src = insn->src_reg;
	switch (reason) {
	case REASON_BOUNDS:
		vlog(env, "R%d has unknown scalar with mixed signed bounds, %s\n", off_is_dst ? dst : src, err);
		break;
	case REASON_TYPE:
		vlog(env, "R%d has pointer with unsupported alu operation, %s\n", off_is_dst ? src : dst, err);
		break;
	case REASON_PATHS:
		vlog(env, "R%d tried to %s from different maps, paths or scalars, %s\n", dst, op, err);
		break;
	case REASON_LIMIT:
		vlog(env, "R%d tried to %s beyond pointer bounds, %s\n", dst, op, err);
		break;
	case REASON_STACK:
		vlog(env, "R%d could not be pushed for speculative verification, %s\n", dst, err);
		break;
	default:
		return reason; /* an errno from push_branch */
	}
	return -EACCES;
}

static int adjust_ptr(struct env *env, const struct bpf_insn *insn, const struct reg *ptr_in,
		      const struct reg *off_in)
{
	struct reg *dst = &cur_regs(env)[insn->dst_reg];
	struct reg ptr = *ptr_in, off = *off_in; /* dst may alias either */
	uint8_t op = BPF_OP(insn->code);
	int dno = insn->dst_reg;
	bool known = kbpf_tnum_is_const(off.s.var_off);
	int64_t smin = off.s.smin_value, smax = off.s.smax_value;
	uint64_t umin = off.s.umin_value, umax = off.s.umax_value;

	if ((known && (smin != smax || umin != umax)) || smin > smax || umin > umax) {
		reg_mark_unknown(env, dst);
		return 0;
	}
	if (BPF_CLASS(insn->code) != BPF_ALU64) {
		if (op == BPF_SUB && env->perfmon) {
			reg_mark_unknown(env, dst);
			return 0;
		}
		vlog(env, "R%d 32-bit pointer arithmetic prohibited\n", dno);
		return -EACCES;
	}
	/* A pointer field read from a host object is Linux's PTR_TO_BTF_ID, on which
	 * arithmetic is allowed; kbpf types it maybe-NULL (see mem.c). The result keeps
	 * that flag but loses its id: NULL + off is not 0, so no later NULL check may
	 * clear it, and it can never be dereferenced or passed on as non-NULL. */
	bool walked = ptr.type == (KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL) && ptr.btf_walked;
	if ((ptr.type & KBPF_PTR_MAYBE_NULL) && !walked) {
		vlog(env, "R%d pointer arithmetic on %s prohibited, null-check it first\n", dno,
		     reg_type_str(env, ptr.type));
		return -EACCES;
	}
	switch (KBPF_REG_BASE(ptr.type)) {
	case KBPF_PTR_TO_FLOW_KEYS:
		if (known)
			break;
		/* fallthrough */
	case KBPF_CONST_PTR_TO_MAP:
		if (known && smin == 0 && op == BPF_ADD)
			break;
		/* fallthrough */
	case KBPF_PTR_TO_PACKET_END:
	case KBPF_PTR_TO_SOCKET:
	case KBPF_PTR_TO_SOCK_COMMON:
	case KBPF_PTR_TO_TCP_SOCK:
	case KBPF_PTR_TO_XDP_SOCK:
		vlog(env, "R%d pointer arithmetic on %s prohibited\n", dno, reg_type_str(env, ptr.type));
		return -EACCES;
	case KBPF_PTR_TO_CTX:
	case KBPF_PTR_TO_STACK:
	case KBPF_PTR_TO_MAP_VALUE:
	case KBPF_PTR_TO_MAP_KEY:
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_MEM:
	case KBPF_PTR_TO_BUF:
	case KBPF_PTR_TO_BTF_ID:
	case KBPF_PTR_TO_TP_BUFFER:
	case KBPF_PTR_TO_FUNC:
		break;
	default:
		/* Types kbpf does not model: refuse rather than guess. */
		vlog(env, "R%d pointer arithmetic on %s prohibited\n", dno, reg_type_str(env, ptr.type));
		return -EACCES;
	}
	if (!check_reg_sane_offset(env, &off, ptr.type) || !check_reg_sane_offset(env, &ptr, ptr.type))
		return -EINVAL;
	struct sanitize_info info = { 0 };
	bool sanitize = op == BPF_ADD || op == BPF_SUB;
	if (sanitize) {
		int r = sanitize_ptr_alu(env, insn, &ptr, &off, ptr_in == dst, &info, false);
		if (r)
			return sanitize_err(env, insn, r, off_in == dst);
	}

	/* the result is the pointer moved, whichever operand it was: its reference too
	 * (6.12 copies the whole pointer register into dst), so a release of the original
	 * invalidates 'r6 = 0; r6 += r0' as it invalidates r0 */
	struct reg res = ptr;
	if (walked)
		res.id = 0;
	kbpf_scalar_mark_unbounded32(&res.s);
	int64_t sp = ptr.s.smin_value, Sp = ptr.s.smax_value;
	uint64_t up = ptr.s.umin_value, Up = ptr.s.umax_value;
	switch (op) {
	case BPF_ADD:
		if (known && ptr.off + smin == (int64_t)(int32_t)(ptr.off + smin)) {
			res.off = ptr.off + (int32_t)smin;
			break;
		}
		if (sadd_overflows(sp, smin) || sadd_overflows(Sp, smax)) {
			res.s.smin_value = INT64_MIN;
			res.s.smax_value = INT64_MAX;
		} else {
			res.s.smin_value = sp + smin;
			res.s.smax_value = Sp + smax;
		}
		if (up + umin < up || Up + umax < Up) {
			res.s.umin_value = 0;
			res.s.umax_value = UINT64_MAX;
		} else {
			res.s.umin_value = up + umin;
			res.s.umax_value = Up + umax;
		}
		res.s.var_off = kbpf_tnum_add(ptr.s.var_off, off.s.var_off);
		if (reg_is_pkt(&ptr)) {
			res.id = ++env->id_gen;
			res.range = 0;
		}
		break;
	case BPF_SUB:
		if (ptr_in != dst) {
			vlog(env, "R%d tried to subtract pointer from scalar\n", dno);
			return -EACCES;
		}
		if (ptr.type == KBPF_PTR_TO_STACK) {
			vlog(env, "R%d subtraction from stack pointer prohibited\n", dno);
			return -EACCES;
		}
		if (known && ptr.off - smin == (int64_t)(int32_t)(ptr.off - smin)) {
			res.off = ptr.off - (int32_t)smin;
			break;
		}
		if (ssub_overflows(sp, smax) || ssub_overflows(Sp, smin)) {
			res.s.smin_value = INT64_MIN;
			res.s.smax_value = INT64_MAX;
		} else {
			res.s.smin_value = sp - smax;
			res.s.smax_value = Sp - smin;
		}
		if (up < umax) {
			res.s.umin_value = 0;
			res.s.umax_value = UINT64_MAX;
		} else {
			res.s.umin_value = up - umax;
			res.s.umax_value = Up - umin;
		}
		res.s.var_off = kbpf_tnum_sub(ptr.s.var_off, off.s.var_off);
		if (reg_is_pkt(&ptr)) {
			res.id = ++env->id_gen;
			if (smin < 0)
				res.range = 0;
		}
		break;
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		vlog(env, "R%d bitwise operator %s on pointer prohibited\n", dno, alu_str[op >> 4]);
		return -EACCES;
	default:
		vlog(env, "R%d pointer arithmetic with %s operator prohibited\n", dno, alu_str[op >> 4]);
		return -EACCES;
	}
	/* An "at/beyond packet end" mark (AT_PKT_END, BEYOND_PKT_END) holds for the pointer
	 * it was learnt of only: any arithmetic drops it (Linux after 6.12; 6.1 and 6.12 keep
	 * it through `ptr -= K` and judge a reachable branch dead). */
	if (reg_is_pkt(&res) && res.range < 0)
		res.range = 0;
	if (!check_reg_sane_offset(env, &res, ptr.type))
		return -EINVAL;
	kbpf_scalar_bounds_sync(&res.s);
	*dst = res;
	int err = sanitize_check_bounds(env, insn, dst);
	if (err)
		return err;
	if (sanitize) {
		struct reg d = *dst;
		int r = sanitize_ptr_alu(env, insn, &d, &off, true, &info, true);
		if (r)
			return sanitize_err(env, insn, r, off_in == dst);
	}
	return 0;
}

static int adjust_reg(struct env *env, const struct bpf_insn *insn)
{
	struct reg *regs = cur_regs(env);
	struct reg *dst = &regs[insn->dst_reg];
	uint8_t op = BPF_OP(insn->code);
	bool alu32 = BPF_CLASS(insn->code) == BPF_ALU;
	struct reg *ptr = NULL;

	if (dst->type != KBPF_SCALAR_VALUE)
		ptr = dst;
	else
		dst->id = 0;
	if (BPF_SRC(insn->code) == BPF_X) {
		struct reg *src = &regs[insn->src_reg];
		if (src->type != KBPF_SCALAR_VALUE) {
			if (dst->type != KBPF_SCALAR_VALUE) {
				if (op == BPF_SUB && env->perfmon) {
					reg_mark_unknown(env, dst);
					return 0;
				}
				vlog(env, "R%d pointer %s pointer prohibited\n", insn->dst_reg, alu_str[op >> 4]);
				return -EACCES;
			}
			int err = mark_precise(env, insn->dst_reg);
			if (err)
				return err;
			return adjust_ptr(env, insn, src, dst);
		} else if (ptr) {
			int err = mark_precise(env, insn->src_reg);
			if (err)
				return err;
			return adjust_ptr(env, insn, ptr, src);
		}
		if (dst->precise) {
			int err = mark_precise(env, insn->src_reg);
			if (err)
				return err;
		}
		if (!env->perfmon && (op == BPF_ADD || op == BPF_SUB)) {
			/* The same insn may not do pointer arithmetic on another path. */
			if (update_alu_state(&env->aux[env->insn_idx], ALU_NON_POINTER, 0))
				return sanitize_err(env, insn, REASON_PATHS, false);
		}
		struct scalar s = src->s;
		kbpf_scalar_alu(&dst->s, &s, op, alu32);
	} else {
		struct reg k;
		memset(&k, 0, sizeof(k));
		k.type = KBPF_SCALAR_VALUE;
		kbpf_scalar_mark_known(&k.s, (uint64_t)(int64_t)insn->imm);
		if (ptr)
			return adjust_ptr(env, insn, ptr, &k);
		kbpf_scalar_alu(&dst->s, &k.s, op, alu32);
	}
	return 0;
}

/* cpu v4's movsx, dst = (s8|s16|s32) src (64-bit) or w_dst = (s8|s16) w_src, as 6.12's
 * check_alu_op: a pointer source is refused unprivileged and makes dst unknown
 * otherwise; a scalar is copied and sign-extended, keeping its id only when the
 * extension cannot change it (umax below the sign bit of the source width). */
static int check_movsx(struct env *env, const struct bpf_insn *insn, struct reg *dst, struct reg *src, bool alu64)
{
	int size = insn->off / 8;

	if (is_pointer_value(env, insn->src_reg)) {
		vlog(env, alu64 ? "R%d sign-extension part of pointer\n" : "R%d partial copy of pointer\n",
		     insn->src_reg);
		return -EACCES;
	}
	if (src->type != KBPF_SCALAR_VALUE) {
		reg_mark_unknown(env, dst);
		return 0;
	}
	bool no_sext = src->s.umax_value < (1ULL << (insn->off - 1));
	if (no_sext && !src->id && !kbpf_tnum_is_const(src->s.var_off))
		src->id = ++env->id_gen;
	*dst = *src;
	if (!no_sext)
		dst->id = 0;
	if (alu64) {
		kbpf_scalar_coerce_to_size_sx(&dst->s, size);
	} else {
		kbpf_scalar_coerce_subreg_to_size_sx(&dst->s, size);
		kbpf_scalar_zext_32_to_64(&dst->s);
		kbpf_scalar_bounds_sync(&dst->s);
	}
	return 0;
}

static int check_alu_op(struct env *env, const struct bpf_insn *insn)
{
	struct reg *regs = cur_regs(env);
	uint8_t op = BPF_OP(insn->code);
	bool alu64 = BPF_CLASS(insn->code) == BPF_ALU64;
	int err;

	if (op == BPF_END || op == BPF_NEG) {
		if (op == BPF_NEG) {
			if (BPF_SRC(insn->code) != BPF_K || insn->src_reg || insn->off || insn->imm) {
				vlog(env, "BPF_NEG uses reserved fields\n");
				return -EINVAL;
			}
		} else if (insn->src_reg || insn->off || (insn->imm != 16 && insn->imm != 32 && insn->imm != 64) ||
			   (alu64 && BPF_SRC(insn->code) != BPF_TO_LE)) {
			/* ALU64 | END | TO_LE is cpu v4's unconditional bswap */
			vlog(env, "BPF_END uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_read(env, insn->dst_reg)))
			return err;
		if (is_pointer_value(env, insn->dst_reg)) {
			vlog(env, "R%d pointer arithmetic prohibited\n", insn->dst_reg);
			return -EACCES;
		}
		return check_reg_write(env, insn->dst_reg);
	}
	if (op == BPF_MOV) {
		if (BPF_SRC(insn->code) == BPF_X) {
			/* off 8/16/32 (32: ALU64 only) is cpu v4's sign-extending movsx */
			bool sx_ok = insn->off == 0 || insn->off == 8 || insn->off == 16 || (alu64 && insn->off == 32);
			if (insn->imm || !sx_ok) {
				vlog(env, "BPF_MOV uses reserved fields\n");
				return -EINVAL;
			}
			if ((err = check_reg_read(env, insn->src_reg)))
				return err;
		} else if (insn->src_reg || insn->off) {
			vlog(env, "BPF_MOV uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_write_mark(env, insn->dst_reg, false)))
			return err;
		struct reg *dst = &regs[insn->dst_reg];
		if (BPF_SRC(insn->code) == BPF_X && insn->off)
			return check_movsx(env, insn, dst, &regs[insn->src_reg], alu64);
		if (BPF_SRC(insn->code) == BPF_X) {
			struct reg *src = &regs[insn->src_reg];
			if (alu64) {
				/* Scalar linking: both copies share an id for find_equal_scalars;
				 * 6.12 (assign_scalar_id_before_mov): not for a constant, which
				 * no compare can refine (and an id would keep pruning from
				 * matching equal constants that come from different registers) */
				if (src->type == KBPF_SCALAR_VALUE && !src->id && !kbpf_tnum_is_const(src->s.var_off))
					src->id = ++env->id_gen;
				*dst = *src;
			} else {
				if (is_pointer_value(env, insn->src_reg)) {
					vlog(env, "R%d partial copy of pointer\n", insn->src_reg);
					return -EACCES;
				} else if (src->type == KBPF_SCALAR_VALUE) {
					/* 6.12: a source with a zero upper half is the same 64-bit value
					 * after w = w, so both share an id (a compare of one then bounds
					 * the other); otherwise dst's id is cleared */
					bool u32 = src->s.umax_value <= UINT32_MAX;
					if (u32 && !src->id && !kbpf_tnum_is_const(src->s.var_off))
						src->id = ++env->id_gen;
					*dst = *src;
					if (!u32)
						dst->id = 0;
				} else {
					reg_mark_unknown(env, dst);
				}
				kbpf_scalar_zext_32_to_64(&dst->s);
				kbpf_scalar_bounds_sync(&dst->s);
			}
		} else {
			reg_mark_unknown(env, dst);
			kbpf_scalar_mark_known(&dst->s, alu64 ? (uint64_t)(int64_t)insn->imm : (uint32_t)insn->imm);
		}
		return 0;
	}
	if (op > BPF_END) {
		vlog(env, "invalid BPF_ALU opcode %x\n", op);
		return -EINVAL;
	}
	/* off 1 on DIV/MOD is cpu v4's signed sdiv/smod; the result is an unknown scalar,
	 * as for the unsigned forms */
	bool off_ok = insn->off == 0 || ((op == BPF_DIV || op == BPF_MOD) && insn->off == 1);
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm || !off_ok) {
			vlog(env, "BPF_ALU uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_read(env, insn->src_reg)))
			return err;
	} else if (insn->src_reg || !off_ok) {
		vlog(env, "BPF_ALU uses reserved fields\n");
		return -EINVAL;
	}
	if ((err = check_reg_read(env, insn->dst_reg)))
		return err;
	if ((op == BPF_MOD || op == BPF_DIV) && BPF_SRC(insn->code) == BPF_K && insn->imm == 0) {
		vlog(env, "div by zero\n");
		return -EINVAL;
	}
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && BPF_SRC(insn->code) == BPF_K) {
		int size = alu64 ? 64 : 32;
		if (insn->imm < 0 || insn->imm >= size) {
			vlog(env, "invalid shift %d\n", insn->imm);
			return -EINVAL;
		}
	}
	if ((err = check_reg_write_mark(env, insn->dst_reg, false)))
		return err;
	return adjust_reg(env, insn);
}

int check_alu(struct env *env, const struct bpf_insn *insn)
{
	int err = check_alu_op(env, insn);

	/* 6.12: every ALU insn ends with the check of its destination's bounds */
	return err ? err : reg_bounds_sanity_check(env, &cur_regs(env)[insn->dst_reg], "alu");
}
