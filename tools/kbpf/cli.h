/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the kbpf command: subcommand entry points, input helpers, errors. */
#ifndef KBPF_TOOL_CLI_H
#define KBPF_TOOL_CLI_H

#include <stddef.h>
#include <stdint.h>
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
int cmd_disasm(int argc, char **argv);
void usage_disasm(void);
int cmd_run(int argc, char **argv);
void usage_run(void);

/* Print "kbpf CMD: message" to stderr (printf-style); returns the code given. */
int cli_error(int code, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Read a whole file ("-" is stdin) into a malloc'ed buffer with a NUL after the data.
 * Returns 0, or a negative errno (the message is printed for cmd). */
int cli_read_file(const char *cmd, const char *path, char **data, size_t *size);

/* Load a program from a file: raw instructions (8 bytes each) or assembly text, told apart
 * by content. Returns 0 and a malloc'ed array, or prints the reason and returns non-zero. */
int cli_load_program(const char *cmd, const char *path, enum kbpf_asm_dialect dialect, struct bpf_insn **insns,
		     size_t *cnt);

/* Parse an unsigned/signed integer with strtoull rules (0x, octal, decimal), whole string.
 * Returns 0 or -EINVAL. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Parse a --dialect value. Returns 0 or -EINVAL. */
int cli_parse_dialect(const char *s, enum kbpf_asm_dialect *out);

/* True if argv[i] is "-h" or "--help". */
int cli_is_help(const char *arg);

#endif
