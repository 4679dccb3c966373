/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf: the command line front end. Each subcommand lives in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

int cmd_tcp_sim(int argc, char **argv); /* cmd_tcp_sim.c */
void usage_tcp_sim(void);
int cmd_verify(int argc, char **argv); /* cmd_verify.c */
void usage_verify(void);
int cmd_gen(int argc, char **argv); /* cmd_gen.c */
void usage_gen(void);
void usage_verify(void);

static const struct cli_cmd commands[] = {
	{ "asm", "assemble text into raw instructions", cmd_asm, usage_asm },
	{ "btf", "print a host's BTF: its types as C (vmlinux.h) or raw", cmd_btf, usage_btf },
	{ "disasm", "print raw instructions as assembly", cmd_disasm, usage_disasm },
	{ "gen", "generate a C skeleton header for a BPF object (kbpf gen skeleton)", cmd_gen, usage_gen },
	{ "kfuncs", "list the host functions BPF programs may call, per program type", cmd_kfuncs, usage_kfuncs },
	{ "map", "show the maps of an object: definitions and contents", cmd_map, usage_map },
	{ "prog", "list or dump the programs of an object", cmd_prog, usage_prog },
	{ "run", "run a program on the interpreter", cmd_run, usage_run },
	{ "tcp-sim", "run congestion controls over a simulated bottleneck link", cmd_tcp_sim, usage_tcp_sim },
	{ "verify", "check a program with the verifier and print Linux's verifier log", cmd_verify, usage_verify },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: kbpf [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'kbpf COMMAND --help' describes one command.\n"
		     "Exit status: 0 success, 1 the input or program failed, 2 usage error.\n");
}

static const struct cli_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbpf %s\n", KBPF_VERSION_STRING);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		const struct cli_cmd *cmd = argc > 2 ? find_command(argv[2]) : NULL;
		if (argc > 2 && !cmd) {
			fprintf(stderr, "kbpf: unknown command '%s' (see 'kbpf --help')\n", argv[2]);
			return EXIT_USAGE;
		}
		if (cmd)
			cmd->usage();
		else
			usage(stdout);
		return EXIT_OK;
	}
	const struct cli_cmd *cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "kbpf: unknown command '%s' (see 'kbpf --help')\n", argv[1]);
		return EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
