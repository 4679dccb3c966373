/* SPDX-License-Identifier: Apache-2.0 */
/* A struct_ops program under a licence that is not GPL-compatible (Linux's
 * bpf_tcp_nogpl.c, for the test host's struct kv_ops): refused at load with Linux's
 * "struct ops programs must have a GPL compatible license". */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

struct kv_ops {
	__u32 (*ssthresh)(void *sk);
	char name[16];
};

SEC("struct_ops/ssthresh")
__u32 kv_nogpl_ssthresh(unsigned long long *ctx)
{
	return 2;
}

SEC(".struct_ops")
struct kv_ops kv_nogpl = {
	.ssthresh = (void *)kv_nogpl_ssthresh,
	.name = "nogpl",
};

char LICENSE[] SEC("license") = "X";
