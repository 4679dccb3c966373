/* SPDX-License-Identifier: Apache-2.0 */
/* The scalar domain's representation upkeep (see scalar.h): construction, the
 * consistency rules between var_off and the eight bounds, moves between the 32- and
 * 64-bit views, narrowing loads, and the log text. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "verifier/bounds_math.h"
#include "verifier/scalar.h"

/* ------------------------------------------------------------------ construction */

void kbpf_scalar_mark_known(struct scalar *s, uint64_t v)
{
	s->var_off = kbpf_tnum_const(v);
	s->smin_value = (int64_t)v;
	s->smax_value = (int64_t)v;
	s->umin_value = v;
	s->umax_value = v;
	s->s32_min_value = (int32_t)v;
	s->s32_max_value = (int32_t)v;
	s->u32_min_value = (uint32_t)v;
	s->u32_max_value = (uint32_t)v;
}

struct scalar kbpf_scalar_known(uint64_t v)
{
	struct scalar s;
	kbpf_scalar_mark_known(&s, v);
	return s;
}

void kbpf_scalar_mark_known32(struct scalar *s, uint32_t v)
{
	s->var_off = kbpf_tnum_const_subreg(s->var_off, v);
	s->s32_min_value = (int32_t)v;
	s->s32_max_value = (int32_t)v;
	s->u32_min_value = v;
	s->u32_max_value = v;
}

void kbpf_scalar_mark_unbounded64(struct scalar *s)
{
	s->smin_value = S64_MIN;
	s->smax_value = S64_MAX;
	s->umin_value = 0;
	s->umax_value = U64_MAX;
}

void kbpf_scalar_mark_unbounded32(struct scalar *s)
{
	s->s32_min_value = S32_MIN;
	s->s32_max_value = S32_MAX;
	s->u32_min_value = 0;
	s->u32_max_value = U32_MAX;
}

void kbpf_scalar_mark_unbounded(struct scalar *s)
{
	kbpf_scalar_mark_unbounded64(s);
	kbpf_scalar_mark_unbounded32(s);
}

void kbpf_scalar_mark_unknown(struct scalar *s)
{
	s->var_off = kbpf_tnum_unknown();
	kbpf_scalar_mark_unbounded(s);
}

struct scalar kbpf_scalar_unknown(void)
{
	struct scalar s;
	kbpf_scalar_mark_unknown(&s);
	return s;
}

/* ------------------------------------------------------------------ consistency */

void kbpf_scalar_update_bounds32(struct scalar *s)
{
	struct tnum v = kbpf_tnum_subreg(s->var_off);

	/* Smallest signed: sign bit set if it may be, other bits at their minimum.
	 * Largest signed: sign bit clear if it may be, other bits at their maximum. */
	s->s32_min_value = s32_max(s->s32_min_value, (int32_t)(uint32_t)(v.value | (v.mask & 0x80000000ULL)));
	s->s32_max_value = s32_min(s->s32_max_value, (int32_t)(uint32_t)(v.value | (v.mask & 0x7fffffffULL)));
	s->u32_min_value = u32_max(s->u32_min_value, (uint32_t)v.value);
	s->u32_max_value = u32_min(s->u32_max_value, (uint32_t)(v.value | v.mask));
}

void kbpf_scalar_update_bounds64(struct scalar *s)
{
	struct tnum v = s->var_off;

	s->smin_value = s64_max(s->smin_value, (int64_t)(v.value | (v.mask & (1ULL << 63))));
	s->smax_value = s64_min(s->smax_value, (int64_t)(v.value | (v.mask & ~(1ULL << 63))));
	s->umin_value = u64_max(s->umin_value, v.value);
	s->umax_value = u64_min(s->umax_value, v.value | v.mask);
}

void kbpf_scalar_update_bounds(struct scalar *s)
{
	kbpf_scalar_update_bounds32(s);
	kbpf_scalar_update_bounds64(s);
}

void kbpf_scalar_deduce_bounds32(struct scalar *s)
{
	/* 64 -> 32: when the upper halves of a 64-bit range's ends are equal, its low
	 * halves are themselves a range (as u32, and as s32 if ordered so). */
	if ((s->umin_value >> 32) == (s->umax_value >> 32)) {
		s->u32_min_value = u32_max(s->u32_min_value, (uint32_t)s->umin_value);
		s->u32_max_value = u32_min(s->u32_max_value, (uint32_t)s->umax_value);
		if ((int32_t)s->umin_value <= (int32_t)s->umax_value) {
			s->s32_min_value = s32_max(s->s32_min_value, (int32_t)s->umin_value);
			s->s32_max_value = s32_min(s->s32_max_value, (int32_t)s->umax_value);
		}
	}
	if (((uint64_t)s->smin_value >> 32) == ((uint64_t)s->smax_value >> 32)) {
		if ((uint32_t)s->smin_value <= (uint32_t)s->smax_value) {
			s->u32_min_value = u32_max(s->u32_min_value, (uint32_t)s->smin_value);
			s->u32_max_value = u32_min(s->u32_max_value, (uint32_t)s->smax_value);
		}
		if ((int32_t)s->smin_value <= (int32_t)s->smax_value) {
			s->s32_min_value = s32_max(s->s32_min_value, (int32_t)s->smin_value);
			s->s32_max_value = s32_min(s->s32_max_value, (int32_t)s->smax_value);
		}
	}
	/* Upper halves of the ends one apart (mod 2^32) with the low halves going from
	 * negative to non-negative as s32: every member's low half is in [min32, max32]
	 * read as s32 (the range crosses 0 in s32 exactly once). */
	if ((uint32_t)(s->umin_value >> 32) + 1 == (uint32_t)(s->umax_value >> 32) &&
	    (int32_t)s->umin_value < 0 && (int32_t)s->umax_value >= 0) {
		s->s32_min_value = s32_max(s->s32_min_value, (int32_t)s->umin_value);
		s->s32_max_value = s32_min(s->s32_max_value, (int32_t)s->umax_value);
	}
	if ((uint32_t)((uint64_t)s->smin_value >> 32) + 1 == (uint32_t)((uint64_t)s->smax_value >> 32) &&
	    (int32_t)s->smin_value < 0 && (int32_t)s->smax_value >= 0) {
		s->s32_min_value = s32_max(s->s32_min_value, (int32_t)s->smin_value);
		s->s32_max_value = s32_min(s->s32_max_value, (int32_t)s->smax_value);
	}
	/* u32 -> s32 when the u32 range does not cross the s32 sign boundary. */
	if ((int32_t)s->u32_min_value <= (int32_t)s->u32_max_value) {
		s->s32_min_value = s32_max(s->s32_min_value, (int32_t)s->u32_min_value);
		s->s32_max_value = s32_min(s->s32_max_value, (int32_t)s->u32_max_value);
	}
	/* s32 -> u32 when the s32 range does not cross the u32 wrap point; else, if the
	 * u32 range meets only one of the s32 range's two pieces, that piece. */
	if ((uint32_t)s->s32_min_value <= (uint32_t)s->s32_max_value) {
		s->u32_min_value = u32_max((uint32_t)s->s32_min_value, s->u32_min_value);
		s->u32_max_value = u32_min((uint32_t)s->s32_max_value, s->u32_max_value);
	} else if (s->u32_max_value < (uint32_t)s->s32_min_value) {
		/* only the non-negative piece [0, s32_max] */
		s->s32_min_value = (int32_t)s->u32_min_value;
		s->u32_max_value = u32_min(s->u32_max_value, (uint32_t)s->s32_max_value);
	} else if ((uint32_t)s->s32_max_value < s->u32_min_value) {
		/* only the negative piece [s32_min, -1] */
		s->s32_max_value = (int32_t)s->u32_max_value;
		s->u32_min_value = u32_max(s->u32_min_value, (uint32_t)s->s32_min_value);
	}
}

void kbpf_scalar_deduce_bounds64(struct scalar *s)
{
	/* u64 -> s64 when the u64 range does not cross the sign boundary. */
	if ((int64_t)s->umin_value <= (int64_t)s->umax_value) {
		s->smin_value = s64_max(s->smin_value, (int64_t)s->umin_value);
		s->smax_value = s64_min(s->smax_value, (int64_t)s->umax_value);
	}
	/* s64 -> u64 when the s64 range does not cross the u64 wrap point; else the one
	 * piece of it the u64 range meets, if only one. */
	if ((uint64_t)s->smin_value <= (uint64_t)s->smax_value) {
		s->umin_value = u64_max((uint64_t)s->smin_value, s->umin_value);
		s->umax_value = u64_min((uint64_t)s->smax_value, s->umax_value);
	} else if (s->umax_value < (uint64_t)s->smin_value) {
		s->smin_value = (int64_t)s->umin_value;
		s->umax_value = u64_min(s->umax_value, (uint64_t)s->smax_value);
	} else if ((uint64_t)s->smax_value < s->umin_value) {
		s->smax_value = (int64_t)s->umax_value;
		s->umin_value = u64_max(s->umin_value, (uint64_t)s->smin_value);
	}
}

void kbpf_scalar_deduce_mixed_bounds(struct scalar *s)
{
	/* 32 -> 64: splice the 32-bit bounds into the low halves of the 64-bit ones
	 * (keeping their upper halves), and intersect. */
	const uint64_t hi = ~0xffffffffULL;
	uint64_t umin, umax;
	int64_t smin, smax;

	umin = (s->umin_value & hi) | s->u32_min_value;
	umax = (s->umax_value & hi) | s->u32_max_value;
	s->umin_value = u64_max(s->umin_value, umin);
	s->umax_value = u64_min(s->umax_value, umax);
	smin = (int64_t)(((uint64_t)s->smin_value & hi) | s->u32_min_value);
	smax = (int64_t)(((uint64_t)s->smax_value & hi) | s->u32_max_value);
	s->smin_value = s64_max(s->smin_value, smin);
	s->smax_value = s64_min(s->smax_value, smax);
	/* the s32 bounds too, when they also form a u32 range */
	if ((uint32_t)s->s32_min_value <= (uint32_t)s->s32_max_value) {
		umin = (s->umin_value & hi) | (uint32_t)s->s32_min_value;
		umax = (s->umax_value & hi) | (uint32_t)s->s32_max_value;
		s->umin_value = u64_max(s->umin_value, umin);
		s->umax_value = u64_min(s->umax_value, umax);
		smin = (int64_t)(((uint64_t)s->smin_value & hi) | (uint32_t)s->s32_min_value);
		smax = (int64_t)(((uint64_t)s->smax_value & hi) | (uint32_t)s->s32_max_value);
		s->smin_value = s64_max(s->smin_value, smin);
		s->smax_value = s64_min(s->smax_value, smax);
	}
	/* In [S32_MIN, S32_MAX] as s64 the upper half is all ones or all zeros; all
	 * ones needs a negative low half, so a non-negative s32 range makes the value
	 * exactly its low half (the case after a sign-extending load). */
	if (s->s32_min_value >= 0 && s->smin_value >= S32_MIN && s->smax_value <= S32_MAX) {
		s->smin_value = s->s32_min_value;
		s->smax_value = s->s32_max_value;
		s->umin_value = (uint64_t)s->s32_min_value;
		s->umax_value = (uint64_t)s->s32_max_value;
		s->var_off = kbpf_tnum_intersect(s->var_off, kbpf_tnum_range((uint64_t)s->smin_value,
									  (uint64_t)s->smax_value));
	}
}

void kbpf_scalar_deduce_bounds(struct scalar *s)
{
	kbpf_scalar_deduce_bounds32(s);
	kbpf_scalar_deduce_bounds64(s);
	kbpf_scalar_deduce_mixed_bounds(s);
}

void kbpf_scalar_bound_offset(struct scalar *s)
{
	struct tnum var64 = kbpf_tnum_intersect(s->var_off, kbpf_tnum_range(s->umin_value, s->umax_value));
	struct tnum var32 = kbpf_tnum_intersect(kbpf_tnum_subreg(var64),
					   kbpf_tnum_range(s->u32_min_value, s->u32_max_value));

	s->var_off = kbpf_tnum_or(kbpf_tnum_clear_subreg(var64), var32);
}

void kbpf_scalar_bounds_sync(struct scalar *s)
{
	/* Bounds from bits, then signed<->unsigned, then bits from bounds, then once
	 * more bounds from the (possibly) improved bits. */
	kbpf_scalar_update_bounds(s);
	/* a constant whose eight bounds are that constant: every step below leaves it as
	 * it is (each intersects [v, v] with [v, v]) */
	if (kbpf_tnum_is_const(s->var_off) && !kbpf_scalar_invariant_violation(s))
		return;
	/* 6.12 runs three rounds, each can feed the next; a round that changes nothing
	 * has reached the fixed point (the rounds are a function of the state alone), so
	 * the rest are skipped with the same result */
	for (int round = 0; round < 3; round++) {
		struct scalar before = *s;
		kbpf_scalar_deduce_bounds(s);
		if (!memcmp(&before, s, sizeof(before)))
			break;
	}
	kbpf_scalar_bound_offset(s);
	kbpf_scalar_update_bounds(s);
}

void kbpf_scalar_assign_32_into_64(struct scalar *s)
{
	s->umin_value = s->u32_min_value;
	s->umax_value = s->u32_max_value;
	/* Non-negative s32 bounds are also the s64 bounds of the zero-extended value;
	 * a possibly negative low half zero-extends to [0, U32_MAX] and the tnum
	 * refines that later. */
	if (s->s32_min_value >= 0 && s->s32_max_value >= 0) {
		s->smin_value = s->s32_min_value;
		s->smax_value = s->s32_max_value;
	} else {
		s->smin_value = 0;
		s->smax_value = U32_MAX;
	}
}

void kbpf_scalar_zext_32_to_64(struct scalar *s)
{
	s->var_off = kbpf_tnum_subreg(s->var_off);
	kbpf_scalar_assign_32_into_64(s);
}

void kbpf_scalar_coerce_to_size(struct scalar *s, int size)
{
	if (size <= 0 || size >= 8)
		return;
	s->var_off = kbpf_tnum_cast(s->var_off, (uint8_t)size);

	uint64_t mask = (1ULL << (size * 8)) - 1;
	/* The truncated range is exact only if the bounds agree above the kept bytes. */
	if ((s->umin_value & ~mask) == (s->umax_value & ~mask)) {
		s->umin_value &= mask;
		s->umax_value &= mask;
	} else {
		s->umin_value = 0;
		s->umax_value = mask;
	}
	s->smin_value = (int64_t)s->umin_value;
	s->smax_value = (int64_t)s->umax_value;
	/* Below 4 bytes the low half is truncated too: its old bounds say nothing; the
	 * sync re-derives them from the 64-bit ones (6.12; 6.1 left size 4 unsynced). */
	if (size < 4)
		kbpf_scalar_mark_unbounded32(s);
	kbpf_scalar_bounds_sync(s);
}

static int64_t sext64(uint64_t v, int size)
{
	switch (size) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	default: return (int32_t)v;
	}
}

void kbpf_scalar_coerce_to_size_sx(struct scalar *s, int size)
{
	unsigned bits = (unsigned)size * 8;

	if (size <= 0 || size >= 8)
		return;
	if (kbpf_tnum_is_const(s->var_off)) {
		kbpf_scalar_mark_known(s, (uint64_t)sext64(s->var_off.value, size));
		return;
	}
	/* The ends' low bytes bound the value's only when nothing above them varies. */
	if (((uint64_t)s->smax_value >> bits) == ((uint64_t)s->smin_value >> bits)) {
		int64_t a = sext64((uint64_t)s->smax_value, size), b = sext64((uint64_t)s->smin_value, size);
		int64_t lo = a < b ? a : b, hi = a < b ? b : a;
		if ((lo >= 0) == (hi >= 0)) {
			s->smin_value = lo;
			s->smax_value = hi;
			s->umin_value = (uint64_t)lo;
			s->umax_value = (uint64_t)hi;
			s->s32_min_value = (int32_t)lo;
			s->s32_max_value = (int32_t)hi;
			s->u32_min_value = (uint32_t)lo;
			s->u32_max_value = (uint32_t)hi;
			s->var_off = kbpf_tnum_range((uint64_t)lo, (uint64_t)hi);
			return;
		}
	}
	int64_t max = size == 1 ? INT8_MAX : size == 2 ? INT16_MAX : INT32_MAX;
	s->smin_value = -max - 1;
	s->smax_value = max;
	s->s32_min_value = (int32_t)(-max - 1);
	s->s32_max_value = (int32_t)max;
	s->umin_value = 0;
	s->umax_value = UINT64_MAX;
	s->u32_min_value = 0;
	s->u32_max_value = UINT32_MAX;
	s->var_off = kbpf_tnum_unknown();
}

void kbpf_scalar_coerce_subreg_to_size_sx(struct scalar *s, int size)
{
	unsigned bits = (unsigned)size * 8;

	if (size != 1 && size != 2)
		return;
	if (kbpf_tnum_is_const(s->var_off)) {
		int32_t v = (int32_t)sext64(s->var_off.value, size);
		/* as 6.12: the whole var_off becomes the 64-bit constant, the 32-bit
		 * bounds follow; the caller's zero-extension fixes the upper half */
		s->var_off = kbpf_tnum_const((uint64_t)(int64_t)v);
		s->s32_min_value = s->s32_max_value = v;
		s->u32_min_value = s->u32_max_value = (uint32_t)v;
		return;
	}
	if (((uint32_t)s->s32_max_value >> bits) == ((uint32_t)s->s32_min_value >> bits)) {
		int32_t a = (int32_t)sext64((uint32_t)s->s32_max_value, size);
		int32_t b = (int32_t)sext64((uint32_t)s->s32_min_value, size);
		int32_t lo = a < b ? a : b, hi = a < b ? b : a;
		if ((lo >= 0) == (hi >= 0)) {
			s->s32_min_value = lo;
			s->s32_max_value = hi;
			s->u32_min_value = (uint32_t)lo;
			s->u32_max_value = (uint32_t)hi;
			s->var_off = kbpf_tnum_subreg(kbpf_tnum_range((uint64_t)(int64_t)lo, (uint64_t)(int64_t)hi));
			return;
		}
	}
	s->s32_min_value = size == 1 ? INT8_MIN : INT16_MIN;
	s->s32_max_value = size == 1 ? INT8_MAX : INT16_MAX;
	s->u32_min_value = 0;
	s->u32_max_value = UINT32_MAX;
	s->var_off = kbpf_tnum_subreg(kbpf_tnum_unknown());
}

/* ------------------------------------------------------------------ log text */

struct sbuf {
	char *buf;
	size_t size;
	size_t len;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	bool room = b->len < b->size;

	va_start(ap, fmt);
	int n = vsnprintf(room ? b->buf + b->len : NULL, room ? b->size - b->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

/* One comma-separated item: "," before all but the first. */
#define ITEM(b, first, fmt, ...)                                     \
	do {                                                         \
		sb_printf(b, "%s" fmt, *(first) ? "" : ",", __VA_ARGS__); \
		*(first) = false;                                    \
	} while (0)

/* Linux 6.12 prints small numbers in decimal and the rest as hex: signed ones in
 * [-32768, 32767], unsigned ones up to 65535 (verbose_snum/verbose_unum). */
static bool snum_decimal(int64_t v)
{
	return v >= -32768 && v <= 32767;
}

static void sb_snum(struct sbuf *b, int64_t v)
{
	if (snum_decimal(v))
		sb_printf(b, "%lld", (long long)v);
	else
		sb_printf(b, "0x%llx", (unsigned long long)v);
}

static void sb_unum(struct sbuf *b, uint64_t v)
{
	if (v <= 65535)
		sb_printf(b, "%llu", (unsigned long long)v);
	else
		sb_printf(b, "0x%llx", (unsigned long long)v);
}

/* 6.12's print_scalar_ranges: the eight bounds in the order smin smax umin umax
 * smin32 smax32 umin32 umax32, each left out at its type's default; a min (max)
 * equal to a later min (max) of the same sign takes that one's name too
 * ("smin=smin32=0"). The 32-bit signed bounds compare sign-extended when they print
 * in decimal, zero-extended when in hex. */
static void bounds_ranges(struct sbuf *b, const struct scalar *s, bool *first)
{
	struct {
		const char *name;
		uint64_t val;
		bool omit;
	} m[8] = {
		{ "smin", (uint64_t)s->smin_value, s->smin_value == S64_MIN },
		{ "smax", (uint64_t)s->smax_value, s->smax_value == S64_MAX },
		{ "umin", s->umin_value, s->umin_value == 0 },
		{ "umax", s->umax_value, s->umax_value == U64_MAX },
		{ "smin32",
		  snum_decimal(s->s32_min_value) ? (uint64_t)(int64_t)s->s32_min_value : (uint32_t)s->s32_min_value,
		  s->s32_min_value == S32_MIN },
		{ "smax32",
		  snum_decimal(s->s32_max_value) ? (uint64_t)(int64_t)s->s32_max_value : (uint32_t)s->s32_max_value,
		  s->s32_max_value == S32_MAX },
		{ "umin32", s->u32_min_value, s->u32_min_value == 0 },
		{ "umax32", s->u32_max_value, s->u32_max_value == U32_MAX },
	};

	for (int i = 0; i < 8; i++) {
		if (m[i].omit)
			continue;
		bool neg = m[i].name[0] == 's' && (int64_t)m[i].val < 0;
		sb_printf(b, "%s%s=", *first ? "" : ",", m[i].name);
		*first = false;
		for (int j = i + 2; j < 8; j += 2) {
			if (m[j].omit || m[j].val != m[i].val)
				continue;
			if ((m[j].name[0] == 's' && (int64_t)m[j].val < 0) != neg)
				continue;
			m[j].omit = true;
			sb_printf(b, "%s=", m[j].name);
		}
		if (m[i].name[0] == 's')
			sb_snum(b, (int64_t)m[i].val);
		else
			sb_unum(b, m[i].val);
	}
}

static void bounds_text(struct sbuf *b, const struct scalar *s, bool *first)
{
	if (kbpf_tnum_is_const(s->var_off)) {
		/* A pointer whose constant offset did not fit in off. */
		if (s->var_off.value) {
			sb_printf(b, "%simm=", *first ? "" : ",");
			*first = false;
			sb_snum(b, (int64_t)s->var_off.value);
		}
		return;
	}
	bounds_ranges(b, s, first);
	if (!kbpf_tnum_is_unknown(s->var_off)) {
		char t[TNUM_STR_MAX];
		kbpf_tnum_strn(t, sizeof(t), s->var_off);
		ITEM(b, first, "var_off=%s", t);
	}
}

static int num_snprint(char *buf, size_t size, uint64_t v, bool is_signed)
{
	struct sbuf b = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	if (is_signed)
		sb_snum(&b, (int64_t)v);
	else
		sb_unum(&b, v);
	return (int)b.len;
}

int kbpf_snum_snprint(char *buf, size_t size, int64_t v)
{
	return num_snprint(buf, size, (uint64_t)v, true);
}

int kbpf_unum_snprint(char *buf, size_t size, uint64_t v)
{
	return num_snprint(buf, size, v, false);
}

int kbpf_scalar_snprint_bounds(char *buf, size_t size, const struct scalar *s, bool first)
{
	struct sbuf b = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	bounds_text(&b, s, &first);
	return (int)b.len;
}

int kbpf_scalar_snprint(char *buf, size_t size, const struct scalar *s, uint32_t id)
{
	struct sbuf b = { buf, size, 0 };
	bool first = true;

	if (size)
		buf[0] = 0;
	if (kbpf_tnum_is_const(s->var_off)) {
		/* print_reg_state prints a constant scalar as just its number, even
		 * if it has an id (6.12: small ones decimal, the rest hex). */
		sb_snum(&b, (int64_t)s->var_off.value);
		return (int)b.len;
	}
	sb_printf(&b, "scalar(");
	if (id)
		ITEM(&b, &first, "id=%d", (int)id);
	bounds_text(&b, s, &first);
	sb_printf(&b, ")");
	return (int)b.len;
}
