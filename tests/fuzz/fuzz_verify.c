/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz the verifier on raw instructions: byte 0 picks the program type, byte 1 the
 * loader's privileges (bit 0), license (bit 2), log size (bit 3) and log level (bits 4-5);
 * bytes 2-7 are unused; the rest are instructions, verified against a host
 * with Linux's program types and three maps (array, hash, a one-entry array for direct
 * value access, as tests/soundness/harness.h describes). Any verdict is fine; a crash,
 * hang, leak or sanitizer report is a finding. Nothing runs here (fuzz_verify_exec runs
 * what is accepted). */
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static const char *const types[] = {
	"socket_filter", "sched_cls", "xdp", "syscall", "cgroup_skb", "kprobe", "raw_tracepoint", "tracepoint",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct snd_env env;
	static int ready;
	static char log[1 << 16];

	if (!ready) {
		if (snd_env_init(&env, 0))
			abort(); /* the harness itself: not a finding about the input */
		ready = 1;
	}
	if (size < 8 + sizeof(struct bpf_insn))
		return 0;
	size_t cnt = (size - 8) / sizeof(struct bpf_insn);
	struct bpf_insn *insns = malloc(cnt * sizeof(*insns));
	struct bpf_insn *xlated = malloc(cnt * sizeof(*insns));
	if (!insns || !xlated)
		goto out;
	memcpy(insns, data + 8, cnt * sizeof(*insns));
	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = env.host, .prog_type = types[data[0] % (sizeof(types) / sizeof(types[0]))],
		.maps = env.maps, .nr_maps = SND_NR_MAPS, .license = data[1] & 4 ? NULL : "GPL",
		.unprivileged = data[1] & 1, .log_buf = log, .log_size = data[1] & 8 ? 200 : sizeof(log),
		.xlated_insns = xlated,
		/* a 1M-insn walk takes ~25 s and >2 GB under ASan+libFuzzer: a tenth of
		 * Linux's limit keeps every input within the run's -timeout and -rss_limit */
		.insn_limit = 100000,
	};
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	(void)kbpf_prog_verify(insns, cnt, &vo, &vr);
	/* Again with a log (level 2 prints every insn's state: the log's formatting is
	 * surface too), unless the walk is long: formatting a million-insn walk takes
	 * seconds (the verifier keeps its whole log, docs/reliability.md). */
	if ((data[1] & 0x30) && vr.insns_processed < 100000) {
		vo.log_level = data[1] & 0x20 ? KBPF_LOG_LEVEL2 : KBPF_LOG_LEVEL1;
		(void)kbpf_prog_verify(insns, cnt, &vo, &vr);
	}
out:
	free(insns);
	free(xlated);
	return 0;
}
