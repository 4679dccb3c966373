/* SPDX-License-Identifier: Apache-2.0 */
/* Stack slots (Linux 6.1 check_stack_write_*, check_stack_read_*,
 * check_stack_range_initialized): spills and fills, misc/zero/invalid bytes,
 * variable offsets, and helper access to stack memory. */
#include <errno.h>
#include <string.h>
#include "verifier/bounds_math.h"
#include "verifier/env.h"
#include "verifier/stack.h"

static struct frame *reg_frame(struct env *env, const struct reg *r)
{
	return env->cur->frame[r->frameno];
}

static bool reg_is_null(const struct reg *r)
{
	return r->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r->s.var_off, 0);
}

static void scrub(uint8_t *t)
{
	if (*t != STACK_INVALID)
		*t = STACK_MISC;
}

static int update_depth(struct env *env, struct frame *f, int off)
{
	if (env->sub[f->subprogno].stack_depth < -off)
		env->sub[f->subprogno].stack_depth = -off;
	return stack_grow(f, -off);
}

/* Linux's check_stack_access_within_bounds; off already includes reg->off. */
int stack_bounds(struct env *env, int regno, int off, int size, enum stack_access acc)
{
	const struct reg *r = &cur_regs(env)[regno];
	struct frame *f = reg_frame(env, r);
	const char *extra = acc == STACK_READ ? " read from" : acc == STACK_WRITE ? " write to" : " indirect access to";
	int64_t min_off, max_off;
	char tn[TNUM_STR_MAX];

	if (kbpf_tnum_is_const(r->s.var_off)) {
		min_off = (int64_t)r->s.var_off.value + off;
		max_off = size > 0 ? min_off + size - 1 : min_off;
	} else {
		if (r->s.smax_value >= MAX_VAR_OFF || r->s.smin_value <= -MAX_VAR_OFF) {
			vlog(env, "invalid unbounded variable-offset%s stack R%d\n", extra, regno);
			return -EACCES;
		}
		min_off = r->s.smin_value + off;
		/* Linux checks the exclusive end smax + off + size against 0, so a
		 * zero-sized access (a helper's size argument may be 0) is out of bounds
		 * once smax + off > 0 (max_off is inclusive here) */
		max_off = size > 0 ? r->s.smax_value + off + size - 1 : s64_max(min_off, r->s.smax_value + off - 1);
	}
	fastcall_stack_access(env, f, min_off); /* bpf_fastcall's contract (fastcall.c) */
	int64_t min_valid = (acc != STACK_READ || env->perfmon) ? -KBPF_MAX_STACK : -f->allocated;
	if (min_off < min_valid || min_off > -1 || max_off < min_valid || max_off > -1) {
		if (kbpf_tnum_is_const(r->s.var_off)) {
			vlog(env, "invalid%s stack R%d off=%d size=%d\n", extra, regno, off, size);
		} else {
			kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
			vlog(env, "invalid variable-offset%s stack R%d var_off=%s size=%d\n", extra, regno, tn, size);
		}
		return -EACCES;
	}
	/* Linux 6.1.y grows the stack here too (grow_stack_state at the end of
	 * check_stack_access_within_bounds): any access in bounds, so the slots the
	 * access checks below are always allocated. */
	return update_depth(env, f, (int)min_off);
}

/* The bytes above a narrow spill (6.12 mark_stack_slot_misc): zeroes stay zero,
 * uninitialized ones uninitialized. */
static void mark_misc(struct env *env, uint8_t *t)
{
	(void)env;
	if (*t == STACK_ZERO || *t == STACK_INVALID)
		return;
	*t = STACK_MISC;
}

static void save_spill(struct env *env, struct stack_slot *sl, const struct reg *r, int size)
{
	int i;
	sl->spilled = *r;
	for (i = 8; i > 8 - size; i--)
		sl->type[i - 1] = STACK_SPILL;
	for (; i; i--)
		mark_misc(env, &sl->type[i - 1]);
}

static int write_fixed(struct env *env, struct frame *f, int off, int size, int value_regno,
		       const struct bpf_insn *insn)
{
	int slot = -off - 1, spi = slot / 8;
	struct stack_slot *sl = &f->stack[spi];
	struct frame *cur = cur_frame(env);
	const struct reg *r = value_regno >= 0 ? &cur->regs[value_regno] : NULL;

	scratch_slot(env, spi);
	if (size == 8)
		f->stack_written |= 1ull << spi;

	if (!env->perfmon && sl->type[7] == STACK_SPILL && size != 8) {
		vlog(env, "attempt to corrupt spilled pointer on stack\n");
		return -EACCES;
	}
	if (r && !(off % 8) && r->type == KBPF_SCALAR_VALUE && env->priv) {
		/* Linux 6.12: every scalar is spilled as a register (6.1: only bounded, non-zero
		 * ones), a narrow one too; the spill keeps the link to the register's copies
		 * (an id given here) unless the value does not fit the spill's size */
		bool fits = 64 - __builtin_clzll(r->s.umax_value | 1) <= 8 * size || !r->s.umax_value;
		struct reg *rw = &cur->regs[value_regno];
		if (fits && !rw->id && !kbpf_tnum_is_const(rw->s.var_off))
			rw->id = ++env->id_gen;
		save_spill(env, sl, r, size);
		if (!fits)
			sl->spilled.id = 0;
		/* precision backtracking follows the slot, whatever the base (precise.c) */
		return hist_note_stack(env, f->frameno, spi);
	} else if (!r && !(off % 8) && BPF_CLASS(insn->code) == BPF_ST && env->priv) {
		/* 6.12: an immediate, 0 too, is a spilled constant */
		struct reg k;
		memset(&k, 0, sizeof(k));
		k.type = KBPF_SCALAR_VALUE;
		kbpf_scalar_mark_known(&k.s, (uint64_t)(int64_t)insn->imm);
		save_spill(env, sl, &k, size);
		return hist_note_stack(env, f->frameno, spi);
	} else if (r && reg_is_pointer(r)) {
		if (size != 8) {
			vlog(env, "invalid size of register spill\n");
			return -EACCES;
		}
		if (f != cur && r->type == KBPF_PTR_TO_STACK) {
			vlog(env, "cannot spill pointers to stack into stack frame of the caller\n");
			return -EINVAL;
		}
		save_spill(env, sl, r, size);
	} else {
		uint8_t type = STACK_MISC;
		bool was_spill = sl->type[7] == STACK_SPILL;
		reg_mark_not_init(env, &sl->spilled);
		if (was_spill)
			for (int i = 0; i < 8; i++)
				scrub(&sl->type[i]);
		if ((r && reg_is_null(r)) || (!r && BPF_CLASS(insn->code) == BPF_ST && insn->imm == 0)) {
			if (r) {
				int err = mark_precise(env, value_regno);
				if (err)
					return err;
			}
			type = STACK_ZERO;
		}
		for (int i = 0; i < size; i++)
			sl->type[(slot - i) % 8] = type;
	}
	return 0;
}

static int write_var(struct env *env, struct frame *f, int regno, int off, int size, int value_regno,
		     const struct bpf_insn *insn, int insn_idx)
{
	const struct reg *ptr = &cur_regs(env)[regno];
	const struct reg *val = value_regno >= 0 ? &cur_regs(env)[value_regno] : NULL;
	int min_off = (int)ptr->s.smin_value + off, max_off = (int)ptr->s.smax_value + off + size;
	bool zero = (val && reg_is_null(val)) || (!val && BPF_CLASS(insn->code) == BPF_ST && insn->imm == 0);
	/* Variable-offset writes may not store pointers (Linux only allows them on
	 * privileged loads via a later check; kbpf keeps it simple and strict). */
	if (val && reg_is_pointer(val)) {
		vlog(env, "spilled ptr in range of var-offset stack write; insn %d, ptr off: %d", insn_idx, min_off);
		return -EINVAL;
	}
	for (int i = min_off; i < max_off; i++) {
		int slot = -i - 1, spi = slot / 8;
		uint8_t *t = &f->stack[spi].type[slot % 8];
		if (!env->perfmon && *t != STACK_MISC && *t != STACK_ZERO) {
			if (*t == STACK_INVALID)
				vlog(env, "uninit stack in range of var-offset write prohibited for !root; insn %d, off: %d",
				     insn_idx, i);
			else
				vlog(env, "spilled ptr in range of var-offset stack write; insn %d, ptr off: %d",
				     insn_idx, i);
			return -EINVAL;
		}
	}
	bool zero_used = false;
	for (int i = min_off; i < max_off; i++) {
		int slot = -i - 1, spi = slot / 8;
		struct stack_slot *sl = &f->stack[spi];
		uint8_t *t = &sl->type[slot % 8];
		if (sl->type[7] == STACK_SPILL) {
			/* 6.12: a zero written over a spilled scalar 0 keeps the spill */
			if (zero && sl->spilled.type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(sl->spilled.s.var_off, 0)) {
				zero_used = true;
				continue;
			}
			/* Erase the spill: the slot's other bytes become misc. */
			reg_mark_not_init(env, &sl->spilled);
			for (int b = 0; b < 8; b++)
				scrub(&sl->type[b]);
		}
		zero_used |= *t == STACK_ZERO && zero;
		*t = (*t == STACK_ZERO && zero) ? STACK_ZERO : STACK_MISC;
	}
	/* the zeroes kept rest on the stored register being 0 (6.12 marks it precise) */
	if (zero_used && val)
		return mark_precise(env, value_regno);
	return 0;
}

int stack_write(struct env *env, int regno, int off, int size, int value_regno, const struct bpf_insn *insn,
		int insn_idx)
{
	const struct reg *ptr = &cur_regs(env)[regno];
	struct frame *f = reg_frame(env, ptr);
	if (kbpf_tnum_is_const(ptr->s.var_off))
		return write_fixed(env, f, off + (int)ptr->s.var_off.value, size, value_regno, insn);
	return write_var(env, f, regno, off, size, value_regno, insn, insn_idx);
}

static void mark_stack_read(struct env *env, struct frame *f, int min_off, int max_off, int dst)
{
	int zeros = 0;
	for (int i = min_off; i < max_off; i++) {
		int slot = -i - 1;
		if (f->stack[slot / 8].type[slot % 8] == STACK_ZERO)
			zeros++;
	}
	struct reg *d = &cur_regs(env)[dst];
	if (zeros == max_off - min_off) {
		/* 6.12: a constant 0, its precision not tracked (the zeroed bytes are
		 * compared exactly when pruning) */
		reg_mark_unknown(env, d);
		kbpf_scalar_mark_known(&d->s, 0);
	} else {
		reg_mark_unknown(env, d);
	}
}

static int read_fixed(struct env *env, struct frame *f, int off, int size, int dst)
{
	int slot = -off - 1, spi = slot / 8;
	struct stack_slot *sl = &f->stack[spi];
	const uint8_t *st = sl->type;

	scratch_slot(env, spi);
	mark_stack_slot_read(env, env->cur, (int)f->frameno, spi); /* liveness (prune.c) */

	if (st[7] == STACK_SPILL) {
		const struct reg *r = &sl->spilled;
		int spill_size = 1;
		for (int i = 7; i > 0 && st[i - 1] == STACK_SPILL; i--)
			spill_size++;
		if (size != 8 || spill_size != 8) {
			if (r->type != KBPF_SCALAR_VALUE) {
				vlog(env, "invalid size of register fill\n");
				return -EACCES;
			}
			if (dst < 0)
				return 0;
			if (size <= spill_size && !(off % 8)) {
				/* 6.12: a fill of the spill's low bytes is the register, narrowed
				 * (coerced by the caller); a value wider than the fill loses the
				 * link to its copies */
				struct reg *d = &cur_regs(env)[dst];
				*d = *r;
				if (64 - __builtin_clzll(r->s.umax_value | 1) > 8 * size && r->s.umax_value)
					d->id = 0;
				return hist_note_stack(env, f->frameno, spi);
			}
			int spills = 0, zeros = 0;
			for (int i = 0; i < size; i++) {
				uint8_t t = st[(slot - i) % 8];
				if (t == STACK_SPILL)
					spills++;
				else if (t == STACK_ZERO)
					zeros++;
				else if (!(t == STACK_MISC || (t == STACK_INVALID && env->perfmon))) {
					vlog(env, "invalid read from stack off %d+%d size %d\n", off, i, size);
					return -EACCES;
				}
			}
			struct reg *d = &cur_regs(env)[dst];
			reg_mark_unknown(env, d);
			if (spills == size && kbpf_tnum_equals_const(r->s.var_off, 0)) {
				/* bytes of a spilled 0: a fill of that register (6.12) */
				kbpf_scalar_mark_known(&d->s, 0);
				return hist_note_stack(env, f->frameno, spi);
			}
			if (zeros == size)
				kbpf_scalar_mark_known(&d->s, 0); /* zeroed bytes: not a fill */
			return 0;
		}
		if (dst >= 0) {
			cur_regs(env)[dst] = *r;
			if (r->type == KBPF_SCALAR_VALUE)
				return hist_note_stack(env, f->frameno, spi);
		} else if (reg_is_pointer(r) && !env->perfmon) {
			vlog(env, "leaking pointer from stack off %d\n", off);
			return -EACCES;
		}
		return 0;
	}
	for (int i = 0; i < size; i++) {
		uint8_t t = st[(slot - i) % 8];
		if (t == STACK_MISC || t == STACK_ZERO || (t == STACK_INVALID && env->perfmon))
			continue;
		vlog(env, "invalid read from stack off %d+%d size %d\n", off, i, size);
		return -EACCES;
	}
	if (dst >= 0)
		mark_stack_read(env, f, off, off + size, dst);
	return 0;
}

int stack_read(struct env *env, int regno, int off, int size, int dst)
{
	const struct reg *ptr = &cur_regs(env)[regno];
	struct frame *f = reg_frame(env, ptr);
	if (kbpf_tnum_is_const(ptr->s.var_off))
		return read_fixed(env, f, off + (int)ptr->s.var_off.value, size, dst);
	if (dst < 0) {
		char tn[TNUM_STR_MAX];
		kbpf_tnum_strn(tn, sizeof(tn), ptr->s.var_off);
		vlog(env, "variable offset stack pointer cannot be passed into helper function; var_off=%s off=%d size=%d\n",
		     tn, off, size);
		return -EACCES;
	}
	int err = stack_range_init(env, regno, off, size, false, STACK_READ, NULL, false);
	if (err)
		return err;
	mark_stack_read(env, f, (int)ptr->s.smin_value + off, (int)ptr->s.smax_value + off + size, dst);
	return 0;
}

/* check_stack_range_initialized: size bytes at ptr+off must be initialised (or are
 * about to be written by a helper in raw mode); helpers clobber what they touch. */
int stack_range_init(struct env *env, int regno, int off, int size, bool zero_ok, enum stack_access acc,
		     bool *raw, bool clobber)
{
	const struct reg *ptr = &cur_regs(env)[regno];
	struct frame *f = reg_frame(env, ptr);
	const char *extra = acc == STACK_HELPER ? " indirect" : "";
	int min_off, max_off;
	char tn[TNUM_STR_MAX];

	if (size == 0 && !zero_ok) {
		vlog(env, "invalid zero-sized read\n");
		return -EACCES;
	}
	int err = stack_bounds(env, regno, off, size, acc);
	if (err)
		return err;
	if (kbpf_tnum_is_const(ptr->s.var_off)) {
		min_off = max_off = (int)ptr->s.var_off.value + off;
	} else {
		if (!env->perfmon) {
			kbpf_tnum_strn(tn, sizeof(tn), ptr->s.var_off);
			vlog(env, "R%d%s variable offset stack access prohibited for !root, var_off=%s\n", regno, extra,
			     tn);
			return -EACCES;
		}
		if (raw)
			*raw = false;
		min_off = (int)ptr->s.smin_value + off;
		max_off = (int)ptr->s.smax_value + off;
	}
	if (raw && *raw) {
		/* The helper writes these bytes: they become misc after the call. Linux 6.12
		 * writes them one byte at a time (check_helper_call), so a byte of a spilled
		 * pointer is a partial overwrite, refused without allow_ptr_leaks. */
		if (!env->perfmon)
			for (int i = min_off; i < max_off + size; i++) {
				const struct stack_slot *sl = &f->stack[(-i - 1) / 8];
				if (sl->type[7] == STACK_SPILL && sl->spilled.type != KBPF_SCALAR_VALUE) {
					vlog(env, "attempt to corrupt spilled pointer on stack\n");
					return -EACCES;
				}
			}
		for (int i = min_off; i < max_off + size; i++) {
			int slot = -i - 1;
			struct stack_slot *sl = &f->stack[slot / 8];
			if (sl->type[7] == STACK_SPILL) {
				reg_mark_not_init(env, &sl->spilled);
				for (int b = 0; b < 8; b++)
					scrub(&sl->type[b]);
			}
			sl->type[slot % 8] = STACK_MISC;
		}
		return 0;
	}
	for (int i = min_off; i < max_off + size; i++) {
		int slot = -i - 1;
		struct stack_slot *sl = &f->stack[slot / 8];
		uint8_t *t = &sl->type[slot % 8];
		mark_stack_slot_read(env, env->cur, (int)f->frameno, slot / 8); /* liveness (prune.c) */
		if (*t == STACK_MISC)
			continue;
		if (*t == STACK_ZERO) {
			if (clobber)
				*t = STACK_MISC;
			continue;
		}
		if (sl->type[7] == STACK_SPILL && (sl->spilled.type == KBPF_SCALAR_VALUE || env->perfmon)) {
			if (clobber) {
				reg_mark_unknown(env, &sl->spilled);
				for (int b = 0; b < 8; b++)
					sl->type[b] = STACK_MISC;
			}
			continue;
		}
		if (*t == STACK_INVALID && env->perfmon) {
			if (clobber)
				*t = STACK_MISC;
			continue;
		}
		if (kbpf_tnum_is_const(ptr->s.var_off)) {
			vlog(env, "invalid%s read from stack R%d off %d+%d size %d\n", extra, regno, min_off,
			     i - min_off, size);
		} else {
			kbpf_tnum_strn(tn, sizeof(tn), ptr->s.var_off);
			vlog(env, "invalid%s read from stack R%d var_off %s+%d size %d\n", extra, regno, tn,
			     i - min_off, size);
		}
		return -EACCES;
	}
	return 0;
}
