/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier case format (tests/verifier/README.md): parsing only, shared by the kbpf
 * runner (run_cases.c) and the live-kernel check (linux_check.c). */
#ifndef KBPF_TESTS_VERIFIER_CASE_H
#define KBPF_TESTS_VERIFIER_CASE_H

#include <stddef.h>
#include <stdint.h>

#define CASE_MAX_MAPS 8
#define CASE_MAX_ERRORS 4

struct case_map {
	char kind[32];        /* "hash", "array", "ringbuf", "prog_array", ... */
	uint32_t type;        /* enum bpf_map_type */
	uint32_t key_size, value_size, max_entries, flags;
	/* "value=HEX": element 0's first bytes (the rest zero), written before the program
	 * loads; "frozen": then BPF_MAP_FREEZE (kbpf_map_freeze) */
	uint8_t value[64];
	uint32_t value_len;
	int frozen;
};

struct vcase {
	char file[256];
	int line;             /* line of the "=== name" header */
	char name[128];
	char type[48];        /* program type name, default socket_filter */
	char license[64];     /* default GPL */
	int unpriv;
	int state_freq;       /* flags: test_state_freq (Linux's BPF_F_TEST_STATE_FREQ) */
	int reg_invariants;   /* flags: test_reg_invariants (BPF_F_TEST_REG_INVARIANTS) */
	int sleepable;        /* flags: sleepable (BPF_F_SLEEPABLE) */
	int accept;           /* 1 accept, 0 reject */
	char errors[CASE_MAX_ERRORS][256]; /* substrings, in order */
	int nr_errors;
	/* The live kernel's text where it differs from Linux 6.1's (the reference): used by
	 * the Linux check instead of errors. */
	char linux_errors[CASE_MAX_ERRORS][256];
	int nr_linux_errors;
	int has_retval;
	uint64_t retval;
	char linux_differs[256]; /* non-empty: excluded from the Linux check, says why */
	struct case_map maps[CASE_MAX_MAPS];
	int nr_maps;
	char *text;           /* program text (malloc'ed) */
	/* BTF func_info (funcs.c), one prototype per subprogram in order, e.g.
	 * "static int main(ctx); global int f(int, long*)"; empty: none */
	char funcs[512];
};

/* Parse every case of file into *cases (appending; *nr updated). Returns 0, or -1 with a
 * message "file:line: what is wrong" in err. */
int case_file_parse(const char *file, struct vcase **cases, size_t *nr, char *err, size_t err_size);
void case_free_all(struct vcase *cases, size_t nr);
/* Linux's enum bpf_prog_type number for a type name, or -1. */
int case_linux_prog_type(const char *name);
/* The expected_attach_type a type named by its attach point loads with (0: none). */
int case_linux_attach_type(const char *name);
/* Every log substring of c appears in log, in order (live: the live-kernel texts). */
int case_log_matches(const struct vcase *c, const char *log, int live);

#endif
