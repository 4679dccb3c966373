/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz the assemblers (both dialects) and, for what assembles, validation,
 * disassembly and a re-assembly that must give the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/isa.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	char *text = malloc(size + 1);
	struct bpf_insn *insns = NULL, *again = NULL;
	size_t cnt = 0, cnt2 = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (int d = KBPF_ASM_AUTO; d <= KBPF_ASM_CONFORMANCE; d++) {
		if (kbpf_asm(text, d, &insns, &cnt, err, sizeof(err)) == 0) {
			char *out = NULL;
			size_t out_size = 0;
			FILE *f = open_memstream(&out, &out_size);
			struct kbpf_disasm_opts opts = { .sz = sizeof(opts), .with_labels = d == KBPF_ASM_AUTO };
			(void)kbpf_insns_validate(insns, cnt, err, sizeof(err));
			if (f && kbpf_prog_disasm(insns, cnt, &opts, f) == 0) {
				fclose(f);
				f = NULL;
				/* what disassembles cleanly must re-assemble to the same bytes */
				if (kbpf_asm(out, KBPF_ASM_PSEUDO_C, &again, &cnt2, err, sizeof(err)) ||
				    cnt2 != cnt || memcmp(again, insns, cnt * sizeof(*insns)))
					abort();
				free(again);
			}
			if (f)
				fclose(f);
			free(out);
			free(insns);
		}
	}
	free(text);
	return 0;
}
