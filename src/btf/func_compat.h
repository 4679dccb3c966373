/* SPDX-License-Identifier: Apache-2.0 */
/* Checking an object's extern function prototype against the host's (src/btf/func_compat.c). */
#ifndef KBPF_SRC_BTF_FUNC_COMPAT_H
#define KBPF_SRC_BTF_FUNC_COMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/btf.h>

struct btf;

/* Whether the FUNC_PROTO behind local_func_id (a FUNC in local, or a FUNC_PROTO) is
 * compatible with the one behind targ_func_id (a FUNC in target, or a FUNC_PROTO) by
 * libbpf's rule for __ksym functions (bpf_core_types_are_compat): same number of
 * parameters; each parameter and the return type of the same kind after typedefs and
 * modifiers — integers of any size and sign, pointers by what they point to, structs/
 * unions/enums/forward declarations by kind alone (not by name; a forward declaration is
 * not a struct), void with void, floats never. Returns 1 compatible, 0 not (msg: "extern
 * 'int foo(struct a *)' does not match host 'int foo(struct a *p, int n)': 1 parameter vs
 * 2"), or a negative errno (-EINVAL: not a function, malformed BTF; reason in msg). The
 * caller matches the names (libbpf: the extern's name without a ___flavour suffix). */
int kbpf_btf_func_compat(const struct btf *local, uint32_t local_func_id, const struct btf *target,
			 uint32_t targ_func_id, char *msg, size_t msg_size);

/* kbpf_btf_func_decl: <kbpf/btf.h>. */

#endif
