/* SPDX-License-Identifier: Apache-2.0 */
/* linux.tcp_ca: Linux 6.1's bpf_tcp_ca selftests (prog_tests/bpf_tcp_ca.c) on kbpf. The
 * objects (progs/bpf_cubic.c, bpf_dctcp.c, …) are compiled unmodified by run.sh; this
 * runner is their host: kbpf_tcp_host_add on its own BTF, and the TCP simulator in place of
 * Linux's loopback sockets. Each subtest of docs/reference/kfunc-spec.md §3.5 runs on the interpreter and
 * on the JIT.
 *
 * usage: kbpf-linux-tcp-ca OBJDIR [--only NAME] [--no-jit] [--expected FILE]
 *        kbpf-linux-tcp-ca OBJDIR --compare [--seed N]   (bpf_cubic.o vs cubic, bpf_dctcp.o vs dctcp)
 * Prints one line per case and mode (PASS/FAIL name: why), then "N passed, N failed"; exits
 * 1 if any failed, or, with --expected, only if an outcome listed there did not pass. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/tcp.h>
#include <kbpf/tcp_host.h>
#include <kbpf/tcp_sim.h>
#include "objutil.h"
#include "tcp_ca.h"

#define ENOTSUPP 524 /* Linux's internal errno, as the selftest defines it */
#define TOTAL_BYTES (10u * 1024 * 1024)
#define EXPECTED_STG 0xeB9F

const char *ca_objdir;
static int passed, failed;

/* Outcomes, for --expected (the regression floor: "MODE SUBTEST" lines that must pass). */
#define MAX_OUTCOMES 64
static struct {
	char key[64];
	int ok;
} outcomes[MAX_OUTCOMES];
static int nr_outcomes;

static void report(const char *mode, const char *name, int ok, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	if (nr_outcomes < MAX_OUTCOMES) {
		snprintf(outcomes[nr_outcomes].key, sizeof(outcomes[0].key), "%s %s", mode, name);
		outcomes[nr_outcomes++].ok = ok;
	}

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (char *p = why; *p; p++) /* one line per case: logs have newlines */
		if (*p == '\n')
			*p = ' ';
	printf("%s %-6s %-17s %s\n", ok ? "PASS" : "FAIL", mode, name, why);
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

/* --- the host and the objects ---------------------------------------------------- */

struct kbpf_host *ca_host_new(char *err, size_t err_size)
{
	struct kbpf_host *host = kbpf_host_new();
	int ret;

	if (!host) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	/* the runner's own BTF: it links kbpf_tcp, so struct tcp_sock & co. and the native
	 * CCs (the kfuncs) are in it, as they are in vmlinux */
	ret = kbpf_host_btf_load_self(host);
	if (ret)
		snprintf(err, err_size, "kbpf_host_btf_load_self: %s", strerror(-ret));
	if (!ret) {
		ret = kbpf_tcp_host_add(host);
		if (ret)
			snprintf(err, err_size, "kbpf_tcp_host_add: %s", strerror(-ret));
	}
	if (ret) {
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

void ca_obj_close(struct ca_obj *o)
{
	kbpf_tcp_bpf_cc_free(o->cc);
	kbpf_object_close(o->obj);
	if (o->host)
		kbpf_host_free(o->host);
	memset(o, 0, sizeof(*o));
}

/* Why OBJDIR/NAME.o is missing: the first error clang gave (NAME.err of
 * scripts/linux-tcp-objects), else errno. */
static void ca_not_built(const char *path, int err, char *msg, size_t size)
{
	char errpath[4200], line[512];
	size_t n = strlen(path);
	FILE *f;

	snprintf(msg, size, "%s: %s", path, strerror(-err));
	if (n < 2 || strcmp(path + n - 2, ".o"))
		return;
	snprintf(errpath, sizeof(errpath), "%.*s.err", (int)(n - 2), path);
	f = fopen(errpath, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "error:")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(msg, size, "not built, clang: %s", line);
			break;
		}
	fclose(f);
}

/* Open and load OBJDIR/file on a fresh TCP host (jit: every program on the JIT); patch,
 * if set, is written into the named const global first (the skeleton's rodata). Fills
 * o->open_err / o->load_err and o->log; returns 0 if both succeeded. */
int ca_obj_load(struct ca_obj *o, const char *file, int jit, const char *patch_sym, const char *patch_val)
{
	char path[4096], err[256] = "";
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, };
	void *buf = NULL;
	size_t size = 0;
	int ret;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "%s/%s", ca_objdir, file);
	o->host = ca_host_new(err, sizeof(err));
	if (!o->host) {
		snprintf(o->log, sizeof(o->log), "host: %s", err);
		return o->open_err = -EINVAL;
	}
	ret = ca_read_file(path, &buf, &size);
	if (ret) {
		ca_not_built(path, ret, o->log, sizeof(o->log));
		return o->open_err = ret;
	}
	if (patch_sym) {
		ret = ca_elf_set_global(buf, size, patch_sym, patch_val, strlen(patch_val) + 1);
		if (ret) {
			snprintf(o->log, sizeof(o->log), "%s: cannot set %s: %s", path, patch_sym, strerror(-ret));
			free(buf);
			return o->open_err = ret;
		}
	}
	opts.host = o->host;
	opts.log_buf = o->log;
	opts.log_size = sizeof(o->log);
	opts.jit = jit;
	/* libbpf retries a failed load at log level 1: the selftest greps that log */
	opts.log_level = 1;
	ret = kbpf_object_open_mem(buf, size, &opts, &o->obj);
	free(buf);
	if (ret)
		return o->open_err = ret;
	ret = kbpf_object_load(o->obj);
	if (ret)
		return o->load_err = ret;
	for (struct kbpf_program *p = NULL; (p = kbpf_object_next_program(o->obj, p));) {
		struct kbpf_prog *prog = kbpf_program_prog(p);

		if (!prog)
			continue;
		o->nr_progs++;
		o->nr_jited += kbpf_prog_is_jited(prog) == 1;
	}
	return 0;
}

/* "" when the programs run where the mode says (all JIT-compiled under the JIT, none
 * under the interpreter), else why not. */
static const char *ca_mode_check(const struct ca_obj *o, int jit)
{
	static char msg[1024];

	if (jit ? o->nr_jited == o->nr_progs : o->nr_jited == 0)
		return "";
	snprintf(msg, sizeof(msg), "%d of %d programs JIT-compiled in %s mode: %.900s", o->nr_jited, o->nr_progs,
		 jit ? "jit" : "interp", o->log);
	return msg;
}

/* bpf_map__attach_struct_ops: the struct_ops map instantiated as a tcp_congestion_ops
 * with the host's registration rules (registered by name in each simulation it runs in). */
int ca_obj_attach(struct ca_obj *o, const char *map)
{
	struct kbpf_tcp_bpf_cc_opts co = { .sz = sizeof(co) };

	co.log_buf = o->attach_log;
	co.log_size = sizeof(o->attach_log);
	o->attach_err = kbpf_tcp_bpf_cc_load(o->obj, map, o->host, &co, &o->cc);
	if (o->attach_err)
		o->cc = NULL;
	return o->attach_err;
}

const struct tcp_congestion_ops *ca_obj_ops(const struct ca_obj *o)
{
	return o->cc ? kbpf_tcp_bpf_cc_ops(o->cc) : NULL;
}

/* --- the simulated transfer (do_test's loopback connection) ------------------------ */

/* One flow of `bytes` over a 100 Mbit/s, 10 ms one-way link (ECN marking above 20 queued
 * packets when ecn), up to limit_us of simulated time. */
int ca_transfer(const struct tcp_congestion_ops *ops, uint64_t bytes, int ecn,
		const struct ca_transfer_hooks *hooks, struct kbpf_tcp_flow_stats *fs, char *err, size_t err_size)
{
	struct kbpf_tcp_sim_opts so = { .sz = sizeof(so), .rate_bps = 100000000, .delay_us = 10000, .seed = 1 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = bytes };
	struct kbpf_tcp_sim *sim;
	unsigned int id;
	int ret;

	if (ecn)
		so.ecn_threshold_pkts = 20;
	ret = kbpf_tcp_sim_create(&so, &sim);
	if (ret) {
		snprintf(err, err_size, "kbpf_tcp_sim_create: %s", strerror(-ret));
		return ret;
	}
	ret = ca_sim_register(sim, ops);
	if (ret) {
		snprintf(err, err_size, "registering %s in the simulator: %s", ops->name, strerror(-ret));
		goto out;
	}
	if (hooks && hooks->flow_opts)
		hooks->flow_opts(&fo, hooks->ctx);
	ret = kbpf_tcp_sim_add_flow(sim, ops, &fo, &id);
	if (ret) {
		snprintf(err, err_size, "kbpf_tcp_sim_add_flow: %s", strerror(-ret));
		goto out;
	}
	if (hooks && hooks->before_start) {
		ret = hooks->before_start(sim, id, hooks->ctx, err, err_size);
		if (ret)
			goto out;
	}
	ret = kbpf_tcp_sim_run(sim, 60000000);
	if (ret) {
		snprintf(err, err_size, "kbpf_tcp_sim_run: %s", strerror(-ret));
		goto out;
	}
	kbpf_tcp_sim_flow_stats(sim, id, fs);
	if (hooks && hooks->after_run) {
		ret = hooks->after_run(sim, id, hooks->ctx, err, err_size);
		if (ret)
			goto out;
	}
	if (fs->bytes_acked < bytes || !fs->completion_us) {
		snprintf(err, err_size, "transfer incomplete: %llu of %llu bytes ACKed in 60 s",
			 (unsigned long long)fs->bytes_acked, (unsigned long long)bytes);
		ret = -ETIMEDOUT;
	}
out:
	kbpf_tcp_sim_free(sim);
	return ret;
}

/* --- the subtests ------------------------------------------------------------------ */

struct stg_ctx {
	struct ca_obj *o;
	const struct tcp_sock *sk;
};

/* do_test: bpf_map_update_elem(sk_stg_map, &fd, &expected_stg, BPF_NOEXIST) on the
 * client's socket before connect — here the flow's receiving end, the client of Linux's
 * test (the server sends) — and after connect the element is gone (init deleted it). */
static int stg_before(struct kbpf_tcp_sim *sim, unsigned int id, void *ctx, char *err, size_t err_size)
{
	struct stg_ctx *c = ctx;
	int v = EXPECTED_STG, ret;

	c->sk = kbpf_tcp_sim_receiver(sim, id);
	ret = ca_sk_storage_update(c->o, "sk_stg_map", c->sk, &v);
	if (ret)
		snprintf(err, err_size, "bpf_map_update_elem(sk_stg_map): %s", strerror(-ret));
	return ret;
}

static int stg_after(struct kbpf_tcp_sim *sim, unsigned int id, void *ctx, char *err, size_t err_size)
{
	struct stg_ctx *c = ctx;
	int v, ret;

	(void)sim, (void)id;
	ret = ca_sk_storage_lookup(c->o, "sk_stg_map", c->sk, &v);
	if (ret != -ENOENT) {
		snprintf(err, err_size, "bpf_map_lookup_elem(sk_stg_map) after connect: %d, want -ENOENT", ret);
		return -EINVAL;
	}
	return 0;
}

static void test_dctcp(const char *mode, int jit)
{
	struct ca_obj o;
	struct kbpf_tcp_flow_stats fs = { 0 };
	struct stg_ctx sc = { .o = &o };
	struct ca_transfer_hooks h = { .before_start = stg_before, .after_run = stg_after, .ctx = &sc };
	char err[512] = "";
	int *stg;

	if (ca_obj_load(&o, "bpf_dctcp.o", jit, NULL, NULL)) {
		report(mode, "dctcp", 0, "bpf_dctcp__open_and_load: %s", o.log);
		goto out;
	}
	if (ca_obj_attach(&o, "dctcp")) {
		report(mode, "dctcp", 0, "bpf_map__attach_struct_ops: %s (%s)", strerror(-o.attach_err), o.attach_log);
		goto out;
	}
	if (*ca_mode_check(&o, jit)) {
		report(mode, "dctcp", 0, "%s", ca_mode_check(&o, jit));
		goto out;
	}
	if (ca_transfer(ca_obj_ops(&o), TOTAL_BYTES, 1, &h, &fs, err, sizeof(err))) {
		report(mode, "dctcp", 0, "%s", err);
		goto out;
	}
	stg = ca_object_global(o.obj, "stg_result", NULL);
	if (!stg || *stg != EXPECTED_STG) {
		report(mode, "dctcp", 0, "stg_result (%x) != expected_stg (%x)", stg ? *stg : -1, EXPECTED_STG);
		goto out;
	}
	if (!fs.ecn_ok || !fs.delivered_ce || strcmp(fs.cc, "bpf_dctcp")) {
		report(mode, "dctcp", 0, "the flow did not run bpf_dctcp with ECN: cc %s, ecn_ok %u, CE-marked %llu",
		       fs.cc, fs.ecn_ok, (unsigned long long)fs.delivered_ce);
		goto out;
	}
	report(mode, "dctcp", 1, "%d programs; 10 MB in %.3f s simulated, ECN, %llu CE-marked, %llu retransmits; stg_result 0x%x",
	       o.nr_progs, fs.completion_us / 1e6, (unsigned long long)fs.delivered_ce, (unsigned long long)fs.retransmits, *stg);
out:
	ca_obj_close(&o);
}

static void test_cubic(const char *mode, int jit)
{
	struct ca_obj o;
	struct kbpf_tcp_flow_stats fs = { 0 };
	char err[512] = "";

	if (ca_obj_load(&o, "bpf_cubic.o", jit, NULL, NULL)) {
		report(mode, "cubic", 0, "bpf_cubic__open_and_load: %s", o.log);
		goto out;
	}
	if (ca_obj_attach(&o, "cubic")) {
		report(mode, "cubic", 0, "bpf_map__attach_struct_ops: %s (%s)", strerror(-o.attach_err), o.attach_log);
		goto out;
	}
	if (*ca_mode_check(&o, jit)) {
		report(mode, "cubic", 0, "%s", ca_mode_check(&o, jit));
		goto out;
	}
	if (ca_transfer(ca_obj_ops(&o), TOTAL_BYTES, 0, NULL, &fs, err, sizeof(err))) {
		report(mode, "cubic", 0, "%s", err);
		goto out;
	}
	if (strcmp(fs.cc, "bpf_cubic")) {
		report(mode, "cubic", 0, "the flow ended on %s, not bpf_cubic", fs.cc);
		goto out;
	}
	report(mode, "cubic", 1, "%d programs; 10 MB in %.3f s simulated, %llu retransmits, final cwnd %u", o.nr_progs,
	       fs.completion_us / 1e6,
	       (unsigned long long)fs.retransmits, fs.cwnd);
out:
	ca_obj_close(&o);
}

/* A load that must fail with msg in the log. */
static void test_load_fails(const char *mode, int jit, const char *name, const char *file, const char *msg)
{
	struct ca_obj o;

	if (!ca_obj_load(&o, file, jit, NULL, NULL))
		report(mode, name, 0, "%s loaded; Linux refuses it with \"%s\"", file, msg);
	else if (o.open_err)
		report(mode, name, 0, "open failed before load: %s", o.log);
	else if (!strstr(o.log, msg))
		report(mode, name, 0, "load failed (%s) without \"%s\": %s", strerror(-o.load_err), msg, o.log);
	else
		report(mode, name, 1, "load fails: \"%s\"", msg);
	ca_obj_close(&o);
}

static void nonecn_flow(struct kbpf_tcp_flow_opts *fo, void *ctx)
{
	(void)ctx;
	ca_flow_opts_no_ecn_peer(fo);
}

static void test_dctcp_fallback(const char *mode, int jit)
{
	struct ca_obj o;
	struct kbpf_tcp_flow_stats fs = { 0 };
	struct ca_transfer_hooks h = { .flow_opts = nonecn_flow };
	char err[512] = "";
	const char *cc_res;
	int *cdg, *ebusy;

	/* strcpy(dctcp_skel->rodata->fallback, "cubic") between open and load */
	if (ca_obj_load(&o, "bpf_dctcp.o", jit, "fallback", "cubic")) {
		report(mode, "dctcp_fallback", 0, "bpf_dctcp__load: %s", o.log);
		goto out;
	}
	if (ca_obj_attach(&o, "dctcp")) {
		report(mode, "dctcp_fallback", 0, "bpf_map__attach_struct_ops: %s (%s)", strerror(-o.attach_err),
		       o.attach_log);
		goto out;
	}
	/* a peer that does not negotiate ECN: init switches to the fallback */
	if (*ca_mode_check(&o, jit)) {
		report(mode, "dctcp_fallback", 0, "%s", ca_mode_check(&o, jit));
		goto out;
	}
	if (ca_transfer(ca_obj_ops(&o), TOTAL_BYTES, 0, &h, &fs, err, sizeof(err))) {
		report(mode, "dctcp_fallback", 0, "%s", err);
		goto out;
	}
	cc_res = ca_object_global(o.obj, "cc_res", NULL);
	cdg = ca_object_global(o.obj, "tcp_cdg_res", NULL);
	ebusy = ca_object_global(o.obj, "ebusy_cnt", NULL);
	if (!cc_res || !cdg || !ebusy) {
		report(mode, "dctcp_fallback", 0, "globals cc_res/tcp_cdg_res/ebusy_cnt not found");
		goto out;
	}
	if (strncmp(cc_res, "cubic", TCP_CA_NAME_MAX) || *cdg != -ENOTSUPP || *ebusy != 3 || strcmp(fs.cc, "cubic") ||
	    fs.ecn_ok) {
		report(mode, "dctcp_fallback", 0,
		       "cc_res \"%.16s\" (want cubic), tcp_cdg_res %d (want %d), ebusy_cnt %d (want 3), flow cc %s (want cubic), ecn_ok %u",
		       cc_res, *cdg, -ENOTSUPP, *ebusy, fs.cc, fs.ecn_ok);
		goto out;
	}
	report(mode, "dctcp_fallback", 1,
	       "cc_res \"cubic\", tcp_cdg_res -ENOTSUPP, ebusy_cnt 3; the flow went on with cubic: 10 MB in %.3f s",
	       fs.completion_us / 1e6);
out:
	ca_obj_close(&o);
}

struct pacing_ctx {
	uint32_t status;
	unsigned long rate;
};

static int pacing_after(struct kbpf_tcp_sim *sim, unsigned int id, void *ctx, char *err, size_t err_size)
{
	const struct tcp_sock *tp = kbpf_tcp_sim_sender(sim, id);
	struct pacing_ctx *c = ctx;

	(void)err, (void)err_size;
	c->status = tp->inet_conn.icsk_inet.sk.sk_pacing_status;
	c->rate = tp->inet_conn.icsk_inet.sk.sk_pacing_rate;
	return 0;
}

/* Linux only loads and attaches it. Beyond that: a 1 MB flow runs on it, and its writes
 * took effect — init's sk_pacing_status = SK_PACING_NEEDED (a cmpxchg, as test_progs
 * builds it) and cong_control's sk_pacing_rate — so the simulator paced the flow. */
static void test_write_sk_pacing(const char *mode, int jit)
{
	struct ca_obj o;
	struct kbpf_tcp_flow_stats fs = { 0 };
	struct pacing_ctx pc = { 0 };
	struct ca_transfer_hooks h = { .after_run = pacing_after, .ctx = &pc };
	char err[512] = "";

	if (ca_obj_load(&o, "tcp_ca_write_sk_pacing.o", jit, NULL, NULL))
		report(mode, "write_sk_pacing", 0, "open_and_load: %s", o.log);
	else if (ca_obj_attach(&o, "write_sk_pacing"))
		report(mode, "write_sk_pacing", 0, "attach_struct_ops: %s (%s)", strerror(-o.attach_err), o.attach_log);
	else if (*ca_mode_check(&o, jit))
		report(mode, "write_sk_pacing", 0, "%s", ca_mode_check(&o, jit));
	else if (ca_transfer(ca_obj_ops(&o), 1u << 20, 0, &h, &fs, err, sizeof(err)))
		report(mode, "write_sk_pacing", 0, "loads and attaches, but a 1 MB flow on it: %s", err);
	else if (pc.status != SK_PACING_NEEDED || pc.rate == ~0UL || !pc.rate)
		report(mode, "write_sk_pacing", 0, "loads and attaches; after a flow sk_pacing_status %u (want %u), sk_pacing_rate %lu",
		       pc.status, SK_PACING_NEEDED, pc.rate);
	else
		report(mode, "write_sk_pacing", 1,
		       "loads and attaches; a 1 MB flow on it: sk_pacing_status NEEDED, sk_pacing_rate %lu B/s, %.3f s",
		       pc.rate, fs.completion_us / 1e6);
	ca_obj_close(&o);
}

static void test_incompl_cong_ops(const char *mode, int jit)
{
	struct ca_obj o;

	if (ca_obj_load(&o, "tcp_ca_incompl_cong_ops.o", jit, NULL, NULL))
		report(mode, "incompl_cong_ops", 0, "open_and_load: %s", o.log);
	else if (!ca_obj_attach(&o, "incompl_cong_ops"))
		report(mode, "incompl_cong_ops", 0, "attach succeeded without cong_avoid/cong_control");
	else
		report(mode, "incompl_cong_ops", 1, "loads; attach fails: %s (%s)", strerror(-o.attach_err),
		       o.attach_log);
	ca_obj_close(&o);
}

static void run_mode(const char *mode, int jit, const char *only)
{
#define WANT(n) (!only || !strcmp(only, n))
	if (WANT("dctcp"))
		test_dctcp(mode, jit);
	if (WANT("cubic"))
		test_cubic(mode, jit);
	if (WANT("invalid_license"))
		test_load_fails(mode, jit, "invalid_license", "bpf_tcp_nogpl.o",
				"struct ops programs must have a GPL compatible license");
	if (WANT("dctcp_fallback"))
		test_dctcp_fallback(mode, jit);
	if (WANT("rel_setsockopt"))
		test_load_fails(mode, jit, "rel_setsockopt", "bpf_dctcp_release.o",
				"program of this type cannot use helper bpf_setsockopt");
	if (WANT("write_sk_pacing"))
		test_write_sk_pacing(mode, jit);
	if (WANT("incompl_cong_ops"))
		test_incompl_cong_ops(mode, jit);
	if (WANT("unsupp_cong_op"))
		test_load_fails(mode, jit, "unsupp_cong_op", "tcp_ca_unsupp_cong_op.o",
				"attach to unsupported member get_info");
#undef WANT
}

/* With an expected list: 1 if a listed outcome failed or is missing (a regression); an
 * unlisted failure is a known gap (printed, not fatal), an unlisted pass a NEW PASS. */
static int check_expected(const char *path, const char *only, int jit)
{
	char line[128];
	int regressions = 0, gaps = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		int found = 0;

		line[strcspn(line, "\r\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if ((only && strcmp(strchr(line, ' ') ? strchr(line, ' ') + 1 : line, only)) ||
		    (!jit && !strncmp(line, "jit ", 4)))
			continue;
		for (int i = 0; i < nr_outcomes; i++) {
			if (strcmp(outcomes[i].key, line))
				continue;
			found = 1;
			if (!outcomes[i].ok) {
				printf("REGRESSION %s (listed in %s)\n", line, path);
				regressions++;
			}
			outcomes[i].ok |= 2; /* listed */
		}
		if (!found) {
			printf("REGRESSION %s: listed in %s but not run\n", line, path);
			regressions++;
		}
	}
	fclose(f);
	for (int i = 0; i < nr_outcomes; i++) {
		if (outcomes[i].ok == 1)
			printf("NEW PASS %s (add it to %s)\n", outcomes[i].key, path);
		else if (outcomes[i].ok == 0)
			gaps++;
	}
	printf("%d known gap(s) (failing, not in %s: README.md says what each needs), %d regression(s)\n", gaps, path,
	       regressions);
	return regressions ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *only = NULL, *expected = NULL;
	int jit = 1, compare = 0;
	uint64_t seed = 1;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s OBJDIR [--only NAME] [--no-jit] [--expected FILE] | OBJDIR --compare [--seed N]\n",
			argv[0]);
		return 2;
	}
	ca_objdir = argv[1];
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--no-jit"))
			jit = 0;
		else if (!strcmp(argv[i], "--compare"))
			compare = 1;
		else if (!strcmp(argv[i], "--expected") && i + 1 < argc)
			expected = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
			return 2;
		}
	}
	if (compare)
		return ca_compare(seed);
	run_mode("interp", 0, only);
	if (jit)
		run_mode("jit", 1, only);
	printf("%d passed, %d failed\n", passed, failed);
	if (expected)
		return check_expected(expected, only, jit);
	return failed ? 1 : 0;
}
