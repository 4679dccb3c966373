/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the unit tests of programs with a bpf_loop callback (test_loop_inline.c,
 * test_callback_iter.c): their BTF, the instructions that load and call it, and one run
 * on an engine. */
#ifndef KBPF_TEST_CALLBACK_PROG_H
#define KBPF_TEST_CALLBACK_PROG_H

#include <bpf/btf.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include "test.h"

#define LD_FUNC(dst, rel) \
	BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, dst, BPF_PSEUDO_FUNC, 0, rel), BPF_RAW_INSN(0, 0, 0, 0, 0)
#define CALL_LOOP() BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop)

/* BTF with FUNCs int main(void *ctx) (*fn_main) and int cb(int i, void *ctx) (*fn_cb). */
static inline struct btf *callback_btf_new(int *fn_main, int *fn_cb)
{
	struct btf *btf = btf__new_empty();
	int t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int t_ptr = btf__add_ptr(btf, 0);
	int p_main = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "ctx", t_ptr);
	int p_cb = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "i", t_int);
	btf__add_func_param(btf, "ctx", t_ptr);
	*fn_main = btf__add_func(btf, "main", BTF_FUNC_STATIC, p_main);
	*fn_cb = btf__add_func(btf, "cb", BTF_FUNC_STATIC, p_cb);
	CHECK(*fn_main > 0 && *fn_cb > 0);
	return btf;
}

/* Run prog with R1 = ctx (64 bytes) on engine 0 (fast interpreter), 1 (checked: ctx its
 * only region; *err gets where it stopped) or 2 (JIT); R0 in *r0. */
static inline int callback_prog_run(struct kbpf_prog *prog, int engine, uint64_t ctx[8], uint64_t *r0, char *err,
				    size_t err_size)
{
	if (engine == 2)
		CHECK(kbpf_prog_is_jited(prog));
	if (engine != 1)
		return kbpf_prog_run(prog, ctx, r0);
	struct kbpf_mem_region ctx_region = { ctx, 64, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx }, .flags = KBPF_RUN_CHECKED,
				    .regions = &ctx_region, .nr_regions = 1, .err = err, .err_size = err_size };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret = kbpf_prog_run_opts(prog, &ro, &rr);
	*r0 = rr.retval;
	return ret;
}

#endif
