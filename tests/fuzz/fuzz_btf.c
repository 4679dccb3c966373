/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz what kbpf does with BTF it did not produce — a host's .BTF, an object's BTF —
 * beyond libbpf's parser: the printability check (btf_check.c), then, for what passes,
 * libbpf's btf_dump over every type (what `kbpf btf dump --format c` does), and the C
 * declaration and prototype comparison of every function (func_compat.c), as the loader
 * uses them for __ksym externs. Input: raw BTF (header, types, strings). */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf/btf_check.h"
#include "btf/func_compat.h"

static int silent(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static void discard(void *ctx, const char *fmt, va_list args)
{
	char buf[256];
	(void)ctx;
	vsnprintf(buf, sizeof(buf), fmt, args); /* format it: the arguments must be valid */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[512], decl[256];
	uint32_t funcs[16], nfuncs = 0;
	struct btf *btf;

	libbpf_set_print(silent);
	btf = btf__new(data, size);
	if (!btf)
		return 0;
	/* libbpf accepts misaligned records; reading them is undefined behaviour, and
	 * every reader (ours, the loader's) is expected to ask first */
	if (kbpf_btf_check_aligned(btf)) {
		btf__free(btf);
		return 0;
	}
	if (kbpf_btf_check_printable(btf, 0, msg, sizeof(msg)) == 0) {
		struct btf_dump *d = btf_dump__new(btf, discard, NULL, NULL);
		for (uint32_t id = 1; d && id < btf__type_cnt(btf); id++)
			btf_dump__dump_type(d, id);
		btf_dump__free(d);
	}
	for (uint32_t id = 1; id < btf__type_cnt(btf) && nfuncs < 16; id++)
		if (btf_is_func(btf__type_by_id(btf, id)))
			funcs[nfuncs++] = id;
	for (uint32_t i = 0; i < nfuncs; i++) {
		kbpf_btf_func_decl(btf, funcs[i], decl, sizeof(decl));
		for (uint32_t j = 0; j < nfuncs; j++)
			kbpf_btf_func_compat(btf, funcs[i], btf, funcs[j], msg, sizeof(msg));
	}
	btf__free(btf);
	return 0;
}
