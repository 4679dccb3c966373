// SPDX-License-Identifier: Apache-2.0
// ESCAPE: cgroup_skb writes its read-only packet through a global function argument.
// clang-19 -target bpf -O2 -g -I/usr/include/x86_64-linux-gnu -c global_arg_rdonly_packet.bpf.c -o /tmp/ro.o
// kbpf verify /tmp/ro.o  -> "ro_write: safe as cgroup_skb" (should be refused)
// kbpf run [--jit|--checked] --packet pkt.bin /tmp/ro.o -> packet bytes 14..21 become 41
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__attribute__((noinline)) int f(long *p)
{
	if (p)
		*p = 0x4141414141414141;
	return 0;
}

SEC("cgroup_skb/ingress")
int ro_write(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 8 > end)
		return 1;
	f(data);
	return 1;
}
char LICENSE[] SEC("license") = "GPL";
