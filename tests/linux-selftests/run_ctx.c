/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_PROG_TEST_RUN's context for one run (run_ctx.h). */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "run_ctx.h"

static uint32_t low32(const void *p)
{
	return (uintptr_t)p >> 32 ? 0 : (uint32_t)(uintptr_t)p;
}

/* --low-packet (a diagnosis, off by default): the packet lies below 4 GiB and the u32
 * data/data_end/data_meta fields of the program's view hold the real pointers, so the
 * programs run as if the verifier had rewritten those context loads. */
void run_ctx_low_pointers(struct run_ctx *rc, int xdp)
{
	if (xdp) {
		rc->xdp.md.data = low32(rc->xdp.data);
		rc->xdp.md.data_end = low32(rc->xdp.data_end);
		rc->xdp.md.data_meta = low32(rc->xdp.data_meta);
	} else {
		rc->skb.md.data = low32(rc->skb.data);
		rc->skb.md.data_end = low32(rc->skb.data_end);
		rc->skb.md.data_meta = low32(rc->skb.data_meta);
	}
}

int run_ctx_init(struct run_ctx *rc, uint8_t *buf, const char *type, const uint8_t *data)
{
	memset(rc, 0, sizeof(*rc));
	memset(buf, 0, RUN_BUF_SIZE);
	rc->buf = buf;
	if (!strcmp(type, "xdp")) {
		memcpy(rc->buf + KBPF_LINUX_XDP_HEADROOM, data, TEST_DATA_LEN);
		if (kbpf_linux_xdp_init(&rc->xdp, rc->buf, KBPF_LINUX_XDP_HEADROOM + TEST_DATA_LEN,
					KBPF_LINUX_XDP_HEADROOM, TEST_DATA_LEN))
			return -EINVAL;
		rc->xdp.md.ingress_ifindex = 1; /* Linux runs it on loopback's rx queue 0 */
		rc->ctx = &rc->xdp;
		rc->ctx_size = sizeof(rc->xdp);
		return 0;
	}
	int tc = !strcmp(type, "sched_cls") || !strcmp(type, "sched_act");
	/* bpf_prog_test_run_skb runs lwt_in/out/xmit like socket filters (not seg6local) */
	int lwt = !strcmp(type, "lwt_in") || !strcmp(type, "lwt_out") || !strcmp(type, "lwt_xmit");
	if (tc || lwt || !strcmp(type, "socket_filter") || !strcmp(type, "cgroup_skb")) {
		/* Linux's test run gives NET_SKB_PAD + NET_IP_ALIGN and reallocates the head
		 * when a helper needs more (skb_cow_head); kbpf's skb is the host's buffer and
		 * cannot grow, so the room is given up front: as much as XDP's, enough for the
		 * 50 VLAN tags "vlan + abs, test 1" pushes into the packet */
		const size_t head = KBPF_LINUX_XDP_HEADROOM;
		uint16_t proto;

		memcpy(rc->buf + head, data, TEST_DATA_LEN);
		/* tc sees the packet from its MAC header; the others after the Ethernet header */
		if (kbpf_linux_skb_init(&rc->skb, rc->buf, head + TEST_DATA_LEN + 64,
					tc ? head : head + ETH_HLEN, tc ? TEST_DATA_LEN : TEST_DATA_LEN - ETH_HLEN))
			return -EINVAL;
		/* eth_type_trans: the EtherType as stored, or 802.3/802.2 for length fields */
		memcpy(&proto, data + 12, 2);
		if (ntohs(proto) < 1536)
			proto = data[14] == 0xff && data[15] == 0xff ? htons(0x0001) : htons(0x0004);
		rc->skb.md.protocol = proto;
		rc->skb.md.ifindex = 1;
		rc->ctx = &rc->skb;
		rc->ctx_size = sizeof(rc->skb);
		return 0;
	}
	return -EOPNOTSUPP;
}

