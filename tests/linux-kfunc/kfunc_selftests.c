/* SPDX-License-Identifier: Apache-2.0 */
/* linux.kfunc_selftests: Linux 6.1's kfunc selftest programs (progs/kfunc_call_*.c,
 * compiled unmodified by run.sh) loaded with kbpf's object API on a host that has Linux's
 * test kfuncs, run as BPF_PROG_TEST_RUN would, and every outcome of docs/reference/kfunc-spec.md
 * §4.2–§4.4 checked (prog_tests/kfunc_call.c's table and subtests).
 *
 * usage: kbpf-linux-kfunc OBJDIR [--calls-table SO] [--expected FILE] [--write-expected FILE]
 * Prints each outcome (PASS/FAIL, name, why), then "N of M outcomes as Linux". With
 * --expected, exits 1 only if an outcome listed there no longer passes (the regression
 * floor: some outcomes need what kbpf does not have yet, README.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include <kbpf/linux.h>
#include "../../hosts/linux/test_kfuncs.h"
#include "kfunc_selftests.h"

#define MAX_OUTCOMES 64

struct outcome {
	char name[160];
	int pass;
	char why[512];
};

static struct outcome outcomes[MAX_OUTCOMES];
static int nr_outcomes;
static const char *objdir;

void kfunc_record(const char *name, int pass, const char *fmt, ...)
{
	struct outcome *o;
	va_list ap;

	if (nr_outcomes == MAX_OUTCOMES)
		return;
	o = &outcomes[nr_outcomes++];
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->pass = pass;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	/* one line per outcome: the log's newlines would split it */
	for (char *p = o->why; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

/* The host Linux's kfunc selftests run on: Linux's program types and helpers, this
 * executable's own BTF (it links the test kfuncs: kbpf_add_host_btf) and the test
 * kfunc set. */
static struct kbpf_host *host_new(char *err, size_t err_size)
{
	struct kbpf_host *host = kbpf_host_new();
	int ret;

	if (!host) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	ret = kbpf_linux_host_add(host);
	if (!ret)
		ret = kbpf_host_btf_load_self(host);
	if (!ret)
		ret = kbpf_linux_host_add_test_kfuncs(host, err, err_size);
	if (ret) {
		if (!err[0])
			snprintf(err, err_size, "host: %s", strerror(-ret));
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

/* An object of objdir, opened on host; with only, just that program autoloaded (the
 * `SEC("?…")` programs of kfunc_call_fail.c load one at a time), else as the object says. */
static int object_load_caps(struct kbpf_host *host, const char *file, const char *only, unsigned caps,
			    struct kbpf_object **out, char *log, size_t log_size)
{
	char path[4096];
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = log_size,
					      .caps = caps };
	struct kbpf_object *obj = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", objdir, file);
	log[0] = 0;
	ret = kbpf_object_open_file(path, &opts, &obj);
	if (!ret && only) {
		struct kbpf_program *p = kbpf_object_find_program(obj, only);
		/* just that one: Linux's object loads all autoload programs together */
		for (struct kbpf_program *q = kbpf_object_next_program(obj, NULL); q; q = kbpf_object_next_program(obj, q))
			kbpf_program_set_autoload(q, false);
		if (!p) {
			snprintf(log, log_size, "no program %s in %s", only, file);
			kbpf_object_close(obj);
			return -ENOENT;
		}
		kbpf_program_set_autoload(p, true);
	}
	if (!ret)
		ret = kbpf_object_load(obj);
	if (ret && obj)
		snprintf(log, log_size, "%s", kbpf_object_log(obj));
	if (ret) {
		kbpf_object_close(obj);
		return ret;
	}
	*out = obj;
	return 0;
}

/* The same with every capability (kbpf's default, Linux's root). */
static int object_load(struct kbpf_host *host, const char *file, const char *only, struct kbpf_object **out,
		       char *log, size_t log_size)
{
	return object_load_caps(host, file, only, 0, out, log, log_size);
}

/* Linux's pkt_v4 (network_helpers.c): Ethernet, IPv4, TCP; 54 bytes. */
static void pkt_v4(uint8_t pkt[54])
{
	memset(pkt, 0, 54);
	pkt[12] = 0x08; /* ETH_P_IP */
	pkt[14] = 0x45; /* version 4, ihl 5 */
	pkt[16] = 0, pkt[17] = 40; /* tot_len: iph + tcph */
	pkt[23] = 6; /* IPPROTO_TCP */
	pkt[34 + 12] = 5 << 4; /* doff 5 */
	pkt[34 + 13] = 0x02;   /* SYN */
}

/* BPF_PROG_TEST_RUN of a tc program: the packet at an skb whose sk is a socket in
 * TCP_CLOSE (Linux's test_run gives the skb a freshly allocated socket). */
static int run_tc(const struct kbpf_program *prog, uint32_t *retval)
{
	static uint8_t buf[256 + 54];
	struct kbpf_linux_skb skb;
	/* one object both ways: the tests' kfuncs take it as the TCP host's struct sock,
	 * programs read skb->sk as hosts/linux's socket (a struct bpf_sock first), which is
	 * the larger: a struct sock alone would let a read of sk->state run past it */
	union {
		struct sock tcp;
		struct kbpf_linux_sock lsk;
	} sk;
	uint64_t r0 = 0;
	int ret;

	memset(&sk, 0, sizeof(sk));
	sk.tcp.sk_state = TCP_CLOSE;
	sk.lsk.sk.state = TCP_CLOSE;
	pkt_v4(buf + 256);
	ret = kbpf_linux_skb_init(&skb, buf, sizeof(buf), 256, 54);
	if (ret)
		return ret;
	skb.md.protocol = 0x0008; /* htons(ETH_P_IP) */
	skb.md.sk = &sk.lsk.sk;
	ret = kbpf_program_run(prog, &skb, &r0);
	*retval = (uint32_t)r0;
	return ret;
}

/* progs/kfunc_call_test.c's struct syscall_test_args; named differently, because this
 * binary's types become the programs' vmlinux.h, which must not define theirs. */
struct kfunc_syscall_ctx {
	uint8_t data[16];
	size_t size;
};

/* BPF_PROG_TEST_RUN of a syscall program: ctx NULL (ctx_size_in 0) or args
 * (sizeof(args)), with Linux's max_ctx_offset rule (kbpf_linux_test_run_syscall). */
static int run_syscall(const struct kbpf_program *prog, const struct kfunc_syscall_ctx *args, uint32_t *retval)
{
	struct kfunc_syscall_ctx copy;

	if (args)
		copy = *args;
	return kbpf_linux_test_run_syscall(kbpf_program_prog(prog), args ? &copy : NULL, args ? sizeof(copy) : 0,
					   retval);
}

const char *kfunc_last_line(const char *log, char *out, size_t size)
{
	const char *end = log + strlen(log), *start;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), start);
	return out;
}

static void diagnose_object(const char *file);

enum run_kind { RUN_TC, RUN_SYSCALL, RUN_SYSCALL_NULL, RUN_NONE };

/* prog_tests/kfunc_call.c verify_success: the whole object loads; the program returns
 * retval. (The light-skeleton half needs a loader program: not modelled.) */
static void success_case(const char *prog_name, enum run_kind kind, uint32_t want)
{
	char name[160], log[65536], line[512], err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object *obj = NULL;
	struct kfunc_syscall_ctx args = { .size = 10 };
	uint32_t got = 0;
	int ret;

	if (kind == RUN_NONE)
		snprintf(name, sizeof(name), "kfunc_call_test.c: %s loads", prog_name);
	else
		snprintf(name, sizeof(name), "kfunc_call_test.c: %s returns %d", prog_name, (int)want);
	if (!host) {
		kfunc_record(name, 0, "%s", err);
		return;
	}
	ret = object_load(host, "kfunc_call_test.bpf.o", NULL, &obj, log, sizeof(log));
	if (ret) {
		static int diagnosed;
		kfunc_record(name, 0, "load failed (%s): %s", strerror(-ret), kfunc_last_line(log, line, sizeof(line)));
		if (!diagnosed++)
			diagnose_object("kfunc_call_test.bpf.o");
		goto out;
	}
	const struct kbpf_program *prog = kbpf_object_find_program(obj, prog_name);
	if (!prog) {
		kfunc_record(name, 0, "no program %s", prog_name);
		goto out;
	}
	switch (kind) {
	case RUN_TC: ret = run_tc(prog, &got); break;
	case RUN_SYSCALL: ret = run_syscall(prog, &args, &got); break;
	case RUN_SYSCALL_NULL: ret = run_syscall(prog, NULL, &got); break;
	case RUN_NONE: kfunc_record(name, 1, "loaded"); goto out;
	}
	if (ret)
		kfunc_record(name, 0, "test run failed: %s", strerror(-ret));
	else
		kfunc_record(name, got == want, "retval %d", (int)got);
out:
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* prog_tests/kfunc_call.c verify_fail with retval 0: loading the one program must fail
 * and the log must hold msg. */
static void load_fail_case(const char *prog_name, const char *msg)
{
	char name[256], log[65536], line[512], err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object *obj = NULL;
	int ret;

	snprintf(name, sizeof(name), "kfunc_call_fail.c: %s is refused: %s", prog_name, msg);
	if (!host) {
		kfunc_record(name, 0, "%s", err);
		return;
	}
	ret = object_load(host, "kfunc_call_fail.bpf.o", prog_name, &obj, log, sizeof(log));
	if (!ret)
		kfunc_record(name, 0, "loaded: kbpf's verifier accepted it");
	else if (!strstr(log, msg))
		kfunc_record(name, 0, "refused (%s) with another message: %s", strerror(-ret), kfunc_last_line(log, line, sizeof(line)));
	else
		kfunc_record(name, 1, "refused (%s): %s", strerror(-ret), msg);
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* The object API keeps no verifier log for a program that loads, so the statistics line
 * Linux's test reads ("processed 4 insns") comes from verifying the loaded program's
 * instructions (linked and relocated) again, at Linux's log level for it. */
static void verify_stats(struct kbpf_host *host, const struct kbpf_program *prog, const char *type, const char *want,
			 const char *name)
{
	static char log[65536];
	char line[512];
	size_t cnt = 0;
	const struct bpf_insn *insns = kbpf_program_insns(prog, &cnt);
	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = host, .prog_type = type, .license = "GPL",
		.log_level = KBPF_LOG_LEVEL1 | KBPF_LOG_STATS, .log_buf = log, .log_size = sizeof(log),
	};
	int rc;

	log[0] = 0;
	rc = insns ? kbpf_prog_verify(insns, cnt, &vo, NULL) : -ENOENT;
	if (rc)
		kfunc_record(name, 0, "loaded, but verifying it again failed (%s): %s", strerror(-rc),
			     kfunc_last_line(log, line, sizeof(line)));
	else if (strstr(log, want))
		kfunc_record(name, 1, "loaded: %s", want);
	else
		kfunc_record(name, 0, "loaded, but the log says: %s", kfunc_last_line(log, line, sizeof(line)));
}

/* verify_fail with retval -EINVAL: the one program loads with "processed 4 insns" in the
 * log, and a test run with a NULL ctx fails with -EINVAL (max_ctx_offset 25). Two
 * outcomes. */
static void run_fail_case(const char *prog_name)
{
	char name[256], log[65536], line[512], err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object *obj = NULL;
	uint32_t got;
	int ret;

	snprintf(name, sizeof(name), "kfunc_call_fail.c: %s loads: processed 4 insns", prog_name);
	if (!host) {
		kfunc_record(name, 0, "%s", err);
		return;
	}
	ret = object_load(host, "kfunc_call_fail.bpf.o", prog_name, &obj, log, sizeof(log));
	if (ret)
		kfunc_record(name, 0, "load failed (%s): %s", strerror(-ret), kfunc_last_line(log, line, sizeof(line)));
	else
		verify_stats(host, kbpf_object_find_program(obj, prog_name), "syscall", "processed 4 insns", name);
	snprintf(name, sizeof(name), "kfunc_call_fail.c: %s test run with NULL ctx fails with -EINVAL", prog_name);
	if (ret) {
		kfunc_record(name, 0, "not loaded");
	} else {
		/* Linux: the kfunc's memory argument reaches ctx byte 24 (25), so a test run
		 * with ctx_size_in 0 is refused before the program runs. */
		ret = run_syscall(kbpf_object_find_program(obj, prog_name), NULL, &got);
		if (ret)
			kfunc_record(name, ret == -EINVAL, "test run: %s (max_ctx_offset %u)", strerror(-ret),
				     kbpf_prog_max_ctx_offset(kbpf_program_prog(kbpf_object_find_program(obj, prog_name))));
		else
			kfunc_record(name, 0, "test run succeeded (retval %d), max_ctx_offset %u", (int)got,
				     kbpf_prog_max_ctx_offset(kbpf_program_prog(kbpf_object_find_program(obj, prog_name))));
	}
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* When an object does not load, say which of its programs fails alone and why: Linux
 * loads them together, so one refusal hides the rest. Information only, no outcome. */
static void diagnose_object(const char *file)
{
	char log[65536], line[512], err[512] = "", path[4096];
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host };
	struct kbpf_object *all = NULL;

	snprintf(path, sizeof(path), "%s/%s", objdir, file);
	if (!host || kbpf_object_open_file(path, &opts, &all)) {
		kbpf_host_free(host);
		return;
	}
	for (struct kbpf_program *p = kbpf_object_next_program(all, NULL); p; p = kbpf_object_next_program(all, p)) {
		struct kbpf_object *one = NULL;
		int ret = object_load(host, file, kbpf_program_name(p), &one, log, sizeof(log));
		printf("note: %s: program %s alone: %s\n", file, kbpf_program_name(p),
		       ret ? kfunc_last_line(log, line, sizeof(line)) : "loads");
		kbpf_object_close(one);
	}
	kbpf_object_close(all);
	kbpf_host_free(host);
}

/* The object's .data map: skel->data (active_res and sk_state_res start at -1). */
static struct kbpf_map *data_map(struct kbpf_object *obj)
{
	for (struct kbpf_map *m = kbpf_object_next_map(obj, NULL); m; m = kbpf_object_next_map(obj, m)) {
		const char *n = kbpf_map_name(m);
		size_t len = n ? strlen(n) : 0;
		if (len >= 5 && !strcmp(n + len - 5, ".data"))
			return m;
	}
	return NULL;
}

/* prog_tests/kfunc_call.c test_subprog: retval 10, active_res != -1 (a typed __ksym
 * per-CPU variable, bpf_prog_active), sk_state_res == BPF_TCP_CLOSE. */
static void subprog_case(void)
{
	static const char *const names[] = {
		"kfunc_call_test_subprog.c: kfunc_call_test1 returns 10",
		"kfunc_call_test_subprog.c: active_res != -1 (typed ksym bpf_prog_active)",
		"kfunc_call_test_subprog.c: sk_state_res == BPF_TCP_CLOSE (7)",
	};
	char log[65536], line[512], err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object *obj = NULL;
	int ret = host ? object_load(host, "kfunc_call_test_subprog.bpf.o", NULL, &obj, log, sizeof(log)) : -ENOMEM;
	uint32_t got = 0;

	if (ret) {
		for (int i = 0; i < 3; i++)
			kfunc_record(names[i], 0, "load failed (%s): %s", strerror(-ret),
			       host ? kfunc_last_line(log, line, sizeof(line)) : err);
		kbpf_host_free(host);
		return;
	}
	ret = run_tc(kbpf_object_find_program(obj, "kfunc_call_test1"), &got);
	if (ret)
		kfunc_record(names[0], 0, "test run failed: %s", strerror(-ret));
	else
		kfunc_record(names[0], got == 10, "retval %d", (int)got);
	struct kbpf_map *data = data_map(obj);
	int32_t vals[2] = { -1, -1 }; /* active_res, sk_state_res, in declaration order */
	uint32_t key = 0;
	uint8_t value[64] = { 0 };
	if (data && kbpf_map_value_size(data) >= sizeof(vals) && kbpf_map_value_size(data) <= sizeof(value) &&
	    !kbpf_map_lookup(data, &key, value))
		memcpy(vals, value, sizeof(vals));
	kfunc_record(names[1], !ret && vals[0] != -1, "active_res %d", vals[0]);
	kfunc_record(names[2], !ret && vals[1] == 7, "sk_state_res %d", vals[1]);
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* prog_tests/kfunc_call.c test_destructive: loads with CAP_SYS_BOOT; without it the load
 * fails with -EACCES and Linux's message. */
static void destructive_case(void)
{
	char log[65536], line[512], err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	struct kbpf_object *obj = NULL;
	int ret = host ? object_load(host, "kfunc_call_destructive.bpf.o", NULL, &obj, log, sizeof(log)) : -ENOMEM;

	if (ret)
		kfunc_record("kfunc_call_destructive.c: loads with CAP_SYS_BOOT", 0, "load failed (%s): %s", strerror(-ret),
		       host ? kfunc_last_line(log, line, sizeof(line)) : err);
	else
		kfunc_record("kfunc_call_destructive.c: loads with CAP_SYS_BOOT", 1, "loaded");
	kbpf_object_close(obj);
	obj = NULL;
	/* cap_helpers.h: CAP_SYS_BOOT dropped, every other capability kept */
	static const char what[] = "kfunc_call_destructive.c: without CAP_SYS_BOOT, load fails -EACCES: destructive "
				   "kfunc calls require CAP_SYS_BOOT capabilities";
	static const char msg[] = "destructive kfunc calls require CAP_SYS_BOOT capabilities";
	ret = host ? object_load_caps(host, "kfunc_call_destructive.bpf.o", NULL, KBPF_CAP_ALL & ~KBPF_CAP_SYS_BOOT,
				      &obj, log, sizeof(log))
		   : -ENOMEM;
	if (!ret)
		kfunc_record(what, 0, "loaded without CAP_SYS_BOOT");
	else if (ret != -EACCES || !strstr(log, msg))
		kfunc_record(what, 0, "refused (%s): %s", strerror(-ret), host ? kfunc_last_line(log, line, sizeof(line)) : err);
	else
		kfunc_record(what, 1, "refused (%s): %s", strerror(-ret), msg);
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

/* The host side of the test kfuncs: all are in this binary's BTF (pahole kept them, the
 * linker kept them) and registered for Linux's three program types. */
static void host_case(void)
{
	char err[512] = "";
	struct kbpf_host *host = host_new(err, sizeof(err));
	int n = 0;

	if (host) {
		struct kbpf_kfunc_prog_info info = { .sz = sizeof(info), .prog_type = "sched_cls" };
		const struct btf *btf = kbpf_host_btf(host);
		static const char *const fns[] = { "bpf_kfunc_call_test1", "bpf_kfunc_call_test_acquire",
						   "bpf_kfunc_call_test_release", "bpf_kfunc_call_test_destructive" };
		static const uint32_t want[] = { 0, KF_ACQUIRE | KF_RET_NULL, KF_RELEASE, KF_DESTRUCTIVE };
		for (int i = 0; i < 4; i++) {
			int id = btf__find_by_name_kind(btf, fns[i], BTF_KIND_FUNC);
			uint32_t flags = ~0u;
			if (id > 0 && !kbpf_host_kfunc_allowed(host, &info, (uint32_t)id, &flags) && flags == want[i])
				n++;
		}
		info.prog_type = "xdp";
		int id = btf__find_by_name_kind(btf, "bpf_kfunc_call_test1", BTF_KIND_FUNC);
		uint32_t flags;
		if (id > 0 && kbpf_host_kfunc_allowed(host, &info, (uint32_t)id, &flags) == -EACCES)
			n++;
	}
	static const char what[] =
		"host: the test kfuncs are in the host BTF, registered for sched_cls with Linux's flags, not for xdp";
	if (host)
		kfunc_record(what, n == 5, "%d of 5 checks", n);
	else
		kfunc_record(what, 0, "%s", err);
	kbpf_host_free(host);
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* The names in FILE (one per line, '#' comments), or NULL with *n = 0. */
static char **read_list(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	char line[512], **v = NULL;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		char **nv = realloc(v, (size_t)(*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = strdup(line);
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	const char *expected = NULL, *write_expected = NULL, *calls_table = NULL;
	int passed = 0, regressions = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OBJDIR [--expected FILE] [--write-expected FILE]\n", argv[0]);
		return 2;
	}
	objdir = argv[1];
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--expected"))
			expected = argv[i + 1];
		else if (!strcmp(argv[i], "--write-expected"))
			write_expected = argv[i + 1];
		else if (!strcmp(argv[i], "--calls-table"))
			calls_table = argv[i + 1];
	}
	libbpf_set_print(silent);

	host_case();
	/* §4.3 failure rows first, as Linux's table has them */
	run_fail_case("kfunc_syscall_test_fail");
	run_fail_case("kfunc_syscall_test_null_fail");
	load_fail_case("kfunc_call_test_get_mem_fail_rdonly", "R0 cannot write into rdonly_mem");
	load_fail_case("kfunc_call_test_get_mem_fail_use_after_free", "invalid mem access 'scalar'");
	load_fail_case("kfunc_call_test_get_mem_fail_oob", "min value is outside of the allowed memory range");
	load_fail_case("kfunc_call_test_get_mem_fail_not_const", "is not a const");
	load_fail_case("kfunc_call_test_mem_acquire_fail", "acquire kernel function does not return PTR_TO_BTF_ID");
	/* §4.2 */
	success_case("kfunc_call_test1", RUN_TC, 12);
	success_case("kfunc_call_test2", RUN_TC, 3);
	success_case("kfunc_call_test_ref_btf_id", RUN_TC, 0);
	success_case("kfunc_call_test_get_mem", RUN_TC, 42);
	success_case("kfunc_call_test_pass", RUN_NONE, 0);
	success_case("kfunc_syscall_test", RUN_SYSCALL, 0);
	success_case("kfunc_syscall_test_null", RUN_SYSCALL_NULL, 0);
	/* §4.4 */
	subprog_case();
	destructive_case();
	/* §4.5 */
	if (calls_table) {
		char err[512] = "";
		struct kbpf_host *host = host_new(err, sizeof(err));
		if (host)
			kfunc_verifier_calls(host, calls_table);
		else
			kfunc_record("verifier/calls.c: the kfunc cases", 0, "%s", err);
		kbpf_host_free(host);
	}

	/* Linux WARNs if memb_acquire or memb1_release ever runs: the verifier must stop them */
	kfunc_record("host: no test kfunc Linux guards with WARN_ON_ONCE ran", kbpf_linux_test_kfunc_warnings() == 0,
		     "%u warning(s)", kbpf_linux_test_kfunc_warnings());

	int nr_exp = 0;
	char **exp = expected ? read_list(expected, &nr_exp) : NULL;
	for (int i = 0; i < nr_outcomes; i++) {
		const struct outcome *o = &outcomes[i];
		int listed = 0;
		for (int k = 0; k < nr_exp; k++)
			listed |= !strcmp(exp[k], o->name);
		passed += o->pass;
		if (listed && !o->pass)
			regressions++;
		printf("%s %s -- %s\n", o->pass ? "PASS" : listed ? "REGRESSION" : "FAIL", o->name, o->why);
		if (o->pass && expected && !listed)
			printf("NEW PASS %s (add it to %s)\n", o->name, expected);
	}
	for (int k = 0; k < nr_exp; k++) {
		int found = 0;
		for (int i = 0; i < nr_outcomes; i++)
			found |= !strcmp(exp[k], outcomes[i].name);
		if (!found) {
			printf("REGRESSION %s -- listed in %s but no longer an outcome\n", exp[k], expected);
			regressions++;
		}
		free(exp[k]);
	}
	free(exp);
	if (write_expected) {
		FILE *f = fopen(write_expected, "w");
		if (!f) {
			perror(write_expected);
			return 1;
		}
		fprintf(f, "# SPDX-License-Identifier: Apache-2.0\n"
			   "# linux.kfunc_selftests: the outcomes of Linux's kfunc selftests that kbpf reproduces\n"
			   "# today (the regression floor). Regenerate with --write-expected (README.md).\n");
		for (int i = 0; i < nr_outcomes; i++)
			if (outcomes[i].pass)
				fprintf(f, "%s\n", outcomes[i].name);
		fclose(f);
	}
	printf("%d of %d outcomes as Linux", passed, nr_outcomes);
	if (expected)
		printf("; %d regression(s) against %s", regressions, expected);
	printf("\n");
	return regressions ? 1 : 0;
}
