/* SPDX-License-Identifier: Apache-2.0 */
/* tnum: each operation on fixed cases (Linux 6.1's results, derived by hand from
 * kernel/bpf/tnum.c's formulas and stated next to each case), an exhaustive check on
 * all 4-bit tnums, and a randomized soundness check on 64-bit ones: for members x of
 * a and y of b, op(x, y) must be a member of kbpf_tnum_op(a, b). */
#include <stdint.h>
#include "test.h"
#include "verifier/tnum.h"

#define TEQ(t, v, m)                                   \
	do {                                           \
		struct tnum t_ = (t);                  \
		CHECK_EQ_U64(t_.value, (v));           \
		CHECK_EQ_U64(t_.mask, (m));            \
	} while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: a fixed seed, so failures reproduce. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* A random member of t. */
static uint64_t member(struct tnum t)
{
	return t.value | (rnd() & t.mask);
}

/* A random well-formed tnum, biased towards the shapes the verifier produces: low
 * masks, constants, fully unknown, sparse and dense random masks. */
static struct tnum rnd_tnum(void)
{
	uint64_t v = rnd(), m;
	switch (rnd() % 8) {
	case 0: m = 0; break;
	case 1: m = ~0ULL; break;
	case 2: m = (1ULL << (rnd() % 64)) - 1; break;
	case 3: m = rnd() & rnd(); break;
	case 4: m = rnd() | rnd(); break;
	case 5: m = ((1ULL << (rnd() % 16)) - 1) << (rnd() % 48); break;
	case 6: v &= 0xffffffff; m = rnd() & 0xffffffff; break;
	default: m = rnd(); break;
	}
	if (rnd() % 4 == 0)
		v = (rnd() % 3 == 0) ? ~0ULL : (rnd() & 0xff);
	return TNUM(v & ~m, m);
}

static bool in(struct tnum t, uint64_t x)
{
	return kbpf_tnum_in(t, kbpf_tnum_const(x));
}

static void test_const_and_predicates(void)
{
	TEQ(kbpf_tnum_const(42), 42, 0);
	TEQ(kbpf_tnum_unknown(), 0, ~0ULL);
	CHECK(kbpf_tnum_is_const(kbpf_tnum_const(0)));
	CHECK(!kbpf_tnum_is_const(TNUM(0, 1)));
	CHECK(kbpf_tnum_equals_const(kbpf_tnum_const(7), 7));
	CHECK(!kbpf_tnum_equals_const(kbpf_tnum_const(7), 8));
	CHECK(!kbpf_tnum_equals_const(TNUM(6, 1), 7));
	CHECK(kbpf_tnum_is_unknown(kbpf_tnum_unknown()));
	CHECK(!kbpf_tnum_is_unknown(TNUM(0, ~0ULL >> 1)));
	CHECK(kbpf_tnum_subreg_is_const(TNUM(5, 0xff00000000ULL)));
	CHECK(!kbpf_tnum_subreg_is_const(TNUM(0, 0x80000000ULL)));
}

static void test_range(void)
{
	/* chi = 0: constant min. */
	TEQ(kbpf_tnum_range(0, 0), 0, 0);
	TEQ(kbpf_tnum_range(5, 5), 5, 0);
	/* [0, 255]: chi = 0xff, 8 bits. */
	TEQ(kbpf_tnum_range(0, 255), 0, 0xff);
	/* [0, 2] over-approximates to {0..3} (tnum.h's own example). */
	TEQ(kbpf_tnum_range(0, 2), 0, 3);
	CHECK(kbpf_tnum_in(kbpf_tnum_range(0, 2), kbpf_tnum_const(3)));
	/* [4, 5]: chi = 1 -> (4; 1). [3, 4]: chi = 7 -> (0; 7). */
	TEQ(kbpf_tnum_range(4, 5), 4, 1);
	TEQ(kbpf_tnum_range(3, 4), 0, 7);
	/* Bit 63 differs: 64 bits, fully unknown. */
	TEQ(kbpf_tnum_range(0, 1ULL << 63), 0, ~0ULL);
	TEQ(kbpf_tnum_range(0, UINT64_MAX), 0, ~0ULL);
	/* Upper half of the space: bit 63 known. */
	TEQ(kbpf_tnum_range(1ULL << 63, UINT64_MAX), 1ULL << 63, ~0ULL >> 1);
	/* [0, U32_MAX] and [0, S64_MAX]. */
	TEQ(kbpf_tnum_range(0, 0xffffffff), 0, 0xffffffff);
	TEQ(kbpf_tnum_range(0, INT64_MAX), 0, (uint64_t)INT64_MAX);
	/* The u32 range 6.1 uses for a 32-bit unknown's upper bits: known zero. */
	TEQ(kbpf_tnum_range(0x100000000ULL, 0x1ffffffffULL), 0x100000000ULL, 0xffffffff);
}

static void test_shifts(void)
{
	TEQ(kbpf_tnum_lshift(TNUM(1, 6), 4), 0x10, 0x60);
	TEQ(kbpf_tnum_lshift(TNUM(0, ~0ULL), 2), 0, 0xfffffffffffffffcULL);
	TEQ(kbpf_tnum_lshift(TNUM(1ULL << 63, 0), 1), 0, 0);
	TEQ(kbpf_tnum_rshift(TNUM(0x10, 0x60), 4), 1, 6);
	TEQ(kbpf_tnum_rshift(TNUM(1ULL << 63, 1ULL << 62), 62), 2, 1);
	/* Defined here (Linux never shifts this far). */
	TEQ(kbpf_tnum_lshift(TNUM(1, 1 << 1), 64), 0, 0);
	TEQ(kbpf_tnum_rshift(TNUM(1, 1 << 1), 200), 0, 0);

	/* 64-bit arithmetic shift: known sign 1 fills ones, unknown sign fills
	 * unknowns, known 0 fills zeros. */
	TEQ(kbpf_tnum_arshift(TNUM(1ULL << 63, 0), 4, 64), 0xf800000000000000ULL, 0);
	TEQ(kbpf_tnum_arshift(TNUM(0, 1ULL << 63), 4, 64), 0, 0xf800000000000000ULL);
	TEQ(kbpf_tnum_arshift(TNUM(0x70, 0xf), 4, 64), 7, 0);
	TEQ(kbpf_tnum_arshift(TNUM(0xffffffffffffff00ULL, 0xff), 8, 64), ~0ULL, 0);
	/* 32-bit: the low half as s32, result zero-extended; the upper half of the
	 * input is ignored. */
	TEQ(kbpf_tnum_arshift(TNUM(0x80000000, 0), 4, 32), 0xf8000000, 0);
	TEQ(kbpf_tnum_arshift(TNUM(0, 0x80000000), 1, 32), 0, 0xc0000000);
	TEQ(kbpf_tnum_arshift(TNUM(0xffffffff00000010ULL, 0), 4, 32), 1, 0);
	TEQ(kbpf_tnum_arshift(TNUM(0x7fffffff, 0), 31, 32), 0, 0);
	TEQ(kbpf_tnum_arshift(TNUM(0x80000000, 0), 31, 32), 0xffffffff, 0);
	TEQ(kbpf_tnum_arshift(TNUM(1ULL << 63, 0), 63, 64), ~0ULL, 0);
}

static void test_add_sub(void)
{
	TEQ(kbpf_tnum_add(kbpf_tnum_const(3), kbpf_tnum_const(4)), 7, 0);
	TEQ(kbpf_tnum_add(kbpf_tnum_const(UINT64_MAX), kbpf_tnum_const(1)), 0, 0);
	/* (0;1) + (0;1): sm = 2, sv = 0, chi = 2 -> mu = 3: {0,1,2} in (0; 3). */
	TEQ(kbpf_tnum_add(TNUM(0, 1), TNUM(0, 1)), 0, 3);
	/* (1;0) + (0;1): sm = 1, sv = 1, sigma = 2, chi = 3 -> (0; 3). */
	TEQ(kbpf_tnum_add(kbpf_tnum_const(1), TNUM(0, 1)), 0, 3);
	/* (0;0x3fc) + 14 (align.c "packet variable offset 2", insn 8):
	 * sv = 14, sm = 0x3fc, sigma = 0x40a, chi = 0x404, mu = 0x7fc -> (0x2; 0x7fc). */
	TEQ(kbpf_tnum_add(TNUM(0, 0x3fc), kbpf_tnum_const(14)), 2, 0x7fc);

	TEQ(kbpf_tnum_sub(kbpf_tnum_const(10), kbpf_tnum_const(3)), 7, 0);
	TEQ(kbpf_tnum_sub(kbpf_tnum_const(0), kbpf_tnum_const(1)), ~0ULL, 0);
	/* 0 - (0x2; 0x7c) (align.c "pointer variable subtraction", insn 13):
	 * dv = -2, alpha = dv, beta = dv - 0x7c, chi = 0xfe ^ 0x82 in the low byte... the
	 * verifier log shows var_off=(0xffffffffffffff82; 0x7c). */
	TEQ(kbpf_tnum_sub(kbpf_tnum_const(0), TNUM(2, 0x7c)), 0xffffffffffffff82ULL, 0x7c);
	/* (0x2; 0x3fc) - (0; 0x3fc) (align.c "variable subtraction", insn 11, shows
	 * var_off=(0x2; 0xfffffffffffffffc)). */
	TEQ(kbpf_tnum_sub(TNUM(2, 0x7fc), TNUM(0, 0x3fc)), 2, 0xfffffffffffffffcULL);
}

static void test_mul(void)
{
	TEQ(kbpf_tnum_mul(kbpf_tnum_const(3), kbpf_tnum_const(5)), 15, 0);
	TEQ(kbpf_tnum_mul(kbpf_tnum_const(0), kbpf_tnum_unknown()), 0, 0);
	TEQ(kbpf_tnum_mul(kbpf_tnum_unknown(), kbpf_tnum_const(0)), 0, 0);
	/* align.c "unknown mul": (0; 0xff) times 1, 2, 4, 8 gives masks 0xff, 0x1fe,
	 * 0x3fc, 0x7f8 (each partial product adds b's bits shifted). */
	TEQ(kbpf_tnum_mul(TNUM(0, 0xff), kbpf_tnum_const(1)), 0, 0xff);
	TEQ(kbpf_tnum_mul(TNUM(0, 0xff), kbpf_tnum_const(2)), 0, 0x1fe);
	TEQ(kbpf_tnum_mul(TNUM(0, 0xff), kbpf_tnum_const(4)), 0, 0x3fc);
	TEQ(kbpf_tnum_mul(TNUM(0, 0xff), kbpf_tnum_const(8)), 0, 0x7f8);
	TEQ(kbpf_tnum_mul(TNUM(0, 0x7f8), kbpf_tnum_const(2)), 0, 0xff0);
	/* (0;1) * (0;1): a's bit 0 unknown adds (0; b.v|b.m) = (0; 1). */
	TEQ(kbpf_tnum_mul(TNUM(0, 1), TNUM(0, 1)), 0, 1);
	/* 3 * (0; 1): bit0 known 1 adds (0; 1), bit1 known 1 adds (0; 2):
	 * acc_m = (0;1)+(0;2) = (0;3), acc_v = 0 -> (0; 3) ({0, 3} ⊆). */
	TEQ(kbpf_tnum_mul(kbpf_tnum_const(3), TNUM(0, 1)), 0, 3);
	/* Wraps mod 2^64 like the machine. */
	TEQ(kbpf_tnum_mul(kbpf_tnum_const(1ULL << 63), kbpf_tnum_const(2)), 0, 0);
}

static void test_bitwise(void)
{
	/* and: known 0 in either wins; v = a.v & b.v. */
	TEQ(kbpf_tnum_and(kbpf_tnum_unknown(), kbpf_tnum_const(0xff)), 0, 0xff);
	/* alpha = beta = 0xff, v = 0xf0 & 0x3c = 0x30, mask = 0xff & ~0x30. */
	TEQ(kbpf_tnum_and(TNUM(0xf0, 0x0f), TNUM(0x3c, 0xc3)), 0x30, 0xcf);
	TEQ(kbpf_tnum_and(kbpf_tnum_const(0xf0), kbpf_tnum_const(0x3c)), 0x30, 0);
	/* or: known 1 in either wins. */
	TEQ(kbpf_tnum_or(TNUM(0, 0xff), kbpf_tnum_const(0x0f)), 0x0f, 0xf0);
	TEQ(kbpf_tnum_or(kbpf_tnum_const(1), kbpf_tnum_const(2)), 3, 0);
	/* xor: any unknown makes the bit unknown. */
	TEQ(kbpf_tnum_xor(TNUM(0x0f, 0xf0), kbpf_tnum_const(0xff)), 0xf0 & ~0xf0ULL, 0xf0);
	TEQ(kbpf_tnum_xor(kbpf_tnum_const(0x0f), kbpf_tnum_const(0xff)), 0xf0, 0);
	TEQ(kbpf_tnum_xor(kbpf_tnum_unknown(), kbpf_tnum_const(1)), 0, ~0ULL);
}

static void test_intersect_cast(void)
{
	TEQ(kbpf_tnum_intersect(TNUM(0, 0xff), TNUM(0x10, 0x0f)), 0x10, 0x0f);
	TEQ(kbpf_tnum_intersect(kbpf_tnum_unknown(), kbpf_tnum_const(9)), 9, 0);
	TEQ(kbpf_tnum_intersect(kbpf_tnum_unknown(), kbpf_tnum_unknown()), 0, ~0ULL);
	/* Disagreeing known bits come out known 1 (only on dead paths). */
	TEQ(kbpf_tnum_intersect(kbpf_tnum_const(1), kbpf_tnum_const(2)), 3, 0);

	TEQ(kbpf_tnum_cast(TNUM(0x120034005600009aULL, 0x00ff00ff00ff0000ULL), 1), 0x9a, 0);
	TEQ(kbpf_tnum_cast(TNUM(0x120034005600009aULL, 0x00ff00ff00ff0000ULL), 4), 0x5600009a, 0x00ff0000);
	TEQ(kbpf_tnum_cast(TNUM(0x120034005600009aULL, 0x00ff00ff00ff0000ULL), 2), 0x9a, 0);
	TEQ(kbpf_tnum_cast(kbpf_tnum_unknown(), 4), 0, 0xffffffff);
	TEQ(kbpf_tnum_cast(kbpf_tnum_unknown(), 8), 0, ~0ULL);
	TEQ(kbpf_tnum_cast(kbpf_tnum_unknown(), 0), 0, 0);
}

static void test_subreg(void)
{
	struct tnum t = TNUM(0x1200000000000055ULL, 0x00ff0000ffff0000ULL);
	TEQ(kbpf_tnum_subreg(t), 0x55, 0xffff0000);
	TEQ(kbpf_tnum_clear_subreg(t), 0x1200000000000000ULL, 0x00ff000000000000ULL);
	TEQ(kbpf_tnum_const_subreg(t, 0xdeadbeef), 0x12000000deadbeefULL, 0x00ff000000000000ULL);
	TEQ(kbpf_tnum_const_subreg(kbpf_tnum_unknown(), 7), 7, 0xffffffff00000000ULL);
	TEQ(kbpf_tnum_with_subreg(kbpf_tnum_const(0xaaaaaaaa00000000ULL), TNUM(0xffff000000000001ULL, 0x10)),
	    0xaaaaaaaa00000001ULL, 0x10);
}

static void test_in_aligned(void)
{
	CHECK(kbpf_tnum_in(kbpf_tnum_unknown(), kbpf_tnum_const(12345)));
	CHECK(kbpf_tnum_in(kbpf_tnum_unknown(), kbpf_tnum_unknown()));
	CHECK(!kbpf_tnum_in(kbpf_tnum_const(1), kbpf_tnum_unknown()));
	CHECK(kbpf_tnum_in(TNUM(0, 0xff), TNUM(0x10, 0x0f)));
	CHECK(!kbpf_tnum_in(TNUM(0, 0x0f), TNUM(0x10, 0x0f)));
	CHECK(!kbpf_tnum_in(TNUM(0x10, 0x0f), TNUM(0x20, 0x0f)));
	CHECK(kbpf_tnum_in(TNUM(0x10, 0x0f), TNUM(0x13, 0x0c)));

	CHECK(kbpf_tnum_is_aligned(TNUM(0, 0x3fc), 4));
	CHECK(!kbpf_tnum_is_aligned(TNUM(0, 0x3fc), 8));
	CHECK(!kbpf_tnum_is_aligned(TNUM(2, 0x7fc), 4));
	CHECK(kbpf_tnum_is_aligned(TNUM(2, 0x7fc), 2));
	CHECK(kbpf_tnum_is_aligned(kbpf_tnum_unknown(), 1));
	CHECK(kbpf_tnum_is_aligned(kbpf_tnum_unknown(), 0));
	CHECK(kbpf_tnum_is_aligned(kbpf_tnum_const(0), 1ULL << 63));
}

static void test_strn_sbin(void)
{
	char buf[64];

	/* The kernel's %#llx prints 0 as 0x0. */
	CHECK(kbpf_tnum_strn(buf, sizeof(buf), TNUM(0, 0xff)) == 11);
	CHECK_STR(buf, "(0x0; 0xff)");
	/* Linux 6.12: a known tnum prints as its number, decimal up to 65535. */
	kbpf_tnum_strn(buf, sizeof(buf), kbpf_tnum_const(0));
	CHECK_STR(buf, "0");
	kbpf_tnum_strn(buf, sizeof(buf), kbpf_tnum_const(65535));
	CHECK_STR(buf, "65535");
	kbpf_tnum_strn(buf, sizeof(buf), kbpf_tnum_const(65536));
	CHECK_STR(buf, "0x10000");
	kbpf_tnum_strn(buf, sizeof(buf), kbpf_tnum_const(~0ULL));
	CHECK_STR(buf, "0xffffffffffffffff");
	kbpf_tnum_strn(buf, sizeof(buf), kbpf_tnum_unknown());
	CHECK_STR(buf, "(0x0; 0xffffffffffffffff)");
	kbpf_tnum_strn(buf, sizeof(buf), TNUM(0xffffffffffffff82ULL, 0x7c));
	CHECK_STR(buf, "(0xffffffffffffff82; 0x7c)");
	CHECK(kbpf_tnum_strn(buf, sizeof(buf), TNUM(~0ULL >> 1 & ~0xfULL, 0xf)) + 1 <= TNUM_STR_MAX);
	CHECK(kbpf_tnum_strn(buf, sizeof(buf), TNUM(0x8000000000000000ULL, 0x4000000000000000ULL)) + 1 ==
	      TNUM_STR_MAX);
	/* snprintf truncation contract. */
	CHECK(kbpf_tnum_strn(buf, 5, TNUM(0, 0xff)) == 11);
	CHECK_STR(buf, "(0x0");

	CHECK(kbpf_tnum_sbin(buf, sizeof(buf), TNUM(5, 0xf0)) == 64);
	CHECK(strlen(buf) == 63);
	char full[65], want[65];
	memset(want, '0', 56);
	memcpy(want + 56, "xxxx0101", 9);
	kbpf_tnum_sbin(full, sizeof(full), TNUM(5, 0xf0));
	CHECK_STR(full, want);
	kbpf_tnum_sbin(full, 5, TNUM(1ULL << 63, 1ULL << 62));
	CHECK_STR(full, "1x00");
	CHECK(kbpf_tnum_sbin(full, 0, kbpf_tnum_unknown()) == 64);
}

/* Every well-formed tnum over the low 4 bits (81 of them), against every pair of
 * members: exhaustive soundness for the binary ops and shifts. */
static void test_exhaustive_4bit(void)
{
	struct tnum all[81];
	int n = 0;
	for (uint64_t m = 0; m < 16; m++)
		for (uint64_t v = 0; v < 16; v++)
			if (!(v & m))
				all[n++] = TNUM(v, m);
	CHECK(n == 81);

	int bad = 0;
	for (int i = 0; i < n; i++) {
		struct tnum a = all[i];
		for (int j = 0; j < n; j++) {
			struct tnum b = all[j];
			struct tnum r_add = kbpf_tnum_add(a, b), r_sub = kbpf_tnum_sub(a, b), r_mul = kbpf_tnum_mul(a, b);
			struct tnum r_and = kbpf_tnum_and(a, b), r_or = kbpf_tnum_or(a, b), r_xor = kbpf_tnum_xor(a, b);
			struct tnum r_int = kbpf_tnum_intersect(a, b);
			for (uint64_t x = 0; x < 16; x++) {
				if (!in(a, x))
					continue;
				for (uint64_t y = 0; y < 16; y++) {
					if (!in(b, y))
						continue;
					bad += !in(r_add, x + y);
					bad += !in(r_sub, x - y);
					bad += !in(r_mul, x * y);
					bad += !in(r_and, x & y);
					bad += !in(r_or, x | y);
					bad += !in(r_xor, x ^ y);
					if (x == y)
						bad += !in(r_int, x);
				}
				for (unsigned k = 0; k < 5; k++) {
					bad += !in(kbpf_tnum_lshift(a, k), x << k);
					bad += !in(kbpf_tnum_rshift(a, k), x >> k);
				}
			}
			/* range: every value in [min, max] is in the tnum. */
			for (uint64_t lo = 0; lo < 16; lo++)
				for (uint64_t hi = lo; hi < 16; hi++)
					for (uint64_t x = lo; x <= hi; x++)
						bad += !in(kbpf_tnum_range(lo, hi), x);
		}
	}
	/* and, or, xor are exact: every unknown result bit can be 0 and 1. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			struct tnum ops[3] = { kbpf_tnum_and(all[i], all[j]), kbpf_tnum_or(all[i], all[j]),
					       kbpf_tnum_xor(all[i], all[j]) };
			for (int o = 0; o < 3; o++) {
				uint64_t seen1 = 0, seen0 = 0;
				for (uint64_t x = 0; x < 16; x++)
					for (uint64_t y = 0; y < 16; y++) {
						if (!in(all[i], x) || !in(all[j], y))
							continue;
						uint64_t r = o == 0 ? (x & y) : o == 1 ? (x | y) : (x ^ y);
						seen1 |= r;
						seen0 |= ~r;
					}
				bad += (ops[o].mask & 0xf) != (seen1 & seen0 & 0xf);
			}
		}
	CHECK(bad == 0);
}

/* Random 64-bit tnums: members of the operands give members of the result. */
static void test_random_soundness(void)
{
	int bad = 0;
	for (int it = 0; it < 20000; it++) {
		struct tnum a = rnd_tnum(), b = rnd_tnum();
		unsigned k = rnd() % 64, k32 = rnd() % 32;
		uint8_t size = (uint8_t)(1u << (rnd() % 4));
		struct tnum r_add = kbpf_tnum_add(a, b), r_sub = kbpf_tnum_sub(a, b), r_mul = kbpf_tnum_mul(a, b);
		struct tnum r_and = kbpf_tnum_and(a, b), r_or = kbpf_tnum_or(a, b), r_xor = kbpf_tnum_xor(a, b);
		struct tnum r_lsh = kbpf_tnum_lshift(a, k), r_rsh = kbpf_tnum_rshift(a, k);
		struct tnum r_ars = kbpf_tnum_arshift(a, k, 64), r_ars32 = kbpf_tnum_arshift(a, k32, 32);
		struct tnum r_cast = kbpf_tnum_cast(a, size), r_sub32 = kbpf_tnum_subreg(a);
		struct tnum r_clr = kbpf_tnum_clear_subreg(a), r_ws = kbpf_tnum_with_subreg(a, b);
		uint64_t lo = rnd(), hi = rnd();
		if (rnd() % 2)
			hi = lo + (rnd() >> (rnd() % 64));
		if (lo > hi) {
			uint64_t t = lo;
			lo = hi;
			hi = t;
		}
		struct tnum r_range = kbpf_tnum_range(lo, hi);

		/* kbpf_tnum_in(a, b) means every member of b is in a. */
		if (kbpf_tnum_in(a, b))
			for (int s = 0; s < 4; s++)
				bad += !in(a, member(b));

		for (int s = 0; s < 8; s++) {
			uint64_t x = member(a), y = member(b);
			bad += !in(a, x);
			bad += !in(r_add, x + y);
			bad += !in(r_sub, x - y);
			bad += !in(r_mul, x * y);
			bad += !in(r_and, x & y);
			bad += !in(r_or, x | y);
			bad += !in(r_xor, x ^ y);
			bad += !in(r_lsh, x << k);
			bad += !in(r_rsh, x >> k);
			uint64_t sar = (x >> 63) && k ? (x >> k) | (~0ULL << (64 - k)) : x >> k;
			bad += !in(r_ars, sar);
			uint32_t x32 = (uint32_t)x;
			uint32_t sar32 = (x32 >> 31) && k32 ? (x32 >> k32) | (~0U << (32 - k32)) : x32 >> k32;
			bad += !in(r_ars32, sar32);
			bad += !in(r_cast, size == 8 ? x : x & ((1ULL << (size * 8)) - 1));
			bad += !in(r_sub32, x & 0xffffffff);
			bad += !in(r_clr, x & ~0xffffffffULL);
			bad += !in(r_ws, (x & ~0xffffffffULL) | (y & 0xffffffff));
			/* The intersection holds every common member. */
			uint64_t common = (x & ~b.mask) | (b.value & ~a.mask);
			common = (common & ~(a.mask & b.mask)) | (rnd() & a.mask & b.mask);
			if (in(a, common) && in(b, common))
				bad += !in(kbpf_tnum_intersect(a, b), common);
			/* Range. */
			uint64_t z = lo + (hi - lo ? rnd() % (hi - lo) : 0);
			bad += !in(r_range, z) + !in(r_range, lo) + !in(r_range, hi);
		}
		/* Alignment agrees with the members. */
		uint64_t al = 1ULL << (rnd() % 6);
		if (kbpf_tnum_is_aligned(a, al))
			for (int s = 0; s < 4; s++)
				bad += (member(a) & (al - 1)) != 0;
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(test_const_and_predicates);
	RUN(test_range);
	RUN(test_shifts);
	RUN(test_add_sub);
	RUN(test_mul);
	RUN(test_bitwise);
	RUN(test_intersect_cast);
	RUN(test_subreg);
	RUN(test_in_aligned);
	RUN(test_strn_sbin);
	RUN(test_exhaustive_4bit);
	RUN(test_random_soundness);
	return test_summary();
}
