/* SPDX-License-Identifier: Apache-2.0 */
/* struct __sk_buff access for socket_filter, sched_cls/sched_act and cgroup_skb: Linux
 * 6.1's bpf_skb_is_valid_access and the per-type rules layered on it (net/core/filter.c),
 * written from their behaviour. The program's offsets are struct kbpf_linux_skb's, except
 * for the packet pointers, which live past the __sk_buff image as 64-bit pointers. */
#include "linux_internal.h"

#define SKB_SIZE (offsetof(struct __sk_buff, hwtstamp) + sizeof(__u64)) /* 6.1's __sk_buff */
#define OFF(f) offsetof(struct __sk_buff, f)
#define END(f) (offsetof(struct __sk_buff, f) + sizeof(((struct __sk_buff *)0)->f))
/* off lies inside field f, or inside fields f .. g. */
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))
#define IN_RANGE(f, g) (off >= (int)OFF(f) && off < (int)END(g))

_Static_assert(sizeof(struct __sk_buff) == 192, "struct __sk_buff is not Linux 6.1's");

/* The packet pointer fields: what the load yields and where the pointer really is. */
int kbpf_linux_skb_packet_pointer(int off, uint32_t reg_type, struct kbpf_ctx_access_info *info)
{
	info->reg_type = reg_type;
	info->conv_size = sizeof(void *);
	if (off == (int)OFF(data))
		info->conv_off = offsetof(struct kbpf_linux_skb, data);
	else if (off == (int)OFF(data_end))
		info->conv_off = offsetof(struct kbpf_linux_skb, data_end);
	else
		info->conv_off = offsetof(struct kbpf_linux_skb, data_meta);
	return 1;
}

/* bpf_skb_is_valid_access: the rules every __sk_buff type shares. */
int kbpf_linux_skb_access(int off, int size, enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	if (off < 0 || off >= (int)SKB_SIZE || size <= 0)
		return 0;
	if (off % size)
		return 0;
	if (IN_RANGE(cb[0], cb[4]))
		return off + size <= (int)END(cb[4]); /* any width, inside cb[] */
	if (IN_RANGE(remote_ip6[0], remote_ip6[3]) || IN_RANGE(local_ip6[0], local_ip6[3]) || IN(remote_ip4) ||
	    IN(local_ip4) || IN(data) || IN(data_meta) || IN(data_end))
		return size == 4;
	if (IN(flow_keys))
		return 0;
	if (IN(hwtstamp))
		return access == KBPF_ACCESS_READ && size == 8;
	if (IN(tstamp))
		return size == 8;
	if (IN(sk)) {
		if (access == KBPF_ACCESS_WRITE || size != 8)
			return 0;
		info->reg_type = KBPF_PTR_TO_SOCK_COMMON | KBPF_PTR_MAYBE_NULL;
		return 1;
	}
	/* tstamp_type (a u8) and the padding up to hwtstamp: only tc may read the former. */
	if (off >= (int)OFF(tstamp_type) && off < (int)OFF(hwtstamp))
		return 0;
	/* A u32 field: writes whole, reads may be narrow (a power of two, aligned). */
	if (access == KBPF_ACCESS_WRITE)
		return size == 4;
	info->ctx_field_size = 4;
	return size <= 4 && !(size & (size - 1));
}

int kbpf_linux_sk_filter_access(const struct kbpf_prog_type *type, int off, int size,
				enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (IN(tc_classid) || IN(data) || IN(data_meta) || IN(data_end) || IN_RANGE(family, local_port) ||
	    IN(tstamp) || IN(wire_len) || IN(hwtstamp))
		return 0;
	if (access == KBPF_ACCESS_WRITE && !IN_RANGE(cb[0], cb[4]))
		return 0;
	return kbpf_linux_skb_access(off, size, access, info);
}

int kbpf_linux_cg_skb_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (IN(tc_classid) || IN(data_meta) || IN(wire_len))
		return 0;
	/* Linux refuses these without CAP_BPF: the verifier applies info->caps. */
	if (IN(data) || IN(data_end))
		info->caps |= KBPF_CAP_BPF;
	if (access == KBPF_ACCESS_WRITE) {
		if (IN(tstamp))
			info->caps |= KBPF_CAP_BPF;
		else if (!IN(mark) && !IN(priority) && !IN_RANGE(cb[0], cb[4]))
			return 0;
	}
	if (!kbpf_linux_skb_access(off, size, access, info))
		return 0;
	if (IN(data))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET, info);
	if (IN(data_end))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET_END, info);
	return 1;
}

int kbpf_linux_tc_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			 struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (access == KBPF_ACCESS_WRITE && !IN(mark) && !IN(tc_index) && !IN(priority) && !IN(tc_classid) &&
	    !IN_RANGE(cb[0], cb[4]) && !IN(tstamp) && !IN(queue_mapping))
		return 0;
	if (IN_RANGE(family, local_port))
		return 0;
	if (off == (int)OFF(tstamp_type))
		return size == 1;
	if (!kbpf_linux_skb_access(off, size, access, info))
		return 0;
	if (IN(data))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET, info);
	if (IN(data_meta))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET_META, info);
	if (IN(data_end))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET_END, info);
	return 1;
}
