/* SPDX-License-Identifier: Apache-2.0 */
/* The program API: create, options, errors, run entry points. */
#include <errno.h>
#include <kbpf/kbpf.h>
#include "test.h"

static void test_create_and_run(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .name = "plus_one" };
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0;
	size_t cnt = 0;

	CHECK_EQ_U64(kbpf_prog_create(insns, 3, &opts, &prog), 0);
	CHECK_STR(kbpf_prog_name(prog), "plus_one");
	CHECK(kbpf_prog_insns(prog, &cnt) != insns); /* a copy */
	CHECK_EQ_U64(cnt, 3);
	CHECK_EQ_U64(kbpf_prog_run(prog, (void *)41, &r0), 0);
	CHECK_EQ_U64(r0, 42);

	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { 9 } };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 10);
	CHECK_EQ_U64((uint64_t)rr.fault_insn, (uint64_t)-1);
	ro.flags = KBPF_RUN_CHECKED;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 10);
	CHECK_EQ_U64(rr.insns_executed, 3);
	ro.flags = 0x80; /* unknown flag */
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), (uint64_t)-EINVAL);
	ro.flags = 0;
	ro.sz = 8; /* the oldest options: no arguments (the outputs are not in them) */
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 1);
	ro.sz = 4; /* not even sz */
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), (uint64_t)-EINVAL);
	kbpf_prog_free(prog);

	/* NULL options: defaults, which verify nothing, so the program is refused */
	CHECK_EQ_U64(kbpf_prog_create(insns, 3, NULL, &prog), (uint64_t)-EPERM);
	CHECK(prog == NULL);
	/* only trusted_unverified creates it; the name defaults to "prog" */
	struct kbpf_prog_opts trusted = { .sz = sizeof(trusted), .trusted_unverified = 1 };
	char why[256] = "";
	struct kbpf_prog_opts untrusted = { .sz = sizeof(untrusted), .log_buf = why, .log_size = sizeof(why) };
	CHECK_EQ_U64(kbpf_prog_create(insns, 3, &untrusted, &prog), (uint64_t)-EPERM);
	CHECK_CONTAINS(why, "no program type: refusing to create an unverified program");
	CHECK_EQ_U64(kbpf_prog_create(insns, 3, &trusted, &prog), 0);
	CHECK_STR(kbpf_prog_name(prog), "prog");
	kbpf_prog_free(prog);
	kbpf_prog_free(NULL);
}

static void test_create_errors(void)
{
	struct bpf_insn bad[] = { BPF_RAW_INSN(0xff, 0, 0, 0, 0), BPF_EXIT_INSN() };
	struct bpf_insn helper[] = { BPF_EMIT_CALL(99), BPF_EXIT_INSN() };
	char log[128] = "";
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *prog = (void *)1;

	CHECK_EQ_U64(kbpf_prog_create(bad, 2, &opts, &prog), (uint64_t)-EINVAL);
	CHECK(prog == NULL);
	CHECK_STR(log, "insn 0: unknown opcode ff");
	CHECK_EQ_U64(kbpf_prog_create(helper, 2, &opts, &prog), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "insn 0:");
	CHECK_CONTAINS(log, "99");
	CHECK_EQ_U64(kbpf_prog_create(bad, 0, &opts, &prog), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_prog_create(bad, 2, &opts, NULL), (uint64_t)-EINVAL);
	opts.sz = 1;
	CHECK_EQ_U64(kbpf_prog_create(helper, 2, &opts, &prog), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_prog_run(NULL, NULL, NULL), (uint64_t)-EINVAL);
}

static uint64_t add_all(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a + b + c + d + e;
}

static void test_helpers_from_host(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 2), BPF_MOV64_IMM(BPF_REG_3, 3),
		BPF_MOV64_IMM(BPF_REG_4, 4), BPF_MOV64_IMM(BPF_REG_5, 5), BPF_EMIT_CALL(7),
		BPF_EXIT_INSN(),
	};
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host };
	struct kbpf_prog *prog;
	uint64_t r0 = 0;

	CHECK_EQ_U64(kbpf_host_helper_register(host, 7, "add_all", add_all), 0);
	CHECK_EQ_U64(kbpf_prog_create(insns, 7, &opts, &prog), 0);
	CHECK_EQ_U64(kbpf_prog_run(prog, NULL, &r0), 0);
	CHECK_EQ_U64(r0, 15);
	kbpf_prog_free(prog);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_create_and_run);
	RUN(test_create_errors);
	RUN(test_helpers_from_host);
	return test_summary();
}
