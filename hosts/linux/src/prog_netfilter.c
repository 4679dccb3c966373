/* SPDX-License-Identifier: Apache-2.0 */
/* The netfilter program type (Linux 6.4+): a netfilter hook's verdict on a packet.
 * Linux 6.12's nf_is_valid_access and bpf_nf_func_proto (net/netfilter/nf_bpf_link.c)
 * and check_return_code's NETFILTER case, written from their behaviour.
 *
 * The context (struct kbpf_linux_nf_ctx, Linux's struct bpf_nf_ctx) holds two pointers,
 * read whole (8 bytes) and never written: state, a pointer to the host BTF's struct
 * nf_hook_state, and skb, to its struct sk_buff (Linux: PTR_TO_BTF_ID | PTR_TRUSTED into
 * vmlinux's BTF; the access is refused when the BTF lacks the struct). Fields reached
 * through them are read as the BTF says; writes through them are refused ("only read is
 * supported": no btf_struct_access). The helpers are bpf_base_func_proto's; the program
 * returns NF_DROP (0) or NF_ACCEPT (1). Loading needs CAP_BPF and CAP_NET_ADMIN
 * (is_net_admin_prog_type). */
#include "linux_internal.h"

#define OFF(f) ((int)offsetof(struct kbpf_linux_nf_ctx, f))

static int netfilter_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			    struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct kbpf_linux_nf_ctx) || size <= 0 || off % size ||
	    access != KBPF_ACCESS_READ || size != 8)
		return 0;
	if (off != OFF(state) && off != OFF(skb))
		return 0;
	info->reg_type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_TRUSTED; /* 6.12's nf_is_valid_access */
	info->btf_name = off == OFF(state) ? "nf_hook_state" : "sk_buff";
	return 1;
}

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc netfilter_desc = { SETS(kbpf_linux_base_set) };

const struct kbpf_prog_type kbpf_linux_netfilter_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "netfilter", .linux_type = KBPF_LINUX_PROG_TYPE_NETFILTER,
	  .ctx_size = sizeof(struct kbpf_linux_nf_ctx), .ctx_btf_name = "bpf_nf_ctx",
	  .is_valid_access = netfilter_access, .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1,
	  .ret_min = 0, .ret_max = 1, .priv = (void *)&netfilter_desc,
	  .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
};
const size_t kbpf_linux_nr_netfilter_types = 1;
