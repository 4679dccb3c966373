/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf btf dump: print a host's BTF (the types and functions its own debug info describes,
 * docs/host-btf.md) as C — the host's vmlinux.h, through libbpf's btf_dump — or raw, in the
 * format of `bpftool btf dump file X`. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/btf.h>
#include "cli.h"

void usage_btf(void)
{
	printf("usage: kbpf btf dump [--host FILE] [--format c|raw] [-o OUT]\n\n"
	       "Print the BTF of a host: an executable or library built with -g whose .BTF section\n"
	       "was added by `pahole -J` (CMake: kbpf_add_host_btf), or a raw BTF file. Without\n"
	       "--host, the kbpf command's own BTF (the host of the programs 'kbpf run' runs).\n\n"
	       "  --host FILE       read the BTF of FILE\n"
	       "  --format c        C declarations of every type, usable as the vmlinux.h of the\n"
	       "                    host: #include it from a BPF program (CO-RE: structs carry\n"
	       "                    preserve_access_index unless BPF_NO_PRESERVE_ACCESS_INDEX)\n"
	       "  --format raw      one entry per type id, as 'bpftool btf dump file' prints (default)\n"
	       "  -o, --output OUT  write to OUT (replaced only once the dump is complete), not stdout\n");
}

static const char *str_or_anon(const struct btf *btf, uint32_t off)
{
	const char *s;
	if (!off)
		return "(anon)";
	s = btf__name_by_offset(btf, off);
	return s ? s : "(invalid)";
}

static const char *int_encoding(uint8_t enc)
{
	switch (enc) {
	case 0: return "(none)";
	case BTF_INT_SIGNED: return "SIGNED";
	case BTF_INT_CHAR: return "CHAR";
	case BTF_INT_BOOL: return "BOOL";
	default: return "UNKN";
	}
}

static const char *func_linkage(uint32_t l)
{
	switch (l) {
	case BTF_FUNC_STATIC: return "static";
	case BTF_FUNC_GLOBAL: return "global";
	case BTF_FUNC_EXTERN: return "extern";
	default: return "(unknown)";
	}
}

static const char *var_linkage(uint32_t l)
{
	switch (l) {
	case BTF_VAR_STATIC: return "static";
	case BTF_VAR_GLOBAL_ALLOCATED: return "global";
	case BTF_VAR_GLOBAL_EXTERN: return "extern";
	default: return "(unknown)";
	}
}

/* One type in bpftool's raw layout, so that output can be compared with bpftool's (and
 * what users know from it reads the same). libbpf validated the BTF when parsing it. */
static void dump_raw_type(const struct btf *btf, uint32_t id, FILE *out)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t i, vlen = btf_vlen(t);

	fprintf(out, "[%u] %s '%s'", id, kbpf_btf_kind_str(t), str_or_anon(btf, t->name_off));
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		uint32_t v = *(const uint32_t *)(t + 1);
		fprintf(out, " size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size, BTF_INT_OFFSET(v),
			BTF_INT_BITS(v), int_encoding(BTF_INT_ENCODING(v)));
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		fprintf(out, " type_id=%u", t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		fprintf(out, " type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type, a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		fprintf(out, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, m++) {
			uint32_t bitsz = btf_member_bitfield_size(t, i);
			fprintf(out, "\n\t'%s' type_id=%u bits_offset=%u", str_or_anon(btf, m->name_off), m->type,
				btf_member_bit_offset(t, i));
			if (bitsz)
				fprintf(out, " bitfield_size=%u", bitsz);
		}
		break;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);
		fprintf(out, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED", t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			if (btf_kflag(t))
				fprintf(out, "\n\t'%s' val=%d", str_or_anon(btf, e->name_off), e->val);
			else
				fprintf(out, "\n\t'%s' val=%u", str_or_anon(btf, e->name_off), (uint32_t)e->val);
		}
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64(t);
		fprintf(out, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED", t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			unsigned long long v = btf_enum64_value(e);
			if (btf_kflag(t))
				fprintf(out, "\n\t'%s' val=%lldLL", str_or_anon(btf, e->name_off), (long long)v);
			else
				fprintf(out, "\n\t'%s' val=%lluULL", str_or_anon(btf, e->name_off), v);
		}
		break;
	}
	case BTF_KIND_FWD:
		fprintf(out, " fwd_kind=%s", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		fprintf(out, " type_id=%u linkage=%s", t->type, func_linkage(vlen));
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		fprintf(out, " ret_type_id=%u vlen=%u", t->type, vlen);
		for (i = 0; i < vlen; i++, p++)
			fprintf(out, "\n\t'%s' type_id=%u", str_or_anon(btf, p->name_off), p->type);
		break;
	}
	case BTF_KIND_VAR:
		/* the comma is bpftool's */
		fprintf(out, " type_id=%u, linkage=%s", t->type, var_linkage(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		fprintf(out, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, v++) {
			const struct btf_type *vt = btf__type_by_id(btf, v->type);
			fprintf(out, "\n\ttype_id=%u offset=%u size=%u", v->type, v->offset, v->size);
			if (vt)
				fprintf(out, " (%s '%s')", kbpf_btf_kind_str(vt), str_or_anon(btf, vt->name_off));
		}
		break;
	}
	case BTF_KIND_FLOAT:
		fprintf(out, " size=%u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		fprintf(out, " type_id=%u component_idx=%d", t->type, btf_decl_tag(t)->component_idx);
		break;
	default:
		break;
	}
	fputc('\n', out);
}

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

/* The integer typedefs libbpf's bpf_helpers.h / bpf_helper_defs.h take from vmlinux.h. A
 * kernel's BTF always has them; a host's has only those its code happens to use, so the ones
 * it lacks are added, with <linux/types.h>'s definitions (a program that also includes that
 * header then repeats an identical typedef, which C11 allows). */
static const struct {
	const char *name, *def;
} basic_types[] = {
	{ "__u8", "unsigned char" },        { "__s8", "signed char" },
	{ "__u16", "unsigned short" },      { "__s16", "short" },
	{ "__u32", "unsigned int" },        { "__s32", "int" },
	{ "__u64", "unsigned long long" },  { "__s64", "long long" },
	{ "__be16", "unsigned short" },     { "__be32", "unsigned int" },
	{ "__be64", "unsigned long long" }, { "__wsum", "unsigned int" },
};

/* Whether an INT's name is spelled with C's integer keywords only ("long unsigned int",
 * "_Bool", "__int128 unsigned"); btf_dump prints an INT by its name alone. */
static int is_c_int_name(const char *name)
{
	static const char *const words[] = {
		"signed", "unsigned", "char", "short", "int", "long", "_Bool", "__int128",
	};
	while (*name) {
		size_t n = strcspn(name, " "), i;
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i]) == n && !strncmp(name, words[i], n))
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return 0;
		name += n;
		name += strspn(name, " ");
	}
	return 1;
}

/* The C integer type of an INT's size and signedness, or NULL. */
static const char *c_int_type(const struct btf_type *t)
{
	uint32_t enc = BTF_INT_ENCODING(*(const uint32_t *)(t + 1));
	int is_signed = enc & BTF_INT_SIGNED;

	if (enc & BTF_INT_BOOL)
		return "_Bool";
	switch (t->size) {
	case 1: return enc & BTF_INT_CHAR ? "char" : is_signed ? "signed char" : "unsigned char";
	case 2: return is_signed ? "short" : "unsigned short";
	case 4: return is_signed ? "int" : "unsigned int";
	case 8: return is_signed ? "long long" : "unsigned long long";
	case 16: return is_signed ? "__int128" : "unsigned __int128";
	default: return NULL;
	}
}

static int dump_c(const struct btf *btf, const char *source, FILE *out)
{
	struct btf_dump *d = btf_dump__new(btf, dump_printf, out, NULL);
	uint32_t id, cnt = btf__type_cnt(btf);
	size_t i;
	int err = 0;

	if (!d)
		return -errno;
	fprintf(out, "/* Types of the host %s, generated by `kbpf btf dump --format c` from its BTF\n"
		     " * (docs/host-btf.md). Include it from BPF programs as vmlinux.h. */\n",
		source);
	/* __VMLINUX_H__ also tells libbpf's bpf_tracing.h to use the kernel's pt_regs names. */
	fprintf(out, "#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n");
	fprintf(out, "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
		     "#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n"
		     "#endif\n\n");
	for (i = 0; i < sizeof(basic_types) / sizeof(basic_types[0]); i++)
		if (btf__find_by_name_kind(btf, basic_types[i].name, BTF_KIND_TYPEDEF) < 0)
			fprintf(out, "typedef %s %s; /* kbpf: not in the host's BTF */\n", basic_types[i].def,
				basic_types[i].name);
	/* GCC names a typedef of an _Atomic integer (atomic_uint…) as if it were a base type:
	 * declare each such name so that the header compiles. */
	for (id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off), *def;
		if (btf_is_int(t) && name && *name && !is_c_int_name(name) && (def = c_int_type(t)))
			fprintf(out, "typedef %s %s; /* kbpf: an integer type named '%s' in the BTF */\n", def,
				name, name);
	}
	fputc('\n', out);
	for (id = 1; id < cnt && !err; id++)
		err = btf_dump__dump_type(d, id);
	fprintf(out, "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n"
		     "#endif /* __VMLINUX_H__ */\n");
	btf_dump__free(d);
	return err;
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

/* Load the BTF (path NULL: our own) and print it to out. Returns an exit code. */
static int dump(const char *host_path, int as_c, FILE *out)
{
	struct kbpf_host *host = kbpf_host_new();
	const char *path = host_path ? host_path : "/proc/self/exe";
	int ret;

	if (!host)
		return cli_error(EXIT_FAIL, "btf", "out of memory");
	ret = host_path ? kbpf_host_btf_load_file(host, host_path) : kbpf_host_btf_load_self(host);
	if (ret) {
		kbpf_host_free(host);
		if (!host_path && ret == -ENOENT)
			return cli_error(EXIT_FAIL, "btf",
					 "this kbpf binary has no .BTF section (built with -DKBPF_HOST_BTF=OFF?); "
					 "use --host FILE, see docs/host-btf.md");
		return cli_btf_load_error("btf", path, ret);
	}

	const struct btf *btf = kbpf_host_btf(host);
	char bad[256];
	/* libbpf 1.1 parses BTF whose ids, names or alignment are wrong; printing it (raw
	 * too) reads them */
	if (kbpf_btf_validate(btf, bad, sizeof(bad))) {
		kbpf_host_free(host);
		return cli_error(EXIT_FAIL, "btf", "%s: malformed BTF: %s", host_path ? host_path : "kbpf", bad);
	}
	if (as_c) {
		char msg[512];
		/* libbpf's btf_dump recurses without end on reference cycles, and divides by
		 * zero on members without alignment */
		if (kbpf_btf_check_printable(btf, 0, msg, sizeof(msg))) {
			const char *hint = strstr(msg, "without size") ? " (pahole could not encode it: _Atomic in "
									 "DWARF 5? build with -gdwarf-4, see "
									 "docs/host-btf.md)"
								       : "";
			kbpf_host_free(host);
			return cli_error(EXIT_FAIL, "btf", "%s: malformed BTF: %s%s", host_path ? host_path : "kbpf",
					 msg, hint);
		}
		ret = dump_c(btf, host_path ? host_path : "kbpf", out);
	} else {
		for (uint32_t id = 1; id < btf__type_cnt(btf); id++)
			dump_raw_type(btf, id, out);
	}
	kbpf_host_free(host);
	if (ret)
		return cli_error(EXIT_FAIL, "btf", "%s: cannot print the BTF as C: %s", path, strerror(-ret));
	if (fflush(out) || ferror(out))
		return cli_error(EXIT_FAIL, "btf", "error writing the output: %s", strerror(errno ? errno : EIO));
	return EXIT_OK;
}

/* Dump into a temporary file next to out_path and rename it over out_path when
 * complete, so that a build rule never sees a half-written header. An existing
 * out_path that is not a regular file (/dev/null, a pipe) is written in place: a
 * rename would replace the device node with a file. */
static int dump_to_file(const char *host_path, int as_c, const char *out_path)
{
	size_t len = strlen(out_path) + sizeof(".tmp");
	char *tmp;
	struct stat st;
	FILE *f;
	int ret;

	if (!stat(out_path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(out_path, "w");
		if (!f)
			return cli_error(EXIT_FAIL, "btf", "cannot open %s: %s", out_path, strerror(errno));
		ret = dump(host_path, as_c, f);
		if (fclose(f) && ret == EXIT_OK)
			ret = cli_error(EXIT_FAIL, "btf", "error writing %s: %s", out_path, strerror(errno));
		return ret;
	}
	tmp = malloc(len);
	if (!tmp)
		return cli_error(EXIT_FAIL, "btf", "out of memory");
	snprintf(tmp, len, "%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f) {
		ret = cli_error(EXIT_FAIL, "btf", "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	ret = dump(host_path, as_c, f);
	if (fclose(f) && ret == EXIT_OK)
		ret = cli_error(EXIT_FAIL, "btf", "error writing %s: %s", tmp, strerror(errno));
	if (ret == EXIT_OK && rename(tmp, out_path))
		ret = cli_error(EXIT_FAIL, "btf", "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
	if (ret != EXIT_OK)
		remove(tmp);
	free(tmp);
	return ret;
}

static int btf_dump_cmd(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "host", required_argument, 0, 'H' },
		{ "format", required_argument, 0, 'f' },
		{ "output", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *host_path = NULL, *format = "raw", *out_path = NULL;
	int c, ret;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, "+:ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': host_path = optarg; break;
		case 'f': format = optarg; break;
		case 'o': out_path = optarg; break;
		case 'h': usage_btf(); return EXIT_OK;
		default: return cli_option_error("btf", c, argv);
		}
	}
	if (optind != argc)
		return cli_error(EXIT_USAGE, "btf", "unexpected argument '%s' (see 'kbpf btf --help')", argv[optind]);
	if (strcmp(format, "c") && strcmp(format, "raw"))
		return cli_error(EXIT_USAGE, "btf", "unknown format '%s': expected c or raw", format);

	/* libbpf reports why parsing failed on stderr; the command prints its own single line. */
	libbpf_print_fn_t old_print = libbpf_set_print(silent_print);
	if (out_path)
		ret = dump_to_file(host_path, !strcmp(format, "c"), out_path);
	else
		ret = dump(host_path, !strcmp(format, "c"), stdout);
	libbpf_set_print(old_print);
	return ret;
}

int cmd_btf(int argc, char **argv)
{
	if (argc < 2)
		return cli_error(EXIT_USAGE, "btf", "expected a subcommand: dump (see 'kbpf btf --help')");
	if (cli_is_help(argv[1])) {
		usage_btf();
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "dump"))
		return btf_dump_cmd(argc - 1, argv + 1);
	return cli_error(EXIT_USAGE, "btf", "unknown subcommand '%s': expected dump", argv[1]);
}
