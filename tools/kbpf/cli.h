/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the kbpf command: subcommand entry points, input helpers, errors. */
#ifndef KBPF_TOOL_CLI_H
#define KBPF_TOOL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <kbpf/kbpf.h>

/* Exit codes: success, the input (program, file) was bad or failed, usage error. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	void (*usage)(void);
};

int cmd_asm(int argc, char **argv);
void usage_asm(void);
int cmd_btf(int argc, char **argv);
void usage_btf(void);
int cmd_disasm(int argc, char **argv);
void usage_disasm(void);
int cmd_run(int argc, char **argv);
void usage_run(void);
int cmd_prog(int argc, char **argv);
void usage_prog(void);
int cmd_map(int argc, char **argv);
void usage_map(void);
int cmd_kfuncs(int argc, char **argv);
void usage_kfuncs(void);

/* Print "kbpf CMD: message" to stderr (printf-style); returns the code given. */
int cli_error(int code, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Read a whole file ("-" is stdin) into a malloc'ed buffer with a NUL after the data.
 * Returns 0, or a negative errno (the message is printed for cmd). */
int cli_read_file(const char *cmd, const char *path, char **data, size_t *size);

/* Load a program from a file: raw instructions (8 bytes each) or assembly text, told apart
 * by content. Returns 0 and a malloc'ed array, or prints the reason and returns non-zero. */
int cli_load_program(const char *cmd, const char *path, enum kbpf_asm_dialect dialect, struct bpf_insn **insns,
		     size_t *cnt);

/* Parse an unsigned/signed integer with strtoull rules (0x, octal, decimal), whole string,
 * no leading whitespace. Returns 0 or -EINVAL. */
int cli_parse_u64(const char *s, uint64_t *out);
/* The same for a count or size: no sign, at most max. Returns 0 or -EINVAL. */
int cli_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* --cap LIST: comma-separated capability names (bpf, perfmon, net_admin, sys_admin,
 * sys_boot), "all" or "none"; "-NAME" drops one from what precedes it (all if first):
 * "--cap -sys_boot" is every capability but CAP_SYS_BOOT. Returns 0 and *caps for
 * kbpf_verify_opts.caps (KBPF_CAP_NONE when nothing is left), or -EINVAL. */
int cli_parse_caps(const char *s, unsigned *caps);
#define CLI_CAP_USAGE "  --cap LIST        the loader's capabilities (default all): bpf, perfmon, net_admin,\n" \
		      "                    sys_admin, sys_boot, all, none, comma-separated; -NAME drops one\n" \
		      "                    (--cap -sys_boot: no destructive kfuncs, as Linux without CAP_SYS_BOOT)\n" \
		      "  --prog-flags LIST Linux's load flags: strict_alignment, any_alignment, test_state_freq,\n" \
		      "                    sleepable, test_reg_invariants (comma-separated), or a number\n"
/* --prog-flags LIST: comma-separated BPF_F_* load flag names (strict_alignment,
 * any_alignment, test_state_freq, sleepable, test_reg_invariants; "strict_align",
 * "any_align" too) or a
 * number. Returns 0 and *flags for kbpf_verify_opts.prog_flags, or -EINVAL. */
int cli_parse_prog_flags(const char *s, uint32_t *flags);

/* Whitespace-separated hex bytes ("00 0a ff"; "000aff" too) into a malloc'ed buffer.
 * Returns 0, -EINVAL or -ENOMEM. */
int cli_parse_hex_bytes(const char *s, char **out, size_t *len);

/* Parse a --dialect value. Returns 0 or -EINVAL. */
int cli_parse_dialect(const char *s, enum kbpf_asm_dialect *out);

/* The one line for what getopt_long (opterr = 0, optstring starting with ':') returned
 * in its default case: '?' an unknown option, ':' one missing its value. Returns
 * EXIT_USAGE. */
int cli_option_error(const char *cmd, int c, char **argv);

/* True if argv[i] is "-h" or "--help". */
int cli_is_help(const char *arg);

/* --- objects (cli_object.c) --- */

/* getopt codes of the host options every object command takes:
 *   --host FILE       host BTF from FILE (kfuncs, CO-RE)
 *   --kconfig N=V     a kconfig value (CONFIG_HZ=250 is preset)
 *   --cap LIST        the loader's capabilities (kbpf_*_opts.caps)
 *   --prog-flags LIST Linux's load flags (kbpf_*_opts.prog_flags) */
enum { CLI_OPT_HOST = 0x1000, CLI_OPT_KCONFIG, CLI_OPT_CAP, CLI_OPT_PROG_FLAGS, CLI_OPT_TRUSTED, CLI_OPT_BTF,
       CLI_OPT_SET };
#define CLI_HOST_LONGOPTS { "host", required_argument, 0, CLI_OPT_HOST }, \
	{ "btf", required_argument, 0, CLI_OPT_BTF }, { "set", required_argument, 0, CLI_OPT_SET }, \
	{ "kconfig", required_argument, 0, CLI_OPT_KCONFIG }, { "cap", required_argument, 0, CLI_OPT_CAP }, \
	{ "prog-flags", required_argument, 0, CLI_OPT_PROG_FLAGS }, \
	{ "trusted-unverified", no_argument, 0, CLI_OPT_TRUSTED }
#define CLI_HOST_USAGE "  --host FILE       the host: FILE's BTF (kfuncs, CO-RE) from an ELF with .BTF or raw\n" \
		       "                    BTF; a plugin (.so exporting kbpf_host_init) is also loaded and\n" \
		       "                    its kbpf_host_init called: its kfuncs, program types, …\n" \
		       "  --btf FILE        resolve the object's CO-RE relocations against FILE's BTF instead\n" \
		       "                    of the host's (libbpf's btf_custom_path)\n" \
		       "  --set NAME=VALUE  set global variable NAME (.rodata, .data, .bss) before load; typed\n" \
		       "                    by its BTF: integers, true/false, enumerator names, strings for\n" \
		       "                    char arrays, hex bytes for anything ('hex:01 02 ...'); repeatable\n" \
		       "  --kconfig N=V     set kconfig value N (repeatable; CONFIG_HZ=250 is preset)\n" \
		       "  --trusted-unverified  load (and run) programs that have no program type\n" \
		       "                    unverified; they can touch any memory: only for code you trust\n"
#define CLI_MAX_KCONFIG 64

struct cli_host_opts {
	const char *host_file;
	struct {
		char name[128];
		uint64_t value;
	} kconfig[CLI_MAX_KCONFIG];
	int nr_kconfig;
	unsigned caps; /* --cap (0: not given, every capability) */
	uint32_t prog_flags; /* --prog-flags (kbpf_verify_opts.prog_flags) */
	int trusted_unverified; /* --trusted-unverified (kbpf_object_open_opts.trusted_unverified) */
};

/* --btf FILE: every object this command opens resolves CO-RE against FILE (NULL: none). */
extern const char *cli_core_btf_path;
/* Take --host/--btf/--kconfig/--cap (opt CLI_OPT_*). Returns 0 or EXIT_USAGE (message printed). */
int cli_host_option(const char *cmd, int opt, const char *arg, struct cli_host_opts *o);
int cli_btf_load_error(const char *cmd, const char *path, int err);
/* The last non-empty line of log (what explains a failure) in out, or strerror(err) if
 * it has none. */
const char *cli_last_line(const char *log, char *out, size_t size, int err);
/* Silence libbpf's own messages: the command prints one line per error itself. */
void cli_libbpf_quiet(void);
/* The host objects load on: map helpers, Linux's program types, CONFIG_HZ=250, the
 * options. --host FILE: FILE's BTF, and when FILE is a shared object exporting
 * kbpf_host_init (a host plugin, docs/kfuncs.md) FILE is dlopen'ed and that function
 * called on the host, as the application calls it. NULL: printed why. */
struct kbpf_host *cli_host_new(const char *cmd, const struct cli_host_opts *o);
/* Free a host of cli_host_new, then close the plugins loaded for it. */
void cli_host_free(struct kbpf_host *host);
/* Open path (and load it if load) on host; program prog (if any) is loaded even if its
 * section starts with '?'. Returns 0 and *obj, or EXIT_FAIL with one line printed: the
 * reason from the object's log. */
int cli_object_open(const char *cmd, const char *path, struct kbpf_host *host, bool load, const char *prog,
		    struct kbpf_object **obj);
/* How cli_object_open_with opens and loads (kbpf_object_open_opts' fields of the same names). */
struct cli_open_opts {
	bool load;	     /* load after opening */
	const char *prog;    /* this program is loaded even if its section starts with '?' */
	int jit;	     /* JIT-compile the programs */
	unsigned harden;     /* KBPF_HARDEN_* (--harden, --blind, --stack-guard) */
	uint64_t run_budget; /* --budget */
	unsigned caps;	     /* --cap (0: every capability) */
	uint32_t prog_flags; /* --prog-flags: every program's (kbpf_program_set_flags) */
	int trusted_unverified; /* --trusted-unverified: programs without a type load unverified */
};
int cli_object_open_with(const char *cmd, const char *path, struct kbpf_host *host, const struct cli_open_opts *o,
			 struct kbpf_object **obj);
/* Maps left out of a load (kbpf_object_set_map_autocreate false) because kbpf could not
 * create them and the program named on the command line may not need them. */
#define CLI_MAX_MAP_SKIPS 64
struct cli_map_skips {
	char names[CLI_MAX_MAP_SKIPS][128];
	char why[CLI_MAX_MAP_SKIPS][512]; /* the load's line about each */
	int nr;
};
/* If the load log's failure is a map kbpf cannot create (its type, its size) not left
 * out yet, add it to sk and return true. */
bool cli_failed_map(const char *log, struct cli_map_skips *sk);
void cli_apply_map_skips(struct kbpf_object *obj, const struct cli_map_skips *sk);
/* The line to report for a failed load's log: when a program needed a map left out,
 * why that map could not be created; else the log's last line. */
const char *cli_load_error(const char *log, const struct cli_map_skips *sk, char *out, size_t size, int err);
/* Whether path starts with the ELF magic. */
int cli_is_elf_file(const char *path);
/* Disassembly options naming the host's helpers and kfuncs (index prefix on). */
void cli_object_disasm_opts(const struct kbpf_object *obj, struct kbpf_disasm_opts *opts);
/* cli_btf_json.c: a value typed by BTF as JSON, as `bpftool map dump` shows BTF values
 * (numbers, true/false, enumerator names, strings for char arrays, [..], {"m": ..}). */
struct btf;
void cli_btf_json_value(FILE *f, const struct btf *btf, uint32_t type_id, const void *data, size_t size);
/* A JSON string of s (at most max bytes, up to a NUL). */
void cli_json_str(FILE *f, const char *s, size_t max);
/* cli_globals.c: --set NAME=VALUE (kept until cli_globals_apply, which writes them into
 * an opened object's global data before load; EXIT_USAGE for an unknown name or a value
 * not of its type), and --show-globals (each variable, typed, after a run). */
int cli_globals_add(const char *cmd, const char *arg);
int cli_globals_apply(const char *cmd, struct kbpf_object *obj);
void cli_globals_show(const struct kbpf_object *obj);
/* The same as one JSON object: {SECTION: {VAR: value, …}, …}. */
void cli_globals_json(FILE *f, const struct kbpf_object *obj);
/* cli_types.c: the host type a --type NAME means: a type of the host, or a SEC() name of
 * libbpf's table ("tc", "socket", "tp/…", "fentry/FUNC"). NULL if none; the name may be
 * written to buf. *attach (if given): FUNC of "fentry/FUNC" and the like, else NULL. */
const char *cli_resolve_prog_type(const struct kbpf_host *host, const char *name, char *buf, size_t size,
				  const char **attach);
/* `--type help`: each type of host with the SEC() names that mean it. */
void cli_list_prog_types(const struct kbpf_host *host);
/* libbpf's names: "sched_cls", "hash", … */
const char *cli_prog_type_name(uint32_t type);
const char *cli_map_type_name(uint32_t type);
/* cli_perf.c: a perf buffer on each PERF_EVENT_ARRAY map of obj (NULL: out of memory);
 * print the samples written since ("perf event cpu N: S bytes: xx …", lost counts);
 * free them. */
struct cli_perf;
struct cli_perf *cli_perf_open(const char *cmd, const struct kbpf_object *obj);
void cli_perf_print(struct cli_perf *p);
void cli_perf_close(struct cli_perf *p);
/* cli_stack.c: a STACK_TRACE map's ids and symbolized frames ("(empty)" if none; 0 or a
 * negative errno), and, after `kbpf run` of prog (which names its JIT frames; NULL:
 * none), every stack trace map of obj that holds any. */
int cli_stack_map_print(struct kbpf_map *m, const struct kbpf_prog *prog);
void cli_stack_maps_print(const struct kbpf_object *obj, const struct kbpf_prog *prog);

#endif
