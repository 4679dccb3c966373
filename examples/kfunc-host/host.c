/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny application embedding kbpf: it runs a BPF program (checkout.bpf.c) that calls two
 * of the application's own functions as kfuncs. The program comes embedded in its
 * skeleton, checkout.skel.h, written at build time by `kbpf gen skeleton`. */
#include <stdio.h>
#include <kbpf/kbpf.h>
#include "checkout.skel.h"
#include "shop.h"

int kbpf_host_init(struct kbpf_host *host); /* kfuncs.c */

int main(void)
{
	struct till till = { .total_cents = 1000 };
	struct kbpf_host *host = kbpf_host_new();
	struct checkout *skel = NULL;
	char log[1024] = "";
	uint64_t r0 = 0;
	int ret;

	/* our own BTF (added by kbpf_add_host_btf), then our kfuncs and program type */
	ret = host ? kbpf_host_btf_load_self(host) : -ENOMEM;
	if (!ret)
		ret = kbpf_host_init(host);
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .host = host, .log_buf = log, .log_size = sizeof(log) };
	if (!ret && !(skel = checkout__open_opts(&oo)))
		ret = -EINVAL;
	if (!ret)
		ret = checkout__load(skel);
	if (!ret)
		ret = kbpf_program_run(skel->progs.sell, &till, &r0);
	if (ret) {
		fprintf(stderr, "kfunc-host: %d %s\n", ret, log);
	} else {
		printf("program returned %llu; till: %u sale(s), %llu cents; discount %u%%, last total %llu\n",
		       (unsigned long long)r0, till.sales, (unsigned long long)till.total_cents,
		       skel->rodata->discount_percent, (unsigned long long)skel->bss->last_total);
	}
	checkout__destroy(skel);
	kbpf_host_free(host);
	return ret ? 1 : 0;
}
