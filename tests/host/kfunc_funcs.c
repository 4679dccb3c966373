/* SPDX-License-Identifier: Apache-2.0 */
/* Host functions for the kfunc tests (kfunc_funcs.h). noinline: each must keep an
 * out-of-line copy with a symbol, so pahole gives it a BTF FUNC and its address is the
 * code BTF describes. */
#include <stdarg.h>
#include "kfunc_funcs.h"

#define KT __attribute__((noinline, used))

KT uint64_t kt_arg_u8(uint8_t a) { return a; }
KT int64_t kt_arg_s8(int8_t a) { return a; }
KT uint64_t kt_arg_u16(uint16_t a) { return a; }
KT int64_t kt_arg_s16(int16_t a) { return a; }
KT uint64_t kt_arg_u32(uint32_t a) { return a; }
KT int64_t kt_arg_s32(int32_t a) { return a; }
KT uint64_t kt_arg_u64(uint64_t a) { return a; }
KT uint64_t kt_arg_bool(bool a) { return a; }
KT uint8_t kt_ret_u8(uint64_t v) { return (uint8_t)v; }
KT int8_t kt_ret_s8(uint64_t v) { return (int8_t)v; }
KT uint16_t kt_ret_u16(uint64_t v) { return (uint16_t)v; }
KT int16_t kt_ret_s16(uint64_t v) { return (int16_t)v; }
KT uint32_t kt_ret_u32(uint64_t v) { return (uint32_t)v; }
KT int32_t kt_ret_s32(uint64_t v) { return (int32_t)v; }
KT bool kt_ret_bool(uint64_t v) { return v != 0; }
KT uint64_t kt_ptr_read(const uint64_t *p) { return *p; }
KT uint64_t *kt_ptr_next(uint64_t *p) { return p + 1; }
KT void kt_ptr_store(uint64_t *p, uint64_t v) { *p = v; }
KT int64_t kt_mix5(uint8_t a, int16_t b, uint32_t c, int32_t d, uint64_t e)
{
	return (int64_t)a + b + (int64_t)c + d + (int64_t)e;
}
KT uint64_t kt_sum5(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e) { return a + b + c + d + e; }
KT uint64_t kt_inc(uint64_t v) { return v + 1; }
KT uint64_t kt_pair_sum(const struct kt_pair *p) { return p->a + p->b; }
KT void kt_pair_fill(struct kt_pair *p, uint64_t v)
{
	p->a = v;
	p->b = ~v;
}

KT int kt_args6(int a, int b, int c, int d, int e, int f) { return a + b + c + d + e + f; }
KT uint64_t kt_struct_arg(struct kt_pair p) { return p.a + p.b; }
KT uint64_t kt_union_arg(union kt_either u) { return u.u; }
KT struct kt_pair kt_struct_ret(uint64_t a) { return (struct kt_pair){ a, a }; }
KT uint64_t kt_float_arg(double x) { return (uint64_t)(x * 2); }
KT float kt_float_ret(int x) { return (float)x; }
KT int kt_variadic(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
KT uint64_t kt_wide_arg(unsigned __int128 v) { return (uint64_t)(v >> 64); }
