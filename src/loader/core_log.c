/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE failures in verifier logs, explained as libbpf explains them (its fixup_log): an
 * instruction whose relocation could not be resolved is poisoned (a call to helper
 * 0xbad2310), and the verifier reports reaching it as "invalid func unknown#195896080";
 * the reason is in the object log only. The rewrite names the relocation instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader/loader_internal.h"

#define POISON_CALL "call unknown#195896080"
#define POISON_ERR "invalid func unknown#195896080"

int obj_core_poison_add(struct kbpf_program *prog, size_t insn, int relo, const char *note)
{
	struct obj_core_poison *p = OBJ_ADD(prog->poisons, prog->nr_poisons);
	if (!p)
		return -ENOMEM;
	p->insn = insn;
	p->relo = relo;
	p->note = strdup(note);
	if (!p->note) {
		prog->nr_poisons--;
		return -ENOMEM;
	}
	return 0;
}

void obj_core_poisons_free(struct kbpf_program *prog)
{
	for (size_t i = 0; i < prog->nr_poisons; i++)
		free(prog->poisons[i].note);
	free(prog->poisons);
	prog->poisons = NULL;
	prog->nr_poisons = 0;
}

static const struct obj_core_poison *poison_at(const struct kbpf_program *prog, size_t insn)
{
	for (size_t i = 0; i < prog->nr_poisons; i++)
		if (prog->poisons[i].insn == insn)
			return &prog->poisons[i];
	return NULL;
}

/* Replace log[at, at + len) by text, keeping the rest (cut at size - 1). */
static void splice(char *log, size_t size, size_t at, size_t len, const char *text)
{
	size_t tlen = strlen(text), rest = strlen(log + at + len);

	if (at + tlen >= size)
		tlen = size - 1 - at;
	if (at + tlen + rest >= size)
		rest = size - 1 - at - tlen;
	memmove(log + at + tlen, log + at + len, rest);
	memcpy(log + at, text, tlen);
	log[at + tlen + rest] = 0;
}

int kbpf_program_fixup_log(const struct kbpf_program *prog, char *log, size_t size)
{
	char text[1024];
	int n = 0;

	if (!prog || !log || !size || !prog->nr_poisons)
		return 0;
	/* "N: (85) call unknown#195896080\ninvalid func unknown#195896080\n" */
	for (char *at = log; (at = strstr(at, POISON_ERR));) {
		size_t start = (size_t)(at - log), len = strlen(POISON_ERR);
		const struct obj_core_poison *p = NULL;
		char *line = at;
		unsigned long insn = 0;

		if (line > log) { /* the instruction line before it */
			char *prev = line - 1;
			while (prev > log && prev[-1] != '\n')
				prev--;
			char *end;
			insn = strtoul(prev, &end, 10);
			if (end != prev && !strncmp(end, ": (85) " POISON_CALL, strlen(": (85) " POISON_CALL))) {
				p = poison_at(prog, insn);
				if (p) {
					len += start - (size_t)(prev - log);
					start = (size_t)(prev - log);
				}
			}
		} else if (prog->nr_poisons == 1) { /* the error line alone */
			p = &prog->poisons[0];
			insn = p->insn;
		}
		if (!p) {
			at += strlen(POISON_ERR);
			continue;
		}
		snprintf(text, sizeof(text), "%lu: <invalid CO-RE relocation>\nfailed to resolve CO-RE relocation #%d: %s",
			 insn, p->relo, p->note);
		splice(log, size, start, len, text);
		n++;
		size_t next = start + strlen(text), used = strlen(log);
		at = log + (next < used ? next : used);
	}
	return n;
}

void obj_core_fixup_log(const struct kbpf_program *prog, const struct kbpf_prog_opts *po, char *log, size_t size)
{
	if (kbpf_program_fixup_log(prog, log, size) || !prog->nr_poisons || !strstr(log, POISON_ERR))
		return;
	/* the error line alone, several instructions poisoned: which one was reached is in
	 * the log of level 1 (libbpf loads again with a log for the same reason) */
	size_t big = 1u << 20;
	struct kbpf_prog_opts o = *po;
	struct kbpf_prog *again = NULL;
	char *full = calloc(1, big);
	if (!full)
		return;
	o.log_buf = full;
	o.log_size = big;
	o.log_level = 1;
	o.jit = 0;
	if (kbpf_prog_create(prog->insns, prog->insn_cnt, &o, &again))
		kbpf_program_fixup_log(prog, full, big);
	else
		kbpf_prog_free(again);
	const char *why = strstr(full, "failed to resolve CO-RE relocation");
	if (why)
		snprintf(log, size, "%.*s", (int)strcspn(why, "\n"), why);
	free(full);
}
