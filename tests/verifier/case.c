/* SPDX-License-Identifier: Apache-2.0 */
/* Parser of the verifier case files (format: tests/verifier/README.md). */
#include "case.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

static void set_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static const struct {
	const char *name;
	int type;
	int attach; /* expected_attach_type, for the types that need one (0: none) */
} prog_types[] = {
	{ "socket_filter", BPF_PROG_TYPE_SOCKET_FILTER, 0 },
	{ "kprobe", BPF_PROG_TYPE_KPROBE, 0 },
	{ "sched_cls", BPF_PROG_TYPE_SCHED_CLS, 0 },
	{ "sched_act", BPF_PROG_TYPE_SCHED_ACT, 0 },
	{ "tracepoint", BPF_PROG_TYPE_TRACEPOINT, 0 },
	{ "xdp", BPF_PROG_TYPE_XDP, 0 },
	{ "perf_event", BPF_PROG_TYPE_PERF_EVENT, 0 },
	{ "cgroup_skb", BPF_PROG_TYPE_CGROUP_SKB, 0 },
	{ "cgroup_sock", BPF_PROG_TYPE_CGROUP_SOCK, 0 },
	{ "lwt_in", BPF_PROG_TYPE_LWT_IN, 0 },
	{ "lwt_out", BPF_PROG_TYPE_LWT_OUT, 0 },
	{ "lwt_xmit", BPF_PROG_TYPE_LWT_XMIT, 0 },
	{ "sock_ops", BPF_PROG_TYPE_SOCK_OPS, 0 },
	{ "sk_skb", BPF_PROG_TYPE_SK_SKB, 0 },
	{ "cgroup_device", BPF_PROG_TYPE_CGROUP_DEVICE, 0 },
	{ "sk_msg", BPF_PROG_TYPE_SK_MSG, 0 },
	{ "raw_tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, 0 },
	{ "cgroup_sock_addr", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, 0 },
	{ "sk_reuseport", BPF_PROG_TYPE_SK_REUSEPORT, 0 },
	{ "flow_dissector", BPF_PROG_TYPE_FLOW_DISSECTOR, 0 },
	{ "cgroup_sysctl", BPF_PROG_TYPE_CGROUP_SYSCTL, 0 },
	{ "cgroup_sockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, 0 },
	{ "syscall", BPF_PROG_TYPE_SYSCALL, 0 },
	/* kbpf names these by their libbpf section: one type per attach point */
	{ "cgroup/bind4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_BIND },
	{ "cgroup/bind6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_BIND },
	{ "cgroup/connect4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT },
	{ "cgroup/connect6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_CONNECT },
	{ "cgroup/sendmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_SENDMSG },
	{ "cgroup/sendmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_SENDMSG },
	{ "cgroup/recvmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_RECVMSG },
	{ "cgroup/recvmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_RECVMSG },
	{ "cgroup/getpeername4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_GETPEERNAME },
	{ "cgroup/getsockname6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_GETSOCKNAME },
	{ "cgroup/getsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_GETSOCKOPT },
	{ "cgroup/setsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_SETSOCKOPT },
	{ "cgroup/post_bind4", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET4_POST_BIND },
	{ "cgroup/post_bind6", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET6_POST_BIND },
	{ "cgroup/sock_release", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_RELEASE },
	{ "sk_lookup", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP },
};

int case_linux_prog_type(const char *name)
{
	for (size_t i = 0; i < sizeof(prog_types) / sizeof(prog_types[0]); i++)
		if (!strcmp(prog_types[i].name, name))
			return prog_types[i].type;
	return -1;
}

int case_linux_attach_type(const char *name)
{
	for (size_t i = 0; i < sizeof(prog_types) / sizeof(prog_types[0]); i++)
		if (!strcmp(prog_types[i].name, name))
			return prog_types[i].attach;
	return 0;
}

static const struct {
	const char *name;
	uint32_t type;
} map_types[] = {
	{ "hash", BPF_MAP_TYPE_HASH },
	{ "array", BPF_MAP_TYPE_ARRAY },
	{ "prog_array", BPF_MAP_TYPE_PROG_ARRAY },
	{ "percpu_hash", BPF_MAP_TYPE_PERCPU_HASH },
	{ "percpu_array", BPF_MAP_TYPE_PERCPU_ARRAY },
	{ "lru_hash", BPF_MAP_TYPE_LRU_HASH },
	{ "ringbuf", BPF_MAP_TYPE_RINGBUF },
};

/* "value=HEX" and "frozen", after a map's numbers */
static int parse_map_extra(const char *spec, struct case_map *m)
{
	char word[160];
	int used;

	for (; sscanf(spec, " %159s%n", word, &used) == 1; spec += used) {
		if (!strcmp(word, "frozen")) {
			m->frozen = 1;
			continue;
		}
		if (strncmp(word, "value=", 6))
			return -1;
		const char *h = word + 6;
		size_t len = strlen(h);
		if (len % 2 || len / 2 > sizeof(m->value) || len / 2 > m->value_size)
			return -1;
		for (size_t i = 0; i < len / 2; i++) {
			unsigned byte;
			if (sscanf(h + 2 * i, "%2x", &byte) != 1)
				return -1;
			m->value[i] = (uint8_t)byte;
		}
		m->value_len = (uint32_t)(len / 2);
	}
	return 0;
}

/* "hash 8 48 1 [flags] [value=HEX] [frozen]" ; "ringbuf 4096" */
static int parse_map(char *spec, struct case_map *m)
{
	char kind[32];
	unsigned a = 0, b = 0, c = 0;
	int f = 0, used = 0, used_f = 0;
	int n = sscanf(spec, "%31s %u %u %u%n", kind, &a, &b, &c, &used);

	memset(m, 0, sizeof(*m));
	if (n < 2)
		return -1;
	snprintf(m->kind, sizeof(m->kind), "%s", kind);
	for (size_t i = 0; i < sizeof(map_types) / sizeof(map_types[0]); i++)
		if (!strcmp(map_types[i].name, kind))
			m->type = map_types[i].type;
	if (!m->type)
		return -1;
	if (m->type == BPF_MAP_TYPE_RINGBUF) {
		if (n != 2)
			return -1;
		m->max_entries = a;
		return 0;
	}
	if (n < 4)
		return -1;
	m->key_size = a;
	m->value_size = b;
	m->max_entries = c;
	/* the flags are optional: value= and frozen may follow the numbers directly */
	if (sscanf(spec + used, " %i%n", &f, &used_f) == 1) {
		m->flags = (uint32_t)f;
		used += used_f;
	}
	if (parse_map_extra(spec + used, m))
		return -1;
	/* value= is written at key 0 (a u32): an array's first element only */
	if (m->value_len && m->type != BPF_MAP_TYPE_ARRAY)
		return -1;
	return 0;
}

static int parse_header(struct vcase *c, char *line, const char *file, int lineno, char *err,
			size_t err_size)
{
	char *colon = strchr(line, ':');
	char *key, *val;

	if (!colon) {
		set_err(err, err_size, "%s:%d: expected 'key: value'", file, lineno);
		return -1;
	}
	*colon = 0;
	key = trim(line);
	val = trim(colon + 1);
	if (!strcmp(key, "type")) {
		snprintf(c->type, sizeof(c->type), "%s", val);
	} else if (!strcmp(key, "license")) {
		snprintf(c->license, sizeof(c->license), "%s", val);
	} else if (!strcmp(key, "unpriv")) {
		c->unpriv = !strcmp(val, "yes");
	} else if (!strcmp(key, "flags")) {
		if (!strcmp(val, "test_state_freq"))
			c->state_freq = 1;
		else if (!strcmp(val, "test_reg_invariants"))
			c->reg_invariants = 1;
		else if (!strcmp(val, "sleepable"))
			c->sleepable = 1;
		else
			goto bad;
	} else if (!strcmp(key, "result")) {
		if (!strcmp(val, "accept"))
			c->accept = 1;
		else if (!strcmp(val, "reject"))
			c->accept = 0;
		else
			goto bad;
	} else if (!strcmp(key, "error")) {
		if (c->nr_errors == CASE_MAX_ERRORS)
			goto bad;
		snprintf(c->errors[c->nr_errors++], sizeof(c->errors[0]), "%s", val);
	} else if (!strcmp(key, "linux-error")) {
		if (c->nr_linux_errors == CASE_MAX_ERRORS)
			goto bad;
		snprintf(c->linux_errors[c->nr_linux_errors++], sizeof(c->linux_errors[0]), "%s", val);
	} else if (!strcmp(key, "retval")) {
		char *end;

		errno = 0;
		c->retval = strtoull(val, &end, 0);
		if (*val == '-')
			c->retval = (uint64_t)strtoll(val, &end, 0);
		if (errno || *end)
			goto bad;
		c->has_retval = 1;
	} else if (!strcmp(key, "linux")) {
		snprintf(c->linux_differs, sizeof(c->linux_differs), "%s", val);
	} else if (!strcmp(key, "funcs")) {
		snprintf(c->funcs, sizeof(c->funcs), "%s", val);
	} else if (!strcmp(key, "maps")) {
		char *save = NULL;

		for (char *tok = strtok_r(val, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
			if (c->nr_maps == CASE_MAX_MAPS || parse_map(trim(tok), &c->maps[c->nr_maps]))
				goto bad;
			c->nr_maps++;
		}
	} else {
		set_err(err, err_size, "%s:%d: unknown key '%s'", file, lineno, key);
		return -1;
	}
	return 0;
bad:
	set_err(err, err_size, "%s:%d: bad value for '%s': %s", file, lineno, key, val);
	return -1;
}

static int append_text(struct vcase *c, const char *line)
{
	size_t old = c->text ? strlen(c->text) : 0, add = strlen(line);
	char *t = realloc(c->text, old + add + 2);

	if (!t)
		return -1;
	memcpy(t + old, line, add);
	t[old + add] = '\n';
	t[old + add + 1] = 0;
	c->text = t;
	return 0;
}

static int finish(struct vcase *c, char *err, size_t err_size)
{
	if (c->accept < 0) {
		set_err(err, err_size, "%s:%d: case '%s' has no result", c->file, c->line, c->name);
		return -1;
	}
	if (!c->accept && !c->nr_errors) {
		set_err(err, err_size, "%s:%d: rejected case '%s' has no error", c->file, c->line,
			c->name);
		return -1;
	}
	if (!c->text) {
		set_err(err, err_size, "%s:%d: case '%s' has no program", c->file, c->line, c->name);
		return -1;
	}
	return 0;
}

int case_file_parse(const char *file, struct vcase **cases, size_t *nr, char *err, size_t err_size)
{
	FILE *f = fopen(file, "r");
	char buf[4096];
	struct vcase *c = NULL;
	int lineno = 0, in_body = 0, rc = -1;

	if (!f) {
		set_err(err, err_size, "%s: %s", file, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *line;

		lineno++;
		buf[strcspn(buf, "\n")] = 0;
		if (!strncmp(buf, "=== ", 4)) {
			struct vcase *n;

			if (c && finish(c, err, err_size))
				goto out;
			n = realloc(*cases, (*nr + 1) * sizeof(**cases));
			if (!n) {
				set_err(err, err_size, "out of memory");
				goto out;
			}
			*cases = n;
			c = &n[(*nr)++];
			memset(c, 0, sizeof(*c));
			c->accept = -1;
			c->line = lineno;
			snprintf(c->file, sizeof(c->file), "%s", file);
			snprintf(c->name, sizeof(c->name), "%s", trim(buf + 4));
			snprintf(c->type, sizeof(c->type), "socket_filter");
			snprintf(c->license, sizeof(c->license), "GPL");
			in_body = 0;
			continue;
		}
		if (!c)
			continue; /* the file's own comments before the first case */
		if (in_body) {
			if (append_text(c, buf)) {
				set_err(err, err_size, "out of memory");
				goto out;
			}
			continue;
		}
		line = trim(buf);
		if (!*line || *line == '#')
			continue;
		if (!strcmp(line, "---")) {
			in_body = 1;
			continue;
		}
		if (parse_header(c, line, file, lineno, err, err_size))
			goto out;
	}
	if (c && finish(c, err, err_size))
		goto out;
	rc = 0;
out:
	fclose(f);
	return rc;
}

void case_free_all(struct vcase *cases, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(cases[i].text);
	free(cases);
}

int case_log_matches(const struct vcase *c, const char *log, int live)
{
	const char(*errors)[256] = c->errors;
	int nr = c->nr_errors;
	const char *p = log;

	if (live && c->nr_linux_errors) {
		errors = c->linux_errors;
		nr = c->nr_linux_errors;
	}
	for (int i = 0; i < nr; i++) {
		const char *hit = strstr(p, errors[i]);

		if (!hit)
			return 0;
		p = hit + strlen(errors[i]);
	}
	return 1;
}
