/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-verify: verification speed. For every program of the BPF objects given
 * (bench/programs, tests/bpf), kbpf's verifier time (mean of N runs)
 * and processed-insn count; where the bpf() syscall works (root), the same
 * instructions loaded into Linux at log level 4 with Linux's "verification time" and
 * "processed" figures beside ours. Maps are created in Linux with the same shape and the
 * LDDW map references patched to their fds. A benchmark, never a test. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>

#define MAX_MAPS 64

struct lookup {
	uint32_t linux_type;
	const char *name;
};

static void find_type(const struct kbpf_prog_type *t, void *arg)
{
	struct lookup *l = arg;
	if (!l->name && t->linux_type == l->linux_type)
		l->name = t->name;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Linux's verification of insns; returns 0 and the figures, or -errno. */
static int linux_verify(const struct bpf_insn *in, size_t cnt, uint32_t type, struct kbpf_map *const *maps,
			size_t nr_maps, const char *license, long *usec, long *processed, char *err, size_t err_size)
{
	int fds[MAX_MAPS], ret = 0;
	size_t n = 0;
	struct bpf_insn *insns = malloc(cnt * sizeof(*insns));
	char *log = calloc(1, 1 << 20);
	if (!insns || !log) {
		free(insns);
		free(log);
		return -ENOMEM;
	}
	memcpy(insns, in, cnt * sizeof(*insns));
	for (; n < nr_maps && n < MAX_MAPS; n++) {
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		a.map_type = kbpf_map_type(maps[n]);
		a.key_size = kbpf_map_key_size(maps[n]);
		a.value_size = kbpf_map_value_size(maps[n]);
		a.max_entries = kbpf_map_max_entries(maps[n]);
		a.map_flags = kbpf_map_flags(maps[n]) & ~(BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
		fds[n] = (int)sys_bpf(BPF_MAP_CREATE, &a);
		if (fds[n] < 0) {
			ret = -errno;
			snprintf(err, err_size, "map #%zu: %s", n, strerror(errno));
			goto out;
		}
	}
	for (size_t i = 0; i + 1 < cnt; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		uint8_t src = insns[i].src_reg;
		if ((src == BPF_PSEUDO_MAP_IDX || src == BPF_PSEUDO_MAP_FD) && (size_t)insns[i].imm < n) {
			insns[i].src_reg = BPF_PSEUDO_MAP_FD;
			insns[i].imm = fds[insns[i].imm];
		} else if ((src == BPF_PSEUDO_MAP_IDX_VALUE || src == BPF_PSEUDO_MAP_VALUE) && (size_t)insns[i].imm < n) {
			insns[i].src_reg = BPF_PSEUDO_MAP_VALUE;
			insns[i].imm = fds[insns[i].imm];
		}
		i++;
	}
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = (uint32_t)cnt;
	a.license = (uint64_t)(uintptr_t)(license ? license : "GPL");
	a.log_level = 4;
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = 1 << 20;
	int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		ret = -errno;
		const char *p = strstr(log, "processed");
		snprintf(err, err_size, "%s", strerror(errno));
		(void)p;
	} else {
		close(fd);
	}
	const char *t = strstr(log, "verification time ");
	*usec = t ? atol(t + 18) : -1;
	const char *p = strstr(log, "processed ");
	*processed = p ? atol(p + 10) : -1;
out:
	while (n)
		close(fds[--n]);
	free(insns);
	free(log);
	return ret;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void bench_object(const char *path, int rounds, int use_linux)
{
	struct kbpf_host *host = kbpf_host_new();
	kbpf_host_add_map_helpers(host);
	kbpf_linux_host_add(host);
	kbpf_host_kconfig_set(host, "CONFIG_HZ", 250);
	struct kbpf_object *obj = NULL;
	/* the programs are loaded unverified (type 0) and verified by the timing loop */
	static char olog[4096];
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .host = host, .trusted_unverified = 1,
					    .log_buf = olog, .log_size = sizeof(olog) };
	if (kbpf_object_open_file(path, &oo, &obj)) {
		fprintf(stderr, "%s: %s\n", path, olog);
		kbpf_host_free(host);
		return;
	}
	uint32_t types[256];
	struct kbpf_program *progs[256];
	size_t n = 0;
	for (struct kbpf_program *p = kbpf_object_next_program(obj, NULL); p && n < 256;
	     p = kbpf_object_next_program(obj, p)) {
		if (!kbpf_program_autoload(p))
			continue;
		progs[n] = p;
		types[n++] = kbpf_program_type(p);
		kbpf_program_set_type(p, 0); /* load unverified: we time the verifier ourselves */
	}
	if (kbpf_object_load(obj)) {
		fprintf(stderr, "%s: %s\n", path, olog);
		goto out;
	}
	struct kbpf_map *maps[MAX_MAPS];
	size_t nr_maps = 0;
	for (struct kbpf_map *m = kbpf_object_next_map(obj, NULL); m && nr_maps < MAX_MAPS;
	     m = kbpf_object_next_map(obj, m))
		maps[nr_maps++] = m;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (size_t i = 0; i < n; i++) {
		struct lookup l = { types[i], NULL };
		if (types[i])
			kbpf_host_prog_type_foreach(host, find_type, &l);
		if (!l.name)
			continue;
		size_t cnt;
		const struct bpf_insn *insns = kbpf_program_insns(progs[i], &cnt);
		struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = l.name, .maps = maps,
					      .nr_maps = nr_maps, .license = kbpf_object_license(obj) };
		int ret = 0;
		double t0 = now_us();
		for (int r = 0; r < rounds; r++)
			ret = kbpf_prog_verify(insns, cnt, &o);
		double us = (now_us() - t0) / rounds;
		printf("| %-28s | %-22s | %-14s | %5zu | %-6s | %9u | %9.1f |", base, kbpf_program_name(progs[i]),
		       l.name, cnt, ret ? "reject" : "ok", o.insns_processed, us);
		if (use_linux) {
			long lus = -1, lproc = -1;
			char err[128] = "";
			int lr = linux_verify(insns, cnt, types[i], maps, nr_maps, kbpf_object_license(obj), &lus, &lproc,
					      err, sizeof(err));
			printf(" %-6s | %9ld | %9ld |", lr ? "reject" : "ok", lproc, lus);
			if (lr && err[0])
				printf(" %s", err);
		}
		printf("\n");
	}
out:
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

int main(int argc, char **argv)
{
	int rounds = 20, use_linux = 1, first = 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (!strcmp(argv[first], "--rounds") && first + 1 < argc)
			rounds = atoi(argv[++first]);
		else if (!strcmp(argv[first], "--no-linux"))
			use_linux = 0;
		else {
			fprintf(stderr, "usage: kbpf-bench-verify [--rounds N] [--no-linux] FILE.o...\n");
			return 2;
		}
	}
	if (rounds < 1)
		rounds = 1;
	/* Probe bpf(): a trivial socket filter. */
	if (use_linux) {
		struct bpf_insn t[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		a.insns = (uint64_t)(uintptr_t)t;
		a.insn_cnt = 2;
		a.license = (uint64_t)(uintptr_t) "GPL";
		int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
		if (fd < 0) {
			fprintf(stderr, "bpf() unavailable (%s): kbpf figures only\n", strerror(errno));
			use_linux = 0;
		} else {
			close(fd);
		}
	}
	printf("| object | program | type | insns | kbpf | processed | kbpf µs |%s\n",
	       use_linux ? " Linux | processed | Linux µs |" : "");
	printf("|---|---|---|---|---|---|---|%s\n", use_linux ? "---|---|---|" : "");
	for (int i = first; i < argc; i++)
		bench_object(argv[i], rounds, use_linux);
	return 0;
}
