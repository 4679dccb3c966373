/* SPDX-License-Identifier: Apache-2.0 */
/* One object, three socket filters: `good`, `bad` (calls a helper no kernel has) and
 * `ldabs` (Linux's legacy packet load). `kbpf verify FILE.o PROG` and `kbpf run FILE.o
 * PROG` touch only PROG, as libbpf loads with autoload off for the others; the object as
 * a whole does not load (tests/cli/object_prog.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("socket")
int good(struct __sk_buff *skb)
{
	return 1;
}

static long (*no_such_helper)(void) = (void *)9999;

SEC("socket")
int bad(struct __sk_buff *skb)
{
	return no_such_helper();
}

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");

/* the first byte after the Ethernet header (a socket filter's packet starts there) */
SEC("socket")
int ldabs(struct __sk_buff *skb)
{
	return load_byte(skb, 0);
}

char LICENSE[] SEC("license") = "GPL";
