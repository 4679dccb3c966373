/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf verify: run the verifier on a program (raw, assembly text, or a program of a BPF
 * object) and print its log, Linux-style. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "cli.h"

int cmd_verify(int argc, char **argv);
void usage_verify(void);

void usage_verify(void)
{
	printf("usage: kbpf verify [OPTIONS] FILE\n"
	       "       kbpf verify [OPTIONS] FILE.o [PROG]\n\n"
	       "Verify the program in FILE (raw instructions or assembly text, '-' for stdin), or\n"
	       "the programs of BPF object FILE.o (only PROG if given), as Linux's verifier would,\n"
	       "and print the verifier log. Exit status 0 if every program is safe, 1 if not.\n\n"
	       "  --type T          program type: Linux's name (socket_filter, sched_cls, xdp, ...) or\n"
	       "                    libbpf's SEC() name (socket, tc, classifier, tp, raw_tp,\n"
	       "                    fentry/FUNC, cgroup/skb, ...); 'help' lists both. Default: from\n"
	       "                    the section name for objects, socket_filter for FILE\n"
	       "  --log-level N     Linux's log level bits: 1 the failing path, 2 every insn with\n"
	       "                    its state, 4 statistics (default 1; 0: only the error line)\n"
	       "  --attach FUNC     the host function a fentry/fexit/fmod_ret program attaches to\n"
	       "                    (its arguments are the context); objects: from the section\n"
	       "  --unpriv          Linux's rules for loads without CAP_BPF/CAP_PERFMON\n"
	       CLI_CAP_USAGE
	       "  --license L       license for GPL-only helpers (default GPL, or the object's)\n"
	       "  --map T:K:V:N     FILE only: create a map (type name, key/value size, entries);\n"
	       "                    the first is map[idx:0] in the program, the next map[idx:1]...\n"
	       "  --dialect D       assembly dialect: auto, pseudo-c, conformance\n"
	       "  --json            one JSON document: {\"file\", \"programs\": [{\"name\", \"type\",\n"
	       "                    \"verdict\" (safe, rejected, not_verified), \"error\", \"log\"}]}\n"
	       "objects only:\n" CLI_HOST_USAGE);
}

#define MAX_CLI_MAPS 64

/* --map TYPE:KEY:VALUE:ENTRIES, strictly: four fields, sizes 0..UINT32_MAX without sign,
 * space or trailing text. Prints the reason and returns EXIT_USAGE, or 0. */
static int parse_map(const char *arg, struct kbpf_map_def *d)
{
	static const char *const names[] = { "KEY", "VALUE", "ENTRIES" };
	const char *colon = strchr(arg, ':');
	char field[64];
	uint64_t v[3];
	const char *p;
	size_t i;

	for (i = 0, p = arg; p && i < 4; i++, p = strchr(p, ':'), p = p ? p + 1 : NULL)
		;
	if (!colon || colon == arg || i != 4 || p)
		return cli_error(EXIT_USAGE, "verify", "--map: expected TYPE:KEY:VALUE:ENTRIES, got '%s'", arg);
	memset(d, 0, sizeof(*d));
	d->sz = sizeof(*d);
	for (uint32_t t = 1; t < 64 && !d->type; t++) {
		const char *name = cli_map_type_name(t);
		if (name && strlen(name) == (size_t)(colon - arg) && !strncmp(name, arg, (size_t)(colon - arg)))
			d->type = t;
	}
	if (!d->type)
		return cli_error(EXIT_USAGE, "verify", "--map: unknown map type '%.*s'", (int)(colon - arg), arg);
	for (i = 0, p = colon + 1; i < 3; i++) {
		size_t len = strcspn(p, ":");
		snprintf(field, sizeof(field), "%.*s", (int)len, p);
		if (len >= sizeof(field) || cli_parse_uint(field, UINT32_MAX, &v[i]))
			return cli_error(EXIT_USAGE, "verify", "--map: %s '%.*s' is not a number 0..4294967295", names[i],
					 (int)len, p);
		p += len + 1;
	}
	d->key_size = (uint32_t)v[0];
	d->value_size = (uint32_t)v[1];
	d->max_entries = (uint32_t)v[2];
	return 0;
}

/* --json: one document {"file", "programs": [{"name", "type", "verdict", "error",
 * "log"}]}; verdict "safe", "rejected" or "not_verified"; error strerror's text or null;
 * type null when none applies. Opened by the first report, closed by json_end. */
static struct {
	bool on, started;
	const char *file;
} vjson;

static void json_begin(void)
{
	if (vjson.started)
		return;
	vjson.started = true;
	printf("{\"file\": ");
	cli_json_str(stdout, vjson.file, SIZE_MAX);
	printf(", \"programs\": [");
}

static void json_end(int rc)
{
	if (!vjson.on || (rc == EXIT_USAGE && !vjson.started))
		return;
	if (!vjson.started && rc != EXIT_OK)
		return; /* failed before any program: the error line alone */
	json_begin();
	printf("\n]}\n");
}

/* A program's verdict: JSON, or the text lines (log, then one line). */
static void report(const char *name, const char *type, const char *verdict, int err, const char *log)
{
	if (!vjson.on) {
		fputs(log ? log : "", stdout);
		if (!strcmp(verdict, "safe"))
			printf("%s: safe as %s\n", name, type);
		else if (!strcmp(verdict, "rejected") && type)
			printf("%s: rejected as %s (%s)\n", name, type, strerror(err));
		else if (!strcmp(verdict, "rejected"))
			printf("%s: rejected (%s)\n", name, strerror(err));
		else
			printf("%s: %s\n", name, type); /* type: why it was not verified */
		return;
	}
	static int n;
	json_begin();
	printf("%s\n  {\"name\": ", n++ ? "," : "");
	cli_json_str(stdout, name, SIZE_MAX);
	printf(", \"type\": ");
	if (type && strcmp(verdict, "not_verified"))
		cli_json_str(stdout, type, SIZE_MAX);
	else
		printf("null");
	printf(", \"verdict\": \"%s\", \"error\": ", verdict);
	if (err)
		cli_json_str(stdout, strerror(err), SIZE_MAX);
	else
		printf("null");
	printf(", \"log\": ");
	cli_json_str(stdout, log ? log : "", SIZE_MAX);
	printf("}");
}

struct verify_args {
	const char *type, *license;
	unsigned level;
	int unpriv;
	unsigned caps; /* --cap: kbpf_verify_opts.caps */
	uint32_t prog_flags; /* --prog-flags: kbpf_verify_opts.prog_flags */
	/* the program's BTF func_info (objects): global functions, callbacks */
	const struct btf *btf;
	const struct bpf_func_info *func_info;
	size_t nr_func_info;	/* struct_ops programs: the host member's prototype types the context */
	uint32_t attach_btf_id;
	const char *attach_member;
	const char *attach_func; /* --attach: a host function (fentry, fexit, fmod_ret) */
};

static int verify_one(const char *cmd, const char *what, const struct kbpf_program *prog,
		      const struct bpf_insn *insns, size_t cnt,
		      struct kbpf_host *host, const char *type, struct kbpf_map *const *maps, size_t nr_maps,
		      const struct verify_args *a, const char *license)
{
	size_t log_size = 16u << 20;
	char *log = malloc(log_size);
	if (!log)
		return cli_error(EXIT_FAIL, cmd, "out of memory");
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .maps = maps,
				      .nr_maps = nr_maps, .license = license, .unprivileged = a->unpriv,
				      .log_level = a->level, .log_buf = log, .log_size = log_size, .prog_name = what,
				      .caps = a->caps, .prog_flags = a->prog_flags, .attach_btf_id = a->attach_btf_id,
				      .attach_member = a->attach_member };
	if (a->btf && a->nr_func_info) {
		o.prog_btf = a->btf;
		o.func_info = a->func_info;
		o.nr_func_info = (uint32_t)a->nr_func_info;
	}
	if (a->attach_func) {
		const struct btf *hbtf = kbpf_host_btf(host);
		int id = hbtf ? btf__find_by_name_kind(hbtf, a->attach_func, BTF_KIND_FUNC) : -ENOENT;
		if (id <= 0) {
			free(log);
			return cli_error(EXIT_FAIL, cmd, "--attach: '%s' is not a function of the host's BTF",
					 a->attach_func);
		}
		o.attach_btf_id = (uint32_t)id;
	}
	log[0] = 0;
	int ret = kbpf_prog_verify(insns, cnt, &o, NULL);
	if (ret == -ENOENT) {
		free(log);
		return cli_error(EXIT_USAGE, cmd, "unknown program type '%s' (--type help lists them)", type);
	}
	if (ret)
		kbpf_program_fixup_log(prog, log, log_size); /* CO-RE failures, as libbpf words them */
	report(what, type, ret ? "rejected" : "safe", -ret, log);
	free(log);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* A program nothing verifies fails the command (it would not load without the opt-in),
 * unless --trusted-unverified says it is the user's own. */
static const char *unverified_verdict(const struct cli_host_opts *hopts, int *nr_refused)
{
	if (hopts->trusted_unverified)
		return " (loads with --trusted-unverified)";
	++*nr_refused;
	return ", refused (it would load only with --trusted-unverified, for trusted code)";
}

/* Whether p has an LD_ABS or LD_IND instruction (its own, before linking). */
static bool uses_ld_abs(const struct kbpf_program *p)
{
	size_t cnt = 0;
	const struct bpf_insn *insns = kbpf_program_insns(p, &cnt);

	for (size_t i = 0; insns && i < cnt; i++)
		if (BPF_CLASS(insns[i].code) == BPF_LD && (BPF_MODE(insns[i].code) == BPF_ABS ||
							   BPF_MODE(insns[i].code) == BPF_IND))
			return true;
	return false;
}

static int verify_object(const char *path, const char *prog_name, const struct verify_args *a,
			 const struct cli_host_opts *hopts, bool each);

/* The load of every program together failed: verify each on its own (only it loaded),
 * so one bad program does not hide the others' verdicts. */
static int verify_each(const char *path, struct kbpf_object *obj, const struct verify_args *a,
		       const struct cli_host_opts *hopts)
{
	char *names[1024];
	size_t n = 0;
	int rc = EXIT_OK;

	for (struct kbpf_program *p = NULL; (p = kbpf_object_next_program(obj, p)) && n < 1024;)
		if (kbpf_program_autoload(p) && !(names[n++] = strdup(kbpf_program_name(p))))
			n--;
	for (size_t i = 0; i < n; i++) {
		int r = verify_object(path, names[i], a, hopts, true);
		if (r == EXIT_USAGE || (r && rc == EXIT_OK))
			rc = r;
		free(names[i]);
	}
	return rc;
}

/* each: one of verify_each's: a load failure is this program's verdict (reported), not
 * the command's error line. */
static int verify_object(const char *path, const char *prog_name, const struct verify_args *a,
			 const struct cli_host_opts *hopts, bool each)
{
	const char *cmd = "verify";
	struct kbpf_host *host = cli_host_new(cmd, hopts);
	if (!host)
		return EXIT_FAIL;
	struct verify_args ra = *a;
	char tbuf[128];
	const char *attach = NULL;
	if (a->type && !(ra.type = cli_resolve_prog_type(host, a->type, tbuf, sizeof(tbuf), &attach))) {
		cli_host_free(host);
		return cli_error(EXIT_USAGE, cmd, "unknown program type '%s' (--type help lists them)", a->type);
	}
	if (!ra.attach_func)
		ra.attach_func = attach;
	a = &ra;
	struct kbpf_object *obj = NULL;
	char *olog = calloc(1, 1 << 16);
	/* trusted_unverified: the load below only links and relocates (the programs are
	 * verified one by one afterwards); nothing runs */
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .host = host, .log_buf = olog, .log_size = 1 << 16,
					    .btf_custom_path = cli_core_btf_path, .trusted_unverified = 1 };
	int ret, rc = EXIT_OK, nr_unverified = 0;
	char line[1024];
	uint32_t types[1024];
	struct kbpf_program *progs[1024];
	size_t n = 0;
	/* Load unverified (type UNSPEC) so that the programs are linked and relocated and
	 * the maps exist; then verify each one here with the full log. With PROG only PROG
	 * is loaded, as libbpf loads with autoload off for the others: another program's
	 * faults do not refuse this one. Unless the load then fails for want of them (a prog
	 * array's initial slots in .maps name them): then they load too, unverified. */
	struct cli_map_skips skips = { 0 };
	for (int all = 0, attempt = 0; attempt < CLI_MAX_MAP_SKIPS + 2; attempt++) {
		kbpf_object_close(obj);
		obj = NULL;
		n = 0;
		olog[0] = 0;
		ret = kbpf_object_open_file(path, &oo, &obj);
		if (ret) {
			rc = cli_error(EXIT_FAIL, cmd, "%s: %s", path, cli_last_line(olog, line, sizeof(line), -ret));
			goto out;
		}
		for (struct kbpf_program *p = kbpf_object_next_program(obj, NULL); p && n < 1024;
		     p = kbpf_object_next_program(obj, p)) {
			bool named = prog_name && !strcmp(kbpf_program_name(p), prog_name);
			if (named)
				kbpf_program_set_autoload(p, true);
			else if (prog_name && !all)
				kbpf_program_set_autoload(p, false);
			if (!kbpf_program_autoload(p))
				continue;
			if (!prog_name || named) {
				progs[n] = p;
				types[n++] = kbpf_program_type(p);
			}
			/* LD_ABS/LD_IND run only with a type's packet hook: such a program is
			 * verified by the load too (its failure is then the one line) */
			if (!uses_ld_abs(p))
				kbpf_program_set_type(p, 0);
		}
		if (prog_name && !n) {
			rc = cli_error(EXIT_FAIL, cmd, "%s: no program '%s'", path, prog_name);
			goto out;
		}
		if ((rc = cli_globals_apply(cmd, obj))) /* --set: .rodata steers the verifier */
			goto out;
		if (prog_name)
			cli_apply_map_skips(obj, &skips);
		ret = kbpf_object_load(obj);
		if (!ret || !prog_name)
			break;
		/* a map kbpf cannot create, for another program: left out, load again */
		if (cli_failed_map(olog, &skips))
			continue;
		if (all || !strstr(olog, "is not loaded"))
			break;
		all = 1;
	}
	/* a program's failure (not the object's: a map, an extern): each on its own */
	if (ret && !prog_name && !strncmp(cli_last_line(olog, line, sizeof(line), -ret), "program '", 9)) {
		rc = verify_each(path, obj, a, hopts);
		goto out;
	}
	if (ret && each) {
		char why[1100];
		snprintf(why, sizeof(why), "%s\n", cli_load_error(olog, &skips, line, sizeof(line), -ret));
		report(prog_name, NULL, "rejected", -ret, why);
		rc = EXIT_FAIL;
		goto out;
	}
	if (ret) {
		rc = cli_error(EXIT_FAIL, cmd, "%s: %s", path, cli_load_error(olog, &skips, line, sizeof(line), -ret));
		goto out;
	}
	/* by the index the program's LDDWs carry (NULL: a map left uncreated) */
	size_t nr_maps = 0;
	struct kbpf_map *const *maps = kbpf_object_map_table(obj, &nr_maps);
	for (size_t i = 0; i < n; i++) {
		const char *tname = a->type;
		char buf[64];
		const char *sec0 = kbpf_program_section_name(progs[i]);
		if (!tname && !types[i] && sec0 && kbpf_host_prog_type_find(host, sec0 + (sec0[0] == '?'))) {
			/* a host type named as the section ("checkout" of a host plugin) */
			snprintf(buf, sizeof(buf), "%s", sec0 + (sec0[0] == '?'));
			tname = buf;
		} else if (!tname) {
			tname = cli_prog_type_name(types[i]);
			if (!tname || !types[i]) {
				char why[300];
				snprintf(why, sizeof(why), "no program type (section '%s'): not verified%s",
					 kbpf_program_section_name(progs[i]), unverified_verdict(hopts, &nr_unverified));
				report(kbpf_program_name(progs[i]), why, "not_verified", 0, NULL);
				continue;
			}
			snprintf(buf, sizeof(buf), "%s", tname);
			tname = buf;
			/* a host type named as the section (an attach type: "cgroup/connect4") */
			const char *sec = kbpf_program_section_name(progs[i]);
			if (sec && sec[0] == '?')
				sec++;
			if (sec && kbpf_host_prog_type_find(host, sec))
				tname = sec;
		}
		struct verify_args pa = *a;
		/* a sleepable section's program is loaded sleepable, as kbpf_object_load does */
		const char *psec = kbpf_program_section_name(progs[i]);
		if (kbpf_section_sleepable(psec) && types[i] == kbpf_section_prog_type(psec))
			pa.prog_flags |= BPF_F_SLEEPABLE;
		if (!a->type && types[i] == BPF_PROG_TYPE_STRUCT_OPS) {
			/* typed by the host struct member it fills, as kbpf_object_load does */
			size_t before = olog ? strlen(olog) : 0;
			int r = kbpf_program_struct_ops_attach(obj, progs[i], &tname, &pa.attach_btf_id,
							       &pa.attach_member);
			if (r) {
				report(kbpf_program_name(progs[i]), NULL, "rejected", -r, olog ? olog + before : "");
				rc = EXIT_FAIL;
				continue;
			}
			if (!tname) {
				char why[300];
				snprintf(why, sizeof(why), "struct_ops program the host has no rules for (section '%s'): not verified%s",
					 kbpf_program_section_name(progs[i]), unverified_verdict(hopts, &nr_unverified));
				report(kbpf_program_name(progs[i]), why, "not_verified", 0, NULL);
				continue;
			}
		}
		if ((types[i] == BPF_PROG_TYPE_TRACING || types[i] == BPF_PROG_TYPE_LSM) &&
		    (!a->type || !a->attach_func)) {
			/* fentry/FUNC…: the section's attach type and FUNC's host BTF id, as
			 * kbpf_object_load does; --type overrides the type, not the target */
			const char *ttype = NULL;
			size_t before = olog ? strlen(olog) : 0;
			int r = kbpf_program_tracing_attach(obj, progs[i], &ttype, &pa.attach_btf_id);
			if (r) {
				report(kbpf_program_name(progs[i]), NULL, "rejected", -r, olog ? olog + before : "");
				rc = EXIT_FAIL;
				continue;
			}
			if (!a->type && ttype)
				tname = ttype;
		}
		size_t cnt;
		const struct bpf_insn *insns = kbpf_program_insns(progs[i], &cnt);
		const char *lic = a->license ? a->license : kbpf_object_license(obj);
		pa.btf = kbpf_object_btf(obj);
		pa.func_info = kbpf_program_func_info(progs[i], &pa.nr_func_info);
		int r = verify_one(cmd, kbpf_program_name(progs[i]), progs[i], insns, cnt, host, tname, maps, nr_maps, &pa, lic);
		if (r == EXIT_USAGE) {
			rc = r;
			break;
		}
		if (r)
			rc = EXIT_FAIL;
	}
	if (nr_unverified && rc == EXIT_OK)
		rc = cli_error(EXIT_FAIL, cmd, "%s: %d program%s not verified (no program type on this host)", path,
			       nr_unverified, nr_unverified == 1 ? "" : "s");
	else if (nr_unverified)
		rc = EXIT_FAIL;
out:
	kbpf_object_close(obj);
	cli_host_free(host);
	free(olog);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "type", required_argument, 0, 't' },	{ "log-level", required_argument, 0, 'l' },
		{ "unpriv", no_argument, 0, 'u' },	{ "license", required_argument, 0, 'L' },
		{ "map", required_argument, 0, 'm' },	{ "dialect", required_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' },	CLI_HOST_LONGOPTS,
		{ "attach", required_argument, 0, 'A' },	{ "json", no_argument, 0, 'J' },
		{ 0, 0, 0, 0 },
	};
	struct verify_args a = { .level = 1 };
	struct cli_host_opts hopts = { 0 };
	enum kbpf_asm_dialect dialect = KBPF_ASM_AUTO;
	struct kbpf_map_def defs[MAX_CLI_MAPS];
	size_t nr_defs = 0;
	uint64_t v;
	int c, rc;

	optind = 1;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			a.type = optarg;
			break;
		case 'l':
			if (cli_parse_u64(optarg, &v) || v > 7)
				return cli_error(EXIT_USAGE, "verify", "--log-level: expected 0..7, got '%s'", optarg);
			a.level = (unsigned)v;
			break;
		case 'u':
			a.unpriv = 1;
			break;
		case 'A':
			a.attach_func = optarg;
			break;
		case 'J':
			vjson.on = true;
			break;
		case 'L':
			a.license = optarg;
			break;
		case 'm':
			if (nr_defs == MAX_CLI_MAPS)
				return cli_error(EXIT_USAGE, "verify", "--map: at most %d maps", MAX_CLI_MAPS);
			if ((rc = parse_map(optarg, &defs[nr_defs])))
				return rc;
			nr_defs++;
			break;
		case 'd':
			if (cli_parse_dialect(optarg, &dialect))
				return cli_error(EXIT_USAGE, "verify", "--dialect: unknown dialect '%s'", optarg);
			break;
		case 'h':
			usage_verify();
			return EXIT_OK;
		case CLI_OPT_HOST:
		case CLI_OPT_KCONFIG:
		case CLI_OPT_CAP:
		case CLI_OPT_BTF:
		case CLI_OPT_SET:
		case CLI_OPT_PROG_FLAGS:
		case CLI_OPT_TRUSTED:
			if ((rc = cli_host_option("verify", c, optarg, &hopts)))
				return rc;
			a.caps = hopts.caps;
			a.prog_flags = hopts.prog_flags;
			break;
		default:
			return cli_option_error("verify", c, argv);
		}
	}
	if (a.type && !strcmp(a.type, "help")) {
		struct kbpf_host *host = cli_host_new("verify", &hopts);
		if (!host)
			return EXIT_FAIL;
		cli_list_prog_types(host);
		cli_host_free(host);
		return EXIT_OK;
	}
	if (optind >= argc)
		return cli_error(EXIT_USAGE, "verify", "missing FILE (see 'kbpf verify --help')");
	const char *path = argv[optind];
	vjson.file = path;
	if (strcmp(path, "-") && cli_is_elf_file(path)) {
		if (optind + 2 < argc)
			return cli_error(EXIT_USAGE, "verify", "too many arguments");
		rc = verify_object(path, optind + 1 < argc ? argv[optind + 1] : NULL, &a, &hopts, false);
		json_end(rc);
		return rc;
	}
	if (optind + 1 < argc)
		return cli_error(EXIT_USAGE, "verify", "too many arguments");

	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	if (cli_load_program("verify", path, dialect, &insns, &cnt))
		return EXIT_FAIL; /* a negative errno: main would exit with 254 */
	struct kbpf_host *host = cli_host_new("verify", &hopts);
	struct kbpf_map *maps[MAX_CLI_MAPS] = { 0 };
	rc = host ? EXIT_OK : EXIT_FAIL;
	for (size_t i = 0; !rc && i < nr_defs; i++) {
		int r = kbpf_map_create(&defs[i], &maps[i]);
		if (r)
			rc = cli_error(EXIT_FAIL, "verify", "--map #%zu: %s", i, strerror(-r));
	}
	char tbuf[128];
	const char *tname = "socket_filter", *attach = NULL;
	if (!rc && a.type && !(tname = cli_resolve_prog_type(host, a.type, tbuf, sizeof(tbuf), &attach)))
		rc = cli_error(EXIT_USAGE, "verify", "unknown program type '%s' (--type help lists them)", a.type);
	if (!a.attach_func)
		a.attach_func = attach; /* --type fentry/FUNC */
	if (!rc)
		rc = verify_one("verify", path, NULL, insns, cnt, host, tname, maps, nr_defs, &a,
				a.license ? a.license : "GPL");
	json_end(rc);
	for (size_t i = 0; i < nr_defs; i++)
		kbpf_map_free(maps[i]);
	cli_host_free(host);
	free(insns);
	return rc;
}
