/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls on the interpreter: every argument narrowed/extended to its BTF size and
 * signedness before the call and R0 after it, whatever the upper bits of the registers
 * (u8/s8/u16/s16/u32/s32/u64/bool/pointer arguments and results), in fast and checked
 * runs and on the JIT (direct calls, same results, also on random arguments and dirty
 * registers: a focused differential test); disassembly names the
 * kfunc; a clang-compiled object calls the host, and one whose extern prototype no
 * longer matches the host's fails to load naming both (the ABI question). The host is
 * this test binary (tests/host/kfunc_funcs.c, BTF from kbpf_add_host_btf). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "test.h"

#ifdef KBPF_TEST_KFUNC_HOST
#include "kfunc_funcs.h"

static struct kbpf_host *host;

static const struct kbpf_kfunc test_kfuncs[] = {
	KBPF_KFUNC(kt_arg_u8, 0),   KBPF_KFUNC(kt_arg_s8, 0),    KBPF_KFUNC(kt_arg_u16, 0),
	KBPF_KFUNC(kt_arg_s16, 0),  KBPF_KFUNC(kt_arg_u32, 0),   KBPF_KFUNC(kt_arg_s32, 0),
	KBPF_KFUNC(kt_arg_u64, 0),  KBPF_KFUNC(kt_arg_bool, 0),  KBPF_KFUNC(kt_ret_u8, 0),
	KBPF_KFUNC(kt_ret_s8, 0),   KBPF_KFUNC(kt_ret_u16, 0),   KBPF_KFUNC(kt_ret_s16, 0),
	KBPF_KFUNC(kt_ret_u32, 0),  KBPF_KFUNC(kt_ret_s32, 0),   KBPF_KFUNC(kt_ret_bool, 0),
	KBPF_KFUNC(kt_ptr_read, 0), KBPF_KFUNC(kt_ptr_next, 0),  KBPF_KFUNC(kt_ptr_store, 0),
	KBPF_KFUNC(kt_mix5, 0),     KBPF_KFUNC(kt_sum5, 0),      KBPF_KFUNC(kt_inc, 0),
};

/* Run "r1 = arg (64-bit); call name; exit" fast, checked and with a JIT request; all three
 * must agree. Returns R0. */
static uint64_t call1(const char *name, uint64_t arg)
{
	struct bpf_insn insns[] = {
		BPF_LD_IMM64(BPF_REG_1, arg),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, name, BTF_KIND_FUNC)),
		BPF_EXIT_INSN(),
	};
	char log[256] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL, *pj = NULL;
	uint64_t r0 = 0xdead, rj = 0xbeef;

	if (kbpf_prog_create(insns, 4, &o, &p)) {
		fprintf(stderr, "%s: %s\n", name, log);
		CHECK(0);
		return 0xdead;
	}
	CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, r0);
	kbpf_prog_free(p);
	/* the JIT calls the kfunc directly, narrowing as the interpreter does */
	o.jit = 1;
	int ret = kbpf_prog_create(insns, 4, &o, &pj);
	if (ret == -EOPNOTSUPP)
		return r0; /* not an x86-64 host */
	CHECK_EQ_U64(ret, 0);
	if (pj) {
		CHECK_EQ_U64(kbpf_prog_is_jited(pj), 1);
		CHECK_EQ_U64(kbpf_prog_run(pj, NULL, &rj), 0);
		CHECK_EQ_U64(rj, r0);
		kbpf_prog_free(pj);
	}
	return r0;
}

static void test_narrow_args(void)
{
	const uint64_t dirty = 0x123456789abc0000ull;

	CHECK_EQ_U64(call1("kt_arg_u8", dirty | 0xff), 0xff);
	CHECK_EQ_U64(call1("kt_arg_s8", dirty | 0xff), (uint64_t)-1);
	CHECK_EQ_U64(call1("kt_arg_s8", dirty | 0x7f), 0x7f);
	CHECK_EQ_U64(call1("kt_arg_u16", dirty | 0x8001), 0x8001);
	CHECK_EQ_U64(call1("kt_arg_s16", dirty | 0x8001), (uint64_t)(int64_t)(int16_t)0x8001);
	CHECK_EQ_U64(call1("kt_arg_u32", 0xfedcba9880000001ull), 0x80000001);
	CHECK_EQ_U64(call1("kt_arg_s32", 0xfedcba9880000001ull), 0xffffffff80000001ull);
	CHECK_EQ_U64(call1("kt_arg_u64", 0xfedcba9880000001ull), 0xfedcba9880000001ull);
	CHECK_EQ_U64(call1("kt_arg_bool", 0x100), 0); /* a bool is its low byte, as in C */
	CHECK_EQ_U64(call1("kt_arg_bool", 0x101), 1);
}

static void test_narrow_returns(void)
{
	CHECK_EQ_U64(call1("kt_ret_u8", 0x1ff), 0xff);
	CHECK_EQ_U64(call1("kt_ret_s8", 0x180), 0xffffffffffffff80ull);
	CHECK_EQ_U64(call1("kt_ret_s8", 0x17f), 0x7f);
	CHECK_EQ_U64(call1("kt_ret_u16", 0x1ffff), 0xffff);
	CHECK_EQ_U64(call1("kt_ret_s16", 0x18000), 0xffffffffffff8000ull);
	CHECK_EQ_U64(call1("kt_ret_u32", 0x1ffffffffull), 0xffffffff);
	CHECK_EQ_U64(call1("kt_ret_s32", 0x80000000ull), 0xffffffff80000000ull);
	CHECK_EQ_U64(call1("kt_ret_s32", 0x17fffffffull), 0x7fffffff);
	CHECK_EQ_U64(call1("kt_ret_bool", 0x100), 1);
	CHECK_EQ_U64(call1("kt_ret_bool", 0), 0);
}

static void test_pointers_and_five_args(void)
{
	uint64_t cell[2] = { 0x1122334455667788ull, 0 };
	/* r6 = &cell (a host pointer through the context); kt_ptr_store(r6, 99);
	 * r0 = kt_ptr_read(kt_ptr_next(r6) - 8) + kt_mix5(dirty registers) */
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 99),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, "kt_ptr_store", BTF_KIND_FUNC)),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, "kt_ptr_next", BTF_KIND_FUNC)),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, -8),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, "kt_ptr_read", BTF_KIND_FUNC)),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_LD_IMM64(BPF_REG_1, 0xffffffffffffff01ull), /* u8: 1 */
		BPF_LD_IMM64(BPF_REG_2, 0x123456780000fffeull), /* s16: -2 */
		BPF_LD_IMM64(BPF_REG_3, 0xdeadbeef00000003ull), /* u32: 3 */
		BPF_LD_IMM64(BPF_REG_4, 0x00000001fffffffcull), /* s32: -4 */
		BPF_MOV64_IMM(BPF_REG_5, 7),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, "kt_mix5", BTF_KIND_FUNC)),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	size_t cnt = sizeof(insns) / sizeof(insns[0]);
	char log[256] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	uint64_t r0 = 0;

	CHECK_EQ_U64(kbpf_prog_create(insns, cnt, &o, &p), 0);
	if (!p) {
		fprintf(stderr, "%s\n", log);
		return;
	}
	CHECK_EQ_U64(kbpf_prog_run(p, cell, &r0), 0);
	CHECK_EQ_U64(cell[0], 99);
	CHECK_EQ_U64(r0, 99 + 1 - 2 + 3 - 4 + 7);
	/* checked mode: the kfuncs are host code, not checked; the program's own accesses are */
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .args = { (uint64_t)(uintptr_t)cell } };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	cell[0] = 0;
	CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 99 + 5);
	kbpf_prog_free(p);

	o.jit = 1;
	p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(insns, cnt, &o, &p), 0);
	if (!p)
		return;
	CHECK_EQ_U64(kbpf_prog_is_jited(p), 1);
	cell[0] = 0;
	r0 = 0;
	CHECK_EQ_U64(kbpf_prog_run(p, cell, &r0), 0);
	CHECK_EQ_U64(cell[0], 99);
	CHECK_EQ_U64(r0, 99 + 5);
	kbpf_prog_free(p);
}

/* xorshift64*: reproducible random values for the differential test */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Differential: random chains of kfunc calls with random (dirty) 64-bit arguments on the
 * interpreter and the JIT; R0 of every call is folded into R6 (rotate-xor), so a single
 * differing bit of any argument narrowing or result extension shows. */
static void test_jit_differential(void)
{
	static const char *const fns[] = {
		"kt_arg_u8", "kt_arg_s8", "kt_arg_u16", "kt_arg_s16", "kt_arg_u32", "kt_arg_s32", "kt_arg_u64",
		"kt_arg_bool", "kt_ret_u8", "kt_ret_s8", "kt_ret_u16", "kt_ret_s16", "kt_ret_u32", "kt_ret_s32",
		"kt_ret_bool", "kt_mix5", "kt_sum5", "kt_inc",
	};
	const size_t nfns = sizeof(fns) / sizeof(fns[0]);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned progs = 0, jited = 0;

	for (int round = 0; round < 300; round++) {
		struct bpf_insn insns[8 * 16 + 8];
		size_t n = 0;
		unsigned calls = 1 + (unsigned)(rnd(&seed) % 8);

		insns[n++] = BPF_MOV64_IMM(BPF_REG_6, 0);
		for (unsigned k = 0; k < calls; k++) {
			for (int r = BPF_REG_1; r <= BPF_REG_5; r++) {
				uint64_t v = rnd(&seed);
				/* bias towards the edges where narrowing matters */
				switch (rnd(&seed) % 4) {
				case 0: v = (v & ~0xffull) | 0x80; break;
				case 1: v = (v & ~0xffffull) | 0x8000; break;
				case 2: v = (v & ~0xffffffffull) | 0x80000000ull; break;
				}
				struct bpf_insn ld[2] = { BPF_LD_IMM64(r, v) };
				insns[n++] = ld[0];
				insns[n++] = ld[1];
			}
			insns[n++] = BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
						  test_btf_id(host, fns[rnd(&seed) % nfns], BTF_KIND_FUNC));
			insns[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_6, 7);
			insns[n++] = BPF_ALU64_REG(BPF_XOR, BPF_REG_6, BPF_REG_0);
		}
		insns[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_6);
		insns[n++] = BPF_EXIT_INSN();

		char log[256] = "";
		struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *pi = NULL, *pj = NULL;
		uint64_t ri = 1, rj = 2;

		CHECK_EQ_U64(kbpf_prog_create(insns, n, &o, &pi), 0);
		o.jit = 1;
		int ret = kbpf_prog_create(insns, n, &o, &pj);
		if (ret == -EOPNOTSUPP) {
			kbpf_prog_free(pi);
			return;
		}
		CHECK_EQ_U64(ret, 0);
		if (pi && pj) {
			progs++;
			jited += (unsigned)kbpf_prog_is_jited(pj);
			CHECK_EQ_U64(kbpf_prog_run(pi, NULL, &ri), 0);
			CHECK_EQ_U64(kbpf_prog_run(pj, NULL, &rj), 0);
			if (ri != rj)
				fprintf(stderr, "round %d: interpreter %#llx, JIT %#llx\n", round,
					(unsigned long long)ri, (unsigned long long)rj);
			CHECK_EQ_U64(rj, ri);
		}
		kbpf_prog_free(pi);
		kbpf_prog_free(pj);
	}
	CHECK_EQ_U64(jited, progs);
	printf("test_jit_differential: %u random kfunc programs, interpreter == JIT\n", progs);
}

static const char *kfunc_name(void *cookie, int32_t id)
{
	return kbpf_host_kfunc_name(cookie, (uint32_t)id);
}

static void test_disasm_and_weak(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(host, "kt_inc", BTF_KIND_FUNC)),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 2, 1),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 0), /* an absent __weak kfunc */
		BPF_EXIT_INSN(),
	};
	struct kbpf_disasm_opts d = { .sz = sizeof(d), .kfunc_name = kfunc_name, .cookie = host };
	char buf[128], want[64];
	struct kbpf_prog *p = NULL;
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host };
	uint64_t r0 = 0;

	CHECK_EQ_U64(kbpf_insn_disasm(insns, 5, 1, &d, buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want), "call kt_inc#%u", (uint32_t)test_btf_id(host, "kt_inc", BTF_KIND_FUNC));
	CHECK_STR(buf, want);
	CHECK_EQ_U64(kbpf_insn_disasm(insns, 5, 3, &d, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "call kfunc#0");
	/* imm 0 behind a branch: created, runs while not reached */
	CHECK_EQ_U64(kbpf_prog_create(insns, 5, &o, &p), 0);
	CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
	CHECK_EQ_U64(r0, 2);
	kbpf_prog_free(p);
	insns[0].imm = 5; /* now it is reached: a run-time stop */
	CHECK_EQ_U64(kbpf_prog_create(insns, 5, &o, &p), 0);
	CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), -EINVAL);
	kbpf_prog_free(p);
	/* module BTF (off != 0) */
	insns[1].off = 1;
	char log[256] = "";
	o.log_buf = log;
	o.log_size = sizeof(log);
	CHECK_EQ_U64(kbpf_prog_create(insns, 5, &o, &p), -EINVAL);
	CHECK_CONTAINS(log, "insn 1: kfunc call with off 1: module BTF (fd_array) is not supported");
}

static struct kbpf_object *open_obj_jit(char *log, size_t log_size, int jit)
{
#ifdef KBPF_TEST_BPF_OBJ_DIR
	char path[512];
	struct kbpf_object *obj = NULL;
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = log_size,
					    .jit = jit };

	snprintf(path, sizeof(path), "%s/kfunc_call.bpf.o", KBPF_TEST_BPF_OBJ_DIR);
	if (access(path, R_OK))
		return NULL;
	CHECK_EQ_U64(kbpf_object_open_file(path, &oo, &obj), 0);
	return obj;
#else
	(void)log;
	(void)log_size;
	(void)jit;
	return NULL;
#endif
}

static struct kbpf_object *open_obj(char *log, size_t log_size)
{
	return open_obj_jit(log, log_size, 0);
}

static void test_object(void)
{
	char log[2048] = "";
	struct kbpf_object *obj = open_obj(log, sizeof(log));
	uint64_t r0 = 0;

	if (!obj) {
		printf("test_object: skipped (kfunc_call.bpf.o not built: no clang)\n");
		return;
	}
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK_EQ_U64(kbpf_program_run(kbpf_object_find_program(obj, "call_kfuncs"), NULL, &r0), 0);
	CHECK_EQ_U64(r0, 42);
	kbpf_object_close(obj);

	/* the same object on the JIT: clang's code calling the host directly */
	obj = open_obj_jit(log, sizeof(log), 1);
	if (obj) {
		r0 = 0;
		CHECK_EQ_U64(kbpf_object_load(obj), 0);
		CHECK_EQ_U64(kbpf_prog_is_jited(kbpf_program_prog(kbpf_object_find_program(obj, "call_kfuncs"))), 1);
		CHECK_EQ_U64(kbpf_program_run(kbpf_object_find_program(obj, "call_kfuncs"), NULL, &r0), 0);
		CHECK_EQ_U64(r0, 42);
		kbpf_object_close(obj);
	}

	/* the ABI question: the object's kt_sum5 is not the host's any more */
	obj = open_obj(log, sizeof(log));
	if (!obj)
		return;
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "call_kfuncs"), false);
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "old_abi"), true);
	CHECK_EQ_U64(kbpf_object_load(obj), -EINVAL);
	CHECK_CONTAINS(kbpf_object_log(obj), "program 'old_abi': extern (func ksym) 'kt_sum5'");
	CHECK_CONTAINS(kbpf_object_log(obj), "extern '__u64 kt_sum5(__u64, __u64)' does not match host");
	CHECK_CONTAINS(kbpf_object_log(obj),
		       "uint64_t kt_sum5(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)");
	kbpf_object_close(obj);
}

int main(void)
{
	char log[512] = "";
	struct kbpf_kfunc_set_opts so = {
		.sz = sizeof(so), .name = "kfunc_call_test", .funcs = test_kfuncs,
		.nr_funcs = sizeof(test_kfuncs) / sizeof(test_kfuncs[0]),
		.prog_types = (const char *const[]){ "tc", NULL }, .log_buf = log, .log_size = sizeof(log),
	};

	host = kbpf_host_new();
	if (!host || kbpf_host_btf_load_self(host) || kbpf_host_kfunc_set_register(host, &so, NULL)) {
		fprintf(stderr, "setting up the host: %s\n", log);
		return 1;
	}
	RUN(test_narrow_args);
	RUN(test_narrow_returns);
	RUN(test_pointers_and_five_args);
	RUN(test_jit_differential);
	RUN(test_disasm_and_weak);
	RUN(test_object);
	kbpf_host_free(host);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: no host BTF (KBPF_HOST_BTF=OFF)\n");
	return 0;
}

#endif
