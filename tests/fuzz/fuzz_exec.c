/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz raw instructions through validation, interpreter preparation and a checked
 * run with a budget: whatever the bytes, no crash, no sanitizer report. The checked
 * mode bounds every access, so even unverified programs are safe to run here. */
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>

static uint64_t helper_ret_arg(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)b, (void)c, (void)d, (void)e;
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kbpf_host *host;
	size_t cnt = size / sizeof(struct bpf_insn);
	struct bpf_insn *insns;
	struct kbpf_prog *prog;
	char log[256], err[256];
	uint8_t mem[64] = { 0 };

	if (!host) {
		host = kbpf_host_new();
		kbpf_host_helper_register(host, 1, "ret_arg", helper_ret_arg);
	}
	if (!cnt)
		return 0;
	insns = malloc(cnt * sizeof(*insns));
	if (!insns)
		return 0;
	memcpy(insns, data, cnt * sizeof(*insns));
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
	if (kbpf_prog_create(insns, cnt, &opts, &prog) == 0) {
		struct kbpf_mem_region region = { mem, sizeof(mem), KBPF_MEM_READ | KBPF_MEM_WRITE, "mem" };
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = &region,
					    .nr_regions = 1, .max_insns = 100000, .err = err, .err_size = sizeof(err) };
		ro.args[0] = (uint64_t)(uintptr_t)mem;
		ro.args[1] = sizeof(mem);
		(void)kbpf_prog_run_opts(prog, &ro, NULL);
		kbpf_prog_free(prog);
	}
	free(insns);
	return 0;
}
