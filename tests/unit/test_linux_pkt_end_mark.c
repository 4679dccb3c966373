/* SPDX-License-Identifier: Apache-2.0 */
/* A packet pointer's at-packet-end mark does not survive `ptr -= K` (issue 16, class
 * 12): after `if data + 8 < data_end` fails, data + 8 >= data_end; lowered by 8 it may be
 * below data_end again (a 1..8 byte packet). The verifier used to keep the mark, judge
 * `if ptr >= data_end` always taken and turn the other side into dead code, which a run
 * with a short packet reached (it spun; with dead code failing safe it stops). Run on the
 * interpreter, the JIT and checked mode with packets of 0, 4 and 16 bytes. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "exec/jit.h"
#include "test.h"
#include "test_linux_util.h"

static const char *text = "r2 = *(u32 *)(r1 +0)\n"  /* data */
			  "r3 = *(u32 *)(r1 +4)\n"  /* data_end */
			  "r4 = r2\n"
			  "r4 += 8\n"
			  "if r4 < r3 goto long\n" /* here data + 8 >= data_end */
			  "r4 -= 8\n"
			  "if r4 >= r3 goto empty\n"
			  "r0 = 2\n"                /* 1..8 bytes */
			  "exit\n"
			  "empty:\n"
			  "r0 = 3\n"
			  "exit\n"
			  "long:\n"
			  "r0 = 1\n"
			  "exit";

static struct kbpf_host *host;

static int run(int jit, unsigned flags, size_t len, uint64_t *r0)
{
	static uint8_t buf[KBPF_LINUX_XDP_HEADROOM + 64];
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char log[4096] = "";

	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, log, sizeof(log)))
		return 1000;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "xdp", .license = "GPL",
				     .jit = jit, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, cnt, &po, &p);
	free(insns);
	if (ret) {
		fprintf(stderr, "create: %s\n", log);
		return ret;
	}
	CHECK(!jit || kbpf_prog_is_jited(p));
	struct kbpf_linux_xdp xdp;
	memset(&xdp, 0, sizeof(xdp));
	xdp.data_hard_start = buf;
	xdp.data = xdp.data_meta = buf + KBPF_LINUX_XDP_HEADROOM;
	xdp.data_end = xdp.data + len;
	xdp.data_hard_end = buf + sizeof(buf);
	struct kbpf_mem_region regions[] = { { &xdp, sizeof(xdp), KBPF_MEM_READ, "ctx" },
					     { buf, sizeof(buf), KBPF_MEM_READ, "packet" } };
	char err[256] = "";
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&xdp }, .flags = flags,
				    .regions = regions, .nr_regions = 2, .err = err, .err_size = sizeof(err) };
	ret = kbpf_prog_run_opts(p, &ro);
	if (ret)
		fprintf(stderr, "run (jit %d, flags %u, %zu bytes): %d %s\n", jit, flags, len, ret, err);
	*r0 = ro.retval;
	kbpf_prog_free(p);
	return ret;
}

static void check_all(int jit, unsigned flags)
{
	static const struct { size_t len; uint64_t want; } cases[] = { { 0, 3 }, { 4, 2 }, { 8, 2 }, { 16, 1 } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint64_t r0 = 0;
		CHECK_EQ_U64(run(jit, flags, cases[k].len, &r0), 0);
		CHECK_EQ_U64(r0, cases[k].want);
	}
}

static void test_interp(void)
{
	check_all(0, 0);
}

static void test_jit(void)
{
	if (kbpf_jit_arch_supported())
		check_all(1, 0);
}

static void test_checked(void)
{
	check_all(0, KBPF_RUN_CHECKED);
}

int main(void)
{
	alarm(60); /* the old verdict made the 4-byte run spin: fail, not hang */
	host = linux_host();
	CHECK(host != NULL);
	if (!host)
		return test_summary();
	RUN(test_interp);
	RUN(test_jit);
	RUN(test_checked);
	kbpf_host_free(host);
	return test_summary();
}
