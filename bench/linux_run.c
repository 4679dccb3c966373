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

void bench_linux_run(const struct bpf_insn *insns, size_t cnt, double min_round_ns, unsigned rounds,
		     unsigned fixed_repeat, struct bench_result *res)
{
	char log[160] = "";
	double d[64];
	uint32_t ret = 0, dur = 0;
	unsigned repeat = fixed_repeat ? fixed_repeat : 1, n = 0;
	int fd, err;

	memset(res, 0, sizeof(*res));
	fd = prog_load(insns, cnt, log, sizeof(log));
	if (fd < 0) {
		snprintf(res->why, sizeof(res->why), "load: %s%s%s", strerror(-fd), *log ? ": " : "", log);
		return;
	}
	/* The kernel reports a whole-ns average per run (u32), so calibrate the repeat
	 * count by wall time across the syscall, like the other engines. */
	while (!fixed_repeat) {
		double t0 = bench_now_ns(), t;

		err = test_run(fd, repeat, &ret, &dur);
		if (err)
			goto fail;
		t = bench_now_ns() - t0;
		if (t >= min_round_ns || repeat >= (1u << 30))
			break;
		repeat *= 2;
	}
	if (rounds > 64)
		rounds = 64;
	for (n = 0; n < rounds; n++) {
		err = test_run(fd, repeat, &ret, &dur);
		if (err)
			goto fail;
		d[n] = dur;
	}
	close(fd);
	qsort(d, n, sizeof(d[0]), cmp_double);
	res->retval = ret;
	res->ns_per_run = d[0];
	res->ns_median = d[n / 2];
	res->ok = 1;
	return;
fail:
	close(fd);
	snprintf(res->why, sizeof(res->why), "BPF_PROG_TEST_RUN: %s", strerror(-err));
}
