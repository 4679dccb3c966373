/* SPDX-License-Identifier: Apache-2.0 */
/* Input helpers shared by the subcommands. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdbool.h>
#include <kbpf/prog_type.h>
#include "cli.h"

int cli_error(int code, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kbpf %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int cli_option_error(const char *cmd, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':')
		return cli_error(EXIT_USAGE, cmd, "option '%s' needs a value (see 'kbpf %s --help')", arg, cmd);
	return cli_error(EXIT_USAGE, cmd, "unknown option '%s' (see 'kbpf %s --help')", arg, cmd);
}

int cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int cli_read_file(const char *cmd, const char *path, char **data, size_t *size)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 4096, len = 0;
	char *buf;

	if (!f) {
		int err = errno;
		cli_error(EXIT_FAIL, cmd, "cannot open %s: %s", path, strerror(err));
		return -err;
	}
	buf = malloc(cap + 1);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len < cap)
			break;
		char *bigger = cap > (SIZE_MAX - 1) / 2 ? NULL : realloc(buf, cap * 2 + 1);
		if (!bigger) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	int read_err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (!buf) {
		cli_error(EXIT_FAIL, cmd, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (read_err) {
		free(buf);
		cli_error(EXIT_FAIL, cmd, "cannot read %s", path);
		return -EIO;
	}
	buf[len] = 0;
	*data = buf;
	*size = len;
	return 0;
}

/* Assembly text has no NUL and no control bytes but whitespace (UTF-8 in comments is
 * fine); raw instructions nearly always have NULs (every exit is 95 00 00 00 00 00 00 00). */
static int looks_like_text(const char *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v'))
			return 0;
	}
	return 1;
}

int cli_load_program(const char *cmd, const char *path, enum kbpf_asm_dialect dialect, struct bpf_insn **insns,
		     size_t *cnt)
{
	char *data, err[256];
	size_t size;
	int ret = cli_read_file(cmd, path, &data, &size);

	if (ret)
		return ret;
	if (size == 0) {
		free(data);
		cli_error(EXIT_FAIL, cmd, "%s: empty file", path);
		return -EINVAL;
	}
	if (looks_like_text(data, size)) {
		ret = kbpf_asm(data, dialect, insns, cnt, err, sizeof(err));
		if (ret)
			cli_error(EXIT_FAIL, cmd, "%s: %s", path, ret == -ENOMEM ? "out of memory" : err);
	} else if (size % sizeof(struct bpf_insn)) {
		cli_error(EXIT_FAIL, cmd, "%s: %zu bytes is not a whole number of 8-byte instructions", path, size);
		ret = -EINVAL;
	} else {
		*cnt = size / sizeof(struct bpf_insn);
		*insns = malloc(size);
		if (*insns)
			memcpy(*insns, data, size);
		else
			ret = -ENOMEM;
	}
	free(data);
	return ret;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	int neg = *s == '-';

	errno = 0;
	if (!*s || isspace((unsigned char)*s)) /* strtoull would skip any of them */
		return -EINVAL;
	unsigned long long v = neg ? (unsigned long long)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (!isdigit((unsigned char)*s) || cli_parse_u64(s, &v) || v > max) /* no sign, no space */
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_dialect(const char *s, enum kbpf_asm_dialect *out)
{
	if (!strcmp(s, "auto"))
		*out = KBPF_ASM_AUTO;
	else if (!strcmp(s, "pseudo-c") || !strcmp(s, "pseudo"))
		*out = KBPF_ASM_PSEUDO_C;
	else if (!strcmp(s, "conformance"))
		*out = KBPF_ASM_CONFORMANCE;
	else
		return -EINVAL;
	return 0;
}

int cli_parse_caps(const char *s, unsigned *caps)
{
	static const struct {
		const char *name;
		unsigned bits;
	} names[] = {
		{ "bpf", KBPF_CAP_BPF },	   { "perfmon", KBPF_CAP_PERFMON },   { "net_admin", KBPF_CAP_NET_ADMIN },
		{ "sys_admin", KBPF_CAP_SYS_ADMIN }, { "sys_boot", KBPF_CAP_SYS_BOOT }, { "all", KBPF_CAP_ALL },
		{ "none", 0 },
	};
	unsigned set = 0;
	bool first = true;

	while (*s) {
		size_t len = strcspn(s, ",");
		bool drop = *s == '-';
		const char *n = s + drop;
		size_t nlen = len - drop;
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == nlen && !strncasecmp(n, names[i].name, nlen))
				break;
		/* "cap_sys_boot" (capabilities(7)'s spelling) is accepted too */
		if (i == sizeof(names) / sizeof(names[0]) && nlen > 4 && !strncasecmp(n, "cap_", 4)) {
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (strlen(names[i].name) == nlen - 4 && !strncasecmp(n + 4, names[i].name, nlen - 4))
					break;
		}
		if (i == sizeof(names) / sizeof(names[0]) || !nlen)
			return -EINVAL;
		if (drop && first)
			set = KBPF_CAP_ALL;
		if (drop)
			set &= ~names[i].bits;
		else
			set |= names[i].bits;
		first = false;
		s += len;
		if (*s == ',')
			s++;
	}
	if (first)
		return -EINVAL;
	*caps = set ? set : KBPF_CAP_NONE;
	return 0;
}

int cli_parse_prog_flags(const char *s, uint32_t *flags)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} names[] = {
		{ "strict_alignment", BPF_F_STRICT_ALIGNMENT }, { "strict_align", BPF_F_STRICT_ALIGNMENT },
		{ "any_alignment", BPF_F_ANY_ALIGNMENT },	{ "any_align", BPF_F_ANY_ALIGNMENT },
		{ "test_state_freq", BPF_F_TEST_STATE_FREQ },	{ "sleepable", BPF_F_SLEEPABLE },
		{ "test_reg_invariants", BPF_F_TEST_REG_INVARIANTS },
	};
	uint64_t v;
	uint32_t set = 0;

	if (!cli_parse_u64(s, &v)) {
		if (v > UINT32_MAX)
			return -EINVAL;
		*flags = (uint32_t)v; /* the verifier refuses bits it does not know */
		return 0;
	}
	while (*s) {
		size_t len = strcspn(s, ","), i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncasecmp(s, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		set |= names[i].bit;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!set)
		return -EINVAL;
	*flags = set;
	return 0;
}

/* Parse whitespace-separated hex bytes ("00 0a ff", "000aff" also accepted). */
int cli_parse_hex_bytes(const char *s, char **out, size_t *len)
{
	size_t cap = strlen(s) / 2 + 1, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	while (*s) {
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1])) {
			free(buf);
			return -EINVAL;
		}
		char pair[3] = { s[0], s[1], 0 };
		buf[n++] = (char)strtoul(pair, NULL, 16);
		s += 2;
	}
	*out = buf;
	*len = n;
	return 0;
}
