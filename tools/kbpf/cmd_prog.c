/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf prog list | dump: the programs of a BPF object, and their instructions as load
 * leaves them (relocated, subprograms appended), with source lines from line_info the way
 * `bpftool prog dump xlated linum` shows them; with --jited, the JIT's x86-64 code of
 * each instruction under it (capstone), as `bpftool prog dump jited` does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#ifdef KBPF_HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif
#include <kbpf/btf.h>
#include "cli.h"

void usage_prog(void)
{
	printf("usage: kbpf prog list [OPTIONS] FILE.o\n"
	       "       kbpf prog dump [OPTIONS] FILE.o [PROG] [--raw | --jited]\n"
	       "       kbpf prog load [OPTIONS] FILE.o [PROG]\n\n"
	       "list: each program of the object: name, section, type (from the section name, as\n"
	       "      libbpf guesses it), instruction count, whether load creates it.\n"
	       "load: load the object as libbpf would (maps, relocations, verification of the\n"
	       "      programs of known types, JIT with --jited) and say what was loaded; if it\n"
	       "      fails, print the last lines of the verifier log and exit 1.\n"
	       "dump: load the object and print each loaded program (or PROG, loaded even if its\n"
	       "      section starts with '?') as it will run:\n"
	       "      relocated, with the subprograms it calls appended, after the verifier's\n"
	       "      rewrites (context accesses converted, bpf_loop calls inlined: bpftool's\n"
	       "      'xlated' program), helper and kfunc names, and '; source line @\n"
	       "      file:line:col' comments from the object's line info.\n\n"
	       "  --raw             dump the instructions as in the ELF file, without loading\n"
	       "  --linked          dump them as loading linked them, before the verifier's rewrites\n"
	       "  --json            list/dump: one JSON document (docs/loader.md, \"JSON output\")\n"
	       "  --jited           load with the x86-64 JIT and show each instruction's native\n"
	       "                    code under it (disassembled with capstone)\n"
	       "  --harden          load/dump: create the programs hardened (--blind, --stack-guard)\n"
	       "  --blind           JIT constant blinding: no immediate of a program in native code\n"
	       "  --stack-guard     guard bytes around each stack frame, checked at function return\n"
	       "  --budget N        each run stops after N backward jumps and BPF-to-BPF calls\n" CLI_HOST_USAGE CLI_CAP_USAGE);
}

struct prog_args {
	const char *cmd;
	const char *path, *prog;
	bool raw, jited;
	bool linked; /* --linked: the program as loading links it, before the verifier's rewrites */
	bool json;   /* --json: list/dump as one JSON document */
	struct cli_host_opts host;
	unsigned harden;     /* KBPF_HARDEN_* */
	uint64_t run_budget; /* --budget */
};

static int parse(int argc, char **argv, struct prog_args *a)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, 0, 'r' }, { "jited", no_argument, 0, 'j' }, { "help", no_argument, 0, 'h' },
		{ "linked", no_argument, 0, 'L' }, { "json", no_argument, 0, 'J' },
		{ "harden", no_argument, 0, 'S' }, { "blind", no_argument, 0, 'B' },
		{ "stack-guard", no_argument, 0, 'G' }, { "budget", required_argument, 0, 'U' },
		CLI_HOST_LONGOPTS, { 0, 0, 0, 0 },
	};
	int c, ret;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': a->raw = true; break;
		case 'L': a->linked = true; break;
		case 'J': a->json = true; break;
		case 'j': a->jited = true; break;
		case 'S': a->harden |= KBPF_HARDEN_ALL; break;
		case 'B': a->harden |= KBPF_HARDEN_BLIND; break;
		case 'G': a->harden |= KBPF_HARDEN_STACK_GUARD; break;
		case 'U':
			if (cli_parse_u64(optarg, &a->run_budget) || !a->run_budget || a->run_budget > KBPF_RUN_BUDGET_MAX)
				return cli_error(EXIT_USAGE, "prog", "--budget: '%s' is not a count from 1 to 2^48-1", optarg);
			break;
		case 'h': usage_prog(); return -1;
		case CLI_OPT_HOST:
		case CLI_OPT_KCONFIG:
		case CLI_OPT_CAP:
		case CLI_OPT_BTF:
		case CLI_OPT_SET:
		case CLI_OPT_PROG_FLAGS:
		case CLI_OPT_TRUSTED:
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
	if (a->json) {
		printf("{\"file\": ");
		cli_json_str(stdout, a->path, SIZE_MAX);
		printf(", \"programs\": [");
		for (int n = 0; (p = kbpf_object_next_program(obj, p)); n++) {
			size_t cnt;
			kbpf_program_insns(p, &cnt);
			printf("%s\n  {\"name\": ", n ? "," : "");
			cli_json_str(stdout, kbpf_program_name(p), SIZE_MAX);
			printf(", \"section\": ");
			cli_json_str(stdout, kbpf_program_section_name(p), SIZE_MAX);
			printf(", \"type\": ");
			cli_json_str(stdout, cli_prog_type_name(kbpf_program_type(p)), SIZE_MAX);
			printf(", \"insns\": %zu, \"autoload\": %s}", cnt, kbpf_program_autoload(p) ? "true" : "false");
		}
		printf("\n]}\n");
		kbpf_object_close(obj);
		return EXIT_OK;
	}
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
	size_t nr = 0;
	struct kbpf_map *const *table = kbpf_object_map_table(obj, &nr); /* by LDDW index */
	return table && in->imm >= 0 && (size_t)in->imm < nr && table[in->imm] ? kbpf_map_name(table[in->imm]) : NULL;
}

#ifdef KBPF_HAVE_CAPSTONE
/* Native code [start, end) of the JIT's output, one x86-64 instruction a line, indented
 * under the BPF instruction it came from (offsets from the entry). */
static void print_native(csh cs, const uint8_t *code, uint32_t start, uint32_t end, const char *what)
{
	if (start >= end)
		return;
	if (what)
		printf("      ; %s\n", what);
	while (start < end) {
		cs_insn *ci;
		size_t n = cs_disasm(cs, code + start, end - start, start, 1, &ci);

		if (!n) { /* not an instruction capstone knows: show the byte */
			printf("      %5x:  %02x                   .byte 0x%02x\n", start, code[start], code[start]);
			start++;
			continue;
		}
		char hex[3 * 16 + 1] = "";
		for (size_t k = 0; k < ci->size && k < 15; k++)
			snprintf(hex + 3 * k, sizeof(hex) - 3 * k, "%02x ", ci->bytes[k]);
		printf("      %5x:  %-21s %s%s%s\n", start, hex, ci->mnemonic, ci->op_str[0] ? " " : "", ci->op_str);
		start += ci->size;
		cs_free(ci, n);
	}
}
#endif

/* With jited: the native code of the BPF instruction(s) [i, i + n) and what follows
 * them up to the next instruction's code (an epilogue, the next function's prologue;
 * after the last one the stubs). Returns 0 or -1 when the disassembler is missing. */
struct jited_view {
#ifdef KBPF_HAVE_CAPSTONE
	csh cs;
#endif
	const uint8_t *code;
	size_t size, nlines;
	const struct kbpf_jited_line *lines;
};

static void print_jited_insns(const struct jited_view *v, size_t i, size_t n)
{
#ifdef KBPF_HAVE_CAPSTONE
	uint32_t end = v->lines[i + n - 1].end;
	uint32_t next = i + n < v->nlines ? v->lines[i + n].start : (uint32_t)v->size;

	print_native(v->cs, v->code, v->lines[i].start, end, NULL);
	print_native(v->cs, v->code, end, next,
		     i + n < v->nlines ? "epilogue, prologue" : "epilogue, run-time stop stubs");
#else
	(void)v, (void)i, (void)n;
#endif
}

/* orig[j]: the linked program's insn that starts at insn j of the loaded (xlated)
 * program, -1 inside a rewrite's expansion (an inlined bpf_loop), so that func_info and
 * line_info, which name linked insns, land where those insns went. */
static long *xlated_origins(const struct kbpf_prog *prog, size_t linked_cnt, size_t cnt)
{
	size_t n = 0;
	const uint32_t *idx = kbpf_prog_xlated_idx(prog, &n);
	long *orig = malloc((cnt ? cnt : 1) * sizeof(*orig));

	if (!orig)
		return NULL;
	for (size_t j = 0; j < cnt; j++)
		orig[j] = idx ? -1 : (long)j;
	for (size_t i = 0; idx && i < n && i < linked_cnt; i++)
		if (idx[i] < cnt)
			orig[idx[i]] = (long)i;
	return orig;
}

/* What a dump shows: a loaded program's instructions after the verifier's rewrites (with
 * orig, their linked origins), else the linked ones; the disassembly options. */
static int dump_insns(const struct kbpf_object *obj, const struct kbpf_prog *loaded, size_t linked_cnt,
		      const struct bpf_insn **insns, size_t *cnt, long **orig, struct kbpf_disasm_opts *opts)
{
	*cnt = linked_cnt;
	if (loaded) {
		*insns = kbpf_prog_insns(loaded, cnt);
		*orig = xlated_origins(loaded, linked_cnt, *cnt);
		if (!*orig)
			return -ENOMEM;
	}
	cli_object_disasm_opts(obj, opts);
	opts->with_index = 0;
	return 0;
}

static int dump_one(const struct kbpf_object *obj, const struct kbpf_program *p, bool raw, bool linked, bool jited)
{
	size_t cnt, nfi, linked_cnt;
	const struct bpf_insn *insns = kbpf_program_insns(p, &linked_cnt);
	const struct bpf_func_info *fi = raw ? NULL : kbpf_program_func_info(p, &nfi);
	/* a loaded program: what runs, after the verifier's rewrites (bpftool's "xlated") */
	const struct kbpf_prog *loaded = raw || linked ? NULL : kbpf_program_prog(p);
	long *orig = NULL;
	const struct btf *btf = kbpf_object_btf(obj);
	struct kbpf_disasm_opts opts;
	char buf[256];
	const char *last_file = NULL;
	uint32_t last_line = 0;

	struct jited_view jv = { 0 };

	if (dump_insns(obj, loaded, linked_cnt, &insns, &cnt, &orig, &opts))
		return -ENOMEM;
	if (jited) {
		struct kbpf_prog *prog = kbpf_program_prog(p);

		jv.code = kbpf_prog_jited_code(prog, &jv.size);
		jv.lines = kbpf_prog_jited_line_info(prog, &jv.nlines);
		if (!jv.code || jv.nlines != cnt)
			jited = false;
#ifdef KBPF_HAVE_CAPSTONE
		if (jited && cs_open(CS_ARCH_X86, CS_MODE_64, &jv.cs) != CS_ERR_OK)
			jited = false;
#endif
	}
	printf("%s (section %s, %s), %zu insns%s", kbpf_program_name(p), kbpf_program_section_name(p),
	       cli_prog_type_name(kbpf_program_type(p)), cnt, raw ? ", as in the ELF file" : "");
	if (jited)
		printf(", %zu bytes of x86-64 code", jv.size);
	printf(":\n");

	for (size_t i = 0; i < cnt;) {
		struct kbpf_source_line sl;
		long o = orig ? orig[i] : (long)i; /* the linked insn, -1: inside a rewrite */

		for (size_t k = 0; fi && o >= 0 && k < nfi; k++) {
			if (fi[k].insn_off != (uint32_t)o)
				continue;
			if (btf && !kbpf_btf_func_decl(btf, fi[k].type_id, buf, sizeof(buf)))
				printf("%s%s:\n", i ? "\n" : "", buf);
		}
		/* a line once, where its first record starts (records of other columns
		 * of the same line follow) */
		if (!raw && o >= 0 && !kbpf_program_source_line(p, (size_t)o, &sl) && sl.insn == (size_t)o && sl.text[0] &&
		    (sl.line != last_line || !last_file || strcmp(sl.file, last_file))) {
			const char *t = sl.text;
			last_file = sl.file;
			last_line = sl.line;
			while (*t == ' ' || *t == '\t')
				t++;
			printf("; %s @ %s:%u:%u\n", t, base_name(sl.file), sl.line, sl.col);
		}
#ifdef KBPF_HAVE_CAPSTONE
		if (jited && i == 0) /* under the function's name and first line, like the others */
			print_native(jv.cs, jv.code, 0, jv.lines[0].start, "prologue");
#endif
		int n = kbpf_insn_disasm(insns, cnt, i, &opts, buf, sizeof(buf));
		if (n <= 0) {
			printf("%4zu: (%02x) <%s>\n", i, insns[i].code, buf);
			if (jited)
				print_jited_insns(&jv, i, 1);
			i++;
			continue;
		}
		const char *map = insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) ? lddw_map_name(obj, &insns[i]) : NULL;
		printf("%4zu: (%02x) %s%s%s\n", i, insns[i].code, buf, map ? "  # " : "", map ? map : "");
		if (jited)
			print_jited_insns(&jv, i, (size_t)n);
		i += (size_t)n;
	}
#ifdef KBPF_HAVE_CAPSTONE
	if (jited)
		cs_close(&jv.cs);
#endif
	free(orig);
	return 0;
}

/* --json: one program as {"name", "section", "type", "insns": [{"index", "code", "text",
 * "map"?, "source"?: {"file", "line", "col", "text"}}]}. */
static int dump_one_json(const struct kbpf_object *obj, const struct kbpf_program *p, bool raw, bool linked)
{
	size_t cnt, linked_cnt;
	const struct bpf_insn *insns = kbpf_program_insns(p, &linked_cnt);
	const struct kbpf_prog *loaded = raw || linked ? NULL : kbpf_program_prog(p);
	long *orig = NULL;
	struct kbpf_disasm_opts opts;
	char buf[256];

	if (dump_insns(obj, loaded, linked_cnt, &insns, &cnt, &orig, &opts))
		return -ENOMEM;
	printf("{\"name\": ");
	cli_json_str(stdout, kbpf_program_name(p), SIZE_MAX);
	printf(", \"section\": ");
	cli_json_str(stdout, kbpf_program_section_name(p), SIZE_MAX);
	printf(", \"type\": ");
	cli_json_str(stdout, cli_prog_type_name(kbpf_program_type(p)), SIZE_MAX);
	printf(", \"insns\": [");
	for (size_t i = 0; i < cnt;) {
		struct kbpf_source_line sl;
		long o = orig ? orig[i] : (long)i;
		int n = kbpf_insn_disasm(insns, cnt, i, &opts, buf, sizeof(buf));
		printf("%s\n  {\"index\": %zu, \"code\": %u, \"text\": ", i ? "," : "", i, insns[i].code);
		cli_json_str(stdout, buf, sizeof(buf));
		const char *map = n > 0 && insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) ? lddw_map_name(obj, &insns[i]) : NULL;
		if (map) {
			printf(", \"map\": ");
			cli_json_str(stdout, map, SIZE_MAX);
		}
		if (!raw && o >= 0 && !kbpf_program_source_line(p, (size_t)o, &sl) && sl.insn == (size_t)o) {
			printf(", \"source\": {\"file\": ");
			cli_json_str(stdout, sl.file, SIZE_MAX);
			printf(", \"line\": %u, \"col\": %u, \"text\": ", sl.line, sl.col);
			cli_json_str(stdout, sl.text, SIZE_MAX);
			printf("}");
		}
		printf("}");
		i += n > 0 ? (size_t)n : 1;
	}
	printf("\n]}");
	free(orig);
	return 0;
}

static int dump(struct prog_args *a, struct kbpf_host *host)
{
	struct kbpf_object *obj;
	struct kbpf_program *p = NULL;
	struct cli_open_opts oo = { .load = !a->raw, .prog = a->prog, .jit = a->jited, .harden = a->harden,
				    .run_budget = a->run_budget, .caps = a->host.caps, .prog_flags = a->host.prog_flags,
				    /* dump runs nothing: programs without a type are shown as they load */
				    .trusted_unverified = 1 };
	int ret = cli_object_open_with("prog dump", a->path, host, &oo, &obj), shown = 0;

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
	if (a->json) {
		printf("{\"file\": ");
		cli_json_str(stdout, a->path, SIZE_MAX);
		printf(", \"programs\": [");
	}
	while ((p = kbpf_object_next_program(obj, p))) {
		if (a->prog ? strcmp(kbpf_program_name(p), a->prog) : (!a->raw && !kbpf_program_prog(p)))
			continue;
		if (a->json) {
			printf("%s\n", shown++ ? "," : "");
			dump_one_json(obj, p, a->raw, a->linked);
			continue;
		}
		if (shown++)
			printf("\n");
		if (a->jited && !kbpf_prog_is_jited(kbpf_program_prog(p))) {
			kbpf_object_close(obj);
			return cli_error(EXIT_FAIL, "prog dump", "%s: program '%s' is not JIT-compiled (runs on the interpreter)",
					 a->path, kbpf_program_name(p));
		}
		dump_one(obj, p, a->raw, a->linked, a->jited);
	}
	if (a->json)
		printf("\n]}\n");
	kbpf_object_close(obj);
	return EXIT_OK;
}

/* Print the last n lines of log to stderr (the verifier's path to the error and the
 * statistics line end there, as libbpf users see them). */
static void print_log_tail(const char *log, int n)
{
	const char *p = log + strlen(log);

	while (p > log && p[-1] == '\n')
		p--;
	const char *end = p;
	while (p > log && n > 0) {
		p--;
		if (*p == '\n' && --n == 0) {
			p++;
			break;
		}
	}
	fprintf(stderr, "%.*s\n", (int)(end - p), p);
}

static int load(struct prog_args *a, struct kbpf_host *host)
{
	static char log[1 << 20];
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .host = host, .log_buf = log,
					      .log_size = sizeof(log), .jit = a->jited, .log_level = 1,
					      .harden = a->harden, .run_budget = a->run_budget, .caps = a->host.caps,
					      .trusted_unverified = a->host.trusted_unverified,
					      .btf_custom_path = cli_core_btf_path };
	struct kbpf_object *obj = NULL;
	struct kbpf_program *p = NULL;
	int ret, loaded = 0;

	ret = kbpf_object_open_file(a->path, &opts, &obj);
	if (ret) {
		print_log_tail(log, 1);
		return cli_error(EXIT_FAIL, "prog load", "%s: cannot open: %s", a->path, strerror(-ret));
	}
	if (a->prog) {
		p = kbpf_object_find_program(obj, a->prog);
		if (!p) {
			kbpf_object_close(obj);
			return cli_error(EXIT_FAIL, "prog load", "%s: no program '%s'", a->path, a->prog);
		}
		/* only the named program, even if its section starts with '?' */
		for (struct kbpf_program *q = NULL; (q = kbpf_object_next_program(obj, q));)
			kbpf_program_set_autoload(q, q == p);
		p = NULL;
	}
	for (struct kbpf_program *q = NULL; a->host.prog_flags && (q = kbpf_object_next_program(obj, q));)
		kbpf_program_set_flags(q, a->host.prog_flags);
	ret = kbpf_object_load(obj);
	if (ret) {
		/* the verifier's last lines: the path to the error, the error, the statistics */
		print_log_tail(kbpf_object_log(obj), 8);
		kbpf_object_close(obj);
		return cli_error(EXIT_FAIL, "prog load", "%s: load failed: %s", a->path, strerror(-ret));
	}
	while ((p = kbpf_object_next_program(obj, p))) {
		const struct kbpf_prog *prog = kbpf_program_prog(p);
		if (!prog)
			continue;
		loaded++;
		printf("%s: section %s, type %s%s\n", kbpf_program_name(p), kbpf_program_section_name(p),
		       cli_prog_type_name(kbpf_program_type(p)), kbpf_prog_is_jited(prog) ? ", JIT-compiled" : "");
	}
	printf("%s: %d program%s loaded\n", a->path, loaded, loaded == 1 ? "" : "s");
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
		return cli_error(EXIT_USAGE, "prog", "expected 'list', 'dump' or 'load' (see 'kbpf prog --help')");
	if (cli_is_help(argv[1])) {
		usage_prog();
		return EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "list") && strcmp(verb, "dump") && strcmp(verb, "load"))
		return cli_error(EXIT_USAGE, "prog", "unknown subcommand '%s' (list, dump, load)", verb);
	ret = parse(argc - 1, argv + 1, &a);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	int npos = argc - 1 - optind;
	char **pos = argv + 1 + optind;
	if (npos < 1 || npos > (verb[1] == 'i' ? 1 : 2))
		return cli_error(EXIT_USAGE, "prog", "%s: expected FILE.o%s (see 'kbpf prog --help')", verb,
				 verb[1] == 'i' ? "" : " [PROG]");
	if (a.raw && verb[0] == 'l')
		return cli_error(EXIT_USAGE, "prog", "--raw goes with 'dump'");
	if (a.jited && !strcmp(verb, "list"))
		return cli_error(EXIT_USAGE, "prog", "--jited goes with 'dump' or 'load'");
	if (a.jited && a.raw)
		return cli_error(EXIT_USAGE, "prog", "--raw and --jited exclude each other");
	if (a.json && (a.jited || !strcmp(verb, "load")))
		return cli_error(EXIT_USAGE, "prog", "--json goes with 'list' and 'dump', without --jited");
	if (a.linked && (a.raw || a.jited || verb[0] != 'd'))
		return cli_error(EXIT_USAGE, "prog", "--linked goes with 'dump', without --raw or --jited");
#ifndef KBPF_HAVE_CAPSTONE
	if (a.jited && verb[0] == 'd')
		return cli_error(EXIT_FAIL, "prog", "--jited: this kbpf was built without capstone (libcapstone-dev)");
#endif
	a.path = pos[0];
	a.prog = npos > 1 ? pos[1] : NULL;
	host = cli_host_new("prog", &a.host);
	if (!host)
		return EXIT_FAIL;
	ret = !strcmp(verb, "list") ? list(&a, host) : !strcmp(verb, "load") ? load(&a, host) : dump(&a, host);
	cli_host_free(host);
	return ret;
}
