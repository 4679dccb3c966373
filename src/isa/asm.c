/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf_asm(): pick the dialect and hand the text to its front end. */
#include <errno.h>
#include <stdio.h>
#include "isa/asm_internal.h"

int kbpf_asm(const char *text, enum kbpf_asm_dialect dialect, struct bpf_insn **insns, size_t *cnt, char *err,
	     size_t err_size)
{
	if (insns)
		*insns = NULL;
	if (cnt)
		*cnt = 0;
	if (!text || !insns || !cnt) {
		if (err && err_size)
			snprintf(err, err_size, "no text or no output");
		return -EINVAL;
	}
	if (dialect == KBPF_ASM_AUTO)
		dialect = kbpf_asm_is_conformance(text) ? KBPF_ASM_CONFORMANCE : KBPF_ASM_PSEUDO_C;
	switch (dialect) {
	case KBPF_ASM_PSEUDO_C: return kbpf_asm_pseudo_c(text, insns, cnt, err, err_size);
	case KBPF_ASM_CONFORMANCE: return kbpf_asm_conformance(text, insns, cnt, err, err_size);
	default:
		if (err && err_size)
			snprintf(err, err_size, "unknown assembler dialect %d", (int)dialect);
		return -EINVAL;
	}
}
