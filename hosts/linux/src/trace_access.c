/* SPDX-License-Identifier: Apache-2.0 */
/* Context access of the tracing types and of syscall programs (Linux 6.1's
 * kprobe_prog_is_valid_access, tp_prog_is_valid_access, bpf_tracing_ctx_access and
 * syscall_prog_is_valid_access). All are plain memory: no conversion, scalar loads. */
#include "linux_internal.h"

/* kprobe: struct pt_regs, read-only, aligned, inside the struct. */
int kbpf_linux_kprobe_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type, (void)info;
	if (off < 0 || off >= KBPF_LINUX_PT_REGS_SIZE || size <= 0)
		return 0;
	if (access != KBPF_ACCESS_READ || off % size)
		return 0;
	return off + size <= KBPF_LINUX_PT_REGS_SIZE;
}

/* tracepoint: the perf trace record; its first 8 bytes are the kernel's (a pt_regs
 * pointer) and hidden. Read-only, aligned. */
int kbpf_linux_tracepoint_access(const struct kbpf_prog_type *type, int off, int size,
				 enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type, (void)info;
	if (off < 8 || off >= KBPF_LINUX_TRACEPOINT_CTX_SIZE || size <= 0)
		return 0;
	return access == KBPF_ACCESS_READ && !(off % size);
}

/* raw_tracepoint: up to 12 u64 arguments, read-only, aligned. */
int kbpf_linux_raw_tp_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type, (void)info;
	if (off < 0 || off >= KBPF_LINUX_RAW_TP_CTX_SIZE || size <= 0)
		return 0;
	return access == KBPF_ACCESS_READ && !(off % size);
}

/* syscall: the caller's buffer of any size, read and written; Linux only bounds the
 * offset (below U16_MAX) and wants alignment, so an access may reach byte 65535. A kbpf
 * runner must therefore hand these programs a KBPF_LINUX_SYSCALL_CTX_SIZE byte context. */
int kbpf_linux_syscall_access(const struct kbpf_prog_type *type, int off, int size,
			      enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type, (void)info, (void)access;
	if (off < 0 || off >= 0xffff || size <= 0)
		return 0;
	return !(off % size);
}
