/* SPDX-License-Identifier: Apache-2.0 */
/* A strong __kconfig extern the host does not set: load fails, naming it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int CONFIG_KBPF_STRONG_MISSING __kconfig;

SEC("syscall")
int strong(void *ctx)
{
	return CONFIG_KBPF_STRONG_MISSING;
}

char LICENSE[] SEC("license") = "GPL";
