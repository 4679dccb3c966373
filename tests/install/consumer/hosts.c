/* SPDX-License-Identifier: Apache-2.0 */
/* Links the installed hosts: a host with Linux's program types, a socket filter run on
 * it, and one with the TCP host's (tests/install/install.sh). */
#include <stdio.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/tcp_host.h>

int main(void)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 7), BPF_EXIT_INSN() };
	struct kbpf_host *host = kbpf_host_new(), *tcp = kbpf_host_new();
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0;
	int ret;

	if (!host || !tcp)
		return 1;
	ret = kbpf_linux_host_add(host);
	if (!ret)
		ret = kbpf_tcp_host_add(tcp);
	if (!ret && !kbpf_host_prog_type_find(tcp, "tcp_congestion_ops"))
		ret = -2;
	if (!ret && !kbpf_host_prog_type_find(host, "socket_filter"))
		ret = -3;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "socket_filter" };
	if (!ret)
		ret = kbpf_prog_create(insns, 2, &po, &prog); /* verified as Linux's socket filter */
	if (!ret)
		ret = kbpf_prog_run(prog, NULL, &r0);
	kbpf_prog_free(prog);
	kbpf_host_free(host);
	kbpf_host_free(tcp);
	if (ret || r0 != 7) {
		fprintf(stderr, "hosts: ret %d, r0 %llu\n", ret, (unsigned long long)r0);
		return 1;
	}
	return 0;
}
