/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's own engine as a yardstick: the same raw instructions loaded through the bpf()
 * syscall as a socket filter and timed with BPF_PROG_TEST_RUN.  The raw syscall is used
 * (not libbpf) because the programs are bare instruction arrays with no relocations,
 * maps or BTF: there is nothing for a loader library to do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Returns an fd, or -errno.  On failure, log (if given) receives the verifier's last
 * log line, since that is the line that names the reason. */
static int prog_load(const struct bpf_insn *insns, size_t cnt, char *log, size_t log_size)
{
	static const char license[] = "GPL"; /* helper #42 is allowed to any license; be safe */
	union bpf_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = (uint32_t)cnt;
	attr.license = (uint64_t)(uintptr_t)license;
	fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd >= 0)
		return fd;
	err = -errno;
	if (log && log_size && err != -EPERM && err != -ENOSYS) {
		/* Load again with a verifier log just to explain the failure. */
		size_t big = 1u << 20;
		char *buf = calloc(1, big);

		if (buf) {
			char *end, *line;

			attr.log_level = 1;
			attr.log_buf = (uint64_t)(uintptr_t)buf;
			attr.log_size = (uint32_t)big;
			fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
			if (fd >= 0)
				close(fd); /* loaded with a log but not without: report the first error */
			end = buf + strlen(buf);
			while (end > buf && end[-1] == '\n')
				*--end = '\0';
			line = strrchr(buf, '\n');
			snprintf(log, log_size, "%s", line ? line + 1 : buf);
			free(buf);
		}
	}
	return err;
}

/* One BPF_PROG_TEST_RUN: returns 0 with the average ns per run, or -errno. */
static int test_run(int fd, unsigned repeat, uint32_t *retval, uint32_t *duration)
{
	/* A socket filter's test run wants at least an Ethernet header of packet data;
	 * 64 bytes mirrors the 64-byte ctx the other engines get.  The programs ignore it. */
	static unsigned char pkt[64];
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = (uint32_t)fd;
	attr.test.data_in = (uint64_t)(uintptr_t)pkt;
	attr.test.data_size_in = sizeof(pkt);
	attr.test.repeat = repeat;
	if (sys_bpf(BPF_PROG_TEST_RUN, &attr))
		return -errno;
	*retval = attr.test.retval;
	*duration = attr.test.duration;
	return 0;
}

int bench_linux_probe(char *why, size_t why_size)
{
	const struct bpf_insn prog[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	uint32_t ret, dur;
	int fd, err;

	fd = prog_load(prog, 2, NULL, 0);
	if (fd < 0) {
		snprintf(why, why_size, "Linux bpf(): %s%s — skipped", fd == -EPERM ? "EPERM: " : "",
			 strerror(-fd));
		return fd;
	}
	err = test_run(fd, 1, &ret, &dur);
	close(fd);
	if (err) {
		snprintf(why, why_size, "Linux bpf(BPF_PROG_TEST_RUN): %s — skipped", strerror(-err));
		return err;
	}
	return 0;
}

int bench_linux_jit_enabled(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v < 0 ? -1 : v > 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int bench_linux_open(struct bench_linux_prog *lp, const struct bpf_insn *insns, size_t cnt, unsigned loads,
		     double min_round_ns, unsigned fixed_repeat, enum bench_clock clock)
{
	char log[160] = "";
	uint32_t dur;
	int err;

	memset(lp, 0, sizeof(*lp));
	lp->clock = clock;
	if (loads < 1)
		loads = 1;
	if (loads > BENCH_LINUX_MAX_LOADS)
		loads = BENCH_LINUX_MAX_LOADS;
	for (; lp->loads < loads; lp->loads++) {
		int fd = prog_load(insns, cnt, log, sizeof(log));

		if (fd < 0) {
			snprintf(lp->why, sizeof(lp->why), "load: %s%s%s", strerror(-fd), *log ? ": " : "", log);
			bench_linux_close(lp);
			return fd;
		}
		lp->fd[lp->loads] = fd;
	}
	/* Calibrate the repeat count on the first load, in the clock the rounds use. */
	lp->repeat = fixed_repeat ? fixed_repeat : 1;
	while (!fixed_repeat) {
		double t0 = bench_time_ns(clock), t;

		err = test_run(lp->fd[0], lp->repeat, &lp->retval, &dur);
		if (err) {
			snprintf(lp->why, sizeof(lp->why), "BPF_PROG_TEST_RUN: %s", strerror(-err));
			bench_linux_close(lp);
			return err;
		}
		t = bench_time_ns(clock) - t0;
		if (t >= min_round_ns || lp->repeat >= (1u << 30))
			break;
		lp->repeat *= 2;
	}
	return 0;
}

int bench_linux_round(struct bench_linux_prog *lp)
{
	uint32_t dur = 0;
	double t0, t;
	int err;

	if (!lp->loads || lp->n >= BENCH_LINUX_MAX_ROUNDS)
		return -EINVAL;
	t0 = bench_time_ns(lp->clock);
	err = test_run(lp->fd[lp->n % lp->loads], lp->repeat, &lp->retval, &dur);
	t = bench_time_ns(lp->clock) - t0;
	if (err) {
		snprintf(lp->why, sizeof(lp->why), "BPF_PROG_TEST_RUN: %s", strerror(-err));
		return err;
	}
	/* the same clock as every other column, around the whole syscall */
	lp->ns[lp->n] = t / lp->repeat;
	lp->duration[lp->n] = dur;
	lp->n++;
	return 0;
}

void bench_linux_close(struct bench_linux_prog *lp)
{
	for (unsigned k = 0; k < lp->loads; k++)
		close(lp->fd[k]);
	lp->loads = 0;
}

void bench_linux_result(struct bench_linux_prog *lp, struct bench_result *res)
{
	double d[BENCH_LINUX_MAX_ROUNDS];

	memset(res, 0, sizeof(*res));
	if (!lp->n) {
		snprintf(res->why, sizeof(res->why), "%s", lp->why[0] ? lp->why : "not run");
		return;
	}
	memcpy(d, lp->ns, lp->n * sizeof(d[0]));
	qsort(d, lp->n, sizeof(d[0]), cmp_double);
	res->retval = lp->retval;
	res->ns_per_run = d[0];
	res->ns_median = d[lp->n / 2];
	res->ok = 1;
	memcpy(d, lp->duration, lp->n * sizeof(d[0]));
	qsort(d, lp->n, sizeof(d[0]), cmp_double);
	lp->best_duration = d[0];
}
