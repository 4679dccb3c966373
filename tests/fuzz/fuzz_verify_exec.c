/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz verifier + execution: the input is a soundness case (tests/soundness/harness.h:
 * program type, privileges, packet length, 64 seed bytes for the maps and the context,
 * packet bytes, then instructions; flags: unprivileged, BPF_F_TEST_STATE_FREQ). Whatever
 * the verifier accepts runs on the checked interpreter with exactly that memory, then on
 * the JIT from the same state: a memory access outside what the program was given, an
 * interpreter/JIT difference in R0, maps, packet or context, or an unprivileged program
 * whose result depends on the stack's prior contents, is a finding and aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct snd_env env;
	static int ready;
	struct snd_case c;
	struct snd_result res;

	if (!ready) {
		if (snd_env_init(&env, 0))
			abort();
		/* a 1M-insn walk takes ~25 s and >2 GB under ASan+libFuzzer: a tenth of
		 * Linux's limit keeps every input within the run's -timeout and -rss_limit */
		env.insn_limit = 100000;
		ready = 1;
	}
	if (snd_case_decode(&c, data, size) || !c.cnt)
		return 0;
	/* "strict" (results may not depend on prior stack contents) holds for the generator's
	 * unmutated programs only; a fuzzed one may read stack it never wrote when privileged.
	 * Unprivileged cases stay held to it (harness.h). */
	c.strict = 0;
	/* the instructions, aligned (data need not be) */
	struct bpf_insn *insns = malloc(c.cnt * sizeof(*insns));
	if (!insns)
		return 0;
	memcpy(insns, c.insns, c.cnt * sizeof(*insns));
	c.insns = insns;
	snd_check(&env, &c, &res);
	if (res.verdict == SND_VIOLATION) {
		fprintf(stderr, "fuzz_verify_exec: soundness violation (%s): %s\n", snd_type_names[c.type], res.why);
		kbpf_prog_disasm(c.insns, c.cnt, NULL, stderr);
		abort();
	}
	free(insns);
	return 0;
}
