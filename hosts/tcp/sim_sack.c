/* SPDX-License-Identifier: Apache-2.0 */
/* SACK as it is carried on the wire (the default; kbpf_tcp_flow_opts.sack_ideal, issue 20): the
 * receiver's block list as Linux 6.12 keeps it (tcp_input.c: tcp_sack_new_ofo_skb,
 * tcp_sack_extend, tcp_sack_maybe_coalesce, tcp_sack_remove, tcp_dsack_set/_extend), the
 * option an ACK carries (tcp_output.c: at most 3 blocks beside timestamps, the D-SACK
 * first and only once), the sender's D-SACK test (tcp_check_dsack), and the reverse
 * path's queue of options. Blocks are segment indexes, compared modulo 2^32 as Linux
 * compares sequence numbers. */
#include <stdlib.h>
#include "sim_internal.h"

static bool idx_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

static bool idx_after(__u32 a, __u32 b)
{
	return idx_before(b, a);
}

/* tcp_sack_extend: [start, end) overlaps or touches b: b grows to cover both. */
bool sim_sack_extend(struct sim_sack_block *b, __u32 start, __u32 end)
{
	if (idx_after(start, b->end) || idx_after(b->start, end))
		return false;
	if (idx_before(start, b->start))
		b->start = start;
	if (idx_after(end, b->end))
		b->end = end;
	return true;
}

/* tcp_sack_maybe_coalesce: the first block grew; it swallows every block it now reaches. */
static void maybe_coalesce(struct sim_sack_list *l)
{
	for (unsigned int i = 1; i < l->num;) {
		if (sim_sack_extend(&l->blk[0], l->blk[i].start, l->blk[i].end)) {
			l->num--;
			for (unsigned int j = i; j < l->num; j++)
				l->blk[j] = l->blk[j + 1];
			continue;
		}
		i++;
	}
}

/* Linux's TCP_SACK_BLOCKS_EXPECTED: a change past the first two blocks sends a held
 * (compressed) ACK at once. */
#define SACK_BLOCKS_EXPECTED 2

void sim_sack_new_ofo(struct sim_sack_list *l, __u32 start, __u32 end, void (*kick)(void *), void *ctx)
{
	unsigned int i;

	if (!l->num) {
		l->blk[0] = (struct sim_sack_block){ start, end };
		l->num = 1;
		return;
	}
	for (i = 0; i < l->num; i++) {
		if (sim_sack_extend(&l->blk[i], start, end)) {
			if (i >= SACK_BLOCKS_EXPECTED && kick)
				kick(ctx);
			/* the grown block becomes the first */
			for (; i > 0; i--) {
				struct sim_sack_block t = l->blk[i];

				l->blk[i] = l->blk[i - 1];
				l->blk[i - 1] = t;
			}
			if (l->num > 1)
				maybe_coalesce(l);
			return;
		}
	}
	if (i >= SACK_BLOCKS_EXPECTED && kick)
		kick(ctx);
	/* a new block in front; the oldest goes when all four are in use */
	if (i >= SIM_NUM_SACKS) {
		i--;
		l->num--;
	}
	for (; i > 0; i--)
		l->blk[i] = l->blk[i - 1];
	l->blk[0] = (struct sim_sack_block){ start, end };
	l->num++;
}

void sim_sack_remove(struct sim_sack_list *l, __u32 rcv_idx, bool ofo_empty)
{
	if (ofo_empty) {
		l->num = 0;
		return;
	}
	for (unsigned int i = 0; i < l->num;) {
		/* rcv_nxt reached the block's start: it covers the whole block */
		if (!idx_before(rcv_idx, l->blk[i].start)) {
			l->num--;
			for (unsigned int j = i; j < l->num; j++)
				l->blk[j] = l->blk[j + 1];
			continue;
		}
		i++;
	}
}

void sim_dsack_set(struct sim_sack_list *l, __u32 start, __u32 end)
{
	l->has_dsack = 1;
	l->dsack = (struct sim_sack_block){ start, end };
}

void sim_dsack_extend(struct sim_sack_list *l, __u32 start, __u32 end)
{
	if (!l->has_dsack)
		sim_dsack_set(l, start, end);
	else
		sim_sack_extend(&l->dsack, start, end);
}

void sim_sack_wire(struct sim_sack_list *l, struct sim_wire_sack *w)
{
	unsigned int n = 0;

	if (l->has_dsack) {
		w->b[n++] = l->dsack;
		l->has_dsack = 0;
	}
	for (unsigned int i = 0; i < l->num && n < SIM_WIRE_SACKS; i++)
		w->b[n++] = l->blk[i];
	w->n = (__u8)n;
}

bool sim_sack_is_dsack(const struct sim_sack_block *b, unsigned int n, __u32 ack_idx)
{
	if (!n)
		return false;
	if (idx_before(b[0].start, ack_idx))
		return true;
	return n > 1 && !idx_after(b[0].end, b[1].end) && !idx_before(b[0].start, b[1].start);
}

bool sim_wire_sack_push(struct sim_flow *f, const struct sim_wire_sack *w)
{
	struct sim_wire_sack *q = sim_ring_reserve(f->sim, f->wsack, sizeof(*q), &f->wsack_cap, &f->wsack_head, f->wsack_len);

	if (!q)
		return false;
	f->wsack = q;
	q[(f->wsack_head + f->wsack_len++) & (f->wsack_cap - 1)] = *w;
	return true;
}

void sim_wire_sack_pop(struct sim_flow *f, struct sim_wire_sack *w)
{
	*w = f->wsack[f->wsack_head];
	f->wsack_head = (f->wsack_head + 1) & (f->wsack_cap - 1);
	f->wsack_len--;
}
