/* SPDX-License-Identifier: Apache-2.0 */
/* The receiver's SACK block list as Linux 6.12 builds it (hosts/tcp/sim_sack.c, issue 20):
 * blocks most recent first, merged when they touch, at most 4 kept and 3 on the wire, the
 * D-SACK first and sent once, blocks dropped when rcv_nxt passes them; and the sender's
 * D-SACK test (tcp_check_dsack). Indexes are segment numbers. */
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"

#define B(l, i, s, e) CHECK((l).blk[i].start == (s) && (l).blk[i].end == (e))
#define W(w, i, s, e) CHECK((w).b[i].start == (s) && (w).b[i].end == (e))

static void ofo(struct sim_sack_list *l, __u32 s, __u32 e)
{
	sim_sack_new_ofo(l, s, e, NULL, NULL);
}

/* A new block goes in front; the list is most recent first. */
static void test_order(void)
{
	struct sim_sack_list l = { 0 };

	ofo(&l, 10, 11);
	ofo(&l, 20, 21);
	ofo(&l, 30, 31);
	CHECK_EQ_U64(l.num, 3);
	B(l, 0, 30, 31);
	B(l, 1, 20, 21);
	B(l, 2, 10, 11);
}

/* A segment that touches a block extends it, and that block moves to the front. */
static void test_extend_rotates(void)
{
	struct sim_sack_list l = { 0 };

	ofo(&l, 10, 11);
	ofo(&l, 20, 21);
	ofo(&l, 30, 31);
	ofo(&l, 11, 12); /* extends the oldest block */
	CHECK_EQ_U64(l.num, 3);
	B(l, 0, 10, 12);
	B(l, 1, 30, 31);
	B(l, 2, 20, 21);
	ofo(&l, 19, 20); /* below a block: extends it downwards */
	B(l, 0, 19, 21);
	B(l, 1, 10, 12);
	ofo(&l, 20, 21); /* inside a block: no new block */
	CHECK_EQ_U64(l.num, 3);
}

/* Filling the gap between two blocks merges them into the first (tcp_sack_maybe_coalesce). */
static void test_coalesce(void)
{
	struct sim_sack_list l = { 0 };

	ofo(&l, 10, 12);
	ofo(&l, 13, 15);
	ofo(&l, 30, 31);
	ofo(&l, 12, 13); /* joins 10-12 and 13-15 */
	CHECK_EQ_U64(l.num, 2);
	B(l, 0, 10, 15);
	B(l, 1, 30, 31);
	/* an aggregate that spans several blocks swallows them all */
	ofo(&l, 50, 51);
	ofo(&l, 14, 50);
	CHECK_EQ_U64(l.num, 1);
	B(l, 0, 10, 51);
}

/* At most 4 blocks are kept (the oldest is forgotten); an ACK carries at most 3. */
static void test_at_most_four_kept_three_sent(void)
{
	struct sim_sack_list l = { 0 };
	struct sim_wire_sack w;

	for (__u32 i = 1; i <= 5; i++)
		ofo(&l, 10 * i, 10 * i + 1);
	CHECK_EQ_U64(l.num, SIM_NUM_SACKS);
	B(l, 0, 50, 51);
	B(l, 3, 20, 21); /* 10-11 is gone */
	sim_sack_wire(&l, &w);
	CHECK_EQ_U64(w.n, 3);
	W(w, 0, 50, 51);
	W(w, 1, 40, 41);
	W(w, 2, 30, 31);
	/* the list itself is kept for the next ACK */
	CHECK_EQ_U64(l.num, SIM_NUM_SACKS);
}

/* A D-SACK takes the first block of the next ACK only, the blocks follow, 3 in all. */
static void test_dsack_first_once(void)
{
	struct sim_sack_list l = { 0 };
	struct sim_wire_sack w;

	ofo(&l, 10, 11);
	ofo(&l, 20, 21);
	ofo(&l, 30, 31);
	sim_dsack_set(&l, 5, 6);
	sim_sack_wire(&l, &w);
	CHECK_EQ_U64(w.n, 3);
	W(w, 0, 5, 6);
	W(w, 1, 30, 31);
	W(w, 2, 20, 21);
	sim_sack_wire(&l, &w);
	CHECK_EQ_U64(w.n, 3);
	W(w, 0, 30, 31);
	W(w, 2, 10, 11);
	/* extend grows a pending D-SACK by an adjacent range, sets one when none is pending */
	sim_dsack_extend(&l, 7, 8);
	sim_dsack_extend(&l, 8, 9);
	sim_dsack_extend(&l, 12, 13); /* not adjacent: ignored */
	sim_sack_wire(&l, &w);
	W(w, 0, 7, 9);
	/* a D-SACK alone */
	struct sim_sack_list e = { 0 };

	sim_dsack_set(&e, 3, 4);
	sim_sack_wire(&e, &w);
	CHECK_EQ_U64(w.n, 1);
	W(w, 0, 3, 4);
	sim_sack_wire(&e, &w);
	CHECK_EQ_U64(w.n, 0);
}

/* Blocks rcv_nxt reached go; an empty out-of-order queue clears the list. */
static void test_remove(void)
{
	struct sim_sack_list l = { 0 };

	ofo(&l, 10, 12);
	ofo(&l, 20, 21);
	ofo(&l, 30, 31);
	sim_sack_remove(&l, 9, false);
	CHECK_EQ_U64(l.num, 3);
	sim_sack_remove(&l, 12, false); /* the hole below 10 filled, 10-12 absorbed */
	CHECK_EQ_U64(l.num, 2);
	B(l, 0, 30, 31);
	B(l, 1, 20, 21);
	sim_sack_remove(&l, 21, false);
	CHECK_EQ_U64(l.num, 1);
	B(l, 0, 30, 31);
	sim_sack_remove(&l, 31, true);
	CHECK_EQ_U64(l.num, 0);
}

static int kicks;

static void kick(void *ctx)
{
	(void)ctx;
	kicks++;
}

/* tcp_sack_compress_send_ack is called when a block past the first two changes, or a new
 * block arrives with two or more present. */
static void test_compress_kick(void)
{
	struct sim_sack_list l = { 0 };

	kicks = 0;
	sim_sack_new_ofo(&l, 10, 11, kick, NULL);
	sim_sack_new_ofo(&l, 20, 21, kick, NULL);
	sim_sack_new_ofo(&l, 21, 22, kick, NULL); /* extends block 0 */
	CHECK_EQ_U64(kicks, 0);
	sim_sack_new_ofo(&l, 30, 31, kick, NULL); /* new, two present */
	CHECK_EQ_U64(kicks, 1);
	sim_sack_new_ofo(&l, 11, 12, kick, NULL); /* extends block 2 */
	CHECK_EQ_U64(kicks, 2);
	sim_sack_new_ofo(&l, 12, 13, kick, NULL); /* block 0 again */
	CHECK_EQ_U64(kicks, 2);
}

/* Indexes compare modulo 2^32, as sequence numbers do. */
static void test_wrap(void)
{
	struct sim_sack_list l = { 0 };
	struct sim_wire_sack w;

	ofo(&l, 0xfffffffeU, 0xffffffffU);
	ofo(&l, 0xffffffffU, 1);
	CHECK_EQ_U64(l.num, 1);
	B(l, 0, 0xfffffffeU, 1);
	ofo(&l, 5, 6);
	sim_sack_remove(&l, 2, false);
	CHECK_EQ_U64(l.num, 1);
	B(l, 0, 5, 6);
	sim_sack_wire(&l, &w);
	CHECK_EQ_U64(w.n, 1);
}

/* tcp_check_dsack: the first block is a D-SACK below the ACK, or inside the second one. */
static void test_is_dsack(void)
{
	struct sim_sack_block below[] = { { 5, 6 }, { 20, 21 } };
	struct sim_sack_block inside[] = { { 21, 22 }, { 20, 25 } };
	struct sim_sack_block plain[] = { { 30, 31 }, { 20, 25 } };
	struct sim_sack_block alone[] = { { 30, 31 } };

	CHECK(sim_sack_is_dsack(below, 2, 10));
	CHECK(sim_sack_is_dsack(below, 1, 10));
	CHECK(sim_sack_is_dsack(inside, 2, 10));
	CHECK(!sim_sack_is_dsack(inside, 1, 10));
	CHECK(!sim_sack_is_dsack(plain, 2, 10));
	CHECK(!sim_sack_is_dsack(alone, 1, 10));
	CHECK(!sim_sack_is_dsack(alone, 0, 10));
}

int main(void)
{
	RUN(test_order);
	RUN(test_extend_rotates);
	RUN(test_coalesce);
	RUN(test_at_most_four_kept_three_sent);
	RUN(test_dsack_first_once);
	RUN(test_remove);
	RUN(test_compress_kick);
	RUN(test_wrap);
	RUN(test_is_dsack);
	return test_summary();
}
