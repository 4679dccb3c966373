/* SPDX-License-Identifier: Apache-2.0 */
/* The sockmap program types sk_skb (a struct __sk_buff of a stream socket's data, as
 * struct kbpf_linux_skb at run time) and sk_msg (a struct sk_msg_md of a sendmsg): Linux
 * 6.1's sk_skb_is_valid_access / sk_msg_is_valid_access and sk_skb_func_proto /
 * sk_msg_func_proto (net/core/filter.c), written from their behaviour. Both may read and
 * write the data directly and need CAP_NET_ADMIN; neither has a test run in Linux (kbpf
 * verifies them; a host that runs sk_msg programs passes a struct sk_msg_md whose data,
 * data_end and sk are real pointers: its layout is the run-time one). Redirects need
 * sockmap/sockhash maps, which kbpf does not model: those helpers are not registered. */
#include "linux_internal.h"

#define OFF(f) offsetof(struct __sk_buff, f)
#define END(f) (offsetof(struct __sk_buff, f) + sizeof(((struct __sk_buff *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))

/* sk_skb_is_valid_access: no tc_classid, data_meta, timestamps or mark; writes only to
 * tc_index and priority; the socket tuple is readable. */
static int sk_skb_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			 struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (IN(tc_classid) || IN(data_meta) || IN(tstamp) || IN(wire_len) || IN(hwtstamp) || IN(mark))
		return 0;
	if (access == KBPF_ACCESS_WRITE && !IN(tc_index) && !IN(priority))
		return 0;
	if (!kbpf_linux_skb_access(off, size, access, info))
		return 0;
	if (IN(data))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET, info);
	if (IN(data_end))
		return kbpf_linux_skb_packet_pointer(off, KBPF_PTR_TO_PACKET_END, info);
	return 1;
}

#define MOFF(f) offsetof(struct sk_msg_md, f)
#define MEND(f) (offsetof(struct sk_msg_md, f) + sizeof(((struct sk_msg_md *)0)->f))
#define MIN_(f) (off >= (int)MOFF(f) && off < (int)MEND(f))
#define MIN_RANGE(f, g) (off >= (int)MOFF(f) && off < (int)MEND(g))

/* sk_msg_is_valid_access: read-only; the pointers whole (8 bytes), the u32 fields whole. */
static int sk_msg_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			 struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (access == KBPF_ACCESS_WRITE || off < 0 || size <= 0 || off % size)
		return 0;
	if (MIN_(data) || MIN_(data_end) || MIN_(sk)) {
		info->reg_type = MIN_(data) ? KBPF_PTR_TO_PACKET : MIN_(data_end) ? KBPF_PTR_TO_PACKET_END
										  : KBPF_PTR_TO_SOCKET;
		return size == 8;
	}
	if (MIN_RANGE(family, size))
		return size == 4;
	return 0;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x

/* sk_skb_func_proto (sk_redirect_map/hash: prototypes only). */
static const int32_t sk_skb_set[] = {
	ID(skb_store_bytes), ID(skb_load_bytes), ID(skb_pull_data), ID(skb_change_tail), ID(skb_change_head),
	ID(skb_adjust_room), ID(get_socket_cookie), ID(get_socket_uid), ID(sk_redirect_map),
	ID(sk_redirect_hash), ID(perf_event_output), ID(sk_lookup_tcp), ID(sk_lookup_udp), ID(sk_release),
	ID(skc_lookup_tcp), END_ID
};
/* sk_msg_func_proto (msg_redirect_map/hash: prototypes only; the cgroup ids: not
 * modelled). */
static const int32_t sk_msg_set[] = {
	ID(msg_redirect_map), ID(msg_redirect_hash), ID(msg_apply_bytes), ID(msg_cork_bytes), ID(msg_pull_data),
	ID(msg_push_data), ID(msg_pop_data), ID(perf_event_output), ID(get_current_uid_gid),
	ID(get_current_pid_tgid), ID(sk_storage_get), ID(sk_storage_delete), ID(get_netns_cookie),
	ID(get_current_cgroup_id), ID(get_current_ancestor_cgroup_id), ID(get_cgroup_classid), END_ID
};

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc sk_skb_desc = { SETS(sk_skb_set, kbpf_linux_sk_base_set, kbpf_linux_base_set) };
static const struct linux_type_desc sk_msg_desc = { SETS(sk_msg_set, kbpf_linux_sk_base_set, kbpf_linux_base_set) };

#define NET_ADMIN (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN) /* Linux: is_net_admin_prog_type */
const struct kbpf_prog_type kbpf_linux_sk_skb_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sk_skb", .linux_type = BPF_PROG_TYPE_SK_SKB,
	  .ctx_size = offsetof(struct __sk_buff, hwtstamp) + 8, .ctx_btf_name = "__sk_buff",
	  .kern_ctx_btf_name = "kbpf_linux_skb", .is_valid_access = sk_skb_access, .get_func_proto = kbpf_linux_get_func_proto,
	  .direct_packet_access = KBPF_PKT_ACCESS_RW, .priv = (void *)&sk_skb_desc, .load_caps = NET_ADMIN },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sk_msg", .linux_type = BPF_PROG_TYPE_SK_MSG,
	  .ctx_size = sizeof(struct sk_msg_md), .ctx_btf_name = "sk_msg_md", .is_valid_access = sk_msg_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .direct_packet_access = KBPF_PKT_ACCESS_RW,
	  .priv = (void *)&sk_msg_desc, .load_caps = NET_ADMIN },
};
const size_t kbpf_linux_nr_sk_skb_types = sizeof(kbpf_linux_sk_skb_types) / sizeof(kbpf_linux_sk_skb_types[0]);
