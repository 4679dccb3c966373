/* SPDX-License-Identifier: Apache-2.0 */
/* Weak kfunc externs the host does not have: calls become imm 0, the address 0, so a
 * bpf_ksym_exists()-style guard skips them. A strong one in a '?' program fails the
 * load only when that program is loaded. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int kbpf_test_missing_kfunc(int x) __ksym __weak;
extern int kbpf_test_strong_kfunc(int x) __ksym;

SEC("syscall")
int weak_kfunc(void *ctx)
{
	if (kbpf_test_missing_kfunc)
		return kbpf_test_missing_kfunc(5);
	return 42;
}

SEC("?syscall")
int strong_kfunc(void *ctx)
{
	return kbpf_test_strong_kfunc(1);
}

char LICENSE[] SEC("license") = "GPL";
