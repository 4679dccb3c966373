/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier step 4: state pruning with precision tracking. The processed-insn counts
 * below are the live Linux kernel's for the same programs (socket filters). */
#include "test_verifier_util.h"

#define DIAMOND "r6 = *(u32 *)(r1 +0)\nr7 = 0\nr8 = 0\nr9 = 0\nif r6 > 0x5 goto a\nr7 = 1\nr8 = 1\nr9 = 1\n" \
		"goto b\na:\nr7 = 2\nr8 = 2\nr9 = 2\nb:\n"

static void test_imprecise_prunes(void)
{
	/* r6..r9 differ on the two paths but decide nothing: the second path is pruned. */
	CHECK(tv_verify(DIAMOND "r0 = 0\nr0 += 1\nr0 += 1\nr0 += 1\nr0 += 1\nexit", "t_plain", 2, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 19);
	CHECK_EQ_U64(tv_last.total_states, 1);
	CHECK_CONTAINS(tv_log, "11: (b7) r9 = 2\n12: safe\n");
}

static void test_precise_does_not_prune(void)
{
	/* r7 becomes a stack offset: it is precise, the paths are not equal. */
	CHECK(tv_verify(DIAMOND "r0 = 0\n*(u64 *)(r10 -8) = r0\nr2 = r10\nr2 += -8\nr2 += r7\nr0 = *(u8 *)(r2 +0)\nexit",
			"t_plain", 2, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 26);
	CHECK(!strstr(tv_log, "safe"));
	/* and a wrong offset on the second path is caught */
	REJECT(DIAMOND "r0 = 0\n*(u64 *)(r10 -8) = r0\nr2 = r10\nr2 += -8\nr2 += r8\nr2 += r8\nr2 += r8\nr2 += r8\nr2 += r8\n"
		       "r0 = *(u8 *)(r2 +0)\nexit",
	       "invalid read from stack R2");
	/* unprivileged: every scalar is precise */
	CHECK(tv_verify(DIAMOND "r0 = 0\nexit", "t_plain", 4, 1) == 0);
	CHECK(tv_last.insns_processed > 14);
}

static void test_loop_counts(void)
{
	/* r6 grows every iteration but is never precise: states still match Linux's count */
	CHECK(tv_verify("r6 = *(u32 *)(r1 +0)\nr1 = 0\nl:\nr1 += 1\nr6 += 1\nif r1 < 0x14 goto l\nr0 = 0\nexit", "t_plain",
			4, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 64);
	CHECK_EQ_U64(tv_last.total_states, 2);
	ACCEPT_RUN("t_plain", 0, "r6 = *(u32 *)(r1 +0)\nr1 = 0\nl:\nr1 += 1\nr6 += 1\nif r1 < 0x14 goto l\nr0 = 0\nexit");
}

int main(void)
{
	tv_setup();
	RUN(test_imprecise_prunes);
	RUN(test_precise_does_not_prune);
	RUN(test_loop_counts);
	tv_teardown();
	return test_summary();
}
