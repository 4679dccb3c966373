/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_perf_event_output (helper 25) and its per-type functions, with Linux 6.1's
 * semantics, writing to a BPF_MAP_TYPE_PERF_EVENT_ARRAY through kbpf_perf_event_output.
 *
 * Linux gives one helper id a different function per program type:
 *  - bpf_event_output_data (sock_ops, sk_msg, the cgroup types…) and the tracing
 *    types' bpf_perf_event_output: flags are the slot index only;
 *  - bpf_skb_event_output (the __sk_buff types) and bpf_xdp_event_output (xdp): flags
 *    may also ask, in BPF_F_CTXLEN_MASK, for that many packet bytes after the data.
 * kbpf's run-time helpers are per host, not per type, so the __sk_buff and xdp types
 * verify helper 25 with a proto whose run_id is Linux's bpf_skb_output (111) or
 * bpf_xdp_output (121): the helpers whose function in Linux is that very
 * bpf_skb_event_output / bpf_xdp_event_output.  The verifier's rewrite makes the call
 * run as that id, on a struct kbpf_linux_skb / kbpf_linux_xdp context. */
#include <errno.h>
#include <kbpf/map.h>
#include "linux_internal.h"

#define MAP(r) ((struct kbpf_map *)(uintptr_t)(r))
#define PTR(r) ((const void *)(uintptr_t)(r))
#define ERR(e) ((uint64_t)(int64_t)(e))

/* bpf_event_output_data / bpf_perf_event_output(ctx, map, flags, data, size). */
KBPF_LINUX_HELPER(perf_event_output)
{
	(void)r1;
	if (r3 & ~(uint64_t)BPF_F_INDEX_MASK)
		return ERR(-EINVAL);
	return ERR(kbpf_perf_event_output(MAP(r2), r3, PTR(r4), r5, NULL, 0));
}

/* The packet bytes a CTXLEN asks for: the packet is linear in kbpf (no fragments), so
 * they are the first ones from data; -EFAULT beyond its end, as Linux. */
static uint64_t output_with_packet(uint64_t map, uint64_t flags, uint64_t data, uint64_t size,
				   const uint8_t *pkt, const uint8_t *pkt_end)
{
	uint64_t ctx_len = (flags & BPF_F_CTXLEN_MASK) >> 32;

	if (flags & ~(uint64_t)(BPF_F_CTXLEN_MASK | BPF_F_INDEX_MASK))
		return ERR(-EINVAL);
	if (!pkt || ctx_len > (uint64_t)(pkt_end - pkt))
		return ERR(-EFAULT);
	return ERR(kbpf_perf_event_output(MAP(map), flags & BPF_F_INDEX_MASK, PTR(data), size, pkt, ctx_len));
}

/* Linux's bpf_skb_event_output(skb, map, flags, meta, meta_size). */
KBPF_LINUX_HELPER(skb_event_output)
{
	const struct kbpf_linux_skb *skb = PTR(r1);

	if (!skb)
		return ERR(-EFAULT);
	return output_with_packet(r2, r3, r4, r5, skb->data, skb->data_end);
}

/* Linux's bpf_xdp_event_output(xdp, map, flags, meta, meta_size). */
KBPF_LINUX_HELPER(xdp_event_output)
{
	const struct kbpf_linux_xdp *xdp = PTR(r1);

	if (!xdp)
		return ERR(-EFAULT);
	return output_with_packet(r2, r3, r4, r5, xdp->data, xdp->data_end);
}

/* The proto's shape is the same for every variant (ctx, map, flags, data, size). */
#define EVENT_OUTPUT_PROTO(run_id_)                                                                  \
	{ .name = "bpf_perf_event_output", .ret_type = KBPF_RET_INTEGER, .flags = KBPF_HELPER_GPL_ONLY,   \
	  .arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_ANYTHING,                    \
			KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE_OR_ZERO },           \
	  .run_id = run_id_ }

static const struct kbpf_helper_proto skb_event_output_proto = EVENT_OUTPUT_PROTO(BPF_FUNC_skb_output);
static const struct kbpf_helper_proto xdp_event_output_proto = EVENT_OUTPUT_PROTO(BPF_FUNC_xdp_output);

static bool is_skb_type(uint32_t linux_type)
{
	switch (linux_type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_LWT_SEG6LOCAL:
	case BPF_PROG_TYPE_SK_SKB:
		return true;
	default:
		return false;
	}
}

const struct kbpf_helper_proto *kbpf_linux_event_output_proto(const struct kbpf_prog_type *type,
							      const struct kbpf_host *host)
{
	const struct kbpf_helper_proto *p = kbpf_host_helper_proto(host, BPF_FUNC_perf_event_output);

	/* a host's own bpf_perf_event_output (registered before kbpf_linux_host_add) wins */
	if (!p || p->fn != kbpf_linux_perf_event_output)
		return p;
	if (is_skb_type(type->linux_type) &&
	    kbpf_host_helper_find(host, BPF_FUNC_skb_output, NULL) == kbpf_linux_skb_event_output)
		return &skb_event_output_proto;
	if (type->linux_type == BPF_PROG_TYPE_XDP &&
	    kbpf_host_helper_find(host, BPF_FUNC_xdp_output, NULL) == kbpf_linux_xdp_event_output)
		return &xdp_event_output_proto;
	return p;
}

int kbpf_linux_add_event_output_helpers(struct kbpf_host *host)
{
	/* run-time only: to the verifier 111 and 121 stay unknown (their Linux protos take
	 * kernel BTF pointers kbpf does not model); a host's own take precedence */
	if (!kbpf_host_helper_find(host, BPF_FUNC_skb_output, NULL)) {
		int ret = kbpf_host_helper_register(host, BPF_FUNC_skb_output, "bpf_skb_output",
						    kbpf_linux_skb_event_output);
		if (ret)
			return ret;
	}
	if (!kbpf_host_helper_find(host, BPF_FUNC_xdp_output, NULL))
		return kbpf_host_helper_register(host, BPF_FUNC_xdp_output, "bpf_xdp_output",
						 kbpf_linux_xdp_event_output);
	return 0;
}
