/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier's small BTF walking helpers, Linux's btf_type_by_id / btf_type_skip_modifiers
 * / btf_type_str with a zeroed type standing for void (id 0) and for ids out of range, so
 * callers never dereference NULL on malformed BTF. */
#ifndef KBPF_VERIFIER_VBTF_H
#define KBPF_VERIFIER_VBTF_H

#include <stdint.h>
#include <bpf/btf.h>

extern const struct btf_type vbtf_void;

/* Type id of btf, or &vbtf_void (id 0, out of range, no btf). */
const struct btf_type *vbtf_type(const struct btf *btf, uint32_t id);
/* Modifiers, typedefs and type tags skipped (kbpf_btf_skip_mods); *res_id the result's id. */
const struct btf_type *vbtf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *res_id);
/* The type's name, "" if none. */
const char *vbtf_name(const struct btf *btf, const struct btf_type *t);
/* Linux's btf_type_str: "STRUCT", "INT"…; "UNKNOWN" for void. */
const char *vbtf_kind_str(const struct btf_type *t);

#endif /* KBPF_VERIFIER_VBTF_H */
