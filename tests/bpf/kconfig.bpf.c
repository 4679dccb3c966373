/* SPDX-License-Identifier: Apache-2.0 */
/* __kconfig externs: a host value, LINUX_KERNEL_VERSION, weak missing ones, a bool and
 * a tristate (enum libbpf_tristate, from bpf_helpers.h). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>


extern int CONFIG_HZ __kconfig;
extern unsigned int LINUX_KERNEL_VERSION __kconfig;
extern int CONFIG_KBPF_NOT_SET __kconfig __weak;
extern _Bool CONFIG_KBPF_BOOL __kconfig __weak;
extern enum libbpf_tristate CONFIG_KBPF_TRI __kconfig __weak;
extern unsigned char CONFIG_KBPF_U8 __kconfig __weak;

SEC("syscall")
int hz(void *ctx)
{
	return CONFIG_HZ;
}

SEC("syscall")
int kernel_version(void *ctx)
{
	return LINUX_KERNEL_VERSION;
}

/* 0 + 1 when nothing is set */
SEC("syscall")
int weak_missing(void *ctx)
{
	return CONFIG_KBPF_NOT_SET + 1;
}

SEC("syscall")
int others(void *ctx)
{
	return CONFIG_KBPF_BOOL * 1000 + CONFIG_KBPF_TRI * 100 + CONFIG_KBPF_U8;
}

char LICENSE[] SEC("license") = "GPL";
