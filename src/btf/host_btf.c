/* SPDX-License-Identifier: Apache-2.0 */
/* Host BTF: the types and functions of the embedding program, read from its own .BTF
 * section (added by `pahole -J` after a -g build) or from a named file. */
#include <errno.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "host/host_internal.h"

/* libbpf returns NULL and sets errno (libbpf 1.x "strict" mode). */
static int parse_btf(const char *path, struct btf **out)
{
	struct btf *btf = btf__parse(path, NULL);
	if (!btf)
		return errno ? -errno : -EINVAL;
	*out = btf;
	return 0;
}

int kbpf_host_btf_load_file(struct kbpf_host *host, const char *path)
{
	struct btf *btf;
	int ret;

	if (!host || !path)
		return -EINVAL;
	ret = parse_btf(path, &btf);
	if (ret)
		return ret;
	btf__free(host->btf);
	host->btf = btf;
	return 0;
}

int kbpf_host_btf_load_self(struct kbpf_host *host)
{
	return kbpf_host_btf_load_file(host, "/proc/self/exe");
}

const struct btf *kbpf_host_btf(const struct kbpf_host *host)
{
	return host ? host->btf : NULL;
}

void kbpf_host_btf_release(struct kbpf_host *host)
{
	btf__free(host->btf);
	host->btf = NULL;
}
