/* SPDX-License-Identifier: Apache-2.0 */
/* Program types as users name them in --type: a host type's own name ("sched_cls",
 * "cgroup/connect4", "checkout"), or any SEC() name libbpf knows ("tc", "classifier",
 * "socket", "tp/sched/x", "raw_tp", "fentry/FUNC", "cgroup/skb", "xdp.frags" …), and the
 * list `kbpf verify --type help` prints. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/object.h>
#include "cli.h"

struct by_linux {
	uint32_t linux_type;
	const char *want, *found;
};

static void find_by_linux(const struct kbpf_prog_type *t, void *arg)
{
	struct by_linux *q = arg;

	/* only the host type of libbpf's name for it: where the host has one type per
	 * attach type ("cgroup/connect4"), a section of another attach type has none */
	if (t->linux_type == q->linux_type && q->want && !strcmp(t->name, q->want))
		q->found = t->name;
}

const char *cli_resolve_prog_type(const struct kbpf_host *host, const char *name, char *buf, size_t size,
				  const char **attach)
{
	const struct kbpf_prog_type *t;
	const char *slash;

	if (attach)
		*attach = NULL;
	if (!name)
		return NULL;
	if (name[0] == '?')
		name++;
	if ((t = kbpf_host_prog_type_find(host, name)))
		return t->name;
	/* "fentry/FUNC", "fexit.s/FUNC", "lsm/HOOK", "iter/NAME": the host type of the
	 * prefix (without the sleepable ".s"), the rest the attach target */
	slash = strchr(name, '/');
	size_t plen = slash ? (size_t)(slash - name) : strlen(name);
	if (plen > 2 && !strncmp(name + plen - 2, ".s", 2))
		plen -= 2;
	snprintf(buf, size, "%.*s", (int)plen, name);
	if ((slash || plen != strlen(name)) && (t = kbpf_host_prog_type_find(host, buf))) {
		/* fentry/fexit/fmod_ret name the host function they attach to */
		if (attach && slash && slash[1] && (!strcmp(buf, "fentry") || !strcmp(buf, "fexit") ||
						    !strcmp(buf, "fmod_ret")))
			*attach = slash + 1;
		return t->name;
	}
	/* libbpf's table: the Linux type, then the host type of libbpf's name for it
	 * ("sched_cls" for "tc", "socket_filter" for "socket") */
	uint32_t linux_type = kbpf_section_prog_type(name);
	/* tracing and lsm sections name their host type by prefix (above): tp_btf,
	 * lsm_cgroup, freplace have none of their own here */
	if (!linux_type || linux_type == BPF_PROG_TYPE_TRACING || linux_type == BPF_PROG_TYPE_LSM)
		return NULL;
	struct by_linux q = { linux_type, cli_prog_type_name(linux_type), NULL };
	if (linux_type == BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE)
		q.want = "raw_tracepoint.w";
	kbpf_host_prog_type_foreach(host, find_by_linux, &q);
	if (!q.found)
		return NULL;
	snprintf(buf, size, "%s", q.found);
	return buf;
}

struct type_list {
	const struct kbpf_host *host;
};

static void list_one(const struct kbpf_prog_type *t, void *arg)
{
	struct type_list *l = arg;
	char buf[128];
	const char *sep = "";
	bool first = true;
	int col = 0;

	col = printf("%s", t->name);
	/* the SEC() names that mean this type */
	for (size_t i = 0;; i++) {
		uint32_t lt;
		const char *pat = kbpf_section_pattern(i, &lt), *got;
		char name[64];
		if (!pat)
			break;
		size_t len = strlen(pat);
		snprintf(name, sizeof(name), "%.*s", (int)(pat[len - 1] == '+' ? len - 1 : len), pat);
		got = cli_resolve_prog_type(l->host, name, buf, sizeof(buf), NULL);
		if (!got || strcmp(got, t->name) || !strcmp(name, t->name))
			continue;
		if (col > 70) {
			printf(",\n%-22s", "");
			col = 22;
			sep = "";
		}
		if (first) /* the first: in the second column */
			col += printf("%*s", col < 22 ? 22 - col : 1, "");
		first = false;
		col += printf("%s%s%s", sep, name, pat[len - 1] == '+' ? "[/…]" : "");
		sep = ", ";
	}
	putchar('\n');
}

void cli_list_prog_types(const struct kbpf_host *host)
{
	struct type_list l = { host };

	printf("%-21s %s\n", "TYPE", "ALSO NAMED (libbpf's SEC() names; [/…]: optionally followed by /target)");
	kbpf_host_prog_type_foreach(host, list_one, &l);
}
