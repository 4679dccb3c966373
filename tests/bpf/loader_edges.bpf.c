/* SPDX-License-Identifier: Apache-2.0 */
/* Edges of the loader (tests/unit/test_object.c): an ld_imm64 left in the fd form
 * without a relocation (Linux's selftests write them raw: "invalid map_fd for function
 * call"), and a program whose level-1 verifier log outgrows the object's log. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, long long);
	__type(value, long long);
} map SEC(".maps");

/* r1 = ld_imm64 BPF_PSEUDO_MAP_FD 0, no relocation: fd 0, not the object's map */
SEC("socket")
__attribute__((naked)) int raw_map_fd(void)
{
	asm volatile("r2 = 0;"
		     "*(u64 *)(r10 - 8) = r2;"
		     "r2 = r10;"
		     "r2 += -8;"
		     ".8byte 0x1118;"
		     ".8byte 0;"
		     "call 3;" /* bpf_map_delete_elem */
		     "exit;" ::: "memory");
}

/* a loop the walk cannot bound: 1M insns, a line each at log level 1 */
SEC("tracepoint")
__attribute__((naked)) int too_large(void)
{
	asm volatile("r0 = 5;"
		     "if r0 < 4 goto 2f;"
		     "1: r0 += 1;"
		     "goto 1b;"
		     "2: exit;" ::: "memory");
}

/* uses the map through a relocation: loads */
SEC("socket")
int uses_map(void *ctx)
{
	long long key = 0;

	bpf_map_delete_elem(&map, &key);
	return 0;
}

char _license[] SEC("license") = "GPL";
