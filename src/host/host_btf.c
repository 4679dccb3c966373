/* SPDX-License-Identifier: Apache-2.0 */
/* Host BTF: the types and functions of the embedding program, read from its own .BTF
 * section (added by `pahole -J` after a -g build) or from a named file. */
#include <errno.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf/btf_check.h"
#include "btf/name_index.h"
#include "host/host_internal.h"

/* libbpf returns NULL and sets errno (libbpf 1.x "strict" mode). The file is input
 * like any object: libbpf 1.1 accepts BTF whose type ids, name offsets or record
 * alignment are wrong, and every later reader (kfunc resolution, CO-RE, btf_dump)
 * would index with them, so such BTF is refused here, once, with -EINVAL. */
static int parse_btf(const char *path, struct btf **out)
{
	struct btf *btf = btf__parse(path, NULL);
	char msg[256];

	if (!btf) {
		int err = errno ? -errno : -EINVAL;
		/* libbpf's own codes (LIBBPF_ERRNO__LIBELF, __FORMAT, ...) are no errno:
		 * neither an ELF file nor raw BTF */
		return err <= -__LIBBPF_ERRNO__START ? -ENOEXEC : err;
	}
	if (kbpf_btf_validate(btf, msg, sizeof(msg))) {
		btf__free(btf);
		return -EINVAL;
	}
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
	kbpf_host_btf_release(host);
	host->btf = btf;
	host->btf_index = kbpf_btf_name_index_new(btf);
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

int32_t kbpf_host_btf_find(const struct kbpf_host *host, const char *name, uint32_t kind)
{
	if (!host || !name)
		return -EINVAL;
	if (!host->btf)
		return -ENOENT;
	if (host->btf_index)
		return kbpf_btf_name_index_find(host->btf_index, name, kind);
	int32_t id = btf__find_by_name_kind(host->btf, name, kind);
	return id > 0 ? id : -ENOENT;
}

void kbpf_host_btf_release(struct kbpf_host *host)
{
	kbpf_btf_name_index_free(host->btf_index);
	host->btf_index = NULL;
	btf__free(host->btf);
	host->btf = NULL;
}
