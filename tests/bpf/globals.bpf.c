/* SPDX-License-Identifier: Apache-2.0 */
/* Global data of every kind: .data, .rodata, .bss, custom .data.foo and .rodata.bar,
 * static and global variables, a string. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int data_var = 10;
const volatile int rodata_var = 20;
int bss_var;
int foo_var SEC(".data.foo") = 5;
const volatile int bar_var SEC(".rodata.bar") = 7;
static int static_data = 3;
char str[16] = "hello";
long long big[4] = { 1, 2, 3, 4 };

/* 13 + 20 + 1 + 10 + 7 + 'e' = 152 on the first run */
SEC("tc")
int globals(void *ctx)
{
	bss_var += 1;
	data_var += static_data;
	foo_var *= 2;
	return data_var + rodata_var + bss_var + foo_var + bar_var + str[1];
}

/* reads past a variable: the array's last element through a computed index */
SEC("tc")
int sum_big(void *ctx)
{
	long long s = 0;
	for (int i = 0; i < 4; i++)
		s += big[i];
	return (int)s;
}

/* Writes .rodata, which programs may not: checked mode stops it. Not autoloaded. */
SEC("?tc")
int write_rodata(void *ctx)
{
	*(volatile int *)&rodata_var = 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
