/* SPDX-License-Identifier: Apache-2.0 */
/* struct_ops programs with arguments of mixed widths (tests/unit/test_struct_ops.c): the
 * host calls them through the C function pointers of its struct kt_mixed_ops, whose
 * trampolines store each argument zero/sign-extended into ctx[]. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

struct kt_mixed_ops {
	__u64 (*mix)(__u8 a, __s16 b, __u32 c, __s64 d, __u64 *p);
	__s16 (*neg)(__s16 x);
	__u8 (*low)(__u64 v);
	void (*store)(__u64 *p, __u32 v);
	__s32 (*six)(__s8 a, __u16 b, __s32 c, __u8 d, __s16 e, __u32 f);
	__u64 (*unused)(__u64 v);
	__u32 flags;
	char name[16];
};

/* ctx[] holds each argument as the trampoline extended it: the sum shows any bit wrong */
SEC("struct_ops/mix")
__u64 mix(unsigned long long *ctx)
{
	return ctx[0] + ctx[1] + ctx[2] + ctx[3] + *(__u64 *)ctx[4];
}

SEC("struct_ops/neg")
__u64 neg(unsigned long long *ctx)
{
	return -ctx[0]; /* the trampoline narrows R0 to s16 */
}

SEC("struct_ops/low")
__u64 low(unsigned long long *ctx)
{
	return ctx[0]; /* narrowed to u8 */
}

SEC("struct_ops/store")
__u64 store(unsigned long long *ctx)
{
	*(__u64 *)ctx[0] = ctx[1];
	return 0;
}

SEC("struct_ops/six")
__u64 six(unsigned long long *ctx)
{
	return (ctx[0] ^ ctx[1] << 1) + ctx[2] * 3 + ctx[3] + (ctx[4] << 2) + ctx[5];
}

SEC(".struct_ops")
struct kt_mixed_ops mixed_ops = {
	.mix = (void *)mix,
	.neg = (void *)neg,
	.low = (void *)low,
	.store = (void *)store,
	.six = (void *)six,
	.flags = 7,
	.name = "mixed",
};

char LICENSE[] SEC("license") = "GPL";
