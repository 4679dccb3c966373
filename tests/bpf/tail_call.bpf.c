// SPDX-License-Identifier: Apache-2.0
/* Tail calls through a BTF-defined PROG_ARRAY whose slots libbpf's `.values` syntax
 * fills at load: a chain entry -> step1 -> step2 (whose own tail call hits an empty
 * slot and falls through), and a program that tail-calls itself until Linux's limit of
 * 33 tail calls per run stops it. tc programs, verified at load: the state travels in
 * the context's cb[] (cb[0] = n, cb[1] = acc; kbpf run --ctx gives the bytes). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int step1(struct __sk_buff *skb);
int step2(struct __sk_buff *skb);
int again(struct __sk_buff *skb);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__array(values, int(void *));
} jmp_table SEC(".maps") = {
	.values = { [0] = (void *)&again, [1] = (void *)&step1, [2] = (void *)&step2 },
};

/* acc = (n + 10) * 2 */
SEC("tc")
int entry(struct __sk_buff *skb)
{
	skb->cb[1] = skb->cb[0];
	bpf_tail_call(skb, &jmp_table, 1);
	return -1; /* not reached: slot 1 is filled */
}

SEC("tc")
int step1(struct __sk_buff *skb)
{
	skb->cb[1] += 10;
	bpf_tail_call(skb, &jmp_table, 2);
	return -2;
}

SEC("tc")
int step2(struct __sk_buff *skb)
{
	skb->cb[1] *= 2;
	bpf_tail_call(skb, &jmp_table, 3); /* empty: falls through */
	return skb->cb[1];
}

/* runs 1 + 33 times: returns 34 when cb[0] starts at 0 */
SEC("tc")
int again(struct __sk_buff *skb)
{
	skb->cb[0]++;
	bpf_tail_call(skb, &jmp_table, 0);
	return skb->cb[0];
}

char LICENSE[] SEC("license") = "GPL";
