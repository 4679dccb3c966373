/* SPDX-License-Identifier: Apache-2.0 */
/* The sk_reuseport program type: picks the socket of an SO_REUSEPORT group that gets an
 * incoming connection or datagram (bpf_sk_select_reuseport from a REUSEPORT_SOCKARRAY,
 * SOCKMAP or SOCKHASH), or refuses it (SK_DROP). Linux 6.1's
 * sk_reuseport_is_valid_access, sk_reuseport_func_proto, sk_select_reuseport and
 * bpf_run_sk_reuseport (net/core/filter.c), written from their behaviour.
 *
 * The context is struct sk_reuseport_md, read-only, whose data, data_end, sk and
 * migrating_sk are 64-bit in the program's view already: the run-time context (struct
 * kbpf_linux_reuseport) holds it as it is, then what the program selected, so nothing is
 * converted. Packet data can be read directly (Linux: read-only direct access). Loading
 * needs CAP_BPF only ("equivalent to SOCKET_FILTER" in Linux's is_net_admin_prog_type);
 * Linux's check_return_code leaves the return value unchecked, and Linux has no test
 * run for the type: kbpf_linux_reuseport_run is bpf_run_sk_reuseport. */
#include <errno.h>
#include <string.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include "linux_internal.h"

#define OFF(f) offsetof(struct sk_reuseport_md, f)
#define END(f) (offsetof(struct sk_reuseport_md, f) + sizeof(((struct sk_reuseport_md *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))

static int sk_reuseport_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			       struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct sk_reuseport_md) || size <= 0 || off % size ||
	    access != KBPF_ACCESS_READ)
		return 0;
	if (off == (int)OFF(data) || off == (int)OFF(data_end)) {
		info->reg_type = off == (int)OFF(data) ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
		return size == 8;
	}
	if (off == (int)OFF(hash))
		return size == 4;
	if (off == (int)OFF(sk) || off == (int)OFF(migrating_sk)) {
		info->reg_type = off == (int)OFF(sk) ? KBPF_PTR_TO_SOCKET : KBPF_PTR_TO_SOCK_COMMON | KBPF_PTR_MAYBE_NULL;
		return size == 8;
	}
	/* the narrowable u32 fields; eth_protocol (skb->protocol, 2 bytes) not below 2 */
	if (IN(eth_protocol) && size < 2)
		return 0;
	if (IN(eth_protocol) || IN(ip_protocol) || IN(bind_inany) || IN(len)) {
		info->ctx_field_size = 4;
		return size <= 4 && !(size & (size - 1));
	}
	return 0;
}

/* --- helpers ----------------------------------------------------------------------- */

static struct kbpf_linux_reuseport *CTX(uint64_t r)
{
	return (struct kbpf_linux_reuseport *)(uintptr_t)r;
}

/* sk_select_reuseport(ctx, map, key, flags): flags are unused, as in Linux. */
KBPF_LINUX_HELPER(sk_select_reuseport)
{
	LINUX_UNUSED5(r4, r5, 0, 0, 0);
	struct kbpf_linux_reuseport *ctx = CTX(r1);
	struct kbpf_map *map = (struct kbpf_map *)(uintptr_t)r2;
	const struct kbpf_linux_sock *sk = (const struct kbpf_linux_sock *)ctx->md.sk;
	struct kbpf_linux_sock *sel = kbpf_map_lookup_elem(map, (const void *)(uintptr_t)r3);

	if (!sel)
		return (uint64_t)(int64_t)-ENOENT;
	if (!sel->reuseport_id) /* in no group: a reuseport array holds only sockets that were */
		return (uint64_t)(int64_t)(kbpf_map_type(map) == BPF_MAP_TYPE_REUSEPORT_SOCKARRAY ? -ENOENT : -EINVAL);
	if (sel->reuseport_id != sk->reuseport_id) {
		if (sel->sk.protocol != sk->sk.protocol)
			return (uint64_t)(int64_t)-EPROTOTYPE;
		if (sel->sk.family != sk->sk.family)
			return (uint64_t)(int64_t)-EAFNOSUPPORT;
		return (uint64_t)(int64_t)-EBADFD; /* Linux: likely bound to another address */
	}
	ctx->selected_sk = sel;
	return 0;
}

/* sk_reuseport_load_bytes: bpf_skb_load_bytes on the packet from md.data (the whole
 * packet is linear here: md.len == data_end - data, unless the host says otherwise, and
 * only data .. data_end is read). */
static uint64_t reuseport_load_bytes(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r5;
	const struct kbpf_linux_reuseport *ctx = CTX(r1);
	const uint8_t *data = ctx->md.data, *end = ctx->md.data_end;
	uint32_t off = (uint32_t)r2, len = (uint32_t)r4;
	void *to = (void *)(uintptr_t)r3;

	if (off > INT32_MAX || (uint64_t)off + len > (uint64_t)(end - data)) {
		memset(to, 0, len);
		return (uint64_t)(int64_t)-EFAULT;
	}
	memcpy(to, data + off, len);
	return 0;
}

/* bpf_get_socket_ptr_cookie: the socket's cookie. */
static uint64_t sock_ptr_cookie(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	LINUX_UNUSED5(r2, r3, r4, r5, 0);
	const struct kbpf_linux_sock *sk = (const struct kbpf_linux_sock *)(uintptr_t)r1;
	return sk ? sk->cookie : 0;
}

/* The ids these run as: Linux's helpers 26, 68 and 46 take an skb context elsewhere. */
#define RUN_LOAD_BYTES KBPF_LINUX_RUN_ID(BPF_FUNC_skb_load_bytes)
#define RUN_LOAD_BYTES_RELATIVE KBPF_LINUX_RUN_ID(BPF_FUNC_skb_load_bytes_relative)
#define RUN_SOCK_COOKIE KBPF_LINUX_RUN_ID(BPF_FUNC_get_socket_cookie)

int kbpf_linux_add_reuseport_helpers(struct kbpf_host *host)
{
	int ret = kbpf_host_helper_register(host, RUN_LOAD_BYTES, "bpf_skb_load_bytes", reuseport_load_bytes);

	return ret ? ret : kbpf_host_helper_register(host, RUN_SOCK_COOKIE, "bpf_get_socket_cookie", sock_ptr_cookie);
}

#define UNINIT_MEM (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE)
static const struct kbpf_helper_proto load_bytes_proto = {
	.name = "bpf_skb_load_bytes", .ret_type = KBPF_RET_INTEGER, .run_id = RUN_LOAD_BYTES,
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING, UNINIT_MEM, KBPF_ARG_CONST_SIZE },
};
/* verified only: no run-time helper is registered under its run_id (the header offsets
 * it needs are not in kbpf's context) */
static const struct kbpf_helper_proto load_bytes_relative_proto = {
	.name = "bpf_skb_load_bytes_relative", .ret_type = KBPF_RET_INTEGER, .run_id = RUN_LOAD_BYTES_RELATIVE,
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING, UNINIT_MEM, KBPF_ARG_CONST_SIZE, KBPF_ARG_ANYTHING },
};
/* Linux's takes ARG_PTR_TO_BTF_ID_SOCK_COMMON; this one reads the socket, so it takes no
 * BTF pointer, which kbpf's verifier would not check is a socket (as the casts). */
static const struct kbpf_helper_proto sock_cookie_proto = {
	.name = "bpf_get_socket_cookie", .ret_type = KBPF_RET_INTEGER, .run_id = RUN_SOCK_COOKIE,
	.arg_type = { KBPF_ARG_PTR_TO_SOCK_COMMON },
};

#define END_ID -1
#define ID(x) BPF_FUNC_##x
static const int32_t sk_reuseport_set[] = { ID(sk_select_reuseport), ID(ktime_get_coarse_ns), END_ID };
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc sk_reuseport_desc = { SETS(sk_reuseport_set, kbpf_linux_base_set) };

static const struct kbpf_helper_proto *sk_reuseport_func_proto(const struct kbpf_prog_type *type,
							       const struct kbpf_host *host, int32_t id)
{
	switch (id) {
	case BPF_FUNC_skb_load_bytes: return &load_bytes_proto;
	case BPF_FUNC_skb_load_bytes_relative: return &load_bytes_relative_proto;
	case BPF_FUNC_get_socket_cookie: return &sock_cookie_proto;
	default: return kbpf_linux_get_func_proto(type, host, id);
	}
}

const struct kbpf_prog_type kbpf_linux_sk_reuseport_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sk_reuseport", .linux_type = BPF_PROG_TYPE_SK_REUSEPORT,
	  .ctx_size = sizeof(struct sk_reuseport_md), .ctx_btf_name = "sk_reuseport_md",
	  .is_valid_access = sk_reuseport_access, .get_func_proto = sk_reuseport_func_proto,
	  .direct_packet_access = KBPF_PKT_ACCESS_RDONLY, .priv = (void *)&sk_reuseport_desc,
	  .load_caps = KBPF_CAP_BPF },
};
const size_t kbpf_linux_nr_sk_reuseport_types = 1;

/* --- running ----------------------------------------------------------------------- */

int kbpf_linux_reuseport_init(struct kbpf_linux_reuseport *ctx, struct kbpf_linux_sock *sk, void *data, size_t len,
			      uint32_t hash)
{
	if (!ctx || !sk || (!data && len) || len > UINT32_MAX)
		return -EINVAL;
	memset(ctx, 0, sizeof(*ctx));
	ctx->md.data = data;
	ctx->md.data_end = (uint8_t *)data + len;
	ctx->md.len = (uint32_t)len;
	ctx->md.hash = hash;
	ctx->md.ip_protocol = sk->sk.protocol;
	ctx->md.sk = &sk->sk;
	return 0;
}

int kbpf_linux_reuseport_run(const struct kbpf_prog *prog, struct kbpf_linux_reuseport *ctx,
			     struct kbpf_linux_sock **selected)
{
	uint64_t r0 = 0;
	int ret;

	if (!prog || !ctx || !selected || !ctx->md.sk)
		return -EINVAL;
	ctx->selected_sk = NULL;
	ret = kbpf_prog_run(prog, ctx, &r0);
	if (ret)
		return ret;
	if ((uint32_t)r0 != SK_PASS)
		return -ECONNREFUSED;
	*selected = ctx->selected_sk;
	return 0;
}
