/* SPDX-License-Identifier: Apache-2.0 */
/* Objects against a real host: the test host (tests/host, built with kbpf_add_host_btf)
 * whose struct layouts differ from what tests/bpf/core_host.bpf.c declares. Load applies
 * the CO-RE relocations against the host's BTF, and the programs read the host's own
 * structs correctly on the interpreter. Kfunc externs (tests/bpf/kfunc_host.bpf.c)
 * resolve to the host's BTF ids, and a prototype that does not match the host's fails
 * the load naming both. The build defines KBPF_TEST_HOST (the host binary) when host
 * BTF is enabled; without it the test says it skipped. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "test_object_util.h"

#ifdef KBPF_TEST_HOST
#include "test_host.h"

static struct kbpf_host *core_host_new(void)
{
	struct kbpf_host *host = test_host_new();
	int ret = host ? kbpf_host_btf_load_file(host, KBPF_TEST_HOST) : -ENOMEM;
	if (ret) {
		fprintf(stderr, "host BTF from %s: %d\n", KBPF_TEST_HOST, ret);
		test_failed_now = 1;
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

/* R1 = ctx; the host structs are the memory checked mode allows. */
static uint64_t run_on(struct kbpf_object *obj, const char *name, struct th_ctx *ctx, int checked, int *err)
{
	struct kbpf_program *p = kbpf_object_find_program(obj, name);
	char msg[256] = "";
	struct kbpf_mem_region regions[] = {
		{ ctx, sizeof(*ctx), KBPF_MEM_READ, "ctx" },
		{ ctx->flow, sizeof(*ctx->flow), KBPF_MEM_READ, "flow" },
		{ ctx->conn, sizeof(*ctx->conn), KBPF_MEM_READ, "conn" },
	};
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx }, .flags = checked ? KBPF_RUN_CHECKED : 0,
		.regions = regions, .nr_regions = 3, .err = msg, .err_size = sizeof(msg),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };

	*err = p && kbpf_program_prog(p) ? kbpf_prog_run_opts(kbpf_program_prog(p), &ro, &rr) : -ENOENT;
	if (*err)
		snprintf(test_log, sizeof(test_log), "%s", msg);
	return rr.retval;
}

static void test_core_relocations(void)
{
	struct kbpf_host *host = core_host_new();
	struct kbpf_object *obj = host ? load_obj("core_host", host) : NULL;
	struct th_flow flow = { .id = 9, .flags = 0xffffffff, .ssthresh = 300, .cwnd = 20, .srtt_us = 5,
				.bytes_acked = 7, .fastopen = 1, .ecn = 2, .sack = 1, .state = TH_STATE_LOSS };
	struct th_conn conn = { .lost = 3, .rtt_us = 400, .retrans = 2, .flow = &flow };
	struct th_ctx ctx;
	int err;

	if (!obj)
		goto out;
	th_ctx_init(&ctx, &flow, &conn);
	for (int checked = 0; checked < 2; checked++) {
		CHECK_EQ_U64(run_on(obj, "read_flow", &ctx, checked, &err), 20 + 300 + 7);
		CHECK_EQ_U64(err, 0);
		/* srtt: gone; cwnd: there; TH_STATE_CLOSED: gone; RECOVERY: 5 in the host */
		CHECK_EQ_U64(run_on(obj, "probe_fields", &ctx, checked, &err), 10 + 5000);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(run_on(obj, "read_bits", &ctx, checked, &err), 21);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(run_on(obj, "conn_rtt", &ctx, checked, &err), 402);
		CHECK_EQ_U64(err, 0);
	}
	kbpf_object_close(obj);

	/* a relocation that cannot be resolved poisons its instruction; the log says which
	 * and the program stops if it gets there */
	obj = open_obj("core_host", host);
	if (!obj)
		goto out;
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "reads_missing"), true);
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK_CONTAINS(kbpf_object_log(obj), "program 'reads_missing': ");
	CHECK_CONTAINS(kbpf_object_log(obj), "srtt");
	run_on(obj, "reads_missing", &ctx, 1, &err);
	CHECK(err != 0);
	kbpf_object_close(obj);
out:
	kbpf_host_free(host);
}

/* Without host BTF, CO-RE cannot resolve: the load says what is missing. */
static void test_core_without_host_btf(void)
{
	struct kbpf_object *obj = open_obj("core_host", NULL);

	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_object_load(obj), -ESRCH);
	CHECK_CONTAINS(kbpf_object_log(obj), "needs the host's BTF, and the host has none");
	kbpf_object_close(obj);
}

static void test_kfunc_resolution(void)
{
	struct kbpf_host *host = core_host_new();
	struct kbpf_object *obj = host ? open_obj("kfunc_host", host) : NULL;
	const struct bpf_insn *insns;
	size_t cnt, calls = 0;
	int id;

	if (!obj)
		goto out;
	id = btf__find_by_name_kind(kbpf_host_btf(host), "th_add", BTF_KIND_FUNC);
	CHECK(id > 0);
	/* kfunc calls reach the interpreter with the kfunc work; until then the load may stop
	 * at creating the program, after linking */
	int ret = kbpf_object_load(obj);
	if (ret)
		CHECK_CONTAINS(kbpf_object_log(obj), "kfunc");
	insns = kbpf_program_insns(kbpf_object_find_program(obj, "add"), &cnt);
	for (size_t i = 0; i < cnt; i++) {
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_KFUNC_CALL) {
			/* th_missing (weak, absent): 0; th_add: its host BTF id */
			CHECK(insns[i].imm == 0 || insns[i].imm == id);
			calls += insns[i].imm == id;
		}
	}
	CHECK_EQ_U64(calls, 1);
	kbpf_object_close(obj);

	/* a prototype that does not match the host's: both named */
	obj = open_obj("kfunc_host", host);
	if (!obj)
		goto out;
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "mix"), true);
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "add"), false);
	CHECK_EQ_U64(kbpf_object_load(obj), -EINVAL);
	CHECK_CONTAINS(kbpf_object_log(obj), "program 'mix': extern (func ksym) 'th_mix': ");
	CHECK_CONTAINS(kbpf_object_log(obj), "th_mix(unsigned char");
	CHECK_CONTAINS(kbpf_object_log(obj), "th_mix(u8 a, s16 b, u32 c)");
	kbpf_object_close(obj);
out:
	kbpf_host_free(host);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_core_relocations);
	RUN(test_core_without_host_btf);
	RUN(test_kfunc_resolution);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: no test host with BTF (KBPF_HOST_BTF=OFF)\n");
	return 0;
}

#endif
