/* SPDX-License-Identifier: Apache-2.0 */
/* LD_ABS / LD_IND's packet for the __sk_buff program types (kbpf_prog_type.ld_abs):
 * Linux 6.1's bpf_skb_load_helper_{8,16,32} and bpf_internal_load_pointer_neg_helper
 * (net/core/filter.c), written from their behaviour over struct kbpf_linux_skb.
 *
 * Offsets >= 0 count from data and must lie in [data, data_end) (Linux: the linear
 * part; a kbpf skb has no fragments). Negative ones name the headers, as in Linux:
 * [SKF_NET_OFF, 0) from the network header, [SKF_LL_OFF, SKF_NET_OFF) from the MAC
 * header, and such a load may reach anything from head to data_end. A kbpf skb does not
 * record its header offsets; it is an Ethernet frame positioned as Linux runs each type
 * (and as BPF_PROG_TEST_RUN sets it up): tc sees it from the MAC header, so the network
 * header is 14 bytes after data; a socket filter (and cgroup_skb) sees it from the
 * network header, with the MAC header the 14 bytes before data (gone, like Linux's
 * unset mac_header, when the headroom is shorter). Everything else (SKF_AD_OFF's
 * ancillary data is classic BPF's only; offsets below SKF_LL_OFF) is out of bounds. */
#include <linux/filter.h> /* SKF_NET_OFF, SKF_LL_OFF */
#include "linux_internal.h"

#define ETH_HEADER_LEN 14

/* mac_at_data: the MAC header is at data (tc), else 14 bytes before it. Positions are
 * integers from head, so that no pointer outside the buffer is ever formed. */
static const void *skb_ld_abs(const struct kbpf_linux_skb *skb, int32_t off, uint32_t size, bool mac_at_data)
{
	int64_t data_off, end_off, pos;

	if (!skb || !skb->data || skb->data_end < skb->data || !size || size > 4)
		return NULL;
	if (off >= 0) /* Linux: headlen - offset >= len */
		return (int64_t)off <= (skb->data_end - skb->data) - (int64_t)size ? skb->data + off : NULL;
	if (!skb->head || skb->data < skb->head)
		return NULL;
	data_off = skb->data - skb->head;
	end_off = skb->data_end - skb->head;
	if (off >= SKF_NET_OFF) {
		pos = data_off + (mac_at_data ? ETH_HEADER_LEN : 0) + ((int64_t)off - SKF_NET_OFF);
	} else if (off >= SKF_LL_OFF) {
		int64_t mac = data_off - (mac_at_data ? 0 : ETH_HEADER_LEN);

		if (mac < 0)
			return NULL; /* no room for a MAC header before data: "not set" */
		pos = mac + ((int64_t)off - SKF_LL_OFF);
	} else {
		return NULL;
	}
	/* Linux: ptr >= skb->head && ptr + size <= skb_tail_pointer(skb) */
	return pos >= 0 && pos <= end_off - (int64_t)size ? skb->head + pos : NULL;
}

const void *kbpf_linux_skb_ld_abs_l2(const void *ctx, int32_t off, uint32_t size)
{
	return skb_ld_abs(ctx, off, size, true);
}

const void *kbpf_linux_skb_ld_abs_l3(const void *ctx, int32_t off, uint32_t size)
{
	return skb_ld_abs(ctx, off, size, false);
}
