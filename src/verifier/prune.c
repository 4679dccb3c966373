/* SPDX-License-Identifier: Apache-2.0 */
/* State pruning (Linux 6.1 is_state_visited, states_equal): checkpoints at prune
 * points, and a path is cut when a fully explored checkpoint covers it. Ids (linked
 * scalars, pointers, the held lock) are paired as in Linux 6.12 (check_ids,
 * check_scalar_ids, active_lock): one to one, through one map per comparison.
 *
 * Register liveness (Linux's REG_LIVE_READ/WRITTEN, mark_reg_read, propagate_liveness):
 * a read marks the register in every checkpoint above the current path up to the
 * segment that wrote it; a register no path below a checkpoint read is dead there and
 * is not compared; the same for stack slots (an 8-byte write defines a slot). Frames
 * hold only the stack slots the program touched (state.c), compared up to the explored
 * state's allocated depth as in Linux's stacksafe. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "verifier/env.h"

/* every register and slot of every frame with an id and a ref_obj_id, every reference,
 * and the lock */
#define ID_MAP_SIZE ((2 * (MAX_REG + STACK_SLOTS) + MAX_REFS) * KBPF_MAX_CALL_FRAMES + 1)

/* The ids paired so far in one states_equal: n entries used, so a comparison starts
 * by setting n = 0 instead of clearing the whole (13.4 KiB) table; tmp hands out the
 * temporary ids of check_scalar_ids (above every id the walk gave out). */
struct idmap {
	int n;
	uint32_t tmp;
	struct {
		uint32_t old, cur;
	} e[ID_MAP_SIZE];
};

/* Linux 6.12's check_ids: both ids zero, or both set and paired one to one (an old id
 * always meets the same cur id, and a cur id is met by one old id only). */
static bool check_ids(uint32_t old, uint32_t cur, struct idmap *map)
{
	if (!old != !cur)
		return false;
	if (!old)
		return true;
	for (int i = 0; i < map->n; i++) {
		if (map->e[i].old == old)
			return map->e[i].cur == cur;
		if (map->e[i].cur == cur)
			return false;
	}
	if (map->n == ID_MAP_SIZE)
		return false;
	map->e[map->n].old = old;
	map->e[map->n++].cur = cur;
	return true;
}

/* Linux 6.12's check_scalar_ids: a scalar without an id in cur is linked to nothing, so
 * it gets an id of its own: two such scalars cannot stand for two scalars linked in old. */
static bool check_scalar_ids(uint32_t old, uint32_t cur, struct idmap *map)
{
	if (!old)
		return true;
	return check_ids(old, cur ? cur : ++map->tmp, map);
}

static bool range_within(const struct scalar *o, const struct scalar *c)
{
	return o->umin_value <= c->umin_value && o->umax_value >= c->umax_value && o->smin_value <= c->smin_value &&
	       o->smax_value >= c->smax_value && o->u32_min_value <= c->u32_min_value &&
	       o->u32_max_value >= c->u32_max_value && o->s32_min_value <= c->s32_min_value &&
	       o->s32_max_value >= c->s32_max_value;
}

/* How states_equal compares (Linux 6.12's enum exact_level): NOT_EXACT trusts the
 * explored state's liveness and precision (its walk is complete); EXACT asks for the same
 * registers and slots, ids paired (the infinite-loop check: a state on the path met again
 * unchanged); RANGE_WITHIN compares every register and slot by value, for a state whose
 * walk is not complete: one still on the path (a callback's earlier visit) or cut against
 * one (loop_incomplete). */
enum { NOT_EXACT, EXACT, RANGE_WITHIN };

/* Linux 6.12's regs_exact: everything but the ids equal, the ids paired. */
static bool regs_exact(const struct reg *o, const struct reg *c, struct idmap *map)
{
	struct reg a = *o, b = *c;
	a.id = b.id = a.ref_obj_id = b.ref_obj_id = 0;
	return reg_identical(&a, &b) && check_ids(o->id, c->id, map) && check_ids(o->ref_obj_id, c->ref_obj_id, map);
}

static bool regsafe(const struct env *env, const struct reg *o, const struct reg *c, struct idmap *map,
		    int exact)
{
	if (exact == EXACT)
		return regs_exact(o, c, map);
	if (o->type == KBPF_NOT_INIT)
		return exact == NOT_EXACT || c->type == KBPF_NOT_INIT;
	if (c->type == KBPF_NOT_INIT)
		return false;
	bool equal = reg_identical(o, c);
	if (o->type == KBPF_PTR_TO_STACK)
		return equal;
	switch (KBPF_REG_BASE(o->type)) {
	case KBPF_SCALAR_VALUE:
		if (c->type != KBPF_SCALAR_VALUE)
			return false;
		if (env->explore_alu_limits)
			return false;
		/* A value that never decided anything on the explored paths. */
		if (!o->precise && exact == NOT_EXACT)
			return true;
		/* Linked scalars must stay linked the same way (Linux 6.5+, 6.12's rule): with
		 * linked precision (precise.c), every copy whose bounds came from a compare of
		 * another is precise, so their links are compared here. */
		return range_within(&o->s, &c->s) && kbpf_tnum_in(o->s.var_off, c->s.var_off) &&
		       check_scalar_ids(o->id, c->id, map);
	case KBPF_PTR_TO_MAP_KEY:
	case KBPF_PTR_TO_MAP_VALUE:
		return o->type == c->type && o->off == c->off && o->map == c->map && range_within(&o->s, &c->s) &&
		       kbpf_tnum_in(o->s.var_off, c->s.var_off) && check_ids(o->id, c->id, map) &&
		       check_ids(o->ref_obj_id, c->ref_obj_id, map);
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
		if (o->type != c->type)
			return false;
		if (o->range < 0 || c->range < 0) {
			if (o->range != c->range)
				return false;
		} else if (o->range > c->range) {
			return false;
		}
		if (o->off != c->off)
			return false;
		if (!check_ids(o->id, c->id, map))
			return false;
		return range_within(&o->s, &c->s) && kbpf_tnum_in(o->s.var_off, c->s.var_off);
	default:
		if (!equal)
			return false;
		/* Pointers with ids (null checks, references) must map consistently. */
		return check_ids(o->id, c->id, map) && check_ids(o->ref_obj_id, c->ref_obj_id, map);
	}
}

/* Linux's mark_reg_read: regno of frame frameno was read in st. Walk up the
 * checkpoints until the segment that defined the value: a segment that wrote the
 * register, or that pushed the frame (its arguments were marked at the call). */
void mark_reg_read(struct env *env, struct vstate *st, int frameno, int regno)
{
	uint16_t bit = (uint16_t)(1u << regno);
	uint32_t walk = 0;
	if (regno >= FP_REG)
		return; /* the frame pointer never changes */
	for (struct vstate *child = st; child->parent; child = child->parent) {
		const struct frame *cf = frameno <= child->curframe ? child->frame[frameno] : NULL;
		if (!cf || cf->born || (cf->written & bit))
			break;
		struct vstate *p = child->parent;
		struct frame *pf = frameno <= p->curframe ? p->frame[frameno] : NULL;
		if (!pf || (pf->live_read & bit))
			break;
		pf->live_read |= bit;
		walk++;
	}
	if (walk > env->longest_mark_read_walk)
		env->longest_mark_read_walk = walk;
}

/* The same for stack slot spi of frame frameno: a segment that wrote all 8 bytes of the
 * slot defined it. */
void mark_stack_slot_read(struct env *env, struct vstate *st, int frameno, int spi)
{
	uint64_t bit = 1ull << spi;
	uint32_t walk = 0;
	if (spi < 0 || spi >= STACK_SLOTS)
		return;
	for (struct vstate *child = st; child->parent; child = child->parent) {
		const struct frame *cf = frameno <= child->curframe ? child->frame[frameno] : NULL;
		if (!cf || cf->born || (cf->stack_written & bit))
			break;
		struct vstate *p = child->parent;
		struct frame *pf = frameno <= p->curframe ? p->frame[frameno] : NULL;
		if (!pf || spi >= pf->allocated / 8 || (pf->stack_live_read & bit))
			break;
		pf->stack_live_read |= bit;
		walk++;
	}
	if (walk > env->longest_mark_read_walk)
		env->longest_mark_read_walk = walk;
}

/* 6.12's scalar_reg_for_stack: a slot that reads as a scalar register: a 64-bit spilled
 * scalar, or (as unbound) eight misc bytes (uninitialized ones count where reading them
 * is allowed). */
static const struct reg *scalar_for_slot(const struct env *env, const struct stack_slot *sl,
					 const struct reg *unbound)
{
	bool spill = true, misc = true;
	for (int b = 0; b < 8; b++) {
		spill = spill && sl->type[b] == STACK_SPILL;
		misc = misc && (sl->type[b] == STACK_MISC || (sl->type[b] == STACK_INVALID && env->perfmon));
	}
	if (spill && sl->spilled.type == KBPF_SCALAR_VALUE)
		return &sl->spilled;
	return misc ? unbound : NULL;
}

static bool stacksafe(struct env *env, const struct frame *o, const struct frame *c, struct idmap *map,
		      int exact)
{
	struct reg unbound;
	reg_mark_unknown(NULL, &unbound); /* imprecise, no id */
	for (int i = 0; i < o->allocated; i++) {
		int spi = i / 8;
		if (exact != NOT_EXACT && (i >= c->allocated || o->stack[spi].type[i % 8] != c->stack[spi].type[i % 8]))
			return false;
		if (exact == NOT_EXACT && !(o->stack_live_read & (1ull << spi))) {
			i += 7; /* dead in the explored state */
			continue;
		}
		uint8_t ot = o->stack[spi].type[i % 8];
		if (ot == STACK_INVALID)
			continue;
		if (env->perfmon && ot == STACK_MISC)
			continue;
		if (i >= c->allocated)
			return false;
		/* 6.12: a 64-bit spilled scalar and a slot of misc bytes (an unknown scalar
		 * when read) are compared as registers, either way round */
		const struct reg *osr = scalar_for_slot(env, &o->stack[spi], &unbound);
		const struct reg *csr = scalar_for_slot(env, &c->stack[spi], &unbound);
		if (osr && csr) {
			if (!regsafe(env, osr, csr, map, exact))
				return false;
			i += 7;
			continue;
		}
		uint8_t ct = c->stack[spi].type[i % 8];
		if (ot == STACK_MISC && ct == STACK_ZERO)
			continue;
		if (ot != ct)
			return false;
		if (i % 8 != 7 || o->stack[spi].type[7] != STACK_SPILL)
			continue;
		if (!regsafe(env, &o->stack[spi].spilled, &c->stack[spi].spilled, map, exact))
			return false;
	}
	return true;
}

/* Stricter than 6.12 (which pairs the ids with check_ids only): the same ids, from the
 * same insns; paired in the map too, so registers cannot hold them crosswise. */
static bool refsafe(const struct frame *o, const struct frame *c, struct idmap *map)
{
	if (o->nr_refs != c->nr_refs)
		return false;
	for (int i = 0; i < o->nr_refs; i++)
		if (o->refs[i].id != c->refs[i].id || o->refs[i].insn != c->refs[i].insn ||
		    !check_ids(o->refs[i].id, c->refs[i].id, map))
			return false;
	return true;
}

static bool states_equal(struct env *env, const struct vstate *o, const struct vstate *c, int exact)
{
	if (o->curframe != c->curframe)
		return false;
	if (o->speculative && !c->speculative)
		return false;
	struct idmap idmap, *map = &idmap;
	map->n = 0;
	map->tmp = env->id_gen;
	/* The held lock (Linux 6.12, active_lock): the same map, and its id paired with the
	 * ids of the registers through the same idmap, so a path holding the lock of one
	 * value but pointing at another where the explored one pointed at the held value
	 * is not covered (the literal compare of 6.1 let it through). */
	if (!o->active_spin_lock != !c->active_spin_lock)
		return false;
	if (o->active_spin_lock &&
	    (o->active_lock_map != c->active_lock_map || !check_ids(o->active_spin_lock, c->active_spin_lock, map)))
		return false;
	bool ok = true;
	for (int f = 0; f <= o->curframe && ok; f++) {
		const struct frame *of = o->frame[f], *cf = c->frame[f];
		/* a frame with fewer bpf_loop visits left does not cover one with more */
		if (of->callsite != cf->callsite || of->callback_depth > cf->callback_depth) {
			ok = false;
			break;
		}
		for (int i = 0; i < MAX_REG && ok; i++) {
			/* dead in the explored state: no path below it read the value */
			if (exact == NOT_EXACT && i < FP_REG && !(of->live_read & (1u << i)))
				continue;
			ok = regsafe(env, &of->regs[i], &cf->regs[i], map, exact);
		}
		ok = ok && stacksafe(env, of, cf, map, exact) && refsafe(of, cf, map);
	}
	return ok;
}

static bool states_maybe_looping(const struct vstate *o, const struct vstate *c)
{
	if (o->curframe != c->curframe)
		return false;
	const struct frame *of = o->frame[o->curframe], *cf = c->frame[c->curframe];
	for (int i = 0; i < MAX_REG; i++)
		if (!reg_identical(&of->regs[i], &cf->regs[i]))
			return false;
	return true;
}

/* Whether hdr is at or above st's topmost incomplete ancestor (loop_hdr; NULL is above
 * everything). */
static bool hdr_above(const struct vstate *hdr, const struct vstate *than)
{
	return !hdr || (than && hdr->dfs_depth <= than->dfs_depth);
}

/* cur's path ends covered by sl, whose walk is not complete: sl is still on the path (a
 * callback's earlier visit) or was itself cut against such a state. The checkpoints of
 * cur's path below the topmost such state have liveness and precision marks that a
 * later walk of that state may still need, so they are compared by value only from now
 * on (Linux 6.12 gets there with loop entries; kbpf keeps the mark for good). The walk
 * stops at a checkpoint already marked up to the same header or higher. */
static void mark_loop_incomplete(struct vstate *cur, const struct vstate *sl)
{
	struct vstate *hdr = sl->branches ? (struct vstate *)sl : sl->loop_hdr;
	bool found = false;
	for (struct vstate *p = cur->parent; p; p = p->parent)
		if (p == hdr) {
			found = true;
			break;
		}
	if (!found)
		hdr = NULL; /* not above cur: everything on its path */
	for (struct vstate *p = cur->parent; p && p != hdr; p = p->parent) {
		if (p->loop_incomplete && hdr_above(p->loop_hdr, hdr))
			break;
		if (!p->loop_incomplete || !hdr_above(hdr, p->loop_hdr))
			p->loop_hdr = hdr;
		p->loop_incomplete = true;
	}
}

void update_branch_counts(struct env *env, struct vstate *st)
{
	(void)env;
	while (st) {
		if (st->branches)
			st->branches--;
		if (st->branches)
			break;
		st = st->parent;
	}
}

int is_state_visited(struct env *env, int insn_idx)
{
	struct vstate *cur = env->cur;
	cur->last_insn_idx = env->prev_insn_idx;
	if (!env->aux[insn_idx].prune_point)
		return 0;
	/* A path that stores no checkpoint keeps one history segment for all its steps, and
	 * precision backtracking walks it whole each time: a loop of N iterations would cost
	 * O(N^2) time. Linux later forces a checkpoint once the history passes 40 jumps ("bpf:
	 * avoid accumulating infinitely long jmp history", 6.8); so does kbpf. */
	bool calls_cb = env->aux[insn_idx].calls_callback, may_goto = env->aux[insn_idx].may_goto;
	bool force = env->test_state_freq || cur->hist_cnt > 40 || calls_cb || may_goto;
	bool add = force || (env->jmps_processed - env->prev_jmps_processed >= 2 &&
			     env->insn_processed - env->prev_insn_processed >= 8);
	int n = 0;
	struct vstate **pprev = &env->explored[insn_idx], *sl;
	while ((sl = *pprev)) {
		n++;
		if (sl->branches) {
			const struct frame *sf = sl->frame[sl->curframe];
			/* 6.1: another entry into an async callback (a callback that sets
			 * itself again) meets its first entry's states: not a loop */
			bool other_entry = sf->in_async_callback &&
					   sf->async_entry_cnt != cur->frame[cur->curframe]->async_entry_cnt;
			/* Linux 6.7+: an earlier visit of a callback's call covers a later one
			 * within it: the callback's visits reached a fixed point. kbpf: only a
			 * visit that came back from the callback's exit; the caller's own flow
			 * reaching the call again (a loop around it) is a loop like any other,
			 * checked below (6.12 cut it here too and accepted a loop around a
			 * bpf_loop call that never ends: attack2) */
			if (calls_cb && cur->frame[cur->curframe]->cb_returning) {
				if (states_equal(env, sl, cur, RANGE_WITHIN))
					goto hit;
				goto miss;
			}
			/* Linux 6.9+: a may_goto visit one counter step deeper than an earlier
			 * one whose values cover it adds nothing: the counter ends the loop.
			 * kbpf: only within one invocation of the frame. The counter is the
			 * frame's own, set again by every call, so across calls nothing runs it
			 * down: 6.12's rule accepted a loop around a call whose may_goto cut
			 * the calls' visits, and that program never ends (attack2) */
			if (may_goto && sl->may_goto_depth != cur->may_goto_depth &&
			    sl->frame[sl->curframe]->invocation == cur->frame[cur->curframe]->invocation &&
			    states_equal(env, sl, cur, RANGE_WITHIN))
				goto hit;
			if (!other_entry && sl->callback_unroll_depth == cur->callback_unroll_depth &&
			    sl->may_goto_depth == cur->may_goto_depth &&
			    states_maybe_looping(sl, cur) && states_equal(env, sl, cur, EXACT)) {
				vlog(env, "infinite loop detected at insn %d\n", insn_idx);
				return -EINVAL;
			}
			if (!force && env->jmps_processed - env->prev_jmps_processed < 20 &&
			    env->insn_processed - env->prev_insn_processed < 100)
				add = false;
			goto miss;
		}
		if (states_equal(env, sl, cur, sl->loop_incomplete ? RANGE_WITHIN : NOT_EXACT)) {
hit:
			if (sl->branches || sl->loop_incomplete)
				mark_loop_incomplete(cur, sl);
			sl->hit++;
			/* Linux's propagate_liveness: what the paths below sl read, the paths
			 * below cur would have read too; cur's checkpoints must know it. */
			for (int f = 0; f <= sl->curframe; f++)
				for (int i = 0; i < FP_REG; i++)
					if (sl->frame[f]->live_read & (1u << i))
						mark_reg_read(env, cur, f, i);
			for (int f = 0; f <= sl->curframe; f++)
				for (int i = 0; i < sl->frame[f]->allocated / 8; i++)
					if (sl->frame[f]->stack_live_read & (1ull << i))
						mark_stack_slot_read(env, cur, f, i);
			/* What was precise in the covering state must be in this path too: what
			 * paths below it read, or everything when its marks may be incomplete. */
			int err = propagate_precision(env, sl, sl->branches || sl->loop_incomplete);
			if (err)
				return err;
			return 1;
		}
miss:
		if (add)
			sl->miss++;
		/* Rarely useful: drop it from the search (kept alive for parent links). */
		if (sl->miss > sl->hit * 3 + 3) {
			*pprev = sl->next;
			sl->next = env->free_list;
			env->free_list = sl;
			continue;
		}
		pprev = &sl->next;
	}
	if ((uint32_t)n > env->max_states_per_insn)
		env->max_states_per_insn = n;
	if (!env->priv && n > 64)
		return 0;
	if (!add || env->total_states >= MAX_STORED_STATES)
		return 0;
	/* Linux forgets inherited precision before the copy: the checkpoint too starts
	 * imprecise, and mark_chain_precision marks it when a later path needs it. */
	if (env->priv)
		clear_precision(cur);
	struct vstate *nw = state_copy(cur);
	if (!nw)
		return -ENOMEM;
	env->total_states++;
	env->peak_states++;
	env->prev_jmps_processed = env->jmps_processed;
	env->prev_insn_processed = env->insn_processed;
	nw->insn_idx = insn_idx;
	nw->branches = 1;
	nw->parent = cur->parent;
	nw->dfs_depth = cur->parent ? cur->parent->dfs_depth + 1 : 0;
	if (env->hist_pushed)
		hist_pop(nw); /* the step into insn_idx is not part of nw's segment */
	for (int f = 0; f <= nw->curframe; f++)
		nw->frame[f]->live_read = 0, nw->frame[f]->stack_live_read = 0; /* filled in below it */
	nw->next = env->explored[insn_idx];
	env->explored[insn_idx] = nw;
	cur->parent = nw;
	cur->first_insn_idx = insn_idx;
	hist_clear(cur);
	env->cur_hist = NULL; /* the arrival's entry went with the old segment */
	for (int f = 0; f <= cur->curframe; f++) {
		cur->frame[f]->written = 0;
		cur->frame[f]->stack_written = 0;
		cur->frame[f]->born = false;
		cur->frame[f]->live_read = 0;
		cur->frame[f]->stack_live_read = 0;
	}
	return 0;
}

void explored_free(struct env *env)
{
	while (env->free_list) {
		struct vstate *n = env->free_list->next;
		state_free(env->free_list);
		env->free_list = n;
	}
	if (!env->explored)
		return;
	for (int i = 0; i < env->cnt; i++) {
		struct vstate *s = env->explored[i];
		while (s) {
			struct vstate *n = s->next;
			state_free(s);
			s = n;
		}
	}
}
