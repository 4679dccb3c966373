/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls on the interpreter. Linux runs kfuncs only from JITed code; kbpf's
 * interpreter calls them too, through one generic shim: every host function is called as
 * u64 f(u64, u64, u64, u64, u64). That is sound on the ABIs kbpf supports (SysV x86-64,
 * AAPCS64) for what registration lets through — at most five integer or pointer
 * parameters of at most 8 bytes, each in its own integer register, and an integer or
 * pointer result in the first result register — provided the caller does what a C caller
 * does: pass narrow arguments extended by their type (clang relies on the caller having
 * extended a u8/s16 to 32 bits) and ignore the result's bits above its size (the callee
 * leaves them unspecified). So both are done here, from the model distilled at
 * registration (kbpf_kfunc_call in kfunc_call.h, inline for the interpreter's loop); R0 then
 * holds exactly what C would see. */
#include <stddef.h>
#include "exec/kfunc_call.h"
#include "exec/prog_internal.h"

const struct kbpf_kfunc_desc *kbpf_prog_kfunc_find(const struct kbpf_prog *prog, uint32_t btf_id)
{
	const struct kbpf_prog_kfuncs *k = prog->kfuncs;
	size_t lo = 0, hi = k ? k->nr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->desc[mid]->btf_id < btf_id)
			lo = mid + 1;
		else if (k->desc[mid]->btf_id > btf_id)
			hi = mid;
		else
			return k->desc[mid];
	}
	return NULL;
}
