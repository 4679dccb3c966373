/* SPDX-License-Identifier: Apache-2.0 */
/* The harness of Linux's verifier selftests on kbpf (README.md): what its parts share. */
#ifndef KBPF_SELFTESTS_H
#define KBPF_SELFTESTS_H
#include <stddef.h>
#include <string.h>
#include <kbpf/host.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include "bpf_test.h"

/* The Linux version the table's files come from ("6.1", "6.12": the table's
 * kbpf_selftest_linux, gen-table.sh), for the rules that differ between the two
 * test_verifier.c versions (the map_kptr BTF). main.c sets it. */
extern const char *st_linux;
#define ST_LINUX_612() (st_linux && !strcmp(st_linux, "6.12"))

/* One verdict to check: a test, privileged or (Linux's "/u") unprivileged. */
struct st_case {
	const struct bpf_test_file *file;
	struct bpf_test *test;
	int unpriv;
	int low_packet; /* --low-packet: see case_run.c */
	void *table;    /* the dlopen()ed test table */
	char name[320]; /* "alu.c: descr /p": the key of expected-pass.txt */
};

enum st_result { ST_SKIP = -1, ST_FAIL = 0, ST_PASS = 1 };

/* What a case's outcome was, as a worker reports it. kind is a short class of the
 * failure or skip ("rejected", "errstr", "retval-interp", "prog type"…), why the detail. */
struct st_outcome {
	int rc; /* enum st_result; -2: not run (--only) */
	char kind[48];
	char why[1024];
};

/* The maps a test's fixups ask for, patched into its instructions (maps.c). */
#define ST_MAX_MAPS 24
struct st_maps {
	struct kbpf_map *maps[ST_MAX_MAPS];
	size_t nr;
	struct kbpf_prog *progs[8]; /* the programs in prog-array slots */
	size_t nr_progs;
};
/* Create the maps of t's fixups, patching insns (a copy of the test's) so each fixed-up
 * LDDW names its map by index. Returns 0, or -EOPNOTSUPP with *why set for a map kbpf
 * does not model, or another negative errno. */
int st_maps_create(struct kbpf_host *host, const struct bpf_test *t, struct bpf_insn *insns,
		   size_t cnt, struct st_maps *m, char *why, size_t why_size);
void st_maps_free(struct st_maps *m);

/* Run one case (case_run.c): fills out, returns out->rc. */
int st_case_run(struct kbpf_host *host, const struct st_case *c, char *log, size_t log_size,
		int verbose, struct st_outcome *out);
/* kbpf's name for a Linux program type, NULL if kbpf does not provide it. */
const char *st_prog_type_name(enum bpf_prog_type type);
/* Linux's name ("SCHED_CLS") of a program type, for skip reasons. */
const char *st_prog_type_linux_name(enum bpf_prog_type type);

/* The program of a test with a fill_helper (fill.c): *insns (free() it), *cnt, and
 * the value it must return. -EOPNOTSUPP with *unsupported set for generators kbpf does
 * not reimplement. */
int st_fill(void *table, const struct bpf_test *t, struct bpf_insn **insns, size_t *cnt,
	    uint32_t *retval, const char **unsupported);
void *st_table_sym(void *table, const char *name);
/* kbpf's program type for a test, by its prog_type and, for TRACING, its
 * expected_attach_type (fill.c); NULL if kbpf does not provide it. */
const char *st_test_prog_type_name(const struct bpf_test *t);
/* The host BTF id of a TRACING test's attach target (.kfunc) in *id (0 for other tests).
 * -EOPNOTSUPP, *why set, when the host has no such function. */
int st_attach_btf_id(const struct kbpf_host *host, const struct bpf_test *t, uint32_t *id, char *why,
		     size_t why_size);

/* Results (report.c). */
int st_report_md(const char *path, const struct st_case *cases, const struct st_outcome *res,
		 size_t nr);
#endif /* KBPF_SELFTESTS_H */
