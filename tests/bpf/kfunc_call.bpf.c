/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls from clang-compiled code into the kfunc test host (tests/host/kfunc_funcs.c,
 * registered by tests/unit/test_kfunc_call.c): narrow and signed arguments and results,
 * pointers to the program's stack. old_abi was "compiled against an older host" whose
 * kt_sum5 took two parameters: loading it must fail naming both prototypes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern __u64 kt_arg_u8(__u8 a) __ksym;
extern __s64 kt_arg_s8(__s8 a) __ksym;
extern __s16 kt_ret_s16(__u64 v) __ksym;
extern __s64 kt_mix5(__u8 a, __s16 b, __u32 c, __s32 d, __u64 e) __ksym;
extern __u64 kt_ptr_read(const __u64 *p) __ksym;
extern void kt_ptr_store(__u64 *p, __u64 v) __ksym;

SEC("tc")
int call_kfuncs(void *ctx)
{
	__u64 x = 0;
	__s64 r;

	kt_ptr_store(&x, 40);
	r = kt_ptr_read(&x);        /* 40 */
	r += kt_arg_s8(-3);         /* 37 */
	r += kt_ret_s16(0x1fffe);   /* (s16)0xfffe = -2: 35 */
	r += kt_mix5(1, -2, 3, -4, 7); /* 5: 40 */
	r += kt_arg_u8(2);          /* 42 */
	return r;
}

/* the host now has u64 kt_sum5(u64 a, u64 b, u64 c, u64 d, u64 e) */
extern __u64 kt_sum5(__u64 a, __u64 b) __ksym;

SEC("?tc")
int old_abi(void *ctx)
{
	return kt_sum5(1, 2);
}

char LICENSE[] SEC("license") = "GPL";
