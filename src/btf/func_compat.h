/* SPDX-License-Identifier: Apache-2.0 */
/* Checking an object's extern function prototype against the host's (src/btf/func_compat.c). */
#ifndef KBPF_SRC_BTF_FUNC_COMPAT_H
#define KBPF_SRC_BTF_FUNC_COMPAT_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* Whether the FUNC_PROTO behind local_func_id (a FUNC in local) is compatible with the
 * one behind targ_func_id (a FUNC in target) by libbpf's rule for __ksym functions:
 * same number of parameters, each parameter and the return type compatible (ints by
 * size, pointers to anything compatible, enums/ints, structs by name…). Returns 1
 * compatible, 0 not (msg: "extern 'int foo(struct a *)' does not match host 'int
 * foo(struct a *, int)': …"), or a negative errno for malformed BTF. */
int kbpf_btf_func_compat(const struct btf *local, uint32_t local_func_id, const struct btf *target,
			 uint32_t targ_func_id, char *msg, size_t msg_size);

/* The C declaration of FUNC id (e.g. "int tcp_slow_start(struct tcp_sock *tp, u32 acked)")
 * into buf. Returns 0 or a negative errno. */
int kbpf_btf_func_decl(const struct btf *btf, uint32_t func_id, char *buf, size_t size);

#endif
