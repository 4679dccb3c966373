/* SPDX-License-Identifier: Apache-2.0 */
/* The checksum helpers of tc programs (Linux's net/core/filter.c bpf_l3_csum_replace,
 * bpf_l4_csum_replace, bpf_csum_update): a 16-bit Internet checksum in the packet
 * updated for a field that changed from `from` to `to` (2 or 4 bytes, in network order
 * as the program read them) or by a precomputed difference (size 0: `to` is a
 * bpf_csum_diff result), with Linux's ones'-complement arithmetic (include/net/checksum.h)
 * so that the bytes written are Linux's, including its choice between 0x0000 and 0xffff.
 *
 * kbpf's skb carries no checksum state: it is CHECKSUM_NONE, as the skb of Linux's
 * BPF_PROG_TEST_RUN. So the pseudo-header flag changes nothing (Linux updates skb->csum
 * only for CHECKSUM_COMPLETE) and bpf_csum_update, which needs CHECKSUM_COMPLETE,
 * returns Linux's -ENOTSUPP (524). */
#include <errno.h>
#include <string.h>
#include "linux_internal.h"

#define SKB(r) ((struct kbpf_linux_skb *)(uintptr_t)(r))
#define ERR(e) ((uint64_t)(int64_t)(e))
#define LINUX_ENOTSUPP 524 /* the kernel-internal errno Linux returns here */
#define CSUM_MANGLED_0 0xffff /* a UDP checksum that came out 0 */

/* 32-bit ones'-complement add with end-around carry (csum_add / csum_sub). */
static uint32_t csum_add(uint32_t a, uint32_t b)
{
	uint32_t r = a + b;
	return r + (r < b);
}

static uint32_t csum_sub(uint32_t a, uint32_t b)
{
	return csum_add(a, ~b);
}

/* Fold to 16 bits and complement (csum_fold). */
static uint16_t csum_fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* 16-bit ones'-complement add (csum16_add). */
static uint16_t csum16_add(uint16_t a, uint16_t b)
{
	uint16_t r = (uint16_t)(a + b);
	return (uint16_t)(r + (r < b));
}

/* The checksum field at offset of the packet (Linux: offset even, at most 0xffff, the two
 * bytes inside the packet; else -EFAULT), or NULL. */
static uint8_t *csum_field(struct kbpf_linux_skb *skb, uint64_t offset)
{
	if (offset > 0xffff || (offset & 1) || offset + 2 > (uint64_t)(skb->data_end - skb->data))
		return NULL;
	return skb->data + offset;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* csum_replace4 / csum_replace_by_diff, and the CHECKSUM_NONE path of
 * inet_proto_csum_replace4 / _by_diff: the field's sum less from, plus to, folded. */
static uint16_t replace32(uint16_t sum, uint32_t from, uint32_t to)
{
	return csum_fold(csum_add(csum_sub(~(uint32_t)sum, from), to));
}

KBPF_LINUX_HELPER(l3_csum_replace)
{
	uint8_t *p = csum_field(SKB(r1), r2);
	uint16_t sum;

	if (r5 & ~(uint64_t)BPF_F_HDR_FIELD_MASK)
		return ERR(-EINVAL);
	if (!p)
		return ERR(-EFAULT);
	sum = get16(p);
	switch (r5 & BPF_F_HDR_FIELD_MASK) {
	case 0: /* to is a difference: csum_replace_by_diff */
		if (r3)
			return ERR(-EINVAL);
		put16(p, csum_fold(csum_add((uint32_t)r4, ~(uint32_t)sum)));
		break;
	case 2: /* csum_replace2: in 16 bits */
		put16(p, (uint16_t)~csum16_add(csum16_add((uint16_t)~sum, (uint16_t)~(uint16_t)r3), (uint16_t)r4));
		break;
	case 4:
		put16(p, replace32(sum, (uint32_t)r3, (uint32_t)r4));
		break;
	default:
		return ERR(-EINVAL);
	}
	return 0;
}

KBPF_LINUX_HELPER(l4_csum_replace)
{
	const uint64_t known = BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE | BPF_F_PSEUDO_HDR | BPF_F_HDR_FIELD_MASK |
			       BPF_F_IPV6;
	uint8_t *p = csum_field(SKB(r1), r2);
	bool mmzero = r5 & BPF_F_MARK_MANGLED_0, enforce = r5 & BPF_F_MARK_ENFORCE;
	uint16_t sum;

	if (r5 & ~known)
		return ERR(-EINVAL);
	if (!p)
		return ERR(-EFAULT);
	sum = get16(p);
	if (mmzero && !enforce && !sum)
		return 0; /* a UDP datagram without a checksum keeps none */
	switch (r5 & BPF_F_HDR_FIELD_MASK) {
	case 0:
		if (r3)
			return ERR(-EINVAL);
		put16(p, csum_fold(csum_add((uint32_t)r4, ~(uint32_t)sum)));
		break;
	case 2: /* inet_proto_csum_replace2: the 16-bit values widened */
		put16(p, replace32(sum, (uint16_t)r3, (uint16_t)r4));
		break;
	case 4:
		put16(p, replace32(sum, (uint32_t)r3, (uint32_t)r4));
		break;
	default:
		return ERR(-EINVAL);
	}
	if (mmzero && !get16(p))
		put16(p, CSUM_MANGLED_0);
	return 0;
}

KBPF_LINUX_HELPER(csum_update)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return ERR(-LINUX_ENOTSUPP); /* needs CHECKSUM_COMPLETE, which kbpf's skb never is */
}
