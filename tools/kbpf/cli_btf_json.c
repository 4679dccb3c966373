/* SPDX-License-Identifier: Apache-2.0 */
/* A value typed by BTF as JSON, the way `bpftool map dump` shows BTF values: integers as
 * numbers (bool as true/false), enums by enumerator name, char arrays as strings, other
 * arrays as [..], structs and unions as {"member": value}, pointers as numbers, floats as
 * numbers. --show-globals and --json print values with it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "cli.h"

/* Length of the valid UTF-8 sequence at s (at most max bytes), 0 if there is none. */
static size_t utf8_len(const unsigned char *s, size_t max)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	if (!n || n > max)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void cli_json_str(FILE *f, const char *s, size_t max)
{
	fputc('"', f);
	for (size_t i = 0; s && i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t n;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else if ((n = utf8_len((const unsigned char *)s + i, max - i))) { /* UTF-8 as it is */
			fwrite(s + i, 1, n, f);
			i += n - 1;
		} else {
			fprintf(f, "\\u%04x", c); /* a byte that is not UTF-8: as Latin-1 */
		}
	}
	fputc('"', f);
}

static uint64_t load_uint(const unsigned char *p, uint32_t size)
{
	uint64_t v = 0;
	memcpy(&v, p, size < 8 ? size : 8); /* little-endian, as the BPF target */
	return v;
}

static void print_int(FILE *f, uint64_t v, uint32_t bits, bool is_signed)
{
	if (bits < 64)
		v &= (1ull << bits) - 1;
	if (is_signed && bits < 64 && bits && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits; /* sign-extend */
	if (is_signed)
		fprintf(f, "%" PRId64, (int64_t)v);
	else
		fprintf(f, "%" PRIu64, v);
}

static bool is_char(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_int(t) && t->size == 1 &&
	       ((btf_int_encoding(t) & BTF_INT_CHAR) || !strcmp(btf__name_by_offset(btf, t->name_off), "char"));
}

static void value(FILE *f, const struct btf *btf, uint32_t id, const unsigned char *p, size_t size, int depth)
{
	int rid = btf__resolve_type(btf, id);
	const struct btf_type *t = rid > 0 ? btf__type_by_id(btf, (uint32_t)rid) : NULL;
	long long tsz = rid > 0 ? btf__resolve_size(btf, (uint32_t)rid) : -1;

	if (!t || tsz < 0 || (size_t)tsz > size || depth > 16) {
		fputs("null", f);
		return;
	}
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		uint64_t v = load_uint(p, t->size) >> btf_int_offset(t);
		if (enc & BTF_INT_BOOL)
			fputs(v & 1 ? "true" : "false", f);
		else
			print_int(f, v, btf_int_bits(t), enc & BTF_INT_SIGNED);
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		uint64_t v = load_uint(p, t->size);
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			uint64_t ev = btf_is_enum(t) ? (uint64_t)(uint32_t)btf_enum(t)[i].val
						     : btf_enum64_value(&btf_enum64(t)[i]);
			uint32_t name_off = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
			if (t->size < 8)
				ev &= (1ull << (t->size * 8)) - 1, v &= (1ull << (t->size * 8)) - 1;
			if (ev == v) {
				cli_json_str(f, btf__name_by_offset(btf, name_off), SIZE_MAX);
				return;
			}
		}
		print_int(f, v, t->size * 8, btf_kflag(t));
	} else if (btf_is_ptr(t)) {
		fprintf(f, "%" PRIu64, load_uint(p, 8));
	} else if (btf_is_float(t)) {
		if (t->size == 4) {
			float x;
			memcpy(&x, p, 4);
			fprintf(f, "%.9g", x);
		} else if (t->size == 8) {
			double x;
			memcpy(&x, p, 8);
			fprintf(f, "%.17g", x);
		} else {
			fputs("null", f);
		}
	} else if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		int eid = btf__resolve_type(btf, a->type);
		const struct btf_type *e = eid > 0 ? btf__type_by_id(btf, (uint32_t)eid) : NULL;
		long long esz = eid > 0 ? btf__resolve_size(btf, (uint32_t)eid) : -1;
		if (e && is_char(btf, e)) {
			cli_json_str(f, (const char *)p, a->nelems);
			return;
		}
		fputc('[', f);
		for (uint32_t i = 0; esz > 0 && i < a->nelems; i++) {
			if (i)
				fputc(',', f);
			value(f, btf, a->type, p + i * esz, size - i * esz, depth + 1);
		}
		fputc(']', f);
	} else if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);
		fputc('{', f);
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			uint32_t bit = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
			if (i)
				fputc(',', f);
			const char *name = btf__name_by_offset(btf, m[i].name_off);
			cli_json_str(f, name && *name ? name : "(anon)", SIZE_MAX);
			fputc(':', f);
			if (bits) { /* a bitfield: the bits of an integer */
				int mid = btf__resolve_type(btf, m[i].type);
				const struct btf_type *mt = mid > 0 ? btf__type_by_id(btf, (uint32_t)mid) : NULL;
				uint64_t v = 0;
				size_t byte = bit / 8, n = (bit % 8 + bits + 7) / 8;
				if (byte + n <= size && n <= 8)
					memcpy(&v, p + byte, n);
				print_int(f, v >> (bit % 8), bits,
					  mt && btf_is_int(mt) && (btf_int_encoding(mt) & BTF_INT_SIGNED));
			} else if (bit % 8 == 0 && bit / 8 <= size) {
				value(f, btf, m[i].type, p + bit / 8, size - bit / 8, depth + 1);
			} else {
				fputs("null", f);
			}
		}
		fputc('}', f);
	} else if (btf_is_datasec(t)) { /* global data: its variables by name */
		const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
		fputc('{', f);
		for (uint16_t i = 0, n = 0; i < btf_vlen(t); i++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
			if (!v || !btf_is_var(v) || (uint64_t)vsi[i].offset + vsi[i].size > size)
				continue;
			if (n++)
				fputc(',', f);
			cli_json_str(f, btf__name_by_offset(btf, v->name_off), SIZE_MAX);
			fputc(':', f);
			value(f, btf, v->type, p + vsi[i].offset, vsi[i].size, depth + 1);
		}
		fputc('}', f);
	} else {
		fputs("null", f);
	}
}

void cli_btf_json_value(FILE *f, const struct btf *btf, uint32_t type_id, const void *data, size_t size)
{
	value(f, btf, type_id, data, size, 0);
}
