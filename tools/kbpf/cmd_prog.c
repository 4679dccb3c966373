/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf prog list | dump: the programs of a BPF object, and their instructions as load
 * leaves them (relocated, subprograms appended), with source lines from line_info the way
 * `bpftool prog dump xlated linum` shows them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/func_compat.h"
#include "cli.h"

void usage_prog(void)
{
	printf("usage: kbpf prog list [OPTIONS] FILE.o\n"
	       "       kbpf prog dump [OPTIONS] FILE.o [PROG] [--raw]\n\n"
	       "list: each program of the object: name, section, type (from the section name, as\n"
	       "      libbpf guesses it), instruction count, whether load creates it.\n"
	       "dump: load the object and print each loaded program (or PROG, loaded even if its\n"
	       "      section starts with '?') as it will run:\n"
	       "      relocated, with the subprograms it calls appended, helper and kfunc names,\n"
	       "      and '; source line @ file:line:col' comments from the object's line info.\n\n"
	       "  --raw             dump the instructions as in the ELF file, without loading\n" CLI_HOST_USAGE);
}

struct prog_args {
	const char *cmd;
	const char *path, *prog;
	bool raw;
	struct cli_host_opts host;
};

static int parse(int argc, char **argv, struct prog_args *a)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, 0, 'r' }, { "help", no_argument, 0, 'h' }, CLI_HOST_LONGOPTS, { 0, 0, 0, 0 },
	};
	int c, ret;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': a->raw = true; break;
		case 'h': usage_prog(); return -1;
		case CLI_OPT_HOST:
		case CLI_OPT_KCONFIG:
			ret = cli_host_option("prog", c, optarg, &a->host);
			if (ret)
				return ret;
			break;
		case ':':
			return cli_error(EXIT_USAGE, "prog", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_error(EXIT_USAGE, "prog", "bad option '%s' (see 'kbpf prog --help')", argv[optind - 1]);
		}
	}
	return 0;
}

static int list(struct prog_args *a, struct kbpf_host *host)
{
	struct kbpf_object *obj;
	struct kbpf_program *p = NULL;
	int ret = cli_object_open("prog list", a->path, host, false, NULL, &obj);

	if (ret)
		return ret;
	printf("%-24s %-24s %-16s %6s  %s\n", "NAME", "SECTION", "TYPE", "INSNS", "AUTOLOAD");
	while ((p = kbpf_object_next_program(obj, p))) {
		size_t cnt;
		kbpf_program_insns(p, &cnt);
		printf("%-24s %-24s %-16s %6zu  %s\n", kbpf_program_name(p), kbpf_program_section_name(p),
		       cli_prog_type_name(kbpf_program_type(p)), cnt, kbpf_program_autoload(p) ? "yes" : "no");
	}
	kbpf_object_close(obj);
	return EXIT_OK;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The map an LDDW names, for a comment after the instruction. */
static const char *lddw_map_name(const struct kbpf_object *obj, const struct bpf_insn *in)
{
	if (in->src_reg != BPF_PSEUDO_MAP_IDX && in->src_reg != BPF_PSEUDO_MAP_IDX_VALUE)
		return NULL;
	struct kbpf_map *m = kbpf_object_next_map(obj, NULL);
	for (int32_t i = 0; m && i < in->imm; i++)
		m = kbpf_object_next_map(obj, m);
	return m ? kbpf_map_name(m) : NULL;
}

static int dump_one(const struct kbpf_object *obj, const struct kbpf_program *p, bool raw)
{
	size_t cnt, nfi;
	const struct bpf_insn *insns = kbpf_program_insns(p, &cnt);
	const struct bpf_func_info *fi = raw ? NULL : kbpf_program_func_info(p, &nfi);
	const struct btf *btf = kbpf_object_btf(obj);
	struct kbpf_disasm_opts opts;
	char buf[256];
	const char *last_file = NULL;
	uint32_t last_line = 0;

	cli_object_disasm_opts(obj, &opts);
	opts.with_index = 0;
	printf("%s (section %s, %s), %zu insns%s:\n", kbpf_program_name(p), kbpf_program_section_name(p),
	       cli_prog_type_name(kbpf_program_type(p)), cnt, raw ? ", as in the ELF file" : "");
	for (size_t i = 0; i < cnt;) {
		struct kbpf_source_line sl;

		for (size_t k = 0; fi && k < nfi; k++) {
			if (fi[k].insn_off != i)
				continue;
			if (btf && !kbpf_btf_func_decl(btf, fi[k].type_id, buf, sizeof(buf)))
				printf("%s%s:\n", i ? "\n" : "", buf);
		}
		/* a line once, where its first record starts (records of other columns
		 * of the same line follow) */
		if (!raw && !kbpf_program_source_line(p, i, &sl) && sl.insn == i && sl.text[0] &&
		    (sl.line != last_line || !last_file || strcmp(sl.file, last_file))) {
			const char *t = sl.text;
			last_file = sl.file;
			last_line = sl.line;
			while (*t == ' ' || *t == '\t')
				t++;
			printf("; %s @ %s:%u:%u\n", t, base_name(sl.file), sl.line, sl.col);
		}
		int n = kbpf_insn_disasm(insns, cnt, i, &opts, buf, sizeof(buf));
		if (n <= 0) {
			printf("%4zu: (%02x) <%s>\n", i, insns[i].code, buf);
			i++;
			continue;
		}
		const char *map = insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) ? lddw_map_name(obj, &insns[i]) : NULL;
		printf("%4zu: (%02x) %s%s%s\n", i, insns[i].code, buf, map ? "  # " : "", map ? map : "");
		i += (size_t)n;
	}
	return 0;
}

static int dump(struct prog_args *a, struct kbpf_host *host)
{
	struct kbpf_object *obj;
	struct kbpf_program *p = NULL;
	int ret = cli_object_open("prog dump", a->path, host, !a->raw, a->prog, &obj), shown = 0;

	if (ret)
		return ret;
	if (a->prog && !kbpf_object_find_program(obj, a->prog)) {
		char names[512] = "";
		size_t len = 0;
		while ((p = kbpf_object_next_program(obj, p)) && len < sizeof(names) - 64)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
						kbpf_program_name(p));
		kbpf_object_close(obj);
		return cli_error(EXIT_FAIL, "prog dump", "%s: no program '%s' (programs: %s)", a->path, a->prog,
				 names[0] ? names : "none");
	}
	while ((p = kbpf_object_next_program(obj, p))) {
		if (a->prog ? strcmp(kbpf_program_name(p), a->prog) : (!a->raw && !kbpf_program_prog(p)))
			continue;
		if (shown++)
			printf("\n");
		dump_one(obj, p, a->raw);
	}
	kbpf_object_close(obj);
	return EXIT_OK;
}

int cmd_prog(int argc, char **argv)
{
	struct prog_args a = { 0 };
	struct kbpf_host *host;
	const char *verb;
	int ret;

	if (argc < 2)
		return cli_error(EXIT_USAGE, "prog", "expected 'list' or 'dump' (see 'kbpf prog --help')");
	if (cli_is_help(argv[1])) {
		usage_prog();
		return EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "list") && strcmp(verb, "dump"))
		return cli_error(EXIT_USAGE, "prog", "unknown subcommand '%s' (list, dump)", verb);
	ret = parse(argc - 1, argv + 1, &a);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	int npos = argc - 1 - optind;
	char **pos = argv + 1 + optind;
	if (npos < 1 || npos > (verb[0] == 'd' ? 2 : 1))
		return cli_error(EXIT_USAGE, "prog", "%s: expected FILE.o%s (see 'kbpf prog --help')", verb,
				 verb[0] == 'd' ? " [PROG]" : "");
	if (a.raw && verb[0] == 'l')
		return cli_error(EXIT_USAGE, "prog", "--raw goes with 'dump'");
	a.path = pos[0];
	a.prog = npos > 1 ? pos[1] : NULL;
	host = cli_host_new("prog", &a.host);
	if (!host)
		return EXIT_FAIL;
	ret = verb[0] == 'l' ? list(&a, host) : dump(&a, host);
	kbpf_host_free(host);
	return ret;
}
