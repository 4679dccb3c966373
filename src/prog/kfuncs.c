/* SPDX-License-Identifier: Apache-2.0 */
/* Binding a program's kfuncs at creation: every kfunc call's descriptor, pinned on the
 * host (so that its set cannot go while the program may call it), sorted by BTF id for
 * the engines' lookup (kbpf_prog_kfunc_find, src/exec/kfunc_call.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/insn.h>
#include "exec/kfunc_call.h"
#include "exec/prog_internal.h"
#include "host/kfunc_internal.h"
#include "prog/create.h"

static const char *func_name(const struct kbpf_host *host, uint32_t id)
{
	const struct btf *btf = kbpf_host_btf(host);
	const struct btf_type *t;

	if (!btf || id == 0 || id >= btf__type_cnt(btf))
		return NULL;
	t = btf__type_by_id(btf, id);
	return btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

void kbpf_prog_kfuncs_unpin(struct kbpf_prog *prog)
{
	struct kbpf_prog_kfuncs *k = prog->kfuncs;

	if (!k)
		return;
	for (size_t i = 0; i < k->nr; i++)
		kbpf_host_kfunc_put(prog->host, k->desc[i]);
	free(k);
	prog->kfuncs = NULL;
}

static bool is_kfunc_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm;
}

int kbpf_prog_kfuncs_pin(struct kbpf_prog *prog, char *err, size_t err_size)
{
	struct kbpf_prog_kfuncs *k;
	size_t nr = 0, distinct = 0, *where;
	int ret = 0;

	for (size_t i = 0; i < prog->insn_cnt; i += prog->insns[i].code == KBPF_LDDW_CODE ? 2 : 1)
		nr += is_kfunc_call(&prog->insns[i]);
	if (!nr)
		return 0;
	/* the calls' instruction indices, sorted by BTF id (insertion sort keeps program order
	 * among equal ids, so a message names the first call of a kfunc) */
	where = calloc(nr, sizeof(*where));
	k = calloc(1, sizeof(*k) + nr * sizeof(k->desc[0]));
	if (!where || !k) {
		free(where);
		free(k);
		return -ENOMEM;
	}
	for (size_t i = 0, n = 0; i < prog->insn_cnt; i += prog->insns[i].code == KBPF_LDDW_CODE ? 2 : 1)
		if (is_kfunc_call(&prog->insns[i]))
			where[n++] = i;
	for (size_t i = 1; i < nr; i++) {
		size_t w = where[i], j = i;
		while (j > 0 && (uint32_t)prog->insns[where[j - 1]].imm > (uint32_t)prog->insns[w].imm) {
			where[j] = where[j - 1];
			j--;
		}
		where[j] = w;
	}
	prog->kfuncs = k;
	for (size_t i = 0; i < nr; i++) {
		const struct bpf_insn *in = &prog->insns[where[i]];
		uint32_t id = (uint32_t)in->imm;
		const char *name;

		if (in->off) {
			/* Linux: a module BTF from fd_array; kbpf's kfuncs all live in the host BTF */
			snprintf(err, err_size, "insn %zu: kfunc call with off %d: module BTF (fd_array) is not "
				 "supported, kfuncs are in the host BTF (off 0)", where[i], in->off);
			ret = -EINVAL;
			break;
		}
		if (i && (uint32_t)prog->insns[where[i - 1]].imm == id)
			continue;
		ret = kbpf_host_kfunc_get(prog->host, id, &k->desc[distinct]);
		if (ret) {
			name = func_name(prog->host, id);
			if (ret == -ENXIO)
				snprintf(err, err_size, "insn %zu: kernel function %s: its kfunc set is being "
					 "unregistered", where[i], name ? name : "?");
			else if (!prog->host)
				snprintf(err, err_size, "insn %zu: kfunc call (btf id %u) without a host", where[i], id);
			else if (!name)
				snprintf(err, err_size, "insn %zu: kernel btf_id %u is not a function", where[i], id);
			else
				snprintf(err, err_size, "insn %zu: cannot find address for kernel function %s: it is "
					 "not registered on the host (kbpf_host_kfunc_set_register)", where[i], name);
			if (ret == -ENOENT)
				ret = -EINVAL;
			break;
		}
		k->nr = ++distinct;
	}
	free(where);
	if (ret)
		kbpf_prog_kfuncs_unpin(prog);
	return ret;
}
