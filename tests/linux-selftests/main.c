/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's verifier selftests on kbpf (README.md). The tests come from a shared object
 * built at test time from Linux's own verifier/NAME.c (gen-table.sh); each runs in a worker
 * process with a time limit, so a hang or a crash fails one case, not the run.
 *
 * usage: kbpf-linux-selftests --table TABLE.so [--expected FILE] [--changed FILE] [--write-expected FILE]
 *        [--report-md FILE] [--timeout SECONDS] [--only SUBSTRING] [--low-packet] [-v]
 * Prints one line per failing case, the skips by reason, and "N passed, N failed, N
 * skipped". With --expected, the exit status is a regression floor: 1 only if a case
 * listed there fails; newly passing cases are printed. */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <kbpf/linux.h>
#include "selftests.h"
#include "name_list.h"

#define LOG_SIZE (16u << 20) /* Linux's test_verifier log buffer */

const char *st_linux = "6.1";

/* Linux gives a test an unprivileged ("/u") run only for these types. */
static int runs_unpriv(const struct bpf_test *t)
{
	return t->prog_type == 0 || t->prog_type == BPF_PROG_TYPE_SOCKET_FILTER ||
	       t->prog_type == BPF_PROG_TYPE_CGROUP_SKB;
}

static void case_add(struct st_case *cases, size_t *nr, const struct bpf_test_file *f,
		     struct bpf_test *t, int unpriv)
{
	struct st_case *c = &cases[*nr];
	int dup = 1;

	c->file = f;
	c->test = t;
	c->unpriv = unpriv;
	snprintf(c->name, sizeof(c->name), "%s: %s /%c", f->name, t->descr ? t->descr : "?",
		 unpriv ? 'u' : 'p');
	/* a few descriptions repeat within a file: number the repeats */
	for (size_t i = 0; i < *nr; i++)
		if (cases[i].file == f && !strncmp(cases[i].name, c->name, strlen(c->name)))
			dup++;
	if (dup > 1) {
		char base[sizeof(c->name)];

		snprintf(base, sizeof(base), "%s", c->name);
		snprintf(c->name, sizeof(c->name), "%.300s #%d", base, dup);
	}
	(*nr)++;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000L + (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* The worker: run cases from first on, writing "index rc kind\twhy\n" for each. */
static void worker(struct kbpf_host *host, const struct st_case *cases, size_t nr, size_t first,
		   const char *only, char *log, int verbose, int fd)
{
	static struct st_outcome o;
	char line[1200];

	for (size_t i = first; i < nr; i++) {
		int n;

		memset(&o, 0, sizeof(o));
		o.rc = -2;
		if (!only || strstr(cases[i].name, only))
			st_case_run(host, &cases[i], log, LOG_SIZE, verbose, &o);
		for (char *p = o.why; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		fflush(stdout);
		fflush(stderr);
		n = snprintf(line, sizeof(line), "%zu %d %s\t%s\n", i, o.rc, o.kind, o.why);
		if (n >= (int)sizeof(line)) {
			line[sizeof(line) - 2] = '\n';
			n = sizeof(line) - 1;
		}
		if (write(fd, line, (size_t)n) != n)
			_exit(2);
	}
}

static void result_set(struct st_outcome *o, int rc, const char *kind, const char *why)
{
	o->rc = rc;
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	snprintf(o->why, sizeof(o->why), "%s", why);
}

/* CPU time (ms) the worker has used, or -1 if it cannot be read. */
static long cpu_ms(pid_t pid)
{
	clockid_t cid;
	struct timespec ts;

	if (clock_getcpuclockid(pid, &cid) || clock_gettime(cid, &ts))
		return -1;
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run every case in worker processes; a case that uses more than timeout_s of CPU time
 * (so a loaded machine does not fail a long case: the shared 2-core CI runs both suites'
 * scale.c tests), or 6 times that in wall time (a worker that sleeps), or kills its
 * worker fails, and a new worker goes on with the next. */
static int run_all(struct kbpf_host *host, const struct st_case *cases, size_t nr, const char *only,
		   char *log, int verbose, int timeout_s, struct st_outcome *res)
{
	size_t next = 0;

	while (next < nr) {
		static char buf[8192];
		size_t got = 0;
		int fds[2], status = 0;
		struct timespec t0;
		pid_t pid;

		fflush(stdout);
		fflush(stderr);
		if (pipe(fds))
			return -1;
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			close(fds[0]);
			worker(host, cases, nr, next, only, log, verbose, fds[1]);
			_exit(0);
		}
		close(fds[1]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		long cpu0 = cpu_ms(pid);
		for (;;) {
			struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
			long wall = ms_since(&t0), cpu = cpu_ms(pid);
			long used = cpu >= 0 && cpu0 >= 0 ? cpu - cpu0 : wall;
			char *nl, why[64];
			ssize_t n;

			if (used >= timeout_s * 1000L || wall >= 6 * timeout_s * 1000L) {
				kill(pid, SIGKILL);
				if (used >= timeout_s * 1000L)
					snprintf(why, sizeof(why), "timed out: %d s of CPU time", timeout_s);
				else
					snprintf(why, sizeof(why), "timed out: no result after %d s", 6 * timeout_s);
				result_set(&res[next++], ST_FAIL, "timeout", why);
				break;
			}
			if (poll(&pfd, 1, 250) <= 0)
				continue;
			n = read(fds[0], buf + got, sizeof(buf) - 1 - got);
			if (n <= 0) { /* the worker is gone: finished, or died in case next */
				waitpid(pid, &status, 0);
				pid = 0;
				if (next < nr) {
					snprintf(why, sizeof(why), WIFSIGNALED(status) ?
						 "crashed with signal %d" : "worker exited (%d)",
						 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
					result_set(&res[next++], ST_FAIL, "crash", why);
				}
				break;
			}
			got += (size_t)n;
			buf[got] = 0;
			while ((nl = strchr(buf, '\n'))) {
				size_t idx;
				int rc, off = 0;

				*nl = 0;
				if (sscanf(buf, "%zu %d %n", &idx, &rc, &off) >= 2 && idx == next) {
					char *tab = strchr(buf + off, '\t');

					if (tab)
						*tab++ = 0;
					result_set(&res[idx], rc, buf + off, tab ? tab : "");
					next++;
					clock_gettime(CLOCK_MONOTONIC, &t0); /* the limit is per case */
					cpu0 = cpu_ms(pid);
				}
				got -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, got + 1);
			}
		}
		close(fds[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}

static int expected_write(const char *path, const struct st_case *cases,
			  const struct st_outcome *res, size_t nr)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "# SPDX-License-Identifier: Apache-2.0\n");
	fprintf(f, "# Linux %s verifier selftests that pass on kbpf: the regression floor of\n"
		   "# linux.verifier_selftests%s (tests/linux-selftests/README.md). Regenerate with\n"
		   "# kbpf-linux-selftests --write-expected.\n", st_linux, ST_LINUX_612() ? "_612" : "");
	for (size_t i = 0; i < nr; i++)
		if (res[i].rc == ST_PASS)
			fprintf(f, "%s\n", cases[i].name);
	return fclose(f) ? -errno : 0;
}

/* Skip reasons, counted. */
struct reason {
	char text[160];
	int n;
};

int main(int argc, char **argv)
{
	const char *table = NULL, *expected = NULL, *write_exp = NULL, *report = NULL, *only = NULL;
	const char *changed_path = NULL;
	int verbose = 0, low_packet = 0, timeout_s = 10, passed = 0, failed = 0, skipped = 0, regressions = 0;
	int changed = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v"))
			verbose = 1;
		else if (!strcmp(a, "--low-packet"))
			low_packet = 1;
		else if (!strcmp(a, "--table") && v)
			table = argv[++i];
		else if (!strcmp(a, "--expected") && v)
			expected = argv[++i];
		else if (!strcmp(a, "--changed") && v)
			changed_path = argv[++i];
		else if (!strcmp(a, "--write-expected") && v)
			write_exp = argv[++i];
		else if (!strcmp(a, "--report-md") && v)
			report = argv[++i];
		else if (!strcmp(a, "--timeout") && v)
			timeout_s = atoi(argv[++i]);
		else if (!strcmp(a, "--only") && v)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: %s --table TABLE.so [--expected FILE] [--changed FILE] [--write-expected FILE] "
				"[--report-md FILE] [--timeout S] [--only SUBSTRING] [-v]\n", argv[0]);
			return 2;
		}
	}
	if (!table) {
		fprintf(stderr, "--table is required\n");
		return 2;
	}
	void *so = dlopen(table, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "cannot load %s: %s\n", table, dlerror());
		return 1;
	}
	struct bpf_test_file *files = dlsym(so, KBPF_SELFTEST_FILES_SYM);
	int *nr_files = dlsym(so, KBPF_SELFTEST_NR_FILES_SYM);
	if (!files || !nr_files) {
		fprintf(stderr, "%s: no test table\n", table);
		return 1;
	}
	const char *ver = dlsym(so, KBPF_SELFTEST_LINUX_SYM);
	if (ver)
		st_linux = ver;
	size_t total = 0, nr = 0;
	for (int f = 0; f < *nr_files; f++)
		total += 2 * (size_t)files[f].nr;
	struct st_case *cases = calloc(total ? total : 1, sizeof(*cases));
	struct st_outcome *res = calloc(total ? total : 1, sizeof(*res));
	char *log = malloc(LOG_SIZE);
	struct kbpf_host *host = kbpf_host_new();
	/* jiffies kept as Linux keeps them, so bpf_jiffies64 is inlined as by Linux's JIT
	 * (bpf_loop_inline.c checks the xlated program); without, the helper still works */
	if (kbpf_linux_jiffies_start())
		fprintf(stderr, "jiffies ticker not started: bpf_jiffies64 stays a helper call\n");
	if (!cases || !res || !log || !host || kbpf_linux_host_add(host)) {
		fprintf(stderr, "cannot set up a host with Linux's program types\n");
		return 1;
	}
#ifdef KBPF_SELFTEST_KFUNCS
	/* calls.c's kfunc cases name Linux's test kfuncs by BTF id (fixup_kfunc_btf_id): this
	 * executable links them and carries its own BTF; without it those cases are skipped. */
	{
		char err[256] = "";
		int ret = kbpf_host_btf_load_self(host);

		if (!ret)
			ret = kbpf_linux_host_add_test_kfuncs(host, err, sizeof(err));
		if (ret)
			fprintf(stderr, "test kfuncs not registered (%s): their cases are skipped\n",
				err[0] ? err : strerror(-ret));
	}
#endif
	/* Linux's order: a test's /u run, then its /p run */
	for (int f = 0; f < *nr_files; f++)
		for (int i = 0; i < files[f].nr; i++) {
			if (runs_unpriv(&files[f].tests[i]))
				case_add(cases, &nr, &files[f], &files[f].tests[i], 1);
			case_add(cases, &nr, &files[f], &files[f].tests[i], 0);
		}
	for (size_t i = 0; i < nr; i++)
		cases[i].low_packet = low_packet, cases[i].table = so;
	if (run_all(host, cases, nr, only, log, verbose, timeout_s, res)) {
		fprintf(stderr, "cannot run the cases: %s\n", strerror(errno));
		return 1;
	}

	size_t nr_exp = 0, nr_chg = 0;
	char **exp = expected ? name_list_read(expected, &nr_exp) : NULL;
	char **chg = changed_path ? name_list_read(changed_path, &nr_chg) : NULL;
	struct reason reasons[64] = { 0 };
	int nr_reasons = 0;

	int mode_n[2] = { 0 }, mode_pass[2] = { 0 }; /* [0] privileged, [1] unprivileged */

	for (size_t i = 0; i < nr; i++) {
		const struct st_outcome *o = &res[i];

		if (o->rc == -2)
			continue;
		mode_n[cases[i].unpriv]++;
		mode_pass[cases[i].unpriv] += o->rc == ST_PASS;
		bool listed = name_list_has(exp, nr_exp, cases[i].name);
		if (name_list_has(chg, nr_chg, cases[i].name)) {
			/* 6.12 decides this case otherwise and kbpf follows 6.12: it must no
			 * longer meet 6.1's expectation, or the list is stale */
			if (o->rc == ST_PASS) {
				regressions++;
				printf("UNCHANGED %s: listed in %s, but meets Linux 6.1's expectation\n",
				       cases[i].name, changed_path);
			} else {
				changed++;
				if (verbose)
					printf("CHANGED %s: [%s] %s\n", cases[i].name, o->kind, o->why);
			}
			continue;
		}
		if (o->rc == ST_PASS) {
			passed++;
			if (expected && !listed)
				printf("NEW PASS %s\n", cases[i].name);
			continue;
		}
		if (o->rc == ST_SKIP) {
			char text[160];
			int r;

			skipped++;
			/* map skips name the fixup: the reason is the text before the colon's detail */
			snprintf(text, sizeof(text), "%s", o->why);
			if (!strcmp(o->kind, "kfunc") || !strcmp(o->kind, "unsupported"))
				snprintf(text, sizeof(text), "%s",
					 !strcmp(o->kind, "kfunc") ? "calls Linux's test kfuncs: not registered"
								    : o->why);
			for (r = 0; r < nr_reasons && strcmp(reasons[r].text, text); r++)
				;
			if (r == nr_reasons && nr_reasons < 64)
				snprintf(reasons[nr_reasons++].text, sizeof(reasons[0].text), "%s", text);
			if (r < 64)
				reasons[r].n++;
			if (verbose)
				printf("SKIP %s: %s\n", cases[i].name, o->why);
		} else {
			failed++;
			printf("FAIL %s: [%s] %s\n", cases[i].name, o->kind, o->why);
		}
		if (listed) {
			regressions++;
			printf("REGRESSION %s: listed in %s, now %s\n", cases[i].name, expected,
			       o->rc == ST_SKIP ? "skipped" : "failing");
		}
	}
	if (skipped) {
		printf("skipped, by reason:\n");
		for (int r = 0; r < nr_reasons; r++)
			printf("  %4d  %s\n", reasons[r].n, reasons[r].text);
	}
	if (report && st_report_md(report, cases, res, nr))
		fprintf(stderr, "cannot write %s\n", report);
	if (write_exp && expected_write(write_exp, cases, res, nr))
		fprintf(stderr, "cannot write %s\n", write_exp);
	if (changed_path)
		printf("%d decided as Linux 6.12 decides, not as 6.1 (%s)\n", changed, changed_path);
	for (int u = 0; u < 2; u++)
		if (mode_n[u])
			printf("%s: %d of %d cases pass (%.1f%%)\n", u ? "unprivileged" : "privileged", mode_pass[u],
			       mode_n[u], 100.0 * mode_pass[u] / mode_n[u]);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	if (expected)
		printf("regression floor %s: %zu listed, %d regressed\n", expected, nr_exp, regressions);
	name_list_free(exp, nr_exp);
	name_list_free(chg, nr_chg);
	free(cases);
	free(res);
	free(log);
	kbpf_host_free(host);
	/* the table stays loaded: cases point into it until exit */
	if (expected)
		return regressions ? 1 : 0;
	return failed ? 1 : 0;
}
