/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier step 2: the walk. ALU on scalars and pointers, stack spills and fills, ctx,
 * map values, packets, conditional jumps with refinement and null checks, exit codes.
 * Accepted programs also run clean in checked mode with adversarial inputs. */
#include "test_verifier_util.h"

static void test_regs(void)
{
	REJECT("r0 = r2\nexit", "R2 !read_ok");
	REJECT("exit", "R0 !read_ok");
	REJECT("r10 = 0\nr0 = 0\nexit", "frame pointer is read only");
	ACCEPT_RUN("t_plain", 0, "r0 = 1\nr0 += 2\nr0 *= 3\nr0 <<= 2\nexit");
	REJECT("r0 = 0\nr0 /= 0\nexit", "div by zero");
	REJECT("r0 = 0\nr0 <<= 64\nexit", "invalid shift 64");
	REJECT("r0 = 0\nw0 <<= 32\nexit", "invalid shift 32");
	/* division by a register that may be zero is fine (x/0 = 0 at run time) */
	ACCEPT_RUN("t_plain", 0, "r2 = *(u64 *)(r1 +0)\nr0 = 10\nr0 /= r2\nexit");
}

static void test_pointer_alu(void)
{
	REJECT("r1 *= 2\nr0 = 0\nexit", "R1 pointer arithmetic with *= operator prohibited");
	REJECT("r1 &= 2\nr0 = 0\nexit", "R1 bitwise operator &= on pointer prohibited");
	REJECT("w1 += 2\nr0 = 0\nexit", "R1 32-bit pointer arithmetic prohibited");
	REJECT("r2 = r10\nr2 += r1\nr0 = 0\nexit", "R2 pointer += pointer prohibited");
	REJECT("r2 = 0\nr2 -= r10\nr0 = 0\nexit", "R2 tried to subtract pointer from scalar");
	REJECT("r2 = r10\nr3 = 8\nr2 -= r3\nr0 = 0\nexit", "R2 subtraction from stack pointer prohibited");
	REJECT("r1 += 8\nr0 = *(u32 *)(r1 +0)\nexit", "dereference of modified ctx ptr R1 off=8 disallowed");
	REJECT_U("r0 = r1\nexit", "R0 leaks addr as return value");
	REJECT_U("w0 = w1\nexit", "R1 partial copy of pointer");
	REJECT("r2 = *(u64 *)(r1 +0)\nr3 = r10\nr3 += r2\nr0 = 0\nexit",
	       "math between fp pointer and register with unbounded min value is not allowed");
	/* privileged: pointer - pointer is a scalar */
	ACCEPT("r0 = r10\nr0 -= r1\nr0 = 0\nexit");
}

static void test_stack(void)
{
	ACCEPT("r0 = *(u64 *)(r10 -8)\nexit"); /* privileged: uninitialised stack reads are allowed */
	REJECT_U("r0 = *(u64 *)(r10 -8)\nexit", "invalid read from stack R10 off=-8 size=8");
	REJECT_U("r0 = 0\n*(u32 *)(r10 -8) = r0\nr0 = *(u64 *)(r10 -8)\nexit", "invalid read from stack off -8+4 size 8");
	REJECT("r0 = 0\n*(u64 *)(r10 +8) = r0\nexit", "invalid write to stack R10 off=8 size=8");
	REJECT("r0 = 0\n*(u64 *)(r10 -520) = r0\nexit", "invalid write to stack R10 off=-520 size=8");
	REJECT("r0 = 0\n*(u64 *)(r10 -4) = r0\nexit", "misaligned stack access off 0+0+-4 size 8");
	/* spill and fill keep the pointer */
	ACCEPT_RUN("t_plain", 0, "*(u64 *)(r10 -8) = r1\nr2 = *(u64 *)(r10 -8)\nr0 = *(u32 *)(r2 +0)\nexit");
	REJECT("*(u64 *)(r10 -8) = r1\nr2 = *(u32 *)(r10 -8)\nr0 = 0\nexit", "invalid size of register fill");
	REJECT("*(u32 *)(r10 -8) = r1\nr0 = 0\nexit", "invalid size of register spill");
	REJECT_U("*(u64 *)(r10 -8) = r1\nr2 = 0\n*(u32 *)(r10 -8) = r2\nr0 = 0\nexit",
		 "attempt to corrupt spilled pointer on stack");
	/* 32-bit scalar spill keeps the bounds */
	ACCEPT_RUN("t_plain", 0, "r2 = 5\n*(u32 *)(r10 -8) = r2\nr3 = *(u32 *)(r10 -8)\nr0 = r3\nexit");
	/* zero bytes read back as a known zero */
	ACCEPT_RUN("t_plain", 0, "r2 = 0\n*(u64 *)(r10 -8) = r2\nr3 = *(u64 *)(r10 -8)\nr1 += r3\n"
				 "r0 = *(u32 *)(r1 +0)\nexit");
	/* variable offset read of initialised bytes */
	ACCEPT_RUN("t_plain", 0, "r2 = 0\n*(u64 *)(r10 -8) = r2\n*(u64 *)(r10 -16) = r2\nr3 = *(u64 *)(r1 +0)\n"
				 "r3 &= 8\nr4 = r10\nr4 += -16\nr4 += r3\nr0 = *(u8 *)(r4 +0)\nexit");
	REJECT_U("r3 = *(u64 *)(r1 +0)\nr3 &= 8\nr4 = r10\nr4 += -16\nr4 += r3\nr0 = 0\nexit",
		 "R4 variable stack access prohibited for !root");
}

static void test_ctx(void)
{
	ACCEPT_RUN("t_plain", 0, "r0 = *(u64 *)(r1 +56)\nexit");
	REJECT("r0 = *(u64 *)(r1 +64)\nexit", "invalid bpf_context access off=64 size=8");
	REJECT("r0 = 0\n*(u64 *)(r1 +16) = r0\nexit", "invalid bpf_context access off=16 size=8");
	ACCEPT_RUN("t_plain", 0, "r0 = 0\n*(u64 *)(r1 +8) = r0\nexit");
	REJECT("*(u64 *)(r1 +8) = 0\nr0 = 0\nexit", "BPF_ST stores into R1 ctx is not allowed");
	REJECT_U("*(u64 *)(r1 +8) = r1\nr0 = 0\nexit", "R1 leaks addr into ctx");
	REJECT("r2 = *(u64 *)(r1 +0)\nr2 &= 8\nr1 += r2\nr0 = *(u64 *)(r1 +0)\nexit", "variable ctx access var_off=");
}

static void test_map_value(void)
{
	const char *lookup = "*(u32 *)(r10 -4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:1]\ncall bpf_map_lookup_elem#1\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%sr0 = *(u64 *)(r0 +0)\nexit", lookup);
	REJECT(buf, "R0 invalid mem access 'map_value_or_null'");
	snprintf(buf, sizeof(buf), "%sif r0 == 0x0 goto +1\nr0 = *(u64 *)(r0 +40)\nr0 = 0\nexit", lookup);
	ACCEPT_RUN("t_plain", 0, buf);
	snprintf(buf, sizeof(buf), "%sif r0 == 0x0 goto +1\nr0 = *(u64 *)(r0 +44)\nr0 = 0\nexit", lookup);
	REJECT(buf, "invalid access to map value, value_size=48 off=44 size=8");
	/* bounded variable index */
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +5\nr1 = *(u32 *)(r0 +0)\nif r1 > 0x28 goto +3\nr0 += r1\n"
		 "r0 = *(u8 *)(r0 +0)\nexit\nr0 = 0\nexit",
		 lookup);
	ACCEPT_RUN("t_plain", 0, buf);
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +5\nr1 = *(u32 *)(r0 +0)\nif r1 > 0x30 goto +3\nr0 += r1\n"
		 "r0 = *(u8 *)(r0 +0)\nexit\nr0 = 0\nexit",
		 lookup);
	REJECT(buf, "R0 max value is outside of the allowed memory range");
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +4\nr1 = *(u32 *)(r0 +0)\nr0 += r1\nr0 = *(u8 *)(r0 +0)\nexit\nr0 = 0\nexit",
		 lookup);
	REJECT(buf, "R0 unbounded memory access, make sure to bounds check any such access");
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +4\nr1 = *(s32 *)(r0 +0)\nr0 += r1\nr0 = *(u8 *)(r0 +0)\nexit\nr0 = 0\nexit",
		 lookup);
	/* pointer leak into a map */
	snprintf(buf, sizeof(buf), "%sif r0 == 0x0 goto +1\n*(u64 *)(r0 +0) = r10\nr0 = 0\nexit", lookup);
	tv_expect(buf, "t_plain", 1, 0, "R10 leaks addr into map", __LINE__);
	/* read-only map */
	ACCEPT("*(u32 *)(r10 -4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:3]\ncall bpf_map_lookup_elem#1\n"
	       "if r0 == 0x0 goto +1\nr0 = *(u64 *)(r0 +0)\nr0 = 0\nexit");
	REJECT("*(u32 *)(r10 -4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:3]\ncall bpf_map_lookup_elem#1\n"
	       "if r0 == 0x0 goto +2\nr1 = 1\n*(u64 *)(r0 +0) = r1\nr0 = 0\nexit",
	       "write into map forbidden, value_size=8 off=0 size=8");
}

static void test_packet(void)
{
	const char *pre = "r2 = *(u64 *)(r1 +0)\nr3 = *(u64 *)(r1 +8)\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%sr0 = *(u8 *)(r2 +0)\nexit", pre);
	REJECT_T("t_pkt", buf, "invalid access to packet, off=0 size=1, R2(id=0,off=0,r=0)");
	snprintf(buf, sizeof(buf), "%sr4 = r2\nr4 += 14\nif r4 > r3 goto +2\nr0 = *(u32 *)(r2 +10)\nexit\nr0 = 0\nexit",
		 pre);
	ACCEPT_RUN("t_pkt", 64, buf);
	CHECK(tv_run_checked(buf, "t_pkt", 10) == 0); /* short packet: the check stops it */
	snprintf(buf, sizeof(buf), "%sr4 = r2\nr4 += 14\nif r4 > r3 goto +2\nr0 = *(u32 *)(r2 +12)\nexit\nr0 = 0\nexit",
		 pre);
	REJECT_T("t_pkt", buf, "invalid access to packet, off=12 size=4, R2(id=0,off=12,r=14)");
	snprintf(buf, sizeof(buf), "%sr4 = r2\nr4 += 14\nif r3 >= r4 goto +2\nr0 = 0\nexit\nr0 = *(u16 *)(r2 +12)\nexit",
		 pre);
	ACCEPT_RUN("t_pkt", 64, buf);
	snprintf(buf, sizeof(buf), "%sr4 = r2\nr4 += 8\nif r4 > r3 goto +3\nr0 = 1\n*(u8 *)(r2 +0) = r0\nexit\nr0 = 0\nexit",
		 pre);
	ACCEPT_RUN("t_pkt", 64, buf);
	snprintf(buf, sizeof(buf), "%sr3 += 1\nr0 = 0\nexit", pre);
	REJECT_T("t_pkt", buf, "R3 pointer arithmetic on pkt_end prohibited");
}

static void test_branches(void)
{
	/* a decided branch: the dead side is not walked */
	ACCEPT_RUN("t_plain", 0, "r1 = 5\nif r1 == 0x5 goto +1\nr0 = r5\nr0 = 0\nexit");
	REJECT_U("r1 = 5\nif r1 == 0x5 goto +2\nr0 = r5\nexit\nr0 = 0\nexit", "R5 !read_ok");
	/* both sides refined: signed */
	ACCEPT_RUN("t_plain", 0, "r2 = *(u64 *)(r1 +0)\nif r2 s> 0x7 goto +5\nif r2 s< 0x0 goto +4\n"
				 "r3 = r10\nr3 += -8\nr3 += r2\n*(u8 *)(r3 +0) = r2\nr0 = 0\nexit");
	/* JMP32 refinement */
	ACCEPT_RUN("t_plain", 0, "r2 = *(u32 *)(r1 +0)\nif w2 > 0x7 goto +4\nr3 = r10\nr3 += -8\nr3 += r2\n"
				 "*(u8 *)(r3 +0) = r2\nr0 = 0\nexit");
	/* linked scalars: a check on a copy bounds the original */
	ACCEPT_RUN("t_plain", 0, "r2 = *(u32 *)(r1 +0)\nr4 = r2\nif r4 > 0x7 goto +4\nr3 = r10\nr3 += -8\nr3 += r2\n"
				 "*(u8 *)(r3 +0) = r2\nr0 = 0\nexit");
	REJECT_U("r0 = 0\nif r1 == r10 goto +0\nexit", "R10 pointer comparison prohibited");
}

static void test_exit_codes(void)
{
	ACCEPT_T("t_ret01", "r0 = 1\nexit");
	REJECT_T("t_ret01", "r0 = 2\nexit", "At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]");
	REJECT_T("t_ret01", "r0 = *(u64 *)(r1 +0)\nexit",
		 "At program exit the register R0 has unknown scalar value should have been in [0, 1]");
	REJECT_T("t_ret01", "r0 = r10\nexit", "At program exit the register R0 is not a known value (fp)");
	ACCEPT_T("t_ret01", "r0 = *(u64 *)(r1 +0)\nr0 &= 1\nexit");
}

/* Unprivileged pointer arithmetic (Spectre v1 sanitation). */
static void test_unpriv_sanitation(void)
{
	const char *lookup = "*(u32 *)(r10 -4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:1]\ncall bpf_map_lookup_elem#1\n"
			     "if r0 == 0x0 goto out\n";
	char buf[1024];
	REJECT_U("r2 = 4\nr1 += r2\nr0 = 0\nexit",
		 "R1 has pointer with unsupported alu operation, pointer arithmetic with it prohibited for !root");
	snprintf(buf, sizeof(buf), "%sr1 = *(u64 *)(r0 +0)\nif r1 s> 0x8 goto out\nif r1 s< -8 goto out\nr0 += r1\n"
				   "out:\nr0 = 0\nexit", lookup);
	REJECT_U(buf, "R1 has unknown scalar with mixed signed bounds, pointer arithmetic with it prohibited for !root");
	snprintf(buf, sizeof(buf), "%sr1 = *(u32 *)(r0 +0)\nr1 &= 7\nr2 = *(u32 *)(r0 +4)\nif r2 == 0x0 goto skip\n"
				   "r1 &= 3\nskip:\nr0 += r1\nr0 = *(u8 *)(r0 +0)\nout:\nr0 = 0\nexit", lookup);
	REJECT_U(buf, "R0 tried to add from different maps, paths or scalars, pointer arithmetic with it prohibited for !root");
	snprintf(buf, sizeof(buf), "%sr1 = *(u32 *)(r0 +0)\nr1 &= 7\nr0 += r1\nr0 = *(u8 *)(r0 +0)\nout:\nr0 = 0\nexit",
		 lookup);
	ACCEPT_U(buf);
	snprintf(buf, sizeof(buf), "%sr1 = *(u32 *)(r0 +0)\nr1 &= 63\nr0 += r1\nr0 = *(u8 *)(r0 +0)\nout:\nr0 = 0\nexit",
		 lookup);
	REJECT_U(buf, "R0 pointer arithmetic of map value goes out of range, prohibited for !root");
}

static void test_log_format(void)
{
	CHECK(tv_verify("r0 = 0\nif r1 == 0x0 goto +1\nr0 = *(u32 *)(r1 +0)\nexit", "t_plain", 2, 0) == 0);
	CHECK_CONTAINS(tv_log, "0: R1=ctx() R10=fp0\n"
			       "0: (b7) r0 = 0                        ; R0_w=0\n"
			       "1: (15) if r1 == 0x0 goto pc+1        ; R1=ctx()\n"
			       "2: (61) r0 = *(u32 *)(r1 +0)          ; R0_w=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; "
			       "0xffffffff)) R1=ctx()\n"
			       "3: (95) exit\n\nfrom 1 to 3: R0_w=0 R1=ctx() R10=fp0\n"
			       /* 6.12: the full print of a popped state leaves it scratched, so the
			        * instruction's own state line follows (print_insn_state) */
			       "3: R0_w=0 R1=ctx() R10=fp0\n3: (95) exit\n");
	/* 6.12's stack slots: a spilled register printed in full, a smaller spill after the
	 * bytes above it; big constants in hex */
	CHECK(tv_verify("r1 = r10\nr1 += -8\n*(u64 *)(r10 -16) = r1\nr2 = 0xffffffff ll\n"
			"*(u32 *)(r10 -24) = r2\n*(u8 *)(r10 -32) = r2\nr0 = 0\nexit",
			"t_plain", 2, 0) == 0);
	CHECK_CONTAINS(tv_log, "; R1_w=fp-8 R10=fp0 fp-16_w=fp-8\n");
	CHECK_CONTAINS(tv_log, "; R2_w=0xffffffff\n");
	CHECK_CONTAINS(tv_log, "; R2_w=0xffffffff R10=fp0 fp-24=????0xffffffff\n");
	/* a 1-byte spill of a bounded scalar keeps the register (6.12 too) */
	CHECK_CONTAINS(tv_log, "; R2_w=0xffffffff R10=fp0 fp-32=???????0xffffffff\n");
	/* level 1: a successful load leaves only the statistics */
	CHECK(tv_verify("r0 = 0\nexit", "t_plain", 1, 0) == 0);
	CHECK(!strncmp(tv_log, "processed 2 insns", 17));
	/* a rejection at level 1 shows the failing path only */
	CHECK(tv_verify("r0 = 0\nif r1 == 0x0 goto +1\nr0 = r5\nexit", "t_plain", 1, 0) < 0);
	CHECK(!strstr(tv_log, "from 1 to 3"));
	CHECK_CONTAINS(tv_log, "2: (bf) r0 = r5\nR5 !read_ok\n");
}

/* A 6.1-style ARG_PTR_TO_LONG after a write-only (uninit) memory argument: the long
 * needs initialised memory of its own and alignment; it does not inherit raw mode. */
static void test_ptr_to_long_after_uninit_mem(void)
{
	struct kbpf_helper_proto p = {
		.name = "t_out_long", .ret_type = KBPF_RET_INTEGER,
		.arg_type = { KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE, KBPF_ARG_CONST_SIZE,
			      KBPF_ARG_PTR_TO_LONG },
	};
	CHECK_EQ_U64(kbpf_host_helper_register_proto(tv_host, 200, &p), 0);
	REJECT_U("r1 = r10\nr1 += -8\nr2 = 8\nr3 = r10\nr3 += -16\ncall 200\nr0 = 0\nexit",
		 "invalid indirect read from stack R3 off -16+0 size 8");
	ACCEPT_U("r1 = r10\nr1 += -8\nr2 = 8\nr3 = 0\n*(u64 *)(r10 -16) = r3\nr3 = r10\nr3 += -16\n"
		 "call 200\nr0 = *(u64 *)(r10 -8)\nexit");
	REJECT("r1 = r10\nr1 += -8\nr2 = 8\nr3 = 0\n*(u64 *)(r10 -24) = r3\n*(u64 *)(r10 -16) = r3\n"
	       "r3 = r10\nr3 += -20\ncall 200\nr0 = 0\nexit",
	       "misaligned stack access off 0+-20+0 size 8");
}

int main(void)
{
	tv_setup();
	RUN(test_ptr_to_long_after_uninit_mem);
	RUN(test_regs);
	RUN(test_pointer_alu);
	RUN(test_stack);
	RUN(test_ctx);
	RUN(test_map_value);
	RUN(test_packet);
	RUN(test_branches);
	RUN(test_exit_codes);
	RUN(test_unpriv_sanitation);
	RUN(test_log_format);
	tv_teardown();
	return test_summary();
}
