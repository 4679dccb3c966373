/* SPDX-License-Identifier: Apache-2.0 */
/* The attach target of a BTF-attached tracing program (SEC("fentry/FUNC"), "fexit/FUNC",
 * "fmod_ret/FUNC", and their sleepable ".s" forms): libbpf finds FUNC in the kernel's BTF
 * and loads the program with its id (attach_btf_id) and the attach type the section
 * names. kbpf does the same against the host's BTF: the program type is the one the host
 * registered under the section's prefix ("fentry", "fexit", "fmod_ret": hosts/linux).
 * SEC("lsm/HOOK") (BPF_PROG_TYPE_LSM) attaches to the function bpf_lsm_HOOK, type "lsm";
 * SEC("iter/TARGET") (BPF_TRACE_ITER) to the iterator target's bpf_iter_TARGET, type "iter". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/object.h>
#include <kbpf/prog_type.h>
#include "loader/loader_internal.h"

/* section prefix (= host program type) and the prefix of the function's name */
static const struct {
	const char *sec, *func;
} tracing_prefixes[] = { { "fentry", "" }, { "fexit", "" }, { "fmod_ret", "" }, { "lsm", "bpf_lsm_" },
			 { "iter", "bpf_iter_" } };

int obj_tracing_attach(struct kbpf_object *obj, struct kbpf_program *p, struct obj_sops_attach *out)
{
	memset(out, 0, sizeof(*out));
	const char *sec = p->sec_name[0] == '?' ? p->sec_name + 1 : p->sec_name;
	const char *slash = strchr(sec, '/');
	size_t plen = slash ? (size_t)(slash - sec) : strlen(sec);
	if (plen > 2 && !strncmp(sec + plen - 2, ".s", 2))
		plen -= 2; /* sleepable: the same type */
	const char *type = NULL, *fprefix = "";
	for (size_t i = 0; i < sizeof(tracing_prefixes) / sizeof(tracing_prefixes[0]); i++)
		if (strlen(tracing_prefixes[i].sec) == plen && !strncmp(sec, tracing_prefixes[i].sec, plen)) {
			type = tracing_prefixes[i].sec;
			fprefix = tracing_prefixes[i].func;
		}
	/* tp_btf/, iter/…: no such program type on kbpf hosts; loaded unverified */
	if (!type || !kbpf_host_prog_type_find(obj->host, type))
		return 0;
	if (!slash || !slash[1]) {
		obj_log(&obj->log, "program '%s': section '%s' names no function to attach to", p->name, p->sec_name);
		return -EINVAL;
	}
	const struct btf *btf = kbpf_host_btf(obj->host);
	char fname[256];
	snprintf(fname, sizeof(fname), "%s%s", fprefix, slash + 1); /* lsm/bpf: bpf_lsm_bpf */
	int id = btf ? btf__find_by_name_kind(btf, fname, BTF_KIND_FUNC) : -ENOENT;
	if (id <= 0) {
		/* libbpf's words, with the host in the kernel's place */
		obj_log(&obj->log, "program '%s': failed to find host BTF type ID of '%s': %d", p->name, fname,
			id < 0 ? id : -ESRCH);
		return -ESRCH;
	}
	out->prog_type = type;
	out->attach_btf_id = (uint32_t)id;
	return 0;
}

int kbpf_program_tracing_attach(struct kbpf_object *obj, struct kbpf_program *prog, const char **prog_type,
				uint32_t *attach_btf_id)
{
	struct obj_sops_attach sa;

	if (!obj || !prog || prog < obj->progs || prog >= obj->progs + obj->nr_progs)
		return -EINVAL;
	int ret = obj_tracing_attach(obj, prog, &sa);
	if (ret)
		return ret;
	if (prog_type)
		*prog_type = sa.prog_type;
	if (attach_btf_id)
		*attach_btf_id = sa.attach_btf_id;
	return 0;
}
