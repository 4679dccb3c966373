/* SPDX-License-Identifier: Apache-2.0 */
/* The CO-RE target of core_array.bpf.c: its BTF (given as --btf) has int a[7]. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct arr_s {
	int a[7];
	int b;
};

struct arr_s target_arr;

SEC("socket")
int keep(void *ctx)
{
	return target_arr.b;
}

char LICENSE[] SEC("license") = "GPL";
