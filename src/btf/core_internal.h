/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE internals shared by src/btf/core*.c: access specs, BTF walking helpers that
 * stay safe on malformed BTF, candidate lists. */
#ifndef KBPF_SRC_BTF_CORE_INTERNAL_H
#define KBPF_SRC_BTF_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/btf.h>
#include "btf/btf_walk.h"
#include "btf/core.h"

/* Access strings longer than this are refused (libbpf's BPF_CORE_SPEC_MAX_LEN). */
#define KBPF_CORE_SPEC_MAX_LEN 64

/* Work budget for one match: member visits through anonymous structs and recursive
 * type matching. Real BTF needs thousands at most; crafted BTF (cycles of anonymous
 * members, huge fan-out) would otherwise take exponential time. */
#define KBPF_CORE_WORK_BUDGET (1u << 20)

/* One semantically meaningful step of an access: the root "n" (pointer used as an
 * array), a named field (name set; type_id is the struct/union holding it), or an
 * array element (type_id is the element type). */
struct kbpf_core_acc {
	uint32_t type_id;
	uint32_t idx;
	const char *name;
};

/* A parsed access: raw[] is the access string as numbers ("0:1:2" -> 0,1,2, including
 * steps through anonymous members); acc[] only the meaningful steps; bit_offset where
 * it lands from the root. Type-based relocations have empty specs. */
struct kbpf_core_spec {
	const struct btf *btf;
	uint32_t root_type_id;
	uint32_t kind;
	struct kbpf_core_acc acc[KBPF_CORE_SPEC_MAX_LEN];
	int len;
	uint32_t raw[KBPF_CORE_SPEC_MAX_LEN];
	int raw_len;
	uint64_t bit_offset;
};

/* Candidate target type ids for one local type (same essential name, compatible kind). */
struct kbpf_core_cands {
	uint32_t *ids;
	size_t len;
};

/* Relocation kinds by what their access string means. */
bool kbpf_core_kind_is_field(uint32_t kind);
bool kbpf_core_kind_is_type(uint32_t kind);
bool kbpf_core_kind_is_enumval(uint32_t kind);

/* --- BTF helpers (core_btf.c; kbpf_btf_skip_mods in btf/btf_walk.h) --- */
/* "struct foo", "union <anon>", "int", "enum e" … of type id, into buf. */
const char *kbpf_core_type_str(const struct btf *btf, uint32_t id, char *buf, size_t size);
const char *kbpf_core_kind_str(const struct btf_type *t);
/* Name at off, "" when off is out of range. */
const char *kbpf_core_name(const struct btf *btf, uint32_t off);
/* The enumerator name_off of value i of an ENUM or ENUM64. */
uint32_t kbpf_core_enum_name_off(const struct btf_type *t, uint32_t i);
/* Whether two names are equal up to their flavours. */
bool kbpf_core_names_equal(const char *a, const char *b);

/* --- Access strings (core_spec.c) --- */
/* Parse relo's access string against local BTF into spec. Returns 0, or -EINVAL/-E2BIG
 * with the reason in why. */
int kbpf_core_parse_spec(const struct btf *btf, const struct bpf_core_relo *relo, struct kbpf_core_spec *spec,
			 char *why, size_t why_size);
/* Whether array a, reached through accessor prev, is a flexible array (zero elements,
 * the last member of its struct): any index is then in bounds. */
bool kbpf_core_is_flex_array(const struct btf *btf, const struct kbpf_core_acc *prev, const struct btf_array *a);
/* libbpf's view of a spec: "<byte_off> [5] struct foo.a[3] (0:1:3 @ offset 12)". */
void kbpf_core_format_spec(const struct kbpf_core_spec *spec, char *buf, size_t size);

/* --- Type compatibility (core_compat.c); 1 yes, 0 no, <0 malformed BTF --- */
/* Whether a target candidate may stand for the local root type (TYPE_EXISTS, SIZE,
 * ID_TARGET): libbpf's bpf_core_types_are_compat. */
int kbpf_core_types_are_compat(const struct btf *local, uint32_t local_id, const struct btf *targ,
			       uint32_t targ_id);
/* Whether a target field's type may stand for the local field's: libbpf's
 * bpf_core_fields_are_compat. */
int kbpf_core_fields_are_compat(const struct btf *local, uint32_t local_id, const struct btf *targ,
				uint32_t targ_id);
/* libbpf's stricter bpf_core_types_match (TYPE_MATCHES). */
int kbpf_core_types_match(const struct btf *local, uint32_t local_id, const struct btf *targ, uint32_t targ_id);

/* --- Matching a local spec against one candidate (core_match.c) --- */
/* 1 matched (targ_spec filled), 0 no match (reason in why), <0 error (reason in why). */
int kbpf_core_spec_match(const struct kbpf_core_spec *local, const struct btf *targ, uint32_t targ_id,
			 struct kbpf_core_spec *targ_spec, char *why, size_t why_size);

/* --- Candidates (core_cand.c) --- */
/* Every type in targ whose kind is compatible with local_id's and whose essential name
 * equals it. Returns 0 (possibly none) or -ENOMEM / -EINVAL (anonymous local type). */
int kbpf_core_find_cands(const struct btf *local, uint32_t local_id, const struct btf *targ,
			 struct kbpf_core_cands *cands);
void kbpf_core_cands_release(struct kbpf_core_cands *cands);

/* --- Values (core_calc.c) --- */
/* The relocation's value for one spec (local: orig_*, target: new_*). A NULL targ
 * spec means "not found". Returns 0 (res->poison may be set), or a negative errno with
 * the reason in why. */
int kbpf_core_calc_relo(const struct bpf_core_relo *relo, const struct kbpf_core_spec *local,
			const struct kbpf_core_spec *targ, struct kbpf_core_res *res, char *why, size_t why_size);

/* snprintf that tolerates a NULL/0-size buffer. */
void kbpf_core_msg(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
