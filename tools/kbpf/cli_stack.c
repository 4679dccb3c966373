/* SPDX-License-Identifier: Apache-2.0 */
/* Stack trace maps on the command line: each stack id and its frames, innermost first,
 * symbolized against this process (the frames bpf_get_stackid stores are the native
 * stack of the run, and the run is this command's: `kbpf run`), as bpftool prints
 * addresses and perf resolves them: symbol+offset (object). dladdr names exported
 * symbols only (the kbpf command is built with them exported); others print as the
 * object and the offset in it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* One frame: a return address, so the call lies at ip - 1. In prog's JIT code (prog may
 * be NULL): the program's name and the offset in its code. */
static void print_frame(unsigned i, uint64_t ip, const struct kbpf_prog *prog)
{
	Dl_info info;
	void *at = (void *)(uintptr_t)(ip - 1);
	size_t jit_size = 0;
	const void *jit = prog ? kbpf_prog_jited_code(prog, &jit_size) : NULL;

	printf("    #%-3u 0x%016llx", i, (unsigned long long)ip);
	if (jit && ip > (uint64_t)(uintptr_t)jit && ip <= (uint64_t)(uintptr_t)jit + jit_size) {
		printf(" bpf_prog '%s'+0x%llx (jit)", kbpf_prog_name(prog),
		       (unsigned long long)(ip - (uint64_t)(uintptr_t)jit));
	} else if (ip && dladdr(at, &info) && info.dli_fname) {
		const char *obj = strrchr(info.dli_fname, '/');
		obj = obj ? obj + 1 : info.dli_fname;
		if (info.dli_sname && info.dli_saddr)
			printf(" %s+0x%llx (%s)", info.dli_sname,
			       (unsigned long long)(ip - (uint64_t)(uintptr_t)info.dli_saddr), obj);
		else
			printf(" %s+0x%llx", obj, (unsigned long long)(ip - (uint64_t)(uintptr_t)info.dli_fbase));
	}
	printf("\n");
}

int cli_stack_map_print(struct kbpf_map *m, const struct kbpf_prog *prog)
{
	uint32_t vs = kbpf_map_value_size(m), key, next, n = 0;
	bool build_id = kbpf_map_flags(m) & BPF_F_STACK_BUILD_ID;
	uint64_t *value = calloc(1, vs ? vs : 8);
	int ret;

	if (!value)
		return -ENOMEM;
	for (ret = kbpf_map_get_next_key(m, NULL, &next); !ret; ret = kbpf_map_get_next_key(m, &key, &next)) {
		key = next;
		if (kbpf_map_lookup(m, &key, value))
			continue; /* deleted meanwhile */
		unsigned frames = 0;
		if (build_id) {
			const struct bpf_stack_build_id *r = (const void *)value;
			while (frames < vs / sizeof(*r) && r[frames].status != BPF_STACK_BUILD_ID_EMPTY)
				frames++;
			printf("  stack id %u: %u frames\n", key, frames);
			for (unsigned i = 0; i < frames; i++) {
				if (r[i].status == BPF_STACK_BUILD_ID_IP) {
					print_frame(i, r[i].ip, prog);
				} else {
					printf("    #%-3u build id ", i);
					for (int b = 0; b < BPF_BUILD_ID_SIZE; b++)
						printf("%02x", r[i].build_id[b]);
					printf(" + 0x%llx\n", (unsigned long long)r[i].offset);
				}
			}
		} else {
			/* the trace is zero-padded to the value's size */
			while (frames < vs / 8 && value[frames])
				frames++;
			printf("  stack id %u: %u frames\n", key, frames);
			for (unsigned i = 0; i < frames; i++)
				print_frame(i, value[i], prog);
		}
		n++;
	}
	free(value);
	if (ret == -ENOENT)
		ret = 0;
	if (!n && !ret)
		printf("  (empty)\n");
	return ret;
}

void cli_stack_maps_print(const struct kbpf_object *obj, const struct kbpf_prog *prog)
{
	struct kbpf_map *m = NULL;

	while ((m = kbpf_object_next_map(obj, m))) {
		if (kbpf_map_type(m) != BPF_MAP_TYPE_STACK_TRACE)
			continue;
		uint32_t key;
		if (kbpf_map_get_next_key(m, NULL, &key))
			continue; /* nothing stored: nothing to say */
		printf("stack trace map '%s':\n", kbpf_map_name(m));
		cli_stack_map_print(m, prog);
	}
	fflush(stdout);
}
