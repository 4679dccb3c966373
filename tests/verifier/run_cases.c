/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier cases on kbpf: each case is assembled, its maps created with kbpf's map
 * API, and the program verified with kbpf_prog_verify as the case's program type on a
 * host with Linux's program types (kbpf_linux_host_add).  The verdict must match and a
 * rejection's log must contain the case's message substrings in order.  An accepted case
 * with a retval is then run in checked mode, where every load and store is checked: a
 * verified program must never fault.
 *
 * The cases run in a worker process with a time limit per case, so a verifier that
 * loops or crashes on one case fails that case and not the whole run.
 *
 * usage: kbpf-verifier-cases [-v] [--timeout SECONDS] [--only NAME] FILE.case...
 * Prints one line per failing case and "N passed, N failed, N skipped". */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <kbpf/isa.h>
#include <kbpf/linux.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "case.h"
#include "funcs.h"

#define LOG_SIZE (1u << 20)

static int maps_create(const struct vcase *c, struct kbpf_map **maps, char *why, size_t why_size)
{
	for (int i = 0; i < c->nr_maps; i++) {
		struct kbpf_map_def def = {
			.sz = sizeof(def),
			.type = c->maps[i].type,
			.key_size = c->maps[i].key_size,
			.value_size = c->maps[i].value_size,
			.max_entries = c->maps[i].max_entries,
			.map_flags = c->maps[i].flags,
		};
		int err = kbpf_map_create(&def, &maps[i]);

		if (!err && c->maps[i].value_len) {
			uint8_t *v = calloc(1, c->maps[i].value_size);
			uint32_t key = 0;
			err = v ? 0 : -ENOMEM;
			if (v) {
				memcpy(v, c->maps[i].value, c->maps[i].value_len);
				err = kbpf_map_update(maps[i], &key, v, BPF_ANY);
				free(v);
			}
		}
		if (!err && c->maps[i].frozen)
			err = kbpf_map_freeze(maps[i]);
		if (err) {
			snprintf(why, why_size, "map %d (%s): %s", i, c->maps[i].kind, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The run-time context of a program type, as Linux's BPF_PROG_TEST_RUN builds it: a
 * 64-byte zeroed packet for the networking types (struct kbpf_linux_skb / _xdp), else a
 * zeroed context of the type's size. */
struct run_ctx {
	void *ctx;
	size_t ctx_size;
	uint8_t *buf;
	size_t buf_size;
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
};

#define RUN_PACKET_LEN 64

static int run_ctx_init(struct run_ctx *rc, const char *type, const struct kbpf_prog_type *pt)
{
	memset(rc, 0, sizeof(*rc));
	if (!strcmp(type, "xdp")) {
		rc->buf_size = KBPF_LINUX_XDP_HEADROOM + RUN_PACKET_LEN;
		rc->buf = calloc(1, rc->buf_size);
		if (!rc->buf || kbpf_linux_xdp_init(&rc->xdp, rc->buf, rc->buf_size,
						    KBPF_LINUX_XDP_HEADROOM, RUN_PACKET_LEN))
			return -1;
		rc->ctx = &rc->xdp;
		rc->ctx_size = sizeof(rc->xdp);
		return 0;
	}
	/* every type whose run-time context is an skb (lwt_*, sk_skb too) */
	if (pt && pt->kern_ctx_btf_name && !strcmp(pt->kern_ctx_btf_name, "kbpf_linux_skb")) {
		rc->buf_size = RUN_PACKET_LEN + 64;
		rc->buf = calloc(1, rc->buf_size);
		if (!rc->buf || kbpf_linux_skb_init(&rc->skb, rc->buf, rc->buf_size, 32, RUN_PACKET_LEN))
			return -1;
		rc->ctx = &rc->skb;
		rc->ctx_size = sizeof(rc->skb);
		return 0;
	}
	rc->ctx_size = pt && pt->ctx_size ? pt->ctx_size : 256;
	rc->ctx = calloc(1, rc->ctx_size);
	return rc->ctx ? 0 : -1;
}

static void run_ctx_free(struct run_ctx *rc)
{
	if (rc->ctx != &rc->skb && rc->ctx != &rc->xdp)
		free(rc->ctx);
	free(rc->buf);
}

/* Run an accepted program as kbpf_prog_create makes it for its type (verified again,
 * with the verifier's rewrites: may_goto's counter, division guards, bpf_loop inlined)
 * once on each engine: in checked mode, where every load and store is checked against
 * the stack, the context and the packet, so a verified program must run clean; then on
 * the fast interpreter and the JIT, which must return the same value. */
static int run_engine(struct kbpf_host *host, const struct vcase *c, const struct bpf_insn *insns, size_t cnt,
		      struct kbpf_map *const *maps, const struct case_funcs *funcs, int engine, char *why,
		      size_t why_size);

static int run_checked(struct kbpf_host *host, const struct vcase *c, const struct bpf_insn *insns,
		       size_t cnt, struct kbpf_map *const *maps, const struct case_funcs *funcs, char *why,
		       size_t why_size)
{
	static const char *const names[] = { "checked run", "interpreter", "JIT" };
	for (int e = 0; e < 3; e++) {
		char one[512] = "";
		int ret = run_engine(host, c, insns, cnt, maps, funcs, e, one, sizeof(one));
		if (ret) {
			snprintf(why, why_size, "%s: %s", names[e], one);
			return ret;
		}
	}
	return 0;
}

static int run_engine(struct kbpf_host *host, const struct vcase *c, const struct bpf_insn *insns, size_t cnt,
		      struct kbpf_map *const *maps, const struct case_funcs *funcs, int engine, char *why,
		      size_t why_size)
{
	const struct kbpf_prog_type *pt = kbpf_host_prog_type_find(host, c->type);
	char log[512] = "", err[512] = "";
	struct kbpf_prog_opts popts = {
		.sz = sizeof(popts), .host = host, .name = c->name, .log_buf = log, .log_size = sizeof(log),
		.maps = maps, .nr_maps = (size_t)c->nr_maps, .jit = engine == 2, .prog_type = c->type,
		.license = c->license, .unprivileged = c->unpriv, .prog_btf = funcs->btf,
		.func_info = funcs->info, .nr_func_info = (uint32_t)funcs->nr,
		.prog_flags = c->state_freq ? BPF_F_TEST_STATE_FREQ : 0,
	};
	struct kbpf_prog *prog = NULL;
	struct run_ctx rc;
	struct kbpf_mem_region regions[2];
	struct kbpf_run_opts ropts = {
		.sz = sizeof(ropts), .flags = engine == 0 ? KBPF_RUN_CHECKED : 0, .regions = regions,
		.max_insns = 100000000, .err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rres = { .sz = sizeof(rres) };
	int ret = -1;

	if (run_ctx_init(&rc, c->type, pt)) {
		snprintf(why, why_size, "cannot set up the context");
		goto out;
	}
	regions[ropts.nr_regions++] = (struct kbpf_mem_region){ rc.ctx, rc.ctx_size,
		KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	if (rc.buf)
		regions[ropts.nr_regions++] = (struct kbpf_mem_region){ rc.buf, rc.buf_size,
			KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" };
	ropts.args[0] = (uint64_t)(uintptr_t)rc.ctx;
	if (kbpf_prog_create(insns, cnt, &popts, &prog)) {
		snprintf(why, why_size, "kbpf_prog_create: %.400s", log);
		goto out;
	}
	if (kbpf_prog_run_opts(prog, &ropts, &rres)) {
		snprintf(why, why_size, "checked run stopped at insn %lld: %.400s",
			 (long long)rres.fault_insn, err);
		goto out;
	}
	/* Linux's test_run reports a u32 */
	if ((uint32_t)rres.retval != (uint32_t)c->retval) {
		snprintf(why, why_size, "returned %llu, expected %llu",
			 (unsigned long long)rres.retval, (unsigned long long)c->retval);
		goto out;
	}
	ret = 0;
out:
	kbpf_prog_free(prog);
	run_ctx_free(&rc);
	return ret;
}

/* Returns 1 pass, 0 fail, -1 skip. */
static int run_case(struct kbpf_host *host, const struct vcase *c, char *log, int verbose,
		    char *why, size_t why_size)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	struct kbpf_map *maps[CASE_MAX_MAPS] = { 0 };
	struct case_funcs funcs = { 0 };
	char err[256];
	int rc, result = 0;

	why[0] = 0;
	if (!kbpf_host_prog_type_find(host, c->type)) {
		snprintf(why, why_size, "program type %s not provided", c->type);
		return -1;
	}
	if (kbpf_asm(c->text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err))) {
		snprintf(why, why_size, "assembler: %s", err);
		return 0;
	}
	if (maps_create(c, maps, why, why_size))
		goto out;

	struct kbpf_verify_opts opts = {
		.sz = sizeof(opts),
		.host = host,
		.prog_type = c->type,
		.maps = maps,
		.nr_maps = (size_t)c->nr_maps,
		.license = c->license,
		.unprivileged = c->unpriv,
		.log_level = getenv("CASE_LOG2") ? KBPF_LOG_LEVEL2 : KBPF_LOG_LEVEL1,
		.log_buf = log,
		.log_size = LOG_SIZE,
		.prog_name = c->name,
		/* Linux's BPF_F_TEST_STATE_FREQ: a checkpoint at every prune point */
		.test_state_freq = c->state_freq || getenv("CASE_STATE_FREQ") != NULL,
		.prog_flags = (c->reg_invariants ? BPF_F_TEST_REG_INVARIANTS : 0) | (c->sleepable ? BPF_F_SLEEPABLE : 0),
	};
	if (c->funcs[0]) {
		/* BTF func_info: global functions and callbacks */
		const struct kbpf_prog_type *pt = kbpf_host_prog_type_find(host, c->type);
		if (case_funcs_build(c->funcs, pt->ctx_btf_name, insns, cnt, &funcs, why, why_size))
			goto out;
		opts.prog_btf = funcs.btf;
		opts.func_info = funcs.info;
		opts.nr_func_info = funcs.nr;
	}
	log[0] = 0;
	rc = kbpf_prog_verify(insns, cnt, &opts, NULL);
	if (c->accept) {
		if (rc) {
			const char *tail = strlen(log) > 300 ? log + strlen(log) - 300 : log;

			snprintf(why, why_size, "rejected (%s): %.300s", strerror(-rc), tail);
		} else if (c->has_retval) {
			result = run_checked(host, c, insns, cnt, maps, &funcs, why, why_size) == 0;
		} else {
			result = 1;
		}
	} else if (!rc) {
		snprintf(why, why_size, "accepted, expected reject with \"%.200s\"", c->errors[0]);
	} else if (!case_log_matches(c, log, 0)) {
		const char *tail = strlen(log) > 300 ? log + strlen(log) - 300 : log;

		snprintf(why, why_size, "expected \"%.200s\" in the log, got: %.300s", c->errors[0], tail);
		if (verbose)
			fprintf(stderr, "---- log of %s:\n%s----\n", c->name, log);
	} else {
		result = 1;
	}
out:
	for (int i = 0; i < c->nr_maps; i++)
		kbpf_map_free(maps[i]);
	case_funcs_free(&funcs);
	free(insns);
	return result;
}

/* A result of one case, as the worker process reports it. */
struct case_result {
	int rc; /* 1 pass, 0 fail, -1 skip */
	char why[1024];
};

/* The worker: run cases from first on, writing "index rc why\n" for each. */
static void worker(struct kbpf_host *host, const struct vcase *cases, size_t nr, size_t first,
		   const char *only, char *log, int verbose, int fd)
{
	char why[1024], line[1200];

	for (size_t i = first; i < nr; i++) {
		int rc = -2, n;

		why[0] = 0;
		if (!only || !strcmp(only, cases[i].name))
			rc = run_case(host, &cases[i], log, verbose, why, sizeof(why));
		for (char *p = why; *p; p++)
			if (*p == '\n')
				*p = ' ';
		fflush(stdout);
		fflush(stderr);
		n = snprintf(line, sizeof(line), "%zu %d %s\n", i, rc, why);
		if (n >= (int)sizeof(line)) {
			line[sizeof(line) - 2] = '\n';
			n = sizeof(line) - 1;
		}
		if (write(fd, line, (size_t)n) != n)
			_exit(2);
	}
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000L + (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* Run every case in worker processes: one worker runs them in turn; a case that takes
 * longer than timeout_s or kills its worker fails, and a new worker takes the rest. */
static int run_all(struct kbpf_host *host, const struct vcase *cases, size_t nr, const char *only,
		   char *log, int verbose, int timeout_s, struct case_result *res)
{
	size_t next = 0;

	while (next < nr) {
		char buf[4096];
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
		for (;;) {
			struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
			long left = timeout_s * 1000L - ms_since(&t0);
			ssize_t n;
			char *nl;

			if (left <= 0) {
				kill(pid, SIGKILL);
				res[next].rc = 0;
				snprintf(res[next].why, sizeof(res[next].why), "timed out after %d s",
					 timeout_s);
				next++;
				break;
			}
			if (poll(&pfd, 1, (int)left) <= 0)
				continue;
			n = read(fds[0], buf + got, sizeof(buf) - 1 - got);
			if (n <= 0) { /* the worker is gone: finished, or died in case next */
				waitpid(pid, &status, 0);
				pid = 0;
				if (next < nr) {
					res[next].rc = 0;
					if (WIFSIGNALED(status))
						snprintf(res[next].why, sizeof(res[next].why),
							 "crashed with signal %d", WTERMSIG(status));
					else
						snprintf(res[next].why, sizeof(res[next].why),
							 "the worker exited (%d) without a result",
							 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
					next++;
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
					res[idx].rc = rc;
					snprintf(res[idx].why, sizeof(res[idx].why), "%s", buf + off);
					next++;
					clock_gettime(CLOCK_MONOTONIC, &t0); /* the limit is per case */
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

int main(int argc, char **argv)
{
	struct vcase *cases = NULL;
	size_t nr = 0;
	char err[512];
	const char *only = NULL;
	int verbose = 0, passed = 0, failed = 0, skipped = 0, timeout_s = 20;
	struct kbpf_host *host;
	struct case_result *res;
	char *log;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout_s = atoi(argv[++i]);
		} else if (case_file_parse(argv[i], &cases, &nr, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
	}
	host = kbpf_host_new();
	log = malloc(LOG_SIZE);
	if (!host || !log || kbpf_linux_host_add(host)) {
		fprintf(stderr, "cannot set up a host with Linux's program types\n");
		return 1;
	}
	res = calloc(nr ? nr : 1, sizeof(*res));
	if (!res || run_all(host, cases, nr, only, log, verbose, timeout_s, res)) {
		fprintf(stderr, "cannot run the cases: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct vcase *c = &cases[i];

		if (res[i].rc == -2)
			continue; /* not selected by --only */
		if (res[i].rc > 0) {
			passed++;
		} else if (res[i].rc < 0) {
			skipped++;
			if (verbose)
				printf("SKIP %s:%d %s: %s\n", c->file, c->line, c->name, res[i].why);
		} else {
			failed++;
			printf("FAIL %s:%d %s: %s\n", c->file, c->line, c->name, res[i].why);
		}
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	free(res);
	free(log);
	kbpf_host_free(host);
	case_free_all(cases, nr);
	return failed ? 1 : 0;
}
