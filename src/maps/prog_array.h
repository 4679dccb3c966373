/* SPDX-License-Identifier: Apache-2.0 */
/* What a PROG_ARRAY reads of a program the host stores in it: the leading fields of every
 * struct kbpf_prog (src/exec/prog_internal.h checks the layout), the program type and
 * attach_btf_id that program creation (src/prog/) sets and Linux's
 * bpf_prog_map_compatible compares, and the context bytes it needs
 * (kbpf_prog_array_owner_check). Maps sit below
 * programs: they read this view of a program, they never call into it. */
#ifndef KBPF_SRC_MAPS_PROG_ARRAY_H
#define KBPF_SRC_MAPS_PROG_ARRAY_H

#include <stdint.h>

struct kbpf_prog_array_view {
	void (*run)(void);      /* kbpf_prog.run: the engines', not the map's */
	const void *type;       /* its struct kbpf_prog_type; NULL: unverified (not checked) */
	uint32_t attach_btf_id; /* for a BTF-typed context */
	/* how far into a context its caller sized it reads or writes: a syscall program's
	 * max_ctx_offset (0 for other types, whose context has the type's size) and a
	 * raw_tracepoint.w program's max_tp_access. A tail call hands the target the
	 * caller's context, which the host checked against the first program only */
	uint32_t tail_ctx_need;
	uint32_t tail_tp_need;
};

#endif
