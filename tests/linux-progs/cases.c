/* SPDX-License-Identifier: Apache-2.0 */
/* One case of an annotated selftest program, run as Linux 6.12's test_loader.c's
 * run_subtest runs it (README.md): the object reopened with only this program and the
 * auxiliary ones of the mode to load, the program's flags and log level, the verdict, the
 * messages, the translated program, and a test run on both engines. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "cases.h"
#include "../linux-selftests/run_ctx.h"

#define LOG_SIZE (2u << 20)
enum { R_PASS, R_FAIL, R_SKIP };

/* kbpf takes these of Linux's prog_flags (kbpf_program_set_flags), REG_INVARIANTS (set
 * on every load, as test_progs does) included: inconsistent bounds fail the load.
 * RND_HI32 asks the verifier to randomise the upper halves of 32-bit results for JIT
 * testing: kbpf has no such rewrite, and it changes no verdict. */
#define KBPF_FLAGS \
	(LP_F_STRICT_ALIGNMENT | LP_F_ANY_ALIGNMENT | LP_F_TEST_STATE_FREQ | LP_F_SLEEPABLE | LP_F_TEST_REG_INVARIANTS)
#define IGNORED_FLAGS (LP_F_TEST_RND_HI32)

static char **strv_dup(char **v, int n)
{
	char **d = calloc((size_t)n + 1, sizeof(*d));

	for (int i = 0; d && i < n; i++)
		if (!(d[i] = strdup(v[i]))) {
			for (int k = 0; k < i; k++)
				free(d[k]);
			free(d);
			return NULL;
		}
	return d;
}

static void strv_free(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* A case owns copies of everything it names, so cases free independently. */
static int add_case(struct lp_case **cases, size_t *nr, const char *obj_name, const char *path,
		    const struct btf *btf, const char *prog_name, int unpriv)
{
	struct lp_case *n = realloc(*cases, (*nr + 1) * sizeof(*n)), *c;
	char err[256];

	if (!n)
		return -ENOMEM;
	*cases = n;
	c = &n[*nr];
	memset(c, 0, sizeof(*c));
	c->unpriv = unpriv;
	char prefix[160];

	snprintf(prefix, sizeof(prefix), "%s: ", obj_name);
	if (lp_spec_parse(btf, prog_name, &c->spec, err, sizeof(err)) ||
	    !(c->name = lp_strjoin(prefix, unpriv ? c->spec.unpriv.name : c->spec.priv.name))) {
		lp_spec_free(&c->spec);
		return -ENOMEM;
	}
	if (!(c->path = strdup(path))) {
		lp_spec_free(&c->spec);
		free(c->name);
		return -ENOMEM;
	}
	(*nr)++;
	return 0;
}

int lp_cases_collect(const char *path, struct lp_case **cases, size_t *nr, char *err, size_t err_size)
{
	struct kbpf_object_open_opts o = { .sz = sizeof(o), .log_buf = err, .log_size = err_size };
	struct kbpf_object *obj = NULL;
	struct kbpf_program *p;
	char obj_name[128];
	const char *base = strrchr(path, '/');
	int r = kbpf_object_open_file(path, &o, &obj);

	snprintf(obj_name, sizeof(obj_name), "%s", base ? base + 1 : path);
	obj_name[strcspn(obj_name, ".")] = 0;
	if (r)
		return r;
	const struct btf *btf = kbpf_object_btf(obj);
	if (!btf) {
		kbpf_object_close(obj);
		snprintf(err, err_size, "the object has no BTF");
		return -EINVAL;
	}
	/* the auxiliary programs of each mode are loaded with every case of that mode */
	char **aux[2] = { NULL, NULL };
	int nr_aux[2] = { 0, 0 };
	size_t first = *nr;
	for (p = kbpf_object_next_program(obj, NULL); p && !r; p = kbpf_object_next_program(obj, p)) {
		struct lp_spec spec;
		char perr[256];

		if (lp_spec_parse(btf, kbpf_program_name(p), &spec, perr, sizeof(perr))) {
			lp_spec_free(&spec);
			continue; /* test_loader too leaves a program with no valid spec alone */
		}
		for (int m = 0; m < 2 && !r; m++) {
			if (!(m ? spec.auxiliary_unpriv : spec.auxiliary))
				continue;
			char **n = realloc(aux[m], (size_t)(nr_aux[m] + 1) * sizeof(*n));
			if (!n || !(n[nr_aux[m]] = strdup(spec.prog_name))) {
				if (n)
					aux[m] = n;
				r = -ENOMEM;
				break;
			}
			aux[m] = n;
			nr_aux[m]++;
		}
		if (!r && !spec.auxiliary && !spec.auxiliary_unpriv) {
			if (spec.mode_mask & LP_PRIV)
				r = add_case(cases, nr, obj_name, path, btf, spec.prog_name, 0);
			if (!r && (spec.mode_mask & LP_UNPRIV))
				r = add_case(cases, nr, obj_name, path, btf, spec.prog_name, 1);
		}
		lp_spec_free(&spec);
	}
	for (size_t i = first; i < *nr && !r; i++) {
		struct lp_case *c = &(*cases)[i];

		c->nr_aux = nr_aux[c->unpriv];
		if (c->nr_aux && !(c->aux = strv_dup(aux[c->unpriv], c->nr_aux)))
			r = -ENOMEM;
	}
	strv_free(aux[0], nr_aux[0]);
	strv_free(aux[1], nr_aux[1]);
	kbpf_object_close(obj);
	if (r)
		snprintf(err, err_size, "out of memory");
	return r;
}

void lp_cases_free(struct lp_case *cases, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		lp_spec_free(&cases[i].spec);
		strv_free(cases[i].aux, cases[i].nr_aux);
		free(cases[i].name);
		free(cases[i].path);
	}
	free(cases);
}

static void set(int *rc, char *kind, size_t ks, char *why, size_t ws, int r, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
static void set(int *rc, char *kind, size_t ks, char *why, size_t ws, int r, const char *k, const char *fmt, ...)
{
	va_list ap;

	*rc = r;
	snprintf(kind, ks, "%s", k);
	va_start(ap, fmt);
	vsnprintf(why, ws, fmt, ap);
	va_end(ap);
}

/* The line of the log that says why a load failed: the last one that is not the
 * statistics or a verdict line. */
static void log_reason(const char *log, char *buf, size_t size)
{
	const char *end = log + strlen(log), *line_end = end;

	buf[0] = 0;
	while (line_end > log) {
		const char *start = line_end;

		while (start > log && start[-1] != '\n')
			start--;
		/* the loader's closing "program 'x': <errno text>" says less than the line before */
		bool closing = !strncmp(start, "program '", 9) && !memchr(start, '\n', (size_t)(line_end - start)) &&
			       strstr(start, "': ") && !strchr(strstr(start, "': ") + 3, ':') &&
			       line_end - start < 80 && start > log;
		if (line_end > start && !closing && strncmp(start, "processed ", 10) &&
		    strncmp(start, "verification time", 17)) {
			snprintf(buf, size, "%.*s", (int)(line_end - start), start);
			return;
		}
		line_end = start > log ? start - 1 : log;
	}
}

struct loaded {
	struct kbpf_object *obj;
	struct kbpf_program *prog;
	int err;
	bool opened;
};

static const char *unsupported_flag(uint32_t flags)
{
	if (flags & LP_F_XDP_HAS_FRAGS)
		return "BPF_F_XDP_HAS_FRAGS: kbpf has no multi-buffer XDP";
	if (flags & ~(KBPF_FLAGS | IGNORED_FLAGS))
		return "an unknown prog flag";
	return NULL;
}

static void load(const struct lp_case *c, struct kbpf_host *host, int log_level, int jit, char *log,
		 struct loaded *l)
{
	struct kbpf_object_open_opts o = {
		.sz = sizeof(o), .host = host, .log_buf = log, .log_size = LOG_SIZE, .log_level = (unsigned)log_level,
		.jit = jit,
		/* prog_tests/verifier.c drops CAP_SYS_ADMIN for the whole run; unprivileged
		 * runs drop CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN too */
		.caps = c->unpriv ? KBPF_CAP_NONE : KBPF_CAP_BPF | KBPF_CAP_PERFMON | KBPF_CAP_NET_ADMIN,
	};
	/* test_verifier_mtu runs its file with CAP_BPF and CAP_NET_ADMIN only */
	const char *base = strrchr(c->path, '/');
	base = base ? base + 1 : c->path;
	if (!c->unpriv && !strncmp(base, "verifier_mtu.", 13))
		o.caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN;
	struct kbpf_program *p;
	char btf_path[4096];

	memset(l, 0, sizeof(*l));
	log[0] = 0;
	if (c->spec.btf_path) {
		/* test_loader's btf_custom_path: the CO-RE target, an object run.sh builds
		 * next to the programs (test_progs finds it in its directory) */
		const char *slash = strrchr(c->path, '/');
		int dir = slash ? (int)(slash - c->path) : 0;

		snprintf(btf_path, sizeof(btf_path), "%.*s%s%s", dir, c->path, slash ? "/" : "", c->spec.btf_path);
		o.btf_custom_path = btf_path;
	}
	l->err = kbpf_object_open_file(c->path, &o, &l->obj);
	if (l->err)
		return;
	l->opened = true;
	for (p = kbpf_object_next_program(l->obj, NULL); p; p = kbpf_object_next_program(l->obj, p)) {
		bool mine = !strcmp(kbpf_program_name(p), c->spec.prog_name), aux = false;

		for (int i = 0; i < c->nr_aux; i++)
			aux |= !strcmp(kbpf_program_name(p), c->aux[i]);
		kbpf_program_set_autoload(p, mine || aux);
		if (mine)
			l->prog = p;
	}
	if (l->prog)
		kbpf_program_set_flags(l->prog, kbpf_program_flags(l->prog) | (c->spec.prog_flags & KBPF_FLAGS));
	l->err = kbpf_object_load(l->obj);
}

static void unload(struct loaded *l)
{
	kbpf_object_close(l->obj);
	memset(l, 0, sizeof(*l));
}

/* The translated program as test_loader prints it: "N: insn" a line, calls without
 * their "#id". Linux's xlated program holds, in a helper call's imm, the helper's address
 * relative to __bpf_call_base (do_misc_fixups' patch_call_imm; x86-64's JIT inlines no
 * helper call in 6.12), and in a kfunc call's its address: the disassembler names
 * neither ("call unknown", "call kernel-function"). kbpf keeps the ids; the harness prints
 * what Linux's dump shows. bpf_dump_raw_ok's bpf_tail_call is named. */
static char *xlated_text(const struct kbpf_program *prog)
{
	size_t cnt = 0, cap = 4096, len = 0;
	const struct bpf_insn *insns = kbpf_prog_insns(kbpf_program_prog(prog), &cnt);
	char *out = malloc(cap), line[256];

	if (!out)
		return NULL;
	out[0] = 0;
	for (size_t i = 0; insns && i < cnt;) {
		int n = kbpf_insn_disasm(insns, cnt, i, NULL, line, sizeof(line));
		char *hash = strstr(line, "call ") ? strchr(line, '#') : NULL;
		const struct bpf_insn *in = &insns[i];

		if (hash && hash[1] >= '0' && hash[1] <= '9')
			*hash = 0;
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 && in->imm != BPF_FUNC_tail_call)
			snprintf(line, sizeof(line), "call unknown");
		else if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			snprintf(line, sizeof(line), "call kernel-function");
		size_t need = len + strlen(line) + 32;
		if (need > cap) {
			char *nout = realloc(out, cap = 2 * need);
			if (!nout) {
				free(out);
				return NULL;
			}
			out = nout;
		}
		len += (size_t)sprintf(out + len, "%zu: %s\n", i, line);
		i += n > 0 ? (size_t)n : 1;
	}
	return out;
}

static const char *run_type(uint32_t type)
{
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER: return "socket_filter";
	case BPF_PROG_TYPE_SCHED_CLS: return "sched_cls";
	case BPF_PROG_TYPE_SCHED_ACT: return "sched_act";
	case BPF_PROG_TYPE_XDP: return "xdp";
	case BPF_PROG_TYPE_CGROUP_SKB: return "cgroup_skb";
	case BPF_PROG_TYPE_LWT_IN: return "lwt_in";
	case BPF_PROG_TYPE_LWT_OUT: return "lwt_out";
	case BPF_PROG_TYPE_LWT_XMIT: return "lwt_xmit";
	default: return NULL;
	}
}

/* prog_tests/verifier.c runs a few objects with a pre_execution_cb that test_loader calls
 * after the load and before the test run: init_test_val_map() writes key 0 of one array
 * map with bpf_misc.h's struct test_val { .index = 7 * sizeof(int), .foo[6] = 0xabcdef12 }. */
static const struct {
	const char *object, *map;
} test_val_maps[] = {
	{ "verifier_array_access", "map_array_ro" },
	{ "verifier_value_ptr_arith", "map_array_48b" },
};

static int pre_execution(const struct lp_case *c, const struct loaded *l, char *why, size_t ws)
{
	const char *base = strrchr(c->path, '/');
	size_t len;

	base = base ? base + 1 : c->path;
	len = strcspn(base, ".");
	for (size_t i = 0; i < sizeof(test_val_maps) / sizeof(test_val_maps[0]); i++) {
		if (strlen(test_val_maps[i].object) != len || strncmp(base, test_val_maps[i].object, len))
			continue;
		struct kbpf_map *map = kbpf_object_find_map(l->obj, test_val_maps[i].map);
		int32_t value[12] = { 7 * sizeof(int32_t) }, key = 0, err;

		value[1 + 6] = (int32_t)0xabcdef12;
		if (!map) {
			snprintf(why, ws, "pre_execution_cb: no map '%s'", test_val_maps[i].map);
			return -ENOENT;
		}
		if ((err = kbpf_map_update(map, &key, value, BPF_ANY))) {
			snprintf(why, ws, "pre_execution_cb: updating '%s': %s", test_val_maps[i].map, strerror(-err));
			return err;
		}
	}
	return 0;
}

#ifdef KBPF_PROGS_TEST_KFUNCS
/* A fentry/fexit/fmod_ret program's test run: the attach type and target from its
 * section ("fentry/FUNC", "fexit.s/FUNC", …), as libbpf loads it. */
static int tracing_test_run(const struct kbpf_program *prog, uint32_t *retval, char *why, size_t ws)
{
	static const struct {
		const char *prefix;
		int attach;
	} kinds[] = { { "fentry", BPF_TRACE_FENTRY },   { "fexit", BPF_TRACE_FEXIT },
		      { "fmod_ret", BPF_MODIFY_RETURN }, { "fentry.s", BPF_TRACE_FENTRY },
		      { "fexit.s", BPF_TRACE_FEXIT },    { "fmod_ret.s", BPF_MODIFY_RETURN } };
	const char *sec = kbpf_program_section_name(prog);
	const char *slash = sec ? strchr(sec, '/') : NULL;
	if (sec && sec[0] == '?')
		sec++;
	for (size_t i = 0; slash && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].prefix) != (size_t)(slash - sec) || strncmp(sec, kinds[i].prefix, (size_t)(slash - sec)))
			continue;
		int err = kbpf_linux_test_run_tracing(kbpf_program_prog(prog), slash + 1, kinds[i].attach, retval);
		if (err)
			snprintf(why, ws, "tracing test run: %s", strerror(-err));
		return err;
	}
	snprintf(why, ws, "no test run for tracing section '%s'", sec ? sec : "");
	return -EOPNOTSUPP;
}
#endif

/* One BPF_PROG_TEST_RUN-style run with 64 zero bytes: checked on the interpreter, plain
 * on the JIT. Returns 0 with *r0, or -errno with the reason in why. */
static int test_run(const struct kbpf_program *prog, int checked, int32_t *r0, char *why, size_t ws)
{
	static uint8_t data[TEST_DATA_LEN];
	uint8_t *buf = calloc(1, RUN_BUF_SIZE);
	const struct kbpf_prog *kp = kbpf_program_prog(prog);
	uint32_t type = kbpf_program_type(prog);
	struct run_ctx rc;
	int err;

	if (!buf)
		return -ENOMEM;
	if (type == BPF_PROG_TYPE_SYSCALL) {
		uint32_t v = 0;
		/* test_loader runs syscall programs with empty options: no context */
		err = kbpf_linux_test_run_syscall(kp, NULL, 0, &v);
		*r0 = (int32_t)v;
		if (err)
			snprintf(why, ws, "syscall test run: %s", strerror(-err));
		free(buf);
		return err;
	}
#ifdef KBPF_PROGS_TEST_KFUNCS
	if (type == BPF_PROG_TYPE_TRACING) {
		/* bpf_prog_test_run_tracing: Linux's test functions called, the program run
		 * through the trampoline of its attach target (test_fentry.c) */
		uint32_t v = 0;
		err = tracing_test_run(prog, &v, why, ws);
		*r0 = (int32_t)v;
		free(buf);
		return err;
	}
#endif
	const char *tn = run_type(type);
	if (!tn || run_ctx_init(&rc, buf, tn, data)) {
		snprintf(why, ws, "no test run for program type %u", type);
		free(buf);
		return -EOPNOTSUPP;
	}
	if (!checked) {
		uint64_t v = 0;
		err = kbpf_prog_run(kp, rc.ctx, &v);
		*r0 = (int32_t)v;
		if (err)
			snprintf(why, ws, "run: %s", strerror(-err));
		free(buf);
		return err;
	}
	char msg[256] = "";
	struct kbpf_mem_region regions[2] = {
		{ rc.ctx, rc.ctx_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
		{ rc.buf, RUN_BUF_SIZE, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
	};
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = regions, .nr_regions = 2,
		.max_insns = 50000000, .err = msg, .err_size = sizeof(msg),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	ro.args[0] = (uint64_t)(uintptr_t)rc.ctx;
	err = kbpf_prog_run_opts(kp, &ro, &rr);
	*r0 = (int32_t)rr.retval;
	if (err)
		snprintf(why, ws, "checked run stopped at insn %lld: %s", (long long)rr.fault_insn, msg);
	free(buf);
	return err;
}

void lp_case_run(const struct lp_case *c, int verbose, int *rc, char *kind, size_t ks, char *why, size_t ws)
{
	const struct lp_mode *m = c->unpriv ? &c->spec.unpriv : &c->spec.priv;
	struct kbpf_host *host = kbpf_host_new();
	char *log = malloc(LOG_SIZE), reason[400];
	struct loaded l;
	const char *uf;
	int level = c->spec.log_level, bad;

	*rc = R_PASS;
	if (!host || !log || kbpf_linux_host_add(host)) {
		set(rc, kind, ks, why, ws, R_FAIL, "harness", "cannot set up a host with Linux's program types");
		goto out_nolog;
	}
#ifdef KBPF_PROGS_TEST_KFUNCS
	/* this executable's BTF (pahole) names Linux's test kfuncs and attach targets */
	if (kbpf_host_btf_load_self(host) || kbpf_linux_host_add_test_kfuncs(host, reason, sizeof(reason)) ||
	    kbpf_linux_host_add_kfuncs(host, reason, sizeof(reason))) {
		set(rc, kind, ks, why, ws, R_FAIL, "harness", "cannot register Linux's test and common kfuncs");
		goto out_nolog;
	}
#endif
	if (!c->spec.arch_ok) {
		set(rc, kind, ks, why, ws, R_SKIP, "arch", "for another architecture (__arch_*)");
		goto out_nolog;
	}
	if ((uf = unsupported_flag(c->spec.prog_flags))) {
		set(rc, kind, ks, why, ws, R_FAIL, "flag", "%s", uf);
		goto out_nolog;
	}
	load(c, host, level, 0, log, &l);
	if (!l.opened) {
		log_reason(log, reason, sizeof(reason));
		set(rc, kind, ks, why, ws, R_FAIL, "open", "kbpf_object_open: %s: %s", strerror(-l.err), reason);
		goto out_nolog;
	}
	if (l.err && level == 0) {
		/* libbpf loads without a log, then once more at level 1 when that fails */
		unload(&l);
		load(c, host, 1, 0, log, &l);
	}
	if (verbose)
		printf("---- log of %s:\n%s----\n", c->name, log);
	if (m->expect_failure && !l.err) {
		set(rc, kind, ks, why, ws, R_FAIL, "accepted", "expected a refusal, the program loaded");
		goto out;
	}
	if (!m->expect_failure && l.err) {
		log_reason(log, reason, sizeof(reason));
		set(rc, kind, ks, why, ws, R_FAIL, "refused", "expected success, load failed (%s): %s",
		    strerror(-l.err), reason);
		goto out;
	}
	if ((bad = lp_msgs_match(log, &m->msgs, false)) >= 0) {
		set(rc, kind, ks, why, ws, R_FAIL, l.err ? "msg-refused" : "msg-accepted",
		    "expected \"%.200s\" in the log (pattern %d of %d)", m->msgs.pat[bad], bad + 1, m->msgs.cnt);
		goto out;
	}
	if (m->xlated.cnt) {
		char *x = l.prog && kbpf_program_prog(l.prog) ? xlated_text(l.prog) : NULL;

		bad = x ? lp_msgs_match(x, &m->xlated, true) : 0;
		if (verbose && x)
			printf("---- xlated of %s:\n%s----\n", c->name, x);
		free(x);
		if (bad >= 0) {
			set(rc, kind, ks, why, ws, R_FAIL, "xlated", "expected \"%.200s\" in the translated program",
			    m->xlated.pat[bad]);
			goto out;
		}
	}
	if (m->jited.cnt) {
		set(rc, kind, ks, why, ws, R_SKIP, "jited", "__jited: lines of Linux's x86-64 JIT output");
		goto out;
	}
	if (m->execute && !m->expect_failure) {
		int32_t r0 = 0;
		int err = pre_execution(c, &l, reason, sizeof(reason));

		if (err) {
			set(rc, kind, ks, why, ws, R_FAIL, "harness", "%s", reason);
			goto out;
		}
		err = test_run(l.prog, 1, &r0, reason, sizeof(reason));

		if (err == -EOPNOTSUPP) {
			set(rc, kind, ks, why, ws, R_FAIL, "run-type", "%s", reason);
			goto out;
		}
		if (err) {
			set(rc, kind, ks, why, ws, R_FAIL, "run-fault", "%s", reason);
			goto out;
		}
		if (m->retval != LP_POINTER_VALUE && r0 != m->retval) {
			set(rc, kind, ks, why, ws, R_FAIL, "retval-interp", "checked interpreter returned %d, expected %d",
			    r0, m->retval);
			goto out;
		}
		unload(&l);
		load(c, host, 0, 1, log, &l);
		if (l.err || !l.prog || !kbpf_prog_is_jited(kbpf_program_prog(l.prog))) {
			log_reason(log, reason, sizeof(reason));
			set(rc, kind, ks, why, ws, R_FAIL, "jit", "load with the JIT: %s", reason);
			goto out;
		}
		if ((err = pre_execution(c, &l, reason, sizeof(reason)))) {
			set(rc, kind, ks, why, ws, R_FAIL, "harness", "%s", reason);
			goto out;
		}
		err = test_run(l.prog, 0, &r0, reason, sizeof(reason));
		if (err) {
			set(rc, kind, ks, why, ws, R_FAIL, "run-jit", "%s", reason);
			goto out;
		}
		if (m->retval != LP_POINTER_VALUE && r0 != m->retval) {
			set(rc, kind, ks, why, ws, R_FAIL, "retval-jit", "JIT returned %d, expected %d", r0, m->retval);
			goto out;
		}
	}
out:
	unload(&l);
out_nolog:
	free(log);
	kbpf_host_free(host);
}
