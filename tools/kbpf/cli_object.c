/* SPDX-License-Identifier: Apache-2.0 */
/* What the object subcommands (prog, map, run FILE.o) share: the host they load objects
 * on (map helpers, CONFIG_HZ=250, --kconfig NAME=VAL, --host FILE for host BTF), opening
 * and loading with one-line errors, and names for instructions. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/linux.h>
#include <kbpf/tcp_host.h> /* the tcp_congestion_ops type (its own BTF: kbpf links kbpf_tcp) */
#include "cli.h"

const char *cli_core_btf_path;

int cli_host_option(const char *cmd, int opt, const char *arg, struct cli_host_opts *o)
{
	if (opt == CLI_OPT_SET)
		return cli_globals_add(cmd, arg);
	if (opt == CLI_OPT_BTF) {
		cli_core_btf_path = arg;
		return 0;
	}
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
					 "test_state_freq, sleepable, test_reg_invariants (comma-separated) or a number, got '%s'", arg);
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

/* Whether path is an ELF shared object whose dynamic symbols define kbpf_host_init: a
 * host plugin (docs/kfuncs.md). Raw BTF and executables (the host's BTF only) are not. */
static bool exports_host_init(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && !found && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			found = name && !strcmp(name, KBPF_HOST_INIT_SYMBOL);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* The plugins dlopen'ed for the hosts of this command: each closed by cli_host_free of
 * its host, after the host (its kfunc addresses point into the plugin). */
static struct {
	struct kbpf_host *host;
	void *handle;
} plugins[16];
static int nr_plugins;

/* A host plugin's kbpf_host_init on host (its BTF is loaded already). */
static int host_plugin_init(const char *cmd, const char *path, struct kbpf_host *host)
{
	char rel[4096];
	kbpf_host_init_fn init;
	void *handle;
	int ret;

	/* dlopen searches the library path for a bare name: make it a path */
	snprintf(rel, sizeof(rel), "%s%s", strchr(path, '/') ? "" : "./", path);
	handle = dlopen(rel, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return cli_error(EXIT_FAIL, cmd, "%s: %s", path, dlerror());
	if (nr_plugins < (int)(sizeof(plugins) / sizeof(plugins[0]))) { /* else kept open until exit */
		plugins[nr_plugins].host = host;
		plugins[nr_plugins++].handle = handle;
	}
	*(void **)&init = dlsym(handle, KBPF_HOST_INIT_SYMBOL);
	if (!init)
		return cli_error(EXIT_FAIL, cmd, "%s: no function " KBPF_HOST_INIT_SYMBOL
				 " (int kbpf_host_init(struct kbpf_host *host), docs/kfuncs.md)", path);
	ret = init(host);
	if (ret)
		return cli_error(EXIT_FAIL, cmd, "%s: kbpf_host_init failed: %s", path, strerror(ret < 0 ? -ret : ret));
	return 0;
}

void cli_host_free(struct kbpf_host *host)
{
	kbpf_host_free(host);
	for (int i = 0; host && i < nr_plugins;) {
		if (plugins[i].host != host) {
			i++;
			continue;
		}
		dlclose(plugins[i].handle);
		plugins[i] = plugins[--nr_plugins];
	}
}

/* Whether the host's BTF describes the TCP host (its struct_ops type and kfuncs): a host
 * file linking kbpf_tcp, as kbpf itself does. */
static bool btf_has_tcp_host(const struct kbpf_host *host)
{
	const struct btf *btf = kbpf_host_btf(host);

	return btf && btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT) > 0 &&
	       btf__find_by_name_kind(btf, "tcp_slow_start", BTF_KIND_FUNC) > 0;
}

static struct kbpf_host *host_fail(struct kbpf_host *host, const char *cmd, const char *msg)
{
	cli_host_free(host);
	if (msg)
		cli_error(EXIT_FAIL, cmd, "%s", msg);
	return NULL;
}

struct kbpf_host *cli_host_new(const char *cmd, const struct cli_host_opts *o)
{
	struct kbpf_host *host = kbpf_host_new();
	bool plugin = o->host_file && exports_host_init(o->host_file);
	int ret;

	if (!host || kbpf_host_add_map_helpers(host))
		return host_fail(host, cmd, "out of memory");
	if (o->host_file) {
		cli_libbpf_quiet();
		ret = kbpf_host_btf_load_file(host, o->host_file);
		if (ret) {
			cli_host_free(host);
			cli_btf_load_error(cmd, o->host_file, ret);
			return NULL;
		}
		/* a plugin: its kfunc sets, program types, … as the application registers them */
		if (plugin && host_plugin_init(cmd, o->host_file, host))
			return host_fail(host, cmd, NULL);
	}
	/* The TCP host's type, helpers and kfuncs (tcp-sim's BPF CCs), where the BTF has
	 * them: kbpf's own without --host. First: its clock helpers win over Linux's. */
	if ((!o->host_file || btf_has_tcp_host(host)) && kbpf_tcp_host_add(host) == -ENOMEM)
		return host_fail(host, cmd, "out of memory");
	/* Linux's program types and helpers (hosts/linux), so Linux programs verify and run,
	 * unless a plugin registered them itself. */
	if (!kbpf_host_prog_type_find(host, "socket_filter") && kbpf_linux_host_add(host))
		return host_fail(host, cmd, "cannot add Linux's program types (out of memory?)");
	/* Linux's common kfuncs (bpf_cast_to_kern_ctx, bpf_rdonly_cast) for every type, where
	 * the host's BTF has them (kbpf's own does; a plugin may have registered them itself) */
	if (kbpf_host_btf(host) && kbpf_host_btf_find(host, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0) {
		ret = kbpf_linux_host_add_kfuncs(host, NULL, 0);
		if (ret && ret != -EEXIST)
			return host_fail(host, cmd, "cannot register Linux's common kfuncs");
	}
	if (kbpf_host_kconfig_set(host, "CONFIG_HZ", 250))
		return host_fail(host, cmd, "out of memory");
	for (int i = 0; i < o->nr_kconfig; i++)
		if (kbpf_host_kconfig_set(host, o->kconfig[i].name, o->kconfig[i].value))
			return host_fail(host, cmd, "out of memory");
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

bool cli_failed_map(const char *log, struct cli_map_skips *sk)
{
	char line[1024];
	const char *l = cli_last_line(log, line, sizeof(line), 0), *q;
	size_t len;

	if (!strncmp(l, "legacy ", 7))
		l += 7;
	if (strncmp(l, "map '", 5) || (!strstr(l, "': cannot create it") && !strstr(l, "over kbpf's limit")))
		return false;
	q = strchr(l + 5, '\'');
	len = q ? (size_t)(q - (l + 5)) : 0;
	if (!len || len >= sizeof(sk->names[0]) || sk->nr == CLI_MAX_MAP_SKIPS)
		return false;
	for (int i = 0; i < sk->nr; i++)
		if (!strncmp(sk->names[i], l + 5, len) && !sk->names[i][len])
			return false; /* left out already, and still failing: something else */
	snprintf(sk->why[sk->nr], sizeof(sk->why[0]), "%.*s", (int)sizeof(sk->why[0]) - 1, line);
	snprintf(sk->names[sk->nr++], sizeof(sk->names[0]), "%.*s", (int)len, l + 5);
	return true;
}

const char *cli_load_error(const char *log, const struct cli_map_skips *sk, char *out, size_t size, int err)
{
	const char *l = cli_last_line(log, out, size, err), *at = strstr(l, "uses map '");

	for (int i = 0; at && strstr(l, "which is not created") && i < sk->nr; i++) {
		size_t len = strlen(sk->names[i]);
		if (!strncmp(at + 10, sk->names[i], len) && at[10 + len] == '\'') {
			snprintf(out, size, "%s", sk->why[i]);
			return out;
		}
	}
	return l;
}

void cli_apply_map_skips(struct kbpf_object *obj, const struct cli_map_skips *sk)
{
	for (int i = 0; obj && i < sk->nr; i++)
		kbpf_object_set_map_autocreate(obj, sk->names[i], false);
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
					      .caps = o->caps, .trusted_unverified = o->trusted_unverified,
					      .btf_custom_path = cli_core_btf_path };
	bool load = o->load;
	const char *prog = o->prog;
	struct kbpf_object *obj = NULL;
	char line[1024];
	int ret;

	cli_libbpf_quiet();
	/* With PROG, only PROG loads (libbpf's autoload off for the others): another
	 * program's faults do not refuse it, and a map kbpf cannot create is left out
	 * (autocreate off) unless PROG uses it. When the load fails for want of the other
	 * programs (a prog array's initial slots in .maps name them), they load too. */
	struct cli_map_skips skips = { 0 };
	for (int all = 0, attempt = 0; attempt < CLI_MAX_MAP_SKIPS + 2; attempt++) {
		kbpf_object_close(obj);
		obj = NULL;
		log[0] = 0;
		ret = kbpf_object_open_file(path, &opts, &obj);
		struct kbpf_program *named = ret || !prog ? NULL : kbpf_object_find_program(obj, prog);
		if (!ret && prog && load && !named) {
			char names[512] = "";
			size_t len = 0;
			for (struct kbpf_program *p = NULL;
			     (p = kbpf_object_next_program(obj, p)) && len < sizeof(names) - 64;)
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
							kbpf_program_name(p));
			kbpf_object_close(obj);
			return cli_error(EXIT_FAIL, cmd, "%s: no program '%s' (programs: %s)", path, prog,
					 names[0] ? names : "none");
		}
		for (struct kbpf_program *p = NULL; named && !all && (p = kbpf_object_next_program(obj, p));)
			if (p != named)
				kbpf_program_set_autoload(p, false);
		if (named && load)
			kbpf_program_set_autoload(named, true); /* named: wanted */
		for (struct kbpf_program *p = NULL; !ret && o->prog_flags && (p = kbpf_object_next_program(obj, p));)
			kbpf_program_set_flags(p, o->prog_flags);
		int code = ret ? 0 : cli_globals_apply(cmd, obj); /* --set: before load */
		if (code) {
			kbpf_object_close(obj);
			return code;
		}
		if (!ret && named)
			cli_apply_map_skips(obj, &skips);
		if (!ret && load) {
			ret = kbpf_object_load(obj);
			if (ret)
				snprintf(log, sizeof(log), "%s", kbpf_object_log(obj));
		}
		if (!ret || !named || !load)
			break;
		if (cli_failed_map(log, &skips))
			continue;
		if (all || !strstr(log, "is not loaded"))
			break;
		all = 1;
	}
	if (ret) {
		kbpf_object_close(obj);
		return cli_error(EXIT_FAIL, cmd, "%s: %s%s", path, cli_load_error(log, &skips, line, sizeof(line), -ret),
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
