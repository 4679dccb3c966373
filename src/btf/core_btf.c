/* SPDX-License-Identifier: Apache-2.0 */
/* BTF walking helpers for CO-RE. The object's BTF is untrusted and libbpf's parser
 * checks record sizes but not type references, so every step here tolerates bad ids
 * and reference cycles. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "btf/core_internal.h"

/* Longer modifier/typedef chains than this do not occur in real BTF; a cycle would. */

void kbpf_core_msg(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

bool kbpf_core_kind_is_field(uint32_t kind)
{
	return kind <= BPF_CORE_FIELD_RSHIFT_U64;
}

bool kbpf_core_kind_is_type(uint32_t kind)
{
	return (kind >= BPF_CORE_TYPE_ID_LOCAL && kind <= BPF_CORE_TYPE_SIZE) || kind == KBPF_CORE_TYPE_MATCHES;
}

bool kbpf_core_kind_is_enumval(uint32_t kind)
{
	return kind == BPF_CORE_ENUMVAL_EXISTS || kind == BPF_CORE_ENUMVAL_VALUE;
}

const char *kbpf_core_relo_kind_str(uint32_t kind)
{
	static const char *const names[] = {
		"byte_off",	  "byte_sz",	   "field_exists", "signed",	     "lshift_u64",
		"rshift_u64",	  "local_type_id", "target_type_id", "type_exists", "type_size",
		"enumval_exists", "enumval_value", "type_matches",
	};
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

const char *kbpf_core_name(const struct btf *btf, uint32_t off)
{
	const char *s = btf__name_by_offset(btf, off);
	return s ? s : "";
}

const char *kbpf_core_kind_str(const struct btf_type *t)
{
	if (btf_is_fwd(t)) /* libbpf's core messages say which */
		return btf_kflag(t) ? "fwd union" : "fwd struct";
	return kbpf_btf_kind_str_lower(t);
}

const char *kbpf_core_type_str(const struct btf *btf, uint32_t id, char *buf, size_t size)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	if (!t)
		kbpf_core_msg(buf, size, "[%u] <bad type id>", id);
	else if (id == 0)
		kbpf_core_msg(buf, size, "void");
	else {
		const char *name = kbpf_core_name(btf, t->name_off);
		if ((btf_is_int(t) || btf_is_float(t)) && name[0]) /* "int", not "int int" */
			kbpf_core_msg(buf, size, "%s", name);
		else
			kbpf_core_msg(buf, size, "%s %s", kbpf_core_kind_str(t), name[0] ? name : "<anon>");
	}
	return buf;
}

uint32_t kbpf_core_enum_name_off(const struct btf_type *t, uint32_t i)
{
	return btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
}

/* libbpf's flavour separator: "X___Y" where X and Y are not underscores. */
static bool is_flavor_sep(const char *s)
{
	return s[0] != '_' && s[1] == '_' && s[2] == '_' && s[3] == '_' && s[4] != '_';
}

size_t kbpf_core_essential_name_len(const char *name)
{
	size_t n = strlen(name);

	/* the last separator wins: "a___b___c" is a flavour of "a___b" */
	for (size_t i = n >= 5 ? n - 5 + 1 : 0; i-- > 0;)
		if (is_flavor_sep(name + i))
			return i + 1;
	return n;
}

bool kbpf_core_names_equal(const char *a, const char *b)
{
	size_t la = kbpf_core_essential_name_len(a), lb = kbpf_core_essential_name_len(b);
	return la == lb && !strncmp(a, b, la);
}
