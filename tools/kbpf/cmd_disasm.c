/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf disasm: raw instructions to the pseudo-C syntax of Linux's verifier log. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

void usage_disasm(void)
{
	printf("usage: kbpf disasm [--index] [--labels] FILE\n\n"
	       "Print the raw eBPF instructions in FILE ('-' for stdin; text assembly is accepted\n"
	       "too and printed back normalised) in the pseudo-C syntax of Linux's verifier log.\n"
	       "The output assembles back to the same bytes with 'kbpf asm'.\n\n"
	       "  --index     prefix lines with 'N: (code) ' as the verifier log and bpftool do\n"
	       "  --labels    print jump targets as labels instead of pc-relative offsets\n");
}

int cmd_disasm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "index", no_argument, 0, 'i' }, { "labels", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },  { 0, 0, 0, 0 },
	};
	struct kbpf_disasm_opts opts = { .sz = sizeof(opts) };
	int c;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': opts.with_index = 1; break;
		case 'l': opts.with_labels = 1; break;
		case 'h': usage_disasm(); return EXIT_OK;
		default: return cli_option_error("disasm", c, argv);
		}
	}
	if (optind != argc - 1)
		return cli_error(EXIT_USAGE, "disasm", "expected one input FILE (see 'kbpf disasm --help')");

	struct bpf_insn *insns;
	size_t cnt;
	if (cli_load_program("disasm", argv[optind], KBPF_ASM_AUTO, &insns, &cnt))
		return EXIT_FAIL;
	int ret = kbpf_prog_disasm(insns, cnt, &opts, stdout);
	free(insns);
	if (ret)
		return cli_error(EXIT_FAIL, "disasm", "%s: contains an undecodable instruction (printed as .insn)",
				 argv[optind]);
	return EXIT_OK;
}
