/* SPDX-License-Identifier: Apache-2.0 */
/* A BPF object's global variables from the command line (libbpf's way to configure a
 * program: .rodata before load, .data/.bss before the run):
 *   --set NAME=VALUE   typed by the variable's BTF: integers (and bool: true/false),
 *                      enums by enumerator name or number, floats, char arrays as
 *                      strings, anything as hex bytes ("hex:01 02 …", or plain hex bytes
 *                      of exactly its size for other types)
 *   --show-globals     after `kbpf run`: each variable of .data, .rodata, .bss, .data.*,
 *                      .rodata.* as "SECTION NAME = VALUE", the value as `bpftool map
 *                      dump` shows BTF values (cli_btf_json.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "cli.h"

#define CLI_MAX_SETS 64

static const char *sets[CLI_MAX_SETS];
static int nr_sets;

int cli_globals_add(const char *cmd, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return cli_error(EXIT_USAGE, cmd, "--set: expected NAME=VALUE, got '%s'", arg);
	if (nr_sets == CLI_MAX_SETS)
		return cli_error(EXIT_USAGE, cmd, "--set: at most %d values", CLI_MAX_SETS);
	sets[nr_sets++] = arg;
	return 0;
}

/* The variable name of the DATASEC of a global data section (not .kconfig, which the
 * host fills, nor .maps/.struct_ops). */
static bool is_global_data(const char *sec)
{
	return !strcmp(sec, ".data") || !strcmp(sec, ".bss") || !strcmp(sec, ".rodata") ||
	       !strncmp(sec, ".data.", 6) || !strncmp(sec, ".rodata.", 8);
}

struct var_loc {
	const char *sec;
	uint32_t type_id, off, size;
};

/* Find global variable name in the object's BTF. */
static bool find_var(const struct btf *btf, const char *name, size_t name_len, struct var_loc *loc)
{
	uint32_t n = btf__type_cnt(btf);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *sec = btf__name_by_offset(btf, t->name_off);
		if (!btf_is_datasec(t) || !sec || !is_global_data(sec))
			continue;
		const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
			const char *vn = v ? btf__name_by_offset(btf, v->name_off) : NULL;
			if (!v || !btf_is_var(v) || !vn || strlen(vn) != name_len || strncmp(vn, name, name_len))
				continue;
			*loc = (struct var_loc){ sec, v->type, vsi[i].offset, vsi[i].size };
			return true;
		}
	}
	return false;
}

static int set_int(const char *val, bool is_signed, bool is_bool, uint32_t size, unsigned char *out)
{
	uint64_t v;

	if (is_bool && (!strcmp(val, "true") || !strcmp(val, "false")))
		v = !strcmp(val, "true");
	else if (cli_parse_u64(val, &v))
		return -EINVAL;
	if (size < 8) {
		uint64_t umax = (1ull << (size * 8)) - 1;
		int64_t smin = -(int64_t)(1ull << (size * 8 - 1));
		if (val[0] == '-' ? !is_signed || (int64_t)v < smin : v > umax)
			return -ERANGE;
	} else if (val[0] == '-' && !is_signed) {
		return -ERANGE;
	}
	if (is_bool && v > 1)
		return -ERANGE;
	memcpy(out, &v, size); /* little-endian, as the BPF target */
	return 0;
}

static int set_enum(const struct btf *btf, const struct btf_type *t, const char *val, unsigned char *out)
{
	uint16_t vlen = btf_vlen(t);

	for (uint16_t i = 0; i < vlen; i++) {
		uint64_t v;
		const char *n;
		if (btf_is_enum(t)) {
			n = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
			v = (uint64_t)(int64_t)btf_enum(t)[i].val;
		} else {
			n = btf__name_by_offset(btf, btf_enum64(t)[i].name_off);
			v = btf_enum64_value(&btf_enum64(t)[i]);
		}
		if (n && !strcmp(n, val)) {
			memcpy(out, &v, t->size);
			return 0;
		}
	}
	return set_int(val, true, false, t->size, out);
}

static int set_hex(const char *val, uint32_t size, unsigned char *out)
{
	char *bytes;
	size_t len;
	int ret = cli_parse_hex_bytes(val, &bytes, &len);

	if (ret)
		return ret;
	if (len != size)
		ret = -ERANGE;
	else
		memcpy(out, bytes, len);
	free(bytes);
	return ret;
}

/* VALUE into out (size bytes) by the type type_id; 0 or -EINVAL (not such a value),
 * -ERANGE (does not fit), with what was expected in want. */
static int parse_value(const struct btf *btf, uint32_t type_id, const char *val, uint32_t size, unsigned char *out,
		       const char **want)
{
	int id = btf__resolve_type(btf, type_id);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;

	if (!strncmp(val, "hex:", 4)) {
		*want = "hex bytes of the variable's size";
		return set_hex(val + 4, size, out);
	}
	if (t && btf_is_int(t) && t->size == size) {
		uint8_t enc = btf_int_encoding(t);
		*want = enc & BTF_INT_BOOL ? "true, false, 0 or 1" : "an integer of its size";
		return set_int(val, enc & BTF_INT_SIGNED, enc & BTF_INT_BOOL, size, out);
	}
	if (t && (btf_is_enum(t) || btf_is_enum64(t)) && t->size == size) {
		*want = "an enumerator's name or a number";
		return set_enum(btf, t, val, out);
	}
	if (t && btf_is_ptr(t) && size == 8) {
		*want = "an address";
		return set_int(val, false, false, 8, out);
	}
	if (t && btf_is_float(t) && (size == 4 || size == 8)) {
		char *end;
		*want = "a number";
		double d = strtod(val, &end);
		if (!*val || *end)
			return -EINVAL;
		if (size == 4) {
			float f = (float)d;
			memcpy(out, &f, 4);
		} else {
			memcpy(out, &d, 8);
		}
		return 0;
	}
	if (t && btf_is_array(t)) {
		int eid = btf__resolve_type(btf, btf_array(t)->type);
		const struct btf_type *e = eid > 0 ? btf__type_by_id(btf, (uint32_t)eid) : NULL;
		if (e && btf_is_int(e) && e->size == 1 && (btf_int_encoding(e) & BTF_INT_CHAR ||
							   !strcmp(btf__name_by_offset(btf, e->name_off), "char"))) {
			size_t len = strlen(val);
			*want = "a string that fits";
			if (len > size)
				return -ERANGE;
			memset(out, 0, size);
			memcpy(out, val, len);
			return 0;
		}
	}
	*want = "hex bytes of the variable's size (\"01 02 …\" or \"hex:0102…\")";
	return set_hex(val, size, out);
}

int cli_globals_apply(const char *cmd, struct kbpf_object *obj)
{
	const struct btf *btf = kbpf_object_btf(obj);

	for (int i = 0; i < nr_sets; i++) {
		const char *arg = sets[i], *eq = strchr(arg, '='), *want = "";
		struct var_loc loc;
		size_t size = 0;
		unsigned char *img, *val;
		int ret;

		if (!btf || !find_var(btf, arg, (size_t)(eq - arg), &loc))
			return cli_error(EXIT_USAGE, cmd, "--set: the object has no global variable '%.*s' (in .data, "
					 ".rodata, .bss; 'kbpf map dump' shows them)", (int)(eq - arg), arg);
		img = kbpf_object_global_data(obj, loc.sec, &size, NULL);
		if (!img || (uint64_t)loc.off + loc.size > size)
			return cli_error(EXIT_FAIL, cmd, "--set %.*s: cannot write section %s", (int)(eq - arg), arg,
					 loc.sec);
		val = calloc(1, loc.size ? loc.size : 1);
		if (!val)
			return cli_error(EXIT_FAIL, cmd, "out of memory");
		ret = parse_value(btf, loc.type_id, eq + 1, loc.size, val, &want);
		if (!ret)
			memcpy(img + loc.off, val, loc.size);
		free(val);
		if (ret == -ENOMEM)
			return cli_error(EXIT_FAIL, cmd, "out of memory");
		if (ret)
			return cli_error(EXIT_USAGE, cmd, "--set %.*s: '%s' %s (%u bytes): expected %s", (int)(eq - arg),
					 arg, eq + 1, ret == -ERANGE ? "does not fit" : "is not a value of its type",
					 loc.size, want);
	}
	return 0;
}

/* The next global data map after prev with a DATASEC type, its type in *t and its
 * memory in *data; NULL at the end. */
static struct kbpf_map *next_global_map(const struct kbpf_object *obj, struct kbpf_map *prev,
					const struct btf_type **t, void **data)
{
	const struct btf *btf = kbpf_object_btf(obj);

	for (struct kbpf_map *m = prev; btf && (m = kbpf_object_next_map(obj, m));) {
		uint32_t id = kbpf_object_map_btf_value_type_id(obj, m);
		*t = id ? btf__type_by_id(btf, id) : NULL;
		if (*t && btf_is_datasec(*t) && is_global_data(kbpf_map_name(m)) && !kbpf_map_direct_value_addr(m, 0, data))
			return m;
	}
	return NULL;
}

void cli_globals_show(const struct kbpf_object *obj)
{
	const struct btf *btf = kbpf_object_btf(obj);
	const struct btf_type *t;
	void *data;

	for (struct kbpf_map *m = NULL; (m = next_global_map(obj, m, &t, &data));) {
		const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
			if (!v || !btf_is_var(v) || (uint64_t)vsi[i].offset + vsi[i].size > kbpf_map_value_size(m))
				continue;
			printf("%s %s = ", kbpf_map_name(m), btf__name_by_offset(btf, v->name_off));
			cli_btf_json_value(stdout, btf, v->type, (char *)data + vsi[i].offset, vsi[i].size);
			putchar('\n');
		}
	}
}

void cli_globals_json(FILE *f, const struct kbpf_object *obj)
{
	const struct btf_type *t;
	void *data;
	int n = 0;

	fputc('{', f);
	for (struct kbpf_map *m = NULL; (m = next_global_map(obj, m, &t, &data));) {
		fprintf(f, "%s", n++ ? ", " : "");
		cli_json_str(f, kbpf_map_name(m), SIZE_MAX);
		fputs(": ", f);
		/* {VAR: value} */
		cli_btf_json_value(f, kbpf_object_btf(obj), kbpf_object_map_btf_value_type_id(obj, m), data,
				   kbpf_map_value_size(m));
	}
	fputc('}', f);
}
