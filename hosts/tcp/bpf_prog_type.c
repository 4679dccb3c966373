/* SPDX-License-Identifier: Apache-2.0 */
/* The program type of tcp_congestion_ops members (Linux 6.1's bpf_tcp_ca_verifier_ops):
 * context = the member's arguments, struct sock promoted to struct tcp_sock; writes only
 * to the fields a CC owns; the helpers of bpf_tcp_ca_get_func_proto. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include "tcp_host_internal.h"

/* Asked on every context and socket access the verifier checks: the host's index. */
static int host_struct_id(const struct kbpf_host *host, const char *name)
{
	return kbpf_host_btf_find(host, name, BTF_KIND_STRUCT);
}

/* bpf_tcp_ca_is_valid_access: after btf_ctx_access, a struct sock * argument is a
 * struct tcp_sock * (every sock a CC sees is one), so its fields can be read and the
 * writable ones written. */
static int tcp_ca_ctx_arg_access(const struct kbpf_prog_type *type, const struct kbpf_host *host, uint32_t arg,
				 struct kbpf_ctx_access_info *info)
{
	(void)type, (void)arg;
	if (KBPF_REG_BASE(info->reg_type) != KBPF_PTR_TO_BTF_ID || (info->reg_type & KBPF_PTR_UNTRUSTED))
		return 1;
	int sock_id = host_struct_id(host, "sock");
	int tcp_sock_id = host_struct_id(host, "tcp_sock");
	if (sock_id > 0 && tcp_sock_id > 0 && info->btf_id == (uint32_t)sock_id)
		info->btf_id = (uint32_t)tcp_sock_id;
	return 1;
}

/* bpf_tcp_ca_btf_struct_access (writes; reads walk the BTF): only struct tcp_sock, only
 * the fields listed, each written within itself. Offsets are this host's (the program's
 * were CO-RE-relocated to them). */
static int tcp_ca_btf_struct_access(const struct kbpf_prog_type *type, uint32_t btf_id, int off, int size,
				    char *msg, size_t msg_size)
{
	const struct kbpf_host *host = type->priv;
	int tcp_sock_id = host_struct_id(host, "tcp_sock");
	size_t end;

	if (tcp_sock_id <= 0 || btf_id != (uint32_t)tcp_sock_id) {
		snprintf(msg, msg_size, "only read is supported");
		return -EACCES;
	}
	if (off == (int)offsetof(struct sock, sk_pacing_rate))
		end = offsetof(struct sock, sk_pacing_rate) + sizeof(((struct sock *)0)->sk_pacing_rate);
	else if (off == (int)offsetof(struct sock, sk_pacing_status))
		end = offsetof(struct sock, sk_pacing_status) + sizeof(((struct sock *)0)->sk_pacing_status);
	else if (off >= (int)offsetof(struct inet_connection_sock, icsk_ca_priv) &&
		 off < (int)(offsetof(struct inet_connection_sock, icsk_ca_priv) +
			     sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv)))
		end = offsetof(struct inet_connection_sock, icsk_ca_priv) +
		      sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv);
	else if (off == (int)offsetof(struct inet_connection_sock, icsk_ack.pending))
		end = offsetof(struct inet_connection_sock, icsk_ack.pending) +
		      sizeof(((struct inet_connection_sock *)0)->icsk_ack.pending);
	else if (off == (int)offsetof(struct tcp_sock, snd_cwnd))
		end = offsetof(struct tcp_sock, snd_cwnd) + sizeof(__u32);
	else if (off == (int)offsetof(struct tcp_sock, snd_cwnd_cnt))
		end = offsetof(struct tcp_sock, snd_cwnd_cnt) + sizeof(__u32);
	else if (off == (int)offsetof(struct tcp_sock, snd_ssthresh))
		end = offsetof(struct tcp_sock, snd_ssthresh) + sizeof(__u32);
	else if (off == (int)offsetof(struct tcp_sock, ecn_flags))
		end = offsetof(struct tcp_sock, ecn_flags) + sizeof(__u8);
	else {
		snprintf(msg, msg_size, "no write support to tcp_sock at off %d", off);
		return -EACCES;
	}
	if ((size_t)off + (size_t)size > end) {
		snprintf(msg, msg_size, "write access at off %d with size %d beyond the member of tcp_sock ended at %zu",
			 off, size, end);
		return -EACCES;
	}
	return 0;
}

static const struct kbpf_helper_proto *tcp_ca_func_proto_member(const struct kbpf_prog_type *type,
								const struct kbpf_host *host, int32_t id,
								const char *attach_member)
{
	(void)type;
	return kbpf_tcp_helper_proto(host, id, attach_member);
}

static const struct kbpf_helper_proto *tcp_ca_func_proto(const struct kbpf_prog_type *type,
							 const struct kbpf_host *host, int32_t id)
{
	(void)type;
	return kbpf_tcp_helper_proto(host, id, NULL);
}

/* The context is the attach_btf_id argument array the verifier builds; ctx_size is the
 * largest (6 arguments), used only without an attach_btf_id. priv is set to the host at
 * registration (btf_struct_access needs its BTF). */
const struct kbpf_prog_type kbpf_tcp_ca_prog_type = {
	.sz = sizeof(struct kbpf_prog_type),
	.name = KBPF_TCP_CA_PROG_TYPE,
	.linux_type = BPF_PROG_TYPE_STRUCT_OPS,
	.ctx_size = 6 * sizeof(__u64),
	.get_func_proto = tcp_ca_func_proto,
	.load_caps = KBPF_CAP_BPF | KBPF_CAP_PERFMON, /* 6.12: struct_ops is a perfmon type */
	.btf_struct_access = tcp_ca_btf_struct_access,
	.ctx_arg_access = tcp_ca_ctx_arg_access,
	.get_func_proto_member = tcp_ca_func_proto_member,
};
