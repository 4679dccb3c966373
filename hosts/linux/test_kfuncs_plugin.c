/* SPDX-License-Identifier: Apache-2.0 */
/* The Linux test kfuncs as a host plugin, for `kbpf kfuncs --host
 * hosts/linux/linux-test-kfuncs.so` (docs/kfuncs.md): the same registration a host makes
 * with kbpf_linux_host_add_test_kfuncs, audited without building an application. Not in
 * the static library: a plugin's kbpf_host_init would clash with an application's own.
 * Like that host, it registers Linux's program types too. */
#include <stdio.h>
#include <kbpf/kfunc.h>
#include <kbpf/linux.h>

int kbpf_host_init(struct kbpf_host *host);

int kbpf_host_init(struct kbpf_host *host)
{
	char log[512] = "";
	/* the Linux program types first, as the selftests' host has them: `--type xdp` is a
	 * type without kfuncs there, not an unknown name (kbpf_linux_host_add resolves to
	 * the kbpf executable, like every kbpf call of the plugin) */
	int ret = kbpf_linux_host_add(host);

	if (ret)
		return ret;
	ret = kbpf_linux_host_add_test_kfuncs(host, log, sizeof(log));

	if (ret && log[0])
		fprintf(stderr, "linux-test-kfuncs: %s\n", log);
	return ret;
}
