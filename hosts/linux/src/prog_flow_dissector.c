/* SPDX-License-Identifier: Apache-2.0 */
/* The flow_dissector program type: parses a packet's headers into struct bpf_flow_keys
 * for the kernel's flow dissector. Linux 6.12's flow_dissector_is_valid_access,
 * flow_dissector_func_proto, flow_dissector_convert_ctx_access and
 * bpf_flow_dissector_load_bytes (net/core/filter.c), written from their behaviour.
 *
 * The program's view is a __sk_buff of which only data and data_end (packet pointers,
 * whole 4-byte reads, never sign-extended) and flow_keys (an 8-byte read giving the
 * verifier's PTR_TO_FLOW_KEYS, which may be read and written inside struct
 * bpf_flow_keys) are readable; nothing is writable. The run-time context is struct
 * kbpf_linux_flow_dissector, to which those three fields are converted. Packet data may
 * be read directly, never written (Linux's may_access_direct_pkt_data). The return value
 * is not checked by the verifier (Linux acts on BPF_OK / BPF_DROP at run time). Loading
 * needs CAP_BPF and CAP_NET_ADMIN (is_net_admin_prog_type). */
#include <errno.h>
#include <string.h>
#include "linux_internal.h"

#define OFF(f) ((int)offsetof(struct __sk_buff, f))

static int flow_dissector_access(const struct kbpf_prog_type *type, int off, int size,
				 enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct __sk_buff) || size <= 0 || off % size ||
	    access != KBPF_ACCESS_READ)
		return 0;
	info->conv_size = sizeof(void *);
	if (off == OFF(data) || off == OFF(data_end)) {
		info->reg_type = off == OFF(data) ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
		info->conv_off = off == OFF(data) ? offsetof(struct kbpf_linux_flow_dissector, data)
						  : offsetof(struct kbpf_linux_flow_dissector, data_end);
		return size == 4;
	}
	if (off == OFF(flow_keys)) {
		info->reg_type = KBPF_PTR_TO_FLOW_KEYS;
		info->conv_off = offsetof(struct kbpf_linux_flow_dissector, flow_keys);
		return size == 8;
	}
	return 0;
}

/* bpf_flow_dissector_load_bytes(ctx, offset, to, len): len bytes at offset from the
 * packet's start; -EFAULT with to zeroed for an offset above 0xffff, a bare buffer (no
 * skb) or bytes past the packet's end. */
static uint64_t flow_dissector_load_bytes(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r5;
	const struct kbpf_linux_flow_dissector *ctx = (const struct kbpf_linux_flow_dissector *)(uintptr_t)r1;
	uint32_t off = (uint32_t)r2, len = (uint32_t)r4;
	void *to = (void *)(uintptr_t)r3;

	if (off > 0xffff || !ctx->from_skb || (uint64_t)off + len > (uint64_t)(ctx->data_end - ctx->data)) {
		memset(to, 0, len);
		return (uint64_t)(int64_t)-EFAULT;
	}
	memcpy(to, ctx->data + off, len);
	return 0;
}

/* Linux's helper 26 takes an skb; this type's runs on its own context. */
#define RUN_LOAD_BYTES KBPF_LINUX_RUN_ID(0x100 + BPF_FUNC_skb_load_bytes)

int kbpf_linux_add_flow_dissector_helpers(struct kbpf_host *host)
{
	return kbpf_host_helper_register(host, RUN_LOAD_BYTES, "bpf_skb_load_bytes", flow_dissector_load_bytes);
}

static const struct kbpf_helper_proto load_bytes_proto = {
	.name = "bpf_skb_load_bytes", .ret_type = KBPF_RET_INTEGER, .run_id = RUN_LOAD_BYTES,
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_ANYTHING,
		      KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE, KBPF_ARG_CONST_SIZE },
};

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc flow_dissector_desc = { SETS(kbpf_linux_sk_base_set, kbpf_linux_base_set) };

static const struct kbpf_helper_proto *flow_dissector_func_proto(const struct kbpf_prog_type *type,
								 const struct kbpf_host *host, int32_t id)
{
	if (id == BPF_FUNC_skb_load_bytes)
		return &load_bytes_proto;
	return kbpf_linux_get_func_proto(type, host, id);
}

const struct kbpf_prog_type kbpf_linux_flow_dissector_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "flow_dissector", .linux_type = BPF_PROG_TYPE_FLOW_DISSECTOR,
	  .ctx_size = offsetof(struct __sk_buff, hwtstamp) + 8, .ctx_btf_name = "__sk_buff",
	  .is_valid_access = flow_dissector_access, .get_func_proto = flow_dissector_func_proto,
	  .direct_packet_access = KBPF_PKT_ACCESS_RDONLY, .priv = (void *)&flow_dissector_desc,
	  .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
};
const size_t kbpf_linux_nr_flow_dissector_types = 1;
