/* SPDX-License-Identifier: Apache-2.0 */
/* The xdp_md helpers kbpf runs (net/core/filter.c's semantics, linear buffers only), on
 * struct kbpf_linux_xdp. Pointer moves are computed on integers so that a wild offset
 * is rejected without forming an out-of-bounds pointer. */
#include <errno.h>
#include <string.h>
#include "linux_internal.h"

#define XDP(r) ((struct kbpf_linux_xdp *)(uintptr_t)(r))
#define ERR(e) ((uint64_t)(int64_t)(e))
#define ETH_HLEN 14
#define U(p) ((uintptr_t)(p))

int kbpf_linux_xdp_init(struct kbpf_linux_xdp *xdp, void *buf, size_t buf_size, size_t headroom, size_t len)
{
	if (!xdp || !buf || headroom > buf_size || len > buf_size - headroom || len > UINT32_MAX)
		return -EINVAL;
	memset(xdp, 0, sizeof(*xdp));
	xdp->data_hard_start = buf;
	xdp->data_hard_end = xdp->data_hard_start + buf_size;
	xdp->data = xdp->data_meta = xdp->data_hard_start + headroom;
	xdp->data_end = xdp->data + len;
	return 0;
}

/* bpf_xdp_adjust_head(xdp, delta): move data by delta (negative: grow the front),
 * keeping room for Linux's xdp_frame and the metadata, and at least an Ethernet header. */
KBPF_LINUX_HELPER(xdp_adjust_head)
{
	(void)r3, (void)r4, (void)r5;
	struct kbpf_linux_xdp *xdp = XDP(r1);
	intptr_t delta = (int32_t)r2;
	uintptr_t metalen = U(xdp->data) - U(xdp->data_meta);
	uintptr_t data = U(xdp->data) + (uintptr_t)delta;
	if ((delta < 0 && data > U(xdp->data)) || (delta > 0 && data < U(xdp->data)))
		return ERR(-EINVAL);
	if (data < U(xdp->data_hard_start) + KBPF_LINUX_XDP_FRAME_SIZE + metalen ||
	    data + ETH_HLEN > U(xdp->data_end))
		return ERR(-EINVAL);
	if (metalen)
		memmove(xdp->data_meta + delta, xdp->data_meta, metalen);
	xdp->data_meta += delta;
	xdp->data += delta;
	return 0;
}

/* bpf_xdp_adjust_meta(xdp, delta): metadata of a multiple of 4 bytes, at most 32. */
KBPF_LINUX_HELPER(xdp_adjust_meta)
{
	(void)r3, (void)r4, (void)r5;
	struct kbpf_linux_xdp *xdp = XDP(r1);
	intptr_t delta = (int32_t)r2;
	uintptr_t meta = U(xdp->data_meta) + (uintptr_t)delta;
	if ((delta < 0 && meta > U(xdp->data_meta)) || (delta > 0 && meta < U(xdp->data_meta)))
		return ERR(-EINVAL);
	if (meta < U(xdp->data_hard_start) + KBPF_LINUX_XDP_FRAME_SIZE || meta > U(xdp->data))
		return ERR(-EINVAL);
	uintptr_t metalen = U(xdp->data) - meta;
	if ((metalen & 3) || metalen > 32)
		return ERR(-EACCES);
	xdp->data_meta += delta;
	return 0;
}

/* bpf_xdp_adjust_tail(xdp, delta): grow up to data_hard_end (zeroing the new bytes),
 * shrink down to an Ethernet header. */
KBPF_LINUX_HELPER(xdp_adjust_tail)
{
	(void)r3, (void)r4, (void)r5;
	struct kbpf_linux_xdp *xdp = XDP(r1);
	intptr_t delta = (int32_t)r2;
	uintptr_t end = U(xdp->data_end) + (uintptr_t)delta;
	if ((delta < 0 && end > U(xdp->data_end)) || (delta > 0 && end < U(xdp->data_end)))
		return ERR(-EINVAL);
	if (end > U(xdp->data_hard_end) || end < U(xdp->data) + ETH_HLEN)
		return ERR(-EINVAL);
	if (delta > 0)
		memset(xdp->data_end, 0, (size_t)delta);
	xdp->data_end += delta;
	return 0;
}

KBPF_LINUX_HELPER(xdp_get_buff_len)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return (uint64_t)(XDP(r1)->data_end - XDP(r1)->data);
}

/* Linux's bpf_xdp_pointer checks: -EFAULT for huge values, -EINVAL past the end. */
static int xdp_range(const struct kbpf_linux_xdp *xdp, uint32_t off, uint32_t len)
{
	if (off > 0xffff || len > 0xffff)
		return -EFAULT;
	if ((uint64_t)off + len > (uint64_t)(xdp->data_end - xdp->data))
		return -EINVAL;
	return 0;
}

/* bpf_xdp_load_bytes(xdp, offset, buf, len): 0, or a negative errno with buf zeroed. Linux
 * 6.12 leaves buf as it was on an error, but its verifier takes buf as written (an
 * uninit-mem argument) whatever the result: kbpf zeroes it so a program never reads
 * stack it did not write (docs/program-types.md, "Helper output arguments"). */
KBPF_LINUX_HELPER(xdp_load_bytes)
{
	(void)r5;
	struct kbpf_linux_xdp *xdp = XDP(r1);
	int err = xdp_range(xdp, (uint32_t)r2, (uint32_t)r4);
	if (err) {
		memset((void *)(uintptr_t)r3, 0, (uint32_t)r4);
		return ERR(err);
	}
	memcpy((void *)(uintptr_t)r3, xdp->data + (uint32_t)r2, (uint32_t)r4);
	return 0;
}

KBPF_LINUX_HELPER(xdp_store_bytes)
{
	(void)r5;
	struct kbpf_linux_xdp *xdp = XDP(r1);
	int err = xdp_range(xdp, (uint32_t)r2, (uint32_t)r4);
	if (err)
		return ERR(err);
	memmove(xdp->data + (uint32_t)r2, (const void *)(uintptr_t)r3, (uint32_t)r4);
	return 0;
}
