/* SPDX-License-Identifier: Apache-2.0 */
/* Checks that make BTF safe to walk: for libbpf's btf_dump (btf_check.c), for the loader
 * (btf_check_object.c). */
#ifndef KBPF_SRC_BTF_BTF_CHECK_H
#define KBPF_SRC_BTF_BTF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/btf.h>

struct btf;

/* Whether the type records are 4-byte aligned, as struct btf_type needs. libbpf 1.1
 * checks the type section's offset but not the header length it is added to: a header
 * of 25 bytes puts every record at an odd address. Cheap (one pointer); 0 or -EINVAL. */
int kbpf_btf_check_aligned(const struct btf *btf);

/* What an object's BTF must be before the loader walks it (btf_check_object.c): every
 * kind known, every referenced id in range, a FUNC's type a FUNC_PROTO, and no type
 * that contains itself by value (through typedefs, modifiers, arrays, members). Less
 * than kbpf_btf_validate asks of BTF for btf_dump; the loader's own walks need no more.
 * Returns 0, -EINVAL (msg: "type [N] …"), -ENOMEM. */
int kbpf_btf_check_object(const struct btf *btf, char *msg, size_t msg_size);

/* kbpf_btf_validate, kbpf_btf_check_printable and KBPF_BTF_MAX_REF_DEPTH: <kbpf/btf.h>. */

#endif
