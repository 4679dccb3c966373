/* SPDX-License-Identifier: Apache-2.0 */
/* The __sk_buff helpers kbpf runs (net/core/filter.c's semantics), on the run-time
 * context struct kbpf_linux_skb that R1 points at. The packet is linear: Linux's paged
 * fragments do not exist here, so "within the packet" is data .. data_end. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include "linux_internal.h"

#define SKB(r) ((struct kbpf_linux_skb *)(uintptr_t)(r))
#define ERR(e) ((uint64_t)(int64_t)(e))

int kbpf_linux_skb_init(struct kbpf_linux_skb *skb, void *buf, size_t buf_size, size_t headroom, size_t len)
{
	if (!skb || !buf || headroom > buf_size || len > buf_size - headroom || len > UINT32_MAX)
		return -EINVAL;
	memset(skb, 0, sizeof(*skb));
	skb->head = buf;
	skb->end = skb->head + buf_size;
	skb->data = skb->data_meta = skb->head + headroom;
	skb->data_end = skb->data + len;
	skb->md.len = (uint32_t)len;
	return 0;
}

static size_t skb_len(const struct kbpf_linux_skb *skb)
{
	return (size_t)(skb->data_end - skb->data);
}

/* bpf_skb_load_bytes(skb, offset, to, len): 0, or -EFAULT with to zeroed. */
KBPF_LINUX_HELPER(skb_load_bytes)
{
	(void)r5;
	struct kbpf_linux_skb *skb = SKB(r1);
	uint32_t off = (uint32_t)r2, len = (uint32_t)r4;
	void *to = (void *)(uintptr_t)r3;
	if (off > INT_MAX || (uint64_t)off + len > skb_len(skb)) {
		memset(to, 0, len);
		return ERR(-EFAULT);
	}
	memcpy(to, skb->data + off, len);
	return 0;
}

/* bpf_skb_store_bytes(skb, offset, from, len, flags). Checksums are not modelled, so
 * BPF_F_RECOMPUTE_CSUM has nothing to update; BPF_F_INVALIDATE_HASH clears the hash. */
KBPF_LINUX_HELPER(skb_store_bytes)
{
	struct kbpf_linux_skb *skb = SKB(r1);
	uint32_t off = (uint32_t)r2, len = (uint32_t)r4;
	const void *from = (const void *)(uintptr_t)r3;
	if (r5 & ~(uint64_t)(BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH))
		return ERR(-EINVAL);
	if (off > INT_MAX || (uint64_t)off + len > skb_len(skb))
		return ERR(-EFAULT);
	memmove(skb->data + off, from, len); /* from may be packet memory too */
	if (r5 & BPF_F_INVALIDATE_HASH)
		skb->md.hash = 0;
	return 0;
}

/* The flow hash as the host set it (kbpf does not dissect packets). */
KBPF_LINUX_HELPER(get_hash_recalc)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return SKB(r1)->md.hash;
}

/* No kernel sockets here: Linux's answers for a packet without one. */
KBPF_LINUX_HELPER(get_socket_cookie)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}

/* kbpf runs in one network namespace, Linux's init_net, whose cookie is the first one
 * Linux hands out; the context may be NULL (ARG_PTR_TO_CTX_OR_NULL). */
KBPF_LINUX_HELPER(get_netns_cookie)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 1;
}

KBPF_LINUX_HELPER(get_socket_uid)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 65534; /* overflowuid */
}

/* Linux's classid of the packet's socket cgroup: none here. */
KBPF_LINUX_HELPER(get_cgroup_classid)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}

/* --- VLAN tags (skb_vlan_push / skb_vlan_pop in net/core/skbuff.c) ---
 * An skb carries at most one tag "accelerated" in md.vlan_* and any number in the
 * packet, right after the two MAC addresses. Protocols are big-endian, as in md. */
#define ETH_ALEN2 12 /* destination + source MAC */
#define VLAN_HLEN 4
#define BE16(x) ((uint16_t)((((x) & 0xffu) << 8) | (((x) >> 8) & 0xffu)))
#define P_8021Q BE16(0x8100)
#define P_8021AD BE16(0x88a8)

static bool is_vlan_proto(uint32_t proto)
{
	return proto == P_8021Q || proto == P_8021AD;
}

static void hwaccel_put(struct kbpf_linux_skb *skb, uint16_t proto, uint16_t tci)
{
	skb->md.vlan_present = 1;
	skb->md.vlan_proto = proto;
	skb->md.vlan_tci = tci;
}

/* Move the accelerated tag into the packet: needs 4 bytes of headroom. */
static int insert_tag(struct kbpf_linux_skb *skb)
{
	if (skb->data_end - skb->data < ETH_ALEN2)
		return -EINVAL;
	if (skb->data_meta - skb->head < VLAN_HLEN)
		return -ENOMEM; /* Linux would reallocate the head; kbpf's buffer is the host's */
	/* metadata (before data) and the MAC addresses move down by 4, the lower first */
	size_t metalen = (size_t)(skb->data - skb->data_meta);
	memmove(skb->data_meta - VLAN_HLEN, skb->data_meta, metalen);
	uint8_t *d = skb->data - VLAN_HLEN;
	memmove(d, skb->data, ETH_ALEN2);
	uint16_t proto = (uint16_t)skb->md.vlan_proto, tci = BE16(skb->md.vlan_tci);
	memcpy(d + ETH_ALEN2, &proto, 2);
	memcpy(d + ETH_ALEN2 + 2, &tci, 2);
	skb->data = d;
	skb->data_meta -= VLAN_HLEN;
	skb->md.len += VLAN_HLEN;
	skb->md.protocol = skb->md.vlan_proto;
	return 0;
}

/* Take the tag after the MAC addresses out of the packet: its TCI in *tci, and the
 * protocol becomes the encapsulated one. */
static int remove_tag(struct kbpf_linux_skb *skb, uint16_t *tci)
{
	if (skb->data_end - skb->data < ETH_ALEN2 + VLAN_HLEN + 2) /* VLAN_ETH_HLEN */
		return -ENOMEM; /* Linux: skb_ensure_writable(VLAN_ETH_HLEN) fails */
	uint16_t be_tci, encap;
	memcpy(&be_tci, skb->data + ETH_ALEN2 + 2, 2);
	memcpy(&encap, skb->data + ETH_ALEN2 + VLAN_HLEN, 2);
	*tci = BE16(be_tci);
	/* the MAC addresses, then the metadata before them, move up by 4 (the upper first) */
	size_t metalen = (size_t)(skb->data - skb->data_meta);
	memmove(skb->data + VLAN_HLEN, skb->data, ETH_ALEN2);
	memmove(skb->data_meta + VLAN_HLEN, skb->data_meta, metalen);
	skb->data += VLAN_HLEN;
	skb->data_meta += VLAN_HLEN;
	skb->md.len -= VLAN_HLEN;
	if (BE16(encap) >= 0x600) /* an EtherType, not an 802.3 length */
		skb->md.protocol = encap;
	return 0;
}

/* bpf_skb_vlan_push(skb, vlan_proto, vlan_tci): an unknown protocol means 802.1Q. */
KBPF_LINUX_HELPER(skb_vlan_push)
{
	(void)r4, (void)r5;
	struct kbpf_linux_skb *skb = SKB(r1);
	uint16_t proto = (uint16_t)r2, tci = (uint16_t)r3;
	if (!is_vlan_proto(proto))
		proto = P_8021Q;
	if (skb->md.vlan_present) {
		int err = insert_tag(skb);
		if (err)
			return ERR(err);
	}
	hwaccel_put(skb, proto, tci);
	return 0;
}

KBPF_LINUX_HELPER(skb_vlan_pop)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	struct kbpf_linux_skb *skb = SKB(r1);
	uint16_t tci;
	if (skb->md.vlan_present) {
		skb->md.vlan_present = skb->md.vlan_tci = skb->md.vlan_proto = 0;
	} else {
		if (!is_vlan_proto(skb->md.protocol))
			return 0;
		int err = remove_tag(skb, &tci);
		if (err)
			return ERR(err);
	}
	/* the next tag in the packet, if any, becomes the accelerated one */
	if (!is_vlan_proto(skb->md.protocol))
		return 0;
	uint16_t proto = (uint16_t)skb->md.protocol;
	int err = remove_tag(skb, &tci);
	if (err)
		return ERR(err);
	hwaccel_put(skb, proto, tci);
	return 0;
}

/* bpf_skb_change_head(skb, head_room, flags): head_room zeroed bytes pushed in front of
 * the packet (metadata moves with it), for an L3 packet that needs a MAC header. Linux
 * reallocates the head when the headroom is short; kbpf's buffer is the host's, so that
 * is -ENOMEM here. BPF_SKB_MAX_LEN is Linux's 16 MiB GSO bound. */
KBPF_LINUX_HELPER(skb_change_head)
{
	(void)r4, (void)r5;
	struct kbpf_linux_skb *skb = SKB(r1);
	uint32_t room = (uint32_t)r2;
	if (r3 || (uint64_t)skb->md.len + room > (16u << 20))
		return ERR(-EINVAL);
	if ((size_t)(skb->data_meta - skb->head) < room)
		return ERR(-ENOMEM);
	size_t metalen = (size_t)(skb->data - skb->data_meta);
	memmove(skb->data_meta - room, skb->data_meta, metalen);
	skb->data_meta -= room;
	skb->data -= room;
	memset(skb->data, 0, room);
	skb->md.len += room;
	return 0;
}

/* bpf_skb_pull_data(skb, len) (sk_skb's sk_skb_pull_data alike): make the first len
 * bytes (0: the linear part) directly accessible, Linux 6.12's pskb_may_pull rule. kbpf's
 * packet is linear in full (its linear part is the whole packet), so nothing moves:
 * 0 when the packet has len bytes, -ENOMEM when it has fewer. The verifier has already
 * dropped the program's packet pointers (a packet-changing helper), as in Linux. */
KBPF_LINUX_HELPER(skb_pull_data)
{
	(void)r3, (void)r4, (void)r5;
	const struct kbpf_linux_skb *skb = SKB(r1);
	uint32_t len = (uint32_t)r2;
	return len <= skb_len(skb) ? 0 : ERR(-ENOMEM);
}
