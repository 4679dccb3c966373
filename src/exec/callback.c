/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks at run time: what an ld_imm64 of a function (BPF_PSEUDO_FUNC) loads. A
 * helper such as bpf_loop gets it as an ordinary C function pointer of the helper
 * signature, uint64_t fn(r1, …, r5), and calls it; behind the pointer is a libffi closure
 * that runs the program's subprogram from its first instruction on the interpreter (the
 * same code for interpreted and JIT-compiled programs: JIT subprograms are not entries
 * a C caller can enter), with a fresh stack, and returns its R0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <ffi.h>
#include <kbpf/insn.h>
#include "exec/callback.h"
#include "exec/interp_internal.h"

struct callback {
	const struct kbpf_prog *prog;
	size_t start;          /* the subprogram's first instruction */
	ffi_closure *closure;
	void *code;            /* the closure's address: what the ld_imm64 loads */
};

struct kbpf_prog_callbacks {
	ffi_cif cif;
	ffi_type *args[5];
	size_t nr;
	struct callback cb[];
};

/* The closure's body: R1-R5 in, R0 out. A run-time stop (call depth) returns 0. */
static void callback_handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	const struct callback *cb = user;
	uint64_t regs[5], r0 = 0;
	(void)cif;
	for (int i = 0; i < 5; i++)
		regs[i] = *(const uint64_t *)args[i];
	if (kbpf_interp_run_at(cb->prog, cb->start, regs, &r0))
		r0 = 0;
	*(ffi_arg *)ret = (ffi_arg)r0;
}

static bool is_func_load(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC;
}

int kbpf_prog_callbacks_prepare(struct kbpf_prog *prog, char *err, size_t err_size)
{
	size_t n = 0;
	for (size_t i = 0; i + 1 < prog->insn_cnt; i++)
		if (is_func_load(&prog->insns[i]))
			n++;
	if (!n)
		return 0;
	struct kbpf_prog_callbacks *cbs = calloc(1, sizeof(*cbs) + n * sizeof(cbs->cb[0]));
	if (!cbs)
		return -ENOMEM;
	prog->callbacks = cbs;
	for (int i = 0; i < 5; i++)
		cbs->args[i] = &ffi_type_uint64;
	if (ffi_prep_cif(&cbs->cif, FFI_DEFAULT_ABI, 5, &ffi_type_uint64, cbs->args) != FFI_OK) {
		snprintf(err, err_size, "callbacks: libffi cannot describe the helper signature");
		return -EINVAL;
	}
	for (size_t i = 0; i + 1 < prog->insn_cnt; i++) {
		if (!is_func_load(&prog->insns[i]))
			continue;
		int64_t target = (int64_t)i + 1 + prog->insns[i].imm;
		if (target < 0 || (uint64_t)target >= prog->insn_cnt) {
			snprintf(err, err_size, "insn %zu: function address out of the program", i);
			return -EINVAL;
		}
		bool dup = false;
		for (size_t k = 0; k < cbs->nr; k++)
			dup |= cbs->cb[k].start == (size_t)target;
		if (dup)
			continue;
		struct callback *cb = &cbs->cb[cbs->nr];
		cb->prog = prog;
		cb->start = (size_t)target;
		cb->closure = ffi_closure_alloc(sizeof(ffi_closure), &cb->code);
		if (!cb->closure)
			return -ENOMEM;
		cbs->nr++;
		if (ffi_prep_closure_loc(cb->closure, &cbs->cif, callback_handler, cb, cb->code) != FFI_OK) {
			snprintf(err, err_size, "insn %zu: libffi cannot make the callback", i);
			return -EINVAL;
		}
	}
	return 0;
}

void kbpf_prog_callbacks_free(struct kbpf_prog_callbacks *cbs)
{
	if (!cbs)
		return;
	for (size_t i = 0; i < cbs->nr; i++)
		ffi_closure_free(cbs->cb[i].closure);
	free(cbs);
}

bool kbpf_prog_callback_owns(const void *p, uint64_t code)
{
	const struct kbpf_prog *prog = p;
	const struct kbpf_prog_callbacks *cbs = prog->callbacks;
	for (size_t i = 0; cbs && i < cbs->nr; i++)
		if ((uint64_t)(uintptr_t)cbs->cb[i].code == code)
			return true;
	return false;
}

int kbpf_prog_callback_addr(const struct kbpf_prog *prog, size_t idx, uint64_t *value, char *err, size_t err_size)
{
	const struct kbpf_prog_callbacks *cbs = prog->callbacks;
	int64_t target = (int64_t)idx + 1 + prog->insns[idx].imm;
	for (size_t i = 0; cbs && i < cbs->nr; i++) {
		if ((int64_t)cbs->cb[i].start == target) {
			*value = (uint64_t)(uintptr_t)cbs->cb[i].code;
			return 0;
		}
	}
	snprintf(err, err_size, "insn %zu: no callback prepared for insn %lld", idx, (long long)target);
	return -EINVAL;
}
