/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf asm: text assembly to raw instructions (or one hex word per line). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

void usage_asm(void)
{
	printf("usage: kbpf asm [-o OUT] [--dialect auto|pseudo-c|conformance] [--hex] FILE\n\n"
	       "Assemble FILE ('-' for stdin) into raw eBPF instructions, 8 bytes each, little\n"
	       "endian, written to OUT or stdout. Both the pseudo-C syntax of Linux's verifier log\n"
	       "('r0 = 1', 'if r1 > 0x2 goto pc+3') and the conformance-suite syntax ('mov32 %%r0, 1')\n"
	       "are read; labels ('name:') may be jump targets. See docs/assembly.md.\n\n"
	       "  -o, --output OUT   write here instead of stdout\n"
	       "  --dialect D        force a dialect (default: auto-detect)\n"
	       "  --hex              write one 64-bit hex word per instruction slot instead of bytes\n"
	       "                     (the '-- raw' form of the conformance files)\n");
}

int cmd_asm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "dialect", required_argument, 0, 'd' },
		{ "hex", no_argument, 0, 'x' },          { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	enum kbpf_asm_dialect dialect = KBPF_ASM_AUTO;
	const char *out_path = NULL;
	int hex = 0, c;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'x': hex = 1; break;
		case 'd':
			if (cli_parse_dialect(optarg, &dialect))
				return cli_error(EXIT_USAGE, "asm", "unknown dialect '%s' (auto, pseudo-c, conformance)", optarg);
			break;
		case 'h': usage_asm(); return EXIT_OK;
		default: return cli_option_error("asm", c, argv);
		}
	}
	if (optind != argc - 1)
		return cli_error(EXIT_USAGE, "asm", "expected one input FILE (see 'kbpf asm --help')");

	struct bpf_insn *insns;
	size_t cnt;
	if (cli_load_program("asm", argv[optind], dialect, &insns, &cnt))
		return EXIT_FAIL;

	FILE *out = stdout;
	if (out_path) {
		out = fopen(out_path, hex ? "w" : "wb");
		if (!out) {
			free(insns);
			return cli_error(EXIT_FAIL, "asm", "cannot write %s", out_path);
		}
	} else if (!hex && isatty(STDOUT_FILENO)) {
		free(insns);
		return cli_error(EXIT_USAGE, "asm", "refusing to write binary to a terminal; use -o FILE or --hex");
	}
	int ok = 1;
	if (hex) {
		for (size_t i = 0; i < cnt; i++) {
			uint64_t w;
			memcpy(&w, &insns[i], sizeof(w));
			ok &= fprintf(out, "0x%016llx\n", (unsigned long long)w) > 0;
		}
	} else {
		ok = fwrite(insns, sizeof(*insns), cnt, out) == cnt;
	}
	if (out != stdout)
		ok &= fclose(out) == 0;
	else
		ok &= fflush(out) == 0;
	free(insns);
	if (!ok)
		return cli_error(EXIT_FAIL, "asm", "write error on %s", out_path ? out_path : "stdout");
	return EXIT_OK;
}
