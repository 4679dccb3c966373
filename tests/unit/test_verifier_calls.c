/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier step 3: helper calls through prototypes (argument kinds, R0 typing, R1-R5
 * clobbered), reference tracking with the ringbuf, bpf2bpf calls, atomics. */
#include "test_verifier_util.h"

#define LOOKUP(map) "*(u32 *)(r10 -4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:" #map "]\ncall bpf_map_lookup_elem#1\n"

static void test_helper_args(void)
{
	REJECT("call 999\nr0 = 0\nexit", "program of this type cannot use helper unknown#999");
	/* R1-R5 are clobbered by a call */
	REJECT(LOOKUP(1) "r0 = r2\nexit", "R2 !read_ok");
	/* key on uninitialised stack (unprivileged) */
	REJECT_U("r2 = r10\nr2 += -8\nr1 = map[idx:0]\ncall bpf_map_lookup_elem#1\nr0 = 0\nexit",
		 "invalid indirect read from stack R2 off -8+0 size 8");
	/* key out of the stack */
	REJECT("r2 = r10\nr2 += 8\nr1 = map[idx:0]\ncall bpf_map_lookup_elem#1\nr0 = 0\nexit",
	       "invalid indirect access to stack R2 off=8 size=8");
	/* wrong argument types */
	REJECT("r2 = r10\nr2 += -8\nr1 = 0\ncall bpf_map_lookup_elem#1\nr0 = 0\nexit",
	       "R1 type=scalar expected=map_ptr");
	REJECT("r1 = map[idx:0]\nr2 = 0\ncall bpf_map_lookup_elem#1\nr0 = 0\nexit",
	       "R2 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value");
	/* a map value as the key of another lookup */
	ACCEPT_RUN("t_plain", 0,
		   LOOKUP(1) "if r0 == 0x0 goto +6\nr2 = r0\nr1 = map[idx:0]\ncall bpf_map_lookup_elem#1\nr0 = 0\nexit\n"
			     "r0 = 0\nexit");
	/* update: value read from the stack */
	ACCEPT_RUN("t_plain", 0,
		   "r1 = 0\n*(u64 *)(r10 -8) = r1\n*(u64 *)(r10 -16) = r1\nr2 = r10\nr2 += -8\nr3 = r10\nr3 += -16\n"
		   "r4 = 0\nr1 = map[idx:0]\ncall bpf_map_update_elem#2\nr0 = 0\nexit");
	/* tail call on a hash map */
	REJECT("r2 = map[idx:0]\nr3 = 0\ncall bpf_tail_call#12\nr0 = 0\nexit", NULL);
}

static void test_ringbuf_refs(void)
{
	const char *reserve = "r1 = map[idx:2]\nr2 = 8\nr3 = 0\ncall bpf_ringbuf_reserve#131\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%sr0 = 0\nexit", reserve);
	REJECT(buf, "Unreleased reference id=2 alloc_insn=4");
	snprintf(buf, sizeof(buf), "%sif r0 == 0x0 goto +4\nr1 = r0\nr2 = 0\ncall bpf_ringbuf_submit#132\nr0 = 0\nexit", reserve);
	/* the NULL path holds no reference */
	ACCEPT_RUN("t_plain", 0, buf);
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +6\nr1 = 7\n*(u64 *)(r0 +0) = r1\nr1 = r0\nr2 = 0\ncall bpf_ringbuf_submit#132\n"
		 "r0 = 0\nexit",
		 reserve);
	ACCEPT_RUN("t_plain", 0, buf);
	snprintf(buf, sizeof(buf), "%sif r0 == 0x0 goto +2\nr1 = *(u64 *)(r0 +8)\nr0 = 0\nexit", reserve);
	REJECT(buf, "invalid access to memory, mem_size=8 off=8 size=8");
	/* use after release */
	snprintf(buf, sizeof(buf),
		 "%sif r0 == 0x0 goto +6\nr6 = r0\nr1 = r0\nr2 = 0\ncall bpf_ringbuf_submit#132\nr0 = *(u64 *)(r6 +0)\n"
		 "exit\nr0 = 0\nexit",
		 reserve);
	REJECT(buf, "R6 invalid mem access 'scalar'");
	/* releasing something never acquired */
	REJECT("r1 = r10\nr1 += -8\nr2 = 0\ncall bpf_ringbuf_submit#132\nr0 = 0\nexit", "R1 type=fp expected=ringbuf_mem");
	/* the size must be a constant */
	REJECT("r1 = map[idx:2]\nr2 = *(u64 *)(r1 +0)\nr3 = 0\ncall bpf_ringbuf_reserve#131\nr0 = 0\nexit", NULL);
	REJECT("r2 = *(u64 *)(r1 +0)\nr1 = map[idx:2]\nr3 = 0\ncall bpf_ringbuf_reserve#131\nr0 = 0\nexit",
	       "R2 is not a known constant'");
}

static void test_bpf2bpf(void)
{
	ACCEPT_RUN("t_plain", 0, "r1 = 3\ncall f\nr0 += 1\nexit\nf: r0 = r1\nr0 *= 2\nexit");
	/* callee-saved registers survive, caller-saved do not */
	ACCEPT("r6 = 1\ncall f\nr0 = r6\nexit\nf: r0 = 0\nexit");
	REJECT("r1 = 1\ncall f\nr0 = r1\nexit\nf: r0 = 0\nexit", "R1 !read_ok");
	/* references flow through calls */
	REJECT("call f\nr0 = 0\nexit\nf: r1 = map[idx:2]\nr2 = 8\nr3 = 0\ncall bpf_ringbuf_reserve#131\nr0 = 0\nexit",
	       "Unreleased reference id=2 alloc_insn=7");
}

static void test_atomics(void)
{
	ACCEPT_RUN("t_plain", 0, "r1 = 1\n*(u64 *)(r10 -8) = r1\nr2 = 2\nlock *(u64 *)(r10 -8) += r2\nr0 = *(u64 *)(r10 -8)\nexit");
	REJECT("r2 = 2\nlock *(u64 *)(r1 +0) += r2\nr0 = 0\nexit", "BPF_ATOMIC stores into R1 ctx is not allowed");
	ACCEPT_RUN("t_plain", 0,
		   LOOKUP(1) "if r0 == 0x0 goto +2\nr1 = 1\nlock *(u32 *)(r0 +0) += r1\nr0 = 0\nexit");
	REJECT(LOOKUP(1) "if r0 == 0x0 goto +2\nr1 = 1\nlock *(u64 *)(r0 +2) += r1\nr0 = 0\nexit",
	       "misaligned value access off 0+0+2 size 8");
}

/* Liveness across bpf2bpf calls: an argument the callee reads, or R0 it returns, is
 * live in the checkpoints before the call, so paths differing in it are not pruned. */
static void test_call_liveness(void)
{
	REJECT("r6 = *(u32 *)(r1 +0)\nr1 = -600\nif r6 > 0x5 goto +1\nr1 = -8\nr7 = 0\nr8 = 0\nr9 = 0\n"
	       "if r6 > 0x3 goto +0\ncall f\nr0 = 0\nexit\n"
	       "f: r2 = r10\nr2 += r1\nr0 = *(u8 *)(r2 +0)\nexit",
	       "off=-600 size=1");
	REJECT("r6 = *(u32 *)(r1 +0)\nr1 = -600\nif r6 > 0x5 goto +1\nr1 = -8\nr7 = 0\nr8 = 0\nr9 = 0\n"
	       "if r6 > 0x3 goto +0\ncall f\nr2 = r10\nr2 += r0\nr0 = *(u8 *)(r2 +0)\nexit\n"
	       "f: r0 = r1\nexit",
	       "off=-600 size=1");
	ACCEPT_RUN("t_plain", 0,
		   "r6 = *(u32 *)(r1 +0)\nr1 = -16\nif r6 > 0x5 goto +1\nr1 = -8\nr7 = 0\nr8 = 0\nr9 = 0\n"
		   "if r6 > 0x3 goto +0\ncall f\nr2 = r10\nr2 += r0\nr0 = *(u8 *)(r2 +0)\nexit\n"
		   "f: *(u64 *)(r10 -16) = r1\nr0 = r1\nr3 = r10\nr3 += -16\nr4 = *(u64 *)(r3 +0)\n"
		   "*(u64 *)(r10 -16) = r4\n*(u64 *)(r10 -8) = r4\nexit");
}

int main(void)
{
	tv_setup();
	RUN(test_helper_args);
	RUN(test_ringbuf_refs);
	RUN(test_bpf2bpf);
	RUN(test_atomics);
	RUN(test_call_liveness);
	tv_teardown();
	return test_summary();
}
