/* SPDX-License-Identifier: Apache-2.0 */
/* The scalar domain (src/verifier/scalar.c).
 *
 * 1. Golden cases: register texts that Linux 6.1 itself prints. The "align" cases
 *    replay the scalar part of tools/testing/selftests/bpf/prog_tests/align.c
 *    (a 6.1 selftest that matches level-2 log substrings; it passes on 6.1), insn by
 *    insn; where align.c matches only a prefix, the rest was derived by hand from
 *    6.1's code path and the derivation is written next to it.
 * 2. Unit cases for each helper and op, at 0, S64_MIN, U64_MAX and 32-bit wrap.
 * 3. Randomized soundness with a fixed seed: for random consistent states and random
 *    members of them, the concrete result of every ALU op (both widths) is a member
 *    of the abstract result; for every conditional jump (JMP and JMP32, K, constant
 *    register on either side, and register == register), a value that takes a side
 *    is a member of that side's refined state, and is_branch_taken never lies. */
#include <limits.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "test.h"
#include "verifier/scalar.h"
#include "scalar_oracle.h"

static char sbuf[256];

/* The register text print_verifier_state gives a scalar with this id. */
static const char *str_id(const struct scalar *s, uint32_t id)
{
	kbpf_scalar_snprint(sbuf, sizeof(sbuf), s, id);
	return sbuf;
}

static const char *str(const struct scalar *s)
{
	return str_id(s, 0);
}

static struct scalar alu(struct scalar d, uint8_t op, struct scalar s, bool alu32)
{
	kbpf_scalar_alu(&d, &s, op, alu32);
	return d;
}

/* K operand: the insn's imm sign-extended, as 6.1's __mark_reg_known(off_reg, imm). */
static struct scalar k(int32_t imm)
{
	return kbpf_scalar_known((uint64_t)(int64_t)imm);
}

static struct scalar alu64k(struct scalar d, uint8_t op, int32_t imm)
{
	return alu(d, op, k(imm), false);
}

/* An 8/16/32-bit load from memory the verifier knows nothing about (packet, map
 * value): check_mem_access marks dst unknown, then coerce_reg_to_size. */
static struct scalar load(int size)
{
	struct scalar s = kbpf_scalar_unknown();
	kbpf_scalar_coerce_to_size(&s, size);
	return s;
}


/* ------------------------------------------------------------------ golden (6.1 logs) */

static void test_golden_align_unknown_shift(void)
{
	/* align.c "unknown shift": r3 = *(u8 *)(r2 + 0), then r3 <<= 1 four times. */
	struct scalar r3 = load(1);
	CHECK_STR(str(&r3), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	r3 = alu64k(r3, BPF_LSH, 1);
	CHECK_STR(str(&r3), "scalar(smin=smin32=0,smax=umax=smax32=umax32=510,var_off=(0x0; 0x1fe))");
	r3 = alu64k(r3, BPF_LSH, 1);
	CHECK_STR(str(&r3), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	r3 = alu64k(r3, BPF_LSH, 1);
	CHECK_STR(str(&r3), "scalar(smin=smin32=0,smax=umax=smax32=umax32=2040,var_off=(0x0; 0x7f8))");
	r3 = alu64k(r3, BPF_LSH, 1);
	CHECK_STR(str(&r3), "scalar(smin=smin32=0,smax=umax=smax32=umax32=4080,var_off=(0x0; 0xff0))");

	/* r4 = u8; r4 <<= 5; then r4 >>= 1 four times. */
	struct scalar r4 = load(1);
	r4 = alu64k(r4, BPF_LSH, 5);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=8160,var_off=(0x0; 0x1fe0))");
	r4 = alu64k(r4, BPF_RSH, 1);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=4080,var_off=(0x0; 0xff0))");
	r4 = alu64k(r4, BPF_RSH, 1);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=2040,var_off=(0x0; 0x7f8))");
	r4 = alu64k(r4, BPF_RSH, 1);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	r4 = alu64k(r4, BPF_RSH, 1);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=510,var_off=(0x0; 0x1fe))");
}

static void test_golden_align_unknown_mul(void)
{
	/* align.c "unknown mul": r4 = r3 shares id 1 ("scalar(id=1,...)"); each
	 * r4 *= K clears the id (the caller's job) and scales var_off. */
	struct scalar r3 = load(1);
	CHECK_STR(str_id(&r3, 1), "scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	struct scalar r4 = alu64k(r3, BPF_MUL, 1);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	r4 = alu64k(r3, BPF_MUL, 2);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=510,var_off=(0x0; 0x1fe))");
	r4 = alu64k(r3, BPF_MUL, 4);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	r4 = alu64k(r3, BPF_MUL, 8);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=2040,var_off=(0x0; 0x7f8))");
	r4 = alu64k(r4, BPF_MUL, 2);
	CHECK_STR(str(&r4), "scalar(smin=smin32=0,smax=umax=smax32=umax32=4080,var_off=(0x0; 0xff0))");
}

static void test_golden_align_packet_offsets(void)
{
	/* align.c "packet const offset": a 2-byte load. */
	struct scalar h = load(2);
	CHECK_STR(str(&h), "scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff))");

	/* "packet variable offset 2": r6 = u8; r6 <<= 2; r6 += 14. */
	struct scalar r6 = alu64k(load(1), BPF_LSH, 2);
	CHECK_STR(str(&r6), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	r6 = alu64k(r6, BPF_ADD, 14);
	CHECK_STR(str(&r6), "scalar(smin=umin=smin32=umin32=14,smax=umax=smax32=umax32=1034,var_off=(0x2; 0x7fc))");
	/* r6 = u32 load; r6 &= 0xff; r6 <<= 2 (insn 17). */
	struct scalar w = alu64k(alu64k(load(4), BPF_AND, 0xff), BPF_LSH, 2);
	CHECK_STR(str(&w), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	/* r5 (pkt with the (4n+2) offset of r6) += r6 (4n): the variable part of a
	 * pointer adds like a scalar (insn 19 shows
	 * "pkt(id=2,off=0,r=0,umin=14,umax=2054,var_off=(0x2; 0xffc)"). */
	struct scalar off = alu(r6, BPF_ADD, w, false);
	char b[256];
	kbpf_scalar_snprint_bounds(b, sizeof(b), &off, false);
	CHECK_CONTAINS(b, ",smin=umin=smin32=umin32=14,smax=umax=smax32=umax32=2054,var_off=(0x2; 0xffc)");
}

static void test_golden_align_dubious(void)
{
	/* align.c "dubious pointer arithmetic": r5 = pkt_end - pkt is an unknown
	 * scalar; r5 <<= 2. align.c matches the prefix; the tail follows from 6.1's
	 * update_bounds32 on var_off (0; 0xfffffffc) low half: s32_max = 0x7ffffffc,
	 * u32_max = 0xfffffffc (6.12 prints both in hex). */
	struct scalar r5 = alu64k(kbpf_scalar_unknown(), BPF_LSH, 2);
	CHECK_STR(str(&r5), "scalar(smax=0x7ffffffffffffffc,umax=0xfffffffffffffffc,smax32=0x7ffffffc,umax32=0xfffffffc,var_off=(0x0; 0xfffffffffffffffc))");
	/* r5 += 14: both signed and unsigned adds may overflow; sync finds bounds
	 * from the tnum (0x2; ...fc). */
	r5 = alu64k(r5, BPF_ADD, 14);
	CHECK_CONTAINS(str(&r5), "scalar(smin=0x8000000000000002,smax=0x7ffffffffffffffe,umin=umin32=2,umax=0xfffffffffffffffe,smin32=0x80000002,smax32=0x7ffffffe,umax32=0xfffffffe,var_off=(0x2; 0xfffffffffffffffc))");
	/* if r5 s>= 0 goto +1: the taken side (insn 9). */
	struct scalar t = r5, f = r5;
	CHECK(kbpf_scalar_branch_taken(&r5, 0, BPF_JSGE, false) == -1);
	kbpf_scalar_set_min_max(&t, &f, 0, 0, BPF_JSGE, false);
	CHECK_CONTAINS(str(&t), "scalar(smin=umin=umin32=2,smax=umax=0x7ffffffffffffffe,smin32=0x80000002,smax32=0x7ffffffe,umax32=0xfffffffe,var_off=(0x2; 0x7ffffffffffffffc))");
}

static void test_golden_align_variable_subtraction(void)
{
	/* align.c "variable subtraction": r6 = u8; r7 = r6; r6 <<= 2; r6 += 14;
	 * r7 <<= 2; r6 -= r7; if r6 s>= 0 goto +1. */
	struct scalar r6 = load(1), r7 = r6;
	r6 = alu64k(alu64k(r6, BPF_LSH, 2), BPF_ADD, 14);
	CHECK_STR(str(&r6), "scalar(smin=umin=smin32=umin32=14,smax=umax=smax32=umax32=1034,var_off=(0x2; 0x7fc))");
	r7 = alu64k(r7, BPF_LSH, 2);
	CHECK_STR(str(&r7), "scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))");
	r6 = alu(r6, BPF_SUB, r7, false);
	CHECK_CONTAINS(str(&r6), "scalar(smin=smin32=-1006,smax=smax32=1034,umin=umin32=2,umax=0xfffffffffffffffe,umax32=0xfffffffe,var_off=(0x2; 0xfffffffffffffffc))");
	struct scalar t = r6, f = r6;
	kbpf_scalar_set_min_max(&t, &f, 0, 0, BPF_JSGE, false);
	/* align.c's match ends with "))": the whole text. */
	CHECK_STR(str(&t), "scalar(smin=umin=smin32=umin32=2,smax=umax=smax32=umax32=1034,var_off=(0x2; 0x7fc))");
}

static void test_golden_align_pointer_variable_subtraction(void)
{
	/* align.c "pointer variable subtraction": r6 = u8; r7 = r6; r6 &= 0xf;
	 * r6 <<= 2; r6 += 14. */
	struct scalar r6 = load(1), r7 = r6;
	r6 = alu64k(alu64k(r6, BPF_AND, 0xf), BPF_LSH, 2);
	CHECK_STR(str(&r6), "scalar(smin=smin32=0,smax=umax=smax32=umax32=60,var_off=(0x0; 0x3c))");
	r6 = alu64k(r6, BPF_ADD, 14);
	CHECK_STR(str(&r6), "scalar(smin=umin=smin32=umin32=14,smax=umax=smax32=umax32=74,var_off=(0x2; 0x7c))");
	/* r5 = pkt - r6: the pointer's variable offset goes 0 - [14,74] with 6.1's
	 * pointer SUB formulas, which are the scalar ones for the 64-bit part (insn 13:
	 * "umin=18446744073709551542,umax=18446744073709551602,
	 * var_off=(0xffffffffffffff82; 0x7c)"). */
	struct scalar r5 = alu(kbpf_scalar_known(0), BPF_SUB, r6, false);
	char b[256];
	kbpf_scalar_snprint_bounds(b, sizeof(b), &r5, false);
	CHECK_CONTAINS(b, ",smin=smin32=-74,smax=smax32=-14,umin=0xffffffffffffffb6,umax=0xfffffffffffffff2,umin32=0xffffffb6,umax32=0xfffffff2,var_off=(0xffffffffffffff82; 0x7c)");
	/* r7 <<= 2; r7 += 76 (insn 14). */
	r7 = alu64k(alu64k(r7, BPF_LSH, 2), BPF_ADD, 76);
	CHECK_STR(str(&r7), "scalar(smin=umin=smin32=umin32=76,smax=umax=smax32=umax32=1096,var_off=(0x0; 0x7fc))");
	/* r5 += r7 (insn 16: "umin=2,umax=1082,var_off=(0x2; 0x7fc)"). */
	r5 = alu(r5, BPF_ADD, r7, false);
	kbpf_scalar_snprint_bounds(b, sizeof(b), &r5, false);
	CHECK_CONTAINS(b, ",smin=umin=smin32=umin32=2,smax=umax=smax32=umax32=1082,var_off=(0x2; 0x7fc)");
}

/* ------------------------------------------------------------------ golden (by hand) */

static void test_golden_by_hand(void)
{
	/* w7 = w1 with r1 unknown (mov32): zext gives var_off (0; 0xffffffff),
	 * assign_32_into_64 gives smin 0 / smax U32_MAX (s32 bounds cross zero),
	 * umax U32_MAX. The notes' example R7_w. */
	struct scalar w7 = alu(kbpf_scalar_unknown(), BPF_MOV, kbpf_scalar_unknown(), true);
	CHECK_STR(str(&w7), "scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff))");

	/* if r1 s> 5 with r1 unknown. Taken: smin = 6; combine_64_into_32 finds
	 * nothing that fits 32 bits; sync: deduce64 (smin >= 0) gives umin 6 and
	 * umax = smax = S64_MAX, bound_offset range(6, S64_MAX) = (0; 0x7f..f).
	 * Fall-through: only smax = 5 (smin S64_MIN, nothing else implied). */
	struct scalar t = kbpf_scalar_unknown(), f = t;
	kbpf_scalar_set_min_max(&t, &f, 5, 5, BPF_JSGT, false);
	CHECK_STR(str(&t), "scalar(smin=umin=6,umax=0x7fffffffffffffff,var_off=(0x0; 0x7fffffffffffffff))");
	CHECK_STR(str(&f), "scalar(smax=5)");

	/* if w1 < 10 (JMP32) with r1 unknown. Taken: u32_max = 9; deduce32 (u32 range
	 * not crossing the s32 sign) gives s32 [0, 9]; 6.12's mixed deduction splices
	 * 9 into the low halves of umax and smax: 0xffffffff00000009 and
	 * 0x7fffffff00000009; bound_offset gives var_off (0; 0xffffffff0000000f). */
	t = kbpf_scalar_unknown();
	f = t;
	kbpf_scalar_set_min_max(&t, &f, 10, 10, BPF_JLT, true);
	CHECK_STR(str(&t), "scalar(smax=0x7fffffff00000009,umax=0xffffffff00000009,smin32=0,smax32=umax32=9,var_off=(0x0; 0xffffffff0000000f))");
	/* Fall-through: u32_min = 10; deduce32 learns nothing (u32 range crosses
	 * the s32 sign); the splice gives umin 10 and smin S64_MIN + 10. */
	CHECK_STR(str(&f), "scalar(smin=0x800000000000000a,umin=umin32=10)");

	/* Constants print as their number, with or without id (6.12's verbose_snum:
	 * decimal in [-32768, 32767], else the 64-bit pattern in hex). */
	struct scalar c = kbpf_scalar_known((uint64_t)-1);
	CHECK_STR(str(&c), "-1");
	c = kbpf_scalar_known(32767);
	CHECK_STR(str(&c), "32767");
	c = kbpf_scalar_known(32768);
	CHECK_STR(str(&c), "0x8000");
	c = kbpf_scalar_known((uint64_t)-32768);
	CHECK_STR(str(&c), "-32768");
	c = kbpf_scalar_known((uint64_t)-32769);
	CHECK_STR(str(&c), "0xffffffffffff7fff");
	c = kbpf_scalar_known(0xffffffffULL);
	CHECK_STR(str(&c), "0xffffffff");
	c = kbpf_scalar_known(1ULL << 63);
	CHECK_STR(str_id(&c, 3), "0x8000000000000000");
	c = kbpf_scalar_known(0);
	CHECK_STR(str(&c), "0");
	/* Unknown: empty list, id first. */
	struct scalar u = kbpf_scalar_unknown();
	CHECK_STR(str(&u), "scalar()");
	CHECK_STR(str_id(&u, 7), "scalar(id=7)");

	/* Pointer value lists: a constant var_off prints imm= (verbose_snum) only when
	 * non-zero. */
	char b[64];
	kbpf_scalar_snprint_bounds(b, sizeof(b), &c, false);
	CHECK_STR(b, "");
	struct scalar big = kbpf_scalar_known(0x1234abcd);
	kbpf_scalar_snprint_bounds(b, sizeof(b), &big, true);
	CHECK_STR(b, "imm=0x1234abcd");
	/* snprintf contract. */
	struct scalar r = alu64k(kbpf_scalar_unknown(), BPF_LSH, 2);
	int n = kbpf_scalar_snprint(b, 10, &r, 0);
	CHECK(n == (int)strlen("scalar(smax=0x7ffffffffffffffc,umax=0xfffffffffffffffc,smax32=0x7ffffffc,umax32=0xfffffffc,var_off=(0x0; 0xfffffffffffffffc))"));
	CHECK_STR(b, "scalar(sm");

	/* 6.12's print_scalar_ranges: every bound not at its default, a min (max)
	 * merged with the later mins (maxes) of equal value: var_off (0x80000000;
	 * 0x7fffffff) gives u64 and u32 [2^31, U32_MAX], s64 the same, s32 [S32_MIN,
	 * -1] (smin32 at its default). */
	struct scalar z = kbpf_scalar_unknown();
	z.var_off = TNUM(0x80000000, 0x7fffffff);
	kbpf_scalar_bounds_sync(&z);
	CHECK_STR(str(&z), "scalar(smin=umin=umin32=0x80000000,smax=umax=0xffffffff,smax32=-1,var_off=(0x80000000; 0x7fffffff))");
	/* u32 [0x80000000, 0xfffffff0] while bit 32 is known set: they differ from the
	 * u64 ones; unsigned values above 65535 print in hex. */
	z = kbpf_scalar_unknown();
	z.var_off = TNUM(0x180000000ULL, 0xfffffffe7ffffff0ULL);
	kbpf_scalar_bounds_sync(&z);
	CHECK_CONTAINS(str(&z), "scalar(smin=0x8000000180000000,smax=0x7ffffffffffffff0,umin=0x180000000,umax=0xfffffffffffffff0,smax32=-16,umin32=0x80000000,umax32=0xfffffff0,var_off=(0x180000000; 0xfffffffe7ffffff0))");

	/* Merging never mixes a negative signed value with a positive one: s [-5, 5]
	 * prints smin=smin32=-5, and umin32 = 0 is the default. */
	z = kbpf_scalar_unknown();
	z.smin_value = -5, z.smax_value = 5, z.s32_min_value = -5, z.s32_max_value = 5;
	kbpf_scalar_bounds_sync(&z);
	CHECK_STR(str(&z), "scalar(smin=smin32=-5,smax=smax32=5)");
	/* A hex s32 bound compares zero-extended: smin32 = S32_MIN + 1 (0x80000001)
	 * merges with umin32 = 0x80000001 but smin64 = S32_MIN + 1 does not (it prints
	 * as 0xffffffff80000001). */
	z = kbpf_scalar_unknown();
	z.s32_min_value = (int32_t)0x80000001, z.s32_max_value = -2;
	z.u32_min_value = 0x80000001, z.u32_max_value = 0xfffffffe;
	CHECK_STR(str(&z), "scalar(smin32=umin32=0x80000001,smax32=-2,umax32=0xfffffffe)");
	z.smin_value = (int32_t)0x80000001;
	CHECK_STR(str(&z), "scalar(smin=0xffffffff80000001,smin32=umin32=0x80000001,smax32=-2,umax32=0xfffffffe)");
}

/* ------------------------------------------------------------------ helpers */

static void test_construction(void)
{
	struct scalar s = kbpf_scalar_known(0xfffffffe00000005ULL);
	CHECK(kbpf_tnum_equals_const(s.var_off, 0xfffffffe00000005ULL));
	CHECK(s.smin_value == (int64_t)0xfffffffe00000005ULL && s.smax_value == s.smin_value);
	CHECK(s.umin_value == 0xfffffffe00000005ULL && s.umax_value == s.umin_value);
	CHECK(s.s32_min_value == 5 && s.s32_max_value == 5);
	CHECK(s.u32_min_value == 5 && s.u32_max_value == 5);

	s = kbpf_scalar_known(0x80000000);
	CHECK(s.s32_min_value == INT32_MIN && s.u32_max_value == 0x80000000);

	s = kbpf_scalar_unknown();
	CHECK(kbpf_tnum_is_unknown(s.var_off));
	CHECK(s.smin_value == INT64_MIN && s.smax_value == INT64_MAX);
	CHECK(s.umin_value == 0 && s.umax_value == UINT64_MAX);
	CHECK(s.s32_min_value == INT32_MIN && s.s32_max_value == INT32_MAX);
	CHECK(s.u32_min_value == 0 && s.u32_max_value == UINT32_MAX);

	/* mark_known32 keeps the upper half of var_off and the 64-bit bounds. */
	s = kbpf_scalar_unknown();
	kbpf_scalar_mark_known32(&s, 0xdeadbeef);
	CHECK(s.var_off.value == 0xdeadbeef && s.var_off.mask == 0xffffffff00000000ULL);
	CHECK(s.u32_min_value == 0xdeadbeef && s.s32_max_value == (int32_t)0xdeadbeef);
	CHECK(s.umax_value == UINT64_MAX);
}

static void test_update_deduce_offset(void)
{
	/* update_bounds from var_off alone. */
	struct scalar s = kbpf_scalar_unknown();
	s.var_off = TNUM(0x10, 0x0f);
	kbpf_scalar_update_bounds(&s);
	CHECK(s.umin_value == 0x10 && s.umax_value == 0x1f);
	CHECK(s.smin_value == 0x10 && s.smax_value == 0x1f);
	CHECK(s.u32_min_value == 0x10 && s.u32_max_value == 0x1f);
	CHECK(s.s32_min_value == 0x10 && s.s32_max_value == 0x1f);
	/* An unknown sign bit: smin has it set, smax clear. */
	s = kbpf_scalar_unknown();
	s.var_off = TNUM(1, 0x8000000000000010ULL);
	kbpf_scalar_update_bounds64(&s);
	CHECK(s.smin_value == (int64_t)0x8000000000000001ULL && s.smax_value == 0x11);
	CHECK(s.umin_value == 1 && s.umax_value == 0x8000000000000011ULL);

	/* deduce64, signed range not crossing zero (negative): unsigned follows. */
	s = kbpf_scalar_unknown();
	s.smin_value = -3;
	s.smax_value = -1;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.umin_value == (uint64_t)-3 && s.umax_value == UINT64_MAX);
	/* Signed crosses zero, unsigned max is "positive": sign known >= 0. */
	s = kbpf_scalar_unknown();
	s.umax_value = 100;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smin_value == 0 && s.smax_value == 100);
	/* Signed crosses zero, unsigned min is "negative": sign known < 0. */
	s = kbpf_scalar_unknown();
	s.umin_value = (uint64_t)-50;
	s.smin_value = -60;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smin_value == -50 && s.umin_value == (uint64_t)-50 && s.smax_value == -1);
	/* The same three for 32 bits. */
	s = kbpf_scalar_unknown();
	s.s32_min_value = -3;
	s.s32_max_value = -1;
	kbpf_scalar_deduce_bounds32(&s);
	CHECK(s.u32_min_value == (uint32_t)-3 && s.u32_max_value == UINT32_MAX);
	s = kbpf_scalar_unknown();
	s.u32_max_value = 100;
	kbpf_scalar_deduce_bounds32(&s);
	CHECK(s.s32_min_value == 0 && s.s32_max_value == 100);
	s = kbpf_scalar_unknown();
	s.u32_min_value = (uint32_t)-50;
	kbpf_scalar_deduce_bounds32(&s);
	CHECK(s.s32_min_value == -50 && s.s32_max_value == -1);
	/* Neither: nothing learnt. */
	s = kbpf_scalar_unknown();
	s.umin_value = 5;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smin_value == INT64_MIN && s.smax_value == INT64_MAX);

	/* bound_offset: unsigned ranges become bits, per width. */
	s = kbpf_scalar_unknown();
	s.umax_value = 255;
	s.u32_min_value = 16;
	s.u32_max_value = 31;
	kbpf_scalar_bound_offset(&s);
	CHECK(s.var_off.value == 0x10 && s.var_off.mask == 0x0f);

	/* A sync reaches a fixed point from any of the five descriptions. */
	s = kbpf_scalar_unknown();
	s.umin_value = 3;
	s.umax_value = 3;
	kbpf_scalar_bounds_sync(&s);
	CHECK_STR(str(&s), "3");
}

static void test_32_64_moves(void)
{
	/* assign_32_into_64: non-negative s32 bounds carry over. */
	struct scalar s = kbpf_scalar_unknown();
	s.s32_min_value = 2;
	s.s32_max_value = 9;
	s.u32_min_value = 2;
	s.u32_max_value = 9;
	kbpf_scalar_assign_32_into_64(&s);
	CHECK(s.smin_value == 2 && s.smax_value == 9 && s.umin_value == 2 && s.umax_value == 9);
	/* A possibly negative low half zero-extends to [0, U32_MAX] signed. */
	s.s32_min_value = -1;
	s.u32_min_value = 0;
	s.u32_max_value = UINT32_MAX;
	kbpf_scalar_assign_32_into_64(&s);
	CHECK(s.smin_value == 0 && s.smax_value == UINT32_MAX);

	/* zext: the upper half of var_off becomes known zero. */
	s = kbpf_scalar_known(0xffffffff80000000ULL);
	kbpf_scalar_zext_32_to_64(&s);
	kbpf_scalar_bounds_sync(&s);
	CHECK_STR(str(&s), "0x80000000");

	/* 6.12's mixed deduction: the 32-bit bounds spliced into the low halves of
	 * the 64-bit ones. [0x1'00000000, 0x3'80000000] with s32 in [1, S32_MAX] gives
	 * [0x1'00000001, 0x3'7fffffff] (the example of __reg_deduce_mixed_bounds). */
	s = kbpf_scalar_unknown();
	s.umin_value = 0x100000000ULL;
	s.umax_value = 0x380000000ULL;
	s.s32_min_value = 1;
	kbpf_scalar_bounds_sync(&s);
	CHECK(s.umin_value == 0x100000001ULL && s.umax_value == 0x37fffffffULL);
	/* after a sign-extending load the upper half is all ones or all zeros; a
	 * non-negative low half rules out the ones */
	s = kbpf_scalar_unknown();
	s.smin_value = INT32_MIN;
	s.smax_value = INT32_MAX;
	s.s32_min_value = 0;
	s.s32_max_value = 100;
	kbpf_scalar_bounds_sync(&s);
	CHECK_STR(str(&s), "scalar(smin=smin32=0,smax=umax=smax32=umax32=100,var_off=(0x0; 0x7f))");

	/* 64 -> 32: equal upper halves make the low halves a range, whatever the upper
	 * half is */
	s = kbpf_scalar_unknown();
	s.umin_value = 0x10000000aULL;
	s.umax_value = 0x10000000fULL;
	kbpf_scalar_deduce_bounds32(&s);
	CHECK(s.u32_min_value == 10 && s.u32_max_value == 15 && s.s32_min_value == 10 && s.s32_max_value == 15);
	/* upper halves one apart, low halves crossing 0 as s32: an s32 range */
	s = kbpf_scalar_unknown();
	s.smin_value = (int64_t)0xfffffff0fffffff0ULL;
	s.smax_value = (int64_t)0xfffffff100000010ULL;
	kbpf_scalar_deduce_bounds32(&s);
	CHECK(s.s32_min_value == -16 && s.s32_max_value == 16);
	CHECK(s.u32_min_value == 0 && s.u32_max_value == UINT32_MAX);
	/* u64 range meeting only the non-negative piece of a wrapping s64 range */
	s = kbpf_scalar_unknown();
	s.smin_value = -128;
	s.smax_value = 127;
	s.umax_value = 0xffffffffffffff00ULL;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smin_value == 0 && s.umax_value == 127);
	/* ... and only the negative piece */
	s = kbpf_scalar_unknown();
	s.smin_value = -655;
	s.smax_value = 0x7ffffeee;
	s.umin_value = 0xfffffffffffffcf1ULL;
	s.umax_value = 0xffffffffffffff6eULL;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smax_value == -146 && s.umin_value == (uint64_t)-655);
	/* a range meeting both pieces: nothing learnt */
	s = kbpf_scalar_unknown();
	s.smin_value = -128;
	s.smax_value = 127;
	s.umax_value = 0xffffffffffffff80ULL;
	kbpf_scalar_deduce_bounds64(&s);
	CHECK(s.smin_value == -128 && s.smax_value == 127 && s.umin_value == 0);
}

static void test_coerce(void)
{
	/* Bounds agreeing above the kept bytes are masked. */
	struct scalar s = kbpf_scalar_unknown();
	s.umin_value = 0x100000005ULL;
	s.umax_value = 0x100000009ULL;
	kbpf_scalar_bounds_sync(&s);
	kbpf_scalar_coerce_to_size(&s, 4);
	CHECK(s.umin_value == 5 && s.umax_value == 9 && s.smin_value == 5 && s.smax_value == 9);
	/* Otherwise [0, 2^(8n) - 1]. */
	s = kbpf_scalar_unknown();
	s.umin_value = 0xff;
	s.umax_value = 0x101;
	kbpf_scalar_coerce_to_size(&s, 1);
	CHECK(s.umin_value == 0 && s.umax_value == 0xff);
	CHECK(s.u32_max_value == 0xff && s.s32_min_value == 0);
	/* Size 4 keeps the 32-bit bounds and syncs them (6.12; 6.1 left them as
	 * they were). */
	s = kbpf_scalar_known(0x1234567800000007ULL);
	s.s32_min_value = -1;
	kbpf_scalar_coerce_to_size(&s, 4);
	CHECK(s.s32_min_value == 7 && s.umax_value == 7);
	/* Size 8: nothing. */
	s = kbpf_scalar_unknown();
	kbpf_scalar_coerce_to_size(&s, 8);
	CHECK_STR(str(&s), "scalar()");
}

/* cpu v4's sign extension (6.12's coerce_reg_to_size_sx / coerce_subreg_to_size_sx). */
static void test_coerce_sx(void)
{
	/* A constant is sign-extended exactly. */
	struct scalar s = kbpf_scalar_known(0x1ff);
	kbpf_scalar_coerce_to_size_sx(&s, 1);
	CHECK(kbpf_tnum_is_const(s.var_off) && s.smin_value == -1 && s.umax_value == UINT64_MAX);
	/* Ends agreeing above the low byte, both negative once extended: a range. */
	s = kbpf_scalar_unknown();
	s.smin_value = 0x180;
	s.smax_value = 0x1f0;
	kbpf_scalar_coerce_to_size_sx(&s, 1);
	CHECK(s.smin_value == -128 && s.smax_value == -16);
	CHECK(s.umin_value == (uint64_t)-128 && s.umax_value == (uint64_t)-16);
	CHECK(s.s32_min_value == -128 && s.s32_max_value == -16);
	/* Ends that extend to different signs: the source type's range. */
	s = kbpf_scalar_unknown();
	s.smin_value = 0;
	s.smax_value = 0xff;
	kbpf_scalar_coerce_to_size_sx(&s, 1);
	CHECK(s.smin_value == -128 && s.smax_value == 127 && s.umin_value == 0 && s.umax_value == UINT64_MAX);
	CHECK(kbpf_tnum_is_unknown(s.var_off));
	/* Ends disagreeing above the low bytes: the source type's range. */
	s = kbpf_scalar_unknown();
	s.smin_value = 5;
	s.smax_value = 0x10005;
	kbpf_scalar_coerce_to_size_sx(&s, 2);
	CHECK(s.smin_value == INT16_MIN && s.smax_value == INT16_MAX);
	/* 32-bit: only the low half changes; the caller zero-extends. */
	s = kbpf_scalar_known(0x80);
	kbpf_scalar_coerce_subreg_to_size_sx(&s, 1);
	kbpf_scalar_zext_32_to_64(&s);
	kbpf_scalar_bounds_sync(&s);
	CHECK(kbpf_tnum_is_const(s.var_off) && s.umin_value == 0xffffff80ULL);
	s = kbpf_scalar_unknown();
	s.s32_min_value = 0;
	s.s32_max_value = 0x7f;
	kbpf_scalar_coerce_subreg_to_size_sx(&s, 1);
	CHECK(s.s32_min_value == 0 && s.s32_max_value == 0x7f && s.u32_max_value == 0x7f);
	s = kbpf_scalar_unknown();
	kbpf_scalar_coerce_subreg_to_size_sx(&s, 2);
	CHECK(s.s32_min_value == INT16_MIN && s.s32_max_value == INT16_MAX && s.u32_max_value == UINT32_MAX);
}

/* ------------------------------------------------------------------ ALU unit cases */

static void test_alu_const_folding(void)
{
	/* Two constants fold exactly for every tracked op, at the edges. */
	CHECK_STR(str_id(&(struct scalar){ 0 }, 0), "0");
	struct scalar r;
	r = alu(kbpf_scalar_known(INT64_MAX), BPF_ADD, k(1), false);
	CHECK_STR(str(&r), "0x8000000000000000");
	r = alu(kbpf_scalar_known(0), BPF_SUB, k(1), false);
	CHECK_STR(str(&r), "-1");
	r = alu(kbpf_scalar_known(UINT64_MAX), BPF_ADD, k(1), false);
	CHECK_STR(str(&r), "0");
	r = alu(kbpf_scalar_known(0xffffffff), BPF_ADD, k(1), true);
	CHECK_STR(str(&r), "0");
	r = alu(kbpf_scalar_known(0x7fffffff), BPF_ADD, k(1), true);
	CHECK_STR(str(&r), "0x80000000");
	r = alu(kbpf_scalar_known(6), BPF_MUL, k(7), false);
	CHECK_STR(str(&r), "42");
	r = alu(kbpf_scalar_known(0xffffffff), BPF_AND, k(0x0f), false);
	CHECK_STR(str(&r), "15");
	r = alu(kbpf_scalar_known(0xf0), BPF_OR, k(0x0f), true);
	CHECK_STR(str(&r), "255");
	r = alu(kbpf_scalar_known(0xff), BPF_XOR, k(-1), false);
	CHECK_STR(str(&r), "-256");
	r = alu(kbpf_scalar_known(0xff), BPF_XOR, k(-1), true);
	CHECK_STR(str(&r), "0xffffff00");
	r = alu(kbpf_scalar_known(1), BPF_LSH, k(63), false);
	CHECK_STR(str(&r), "0x8000000000000000");
	r = alu(kbpf_scalar_known(1), BPF_LSH, k(31), true);
	CHECK_STR(str(&r), "0x80000000");
	r = alu(kbpf_scalar_known(1ULL << 63), BPF_RSH, k(63), false);
	CHECK_STR(str(&r), "1");
	r = alu(kbpf_scalar_known(1ULL << 63), BPF_ARSH, k(63), false);
	CHECK_STR(str(&r), "-1");
	r = alu(kbpf_scalar_known(0x80000000), BPF_ARSH, k(31), true);
	CHECK_STR(str(&r), "0xffffffff");
	r = alu(kbpf_scalar_known(0xffffffff00000010ULL), BPF_RSH, k(4), true);
	CHECK_STR(str(&r), "1");
	/* MOV: mov64 K sign-extends, mov32 K zero-extends (6.1: known((u32)imm)). */
	r = alu(kbpf_scalar_unknown(), BPF_MOV, k(-1), false);
	CHECK_STR(str(&r), "-1");
	r = alu(kbpf_scalar_unknown(), BPF_MOV, k(-1), true);
	CHECK_STR(str(&r), "0xffffffff");
}

static void test_alu_unknown_results(void)
{
	struct scalar byte = load(1), r;
	/* DIV and MOD are not tracked: a 64-bit unknown, even for ALU32 (6.12 returns
	 * before the zero-extension; 6.1 zero-extended). */
	r = alu(byte, BPF_DIV, k(3), false);
	CHECK_STR(str(&r), "scalar()");
	r = alu(byte, BPF_MOD, k(3), true);
	CHECK_STR(str(&r), "scalar()");
	/* Even two constants. */
	r = alu(kbpf_scalar_known(6), BPF_DIV, k(3), false);
	CHECK_STR(str(&r), "scalar()");
	/* NEG and END: 64-bit unknown even as ALU32 (check_reg_arg DST_OP). */
	r = alu(byte, BPF_NEG, k(0), true);
	CHECK_STR(str(&r), "scalar()");
	r = alu(kbpf_scalar_known(5), BPF_END, k(16), true);
	CHECK_STR(str(&r), "scalar()");
	/* A non-constant shift count: 64-bit unknown, no zext even for ALU32 (6.12
	 * returns before zext_32_to_64). */
	r = alu(byte, BPF_LSH, byte, false);
	CHECK_STR(str(&r), "scalar()");
	r = alu(byte, BPF_RSH, byte, true);
	CHECK_STR(str(&r), "scalar()");
	/* 6.12 tracks MUL, OR, XOR with a variable src (6.1 gave unknown) */
	r = alu(byte, BPF_OR, byte, true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	r = alu(byte, BPF_MUL, byte, true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=0xfe01,var_off=(0x0; 0xffff))");
	/* ...but ADD, SUB, AND with a variable src are tracked. */
	r = alu(byte, BPF_ADD, byte, false);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=510,var_off=(0x0; 0x1ff))");
	r = alu(byte, BPF_AND, load(2), true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	/* For ALU32 the src counts as known when its low half is (6.1:
	 * kbpf_tnum_subreg_is_const). */
	struct scalar hi_unknown = kbpf_scalar_unknown();
	kbpf_scalar_mark_known32(&hi_unknown, 3);
	kbpf_scalar_bounds_sync(&hi_unknown);
	/* ...but the shift check reads the src's 64-bit umax (>= 32 here): a 64-bit
	 * unknown. */
	r = alu(byte, BPF_LSH, hi_unknown, true);
	CHECK_STR(str(&r), "scalar()");
	r = alu(byte, BPF_OR, hi_unknown, true);
	CHECK_STR(str(&r), "scalar(smin=umin=smin32=umin32=3,smax=umax=smax32=umax32=255,var_off=(0x3; 0xfc))");

	/* A shift by the width or more makes dst a 64-bit unknown. Linux rejects such
	 * K shifts before; a register src gets here. */
	r = alu(byte, BPF_LSH, kbpf_scalar_known(64), false);
	CHECK_STR(str(&r), "scalar()");
	r = alu(byte, BPF_RSH, kbpf_scalar_known(32), true);
	CHECK_STR(str(&r), "scalar()");
	r = alu(byte, BPF_ARSH, kbpf_scalar_known((uint64_t)-1), false);
	CHECK_STR(str(&r), "scalar()");

	/* 6.12 no longer taints dst with an inconsistent src; the register-invariant
	 * check names such states. */
	struct scalar bad = kbpf_scalar_known(5);
	CHECK(kbpf_scalar_invariant_violation(&bad) == NULL);
	bad.umax_value = 6;
	CHECK_STR(kbpf_scalar_invariant_violation(&bad), "const tnum out of sync with range bounds");
	bad = kbpf_scalar_unknown();
	bad.u32_min_value = 9;
	bad.u32_max_value = 8;
	CHECK_STR(kbpf_scalar_invariant_violation(&bad), "range bounds violation");
	bad = kbpf_scalar_unknown();
	bad.var_off = TNUM(7, 0xffffffff00000000ULL);
	CHECK_STR(kbpf_scalar_invariant_violation(&bad), "const subreg tnum out of sync with range bounds");
	kbpf_scalar_bounds_sync(&bad);
	CHECK(kbpf_scalar_invariant_violation(&bad) == NULL);
}

static void test_alu_bounds(void)
{
	struct scalar byte = load(1), r;

	/* ADD: overflow of either endpoint sum unbounds that kind. */
	struct scalar a = kbpf_scalar_unknown();
	a.umin_value = 10;
	a.umax_value = UINT64_MAX - 5;
	kbpf_scalar_bounds_sync(&a);
	r = alu(a, BPF_ADD, k(5), false);
	CHECK(r.umin_value == 15 && r.umax_value == UINT64_MAX);
	r = alu(a, BPF_ADD, k(6), false);
	CHECK(r.umin_value == 0 && r.umax_value == UINT64_MAX);
	/* 32-bit wrap on ALU32 ADD: [0xfffffff0, 0xffffffff] + 0x10. */
	struct scalar w = kbpf_scalar_unknown();
	w.var_off = TNUM(0xfffffff0, 0xf);
	kbpf_scalar_bounds_sync(&w);
	r = alu(w, BPF_ADD, k(0x10), true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))");

	/* SUB: dst umin < src umax unbounds unsigned. */
	r = alu(byte, BPF_SUB, k(1), false);
	CHECK_STR(str(&r), "scalar(smin=smin32=-1,smax=smax32=254)");
	r = alu(alu64k(byte, BPF_ADD, 1), BPF_SUB, k(1), false);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");

	/* MUL: a possibly negative operand unbounds. */
	struct scalar neg = kbpf_scalar_unknown();
	neg.smin_value = -1;
	neg.smax_value = 1;
	kbpf_scalar_bounds_sync(&neg);
	/* Signed bounds unbounded by mul64; the sync then reads them from var_off
	 * (0; ~1). */
	r = alu(neg, BPF_MUL, k(2), false);
	CHECK(r.smin_value == INT64_MIN && r.smax_value == INT64_MAX - 1);
	CHECK(r.var_off.value == 0 && r.var_off.mask == ~1ULL);
	/* Over U32_MAX (64) / U16_MAX (32) unbounds that width. */
	struct scalar big = load(4);
	/* load(4) leaves the s32 bounds unbounded (coerce size 4), so mul32 gives
	 * up; update_bounds32 on the low half (0; 0xfffffffe) gives s32_max
	 * 0x7ffffffe and u32_max 0xfffffffe (printed -2). */
	r = alu(big, BPF_MUL, k(2), false);
	CHECK_STR(str(&r), "scalar(smin=0,smax=umax=0x1fffffffe,smax32=0x7ffffffe,umax32=0xfffffffe,var_off=(0x0; 0x1fffffffe))");
	r = alu(big, BPF_MUL, k(0x10000), false);
	CHECK(r.umax_value == 0xffffffff0000ULL);
	r = alu(alu64k(big, BPF_ADD, 1), BPF_MUL, k(2), false);
	CHECK(r.umax_value == 0x3fffffffeULL);
	r = alu(load(2), BPF_MUL, k(0x10000), true);
	CHECK(r.u32_max_value == 0xffff0000u);

	/* AND with a negative operand loses the sign; update_bounds recovers it
	 * from var_off. */
	r = alu(kbpf_scalar_unknown(), BPF_AND, k(-8), false);
	CHECK_STR(str(&r), "scalar(smax=0x7ffffffffffffff8,umax=0xfffffffffffffff8,smax32=0x7ffffff8,umax32=0xfffffff8,var_off=(0x0; 0xfffffffffffffff8))");
	/* OR: umin from the operands' minima, umax from var_off. */
	r = alu(byte, BPF_OR, k(0x100), false);
	CHECK_STR(str(&r), "scalar(smin=umin=smin32=umin32=256,smax=umax=smax32=umax32=511,var_off=(0x100; 0xff))");
	/* XOR with a constant. */
	r = alu(byte, BPF_XOR, k(0x80), false);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");

	/* LSH64 by exactly 32 scales the s32 bounds (6.1's special case for the
	 * <<32 s>>32 sign-extension idiom). */
	struct scalar s32 = kbpf_scalar_unknown();
	s32.var_off = TNUM(0, 0xffffffff);
	s32.s32_min_value = -3;
	s32.s32_max_value = 4;
	kbpf_scalar_bounds_sync(&s32);
	r = alu(s32, BPF_LSH, k(32), false);
	CHECK(r.smin_value == -(3LL << 32) && r.smax_value == 4LL << 32);
	r = alu(r, BPF_ARSH, k(32), false);
	CHECK(r.smin_value == -3 && r.smax_value == 4);
	/* 6.12's deduce32: the upper halves of smin/smax are -1 and 0 and the low
	 * halves go from negative to non-negative: s32 [-3, 4] */
	CHECK_STR(str(&r), "scalar(smin=smin32=-3,smax=smax32=4)");
	/* LSH64 that may shift the top bit out: u64 unbounded. */
	r = alu(kbpf_scalar_known(0), BPF_ADD, big, false);
	r = alu(r, BPF_LSH, k(33), false);
	CHECK(r.umin_value == 0 && r.umax_value == 0xfffffffe00000000ULL);
	/* LSH32: only the low half, zero-extended. */
	/* 255 > 2^(31-24): the u32 bounds give up and come back from var_off; the
	 * s32 ones come from var_off's low half (sign bit maybe set: s32_min stays
	 * S32_MIN, s32_max 0x7f000000), and after zext smax = umax. */
	r = alu(byte, BPF_LSH, k(24), true);
	CHECK_STR(str(&r), "scalar(smin=0,smax=umax=umax32=0xff000000,smax32=0x7f000000,var_off=(0x0; 0xff000000))");
	r = alu(byte, BPF_LSH, k(25), true);
	CHECK_STR(str(&r), "scalar(smin=0,smax=umax=umax32=0xfe000000,smax32=0x7e000000,var_off=(0x0; 0xfe000000))");
	r = alu(byte, BPF_LSH, k(23), true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=0x7f800000,var_off=(0x0; 0x7f800000))");
	/* RSH32 of a value with garbage above bit 31 ignores it. */
	r = alu(kbpf_scalar_unknown(), BPF_RSH, k(28), true);
	CHECK_STR(str(&r), "scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))");
	/* RSH64 by a variable amount in [1, 4]. */
	struct scalar amt = alu64k(alu64k(byte, BPF_AND, 3), BPF_ADD, 1);
	r = alu(byte, BPF_RSH, amt, false);
	CHECK_STR(str(&r), "scalar()"); /* non-constant shift amount: unknown */
	/* ARSH32: sign of bit 31 spreads in the low half only. */
	r = alu(kbpf_scalar_known(0xffffffff80000000ULL), BPF_ARSH, k(4), true);
	CHECK_STR(str(&r), "0xf8000000");
	struct scalar sgn = kbpf_scalar_unknown();
	sgn.var_off = TNUM(0, 0x80000000);
	kbpf_scalar_bounds_sync(&sgn);
	r = alu(sgn, BPF_ARSH, k(4), true);
	CHECK_STR(str(&r), "scalar(smin=0,smax=umax=umax32=0xf8000000,smin32=0xf8000000,smax32=0,var_off=(0x0; 0xf8000000))");
	/* ARSH64. */
	sgn.var_off = TNUM(0, 1ULL << 63);
	kbpf_scalar_mark_unbounded(&sgn);
	kbpf_scalar_bounds_sync(&sgn);
	r = alu(sgn, BPF_ARSH, k(60), false);
	/* ARSH64 shifts smin/smax (S64_MIN..0 -> -8..0); the 32-bit bounds come back
	 * from var_off and (6.12) from the s64 range, whose upper halves are -1 and 0
	 * around a low half going from negative to 0: s32 [-8, 0]. */
	CHECK_STR(str(&r), "scalar(smin=smin32=-8,smax=smax32=0,umax=0xfffffffffffffff8,umax32=0xfffffff8,var_off=(0x0; 0xfffffffffffffff8))");

	/* Bounds that the tnum alone would not give (6.1's range arithmetic). */
	struct scalar mid = byte, dead = byte;
	kbpf_scalar_set_min_max(&mid, &dead, 100, 100, BPF_JGE, false); /* [100, 255] */
	kbpf_scalar_set_min_max(&dead, &mid, 200, 200, BPF_JGT, false); /* [100, 200] */
	CHECK(mid.umin_value == 100 && mid.umax_value == 200);
	for (int w32 = 0; w32 < 2; w32++) {
		/* OR: umin = max of the minima (the tnum says 1). */
		r = alu(mid, BPF_OR, k(1), w32);
		CHECK_STR(str(&r), "scalar(smin=umin=smin32=umin32=100,smax=umax=smax32=umax32=255,var_off=(0x1; 0xfe))");
		/* MUL: [0, 255] * 3 = [0, 765] (the tnum says up to 0x3ff). */
		r = alu(byte, BPF_MUL, k(3), w32);
		CHECK(r.umax_value == 765 && r.u32_max_value == 765);
		/* RSH: [100, 200] >> 2 = [25, 50] (the tnum says [0, 63]). */
		r = alu(mid, BPF_RSH, k(2), w32);
		CHECK(r.umin_value == 25 && r.umax_value == 50);
		/* ARSH of a non-negative range. */
		r = alu(mid, BPF_ARSH, k(3), w32);
		CHECK(r.smin_value == 12 && r.smax_value == 25);
		/* LSH: [100, 200] << 3 = [800, 1600]. */
		r = alu(mid, BPF_LSH, k(3), w32);
		CHECK(r.umin_value == 800 && r.umax_value == 1600);
		/* SUB of a range from a range: [100, 200] - [0, 255] wraps unsigned;
		 * signed [-155, 200]. */
		r = alu(mid, BPF_SUB, byte, w32);
		CHECK(w32 ? (r.s32_min_value == -155 && r.s32_max_value == 200)
			  : (r.smin_value == -155 && r.smax_value == 200));
		/* AND with a variable: umax = min of the maxima. */
		r = alu(mid, BPF_AND, alu64k(byte, BPF_RSH, 1), w32);
		CHECK(r.umax_value == 127);
		/* XOR with a constant: from var_off only. */
		r = alu(mid, BPF_XOR, k(0x100), w32);
		CHECK(r.umin_value == 256 && r.umax_value == 511);
	}

	/* Aliasing: "r1 += r1" reads the old r1. */
	struct scalar x = byte;
	kbpf_scalar_alu(&x, &x, BPF_ADD, false);
	r = alu(byte, BPF_ADD, byte, false);
	CHECK(memcmp(&x, &r, sizeof(x)) == 0);
	x = kbpf_scalar_known(3);
	kbpf_scalar_alu(&x, &x, BPF_MUL, true);
	CHECK_STR(str(&x), "9");
}

/* ------------------------------------------------------------------ branch unit cases */

static void test_branch_taken(void)
{
	struct scalar byte = load(1);
	/* Unsigned against the bounds. */
	CHECK(kbpf_scalar_branch_taken(&byte, 255, BPF_JGT, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 254, BPF_JGT, false) == -1);
	CHECK(kbpf_scalar_branch_taken(&byte, 256, BPF_JLT, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&byte, 0, BPF_JGE, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&byte, 0, BPF_JLT, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 255, BPF_JLE, false) == 1);
	/* Signed: a byte is never negative. */
	CHECK(kbpf_scalar_branch_taken(&byte, (uint64_t)-1, BPF_JSGT, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&byte, 0, BPF_JSLT, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 0, BPF_JSGE, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&byte, 255, BPF_JSLE, false) == 1);
	/* JEQ/JNE: decided by disjoint ranges too (6.12; 6.1 only on constants). */
	CHECK(kbpf_scalar_branch_taken(&byte, 300, BPF_JEQ, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 300, BPF_JNE, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&byte, 200, BPF_JEQ, false) == -1);
	struct scalar c = kbpf_scalar_known(7);
	CHECK(kbpf_scalar_branch_taken(&c, 7, BPF_JEQ, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&c, 8, BPF_JEQ, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&c, 7, BPF_JNE, false) == 0);
	/* JSET: known ones hit, no possible one misses. */
	CHECK(kbpf_scalar_branch_taken(&c, 4, BPF_JSET, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&c, 8, BPF_JSET, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 0x100, BPF_JSET, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&byte, 0x180, BPF_JSET, false) == -1);
	/* JMP32 looks at the low half and the 32-bit bounds; val is truncated. */
	struct scalar hi = kbpf_scalar_known(0x100000005ULL);
	CHECK(kbpf_scalar_branch_taken(&hi, 5, BPF_JEQ, true) == 1);
	CHECK(kbpf_scalar_branch_taken(&hi, 5, BPF_JEQ, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&hi, 0x200000005ULL, BPF_JEQ, true) == 1);
	CHECK(kbpf_scalar_branch_taken(&hi, (uint64_t)-1, BPF_JSGT, true) == 1);
	CHECK(kbpf_scalar_branch_taken(&hi, 4, BPF_JGT, true) == 1);
	CHECK(kbpf_scalar_branch_taken(&hi, 0x100000000ULL, BPF_JSET, true) == 0);
	/* JSET32 sees a known-1 bit of the low half under an unknown upper half. */
	struct scalar lo5 = kbpf_scalar_unknown();
	kbpf_scalar_mark_known32(&lo5, 5);
	CHECK(kbpf_scalar_branch_taken(&lo5, 4, BPF_JSET, true) == 1);
	CHECK(kbpf_scalar_branch_taken(&lo5, 2, BPF_JSET, true) == 0);
	CHECK(kbpf_scalar_branch_taken(&lo5, 4, BPF_JSET, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&lo5, 1ULL << 40, BPF_JSET, false) == -1);
	/* Unknown: nothing decided except the trivial unsigned ones. */
	struct scalar u = kbpf_scalar_unknown();
	CHECK(kbpf_scalar_branch_taken(&u, UINT64_MAX, BPF_JGT, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&u, 0, BPF_JGE, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&u, (uint64_t)INT64_MAX, BPF_JSGT, false) == 0);
	CHECK(kbpf_scalar_branch_taken(&u, (uint64_t)INT64_MIN, BPF_JSGE, false) == 1);
	CHECK(kbpf_scalar_branch_taken(&u, 1, BPF_JGT, false) == -1);
	CHECK(kbpf_scalar_branch_taken(&u, 0, BPF_JA, false) == -1);

	CHECK(kbpf_scalar_flip_jmp_op(BPF_JGT) == BPF_JLT);
	CHECK(kbpf_scalar_flip_jmp_op(BPF_JSGE) == BPF_JSLE);
	CHECK(kbpf_scalar_flip_jmp_op(BPF_JSET) == BPF_JSET);
	CHECK(kbpf_scalar_flip_jmp_op(BPF_JA) == 0);
	CHECK(kbpf_scalar_flip_jmp_op(BPF_CALL) == 0);
}

static void test_set_min_max(void)
{
	struct scalar byte = load(1), t, f;

	/* if r < 16: taken [0, 15], fall-through [16, 255]. */
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 16, 16, BPF_JLT, false);
	CHECK_STR(str(&t), "scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))");
	CHECK_STR(str(&f), "scalar(smin=umin=smin32=umin32=16,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	/* if 16 > r (constant on the left, flipped to r < 16). */
	t = f = byte;
	kbpf_scalar_set_min_max_inv(&t, &f, 16, 16, BPF_JGT, false);
	CHECK_STR(str(&t), "scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))");

	/* JEQ: taken side becomes the constant; JNE: the fall-through. */
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 42, 42, BPF_JEQ, false);
	CHECK_STR(str(&t), "42");
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 42, 42, BPF_JNE, false);
	CHECK_STR(str(&f), "42");
	/* JEQ32 fixes only the low half: an unknown upper half stays. */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, 42, 42, BPF_JEQ, true);
	CHECK(t.var_off.value == 42 && t.var_off.mask == 0xffffffff00000000ULL);
	CHECK(t.u32_min_value == 42 && t.u32_max_value == 42);
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 42, 42, BPF_JEQ, true);
	CHECK_STR(str(&t), "42");

	/* JSET: false side clears the tested bits; a single tested bit is set on
	 * the true side. */
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 0x80, 0x80, BPF_JSET, false);
	CHECK_STR(str(&t), "scalar(smin=umin=smin32=umin32=128,smax=umax=smax32=umax32=255,var_off=(0x80; 0x7f))");
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=127,var_off=(0x0; 0x7f))");
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 0x81, 0x81, BPF_JSET, false);
	CHECK_STR(str(&t), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=126,var_off=(0x0; 0x7e))");
	/* The same as JMP32. */
	t = f = byte;
	kbpf_scalar_set_min_max(&t, &f, 0x80, 0x80, BPF_JSET, true);
	CHECK_STR(str(&t), "scalar(smin=umin=smin32=umin32=128,smax=umax=smax32=umax32=255,var_off=(0x80; 0x7f))");
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=127,var_off=(0x0; 0x7f))");
	/* JSET's false side forgets the old bounds before narrowing the tnum: on
	 * [5, 7] (bit 2 always set, a dead false side) it is [0, 3], not a
	 * contradiction. */
	struct scalar r57 = kbpf_scalar_unknown();
	r57.umin_value = 5;
	r57.umax_value = 7;
	kbpf_scalar_bounds_sync(&r57);
	CHECK(kbpf_scalar_branch_taken(&r57, 4, BPF_JSET, false) == 1);
	t = f = r57;
	kbpf_scalar_set_min_max(&t, &f, 4, 4, BPF_JSET, false);
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=3,var_off=(0x0; 0x3))");

	/* Signed refinement of a 32-bit value (JMP32 JSLT 0 on a byte-sized
	 * unknown: taken side is empty in reality; fall-through keeps it). */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, 0, 0, BPF_JSLT, true);
	CHECK(t.s32_max_value == -1 && f.s32_min_value == 0);
	/* JSGE at S64_MIN... JSGT at S64_MAX (decided branches): the dead side's
	 * +1 wraps exactly as 6.1's does. */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, (uint64_t)INT64_MAX, (uint32_t)INT64_MAX, BPF_JSGT, false);
	CHECK(f.smax_value == INT64_MAX);

	/* Register == register: both become the intersection (6.12 intersects the
	 * 32-bit bounds too, and the sync brings them in line). */
	struct scalar a = byte, b = alu64k(load(2), BPF_ADD, 200);
	struct scalar ta = a, tb = b, fa = a, fb = b;
	kbpf_scalar_refine_cond(&ta, &tb, &fa, &fb, BPF_JEQ, false);
	CHECK_STR(str(&ta), "scalar(smin=umin=smin32=umin32=200,smax=umax=smax32=umax32=255,var_off=(0xc0; 0x3f))");
	CHECK(ta.umin_value == tb.umin_value && ta.umax_value == tb.umax_value);
	CHECK(memcmp(&fa, &a, sizeof(a)) == 0 && memcmp(&fb, &b, sizeof(b)) == 0);
	ta = a, tb = b, fa = a, fb = b;
	kbpf_scalar_refine_cond(&ta, &tb, &fa, &fb, BPF_JNE, false);
	CHECK(fa.umin_value == 200 && memcmp(&ta, &a, sizeof(a)) == 0);
	/* a > b: a's min above b's min, b's max below a's max (both registers) */
	ta = a, tb = b, fa = a, fb = b;
	kbpf_scalar_refine_cond(&ta, &tb, &fa, &fb, BPF_JGT, false);
	CHECK(ta.umin_value == 201 && tb.umax_value == 254);
	CHECK(fa.umax_value == 255 && fb.umin_value == 200);
	/* a != const at an end of a's range moves that end (6.12) */
	ta = fa = byte;
	kbpf_scalar_set_min_max(&ta, &fa, 0, 0, BPF_JNE, false);
	CHECK(ta.umin_value == 1 && ta.umax_value == 255);
	CHECK_STR(str(&fa), "0");
}

/* Each comparison against 100 on a byte [0, 255], both widths: the exact ranges of
 * both sides (soundness alone would accept a weaker refinement; 6.1's is this one).
 * The upper half of a byte is known zero, so JMP32 gives the same 64-bit ranges
 * (combine_32_into_64 assigns the 32-bit bounds). JSET 100 (not a power of two)
 * leaves the taken side alone and clears 0x64 on the other: (0; 0x9b), umax 155. */
static void test_set_min_max_each_op(void)
{
	static const struct {
		uint8_t op;
		uint64_t t_lo, t_hi, f_lo, f_hi;
	} cases[] = {
		{ BPF_JEQ, 100, 100, 0, 255 },   { BPF_JNE, 0, 255, 100, 100 },
		{ BPF_JGT, 101, 255, 0, 100 },   { BPF_JGE, 100, 255, 0, 99 },
		{ BPF_JLT, 0, 99, 100, 255 },    { BPF_JLE, 0, 100, 101, 255 },
		{ BPF_JSGT, 101, 255, 0, 100 },  { BPF_JSGE, 100, 255, 0, 99 },
		{ BPF_JSLT, 0, 99, 100, 255 },   { BPF_JSLE, 0, 100, 101, 255 },
		{ BPF_JSET, 0, 255, 0, 155 },
	};
	for (int jmp32 = 0; jmp32 < 2; jmp32++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct scalar t = load(1), f = t;
			kbpf_scalar_set_min_max(&t, &f, 100, 100, cases[i].op, jmp32);
			bool ok = t.umin_value == cases[i].t_lo && t.umax_value == cases[i].t_hi &&
				  f.umin_value == cases[i].f_lo && f.umax_value == cases[i].f_hi &&
				  t.smin_value == (int64_t)t.umin_value && t.smax_value == (int64_t)t.umax_value &&
				  f.smin_value == (int64_t)f.umin_value && f.smax_value == (int64_t)f.umax_value &&
				  t.u32_min_value == t.umin_value && t.u32_max_value == t.umax_value &&
				  f.u32_min_value == f.umin_value && f.u32_max_value == f.umax_value;
			if (!ok)
				fprintf(stderr, "op 0x%x jmp32 %d: T %s", cases[i].op, jmp32, str(&t));
			if (!ok)
				fprintf(stderr, " F %s\n", str(&f));
			CHECK(ok);
		}
	}
	struct scalar t = load(1), f = t;
	kbpf_scalar_set_min_max(&t, &f, 100, 100, BPF_JSET, false);
	CHECK_STR(str(&f), "scalar(smin=smin32=0,smax=umax=smax32=umax32=155,var_off=(0x0; 0x9b))");

	/* Signed against a negative constant on an unknown: x s> -5. */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, (uint64_t)-5, (uint32_t)-5, BPF_JSGT, false);
	CHECK(t.smin_value == -4 && t.smax_value == INT64_MAX);
	CHECK(f.smin_value == INT64_MIN && f.smax_value == -5);
	/* f is all negative: unsigned [2^63, -5]. */
	CHECK(f.umin_value == 1ULL << 63 && f.umax_value == (uint64_t)-5);
	/* The same as JMP32: only the 32-bit signed bounds; the upper half is
	 * unknown, so the 64-bit ones come from var_off alone. */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, (uint64_t)-5, (uint32_t)-5, BPF_JSGT, true);
	CHECK(t.s32_min_value == -4 && t.s32_max_value == INT32_MAX);
	CHECK(f.s32_min_value == INT32_MIN && f.s32_max_value == -5);
	CHECK(f.u32_min_value == 0x80000000u && f.u32_max_value == (uint32_t)-5);
	CHECK(t.umin_value == 0 && t.umax_value == UINT64_MAX);
	/* JGT32 / JLE32 on an unknown: only u32 bounds move. */
	t = f = kbpf_scalar_unknown();
	kbpf_scalar_set_min_max(&t, &f, 100, 100, BPF_JGT, true);
	CHECK(t.u32_min_value == 101 && t.u32_max_value == UINT32_MAX);
	CHECK(f.u32_min_value == 0 && f.u32_max_value == 100);
	/* The inverse form flips: 100 > x is x < 100. */
	t = f = load(1);
	kbpf_scalar_set_min_max_inv(&t, &f, 100, 100, BPF_JGT, true);
	CHECK(t.umax_value == 99 && f.umin_value == 100);
	t = f = load(1);
	kbpf_scalar_set_min_max_inv(&t, &f, 100, 100, BPF_JSLE, false);
	CHECK(t.umin_value == 100 && f.umax_value == 99);
}

/* ------------------------------------------------------------------ randomized soundness */

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Values where bugs live: 0, ±1, the sign and width edges, small numbers. */
static uint64_t interesting(void)
{
	static const uint64_t edges[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0x17fffffffULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
		0xffffffff00000000ULL, 0xffffffff7fffffffULL, 0xffffffff80000000ULL,
		0xfffffffffffffffeULL, 0xffffffffffffffffULL,
	};
	uint64_t e = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
	switch (rnd() % 6) {
	case 0: return e;
	case 1: return e + (rnd() % 5) - 2;
	case 2: return rnd() % 64;
	case 3: return rnd() & 0xffffffff;
	case 4: return (uint64_t)(int64_t)(int32_t)rnd();
	default: return rnd();
	}
}

/* A random distance, mostly small. */
static uint64_t dist(void)
{
	switch (rnd() % 4) {
	case 0: return 0;
	case 1: return rnd() % 16;
	case 2: return rnd() >> (rnd() % 64);
	default: return UINT64_MAX;
	}
}

static uint64_t sat_sub(uint64_t a, uint64_t d) { return a >= d ? a - d : 0; }
static uint64_t sat_add(uint64_t a, uint64_t d) { return UINT64_MAX - a >= d ? a + d : UINT64_MAX; }

static int64_t ssat_sub(int64_t a, uint64_t d)
{
	uint64_t room = (uint64_t)a - (uint64_t)INT64_MIN;
	return d >= room ? INT64_MIN : (int64_t)((uint64_t)a - d);
}

static int64_t ssat_add(int64_t a, uint64_t d)
{
	uint64_t room = (uint64_t)INT64_MAX - (uint64_t)a;
	return d >= room ? INT64_MAX : (int64_t)((uint64_t)a + d);
}

/* A random consistent state that contains x0: var_off and each bound are chosen
 * independently around x0, then synced. Callers check that x0 is still a member
 * (a sync that lost it would be unsound). */
static struct scalar rnd_state(uint64_t x0)
{
	struct scalar s;
	switch (rnd() % 8) {
	case 0:
		return kbpf_scalar_known(x0);
	case 1:
		return kbpf_scalar_unknown();
	default:
		break;
	}
	uint64_t m;
	switch (rnd() % 6) {
	case 0: m = 0; break;
	case 1: m = ~0ULL; break;
	case 2: m = (1ULL << (rnd() % 64)) - 1; break;
	case 3: m = rnd() & rnd(); break;
	case 4: m = ((1ULL << (rnd() % 20)) - 1) << (rnd() % 44); break;
	default: m = rnd(); break;
	}
	s.var_off = TNUM(x0 & ~m, m);
	s.umin_value = sat_sub(x0, dist());
	s.umax_value = sat_add(x0, dist());
	s.smin_value = ssat_sub((int64_t)x0, dist());
	s.smax_value = ssat_add((int64_t)x0, dist());
	uint32_t x32 = (uint32_t)x0;
	uint64_t d = dist();
	s.u32_min_value = d >= x32 ? 0 : x32 - (uint32_t)d;
	d = dist();
	s.u32_max_value = d >= UINT32_MAX - x32 ? UINT32_MAX : x32 + (uint32_t)d;
	d = dist();
	s.s32_min_value = d >= (uint64_t)((int64_t)(int32_t)x32 - INT32_MIN) ? INT32_MIN
									   : (int32_t)((int64_t)(int32_t)x32 - (int64_t)d);
	d = dist();
	s.s32_max_value = d >= (uint64_t)(INT32_MAX - (int64_t)(int32_t)x32) ? INT32_MAX
									   : (int32_t)((int64_t)(int32_t)x32 + (int64_t)d);
	kbpf_scalar_bounds_sync(&s);
	return s;
}

/* A random member of s (x0 if sampling does not find another). */
static uint64_t sample(const struct scalar *s, uint64_t x0)
{
	for (int tries = 0; tries < 16; tries++) {
		uint64_t c;
		switch (rnd() % 6) {
		case 0: c = s->umin_value; break;
		case 1: c = s->umax_value; break;
		case 2: c = (uint64_t)s->smin_value; break;
		case 3: c = (uint64_t)s->smax_value; break;
		case 4: c = s->umin_value + rnd() % (s->umax_value - s->umin_value + 1 ? s->umax_value - s->umin_value + 1 : UINT64_MAX); break;
		default: c = s->var_off.value | (rnd() & s->var_off.mask); break;
		}
		/* Pull the candidate onto var_off's known bits. */
		if (rnd() % 2)
			c = s->var_off.value | (c & s->var_off.mask);
		if (contains(s, c))
			return c;
	}
	return x0;
}


static const uint8_t alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
				   BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH, BPF_END };

static int report_budget = 10;

static void report_alu(uint8_t op, bool alu32, const struct scalar *d, const struct scalar *s,
		       const struct scalar *r, uint64_t dv, uint64_t sv, uint64_t rv)
{
	if (report_budget-- <= 0)
		return;
	char a[256], b[256], c[256];
	kbpf_scalar_snprint(a, sizeof(a), d, 0);
	kbpf_scalar_snprint(b, sizeof(b), s, 0);
	kbpf_scalar_snprint(c, sizeof(c), r, 0);
	fprintf(stderr, "unsound ALU%s op 0x%x: %s (0x%llx) op %s (0x%llx) = 0x%llx not in %s\n",
		alu32 ? "32" : "64", op, a, (unsigned long long)dv, b, (unsigned long long)sv,
		(unsigned long long)rv, c);
}

static void test_random_alu_soundness(void)
{
	int bad = 0, tracked = 0;
	for (int it = 0; it < 60000; it++) {
		uint8_t op = alu_ops[rnd() % (sizeof(alu_ops) / sizeof(alu_ops[0]))];
		bool alu32 = rnd() % 2;
		uint64_t d0 = interesting(), s0;
		struct scalar d = rnd_state(d0), s;
		bad += !contains(&d, d0);
		if (rnd() % 2) {
			/* K form: sign-extended imm; shifts in range, as the checker
			 * guarantees before adjust_scalar_min_max_vals. */
			int32_t imm = (int32_t)interesting();
			if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
				imm = (int32_t)(rnd() % (alu32 ? 32 : 64));
			s0 = (uint64_t)(int64_t)imm;
			s = kbpf_scalar_known(s0);
		} else {
			s0 = (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && rnd() % 2 ? rnd() % 70
											: interesting();
			s = rnd_state(s0);
			bad += !contains(&s, s0);
		}
		struct scalar r = d;
		kbpf_scalar_alu(&r, &s, op, alu32);
		tracked += !kbpf_tnum_is_unknown(r.var_off);
		for (int n = 0; n < 12; n++) {
			uint64_t dv = n ? sample(&d, d0) : d0, sv = n ? sample(&s, s0) : s0;
			uint64_t rv = concrete_alu(op, alu32, dv, sv);
			if (!contains(&r, rv)) {
				bad++;
				report_alu(op, alu32, &d, &s, &r, dv, sv, rv);
			}
		}
	}
	CHECK(bad == 0);
	CHECK(tracked > 10000); /* the test exercises the tracking paths, not just "unknown" */
}


static const uint8_t jmp_ops[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
				   BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE };

static void report_jmp(const char *what, uint8_t op, bool jmp32, const struct scalar *in,
		       uint64_t val, uint64_t x, bool taken, const struct scalar *out)
{
	if (report_budget-- <= 0)
		return;
	char a[256], c[256];
	kbpf_scalar_snprint(a, sizeof(a), in, 0);
	kbpf_scalar_snprint(c, sizeof(c), out, 0);
	fprintf(stderr, "unsound %s JMP%s op 0x%x: %s vs 0x%llx, x = 0x%llx (%s) not in %s\n", what,
		jmp32 ? "32" : "", op, a, (unsigned long long)val, (unsigned long long)x,
		taken ? "taken" : "not taken", c);
}

static void test_random_branch_soundness(void)
{
	int bad = 0, decided = 0;
	for (int it = 0; it < 60000; it++) {
		uint8_t op = jmp_ops[rnd() % (sizeof(jmp_ops) / sizeof(jmp_ops[0]))];
		bool jmp32 = rnd() % 2;
		uint64_t x0 = interesting();
		struct scalar reg = rnd_state(x0);
		bad += !contains(&reg, x0);

		/* The constant: an imm (sign-extended, as the K form), a 64-bit
		 * constant register, or near a member of reg. */
		uint64_t val;
		switch (rnd() % 3) {
		case 0: val = (uint64_t)(int64_t)(int32_t)interesting(); break;
		case 1: val = interesting(); break;
		default: val = sample(&reg, x0) + (rnd() % 3) - 1; break;
		}

		/* reg <op> val, and val <op> reg (the _inv form). */
		int pred = kbpf_scalar_branch_taken(&reg, val, op, jmp32);
		decided += pred >= 0;
		struct scalar t = reg, f = reg, ti = reg, fi = reg;
		kbpf_scalar_set_min_max(&t, &f, val, (uint32_t)val, op, jmp32);
		kbpf_scalar_set_min_max_inv(&ti, &fi, val, (uint32_t)val, op, jmp32);
		for (int n = 0; n < 12; n++) {
			uint64_t x = n ? sample(&reg, x0) : x0;
			bool taken = concrete_cmp(op, jmp32, x, val);
			if ((pred == 1 && !taken) || (pred == 0 && taken)) {
				bad++;
				report_jmp("is_branch_taken", op, jmp32, &reg, val, x, taken, &reg);
			}
			const struct scalar *side = taken ? &t : &f;
			if (!contains(side, x)) {
				bad++;
				report_jmp("reg_set_min_max", op, jmp32, &reg, val, x, taken, side);
			}
			bool taken_inv = concrete_cmp(op, jmp32, val, x);
			side = taken_inv ? &ti : &fi;
			if (!contains(side, x)) {
				bad++;
				report_jmp("reg_set_min_max_inv", op, jmp32, &reg, val, x, taken_inv, side);
			}
		}

		/* Two variable registers, every op and width (6.12's range-vs-range
		 * decision and refinement of both). */
		uint64_t y0 = rnd() % 2 ? x0 : interesting();
		struct scalar other = rnd_state(y0);
		struct scalar ta = reg, tb = other, fa = reg, fb = other;
		int pr = kbpf_scalar_branch_taken_regs(&reg, &other, op, jmp32);
		kbpf_scalar_refine_cond(&ta, &tb, &fa, &fb, op, jmp32);
		for (int n = 0; n < 12; n++) {
			uint64_t x = n ? sample(&reg, x0) : x0;
			uint64_t y = rnd() % 2 && contains(&other, x) ? x : n ? sample(&other, y0) : y0;
			bool taken = concrete_cmp(op, jmp32, x, y);
			if ((pr == 1 && !taken) || (pr == 0 && taken)) {
				bad++;
				report_jmp("is_branch_taken regs", op, jmp32, &reg, y, x, taken, &other);
			}
			if (pr >= 0)
				continue; /* a decided compare is not refined */
			const struct scalar *sa = taken ? &ta : &fa, *sb = taken ? &tb : &fb;
			if (!contains(sa, x) || !contains(sb, y)) {
				bad++;
				report_jmp("regs_refine_cond_op", op, jmp32, &reg, y, x, taken, contains(sa, x) ? sb : sa);
			}
		}
		/* a register compared with itself */
		ta = fa = reg;
		if (kbpf_scalar_branch_taken_regs(&reg, &reg, op, jmp32) < 0) {
			kbpf_scalar_refine_cond(&ta, &ta, &fa, &fa, op, jmp32);
			uint64_t x = sample(&reg, x0);
			bool taken = concrete_cmp(op, jmp32, x, x);
			if (!contains(taken ? &ta : &fa, x)) {
				bad++;
				report_jmp("refine self", op, jmp32, &reg, x, x, taken, taken ? &ta : &fa);
			}
		}
	}
	CHECK(bad == 0);
	CHECK(decided > 1000);
}

/* The consistency operations on their own: a member stays a member. */
static void test_random_sync_soundness(void)
{
	int bad = 0;
	for (int it = 0; it < 30000; it++) {
		uint64_t x0 = interesting();
		struct scalar s = rnd_state(x0);
		bad += !contains(&s, x0);
		uint64_t x = sample(&s, x0);

		/* each deduction alone keeps every member */
		struct scalar c = s;
		kbpf_scalar_deduce_bounds32(&c);
		bad += !contains(&c, x);
		c = s;
		kbpf_scalar_deduce_bounds64(&c);
		bad += !contains(&c, x);
		c = s;
		kbpf_scalar_deduce_mixed_bounds(&c);
		bad += !contains(&c, x);
		/* zext: the member becomes its low half. */
		c = s;
		kbpf_scalar_zext_32_to_64(&c);
		kbpf_scalar_bounds_sync(&c);
		bad += !contains(&c, x & 0xffffffff);
		/* coerce to 1/2/4 bytes: the member truncated. */
		int size = 1 << (rnd() % 3);
		c = s;
		kbpf_scalar_coerce_to_size(&c, size);
		bad += !contains(&c, x & ((1ULL << (8 * size)) - 1));
		/* A further sync keeps every member. */
		c = s;
		kbpf_scalar_bounds_sync(&c);
		bad += !contains(&c, x);
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(test_golden_align_unknown_shift);
	RUN(test_golden_align_unknown_mul);
	RUN(test_golden_align_packet_offsets);
	RUN(test_golden_align_dubious);
	RUN(test_golden_align_variable_subtraction);
	RUN(test_golden_align_pointer_variable_subtraction);
	RUN(test_golden_by_hand);
	RUN(test_construction);
	RUN(test_update_deduce_offset);
	RUN(test_32_64_moves);
	RUN(test_coerce);
	RUN(test_coerce_sx);
	RUN(test_alu_const_folding);
	RUN(test_alu_unknown_results);
	RUN(test_alu_bounds);
	RUN(test_branch_taken);
	RUN(test_set_min_max);
	RUN(test_set_min_max_each_op);
	RUN(test_random_alu_soundness);
	RUN(test_random_branch_soundness);
	RUN(test_random_sync_soundness);
	return test_summary();
}
