/* SPDX-License-Identifier: Apache-2.0 */
/* The scalar domain (src/verifier/scalar*.c) checked by enumeration: abstract states
 * whose members fit in a small window (up to WINDOW values, placed around the points
 * where the 32/64-bit and signed/unsigned views part: 0, 2^31, 2^32, 2^63, -1, ...),
 * and for each every member, not a sample of them:
 *  - bounds_sync and each deduction keeps every member;
 *  - for every ALU op the domain tracks and both widths, each concrete result of every
 *    pair of members is a member of the abstract result;
 *  - for every conditional jump, both widths: is_branch_taken never contradicts a pair
 *    of members, the refined taken/fall-through states hold every pair that goes that
 *    way (both registers, and a register compared with itself), and a side some pair
 *    reaches passes 6.12's register-invariant check (a false "REG INVARIANTS
 *    VIOLATION" would refuse a correct program under BPF_F_TEST_REG_INVARIANTS).
 * A fixed seed; the states are built from random sets of values and loosened at random,
 * so they are not only the tightest ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "test.h"
#include "verifier/scalar.h"
#include "scalar_oracle.h"

#define WINDOW 64    /* a generated set spans at most this many values */
#define MAX_MEMBERS 40 /* members enumerated per state (evenly spread if more) */
#define ENUM_LIMIT 4096 /* states with more candidates than this are skipped */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}


static const uint64_t centers[] = {
	0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0x17fffffffULL, 0x180000000ULL,
	0x1ffffffffULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL, 0xffffffffffffffffULL,
	0xffffffff80000000ULL, 0xffffffff7fffffffULL, 0xfffffffeffffffffULL, 0x7fffffff80000000ULL,
	0x12345678fffffff0ULL, 0xfffffff0fffffff0ULL,
};

/* widen a bound by a random amount, saturating */
static uint64_t down_u(uint64_t v, uint64_t lo)
{
	uint64_t d = rnd() % 4 ? rnd() % 100 : rnd();
	return v - lo < d ? lo : v - d;
}

static uint64_t up_u(uint64_t v, uint64_t hi)
{
	uint64_t d = rnd() % 4 ? rnd() % 100 : rnd();
	return hi - v < d ? hi : v + d;
}

/* A state holding every value of set[0..n), built tight and then loosened. */
static struct scalar state_of(const uint64_t *set, int n)
{
	struct scalar s;
	uint64_t and_all = ~0ULL, or_all = 0;
	s.umin_value = UINT64_MAX, s.umax_value = 0;
	s.smin_value = INT64_MAX, s.smax_value = INT64_MIN;
	s.u32_min_value = UINT32_MAX, s.u32_max_value = 0;
	s.s32_min_value = INT32_MAX, s.s32_max_value = INT32_MIN;
	for (int i = 0; i < n; i++) {
		uint64_t x = set[i];
		and_all &= x, or_all |= x;
		if (x < s.umin_value) s.umin_value = x;
		if (x > s.umax_value) s.umax_value = x;
		if ((int64_t)x < s.smin_value) s.smin_value = (int64_t)x;
		if ((int64_t)x > s.smax_value) s.smax_value = (int64_t)x;
		if ((uint32_t)x < s.u32_min_value) s.u32_min_value = (uint32_t)x;
		if ((uint32_t)x > s.u32_max_value) s.u32_max_value = (uint32_t)x;
		if ((int32_t)x < s.s32_min_value) s.s32_min_value = (int32_t)x;
		if ((int32_t)x > s.s32_max_value) s.s32_max_value = (int32_t)x;
	}
	s.var_off = (struct tnum){ .value = and_all, .mask = and_all ^ or_all };
	/* loosen: each description on its own, so they disagree the way real states do */
	if (rnd() % 3 == 0) {
		uint64_t m = rnd() % 2 ? (1ULL << (rnd() % 64)) - 1 : rnd() & rnd();
		s.var_off.mask |= m;
		s.var_off.value &= ~s.var_off.mask;
	}
	if (rnd() % 3 == 0) s.umin_value = down_u(s.umin_value, 0);
	if (rnd() % 3 == 0) s.umax_value = up_u(s.umax_value, UINT64_MAX);
	if (rnd() % 3 == 0)
		s.smin_value = (int64_t)(down_u((uint64_t)s.smin_value ^ (1ULL << 63), 0) ^ (1ULL << 63));
	if (rnd() % 3 == 0)
		s.smax_value = (int64_t)(up_u((uint64_t)s.smax_value ^ (1ULL << 63), UINT64_MAX) ^ (1ULL << 63));
	if (rnd() % 3 == 0) s.u32_min_value = (uint32_t)down_u(s.u32_min_value, 0);
	if (rnd() % 3 == 0) s.u32_max_value = (uint32_t)up_u(s.u32_max_value, UINT32_MAX);
	if (rnd() % 3 == 0)
		s.s32_min_value = (int32_t)((uint32_t)down_u((uint32_t)s.s32_min_value ^ 0x80000000u, 0) ^ 0x80000000u);
	if (rnd() % 3 == 0)
		s.s32_max_value = (int32_t)((uint32_t)up_u((uint32_t)s.s32_max_value ^ 0x80000000u, UINT32_MAX) ^
					    0x80000000u);
	if (rnd() % 8 == 0)
		kbpf_scalar_mark_unbounded64(&s);
	if (rnd() % 8 == 0)
		kbpf_scalar_mark_unbounded32(&s);
	return s;
}

/* Every member of s, by walking the shorter of its u64 and s64 ranges; -1 if both are
 * too long. Evenly thinned to MAX_MEMBERS, keeping the first and the last. */
static int members(const struct scalar *s, uint64_t *out)
{
	uint64_t ulen = s->umax_value - s->umin_value, slen = (uint64_t)s->smax_value - (uint64_t)s->smin_value;
	uint64_t start = ulen <= slen ? s->umin_value : (uint64_t)s->smin_value, len = ulen <= slen ? ulen : slen;
	static uint64_t all[ENUM_LIMIT];
	int n = 0;

	if (len >= ENUM_LIMIT)
		return -1;
	for (uint64_t i = 0; i <= len; i++)
		if (contains(s, start + i))
			all[n++] = start + i;
	if (n <= MAX_MEMBERS) {
		for (int i = 0; i < n; i++)
			out[i] = all[i];
		return n;
	}
	for (int i = 0; i < MAX_MEMBERS; i++)
		out[i] = all[(uint64_t)i * (uint64_t)(n - 1) / (MAX_MEMBERS - 1)];
	return MAX_MEMBERS;
}

/* A random window set, its state (synced), and the state's members. */
static bool gen(struct scalar *s, uint64_t *mem, int *nmem)
{
	uint64_t set[8];
	int n = 1 + (int)(rnd() % 6);
	uint64_t base = centers[rnd() % (sizeof(centers) / sizeof(centers[0]))] + rnd() % WINDOW - WINDOW / 2;

	for (int i = 0; i < n; i++)
		set[i] = base + rnd() % WINDOW;
	*s = state_of(set, n);
	struct scalar raw = *s;
	kbpf_scalar_bounds_sync(s);
	*nmem = members(s, mem);
	if (*nmem < 0)
		return false;
	/* the sync kept the set, and kept every member of the unsynced state that the
	 * window holds */
	for (int i = 0; i < n; i++)
		CHECK(contains(s, set[i]));
	for (uint64_t x = base; x != base + 2 * WINDOW; x++)
		if (contains(&raw, x) && !contains(s, x)) {
			fprintf(stderr, "sync lost 0x%llx\n", (unsigned long long)x);
			test_failed_now = 1;
			break;
		}
	return true;
}



static int budget = 10;

static void report(const char *what, uint8_t op, bool w32, const struct scalar *a, const struct scalar *b,
		   uint64_t x, uint64_t y, const struct scalar *r)
{
	char sa[256], sb[256], sr[256];

	test_failed_now = 1;
	if (budget-- <= 0)
		return;
	kbpf_scalar_snprint(sa, sizeof(sa), a, 0);
	kbpf_scalar_snprint(sb, sizeof(sb), b, 0);
	kbpf_scalar_snprint(sr, sizeof(sr), r, 0);
	fprintf(stderr, "%s op 0x%x%s: %s (0x%llx) vs %s (0x%llx): %s\n", what, op, w32 ? " (32)" : "", sa,
		(unsigned long long)x, sb, (unsigned long long)y, sr);
}

static const uint8_t alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_AND, BPF_OR, BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH };
static const uint8_t jmp_ops[] = { BPF_JEQ, BPF_JNE, BPF_JSET, BPF_JGT, BPF_JGE, BPF_JLT,
				   BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE };

static void test_sync_exhaustive(void)
{
	uint64_t mem[MAX_MEMBERS];
	int n, done = 0;

	for (int it = 0; it < 20000; it++) {
		struct scalar s;
		if (!gen(&s, mem, &n))
			continue;
		done++;
		/* a synced state with a member is consistent, and a further sync or any
		 * single deduction keeps every member */
		if (n > 0 && kbpf_scalar_invariant_violation(&s))
			report("synced state violates invariants", 0, false, &s, &s, mem[0], mem[0], &s);
		/* the steps bounds_sync skips for a constant leave every constant as it is */
		for (int i = 0; i < n; i++) {
			struct scalar k = kbpf_scalar_known(mem[i]), c = k;
			kbpf_scalar_deduce_bounds(&c);
			kbpf_scalar_bound_offset(&c);
			kbpf_scalar_update_bounds(&c);
			if (memcmp(&c, &k, sizeof(k)))
				report("a constant changed in the sync", 0, false, &k, &k, mem[i], mem[i], &c);
		}
		struct scalar c[4] = { s, s, s, s };
		kbpf_scalar_bounds_sync(&c[0]);
		kbpf_scalar_deduce_bounds32(&c[1]);
		kbpf_scalar_deduce_bounds64(&c[2]);
		kbpf_scalar_deduce_mixed_bounds(&c[3]);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < 4; k++)
				if (!contains(&c[k], mem[i]))
					report("deduction lost a member", (uint8_t)k, false, &s, &s, mem[i], mem[i], &c[k]);
	}
	CHECK(done > 10000);
}

static void test_alu_exhaustive(void)
{
	uint64_t dm[MAX_MEMBERS], sm[MAX_MEMBERS];
	int dn, sn, tracked = 0;

	for (int it = 0; it < 6000; it++) {
		struct scalar d, s;
		uint8_t op = alu_ops[rnd() % (sizeof(alu_ops) / sizeof(alu_ops[0]))];
		bool alu32 = rnd() % 2;
		if (!gen(&d, dm, &dn) || !dn)
			continue;
		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) {
			/* a shift count in range: constant (tracked) or a small range */
			uint64_t set[2] = { rnd() % (alu32 ? 32 : 64), 0 };
			set[1] = rnd() % 2 ? set[0] : set[0] + rnd() % 3;
			s = state_of(set, 2);
			kbpf_scalar_bounds_sync(&s);
			sn = members(&s, sm);
			if (sn <= 0)
				continue;
		} else if (!gen(&s, sm, &sn) || !sn) {
			continue;
		}
		struct scalar r = d;
		kbpf_scalar_alu(&r, &s, op, alu32);
		tracked += !kbpf_tnum_is_unknown(r.var_off);
		if (kbpf_scalar_invariant_violation(&r))
			report("ALU result violates invariants", op, alu32, &d, &s, dm[0], sm[0], &r);
		for (int i = 0; i < dn; i++)
			for (int j = 0; j < sn; j++) {
				uint64_t v = concrete_alu(op, alu32, dm[i], sm[j]);
				if (!contains(&r, v))
					report("ALU result lost a value", op, alu32, &d, &s, dm[i], sm[j], &r);
			}
	}
	CHECK(tracked > 2000);
}

static void test_jmp_exhaustive(void)
{
	uint64_t am[MAX_MEMBERS], bm[MAX_MEMBERS];
	int an, bn, decided = 0, refined = 0;

	for (int it = 0; it < 8000; it++) {
		struct scalar a, b;
		uint8_t op = jmp_ops[rnd() % (sizeof(jmp_ops) / sizeof(jmp_ops[0]))];
		bool jmp32 = rnd() % 2;
		if (!gen(&a, am, &an) || !an)
			continue;
		if (rnd() % 3 == 0) {
			/* a constant: a member of a, or next to one */
			b = kbpf_scalar_known(am[rnd() % an] + rnd() % 3 - 1);
			bn = 1, bm[0] = b.var_off.value;
		} else if (!gen(&b, bm, &bn) || !bn) {
			continue;
		}
		int pred = kbpf_scalar_branch_taken_regs(&a, &b, op, jmp32);
		decided += pred >= 0;
		struct scalar ta = a, tb = b, fa = a, fb = b;
		bool reach_t = false, reach_f = false;
		if (pred < 0)
			kbpf_scalar_refine_cond(&ta, &tb, &fa, &fb, op, jmp32);
		for (int i = 0; i < an; i++)
			for (int j = 0; j < bn; j++) {
				bool taken = concrete_cmp(op, jmp32, am[i], bm[j]);
				if ((pred == 1 && !taken) || (pred == 0 && taken)) {
					report("is_branch_taken lied", op, jmp32, &a, &b, am[i], bm[j], &a);
					continue;
				}
				if (pred >= 0)
					continue;
				reach_t |= taken, reach_f |= !taken;
				const struct scalar *sa = taken ? &ta : &fa, *sb = taken ? &tb : &fb;
				if (!contains(sa, am[i]) || !contains(sb, bm[j]))
					report(taken ? "taken side lost a pair" : "fall-through lost a pair", op, jmp32, &a, &b,
					       am[i], bm[j], contains(sa, am[i]) ? sb : sa);
			}
		refined += reach_t && reach_f;
		/* a side a pair reaches is a state with a member: no invariant violation */
		if (reach_t && (kbpf_scalar_invariant_violation(&ta) || kbpf_scalar_invariant_violation(&tb)))
			report("reachable taken side violates invariants", op, jmp32, &a, &b, am[0], bm[0],
			       kbpf_scalar_invariant_violation(&ta) ? &ta : &tb);
		if (reach_f && (kbpf_scalar_invariant_violation(&fa) || kbpf_scalar_invariant_violation(&fb)))
			report("reachable fall-through violates invariants", op, jmp32, &a, &b, am[0], bm[0],
			       kbpf_scalar_invariant_violation(&fa) ? &fa : &fb);

		/* the register compared with itself */
		if (kbpf_scalar_branch_taken_regs(&a, &a, op, jmp32) < 0) {
			struct scalar t = a, f = a;
			kbpf_scalar_refine_cond(&t, &t, &f, &f, op, jmp32);
			for (int i = 0; i < an; i++) {
				bool taken = concrete_cmp(op, jmp32, am[i], am[i]);
				if (!contains(taken ? &t : &f, am[i]))
					report("self compare lost a value", op, jmp32, &a, &a, am[i], am[i], taken ? &t : &f);
			}
		}
	}
	CHECK(decided > 1000);
	CHECK(refined > 1000);
}

int main(void)
{
	RUN(test_sync_exhaustive);
	RUN(test_alu_exhaustive);
	RUN(test_jmp_exhaustive);
	return test_summary();
}
