/* SPDX-License-Identifier: Apache-2.0 */
/* The kfunc cases of Linux 6.1's verifier/calls.c (docs/reference/kfunc-spec.md §4.5): raw instruction
 * programs whose kfunc calls are patched with the BTF ids of Linux's test kfuncs, as
 * test_verifier.c's fixup_kfunc_btf_id does, then verified for their program type and
 * compared with Linux's verdict and error text. The table is tests/linux-selftests' (its
 * gen-table.sh, bpf_test.h and shim.h, on calls.c alone), built by run.sh. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include <kbpf/linux.h>
#include "../linux-selftests/bpf_test.h"
#include "kfunc_selftests.h"

struct type_find {
	uint32_t linux_type;
	const char *name;
};

static void type_find_fn(const struct kbpf_prog_type *type, void *arg)
{
	struct type_find *f = arg;
	if (!f->name && type->linux_type == f->linux_type)
		f->name = type->name;
}

/* Linux's test_verifier compares the log with errstr's tab-separated parts in order. */
static int errstr_match(const char *log, const char *errstr)
{
	char part[512];
	const char *p = errstr;

	while (*p) {
		size_t n = strcspn(p, "\t");
		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		const char *at = strstr(log, part);
		if (!at)
			return 0;
		log = at + n;
		p += n + (p[n] == '\t');
	}
	return 1;
}

/* The kfunc tests of calls.c: those with a fixup_kfunc_btf_id, and the two "invalid
 * kfunc call" ones (imm 0, no fixup). */
static int is_kfunc_test(const struct bpf_test *t)
{
	return t->fixup_kfunc_btf_id[0].kfunc || (t->descr && strstr(t->descr, "invalid kfunc call"));
}

static size_t prog_len(const struct bpf_test *t)
{
	size_t n = t->prog_len > 0 ? (size_t)t->prog_len : MAX_INSNS;

	/* test_verifier.c's probe_filter_length: up to the last non-zero instruction */
	while (n > 0) {
		const struct bpf_insn *in = &t->insns[n - 1];
		if (in->code || in->dst_reg || in->src_reg || in->off || in->imm)
			break;
		n--;
	}
	return n;
}

static void one_test(struct kbpf_host *host, const struct bpf_test *t)
{
	static char log[1 << 20];
	char name[256], line[512];
	struct bpf_insn insns[MAX_INSNS];
	size_t cnt = prog_len(t);
	const struct btf *btf = kbpf_host_btf(host);
	struct type_find f = { t->prog_type ? (uint32_t)t->prog_type : BPF_PROG_TYPE_SOCKET_FILTER, NULL };
	int rc;

	snprintf(name, sizeof(name), "verifier/calls.c: %s", t->descr);
	memcpy(insns, t->insns, cnt * sizeof(insns[0]));
	for (int i = 0; i < MAX_FIXUPS && t->fixup_kfunc_btf_id[i].kfunc; i++) {
		int id = btf__find_by_name_kind(btf, t->fixup_kfunc_btf_id[i].kfunc, BTF_KIND_FUNC);
		int idx = t->fixup_kfunc_btf_id[i].insn_idx;
		if (id <= 0 || idx < 0 || (size_t)idx >= cnt) {
			kfunc_record(name, 0, "no test kfunc %s in the host BTF", t->fixup_kfunc_btf_id[i].kfunc);
			return;
		}
		insns[idx].imm = id;
	}
	kbpf_host_prog_type_foreach(host, type_find_fn, &f);
	if (!f.name) {
		kfunc_record(name, 0, "program type %d is not modelled", (int)t->prog_type);
		return;
	}
	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = host, .prog_type = f.name, .license = "GPL",
		.log_level = KBPF_LOG_STATS, .log_buf = log, .log_size = sizeof(log), .prog_name = t->descr,
	};
	log[0] = 0;
	rc = kbpf_prog_verify(insns, cnt, &vo, NULL);
	kfunc_last_line(log, line, sizeof(line));
	/* a rejection's reason is the line before the statistics */
	while (!strncmp(line, "processed ", 10) || !strncmp(line, "stack depth ", 12) ||
	       !strncmp(line, "verification time ", 18)) {
		char *stats = strstr(log, line);
		if (!stats || stats == log)
			break;
		stats[0] = 0;
		kfunc_last_line(log, line, sizeof(line));
	}
	if (t->result == ACCEPT) {
		/* Linux runs accepted programs too; these return 0 and take no data */
		if (rc)
			kfunc_record(name, 0, "expected accept, got reject (%s): %s", strerror(-rc), line);
		else
			kfunc_record(name, 1, "accepted");
	} else if (!rc) {
		kfunc_record(name, 0, "expected reject (%s), got accept", t->errstr ? t->errstr : "");
	} else if (t->errstr && !errstr_match(log, t->errstr)) {
		kfunc_record(name, 0, "rejected with another message: expected \"%s\", got \"%s\"", t->errstr, line);
	} else {
		kfunc_record(name, 1, "rejected: %s", t->errstr ? t->errstr : line);
	}
}

int kfunc_verifier_calls(struct kbpf_host *host, const char *table)
{
	void *so = dlopen(table, RTLD_NOW | RTLD_LOCAL);
	struct bpf_test_file *files;
	int *nr_files, n = 0;

	if (!so) {
		kfunc_record("verifier/calls.c: the kfunc cases", 0, "%s", dlerror());
		return -ENOENT;
	}
	files = dlsym(so, KBPF_SELFTEST_FILES_SYM);
	nr_files = dlsym(so, KBPF_SELFTEST_NR_FILES_SYM);
	for (int i = 0; files && nr_files && i < *nr_files; i++) {
		if (strcmp(files[i].name, "calls.c"))
			continue;
		for (int k = 0; k < files[i].nr; k++) {
			if (is_kfunc_test(&files[i].tests[k])) {
				one_test(host, &files[i].tests[k]);
				n++;
			}
		}
	}
	if (!n)
		kfunc_record("verifier/calls.c: the kfunc cases", 0, "no kfunc case found in %s", table);
	dlclose(so);
	return 0;
}
