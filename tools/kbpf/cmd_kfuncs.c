/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf kfuncs: what a host exports to BPF — every kfunc callable per program type, with
 * its C prototype (from the host's BTF) and flags. A host is audited by loading it the way
 * it registers its kfuncs: a shared object (built with kbpf_add_host_btf) exporting
 * `int kbpf_host_init(struct kbpf_host *)`, dlopen'ed with its own BTF loaded first
 * (docs/kfuncs.md). The plugin calls kbpf's API inside this executable (exported with
 * -rdynamic), so the registry it fills is the one listed here. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include <kbpf/linux.h>
#include <kbpf/tcp_host.h>

void usage_kfuncs(void)
{
	printf("usage: kbpf kfuncs [--host FILE] [--type T] [--json]\n\n"
	       "List the host functions BPF programs may call (kfuncs), per program type, with their\n"
	       "C prototypes and flags: what a host exported to BPF. Nothing else is callable.\n"
	       "Kfuncs every program type may call (Linux's common kfuncs) are listed once, first.\n\n"
	       "  --host FILE   a host plugin: a shared object built with kbpf_add_host_btf that\n"
	       "                exports int kbpf_host_init(struct kbpf_host *host); kbpf loads its\n"
	       "                BTF, dlopens it and calls kbpf_host_init, which registers its kfunc\n"
	       "                sets (docs/kfuncs.md). Without --host: the kbpf command's own host,\n"
	       "                the one 'kbpf run', 'prog load' and 'tcp-sim' load objects on: it\n"
	       "                exports the TCP host's kfuncs to tcp_congestion_ops programs.\n"
	       "  --type T      only the kfuncs of program type T: a type the host registers or a\n"
	       "                kfunc set names, or libbpf's SEC() name of one (tc: sched_cls);\n"
	       "                any other name is an error (exit 2)\n"
	       "  --json        one JSON document instead of text\n\n"
	       "Exit status: 0 listed (a known type without kfuncs says so), 1 the host plugin\n"
	       "failed to load, 2 usage error (bad option, unknown --type).\n");
}

static const char *const flag_names[] = {
	"KF_ACQUIRE", "KF_RELEASE", "KF_RET_NULL", "KF_KPTR_GET", "KF_TRUSTED_ARGS", "KF_SLEEPABLE", "KF_DESTRUCTIVE",
};

static bool same_type(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A kfunc every program type of the host may call (Linux's common kfuncs): the text
 * listing of every type prints it once, under its own heading, not under each type. */
struct shared_kfunc {
	const char *set, *name;
	size_t types; /* how many program types list it */
};

struct listing {
	bool json;
	const char *last_type; /* the group being printed */
	bool started, any;
	size_t n;
	/* the first pass (text, no --type): the program types and each kfunc's count */
	const char *count_type;
	size_t nr_types, nr_shared, cap_shared;
	struct shared_kfunc *shared;
	bool fold; /* print shared kfuncs once */
};

static struct shared_kfunc *shared_find(struct listing *l, const struct kbpf_kfunc_entry *e)
{
	for (size_t i = 0; i < l->nr_shared; i++)
		if (!strcmp(l->shared[i].name, e->name) && !strcmp(l->shared[i].set, e->set))
			return &l->shared[i];
	return NULL;
}

/* Is e's kfunc one every program type lists (and so printed once, not under each)? */
static bool is_shared(struct listing *l, const struct kbpf_kfunc_entry *e)
{
	struct shared_kfunc *s;
	return l->fold && e->prog_type && (s = shared_find(l, e)) && s->types == l->nr_types;
}

static int count_shared(const struct kbpf_kfunc_entry *e, void *arg)
{
	struct listing *l = arg;
	struct shared_kfunc *s;

	if (!e->prog_type)
		return 0;
	if (!same_type(l->count_type, e->prog_type)) {
		l->count_type = e->prog_type;
		l->nr_types++;
	}
	if ((s = shared_find(l, e))) {
		s->types++;
		return 0;
	}
	if (l->nr_shared == l->cap_shared) {
		size_t cap = l->cap_shared ? 2 * l->cap_shared : 16;
		struct shared_kfunc *n = realloc(l->shared, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->shared = n;
		l->cap_shared = cap;
	}
	l->shared[l->nr_shared++] = (struct shared_kfunc){ e->set, e->name, 1 };
	return 0;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}


static int print_json(const struct kbpf_kfunc_entry *e, struct listing *l)
{
	if (!l->started || !same_type(l->last_type, e->prog_type)) {
		printf("%s\n    {\"prog_type\": ", l->started ? "\n      ]\n    }," : "");
		if (e->prog_type)
			json_str(e->prog_type);
		else
			printf("null");
		printf(", \"kfuncs\": [");
		l->started = true;
		l->last_type = e->prog_type;
		l->n = 0;
	}
	printf("%s\n        {\"name\": ", l->n++ ? "," : "");
	json_str(e->name);
	printf(", \"btf_id\": %u, \"prototype\": ", e->btf_id);
	json_str(e->decl);
	printf(", \"flags\": [");
	for (unsigned b = 0, k = 0; b < sizeof(flag_names) / sizeof(flag_names[0]); b++)
		if (e->flags & (1u << b))
			printf("%s\"%s\"", k++ ? ", " : "", flag_names[b]);
	printf("], \"set\": ");
	json_str(e->set);
	printf(", \"filter\": %s, \"check_callback\": %s}", e->filtered ? "true" : "false",
	       e->by_check ? "true" : "false");
	return 0;
}

static void print_text_line(const struct kbpf_kfunc_entry *e)
{
	printf("%s; /* ", e->decl);
	for (unsigned b = 0, k = 0; b < sizeof(flag_names) / sizeof(flag_names[0]); b++)
		if (e->flags & (1u << b))
			printf("%s%s", k++ ? " | " : "", flag_names[b]);
	if (e->flags)
		printf(", ");
	printf("set %s, btf_id %u%s%s */\n", e->set, e->btf_id, e->filtered ? ", subject to the set's filter" : "",
	       e->by_check ? ", allowed by check_kfunc_call" : "");
}

/* The shared kfuncs, once, from the first type's entries */
static int print_shared(const struct kbpf_kfunc_entry *e, void *arg)
{
	struct listing *l = arg;
	if (!e->prog_type || !is_shared(l, e))
		return 0;
	if (l->last_type && !same_type(l->last_type, e->prog_type))
		return 1; /* the first type's are all of them */
	if (!l->started)
		printf("/* every program type (%zu): kfuncs Linux lets every type call */\n", l->nr_types);
	l->started = l->any = true;
	l->last_type = e->prog_type;
	print_text_line(e);
	return 0;
}

static int print_text(const struct kbpf_kfunc_entry *e, struct listing *l)
{
	if (is_shared(l, e))
		return 0;
	if (!l->started || !same_type(l->last_type, e->prog_type)) {
		if (e->prog_type)
			printf("%s/* program type %s */\n", l->started ? "\n" : "", e->prog_type);
		else
			printf("%s/* for no program type: callable only where a check_kfunc_call allows */\n",
			       l->started ? "\n" : "");
		l->started = true;
		l->last_type = e->prog_type;
	}
	print_text_line(e);
	return 0;
}

static int print_entry(const struct kbpf_kfunc_entry *e, void *arg)
{
	struct listing *l = arg;
	l->any = true;
	return l->json ? print_json(e, l) : print_text(e, l);
}

static int count_entry(const struct kbpf_kfunc_entry *e, void *arg)
{
	(void)e;
	(void)arg;
	return 1; /* one is enough */
}

int cmd_kfuncs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "host", required_argument, 0, 'H' },
		{ "type", required_argument, 0, 't' },
		{ "json", no_argument, 0, 'j' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *host_file = NULL, *type = NULL;
	struct listing l = { 0 };
	struct cli_host_opts hopts = { 0 };
	struct kbpf_host *host;
	int opt, ret = 0;

	optind = 1;
	opterr = 0; /* one line: ours */
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H': host_file = optarg; break;
		case 't': type = optarg; break;
		case 'j': l.json = true; break;
		case 'h': usage_kfuncs(); return EXIT_OK;
		default:
			return cli_option_error("kfuncs", opt, argv);
		}
	}
	if (optind < argc) {
		cli_error(EXIT_USAGE, "kfuncs", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	/* the host every object command loads on (cli_host_new): without --host kbpf's own,
	 * with the TCP host's kfuncs; with it the plugin's; Linux's program types in both */
	hopts.host_file = host_file;
	host = cli_host_new("kfuncs", &hopts);
	if (!host)
		return EXIT_FAIL;
	/* a name the host knows neither as a program type nor from a kfunc set is a typo,
	 * not "nothing callable": say so before printing anything */
	char tbuf[128];
	const char *resolved = NULL;
	if (type && !kbpf_host_prog_type_find(host, type) && !kbpf_host_kfunc_foreach(host, type, count_entry, NULL) &&
	    (resolved = cli_resolve_prog_type(host, type, tbuf, sizeof(tbuf), NULL)))
		type = resolved; /* libbpf's SEC() name: "tc" is sched_cls */
	if (!ret && type && !kbpf_host_prog_type_find(host, type) &&
	    !kbpf_host_kfunc_foreach(host, type, count_entry, NULL))
		ret = cli_error(EXIT_USAGE, "kfuncs", "--type: '%s' is no program type of this host and no kfunc "
				"set names it ('kbpf verify --type help' lists kbpf's own types)", type);
	if (!ret) {
		if (l.json) {
			printf("{\n  \"host\": ");
			if (host_file)
				json_str(host_file);
			else
				printf("null");
			printf(",\n  \"prog_types\": [");
		}
		/* text listing of every type: what all types share, once, first */
		if (!l.json && !type) {
			ret = kbpf_host_kfunc_foreach(host, NULL, count_shared, &l);
			l.fold = !ret && l.nr_types > 1;
			if (l.fold) {
				kbpf_host_kfunc_foreach(host, NULL, print_shared, &l);
				l.last_type = NULL;
			}
		}
		if (!ret)
			ret = kbpf_host_kfunc_foreach(host, type, print_entry, &l);
		if (ret)
			ret = cli_error(EXIT_FAIL, "kfuncs", "%s", strerror(-ret));
		else if (l.json)
			printf("%s\n  ]\n}\n", l.started ? "\n      ]\n    }" : "");
		else if (!l.any && type)
			printf("/* program type %s: no kfuncs (nothing is callable by default) */\n", type);
		else if (!l.any)
			printf("/* no kfuncs registered (nothing is callable by default) */\n");
	}
	free(l.shared);
	cli_host_free(host); /* the plugin is closed after the host */
	return ret;
}
