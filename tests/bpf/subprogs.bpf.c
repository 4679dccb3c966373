/* SPDX-License-Identifier: Apache-2.0 */
/* Subprograms (static and global, nested), several programs per section, a '?'
 * section, and program types guessed from section names. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __noinline int static_add(int a, int b)
{
	return a + b;
}

__noinline int global_mul(int a, int b)
{
	return a * b;
}

static __noinline int nested(int x)
{
	return static_add(x, 1) * 2;
}

SEC("tc")
int calls_static(void *ctx)
{
	return static_add(40, 2);
}

SEC("tc")
int calls_global(void *ctx)
{
	return global_mul(6, 7);
}

SEC("xdp")
int calls_nested(void *ctx)
{
	return nested(20) + global_mul(3, 0);
}

SEC("?socket")
int not_autoloaded(void *ctx)
{
	return 7;
}

SEC("kprobe/do_sys_open")
int probe(void *ctx)
{
	return static_add(1, 2) + nested(0);
}

SEC("my_custom_section")
int unknown_type(void *ctx)
{
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
