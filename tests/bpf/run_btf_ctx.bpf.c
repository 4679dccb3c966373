/* SPDX-License-Identifier: Apache-2.0 */
/* A program whose context holds a pointer to a host object (tests/cli/run_ctx.sh): fentry
 * on hosts/linux's kbpf_linux_path_name, whose first argument is a struct path of the
 * host BTF (the kbpf binary's own, --host). kbpf run cannot make that object. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct path {
	int fd;
} __attribute__((preserve_access_index));

int seen_fd;

SEC("fentry/kbpf_linux_path_name")
int BPF_PROG(path_fd, const struct path *path)
{
	seen_fd = path->fd;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
