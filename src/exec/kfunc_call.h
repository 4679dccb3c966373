/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls from a program (src/exec/kfunc_call.c): the kfuncs a program pinned at
 * creation (src/prog/kfuncs.c), and the call itself with every argument and R0 narrowed
 * by the function model. */
#ifndef KBPF_SRC_EXEC_KFUNC_CALL_H
#define KBPF_SRC_EXEC_KFUNC_CALL_H

#include <stddef.h>
#include <stdint.h>
#include "host/kfunc_internal.h"

struct kbpf_prog;

/* The kfuncs a program pinned (prog->kfuncs), sorted by BTF id. */
struct kbpf_prog_kfuncs {
	size_t nr;
	const struct kbpf_kfunc_desc *desc[];
};

/* The pinned descriptor of kfunc btf_id, or NULL. */
const struct kbpf_kfunc_desc *kbpf_prog_kfunc_find(const struct kbpf_prog *prog, uint32_t btf_id);

/* Call k with R1..R5 (args), each narrowed to its parameter's size and signedness as a C
 * caller would pass it; returns R0: the result zero- or sign-extended from its size (0
 * for void). Inline: it is the interpreter's kfunc instruction (why it is sound: the
 * comment at the top of kfunc_call.c). */
static inline uint64_t kbpf_kfunc_narrow(uint64_t v, uint8_t size, uint8_t flags)
{
	int sign = flags & KBPF_FMODEL_SIGNED;

	switch (size) {
	case 1: return sign ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 2: return sign ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	case 4: return sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	default: return v;
	}
}

static inline uint64_t kbpf_kfunc_call(const struct kbpf_kfunc_desc *k, const uint64_t *args)
{
	typedef uint64_t (*shim_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
	const struct kbpf_func_model *m = &k->model;
	/* parameters the function does not have get 0: fixed-count code, no loop */
	uint64_t a0 = m->nr_args > 0 ? kbpf_kfunc_narrow(args[0], m->arg_size[0], m->arg_flags[0]) : 0;
	uint64_t a1 = m->nr_args > 1 ? kbpf_kfunc_narrow(args[1], m->arg_size[1], m->arg_flags[1]) : 0;
	uint64_t a2 = m->nr_args > 2 ? kbpf_kfunc_narrow(args[2], m->arg_size[2], m->arg_flags[2]) : 0;
	uint64_t a3 = m->nr_args > 3 ? kbpf_kfunc_narrow(args[3], m->arg_size[3], m->arg_flags[3]) : 0;
	uint64_t a4 = m->nr_args > 4 ? kbpf_kfunc_narrow(args[4], m->arg_size[4], m->arg_flags[4]) : 0;
	uint64_t r = ((shim_fn)k->addr)(a0, a1, a2, a3, a4);
	/* void: R0 is unreadable for a verified program; 0 keeps runs deterministic */
	return m->ret_size ? kbpf_kfunc_narrow(r, m->ret_size, m->ret_flags) : 0;
}

#endif
