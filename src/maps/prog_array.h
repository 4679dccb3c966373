/* SPDX-License-Identifier: Apache-2.0 */
/* What a PROG_ARRAY reads of a program the host stores in it: the leading fields of every
 * struct kbpf_prog (src/exec/prog_internal.h checks the layout), the program type and
 * attach_btf_id that program creation (src/prog/) sets and Linux's
 * bpf_prog_map_compatible compares (kbpf_prog_array_owner_check). Maps sit below
 * programs: they read this view of a program, they never call into it. */
#ifndef KBPF_SRC_MAPS_PROG_ARRAY_H
#define KBPF_SRC_MAPS_PROG_ARRAY_H

#include <stdint.h>

struct kbpf_prog_array_view {
	void (*run)(void);      /* kbpf_prog.run: the engines', not the map's */
	const void *type;       /* its struct kbpf_prog_type; NULL: unverified (not checked) */
	uint32_t attach_btf_id; /* for a BTF-typed context */
};

#endif
