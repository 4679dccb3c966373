/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE (Linux 6.1's raw_tracepoint_writable_verifier_ops,
 * kernel/trace/bpf_trace.c): a raw tracepoint program whose first argument is a buffer
 * the tracepoint lets it write (Linux's writable tracepoints, e.g. nbd's request). The
 * verifier types ctx[0] as a tracepoint buffer (PTR_TO_TP_BUFFER: constant offsets only)
 * and records the furthest byte the program touches (max_tp_access); Linux refuses to
 * attach the program to a tracepoint whose buffer is shorter, kbpf refuses to run it
 * with a shorter one (kbpf_linux_raw_tp_writable_run). The helpers are raw_tp's. */
#include <errno.h>
#include <string.h>
#include <kbpf/prog.h>
#include "linux_internal.h"

/* Linux's raw_tp_writable_prog_is_valid_access: ctx[0] is the buffer, read as a whole;
 * the rest as raw_tp's. */
static int raw_tp_writable_access(const struct kbpf_prog_type *type, int off, int size,
				  enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	if (off == 0) {
		if (size != 8 || access != KBPF_ACCESS_READ)
			return 0;
		info->reg_type = KBPF_PTR_TO_TP_BUFFER;
	}
	return kbpf_linux_raw_tp_access(type, off, size, access, info);
}

const struct kbpf_prog_type kbpf_linux_raw_tp_writable_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "raw_tracepoint.w",
	  .linux_type = BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, .ctx_size = KBPF_LINUX_RAW_TP_CTX_SIZE,
	  .is_valid_access = raw_tp_writable_access, .get_func_proto = kbpf_linux_get_func_proto,
	  .priv = (void *)&kbpf_linux_raw_tp_desc, .load_caps = KBPF_CAP_BPF | KBPF_CAP_PERFMON },
};
const size_t kbpf_linux_nr_raw_tp_writable_types =
	sizeof(kbpf_linux_raw_tp_writable_types) / sizeof(kbpf_linux_raw_tp_writable_types[0]);

int kbpf_linux_raw_tp_writable_run(const struct kbpf_prog *prog, void *buf, size_t buf_size, const uint64_t *args,
				   size_t nr_args, uint64_t *retval)
{
	uint64_t ctx[KBPF_LINUX_RAW_TP_CTX_SIZE / 8] = { 0 };

	if (!prog || (!buf && buf_size) || (!args && nr_args) || nr_args >= sizeof(ctx) / sizeof(ctx[0]))
		return -EINVAL;
	/* Linux's bpf_probe_register: the program may not reach past the buffer */
	if (kbpf_prog_max_tp_access(prog) > buf_size)
		return -EINVAL;
	ctx[0] = (uint64_t)(uintptr_t)buf;
	if (nr_args)
		memcpy(ctx + 1, args, nr_args * sizeof(*args));
	uint64_t r0 = 0;
	int err = kbpf_prog_run(prog, ctx, &r0);
	if (retval)
		*retval = r0;
	return err;
}
