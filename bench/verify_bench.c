/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-verify: verification speed. For every program of the BPF objects given
 * (bench/programs, tests/bpf, Linux's bpf_cubic.o / bpf_dctcp.o from
 * scripts/linux-tcp-objects), kbpf's verifier time (the least of N runs) and processed-insn
 * count, on a host with the Linux and TCP hosts and this executable's BTF (so CO-RE and
 * struct_ops programs verify as `kbpf verify` verifies them); where the bpf() syscall
 * works (root), the same object loaded N times into the live kernel with libbpf at log
 * level 4 (verify_linux.c), with the kernel's own least "verification time" and
 * "processed" figures beside ours. A first row times the smallest program (r0 = 0; exit)
 * on both: the fixed cost per program. A benchmark, never a test. */
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
#include <kbpf/tcp_host.h>
#include "verify_linux.h"

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

/* Linux's verification of raw insns (no maps), the least of rounds: 0 and the kernel's
 * figures, or -errno. */
static int linux_verify_raw(const struct bpf_insn *insns, size_t cnt, uint32_t type, int rounds, long *usec,
			    long *processed)
{
	static char log[1 << 16];
	*usec = -1;
	*processed = -1;
	for (int r = 0; r < rounds; r++) {
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		a.prog_type = type;
		a.insns = (uint64_t)(uintptr_t)insns;
		a.insn_cnt = (uint32_t)cnt;
		a.license = (uint64_t)(uintptr_t) "GPL";
		a.log_level = 4;
		a.log_buf = (uint64_t)(uintptr_t)log;
		a.log_size = sizeof(log);
		log[0] = 0;
		int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
		if (fd < 0)
			return -errno;
		close(fd);
		const char *t = strstr(log, "verification time ");
		const char *p = strstr(log, "processed ");
		long u = t ? atol(t + 18) : -1;
		if (u >= 0 && (*usec < 0 || u < *usec))
			*usec = u;
		if (p)
			*processed = atol(p + 10);
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The host `kbpf verify` builds: this executable's BTF, the TCP host, Linux's types. */
static struct kbpf_host *bench_host(void)
{
	struct kbpf_host *host = kbpf_host_new();
	if (!host)
		return NULL;
	int btf = kbpf_host_btf_load_self(host);
	if (kbpf_host_add_map_helpers(host) || (!btf && kbpf_tcp_host_add(host) == -ENOMEM) ||
	    kbpf_linux_host_add(host) || kbpf_host_kconfig_set(host, "CONFIG_HZ", 250)) {
		kbpf_host_free(host);
		return NULL;
	}
	if (btf)
		fprintf(stderr, "no host BTF (%s): CO-RE and struct_ops programs will not verify\n", strerror(-btf));
	return host;
}

/* kbpf's verification of insns, the least of rounds, in µs. */
static double kbpf_verify_min(const struct bpf_insn *insns, size_t cnt, const struct kbpf_verify_opts *o,
			      struct kbpf_verify_result *res, int rounds, int *ret)
{
	double best = -1;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_us();
		*ret = kbpf_prog_verify(insns, cnt, o, res);
		double us = now_us() - t0;
		if (best < 0 || us < best)
			best = us;
	}
	return best;
}

static void print_linux(int use_linux, int ok, long processed, long usec, const char *err)
{
	if (use_linux)
		printf(" %-6s | %9ld | %9ld |%s%s", ok ? "ok" : "reject", processed, usec, err && *err ? " " : "",
		       err ? err : "");
	printf("\n");
}

/* The fixed cost: the smallest program, socket_filter. */
static void bench_minimal(struct kbpf_host *host, int rounds, int use_linux)
{
	static const struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "socket_filter" };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	int ret;
	double us = kbpf_verify_min(insns, 2, &o, &res, rounds, &ret);
	printf("| %-28s | %-22s | %-14s | %5d | %-6s | %9u | %9.1f |", "(r0 = 0; exit)", "minimal", "socket_filter", 2,
	       ret ? "reject" : "ok", res.insns_processed, us);
	long lus = -1, lproc = -1;
	int lr = use_linux ? linux_verify_raw(insns, 2, BPF_PROG_TYPE_SOCKET_FILTER, rounds, &lus, &lproc) : 0;
	print_linux(use_linux, !lr, lproc, lus, lr ? strerror(-lr) : NULL);
}

static void bench_object(struct kbpf_host *host, const char *path, int rounds, int use_linux)
{
	struct kbpf_object *obj = NULL;
	/* the programs are loaded unverified (type 0) and verified by the timing loop */
	static char olog[4096];
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .host = host, .trusted_unverified = 1,
					    .log_buf = olog, .log_size = sizeof(olog) };
	if (kbpf_object_open_file(path, &oo, &obj)) {
		fprintf(stderr, "%s: %s\n", path, olog);
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
	struct vb_linux_prog lin[256];
	char lerr[256] = "";
	int nlin = use_linux ? vb_linux_verify_object(path, rounds, lin, 256, lerr, sizeof(lerr)) : 0;
	if (nlin < 0) {
		fprintf(stderr, "%s: %s\n", path, lerr);
		nlin = 0;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (size_t i = 0; i < n; i++) {
		struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .maps = maps, .nr_maps = nr_maps,
					      .license = kbpf_object_license(obj) };
		struct lookup l = { types[i], NULL };
		if (types[i] == BPF_PROG_TYPE_STRUCT_OPS)
			kbpf_program_struct_ops_attach(obj, progs[i], &l.name, &o.attach_btf_id, &o.attach_member);
		else if (types[i] == BPF_PROG_TYPE_TRACING || types[i] == BPF_PROG_TYPE_LSM)
			kbpf_program_tracing_attach(obj, progs[i], &l.name, &o.attach_btf_id);
		else if (types[i])
			kbpf_host_prog_type_foreach(host, find_type, &l);
		if (!l.name) {
			fprintf(stderr, "%s: %s: no program type of this host\n", base, kbpf_program_name(progs[i]));
			continue;
		}
		o.prog_type = l.name;
		size_t cnt;
		const struct bpf_insn *insns = kbpf_program_insns(progs[i], &cnt);
		size_t nfi;
		o.func_info = kbpf_program_func_info(progs[i], &nfi);
		o.nr_func_info = (uint32_t)nfi;
		o.prog_btf = kbpf_object_btf(obj);
		struct kbpf_verify_result res = { .sz = sizeof(res) };
		int ret;
		double us = kbpf_verify_min(insns, cnt, &o, &res, rounds, &ret);
		printf("| %-28s | %-22s | %-14s | %5zu | %-6s | %9u | %9.1f |", base, kbpf_program_name(progs[i]),
		       l.name, cnt, ret ? "reject" : "ok", res.insns_processed, us);
		const struct vb_linux_prog *lp = NULL;
		for (int k = 0; k < nlin; k++)
			if (!strcmp(lin[k].name, kbpf_program_name(progs[i])))
				lp = &lin[k];
		if (lp)
			print_linux(use_linux, lp->ok, lp->processed, lp->usec, NULL);
		else
			print_linux(use_linux, 0, -1, -1, lerr[0] ? lerr : "not loaded by libbpf");
	}
out:
	kbpf_object_close(obj);
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
		long u, p;
		static const struct bpf_insn t[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
		int err = linux_verify_raw(t, 2, BPF_PROG_TYPE_SOCKET_FILTER, 1, &u, &p);
		if (err) {
			fprintf(stderr, "bpf() unavailable (%s): kbpf figures only\n", strerror(-err));
			use_linux = 0;
		}
	}
	struct kbpf_host *host = bench_host();
	if (!host) {
		fprintf(stderr, "kbpf-bench-verify: cannot build the host\n");
		return 1;
	}
	printf("least of %d rounds each; µs of wall time (kbpf: kbpf_prog_verify; Linux: its log's \"verification time\")\n\n",
	       rounds);
	printf("| object | program | type | insns | kbpf | processed | kbpf µs |%s\n",
	       use_linux ? " Linux | processed | Linux µs |" : "");
	printf("|---|---|---|---|---|---|---|%s\n", use_linux ? "---|---|---|" : "");
	bench_minimal(host, rounds, use_linux);
	for (int i = first; i < argc; i++)
		bench_object(host, argv[i], rounds, use_linux);
	kbpf_host_free(host);
	return 0;
}
