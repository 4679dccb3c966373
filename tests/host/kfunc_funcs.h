/* SPDX-License-Identifier: Apache-2.0 */
/* Host functions for the kfunc tests (tests/unit/test_kfunc_*.c, bench): compiled into the
 * test binaries, which get their own BTF with kbpf_add_host_btf, so each test is the host
 * of its kfuncs. Narrow parameters and results check that a call from BPF behaves as a C
 * call; the second group are prototypes registration must refuse. */
#ifndef KBPF_TESTS_HOST_KFUNC_FUNCS_H
#define KBPF_TESTS_HOST_KFUNC_FUNCS_H

#include <stdbool.h>
#include <stdint.h>

/* each returns its argument as C converts it to 64 bits */
uint64_t kt_arg_u8(uint8_t a);
int64_t kt_arg_s8(int8_t a);
uint64_t kt_arg_u16(uint16_t a);
int64_t kt_arg_s16(int16_t a);
uint64_t kt_arg_u32(uint32_t a);
int64_t kt_arg_s32(int32_t a);
uint64_t kt_arg_u64(uint64_t a);
uint64_t kt_arg_bool(bool a);
/* each returns v converted to its result type */
uint8_t kt_ret_u8(uint64_t v);
int8_t kt_ret_s8(uint64_t v);
uint16_t kt_ret_u16(uint64_t v);
int16_t kt_ret_s16(uint64_t v);
uint32_t kt_ret_u32(uint64_t v);
int32_t kt_ret_s32(uint64_t v);
bool kt_ret_bool(uint64_t v);
/* pointers in and out */
uint64_t kt_ptr_read(const uint64_t *p);
uint64_t *kt_ptr_next(uint64_t *p);
void kt_ptr_store(uint64_t *p, uint64_t v);
/* all five registers, mixed widths: a + b + c + d + e in 64-bit arithmetic */
int64_t kt_mix5(uint8_t a, int16_t b, uint32_t c, int32_t d, uint64_t e);
uint64_t kt_sum5(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
/* the benchmark's kfunc */
uint64_t kt_inc(uint64_t v);

struct kt_pair {
	uint64_t a, b;
};
/* a pointer to a struct without pointer members: p->a + p->b; kt_pair_fill writes all
 * 16 bytes */
uint64_t kt_pair_sum(const struct kt_pair *p);
void kt_pair_fill(struct kt_pair *p, uint64_t v);

/* --- refused at registration --- */
union kt_either {
	uint64_t u;
	double d;
};
int kt_args6(int a, int b, int c, int d, int e, int f);
uint64_t kt_struct_arg(struct kt_pair p);
uint64_t kt_union_arg(union kt_either u);
struct kt_pair kt_struct_ret(uint64_t a);
uint64_t kt_float_arg(double x);
float kt_float_ret(int x);
int kt_variadic(int n, ...);
uint64_t kt_wide_arg(unsigned __int128 v);

#endif
