/* SPDX-License-Identifier: Apache-2.0 */
/* What the object subcommands (prog, map, run FILE.o) share: the host they load objects
 * on (map helpers, CONFIG_HZ=250, --kconfig NAME=VAL, --host FILE for host BTF), opening
 * and loading with one-line errors, and names for instructions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/linux.h>
#include <kbpf/tcp_host.h> /* the tcp_congestion_ops type (its own BTF: kbpf links kbpf_tcp) */
#include "cli.h"

int cli_host_option(const char *cmd, int opt, const char *arg, struct cli_host_opts *o)
{
	if (opt == CLI_OPT_HOST) {
		o->host_file = arg;
		return 0;
	}
	if (opt == CLI_OPT_TRUSTED) {
		o->trusted_unverified = 1;
		return 0;
	}
	if (opt == CLI_OPT_PROG_FLAGS) {
		if (cli_parse_prog_flags(arg, &o->prog_flags))
			return cli_error(EXIT_USAGE, cmd, "--prog-flags: expected strict_alignment, any_alignment, "
					 "test_state_freq, sleepable (comma-separated) or a number, got '%s'", arg);
		return 0;
	}
	if (opt == CLI_OPT_CAP) {
		if (cli_parse_caps(arg, &o->caps))
			return cli_error(EXIT_USAGE, cmd, "--cap: expected names of bpf, perfmon, net_admin, sys_admin, "
					 "sys_boot, all, none (comma-separated, -NAME drops), got '%s'", arg);
		return 0;
	}
	/* CLI_OPT_KCONFIG: NAME=VALUE */
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(o->kconfig[0].name))
		return cli_error(EXIT_USAGE, cmd, "--kconfig: expected NAME=VALUE, got '%s'", arg);
	if (o->nr_kconfig == CLI_MAX_KCONFIG)
		return cli_error(EXIT_USAGE, cmd, "--kconfig: at most %d values", CLI_MAX_KCONFIG);
	uint64_t v;
	if (cli_parse_u64(eq + 1, &v))
		return cli_error(EXIT_USAGE, cmd, "--kconfig: '%s' is not a number", eq + 1);
	snprintf(o->kconfig[o->nr_kconfig].name, sizeof(o->kconfig[0].name), "%.*s", (int)(eq - arg), arg);
	o->kconfig[o->nr_kconfig++].value = v;
	return 0;
}

static int silent_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* The command reports errors itself, one line each: libbpf's own warnings (about a file
 * that is not ELF, a bad .BTF) would only repeat them. */
void cli_libbpf_quiet(void)
{
	libbpf_set_print(silent_libbpf);
}

/* Why path's BTF could not be read (kbpf_host_btf_load_file's err), as one line for cmd;
 * returns EXIT_FAIL. */
int cli_btf_load_error(const char *cmd, const char *path, int err)
{
	struct stat st;

	if (stat(path, &st))
		return cli_error(EXIT_FAIL, cmd, "cannot open %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return cli_error(EXIT_FAIL, cmd, "%s: is a directory", path);
	if (st.st_size == 0)
		return cli_error(EXIT_FAIL, cmd, "%s: empty file", path);
	switch (err) {
	case -ENOENT: /* an ELF file, but libbpf found no .BTF section in it */
		return cli_error(EXIT_FAIL, cmd,
				 "%s has no .BTF section; build it with -g and run pahole -J, see docs/host-btf.md",
				 path);
	case -ENOEXEC:
		return cli_error(EXIT_FAIL, cmd, "%s: neither an ELF file nor raw BTF", path);
	case -EINVAL:
	case -EPROTO:
		return cli_error(EXIT_FAIL, cmd, "%s: malformed BTF", path);
	default: {
		char msg[128];
		libbpf_strerror(err, msg, sizeof(msg));
		return cli_error(EXIT_FAIL, cmd, "%s: cannot read BTF: %s", path, msg);
	}
	}
}

struct kbpf_host *cli_host_new(const char *cmd, const struct cli_host_opts *o)
{
	struct kbpf_host *host = kbpf_host_new();
	int ret;

	/* Linux's program types and helpers (hosts/linux), so Linux programs verify and run;
	 * first the TCP host's (its clock helpers win), unless kbpf has no BTF of its own. */
	if (!host || kbpf_host_add_map_helpers(host) || (!o->host_file && kbpf_tcp_host_add(host) == -ENOMEM) ||
	    kbpf_linux_host_add(host) ||
	    kbpf_host_kconfig_set(host, "CONFIG_HZ", 250)) {
		kbpf_host_free(host);
		cli_error(EXIT_FAIL, cmd, "out of memory");
		return NULL;
	}
	for (int i = 0; i < o->nr_kconfig; i++) {
		if (kbpf_host_kconfig_set(host, o->kconfig[i].name, o->kconfig[i].value)) {
			kbpf_host_free(host);
			cli_error(EXIT_FAIL, cmd, "out of memory");
			return NULL;
		}
	}
	if (o->host_file) {
		cli_libbpf_quiet();
		ret = kbpf_host_btf_load_file(host, o->host_file);
		if (ret) {
			kbpf_host_free(host);
			cli_btf_load_error(cmd, o->host_file, ret);
			return NULL;
		}
	}
	return host;
}

/* The line of a log that explains a failure: its last non-empty one (strerror(err) if
 * there is none), in out. */
const char *cli_last_line(const char *log, char *out, size_t size, int err)
{
	const char *end = log ? log + strlen(log) : NULL, *start;

	if (!log)
		return strerror(err);
	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	if (start == end)
		return strerror(err);
	snprintf(out, size, "%.*s", (int)(end - start), start);
	return out;
}

int cli_object_open(const char *cmd, const char *path, struct kbpf_host *host, bool load, const char *prog,
		    struct kbpf_object **out)
{
	struct cli_open_opts o = { .load = load, .prog = prog };
	return cli_object_open_with(cmd, path, host, &o, out);
}

int cli_object_open_with(const char *cmd, const char *path, struct kbpf_host *host, const struct cli_open_opts *o,
			 struct kbpf_object **out)
{
	static char log[65536];
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .host = host, .log_buf = log, .log_size = sizeof(log),
					      .jit = o->jit, .harden = o->harden, .run_budget = o->run_budget,
					      .caps = o->caps, .trusted_unverified = o->trusted_unverified };
	bool load = o->load;
	const char *prog = o->prog;
	struct kbpf_object *obj = NULL;
	char line[1024];
	int ret;

	cli_libbpf_quiet();
	log[0] = 0;
	ret = kbpf_object_open_file(path, &opts, &obj);
	if (!ret && load && prog && kbpf_object_find_program(obj, prog))
		kbpf_program_set_autoload(kbpf_object_find_program(obj, prog), true); /* named: wanted */
	for (struct kbpf_program *p = NULL; !ret && o->prog_flags && (p = kbpf_object_next_program(obj, p));)
		kbpf_program_set_flags(p, o->prog_flags);
	if (!ret && load) {
		ret = kbpf_object_load(obj);
		if (ret)
			snprintf(log, sizeof(log), "%s", kbpf_object_log(obj));
	}
	if (ret) {
		kbpf_object_close(obj);
		return cli_error(EXIT_FAIL, cmd, "%s: %s%s", path, cli_last_line(log, line, sizeof(line), -ret),
				 ret == -EPERM ? " [kbpf: --trusted-unverified]" : "");
	}
	*out = obj;
	return 0;
}

int cli_is_elf_file(const char *path)
{
	unsigned char magic[4] = { 0 };
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	size_t n;

	if (!f)
		return 0;
	n = fread(magic, 1, 4, f);
	fclose(f);
	return n == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

static const char *helper_name(void *cookie, int32_t id)
{
	const struct kbpf_object *obj = cookie;
	const char *name = NULL;
	kbpf_host_helper_find(kbpf_object_host(obj), id, &name);
	return name;
}

static const char *kfunc_name(void *cookie, int32_t id)
{
	const struct kbpf_object *obj = cookie;
	const struct btf *btf = kbpf_host_btf(kbpf_object_host(obj));
	const struct btf_type *t = btf && id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	return t && btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

void cli_object_disasm_opts(const struct kbpf_object *obj, struct kbpf_disasm_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->helper_name = helper_name;
	opts->kfunc_name = kfunc_name;
	opts->cookie = (void *)obj;
	opts->with_index = 1;
}

const char *cli_prog_type_name(uint32_t type)
{
	const char *s = type ? libbpf_bpf_prog_type_str((enum bpf_prog_type)type) : NULL;
	return s ? s : type ? "unknown" : "unspec";
}

const char *cli_map_type_name(uint32_t type)
{
	const char *s = libbpf_bpf_map_type_str((enum bpf_map_type)type);
	return s ? s : "unknown";
}
