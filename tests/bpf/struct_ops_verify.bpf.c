/* SPDX-License-Identifier: Apache-2.0 */
/* struct_ops programs that are verified at load (tests/unit/test_struct_ops_verify.c):
 * the test host registers struct kv_ops with a program type, so each program is checked
 * with the host member's prototype as its context. `kv` is the valid instance; the
 * programs marked "?" (not loaded by default) are each loaded alone to see Linux's
 * refusals. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* the host's layouts (tests/unit/test_struct_ops_verify.c) */
struct kv_sock {
	__u32 state;
	__u32 cwnd;
	struct kv_sock *peer;
};

struct kv_tcp_sock {
	struct kv_sock sk;
	__u32 snd_cwnd;
	__u32 ssthresh;
};

struct kv_sample {
	__u32 acked;
	__s32 rtt;
};

struct kv_ops {
	__u32 (*ssthresh)(struct kv_sock *sk);
	void (*acked)(struct kv_sock *sk, const struct kv_sample *s);
	__u64 (*scalars)(__u8 a, __s16 b, __u32 c, __u64 d);
	void (*release)(struct kv_sock *sk);
	__u32 (*get_info)(struct kv_sock *sk, __u32 ext, int *attr);
	__u32 flags;
	char name[16];
};

/* the object's view of a host struct whose `notfn` is data in the host */
struct kv_bad_ops {
	__u32 (*ok)(struct kv_sock *sk);
	__u64 (*notfn)(struct kv_sock *sk);
};

/* reads a field of the struct argument, no NULL check: the host passes a socket */
SEC("struct_ops/ssthresh")
__u32 BPF_PROG(kv_ssthresh, struct kv_sock *sk)
{
	return sk->cwnd / 2 + (sk->peer ? 1 : 0);
}

/* writes the promoted struct (kv_sock -> kv_tcp_sock by the type's ctx_arg_access) */
SEC("struct_ops/acked")
void BPF_PROG(kv_acked, struct kv_sock *sk, const struct kv_sample *s)
{
	struct kv_tcp_sock *tp = (struct kv_tcp_sock *)sk;

	tp->snd_cwnd += s->acked;
}

SEC("struct_ops/scalars")
__u64 BPF_PROG(kv_scalars, __u8 a, __s16 b, __u32 c, __u64 d)
{
	return a + b + c + d;
}

/* void member: nothing is returned, R0 is never set */
SEC("struct_ops/release")
void BPF_PROG(kv_release, struct kv_sock *sk)
{
	struct kv_tcp_sock *tp = (struct kv_tcp_sock *)sk;

	tp->ssthresh = 0;
}

/* --- refused ones, each loaded alone by the test --- */

/* writes the context */
SEC("?struct_ops/ssthresh")
__u32 kv_ctx_write(unsigned long long *ctx)
{
	ctx[0] = 0;
	return 1;
}

/* a helper the program type withholds from `release` (as tcp withholds bpf_setsockopt) */
SEC("?struct_ops/release")
void BPF_PROG(kv_release_helper, struct kv_sock *sk)
{
	struct kv_tcp_sock *tp = (struct kv_tcp_sock *)sk;

	tp->ssthresh = (__u32)bpf_ktime_get_ns();
}

/* the same helper from ssthresh: allowed */
SEC("?struct_ops/ssthresh")
__u32 BPF_PROG(kv_ssthresh_helper, struct kv_sock *sk)
{
	return (__u32)bpf_ktime_get_ns() + sk->cwnd;
}

/* get_info: the host's check_member vetoes it */
SEC("?struct_ops/get_info")
__u32 BPF_PROG(kv_get_info, struct kv_sock *sk, __u32 ext, int *attr)
{
	return ext;
}

/* fills `notfn`, which the host's struct has as data */
SEC("?struct_ops/notfn")
__u64 BPF_PROG(kv_notfn, struct kv_sock *sk)
{
	return 1;
}

/* one program in two members of different prototypes */
SEC("?struct_ops/twice")
__u32 kv_twice(unsigned long long *ctx)
{
	return 0;
}

SEC(".struct_ops")
struct kv_ops kv = {
	.ssthresh = (void *)kv_ssthresh,
	.acked = (void *)kv_acked,
	.scalars = (void *)kv_scalars,
	.release = (void *)kv_release,
	.flags = 3,
	.name = "kv",
};

SEC(".struct_ops")
struct kv_ops kv_refused = {
	.ssthresh = (void *)kv_ctx_write,
	.release = (void *)kv_release_helper,
	.get_info = (void *)kv_get_info,
	.name = "refused",
};

SEC(".struct_ops")
struct kv_ops kv_helper = {
	.ssthresh = (void *)kv_ssthresh_helper,
	.name = "helper",
};

SEC(".struct_ops")
struct kv_ops kv_two = {
	.ssthresh = (void *)kv_twice,
	.scalars = (void *)kv_twice,
	.name = "two",
};

SEC(".struct_ops")
struct kv_bad_ops kv_bad = {
	.notfn = (void *)kv_notfn,
};

char LICENSE[] SEC("license") = "Dual BSD/GPL";
