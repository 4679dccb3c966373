/* SPDX-License-Identifier: Apache-2.0 */
/* A map lookup's result before its NULL check, when the value is an object (attack6,
 * tests/verifier/attack6): an outer map's is the template inner map, maybe NULL (the
 * live 6.18 kernel's map_ptr_or_null; the log keeps 6.12's name map_value_or_null), a
 * socket map's the socket (sock_or_null). Before, both were maybe-NULL map values of
 * 4 or 8 bytes, as in 6.12, and whatever takes maybe-NULL memory took them: a global
 * function `int f(int *p)` wrote into the inner map object (over its ops pointer: the
 * host then called through a pointer the program chose) or into the socket object;
 * bpf_csum_diff in a tc program read the low half of the inner map's ops pointer (R0 was
 * its complement on the interpreter, checked mode and the JIT), a host address for a
 * loader without CAP_PERFMON. The NULL-checked paths are test_map_of_maps's and
 * test_linux_sock_map's. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct kbpf_map *make_map(uint32_t type, uint32_t value, struct kbpf_map *inner)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = value,
				    .max_entries = 2, .name = "m", .inner_map = inner };
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static char log_buf[1 << 14];

static void expect_refused_btf(struct kbpf_host *host, struct kbpf_map *outer, const struct bpf_insn *insns,
			       size_t n, const char *msg, const struct btf *btf, const struct bpf_func_info *fi,
			       uint32_t nr_fi)
{
	struct kbpf_map *maps[1] = { outer };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .maps = maps,
				      .nr_maps = 1, .license = "GPL", .log_level = 1, .log_buf = log_buf,
				      .log_size = sizeof(log_buf), .prog_btf = btf, .func_info = fi,
				      .nr_func_info = nr_fi };

	log_buf[0] = 0;
	CHECK(kbpf_prog_verify(insns, n, &o, NULL) != 0);
	if (!strstr(log_buf, msg)) {
		fprintf(stderr, "expected \"%s\" in:\n%s\n", msg, log_buf);
		CHECK(0);
	}
}

static void expect_refused(struct kbpf_host *host, struct kbpf_map *outer, const struct bpf_insn *insns, size_t n,
			   const char *msg)
{
	expect_refused_btf(host, outer, insns, n, msg, NULL, NULL, 0);
}

#define LOOKUP_OUTER                                           \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),                  \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                  \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),                 \
	BPF_LD_MAP_FD(BPF_REG_1, 0),                           \
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)

/* name: int (one parameter of type arg) */
static int add_func(struct btf *btf, const char *name, int linkage, int int_id, int arg)
{
	int proto = btf__add_func_proto(btf, int_id);

	btf__add_func_param(btf, "a", arg);
	return btf__add_func(btf, name, linkage, proto);
}

/* main(ctx) { v = lookup(map, 0); f(v); if (v && release) sk_release(v); } and
 * global int f(int *p) { if (p) *p = 0x41414141; } */
static void global_writes(struct kbpf_host *host, struct kbpf_map *map, bool release)
{
	const struct bpf_insn insns[] = {
		LOOKUP_OUTER,
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 5),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, 2),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_EMIT_CALL(release ? BPF_FUNC_sk_release : BPF_FUNC_get_prandom_u32),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 0x41414141),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct btf *btf = btf__new_empty();
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int main_fn = add_func(btf, "main", BTF_FUNC_STATIC, int_id,
			       btf__add_ptr(btf, btf__add_fwd(btf, "__sk_buff", BTF_FWD_STRUCT)));
	int f_fn = add_func(btf, "f", BTF_FUNC_GLOBAL, int_id, btf__add_ptr(btf, int_id));
	const struct bpf_func_info fi[2] = { { 0, (uint32_t)main_fn }, { 14, (uint32_t)f_fn } };

	CHECK(main_fn > 0 && f_fn > 0);
	expect_refused_btf(host, map, insns, N(insns), "Caller passes invalid args into func#1", btf, fi, 2);
	btf__free(btf);
}

static void test_unchecked_value_as_memory(void)
{
	struct kbpf_host *host = linux_host();
	const struct bpf_insn csum[] = {
		LOOKUP_OUTER,
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 4),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_MOV64_IMM(BPF_REG_5, 0),
		BPF_EMIT_CALL(BPF_FUNC_csum_diff),
		BPF_EXIT_INSN(),
	};
	/* the inner map itself, unchecked, as a map argument */
	const struct bpf_insn inner_lookup[] = {
		LOOKUP_OUTER,
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	uint32_t outer_types[] = { BPF_MAP_TYPE_ARRAY_OF_MAPS, BPF_MAP_TYPE_HASH_OF_MAPS };

	CHECK(host != NULL);
	if (!host)
		return;
	for (size_t i = 0; i < N(outer_types); i++) {
		struct kbpf_map *tmpl = make_map(BPF_MAP_TYPE_ARRAY, 8, NULL);
		struct kbpf_map *outer = make_map(outer_types[i], 4, tmpl);

		expect_refused(host, outer, csum, N(csum),
			       "R1 type=map_value_or_null expected=fp, pkt, pkt_meta, map_key, map_value, mem");
		expect_refused(host, outer, inner_lookup, N(inner_lookup), "R1 type=map_value_or_null expected=map_ptr");
		global_writes(host, outer, false);
		kbpf_map_free(outer);
		kbpf_map_free(tmpl);
	}
	kbpf_host_free(host);
}

static void test_socket_map_value_as_memory(void)
{
	struct kbpf_host *host = linux_host();
	uint32_t types[] = { BPF_MAP_TYPE_SOCKMAP, BPF_MAP_TYPE_SOCKHASH, BPF_MAP_TYPE_XSKMAP };

	CHECK(host != NULL);
	if (!host)
		return;
	for (size_t i = 0; i < N(types); i++) {
		struct kbpf_map *m = make_map(types[i], types[i] == BPF_MAP_TYPE_XSKMAP ? 4 : 8, NULL);

		global_writes(host, m, types[i] != BPF_MAP_TYPE_XSKMAP);
		kbpf_map_free(m);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_unchecked_value_as_memory);
	RUN(test_socket_map_value_as_memory);
	return test_summary();
}
