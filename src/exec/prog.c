/* SPDX-License-Identifier: Apache-2.0 */
/* struct kbpf_prog: a validated copy of the instructions plus what the engines need. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/isa.h>
#include "exec/prog_internal.h"

/* The option struct's field is usable if the caller's struct is large enough to hold it. */
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(typeof(*(opts)), field) + sizeof((opts)->field))
#define OPTS_GET(opts, field, fallback) (OPTS_HAS(opts, field) ? (opts)->field : (fallback))

int kbpf_prog_create(const struct bpf_insn *insns, size_t cnt, const struct kbpf_prog_opts *opts,
		     struct kbpf_prog **out)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t log_size = log ? OPTS_GET(opts, log_size, 0) : 0;
	struct kbpf_prog *prog;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (opts && opts->sz < sizeof(size_t))
		return -EINVAL;
	ret = kbpf_insns_validate(insns, cnt, log, log_size);
	if (ret)
		return ret;

	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	prog->insns = malloc(cnt * sizeof(*insns));
	if (!prog->insns) {
		free(prog);
		return -ENOMEM;
	}
	memcpy(prog->insns, insns, cnt * sizeof(*insns));
	prog->insn_cnt = cnt;
	prog->host = OPTS_GET(opts, host, NULL);
	snprintf(prog->name, sizeof(prog->name), "%s", OPTS_GET(opts, name, NULL) ? opts->name : "prog");

	ret = kbpf_interp_prepare(prog, log, log_size);
	if (ret) {
		kbpf_prog_free(prog);
		return ret;
	}
	*out = prog;
	return 0;
}

void kbpf_prog_free(struct kbpf_prog *prog)
{
	if (!prog)
		return;
	kbpf_interp_free(prog->interp);
	free(prog->insns);
	free(prog);
}

const struct bpf_insn *kbpf_prog_insns(const struct kbpf_prog *prog, size_t *cnt)
{
	if (cnt)
		*cnt = prog ? prog->insn_cnt : 0;
	return prog ? prog->insns : NULL;
}

const char *kbpf_prog_name(const struct kbpf_prog *prog)
{
	return prog ? prog->name : NULL;
}

int kbpf_prog_run(const struct kbpf_prog *prog, void *ctx, uint64_t *retval)
{
	uint64_t args[5] = { (uint64_t)(uintptr_t)ctx };
	uint64_t r0 = 0;
	int ret;

	if (!prog)
		return -EINVAL;
	ret = kbpf_interp_run(prog, args, &r0);
	if (retval)
		*retval = r0;
	return ret;
}

int kbpf_prog_run_opts(const struct kbpf_prog *prog, struct kbpf_run_opts *opts)
{
	if (!prog || !opts || opts->sz < offsetof(struct kbpf_run_opts, retval))
		return -EINVAL;
	if (opts->sz < sizeof(*opts)) /* outputs live at the end: callers must be current */
		return -EINVAL;
	opts->fault_insn = -1;
	opts->insns_executed = 0;
	if (opts->err && opts->err_size)
		opts->err[0] = 0;
	if (opts->flags & ~KBPF_RUN_CHECKED)
		return -EINVAL;
	if (opts->flags & KBPF_RUN_CHECKED)
		return kbpf_interp_run_checked(prog, opts);
	return kbpf_interp_run(prog, opts->args, &opts->retval);
}
