/* SPDX-License-Identifier: Apache-2.0 */
/* Sleepable sections (tests/cli/sleepable.sh): libbpf loads the programs of its
 * SEC_SLEEPABLE sections ("fentry.s/", "lsm.s/", "iter.s/", "syscall", …) with
 * BPF_F_SLEEPABLE, so they may call helpers that might sleep (bpf_copy_from_user); the
 * same program in a plain "fentry/" section may not. The target is a function of the kbpf
 * binary's own BTF (--host). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __always_inline int copy_one(void)
{
	char c = 0;

	/* a user address that holds nothing: the helper fails; the verdict is the point */
	return bpf_copy_from_user(&c, 1, (const void *)0) < 0 ? 0 : c;
}

SEC("fentry.s/kbpf_linux_path_name")
int sleepable_copy(void *ctx)
{
	return copy_one() & 0;
}

SEC("fentry/kbpf_linux_path_name")
int plain_copy(void *ctx)
{
	return copy_one() & 0;
}

char LICENSE[] SEC("license") = "GPL";
