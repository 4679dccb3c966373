/* SPDX-License-Identifier: Apache-2.0 */
/* Test specifications from BTF decl tags, as Linux 6.12's test_loader.c reads them
 * (spec.h). Written from bpf_misc.h's documentation and test_loader's observable rules. */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "spec.h"

#define PFX(s, p) (strncmp((s), (p), strlen(p)) == 0)

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int push(struct lp_msgs *m, const char *s)
{
	char **n = realloc(m->pat, (size_t)(m->cnt + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	m->pat = n;
	if (!(m->pat[m->cnt] = strdup(s)))
		return -ENOMEM;
	m->cnt++;
	return 0;
}

static int clone(struct lp_msgs *to, const struct lp_msgs *from)
{
	for (int i = 0; i < from->cnt; i++)
		if (push(to, from->pat[i]))
			return -ENOMEM;
	return 0;
}

/* "comment:test_expect_msg=N=text": the text after the counter's '='. */
static const char *dynamic(const char *s, const char *pfx)
{
	if (!PFX(s, pfx))
		return NULL;
	s = strchr(s + strlen(pfx), '=');
	return s ? s + 1 : NULL;
}

/* test_loader's parse_int: decimal, or hex after "0x". */
static int parse_int(const char *s, int *v)
{
	char *end;
	long t;

	errno = 0;
	t = PFX(s, "0x") ? strtol(s + 2, &end, 16) : strtol(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = (int)t;
	return 0;
}

static int parse_retval(const char *s, int32_t *v)
{
	int i;

	if (!strcmp(s, "INT_MIN"))
		*v = INT32_MIN;
	else if (!strcmp(s, "POINTER_VALUE"))
		*v = LP_POINTER_VALUE;
	else if (!strcmp(s, "TEST_DATA_LEN"))
		*v = 64;
	else if (parse_int(s, &i))
		return -EINVAL;
	else
		*v = i;
	return 0;
}

static int parse_flag(const char *s, uint32_t *flags)
{
	static const struct { const char *name; uint32_t bit; } names[] = {
		{ "BPF_F_STRICT_ALIGNMENT", LP_F_STRICT_ALIGNMENT },
		{ "BPF_F_ANY_ALIGNMENT", LP_F_ANY_ALIGNMENT },
		{ "BPF_F_TEST_RND_HI32", LP_F_TEST_RND_HI32 },
		{ "BPF_F_TEST_STATE_FREQ", LP_F_TEST_STATE_FREQ },
		{ "BPF_F_SLEEPABLE", LP_F_SLEEPABLE },
		{ "BPF_F_XDP_HAS_FRAGS", LP_F_XDP_HAS_FRAGS },
		{ "BPF_F_TEST_REG_INVARIANTS", LP_F_TEST_REG_INVARIANTS },
	};
	bool clear = *s == '!';
	uint32_t bit = 0;
	int v;

	if (clear)
		s++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !bit; i++)
		if (!strcmp(s, names[i].name))
			bit = names[i].bit;
	if (!bit) {
		if (parse_int(s, &v))
			return -EINVAL;
		bit = (uint32_t)v;
	}
	*flags = clear ? *flags & ~bit : *flags | bit;
	return 0;
}

int lp_spec_parse(const struct btf *btf, const char *prog_name, struct lp_spec *spec, char *err,
		  size_t err_size)
{
	bool has_unpriv_result = false, has_unpriv_retval = false, has_arch = false;
	bool collect_jit = false;
	const char *description = NULL;
	int func, r = 0;

	memset(spec, 0, sizeof(*spec));
	spec->prog_name = strdup(prog_name);
	/* testing_prog_flags(): what test_progs asks of every load the kernel accepts it for */
	spec->prog_flags = LP_F_TEST_RND_HI32 | LP_F_TEST_REG_INVARIANTS;
	spec->arch_ok = true;
	func = btf__find_by_name_kind(btf, prog_name, BTF_KIND_FUNC);
	if (func < 0)
		return fail(err, err_size, "no FUNC in the object's BTF for '%s'", prog_name);
	for (unsigned id = 1; id < btf__type_cnt(btf) && !r; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *s, *v;
		struct lp_mode *m;

		if (!btf_is_decl_tag(t) || (int)t->type != func || btf_decl_tag(t)->component_idx != -1)
			continue;
		s = btf__str_by_offset(btf, t->name_off);
		if (PFX(s, "comment:test_description=")) {
			description = s + strlen("comment:test_description=");
		} else if (!strcmp(s, "comment:test_expect_failure")) {
			spec->priv.expect_failure = true;
			spec->mode_mask |= LP_PRIV;
		} else if (!strcmp(s, "comment:test_expect_success")) {
			spec->priv.expect_failure = false;
			spec->mode_mask |= LP_PRIV;
		} else if (!strcmp(s, "comment:test_expect_failure_unpriv")) {
			spec->unpriv.expect_failure = true;
			spec->mode_mask |= LP_UNPRIV;
			has_unpriv_result = true;
		} else if (!strcmp(s, "comment:test_expect_success_unpriv")) {
			spec->unpriv.expect_failure = false;
			spec->mode_mask |= LP_UNPRIV;
			has_unpriv_result = true;
		} else if (!strcmp(s, "comment:test_auxiliary")) {
			spec->auxiliary = true;
			spec->mode_mask |= LP_PRIV;
		} else if (!strcmp(s, "comment:test_auxiliary_unpriv")) {
			spec->auxiliary_unpriv = true;
			spec->mode_mask |= LP_UNPRIV;
		} else if ((v = dynamic(s, "comment:test_expect_msg="))) {
			r = push(&spec->priv.msgs, v);
			spec->mode_mask |= LP_PRIV;
		} else if ((v = dynamic(s, "comment:test_expect_msg_unpriv="))) {
			r = push(&spec->unpriv.msgs, v);
			spec->mode_mask |= LP_UNPRIV;
		} else if ((v = dynamic(s, "comment:test_jited=")) || (v = dynamic(s, "comment:test_jited_unpriv="))) {
			/* collected only after an __arch_* naming this machine's arch */
			bool unpriv = PFX(s, "comment:test_jited_unpriv=");

			m = unpriv ? &spec->unpriv : &spec->priv;
			if (!has_arch)
				r = fail(err, err_size, "__jited without __arch_*");
			else if (collect_jit) {
				/* "..." is kept in the list: the matcher reads it as a gap */
				r = push(&m->jited, v);
				spec->mode_mask |= unpriv ? LP_UNPRIV : LP_PRIV;
			}
		} else if ((v = dynamic(s, "comment:test_expect_xlated="))) {
			r = push(&spec->priv.xlated, v);
			spec->mode_mask |= LP_PRIV;
		} else if ((v = dynamic(s, "comment:test_expect_xlated_unpriv="))) {
			r = push(&spec->unpriv.xlated, v);
			spec->mode_mask |= LP_UNPRIV;
		} else if (PFX(s, "comment:test_retval=")) {
			if (parse_retval(s + strlen("comment:test_retval="), &spec->priv.retval))
				r = fail(err, err_size, "bad __retval '%s'", s);
			spec->priv.execute = true;
			spec->mode_mask |= LP_PRIV;
		} else if (PFX(s, "comment:test_retval_unpriv=")) {
			if (parse_retval(s + strlen("comment:test_retval_unpriv="), &spec->unpriv.retval))
				r = fail(err, err_size, "bad __retval_unpriv '%s'", s);
			spec->unpriv.execute = true;
			has_unpriv_retval = true;
			spec->mode_mask |= LP_UNPRIV;
		} else if (PFX(s, "comment:test_log_level=")) {
			if (parse_int(s + strlen("comment:test_log_level="), &spec->log_level))
				r = fail(err, err_size, "bad __log_level '%s'", s);
		} else if (PFX(s, "comment:test_prog_flags=")) {
			if (parse_flag(s + strlen("comment:test_prog_flags="), &spec->prog_flags))
				r = fail(err, err_size, "bad __flag '%s'", s);
		} else if (PFX(s, "comment:test_arch=")) {
			v = s + strlen("comment:test_arch=");
			if (strcmp(v, "X86_64") && strcmp(v, "ARM64") && strcmp(v, "RISCV64"))
				r = fail(err, err_size, "bad arch '%s'", v);
			if (!has_arch)
				spec->arch_ok = false;
			has_arch = true;
			collect_jit = !strcmp(v, "X86_64");
			spec->arch_ok |= collect_jit;
		} else if (PFX(s, "comment:test_btf_path=")) {
			free(spec->btf_path);
			spec->btf_path = strdup(s + strlen("comment:test_btf_path="));
		}
	}
	if (r)
		return r < 0 && r != -EINVAL ? fail(err, err_size, "out of memory") : r;
	if (!spec->mode_mask)
		spec->mode_mask = LP_PRIV;
	if (!description)
		description = prog_name;
	spec->priv.name = strdup(description);
	spec->unpriv.name = lp_strjoin(description, " @unpriv");
	if (!spec->priv.name || !spec->unpriv.name || !spec->prog_name)
		return fail(err, err_size, "out of memory");
	/* the unprivileged mode inherits what it does not say itself */
	if (!has_unpriv_result)
		spec->unpriv.expect_failure = spec->priv.expect_failure;
	if (!has_unpriv_retval) {
		spec->unpriv.retval = spec->priv.retval;
		spec->unpriv.execute = spec->priv.execute;
	}
	if ((!spec->unpriv.msgs.cnt && clone(&spec->unpriv.msgs, &spec->priv.msgs)) ||
	    (!spec->unpriv.xlated.cnt && clone(&spec->unpriv.xlated, &spec->priv.xlated)) ||
	    (!spec->unpriv.jited.cnt && clone(&spec->unpriv.jited, &spec->priv.jited)))
		return fail(err, err_size, "out of memory");
	return 0;
}

static void msgs_free(struct lp_msgs *m)
{
	for (int i = 0; i < m->cnt; i++)
		free(m->pat[i]);
	free(m->pat);
	m->pat = NULL;
	m->cnt = 0;
}

char *lp_strjoin(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb + 1);
	}
	return s;
}

void lp_spec_free(struct lp_spec *spec)
{
	free(spec->prog_name);
	free(spec->btf_path);
	free(spec->priv.name);
	free(spec->unpriv.name);
	msgs_free(&spec->priv.msgs);
	msgs_free(&spec->priv.xlated);
	msgs_free(&spec->priv.jited);
	msgs_free(&spec->unpriv.msgs);
	msgs_free(&spec->unpriv.xlated);
	msgs_free(&spec->unpriv.jited);
	memset(spec, 0, sizeof(*spec));
}

/* test_loader's compile_regex: literal outside "{{ }}", regex inside. */
static int compile(const char *pat, regex_t *re)
{
	size_t n = strlen(pat);
	char *buf = malloc(2 * n + 1), *p = buf;
	bool in = false;
	int r;

	if (!buf)
		return -ENOMEM;
	while (*pat) {
		if (!in && PFX(pat, "{{")) {
			in = true;
			pat += 2;
		} else if (in && PFX(pat, "}}")) {
			in = false;
			pat += 2;
		} else if (!in && strchr(".[]\\()*+?{}|^$", *pat)) {
			*p++ = '\\';
			*p++ = *pat++;
		} else {
			*p++ = *pat++;
		}
	}
	*p = 0;
	r = regcomp(re, buf, REG_EXTENDED | REG_NEWLINE);
	free(buf);
	return r ? -EINVAL : 0;
}

int lp_msgs_match(const char *text, const struct lp_msgs *msgs, bool consecutive)
{
	const char *log = text, *scanned = text;
	int line = 0, prev_line = -1;
	bool tied = true;

	for (int i = 0; i < msgs->cnt; i++) {
		const char *pat = msgs->pat[i], *match = NULL;

		if (consecutive && !strcmp(pat, "...")) {
			tied = false;
			continue;
		}
		if (!strstr(pat, "{{")) {
			match = strstr(log, pat);
			if (match)
				log = match + strlen(pat);
		} else {
			regex_t re;
			regmatch_t rm[1];

			if (compile(pat, &re))
				return i;
			if (!regexec(&re, log, 1, rm, 0)) {
				match = log + rm[0].rm_so;
				log += rm[0].rm_eo;
			}
			regfree(&re);
		}
		if (!match)
			return i;
		for (; scanned < match; scanned++)
			if (*scanned == '\n')
				line++;
		if (consecutive && tied && prev_line >= 0 && prev_line + 1 != line)
			return i;
		prev_line = line;
		tied = true;
	}
	return -1;
}
