/* SPDX-License-Identifier: Apache-2.0 */
/* What the scalar domain's tests compare it with: membership of a concrete value in an
 * abstract state, and the machine's result of an ALU op and of a conditional jump. */
#ifndef KBPF_TEST_SCALAR_ORACLE_H
#define KBPF_TEST_SCALAR_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "verifier/scalar.h"

/* Is x a member of s (all five descriptions)? */
static bool contains(const struct scalar *s, uint64_t x)
{
	uint32_t x32 = (uint32_t)x;
	return kbpf_tnum_in(s->var_off, kbpf_tnum_const(x)) && s->umin_value <= x && x <= s->umax_value &&
	       s->smin_value <= (int64_t)x && (int64_t)x <= s->smax_value && s->u32_min_value <= x32 &&
	       x32 <= s->u32_max_value && s->s32_min_value <= (int32_t)x32 &&
	       (int32_t)x32 <= s->s32_max_value;
}

/* The machine's result of an ALU insn (RFC 9669; DIV/MOD by 0 as Linux patches
 * them: x/0 = 0, x%0 = x). Shift counts are masked like the interpreter does; the
 * domain makes such shifts unknown anyway. */
static uint64_t concrete_alu(uint8_t op, bool alu32, uint64_t d, uint64_t s)
{
	if (alu32) {
		uint32_t a = (uint32_t)d, b = (uint32_t)s, r;
		switch (op) {
		case BPF_ADD: r = a + b; break;
		case BPF_SUB: r = a - b; break;
		case BPF_MUL: r = a * b; break;
		case BPF_DIV: r = b ? a / b : 0; break;
		case BPF_MOD: r = b ? a % b : a; break;
		case BPF_OR: r = a | b; break;
		case BPF_AND: r = a & b; break;
		case BPF_XOR: r = a ^ b; break;
		case BPF_LSH: r = a << (b & 31); break;
		case BPF_RSH: r = a >> (b & 31); break;
		case BPF_ARSH: {
			unsigned k = b & 31;
			r = (a >> 31) && k ? (a >> k) | (~0U << (32 - k)) : a >> k;
			break;
		}
		case BPF_NEG: r = 0 - a; break;
		case BPF_MOV: r = b; break;
		default: return __builtin_bswap64(d); /* END: anything goes */
		}
		return r;
	}
	switch (op) {
	case BPF_ADD: return d + s;
	case BPF_SUB: return d - s;
	case BPF_MUL: return d * s;
	case BPF_DIV: return s ? d / s : 0;
	case BPF_MOD: return s ? d % s : d;
	case BPF_OR: return d | s;
	case BPF_AND: return d & s;
	case BPF_XOR: return d ^ s;
	case BPF_LSH: return d << (s & 63);
	case BPF_RSH: return d >> (s & 63);
	case BPF_ARSH: {
		unsigned k = s & 63;
		return (d >> 63) && k ? (d >> k) | (~0ULL << (64 - k)) : d >> k;
	}
	case BPF_NEG: return 0 - d;
	case BPF_MOV: return s;
	default: return __builtin_bswap64(d);
	}
}

static bool concrete_cmp(uint8_t op, bool jmp32, uint64_t a, uint64_t b)
{
	if (jmp32) {
		uint32_t x = (uint32_t)a, y = (uint32_t)b;
		switch (op) {
		case BPF_JEQ: return x == y;
		case BPF_JNE: return x != y;
		case BPF_JSET: return x & y;
		case BPF_JGT: return x > y;
		case BPF_JGE: return x >= y;
		case BPF_JLT: return x < y;
		case BPF_JLE: return x <= y;
		case BPF_JSGT: return (int32_t)x > (int32_t)y;
		case BPF_JSGE: return (int32_t)x >= (int32_t)y;
		case BPF_JSLT: return (int32_t)x < (int32_t)y;
		case BPF_JSLE: return (int32_t)x <= (int32_t)y;
		}
		return false;
	}
	switch (op) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JSET: return a & b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case BPF_JLT: return a < b;
	case BPF_JLE: return a <= b;
	case BPF_JSGT: return (int64_t)a > (int64_t)b;
	case BPF_JSGE: return (int64_t)a >= (int64_t)b;
	case BPF_JSLT: return (int64_t)a < (int64_t)b;
	case BPF_JSLE: return (int64_t)a <= (int64_t)b;
	}
	return false;
}

#endif
