/* SPDX-License-Identifier: Apache-2.0 */
/* The cases of the annotated selftest programs: one per program and mode (cases.c). */
#ifndef KBPF_LINUX_PROGS_CASES_H
#define KBPF_LINUX_PROGS_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include "spec.h"

struct lp_case {
	char *name;        /* "verifier_and: <description>[ @unpriv]" */
	char *path;        /* the object */
	int unpriv;
	struct lp_spec spec;
	char **aux;        /* the object's auxiliary programs of this case's mode */
	int nr_aux;
};

/* Append the cases of the object at path (test_loader's order: its programs in ELF
 * order, each privileged then unprivileged as its spec says). Returns 0 or -errno with
 * the reason in err. */
int lp_cases_collect(const char *path, struct lp_case **cases, size_t *nr, char *err, size_t err_size);
void lp_cases_free(struct lp_case *cases, size_t nr);

/* Run one case: *rc 0 pass, 1 fail, 2 skip, with a kind and the reason. */
void lp_case_run(const struct lp_case *c, int verbose, int *rc, char *kind, size_t kind_size, char *why,
		 size_t why_size);

#endif
