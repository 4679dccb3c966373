/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny application embedding kbpf: it runs a BPF program (checkout.bpf.o) that calls two
 * of the application's own functions as kfuncs. Usage: kfunc-host checkout.bpf.o */
#include <stdio.h>
#include <kbpf/kbpf.h>
#include "shop.h"

int kbpf_host_init(struct kbpf_host *host); /* kfuncs.c */

int main(int argc, char **argv)
{
	struct till till = { .total_cents = 1000 };
	struct kbpf_object *obj = NULL;
	struct kbpf_host *host = kbpf_host_new();
	char log[1024] = "";
	uint64_t r0 = 0;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s checkout.bpf.o\n", argv[0]);
		return 2;
	}
	/* our own BTF (added by kbpf_add_host_btf), then our kfuncs */
	ret = kbpf_host_btf_load_self(host);
	if (!ret)
		ret = kbpf_host_init(host);
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .host = host, .log_buf = log, .log_size = sizeof(log) };
	if (!ret)
		ret = kbpf_object_open_file(argv[1], &oo, &obj);
	if (!ret)
		ret = kbpf_object_load(obj);
	if (!ret)
		ret = kbpf_program_run(kbpf_object_find_program(obj, "sell"), &till, &r0);
	if (ret) {
		fprintf(stderr, "kfunc-host: %d %s\n", ret, log);
	} else {
		printf("program returned %llu; till: %u sale(s), %llu cents\n", (unsigned long long)r0, till.sales,
		       (unsigned long long)till.total_cents);
	}
	kbpf_object_close(obj);
	kbpf_host_free(host);
	return ret ? 1 : 0;
}
