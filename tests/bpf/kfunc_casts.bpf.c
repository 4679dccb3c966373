/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.12's common kfuncs bpf_cast_to_kern_ctx and bpf_rdonly_cast, as a user's object
 * calls them: `kbpf verify` and `kbpf run` register them (tests/cli/object.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

SEC("tc")
int kern_ctx(struct __sk_buff *skb)
{
	/* the run-time context itself (r0 = r1 after verification): never NULL */
	return bpf_cast_to_kern_ctx(skb) ? 7 : 3;
}

char LICENSE[] SEC("license") = "GPL";
