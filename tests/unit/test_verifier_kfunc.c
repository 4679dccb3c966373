/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier's kfunc rules (src/verifier/kfunc.c, docs/reference/kfunc-spec.md §1-§2): each rule
 * accepted and rejected with Linux 6.1's message, on Linux's test kfuncs
 * (hosts/linux/test_kfuncs.c) registered on a host whose BTF is this binary's own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include "test.h"

#ifdef KBPF_TEST_VKFUNC_HOST
#include <kbpf/linux.h>
#include "../../hosts/linux/test_kfuncs.h"

static struct kbpf_host *host;
static char log_buf[65536];

#define K(name) BPF_CALL_KFUNC(0, test_btf_id(host, name, BTF_KIND_FUNC))
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct vopts {
	const char *type;
	const char *license;
	int unpriv, no_destructive;
	unsigned level;
};

/* Verify; expect NULL: must pass; else the log must contain expect. Returns the error. */
static int verify(const struct bpf_insn *insns, size_t n, const struct vopts *vo, const char *expect)
{
	struct kbpf_verify_opts o = {
		.sz = sizeof(o),
		.host = host,
		.prog_type = vo && vo->type ? vo->type : "sched_cls",
		.license = vo && vo->license ? vo->license : "GPL",
		.unprivileged = vo ? vo->unpriv : 0,
		.no_destructive = vo ? vo->no_destructive : 0,
		.log_level = vo && vo->level ? vo->level : KBPF_LOG_LEVEL1,
		.log_buf = log_buf,
		.log_size = sizeof(log_buf),
	};
	return check_verdict(kbpf_prog_verify(insns, n, &o, NULL), log_buf, expect);
}

/* *(u64 *)(fp-8) = 0; r1 = fp-8; acquire: R0 = prog_test_ref_kfunc or NULL */
#define ACQUIRE()                                                                  \
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), K("bpf_kfunc_call_test_acquire")

/* kfunc(fp-8, 8) with fp-8 zeroed; [3].imm is the size */
#define MEM_LEN_CALL(name)                                                                              \
	{ BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),                   \
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_MOV64_IMM(BPF_REG_2, 8), K(name),                     \
	  BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() }

static void test_mem_len_pair(void)
{
	struct bpf_insn ok[] = MEM_LEN_CALL("bpf_kfunc_call_test_mem_len_pass1");
	verify(ok, N(ok), NULL, NULL);
	/* 16 bytes of an 8-byte stack area */
	ok[3].imm = 16;
	CHECK_EQ_U64(verify(ok, N(ok), NULL, "arg#0 arg#1 memory, len pair leads to invalid memory access"), -EINVAL);
	CHECK_CONTAINS(log_buf, "invalid indirect");
	/* an unbounded size */
	struct bpf_insn unb[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_mem_len_pass1"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(unb, N(unb), NULL, "memory, len pair leads to invalid memory access");
	/* void * without a __sz partner */
	struct bpf_insn v[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_mem_len_fail1"), BPF_EXIT_INSN(),
	};
	verify(v, N(v), NULL, "arg#0 pointer type UNKNOWN  must point to scalar, or struct with scalar");
	/* NULL memory of zero size is fine */
	struct bpf_insn null[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_2, 0),
		K("bpf_kfunc_call_test_mem_len_pass1"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	verify(null, N(null), NULL, NULL);
}

static void test_scalar_struct(void)
{
	struct bpf_insn p[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
		K("bpf_kfunc_call_test_pass1"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	verify(p, N(p), NULL, NULL); /* prog_test_pass1: 16 bytes of nested scalars */
	/* uninitialised stack of the struct's size */
	struct bpf_insn u[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_pass1"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	verify(u, N(u), NULL, "invalid indirect");
	struct bpf_insn f1[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_fail1"), BPF_EXIT_INSN(),
	};
	verify(f1, N(f1), NULL, "arg#0 pointer type STRUCT prog_test_fail1 must point to scalar, or struct with scalar");
	f1[2] = K("bpf_kfunc_call_test_fail2");
	verify(f1, N(f1), NULL, "max struct nesting depth exceeded\narg#0 pointer type STRUCT prog_test_fail2");
	f1[2] = K("bpf_kfunc_call_test_fail3");
	verify(f1, N(f1), NULL, "arg#0 pointer type STRUCT prog_test_fail3 must point to scalar");
}

static void test_ctx_arg(void)
{
	struct bpf_insn ok[] = { K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	verify(ok, N(ok), NULL, NULL);
	struct bpf_insn bad[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	/* 6.12 names the register's type (6.1: "but got PTR", the argument's BTF kind) */
	verify(bad, N(bad), NULL, "arg#0 expected pointer to ctx, but got fp");
	struct bpf_insn scalar[] = {
		BPF_MOV64_IMM(BPF_REG_1, 7), K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(scalar, N(scalar), NULL, "arg#0 expected pointer to ctx, but got scalar");
	struct bpf_insn mod[] = {
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4), K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(mod, N(mod), NULL, "dereference of modified ctx ptr R1 off=4 disallowed");
}

static void test_acquire_release(void)
{
	struct bpf_insn ok[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, 4), /* b: a BTF load */
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL, NULL);
	/* leak */
	struct bpf_insn leak[] = { ACQUIRE(), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	verify(leak, N(leak), NULL, "Unreleased reference id=");
	/* no NULL check: 6.12 refuses a maybe-NULL argument of a released (or trusted)
	 * parameter before its type (6.1: memory, and the struct is not scalar-only) */
	struct bpf_insn nonull[] = {
		ACQUIRE(), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	/* Linux 6.12: a release kfunc's pointer may not be NULL (6.1: "arg#0 pointer type
	 * STRUCT prog_test_ref_kfunc must point to scalar") */
	verify(nonull, N(nonull), NULL, "Possibly NULL pointer passed to trusted arg0");
	/* nor NULL itself */
	struct bpf_insn null_arg[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0), K("bpf_kfunc_call_test_release"), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(null_arg, N(null_arg), NULL, "Possibly NULL pointer passed to trusted arg0");
	/* reading through it without a NULL check */
	struct bpf_insn rd[] = { ACQUIRE(), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), BPF_EXIT_INSN() };
	verify(rd, N(rd), NULL, "R0 invalid mem access 'ptr_or_null_'");
	/* use after release */
	struct bpf_insn uaf[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_test_release"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(uaf, N(uaf), NULL, "R6 invalid mem access 'scalar'");
	/* releasing a pointer that holds no reference */
	struct bpf_insn noref[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 6),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 16), /* ->next: maybe NULL, no reference */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	/* 6.12: a release kfunc's argument must be trusted first (is_kfunc_trusted_args) */
	verify(noref, N(noref), NULL, "R1 must be referenced or trusted");
	/* release at an offset */
	struct bpf_insn off[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_memb_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(off, N(off), NULL, "R1 must have zero offset when passed to release func");
}

static void test_btf_loads(void)
{
	/* a pointer field is maybe-NULL (kbpf is stricter than Linux: plain loads) */
	struct bpf_insn next[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 7),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 16),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0), /* after the check: fine */
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(next, N(next), NULL, NULL);
	next[7] = BPF_JMP_IMM(BPF_JA, 0, 0, 0); /* drop the check */
	verify(next, N(next), NULL, "R1 invalid mem access 'ptr_or_null_'");

	/* Arithmetic on such a pointer is allowed (Linux's ptr_ allows it), but the
	 * result can never be NULL-checked into a usable pointer: NULL + 8 is not 0. */
	struct bpf_insn moved[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 9),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 16),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_1),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(moved, N(moved), NULL, "R1 invalid mem access 'ptr_or_null_'");
	moved[9] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 1); /* checking the copy */
	verify(moved, N(moved), NULL, "R1 invalid mem access 'ptr_or_null_'");
	moved[8] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 0); /* not even by +0 */
	moved[9] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1);
	verify(moved, N(moved), NULL, "R1 invalid mem access 'ptr_or_null_'");
	moved[8] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, 0); /* the checked one is fine */
	verify(moved, N(moved), NULL, NULL);
	/* ... and one moved below its start, passed to a kfunc, is Linux's plain ptr_ in the
	 * message (kbpf's maybe-NULL flag is not named) */
	struct bpf_insn below[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 6),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 16),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_offset"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(below, N(below), NULL, "negative offset ptr_ ptr R1 off=-8 disallowed");

	struct bpf_insn acc[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, 32),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(acc, N(acc), NULL, "access beyond struct prog_test_ref_kfunc at off 32 size 4");
	acc[6] = BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, 12); /* memb.c */
	verify(acc, N(acc), NULL, NULL);
	acc[6] = BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, 20); /* half of ->next */
	verify(acc, N(acc), NULL, "cannot access ptr member next with moff 16 in struct prog_test_ref_kfunc");
	acc[6] = BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1);
	verify(acc, N(acc), NULL, "only read is supported");
}

static void test_trusted_args(void)
{
	struct bpf_insn bad[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 9),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_test_ref"),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 16),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		K("bpf_kfunc_call_test_ref"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(bad, N(bad), NULL, "R1 must be referenced");
	bad[9] = BPF_JMP_IMM(BPF_JA, 0, 0, 0);
	bad[10] = BPF_JMP_IMM(BPF_JA, 0, 0, 0);
	verify(bad, N(bad), NULL, NULL);
}

static void test_ret_mem(void)
{
	/* acquire; rdwr(p, 8): write p[0], read p[1]; rdonly(p, 8): read; release */
	struct bpf_insn ok[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 9),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		K("bpf_kfunc_call_test_get_rdwr_mem"),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 42),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, 4),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL, NULL);
	ok[11] = BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, 8);
	verify(ok, N(ok), NULL, "invalid access to memory, mem_size=8 off=8 size=4");
	ok[11] = BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, 4);
	ok[8] = K("bpf_kfunc_call_test_get_rdonly_mem");
	verify(ok, N(ok), NULL, "R0 cannot write into rdonly_mem");
	/* not a constant size */
	ok[7] = BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, 0);
	verify(ok, N(ok), NULL, "R2 is not a const");
	/* a pointer where a scalar goes */
	ok[7] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	verify(ok, N(ok), NULL, "R2 is not a scalar");
	/* acquire of memory */
	ok[7] = BPF_MOV64_IMM(BPF_REG_2, 8);
	ok[8] = K("bpf_kfunc_call_test_acq_rdonly_mem");
	verify(ok, N(ok), NULL, "acquire kernel function does not return PTR_TO_BTF_ID");
	/* the memory dies with the object it came from */
	struct bpf_insn uaf[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 10),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		K("bpf_kfunc_call_test_get_rdwr_mem"),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		K("bpf_kfunc_call_test_release"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(uaf, N(uaf), NULL, "R7 invalid mem access 'scalar'");
}

static void test_clobber_and_void(void)
{
	struct bpf_insn r1[] = {
		BPF_MOV64_IMM(BPF_REG_6, 7), K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	verify(r1, N(r1), NULL, NULL); /* R6 survives */
	r1[2] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_1);
	verify(r1, N(r1), NULL, "R1 !read_ok");
	struct bpf_insn r0[] = { K("bpf_kfunc_call_test_pass_ctx"), BPF_EXIT_INSN() };
	verify(r0, N(r0), NULL, "R0 !read_ok");
}

static void test_pass_a(void)
{
	struct bpf_insn call[] = { K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct vopts xdp = { .type = "xdp" };
	verify(call, N(call), &xdp, "calling kernel function bpf_kfunc_call_test_pass_ctx is not allowed");
	struct vopts mit = { .license = "MIT" };
	verify(call, N(call), &mit, "cannot call kernel function from non-GPL compatible program");
	/* socket_filter: the type an unprivileged loader may load at all (sched_cls needs
	 * CAP_NET_ADMIN: -EPERM before the verifier) */
	struct vopts unpriv = { .type = "socket_filter", .unpriv = 1 };
	CHECK_EQ_U64(verify(call, N(call), &unpriv,
			    "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"),
		     -EPERM);
	/* a BTF id that is not a FUNC: the struct's own */
	call[0].imm = test_btf_id(host, "prog_test_ref_kfunc", BTF_KIND_STRUCT);
	char want[64];
	snprintf(want, sizeof(want), "kernel btf_id %d is not a function", call[0].imm);
	verify(call, N(call), NULL, want);
	/* a FUNC no set registered (no address): the host's own kbpf_host_new */
	call[0].imm = test_btf_id(host, "kbpf_host_new", BTF_KIND_FUNC);
	if (call[0].imm)
		verify(call, N(call), NULL, "cannot find address for kernel function kbpf_host_new");
	call[0].off = -1;
	call[0].imm = test_btf_id(host, "bpf_kfunc_call_test_pass_ctx", BTF_KIND_FUNC);
	verify(call, N(call), NULL, "negative offset disallowed for kernel module function call\nfailed to find BTF");
	/* imm 0: fine when dead, an error when reached */
	struct bpf_insn weak[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1), BPF_JMP_IMM(BPF_JGT, BPF_REG_0, 0, 2), BPF_CALL_KFUNC(0, 0),
		BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN(),
	};
	verify(weak, N(weak), NULL, NULL);
	weak[1] = BPF_JMP_IMM(BPF_JA, 0, 0, 0);
	verify(weak, N(weak), NULL, "invalid kernel function call not eliminated in verifier pass");
	/* the same kfunc many times is one descriptor; calls from a subprogram work */
	struct bpf_insn sub[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		K("bpf_kfunc_call_test_pass_ctx"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(sub, N(sub), NULL, NULL);
}

static void test_destructive(void)
{
	struct bpf_insn d[] = { K("bpf_kfunc_call_test_destructive"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	verify(d, N(d), NULL, NULL);
	struct vopts nd = { .no_destructive = 1 };
	CHECK_EQ_U64(verify(d, N(d), &nd, "destructive kfunc calls require CAP_SYS_BOOT capabilities"), -EACCES);
}

static void test_log_name(void)
{
	struct bpf_insn c[] = { K("bpf_kfunc_call_test_pass_ctx"), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct vopts v2 = { .level = KBPF_LOG_LEVEL2 };
	verify(c, N(c), &v2, NULL);
	char want[96];
	snprintf(want, sizeof(want), "0: (85) call bpf_kfunc_call_test_pass_ctx#%d", c[0].imm);
	CHECK_CONTAINS(log_buf, want);
}

/* A program type whose btf_struct_access hook lets programs write prog_test_ref_kfunc.b
 * only (as the TCP host allows a few tcp_sock fields). */
static int vk_struct_access(const struct kbpf_prog_type *type, uint32_t btf_id, int off, int size, char *msg,
			    size_t msg_size)
{
	(void)type;
	int want = test_btf_id(host, "prog_test_ref_kfunc", BTF_KIND_STRUCT);
	if ((int)btf_id == want && off == 4 && size == 4)
		return 0;
	snprintf(msg, msg_size, "no write support to prog_test_ref_kfunc at off %d", off);
	return -EACCES;
}

static void test_write_hook(void)
{
	static const char *const types[] = { "vk_test", NULL };
	static const struct kbpf_kfunc fns[] = {
		KBPF_KFUNC(bpf_kfunc_call_test_acquire, KF_ACQUIRE | KF_RET_NULL),
		KBPF_KFUNC(bpf_kfunc_call_test_release, KF_RELEASE),
	};
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "vk_test", .ctx_size = 8,
				    .btf_struct_access = vk_struct_access };
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), 0);
	struct kbpf_kfunc_set_opts so = { .sz = sizeof(so), .name = "vk", .funcs = fns, .nr_funcs = 2,
					  .prog_types = types };
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(host, &so, NULL), 0);
	struct bpf_insn w[] = {
		ACQUIRE(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
		BPF_ST_MEM(BPF_W, BPF_REG_0, 4, 7),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_test_release"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct vopts vt = { .type = "vk_test" };
	verify(w, N(w), &vt, NULL);
	verify(w, N(w), NULL, "only read is supported"); /* tc has no hook */
	w[5] = BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 7);
	CHECK_EQ_U64(verify(w, N(w), &vt, "no write support to prog_test_ref_kfunc at off 0"), -EACCES);
	/* a pointer is never stored into a host struct */
	w[5] = BPF_STX_MEM(BPF_W, BPF_REG_0, BPF_REG_10, 4);
	verify(w, N(w), &vt, "R10 leaks addr");
}

/* A kfunc's memory argument is checked for reading and writing (6.12
 * check_kfunc_mem_size_reg), but a packet only for its bounds (check_helper_mem_access
 * runs check_packet_access whatever the access): a packet pointer of a type with
 * read-only direct access (cgroup_skb) is accepted as a kfunc's memory, as in 6.12 — the
 * packet is kbpf's run buffer, in bounds, and the kfunc is the host's own code. Reading
 * past the checked range stays refused. */
static void test_mem_packet(void)
{
	static const char *const types[] = { "cgroup_skb", NULL };
	static const struct kbpf_kfunc fns[] = { KBPF_KFUNC(bpf_kfunc_call_test_mem_len_pass1, 0) };
	struct kbpf_kfunc_set_opts so = { .sz = sizeof(so), .name = "vk_mem", .funcs = fns, .nr_funcs = 1,
					  .prog_types = types };
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(host, &so, NULL), 0);
	/* r2 = skb->data; r3 = skb->data_end; if data + 8 <= data_end: kfunc(data, 8) */
	struct bpf_insn pkt[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 76),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, 80),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 3),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_2),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		K("bpf_kfunc_call_test_mem_len_pass1"),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	struct vopts cg = { .type = "cgroup_skb" };
	verify(pkt, N(pkt), &cg, NULL);
	verify(pkt, N(pkt), NULL, NULL); /* tc */
	pkt[6].imm = 9; /* one byte past the checked range */
	CHECK_EQ_U64(verify(pkt, N(pkt), &cg, "invalid access to packet, off=0 size=9, R1(id=0,off=0,r=8)"),
		     -EINVAL);
	CHECK_CONTAINS(log_buf, "arg#0 arg#1 memory, len pair leads to invalid memory access");
}

/* 6.12's __szk (a constant-size memory pair) and __str (a constant string in a frozen
 * read-only map value) parameters. kbpf knew only __sz: `char *mem, int mem__szk` was one
 * byte of memory and a scalar, so a kfunc writing mem__szk bytes wrote past the stack
 * buffer; `const char *s__str` was one byte of memory, and the kfunc's strlen read on. */
static struct kbpf_map *str_map(const char *text, size_t len, uint32_t flags, int freeze)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 16, .max_entries = 1, .map_flags = flags, .name = "str" };
	struct kbpf_map *m = NULL;
	char v[16] = { 0 };
	uint32_t k = 0;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	memcpy(v, text, len);
	CHECK_EQ_U64(kbpf_map_update(m, &k, v, BPF_ANY), 0);
	if (freeze)
		CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	return m;
}

static int verify_maps(const struct bpf_insn *insns, size_t n, struct kbpf_map **maps, size_t nr, const char *expect)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				      .maps = maps, .nr_maps = nr, .log_level = KBPF_LOG_LEVEL1, .log_buf = log_buf,
				      .log_size = sizeof(log_buf) };
	return check_verdict(kbpf_prog_verify(insns, n, &o, NULL), log_buf, expect);
}

static void test_szk_and_str(void)
{
	struct bpf_insn szk[] = MEM_LEN_CALL("bpf_kfunc_call_test_mem_len_szk");
	verify(szk, N(szk), NULL, NULL);
	szk[3].imm = 64; /* 64 bytes into an 8-byte area: accepted before */
	CHECK_EQ_U64(verify(szk, N(szk), NULL, "arg#0 arg#1 memory, len pair leads to invalid memory access"),
		     -EINVAL);
	struct bpf_insn var[] = { /* a size that is not a constant */
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 7),
		K("bpf_kfunc_call_test_mem_len_szk"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(var, N(var), NULL, "R2 must be a known constant"), -EINVAL);

	struct bpf_insn stack_str[] = { /* one non-NUL byte on the stack: accepted before */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0x41414141),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		K("bpf_kfunc_call_test_str"),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(stack_str, N(stack_str), NULL, "arg#0 doesn't point to a const string"), -EINVAL);
	struct bpf_insn map_str[] = {
		BPF_LD_MAP_VALUE(BPF_REG_1, 0, 2),
		K("bpf_kfunc_call_test_str"),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *ro = str_map("hello", 6, BPF_F_RDONLY_PROG, 1);
	verify_maps(map_str, N(map_str), &ro, 1, NULL);
	struct kbpf_map *rw = str_map("hello", 6, 0, 0);
	CHECK_EQ_U64(verify_maps(map_str, N(map_str), &rw, 1, "R1 does not point to a readonly map'"), -EACCES);
	struct kbpf_map *unterminated = str_map("0123456789abcdef", 16, BPF_F_RDONLY_PROG, 1);
	CHECK_EQ_U64(verify_maps(map_str, N(map_str), &unterminated, 1, "string is not zero-terminated"), -EINVAL);
	map_str[1].imm = 12; /* "f" and no NUL after it (ld_imm64's second half is the offset) */
	CHECK_EQ_U64(verify_maps(map_str, N(map_str), &unterminated, 1, "string is not zero-terminated"), -EINVAL);
	map_str[1].imm = 5; /* the empty string at the end of "hello" */
	verify_maps(map_str, N(map_str), &ro, 1, NULL);
	kbpf_map_free(ro);
	kbpf_map_free(rw);
	kbpf_map_free(unterminated);
}

int main(void)
{
	char err[256] = "";
	host = kbpf_host_new();
	CHECK(host);
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host) ||
	    kbpf_linux_host_add_test_kfuncs(host, err, sizeof(err))) {
		fprintf(stderr, "test host: %s\n", err);
		return 1;
	}
	RUN(test_mem_len_pair);
	RUN(test_szk_and_str);
	RUN(test_scalar_struct);
	RUN(test_ctx_arg);
	RUN(test_acquire_release);
	RUN(test_btf_loads);
	RUN(test_trusted_args);
	RUN(test_ret_mem);
	RUN(test_clobber_and_void);
	RUN(test_pass_a);
	RUN(test_destructive);
	RUN(test_log_name);
	RUN(test_write_hook);
	RUN(test_mem_packet);
	kbpf_host_free(host);
	return test_summary();
}
#else
int main(void)
{
	printf("test_verifier_kfunc: no host BTF in this build (pahole missing): skipped\n0 passed, 0 failed\n");
	return 0;
}
#endif
