/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_getsockopt from a sock_ops program on the kbpf command's host, which has the TCP
 * host and Linux's program types: sock_ops' own getsockopt (on its context) has no
 * run-time helper, so the program verifies but does not run ("call to unknown helper
 * #57"). Before, the TCP host's getsockopt ran on the context as if it were a simulated
 * tcp_sock, dereferencing a pointer the context's bytes gave (SIGSEGV). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("sockops")
int sockops_getsockopt(struct bpf_sock_ops *skops)
{
	char buf[16];

	return bpf_getsockopt(skops, 6 /* SOL_TCP */, 13 /* TCP_CONGESTION */, buf, sizeof(buf)) == 0;
}
