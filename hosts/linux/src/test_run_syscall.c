/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_PROG_TEST_RUN for syscall programs, with Linux 6.1's rules: the context is the
 * caller's buffer, so a program that reads or writes further into it than the caller
 * provides must not run at all (max_ctx_offset), rather than read past the buffer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/prog.h>
#include <kbpf/linux.h>

#define U16_MAX 0xffffu

int kbpf_linux_test_run_syscall(const struct kbpf_prog *prog, void *ctx, size_t ctx_size, uint32_t *retval)
{
	void *copy = NULL;
	uint64_t r0 = 0;
	int ret;

	if (!prog || !retval || (ctx_size && !ctx))
		return -EINVAL;
	if (ctx_size < kbpf_prog_max_ctx_offset(prog) || ctx_size > U16_MAX)
		return -EINVAL;
	if (ctx_size) {
		/* a copy, as Linux's memdup_user: the program never sees the caller's buffer */
		copy = malloc(ctx_size);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, ctx, ctx_size);
	}
	ret = kbpf_prog_run(prog, copy, &r0);
	if (!ret) {
		*retval = (uint32_t)r0;
		if (ctx_size)
			memcpy(ctx, copy, ctx_size);
	}
	free(copy);
	return ret;
}
