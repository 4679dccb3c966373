/* SPDX-License-Identifier: Apache-2.0 */
/* The lightweight-tunnel program types lwt_in, lwt_out, lwt_xmit and lwt_seg6local:
 * Linux 6.1's lwt_is_valid_access and lwt_*_func_proto (net/core/filter.c), written
 * from their behaviour. All four see a struct __sk_buff (struct kbpf_linux_skb at run
 * time, as socket_filter does: the packet starts at its network header, which is what
 * BPF_PROG_TEST_RUN gives them), may read the packet directly (lwt_xmit may also write
 * it) and need CAP_NET_ADMIN to load; Linux checks no return range for them. */
#include "linux_internal.h"

#define OFF(f) offsetof(struct __sk_buff, f)
#define END(f) (offsetof(struct __sk_buff, f) + sizeof(((struct __sk_buff *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))
#define IN_RANGE(f, g) (off >= (int)OFF(f) && off < (int)END(g))

/* lwt_is_valid_access: no tc_classid, socket tuple, data_meta or timestamps; writes only
 * to mark, priority and cb[]; data and data_end are packet pointers. */
int kbpf_linux_lwt_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (IN(tc_classid) || IN_RANGE(family, local_port) || IN(data_meta) || IN(tstamp) || IN(wire_len) ||
	    IN(hwtstamp))
		return 0;
	if (access == KBPF_ACCESS_WRITE && !IN(mark) && !IN(priority) && !IN_RANGE(cb[0], cb[4]))
		return 0;
	if (!kbpf_linux_skb_access(off, size, access, info))
		return 0;
	if (IN(data))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET, info);
	if (IN(data_end))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET_END, info);
	return 1;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x

/* lwt_out_func_proto: what every lwt type has (skb_under_cgroup needs a cgroup array,
 * a map type kbpf does not model: not registered). */
static const int32_t lwt_out_set[] = {
	ID(skb_load_bytes), ID(skb_pull_data), ID(csum_diff), ID(get_cgroup_classid), ID(get_route_realm),
	ID(get_hash_recalc), ID(perf_event_output), ID(get_smp_processor_id), ID(skb_under_cgroup), END_ID
};
static const int32_t lwt_in_set[] = { ID(lwt_push_encap), END_ID };
static const int32_t lwt_xmit_set[] = {
	ID(skb_get_tunnel_key), ID(skb_set_tunnel_key), ID(skb_get_tunnel_opt), ID(skb_set_tunnel_opt),
	ID(redirect), ID(clone_redirect), ID(skb_change_tail), ID(skb_change_head), ID(skb_store_bytes),
	ID(csum_update), ID(csum_level), ID(l3_csum_replace), ID(l4_csum_replace), ID(set_hash_invalid),
	ID(lwt_push_encap), END_ID
};
/* lwt_seg6local_func_proto: its own three, then lwt_out's without skb_pull_data (Linux
 * returns NULL for it before falling back). */
static const int32_t lwt_seg6local_set[] = {
	ID(lwt_seg6_store_bytes), ID(lwt_seg6_action), ID(lwt_seg6_adjust_srh), ID(skb_load_bytes),
	ID(csum_diff), ID(get_cgroup_classid), ID(get_route_realm), ID(get_hash_recalc), ID(perf_event_output),
	ID(get_smp_processor_id), ID(skb_under_cgroup), END_ID
};

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc lwt_in_desc = { SETS(lwt_in_set, lwt_out_set, kbpf_linux_sk_base_set,
							 kbpf_linux_base_set) };
static const struct linux_type_desc lwt_out_desc = { SETS(lwt_out_set, kbpf_linux_sk_base_set,
							  kbpf_linux_base_set) };
static const struct linux_type_desc lwt_xmit_desc = { SETS(lwt_xmit_set, lwt_out_set, kbpf_linux_sk_base_set,
							   kbpf_linux_base_set) };
static const struct linux_type_desc lwt_seg6local_desc = { SETS(lwt_seg6local_set, kbpf_linux_sk_base_set,
								kbpf_linux_base_set) };

#define SKB_CTX_SIZE (offsetof(struct __sk_buff, hwtstamp) + 8)
#define NET_ADMIN (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN) /* Linux: is_net_admin_prog_type */
#define LWT(name_, ltype_, desc_, pkt_)                                                                        \
	{ .sz = sizeof(struct kbpf_prog_type), .name = name_, .linux_type = ltype_, .ctx_size = SKB_CTX_SIZE,      \
	  .ctx_btf_name = "__sk_buff", .kern_ctx_btf_name = "kbpf_linux_skb",                                     \
	  .is_valid_access = kbpf_linux_lwt_access,                                                             \
	  .get_func_proto = kbpf_linux_get_func_proto, .direct_packet_access = pkt_, .priv = (void *)&desc_,      \
	  .load_caps = NET_ADMIN }

const struct kbpf_prog_type kbpf_linux_lwt_types[] = {
	LWT("lwt_in", BPF_PROG_TYPE_LWT_IN, lwt_in_desc, KBPF_PKT_ACCESS_RDONLY),
	LWT("lwt_out", BPF_PROG_TYPE_LWT_OUT, lwt_out_desc, KBPF_PKT_ACCESS_RDONLY),
	/* may_access_direct_pkt_data: only lwt_xmit writes the packet */
	LWT("lwt_xmit", BPF_PROG_TYPE_LWT_XMIT, lwt_xmit_desc, KBPF_PKT_ACCESS_RW),
	LWT("lwt_seg6local", BPF_PROG_TYPE_LWT_SEG6LOCAL, lwt_seg6local_desc, KBPF_PKT_ACCESS_RDONLY),
};
const size_t kbpf_linux_nr_lwt_types = sizeof(kbpf_linux_lwt_types) / sizeof(kbpf_linux_lwt_types[0]);
