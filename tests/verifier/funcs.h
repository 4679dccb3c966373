/* SPDX-License-Identifier: Apache-2.0 */
/* A case's "funcs:" line as BTF and func_info (tests/verifier/README.md). */
#ifndef KBPF_TESTS_VERIFIER_FUNCS_H
#define KBPF_TESTS_VERIFIER_FUNCS_H

#include <stddef.h>
#include <linux/bpf.h>
#include <kbpf/insn.h>

struct btf;

#define CASE_MAX_FUNCS 16

struct case_funcs {
	struct btf *btf;
	struct bpf_func_info info[CASE_MAX_FUNCS];
	unsigned nr;
};

/* Build the BTF of spec (prototypes separated by ';': "[static|global] RET NAME(ARGS)",
 * types int, long, void, ctx, int*, long*, void*, each argument's type maybe followed by
 * "__arg_TAG" words, Linux's argument tags: BTF decl tags "arg:TAG" on the function's
 * argument) and one func_info record per
 * prototype, at the subprogram starts of insns in order (ctx_name: the program type's
 * context struct). Returns 0, or -1 with a reason in err. */
int case_funcs_build(const char *spec, const char *ctx_name, const struct bpf_insn *insns, size_t cnt,
		     struct case_funcs *out, char *err, size_t err_size);
void case_funcs_free(struct case_funcs *f);

#endif
