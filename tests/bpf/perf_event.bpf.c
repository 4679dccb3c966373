// SPDX-License-Identifier: Apache-2.0
/* bpf_perf_event_output into a BTF-defined PERF_EVENT_ARRAY written as libbpf's examples
 * write it (key_size/value_size, no max_entries: the loader makes it one slot per CPU).
 * tc and xdp programs: a struct event to this CPU's slot; with_packet also appends the
 * packet's first 4 bytes (BPF_F_CTXLEN_MASK); bad_flags and bad_index get Linux's
 * errnos back and return them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

struct event {
	__u32 kind;
	__u32 len;
};

SEC("tc")
int tc_event(struct __sk_buff *skb)
{
	struct event e = { .kind = 5, .len = skb->len };

	bpf_perf_event_output(skb, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 1;
}

SEC("tc")
int with_packet(struct __sk_buff *skb)
{
	struct event e = { .kind = 6, .len = skb->len };
	__u64 flags = BPF_F_CURRENT_CPU | ((__u64)4 << 32);

	return bpf_perf_event_output(skb, &events, flags, &e, sizeof(e));
}

SEC("xdp")
int xdp_event(struct xdp_md *ctx)
{
	struct event e = { .kind = 7, .len = (__u32)(ctx->data_end - ctx->data) };
	__u64 flags = BPF_F_CURRENT_CPU | ((__u64)2 << 32);

	bpf_perf_event_output(ctx, &events, flags, &e, sizeof(e));
	return XDP_PASS;
}

/* a bit outside BPF_F_INDEX_MASK and BPF_F_CTXLEN_MASK: -EINVAL */
SEC("tc")
int bad_flags(struct __sk_buff *skb)
{
	struct event e = { 0 };

	return bpf_perf_event_output(skb, &events, 1ULL << 62, &e, sizeof(e));
}

/* a slot far beyond max_entries: -E2BIG */
SEC("tc")
int bad_index(struct __sk_buff *skb)
{
	struct event e = { 0 };

	return bpf_perf_event_output(skb, &events, 100000, &e, sizeof(e));
}

char LICENSE[] SEC("license") = "GPL";
