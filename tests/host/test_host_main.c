/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-test-host: the test host as a program. Its .BTF (added by kbpf_add_host_btf) is
 * what tests load with kbpf_host_btf_load_file and dump with `kbpf btf dump`. Run, it
 * loads its own BTF with kbpf_host_btf_load_self and checks that the BTF describes the
 * layouts the compiler actually used — i.e. that -g + pahole -J produced a truthful
 * description (bitfields, enums, floats, nested types included). Exit 0 when it does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "test_host.h"

static int failures;

#define EXPECT(cond, ...)                                                  \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "kbpf-test-host: " __VA_ARGS__); \
			fputc('\n', stderr);                               \
			failures++;                                        \
		}                                                          \
	} while (0)

static const struct btf_type *find(const struct btf *btf, const char *name, int kind)
{
	int id = btf__find_by_name_kind(btf, name, kind);
	EXPECT(id > 0, "no %s '%s' in the BTF", kind == BTF_KIND_FUNC ? "function" : "type", name);
	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

static const struct btf_member *member(const struct btf *btf, const struct btf_type *t, const char *name,
				       uint32_t *bit_off, uint32_t *bit_size)
{
	const struct btf_member *m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name)) {
			*bit_off = btf_member_bit_offset(t, i);
			*bit_size = btf_member_bitfield_size(t, i);
			return m;
		}
	}
	EXPECT(0, "no member '%s'", name);
	return NULL;
}

static void check_member(const struct btf *btf, const struct btf_type *t, const char *name, size_t off)
{
	uint32_t bit_off, bit_size;
	if (t && member(btf, t, name, &bit_off, &bit_size))
		EXPECT(bit_off == off * 8 && bit_size == 0, "member '%s' at bit %u, the compiler put it at %zu", name,
		       bit_off, off * 8);
}

/* Where the compiler put a bitfield: set all its bits in a zeroed struct and look. */
static void check_bitfield(const struct btf *btf, const struct btf_type *t, const char *name,
			   const unsigned char *bytes, size_t size)
{
	uint32_t bit_off, bit_size, first = 0, count = 0;
	for (uint32_t bit = 0; bit < size * 8; bit++) {
		if (bytes[bit / 8] & (1u << (bit % 8))) {
			if (!count)
				first = bit;
			count++;
		}
	}
	if (t && member(btf, t, name, &bit_off, &bit_size))
		EXPECT(bit_off == first && bit_size == count, "bitfield '%s' is %u:%u in the BTF, %u:%u in memory",
		       name, bit_off, bit_size, first, count);
}

static void check_enum(const struct btf *btf, const char *type, const char *name, long long value)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	if (id < 0)
		id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM64);
	EXPECT(id > 0, "no enum '%s' in the BTF", type);
	if (id < 0)
		return;
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (uint32_t i = 0; i < btf_vlen(t); i++) {
		const char *n;
		long long v;
		if (btf_is_enum(t)) {
			n = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
			v = btf_kflag(t) ? btf_enum(t)[i].val : (long long)(uint32_t)btf_enum(t)[i].val;
		} else {
			n = btf__name_by_offset(btf, btf_enum64(t)[i].name_off);
			v = (long long)btf_enum64_value(&btf_enum64(t)[i]);
		}
		if (!strcmp(n, name)) {
			EXPECT(v == value, "%s is %lld in the BTF, %lld in C", name, v, value);
			return;
		}
	}
	EXPECT(0, "no enumerator %s", name);
}

static void check_func(const struct btf *btf, const char *name, unsigned nparams)
{
	const struct btf_type *f = find(btf, name, BTF_KIND_FUNC);
	if (f) {
		const struct btf_type *proto = btf__type_by_id(btf, f->type);
		EXPECT(proto && btf_is_func_proto(proto) && btf_vlen(proto) == nparams,
		       "function %s does not have %u parameters", name, nparams);
	}
}

#define CHECK_MEMBER(btf, t, type, field) check_member(btf, t, #field, offsetof(type, field))
#define CHECK_BITFIELD(btf, t, type, field, ones)                                       \
	do {                                                                            \
		type v_;                                                                \
		memset(&v_, 0, sizeof(v_));                                            \
		v_.field = ones;                                                        \
		check_bitfield(btf, t, #field, (const unsigned char *)&v_, sizeof(v_)); \
	} while (0)

static int self_check(void)
{
	struct kbpf_host *host = kbpf_host_new();
	int ret = host ? kbpf_host_btf_load_self(host) : -ENOMEM;
	if (ret) {
		fprintf(stderr, "kbpf-test-host: cannot load my own BTF: %s\n", strerror(-ret));
		kbpf_host_free(host);
		return 1;
	}
	const struct btf *btf = kbpf_host_btf(host);

	const struct btf_type *flow = find(btf, "th_flow", BTF_KIND_STRUCT);
	EXPECT(!flow || flow->size == sizeof(struct th_flow), "struct th_flow size");
	CHECK_MEMBER(btf, flow, struct th_flow, id);
	CHECK_MEMBER(btf, flow, struct th_flow, flags);
	CHECK_MEMBER(btf, flow, struct th_flow, ssthresh);
	CHECK_MEMBER(btf, flow, struct th_flow, cwnd);
	CHECK_MEMBER(btf, flow, struct th_flow, srtt_us);
	CHECK_MEMBER(btf, flow, struct th_flow, bytes_acked);
	CHECK_MEMBER(btf, flow, struct th_flow, opts);
	CHECK_MEMBER(btf, flow, struct th_flow, state);
	CHECK_MEMBER(btf, flow, struct th_flow, name);
	CHECK_MEMBER(btf, flow, struct th_flow, refcnt);
	CHECK_BITFIELD(btf, flow, struct th_flow, fastopen, 1);
	CHECK_BITFIELD(btf, flow, struct th_flow, ecn, 3);
	CHECK_BITFIELD(btf, flow, struct th_flow, sack, 1);
	CHECK_BITFIELD(btf, flow, struct th_flow, delta, -1);

	const struct btf_type *conn = find(btf, "th_conn", BTF_KIND_STRUCT);
	EXPECT(!conn || conn->size == sizeof(struct th_conn), "struct th_conn size");
	CHECK_MEMBER(btf, conn, struct th_conn, rtt_us);
	CHECK_MEMBER(btf, conn, struct th_conn, flow);
	const struct btf_type *ctx = find(btf, "th_ctx", BTF_KIND_STRUCT);
	EXPECT(!ctx || ctx->size == sizeof(struct th_ctx), "struct th_ctx size");
	CHECK_MEMBER(btf, ctx, struct th_ctx, stats);
	CHECK_MEMBER(btf, ctx, struct th_ctx, big);
	CHECK_MEMBER(btf, ctx, struct th_ctx, sgn);
	find(btf, "th_addr", BTF_KIND_UNION);
	find(btf, "th_stats_t", BTF_KIND_TYPEDEF);

	check_enum(btf, "th_state", "TH_STATE_RECOVERY", TH_STATE_RECOVERY);
	check_enum(btf, "th_state", "TH_STATE_LOSS", TH_STATE_LOSS);
	check_enum(btf, "th_big", "TH_BIG_LARGE", (long long)TH_BIG_LARGE);
	check_enum(btf, "th_signed", "TH_NEG", TH_NEG);

	check_func(btf, "th_add", 2);
	check_func(btf, "th_mix", 3);
	check_func(btf, "th_sum5", 5);
	check_func(btf, "th_negate", 1);
	check_func(btf, "th_flow_cwnd", 1);
	check_func(btf, "th_flow_set_cwnd", 2);
	check_func(btf, "th_flow_acquire", 1);
	check_func(btf, "th_flow_release", 1);
	check_func(btf, "th_state_is_open", 1);
	check_func(btf, "th_noop", 0);
	check_func(btf, "th_ctx_init", 3);
	check_func(btf, "th_scale", 2);
	check_func(btf, "th_log", 2); /* fmt and the vararg marker */
	/* --btf_gen_floats: double is a FLOAT, not an INT named "double" */
	const struct btf_type *dbl = find(btf, "double", BTF_KIND_FLOAT);
	EXPECT(!dbl || dbl->size == sizeof(double), "double size");

	if (!failures)
		printf("kbpf-test-host: BTF self-check ok (%u types)\n", btf__type_cnt(btf) - 1);
	kbpf_host_free(host);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: kbpf-test-host\n\nCheck that this program's own .BTF describes its types as the "
		       "compiler laid them out.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: kbpf-test-host\n");
		return 2;
	}
	/* Use the functions so that a static link keeps test_host.o (its BTF with it). */
	struct th_flow *f = th_flow_acquire(0);
	int ok = f && th_add(th_flow_cwnd(f), 1) == 11;
	th_flow_release(f);
	if (!ok) {
		fprintf(stderr, "kbpf-test-host: the flow pool is broken\n");
		return 1;
	}
	return self_check();
}
