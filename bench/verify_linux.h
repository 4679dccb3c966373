/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-verify's Linux side: an object loaded into the live kernel with libbpf, as
 * veristat does (its own relocations against the kernel's BTF, struct_ops and tracing
 * programs attached as Linux attaches them), every program at log level 4 so the kernel
 * reports its own "verification time" and "processed" figures. Kept apart from
 * verify_bench.c: libbpf's headers and kbpf's are not compiled together. */
#ifndef KBPF_BENCH_VERIFY_LINUX_H
#define KBPF_BENCH_VERIFY_LINUX_H

#include <stddef.h>

struct vb_linux_prog {
	char name[64];
	int ok;         /* the kernel accepted it (in every round) */
	long usec;      /* the least "verification time" of the rounds, -1 if never printed */
	long processed; /* "processed N insns", -1 if never printed */
};

/* Opens and loads path rounds times (each a new libbpf object, closed again: nothing
 * stays in the kernel). Fills up to max programs; returns how many, or a negative errno
 * with err set (no libbpf object, bpf() refused …). */
int vb_linux_verify_object(const char *path, int rounds, struct vb_linux_prog *out, int max, char *err,
			   size_t err_size);

#endif
