/* SPDX-License-Identifier: Apache-2.0 */
/* The sk_lookup program type: a struct bpf_sk_lookup describing an incoming connection
 * or datagram; the program picks the socket to deliver it to (bpf_sk_assign) and returns
 * SK_PASS or SK_DROP. Linux 6.1's sk_lookup_is_valid_access and sk_lookup_func_proto
 * (net/core/filter.c), written from their behaviour. Read-only context; the run-time
 * context is struct bpf_sk_lookup itself (sk a real pointer or NULL). Loading needs
 * CAP_BPF only (it is not among Linux's net-admin types). */
#include "linux_internal.h"

#define OFF(f) offsetof(struct bpf_sk_lookup, f)
#define END(f) (offsetof(struct bpf_sk_lookup, f) + sizeof(((struct bpf_sk_lookup *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))
#define IN_RANGE(f, g) (off >= (int)OFF(f) && off < (int)END(g))

/* A narrow read of a field of field_size bytes: a power of two, aligned (off % size is
 * checked before), within the field. */
static int narrow_ok(int size, uint32_t field_size, struct kbpf_ctx_access_info *info)
{
	info->ctx_field_size = field_size;
	return size <= (int)field_size && !(size & (size - 1));
}

static int sk_lookup_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			    struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct bpf_sk_lookup) || size <= 0 || off % size ||
	    access != KBPF_ACCESS_READ)
		return 0;
	if (IN(sk)) {
		info->reg_type = KBPF_PTR_TO_SOCKET | KBPF_PTR_MAYBE_NULL;
		return size == 8;
	}
	if (IN(family) || IN(protocol) || IN(remote_ip4) || IN(local_ip4) || IN_RANGE(remote_ip6[0], remote_ip6[3]) ||
	    IN_RANGE(local_ip6[0], local_ip6[3]) || IN(local_port) || IN(ingress_ifindex))
		return narrow_ok(size, 4, info);
	if (IN(remote_port)) {
		if (size == 4)
			return 1; /* a 4-byte read of the 2-byte field: Linux's backward compatibility */
		return narrow_ok(size, 2, info);
	}
	/* the 2 bytes of zero padding after remote_port, also for backward compatibility */
	if (off >= (int)END(remote_port) && off < (int)OFF(local_ip4))
		return narrow_ok(size, 2, info);
	return 0;
}

/* bpf_sk_lookup_assign_proto: the socket may be NULL (to clear a selection). tc's
 * bpf_sk_assign takes a different socket argument: this one is sk_lookup's own. */
static const struct kbpf_helper_proto sk_assign_proto = {
	.name = "bpf_sk_assign", .ret_type = KBPF_RET_INTEGER,
	.arg_type = { KBPF_ARG_PTR_TO_CTX, KBPF_ARG_PTR_TO_SOCKET | KBPF_ARG_MAYBE_NULL, KBPF_ARG_ANYTHING },
};

#define END_ID -1
#define ID(x) BPF_FUNC_##x
static const int32_t sk_lookup_set[] = { ID(perf_event_output), ID(sk_release), END_ID };
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc sk_lookup_desc = { SETS(sk_lookup_set, kbpf_linux_sk_base_set,
							    kbpf_linux_base_set) };

static const struct kbpf_helper_proto *sk_lookup_func_proto(const struct kbpf_prog_type *type,
							    const struct kbpf_host *host, int32_t id)
{
	if (id == BPF_FUNC_sk_assign)
		return &sk_assign_proto;
	return kbpf_linux_get_func_proto(type, host, id);
}

/* check_return_code: SK_DROP (0) or SK_PASS (1). */
const struct kbpf_prog_type kbpf_linux_sk_lookup_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sk_lookup", .linux_type = BPF_PROG_TYPE_SK_LOOKUP,
	  .ctx_size = sizeof(struct bpf_sk_lookup), .ctx_btf_name = "bpf_sk_lookup",
	  .is_valid_access = sk_lookup_access, .get_func_proto = sk_lookup_func_proto, .has_ret_range = 1,
	  .ret_min = SK_DROP, .ret_max = SK_PASS, .priv = (void *)&sk_lookup_desc, .load_caps = KBPF_CAP_BPF },
};
const size_t kbpf_linux_nr_sk_lookup_types = 1;
