/* SPDX-License-Identifier: Apache-2.0 */
/* The cost of getting a BPF object ready to run: kbpf_object_open_file plus
 * kbpf_object_load (maps, linking, relocation, CO-RE, verification of the programs
 * whose program type the host knows, program creation), with and without the JIT, on
 * the largest object of a directory (the tests' own tests/bpf objects, built for the
 * benchmark), on a host with Linux's program types and helpers as `kbpf run` has. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <kbpf/kbpf.h>
#ifdef KBPF_BENCH_LINUX_HOST
#include <kbpf/linux.h>
#endif
#include "bench.h"

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* Open and load path once; 0 and the loaded programs' instruction count, or -errno. */
static int load_once(struct kbpf_host *host, const char *path, int jit, size_t *progs, size_t *insns, double *ns)
{
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .host = host, .jit = jit };
	struct kbpf_object *obj = NULL;
	struct kbpf_program *p = NULL;
	double t0 = bench_now_ns();
	int ret = kbpf_object_open_file(path, &opts, &obj);

	if (!ret)
		ret = kbpf_object_load(obj);
	*ns = bench_now_ns() - t0;
	*progs = *insns = 0;
	while (!ret && (p = kbpf_object_next_program(obj, p))) {
		size_t cnt;

		if (!kbpf_program_prog(p))
			continue;
		kbpf_prog_insns(kbpf_program_prog(p), &cnt);
		*insns += cnt;
		(*progs)++;
		if (jit && !kbpf_prog_is_jited(kbpf_program_prog(p)))
			ret = -1; /* a JIT time that did not JIT everything would flatter */
	}
	kbpf_object_close(obj);
	return ret;
}

static double best_of(struct kbpf_host *host, const char *path, int jit, unsigned n)
{
	double best = 1e18, t;
	size_t progs, insns;

	for (unsigned i = 0; i < n; i++) {
		if (load_once(host, path, jit, &progs, &insns, &t))
			return -1;
		if (t < best)
			best = t;
	}
	return best;
}

static struct kbpf_host *bench_host(int *verifies)
{
	struct kbpf_host *host = kbpf_host_new();

	*verifies = 0;
	if (!host || kbpf_host_add_map_helpers(host) || kbpf_host_kconfig_set(host, "CONFIG_HZ", 250)) {
		kbpf_host_free(host);
		return NULL;
	}
#ifdef KBPF_BENCH_LINUX_HOST
	*verifies = kbpf_linux_host_add(host) == 0;
#endif
	return host;
}

int bench_object_load(const char *dir, unsigned n, struct bench_object *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct kbpf_host *host;

	memset(out, 0, sizeof(*out));
	if (!d) {
		snprintf(out->why, sizeof(out->why), "%s: cannot open the directory", dir);
		return -1;
	}
	host = bench_host(&out->verifies);
	if (!host) {
		closedir(d);
		snprintf(out->why, sizeof(out->why), "cannot create the host");
		return -1;
	}
	libbpf_set_print(quiet_libbpf); /* objects meant to fail (bad BTF) say so on stderr */
	/* The largest object that loads on this host: objects needing a host's BTF or
	 * kfuncs, or meant to fail, are left out. */
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), progs, insns;
		double t;

		if (len < 6 || strcmp(e->d_name + len - 6, ".bpf.o"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (load_once(host, path, 0, &progs, &insns, &t) || insns <= out->insns)
			continue;
		snprintf(out->name, sizeof(out->name), "%s", e->d_name);
		out->progs = progs;
		out->insns = insns;
	}
	closedir(d);
	if (!out->insns) {
		kbpf_host_free(host);
		snprintf(out->why, sizeof(out->why), "%s: no object loads on the benchmark's host", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, out->name);
	out->load_us = best_of(host, path, 0, n) / 1000.0;
	out->load_jit_us = best_of(host, path, 1, n) / 1000.0;
	kbpf_host_free(host);
	if (out->load_us < 0 || out->load_jit_us < 0) {
		snprintf(out->why, sizeof(out->why), "%s: a load failed while timing (or a program was not JIT-compiled)",
			 out->name);
		return -1;
	}
	out->ok = 1;
	return 0;
}
