/* SPDX-License-Identifier: Apache-2.0 */
/* The sock_ops program type: a struct bpf_sock_ops at TCP events (connection setup, RTO,
 * header options …), whose reply field answers the kernel. Linux 6.1's
 * sock_ops_is_valid_access and sock_ops_func_proto (net/core/filter.c), written from
 * their behaviour. Writes only to reply and sk_txhash; sk a socket or NULL; skb_data and
 * skb_data_end packet pointers that cannot be dereferenced (no direct packet access for
 * sock_ops in Linux). Return 0 or 1; CAP_NET_ADMIN to load; no test run in Linux. */
#include "linux_internal.h"

#define OFF(f) offsetof(struct bpf_sock_ops, f)
#define END(f) (offsetof(struct bpf_sock_ops, f) + sizeof(((struct bpf_sock_ops *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))
#define IN_RANGE(f, g) (off >= (int)OFF(f) && off < (int)END(g))

static int sock_ops_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			   struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct bpf_sock_ops) || size <= 0 || off % size)
		return 0;
	if (access == KBPF_ACCESS_WRITE)
		return (off == (int)OFF(reply) || off == (int)OFF(sk_txhash)) && size == 4;
	if (IN_RANGE(bytes_received, bytes_acked))
		return size == 8;
	if (IN(sk) || IN(skb_data) || IN(skb_data_end)) {
		info->reg_type = IN(sk) ? KBPF_PTR_TO_SOCKET | KBPF_PTR_MAYBE_NULL
			       : IN(skb_data) ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
		return size == 8;
	}
	if (off == (int)OFF(skb_tcp_flags)) {
		info->ctx_field_size = 4;
		return size <= 4 && !(size & (size - 1));
	}
	return size == 4;
}

/* bpf_sock_ops_setsockopt_proto / _getsockopt_proto take the context; the TCP host's
 * struct_ops variants (hosts/tcp) take a socket: these are sock_ops' own, by type, and
 * verify only (KBPF_LINUX_NO_RUN: no host's helper 49/57 runs on a sock_ops context). */
static const struct kbpf_helper_proto setsockopt_proto = {
	.name = "bpf_setsockopt", .ret_type = KBPF_RET_INTEGER, .run_id = KBPF_LINUX_NO_RUN(BPF_FUNC_setsockopt),
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING, KBPF_ARG_ANYTHING,
		      KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE },
};
static const struct kbpf_helper_proto getsockopt_proto = {
	.name = "bpf_getsockopt", .ret_type = KBPF_RET_INTEGER, .run_id = KBPF_LINUX_NO_RUN(BPF_FUNC_getsockopt),
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING, KBPF_ARG_ANYTHING,
		      KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE, KBPF_ARG_CONST_SIZE },
};
static const struct kbpf_helper_proto cb_flags_set_proto = {
	.name = "bpf_sock_ops_cb_flags_set", .ret_type = KBPF_RET_INTEGER,
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING },
};

#define END_ID -1
#define ID(x) BPF_FUNC_##x
/* sock_ops_func_proto's other cases (header options: not modelled) */
static const int32_t sock_ops_set[] = {
	ID(sock_map_update), ID(sock_hash_update), ID(get_local_storage), ID(get_socket_cookie), ID(perf_event_output),
	ID(sk_storage_get), ID(sk_storage_delete), ID(get_netns_cookie), ID(tcp_sock), END_ID
};
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc sock_ops_desc = { SETS(sock_ops_set, kbpf_linux_sk_base_set,
							   kbpf_linux_base_set) };

static const struct kbpf_helper_proto *sock_ops_func_proto(const struct kbpf_prog_type *type,
							   const struct kbpf_host *host, int32_t id)
{
	switch (id) {
	case BPF_FUNC_setsockopt: return &setsockopt_proto;
	case BPF_FUNC_getsockopt: return &getsockopt_proto;
	case BPF_FUNC_sock_ops_cb_flags_set: return &cb_flags_set_proto;
	default: return kbpf_linux_get_func_proto(type, host, id);
	}
}

const struct kbpf_prog_type kbpf_linux_sock_ops_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sock_ops", .linux_type = BPF_PROG_TYPE_SOCK_OPS,
	  .ctx_size = sizeof(struct bpf_sock_ops), .ctx_btf_name = "bpf_sock_ops", .is_valid_access = sock_ops_access,
	  .get_func_proto = sock_ops_func_proto, .has_ret_range = 1, .ret_min = 0, .ret_max = 1,
	  .priv = (void *)&sock_ops_desc, .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
};
const size_t kbpf_linux_nr_sock_ops_types = 1;
