/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier states sized to the stack they use (state.c, stack.c): branches and calls
 * whose frames have different stack depths, copied into each other; and a log that
 * stops at the caller's buffer (log.c) at level >= 1 but still ends with the reason. */
#include "test_verifier_util.h"

/* Two paths with different depths join; the deeper one is explored second, so it is
 * copied into the walking state whose stack is smaller (and the other way round). */
static void test_branch_depths(void)
{
	static const char *const progs[] = {
		"r6 = *(u32 *)(r1 +0)\nr0 = 0\nif r6 > 0x5 goto a\n*(u64 *)(r10 -8) = r0\ngoto b\n"
		"a:\n*(u64 *)(r10 -512) = r0\n*(u64 *)(r10 -8) = r0\nb:\nr0 = *(u64 *)(r10 -8)\nexit",
		"r6 = *(u32 *)(r1 +0)\nr0 = 0\nif r6 > 0x5 goto a\n*(u64 *)(r10 -512) = r0\n*(u64 *)(r10 -8) = r0\ngoto b\n"
		"a:\n*(u64 *)(r10 -8) = r0\nb:\nr0 = *(u64 *)(r10 -8)\nexit",
	};
	for (int i = 0; i < 2; i++) {
		CHECK(tv_verify(progs[i], "t_plain", 2, 0) == 0);
		CHECK_EQ_U64(tv_last.stack_depth[0], 512);
	}
	/* a read below what the path allocated is refused without CAP_BPF */
	REJECT_U("r6 = *(u32 *)(r1 +0)\nr0 = 0\nif r6 > 0x5 goto a\n*(u64 *)(r10 -8) = r0\ngoto b\n"
		 "a:\n*(u64 *)(r10 -64) = r0\n*(u64 *)(r10 -8) = r0\nb:\nr0 = *(u64 *)(r10 -64)\nexit",
		 "invalid read from stack R10 off=-64 size=8");
}

/* A callee with its own stack and branches: its frames are copied, pushed, pruned and
 * freed at its exit (ASan: no leak, no stale slot). */
static void test_callee_frames(void)
{
	const char *prog = "r6 = *(u32 *)(r1 +0)\n*(u64 *)(r10 -16) = r6\nr1 = r6\ncall pc+4\n"
			   "r0 = *(u64 *)(r10 -16)\nr0 &= 1\nr0 = 0\nexit\n"
			   /* callee: deep stack on one path */
			   "r0 = 0\nif r1 > 0x7 goto c\n*(u64 *)(r10 -256) = r1\nr0 = *(u64 *)(r10 -256)\n"
			   "c:\n*(u64 *)(r10 -8) = r0\nr0 = *(u64 *)(r10 -8)\nexit";
	CHECK(tv_verify(prog, "t_plain", 2, 0) == 0);
	CHECK_EQ_U64(tv_last.nr_subprogs, 2);
	CHECK_EQ_U64(tv_last.stack_depth[1], 256);
	CHECK_CONTAINS(tv_log, "returning from callee");
	ACCEPT_RUN("t_plain", 0, prog);
}

/* A walk that logs far more than the caller's buffer. */
#define LONG_PROG                                                                                  \
	"r6 = *(u32 *)(r1 +0)\nr7 = 0\nl:\nr7 += 1\n*(u64 *)(r10 -8) = r7\nif r7 < 0x200 goto l\n" \
	"r0 = *(u64 *)(r1 +100)\nexit"

static int verify_small_log(unsigned level, char *log, size_t size, struct kbpf_verify_result *out)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[256];
	if (kbpf_asm(LONG_PROG, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)))
		return -1000;
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_plain", .license = "GPL",
				      .log_level = level, .log_buf = log, .log_size = size };
	*out = (struct kbpf_verify_result){ .sz = sizeof(*out) };
	int r = kbpf_prog_verify(insns, cnt, &o, out);
	free(insns);
	return r;
}

static void test_log_stops_when_full(void)
{
	static char full[1 << 20], small[4096];
	struct kbpf_verify_result of, os;
	for (unsigned level = 1; level <= 2; level++) {
		CHECK(verify_small_log(level, full, sizeof(full), &of) == -EACCES);
		CHECK(strlen(full) > sizeof(small)); /* the whole log does not fit */
		CHECK(verify_small_log(level, small, sizeof(small), &os) == -EACCES);
		/* same walk whatever the log */
		CHECK_EQ_U64(os.insns_processed, of.insns_processed);
		CHECK_EQ_U64(os.total_states, of.total_states);
		size_t n = strlen(small);
		CHECK(n <= sizeof(small) - 1 && n > sizeof(small) - 1100);
		/* the head is the whole log's head (Linux 6.1 keeps what fits) ... */
		CHECK(!strncmp(small, full, 1024));
		/* ... and it still ends with the reason and the statistics */
		CHECK_CONTAINS(small, "invalid bpf_context access off=100 size=8\nprocessed ");
		CHECK(small[n - 1] == '\n');
	}
	/* a log that fits is the same as with a big buffer */
	static char fit[1 << 16];
	CHECK(verify_small_log(1, full, sizeof(full), &of) == -EACCES);
	size_t len = strlen(full);
	if (len + 1 <= sizeof(fit)) {
		CHECK(verify_small_log(1, fit, len + 1, &os) == -EACCES);
		CHECK_STR(fit, full);
	}
	/* level 0 (only the error): the caller's buffer gets the tail, as before */
	char tiny[32];
	CHECK(verify_small_log(0, tiny, sizeof(tiny), &os) == -EACCES);
	CHECK_CONTAINS(tiny, "size=8\n");
	/* level 1 with a buffer of one byte: an empty log, the same verdict */
	char one[1] = { 'x' };
	CHECK(verify_small_log(1, one, sizeof(one), &os) == -EACCES);
	CHECK(one[0] == 0);
}

int main(void)
{
	tv_setup();
	RUN(test_branch_depths);
	RUN(test_callee_frames);
	RUN(test_log_stops_when_full);
	tv_teardown();
	return test_summary();
}
