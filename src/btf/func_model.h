/* SPDX-License-Identifier: Apache-2.0 */
/* The function model of a host function called from BPF (src/btf/func_model.c): what a
 * caller must do to each argument register and to R0 — Linux's btf_distill_func_proto,
 * restricted to what a kfunc call can pass in R1..R5. */
#ifndef KBPF_SRC_BTF_FUNC_MODEL_H
#define KBPF_SRC_BTF_FUNC_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* Most register arguments of a kfunc (R1..R5, Linux's MAX_BPF_FUNC_REG_ARGS). */
#define KBPF_KFUNC_MAX_ARGS 5

/* arg_flags / ret_flags */
#define KBPF_FMODEL_SIGNED 1u /* a signed integer (or enum): sign-extend from its size */
#define KBPF_FMODEL_PTR    2u /* a pointer (size 8) */

struct kbpf_func_model {
	uint8_t nr_args;
	uint8_t arg_size[KBPF_KFUNC_MAX_ARGS]; /* 1, 2, 4 or 8 bytes */
	uint8_t arg_flags[KBPF_KFUNC_MAX_ARGS];
	uint8_t ret_size;                      /* 0: void */
	uint8_t ret_flags;
};

/* Distill the model of FUNC (or FUNC_PROTO) id of btf into *m. Returns 0, or -EINVAL with
 * one line in msg in Linux's words where Linux has them: "Function %s has %d > 5 args",
 * "The function %s arg%d type %s is unsupported." (struct/union/float by value, > 8
 * bytes), "The function %s return type %s is unsupported.", "The function %s with
 * variable args is unsupported.", "The function %s has malformed void argument.", "kernel
 * btf_id %u is not a function". */
int kbpf_btf_func_model(const struct btf *btf, uint32_t id, struct kbpf_func_model *m, char *msg, size_t msg_size);

#endif
