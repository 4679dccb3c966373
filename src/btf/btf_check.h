/* SPDX-License-Identifier: Apache-2.0 */
/* Checks that make BTF safe to hand to libbpf's btf_dump (src/btf/btf_check.c). */
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

/* kbpf_btf_validate, kbpf_btf_check_printable and KBPF_BTF_MAX_REF_DEPTH: <kbpf/btf.h>. */

#endif
