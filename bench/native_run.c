/* SPDX-License-Identifier: Apache-2.0 */
/* Runs the natively compiled benchmark programs (native_<prog>, native_clang_<prog>)
 * as child processes: each is its own binary so that the compiler sees exactly one
 * program per translation unit, as it does when compiling for BPF. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_time_ns(enum bench_clock clock)
{
	struct timespec ts;

	clock_gettime(clock == BENCH_CLOCK_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Parse the child's output: one "RUN retval=0x.. repeat=.. duration_ns=.." per round. */
static void parse_runs(const char *out, struct bench_result *res)
{
	double d[64];
	unsigned n = 0;
	const char *p = out;

	while ((p = strstr(p, "RUN ")) != NULL && n < 64) {
		unsigned ret, repeat;
		double ns;

		if (sscanf(p, "RUN retval=%x repeat=%u duration_ns=%lf", &ret, &repeat, &ns) == 3) {
			res->retval = ret;
			d[n++] = ns;
		}
		p += 4;
	}
	if (!n) {
		snprintf(res->why, sizeof(res->why), "no RUN line in its output");
		return;
	}
	qsort(d, n, sizeof(d[0]), cmp_double);
	res->ns_per_run = d[0];
	res->ns_median = d[n / 2];
	res->ok = 1;
}

void bench_native_run(const char *path, unsigned repeat, unsigned rounds, enum bench_clock clock,
		      struct bench_result *res)
{
	char arg_repeat[16], arg_rounds[16];
	char out[8192];
	size_t len = 0;
	int pfd[2], status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (access(path, X_OK)) {
		snprintf(res->why, sizeof(res->why), "%s: %s", path, strerror(errno));
		return;
	}
	snprintf(arg_repeat, sizeof(arg_repeat), "%u", repeat);
	snprintf(arg_rounds, sizeof(arg_rounds), "%u", rounds);
	if (pipe(pfd)) {
		snprintf(res->why, sizeof(res->why), "pipe: %s", strerror(errno));
		return;
	}
	/* Our own stdout may be a buffered pipe (run.sh): flush it so the child's
	 * inherited copy does not print it twice. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(res->why, sizeof(res->why), "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		char *argv[] = { (char *)path, arg_repeat, arg_rounds,
				 (char *)(clock == BENCH_CLOCK_CPU ? "cpu" : "wall"), NULL };

		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(path, argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], out + len, sizeof(out) - 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == sizeof(out) - 1)
			break;
	}
	out[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(res->why, sizeof(res->why), "%s exited abnormally (status 0x%x)", path, status);
		return;
	}
	parse_runs(out, res);
}
