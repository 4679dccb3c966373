/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc externs against the test host: th_add resolves to the host's BTF id; th_mix is
 * declared with the wrong number of parameters (the load names both prototypes when its
 * program is loaded); th_missing is weak and absent. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int th_add(int a, int b) __ksym;
extern unsigned int th_mix(unsigned char a) __ksym; /* host: u32 th_mix(u8 a, s16 b, u32 c) */
extern void th_missing(void) __ksym __weak;

SEC("tc")
int add(void *ctx)
{
	if (th_missing)
		th_missing();
	return th_add(40, 2);
}

SEC("?tc")
int mix(void *ctx)
{
	return th_mix(1);
}

char LICENSE[] SEC("license") = "GPL";
