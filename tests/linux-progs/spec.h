/* SPDX-License-Identifier: Apache-2.0 */
/* A program's test specification, read from the BTF decl tags that Linux's
 * tools/testing/selftests/bpf/progs/bpf_misc.h attaches to it (__success, __failure,
 * __msg, __retval, __flag, __log_level, …), with the rules of Linux 6.12's
 * test_loader.c (parse_test_spec): which modes run, and what the unprivileged mode
 * inherits from the privileged one. */
#ifndef KBPF_LINUX_PROGS_SPEC_H
#define KBPF_LINUX_PROGS_SPEC_H

#include <stdbool.h>
#include <stdint.h>

struct btf;

#define LP_PRIV 1u
#define LP_UNPRIV 2u

/* Linux's prog_flags as __flag names them (BPF_F_TEST_REG_INVARIANTS is newer than
 * Debian 12's <linux/bpf.h>). */
#define LP_F_STRICT_ALIGNMENT (1u << 0)
#define LP_F_ANY_ALIGNMENT (1u << 1)
#define LP_F_TEST_RND_HI32 (1u << 2)
#define LP_F_TEST_STATE_FREQ (1u << 3)
#define LP_F_SLEEPABLE (1u << 4)
#define LP_F_XDP_HAS_FRAGS (1u << 5)
#define LP_F_TEST_REG_INVARIANTS (1u << 7)

#define LP_POINTER_VALUE 0xcafe4a

struct lp_msgs {
	char **pat;
	int cnt;
};

struct lp_mode {
	char *name;           /* the description (or program name); " @unpriv" appended */
	bool expect_failure;
	bool execute;         /* a __retval was given */
	int32_t retval;
	struct lp_msgs msgs, xlated, jited;
};

struct lp_spec {
	char *prog_name;
	unsigned mode_mask;   /* LP_PRIV | LP_UNPRIV */
	bool auxiliary, auxiliary_unpriv;
	int log_level;
	uint32_t prog_flags;  /* testing_prog_flags() with every __flag applied */
	bool arch_ok;         /* no __arch_* tag, or one naming x86_64 */
	char *btf_path;       /* __btf_path */
	struct lp_mode priv, unpriv;
};

/* Fill spec from the decl tags on prog_name's FUNC in btf. Returns 0, or -EINVAL with
 * the reason in err (no FUNC, a tag test_loader would refuse). */
int lp_spec_parse(const struct btf *btf, const char *prog_name, struct lp_spec *spec, char *err,
		  size_t err_size);
void lp_spec_free(struct lp_spec *spec);

/* a followed by b, malloc'ed (NULL without memory). */
char *lp_strjoin(const char *a, const char *b);

/* test_loader's validate_msgs: the patterns in order, each searched after the previous
 * match; "{{…}}" parts are POSIX extended regexes (REG_NEWLINE), the rest literal. With
 * consecutive, each pattern must match on the line after the previous one's, unless a
 * "..." pattern stands between (how __xlated and __jited are matched). Returns the index
 * of the first pattern not found (or found on the wrong line), or -1 when all match. */
int lp_msgs_match(const char *text, const struct lp_msgs *msgs, bool consecutive);

#endif
