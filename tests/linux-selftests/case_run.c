/* SPDX-License-Identifier: Apache-2.0 */
/* One selftest case, as Linux's test_verifier does_test_single runs it (verifier-notes
 * §10.4): fixups and maps, verification with Linux's log level, the verdict and the
 * message substrings, the processed-insn count, then BPF_PROG_TEST_RUN-style runs of an
 * accepted program, on the checked interpreter and on the JIT, each with fresh maps. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <linux/if_ether.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/host.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "selftests.h"
#include "run_ctx.h"

/* The test's own BTF (btf_types up to BTF_END_RAW, then btf_strings), as test_verifier.c's
 * load_btf_for_test builds it, or NULL if it has none: global functions and callbacks
 * need it with the test's func_info. */
static struct btf *test_btf(const struct bpf_test *t)
{
	if (!t->func_info_cnt || !t->btf_types[0])
		return NULL;
	size_t n = 0;
	while (n < MAX_BTF_TYPES && t->btf_types[n] != 0xdeadbeefu /* shim.h's BTF_END_RAW */)
		n++;
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(hdr),
		.type_len = (uint32_t)(n * sizeof(t->btf_types[0])), .str_off = (uint32_t)(n * sizeof(t->btf_types[0])),
		.str_len = sizeof(t->btf_strings),
	};
	size_t size = sizeof(hdr) + hdr.type_len + hdr.str_len;
	char *raw = malloc(size);
	if (!raw)
		return NULL;
	memcpy(raw, &hdr, sizeof(hdr));
	memcpy(raw + sizeof(hdr), t->btf_types, hdr.type_len);
	memcpy(raw + sizeof(hdr) + hdr.type_len, t->btf_strings, hdr.str_len);
	struct btf *btf = btf__new(raw, (uint32_t)size);
	free(raw);
	return libbpf_get_error(btf) ? NULL : btf;
}

/* The test's func_info as test_verifier loads it: bpf_fill_big_prog_with_loop_1 moves the
 * callback's record to where its generated program (cnt insns) puts the callback, the
 * last two insns. */
static const struct bpf_func_info *case_func_info(const struct st_case *c, size_t cnt, bool filled,
						   struct bpf_func_info fi[MAX_FUNC_INFOS])
{
	const struct bpf_test *t = c->test;

	memcpy(fi, t->func_info, sizeof(t->func_info));
	if (filled && t->func_info_cnt == 2 &&
	    (void *)t->fill_helper == st_table_sym(c->table, "bpf_fill_big_prog_with_loop_1"))
		fi[1].insn_off = (uint32_t)cnt - 2;
	return fi;
}

/* "program of this type cannot use helper NAME#ID" of an unprivileged load for a helper the host has: hidden from
 * loads without CAP_BPF as Linux hides it (bpf_spin_lock…), a verdict, not a gap. */
static bool unpriv_hidden_helper(const struct kbpf_host *host, const struct st_case *c, const char *unknown)
{
	const char *hash = strchr(unknown, '#');

	return c->unpriv && hash && kbpf_host_helper_proto(host, (int32_t)strtol(hash + 1, NULL, 10));
}

static const struct {
	enum bpf_prog_type type;
	const char *linux_name, *kbpf_name;
} prog_types[] = {
	{ BPF_PROG_TYPE_UNSPEC, "SOCKET_FILTER", "socket_filter" },
	{ BPF_PROG_TYPE_SOCKET_FILTER, "SOCKET_FILTER", "socket_filter" },
	{ BPF_PROG_TYPE_KPROBE, "KPROBE", "kprobe" },
	{ BPF_PROG_TYPE_SCHED_CLS, "SCHED_CLS", "sched_cls" },
	{ BPF_PROG_TYPE_SCHED_ACT, "SCHED_ACT", "sched_act" },
	{ BPF_PROG_TYPE_TRACEPOINT, "TRACEPOINT", "tracepoint" },
	{ BPF_PROG_TYPE_XDP, "XDP", "xdp" },
	{ BPF_PROG_TYPE_PERF_EVENT, "PERF_EVENT", "perf_event" },
	{ BPF_PROG_TYPE_CGROUP_SKB, "CGROUP_SKB", "cgroup_skb" },
	{ BPF_PROG_TYPE_CGROUP_SOCK, "CGROUP_SOCK", "cgroup_sock" },
	{ BPF_PROG_TYPE_LWT_IN, "LWT_IN", "lwt_in" },
	{ BPF_PROG_TYPE_LWT_OUT, "LWT_OUT", "lwt_out" },
	{ BPF_PROG_TYPE_LWT_XMIT, "LWT_XMIT", "lwt_xmit" },
	{ BPF_PROG_TYPE_SOCK_OPS, "SOCK_OPS", "sock_ops" },
	{ BPF_PROG_TYPE_SK_SKB, "SK_SKB", "sk_skb" },
	{ BPF_PROG_TYPE_CGROUP_DEVICE, "CGROUP_DEVICE", "cgroup_device" },
	{ BPF_PROG_TYPE_SK_MSG, "SK_MSG", "sk_msg" },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, "RAW_TRACEPOINT", "raw_tracepoint" },
	{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, "CGROUP_SOCK_ADDR", NULL },
	{ BPF_PROG_TYPE_LWT_SEG6LOCAL, "LWT_SEG6LOCAL", "lwt_seg6local" },
	{ BPF_PROG_TYPE_LIRC_MODE2, "LIRC_MODE2", NULL },
	{ BPF_PROG_TYPE_SK_REUSEPORT, "SK_REUSEPORT", "sk_reuseport" },
	{ BPF_PROG_TYPE_FLOW_DISSECTOR, "FLOW_DISSECTOR", "flow_dissector" },
	{ BPF_PROG_TYPE_CGROUP_SYSCTL, "CGROUP_SYSCTL", "cgroup_sysctl" },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, "RAW_TRACEPOINT_WRITABLE", "raw_tracepoint.w" },
	{ BPF_PROG_TYPE_CGROUP_SOCKOPT, "CGROUP_SOCKOPT", NULL },
	{ BPF_PROG_TYPE_TRACING, "TRACING", NULL },
	{ BPF_PROG_TYPE_STRUCT_OPS, "STRUCT_OPS", NULL },
	{ BPF_PROG_TYPE_EXT, "EXT", NULL },
	{ BPF_PROG_TYPE_LSM, "LSM", NULL },
	{ BPF_PROG_TYPE_SK_LOOKUP, "SK_LOOKUP", "sk_lookup" },
	{ BPF_PROG_TYPE_SYSCALL, "SYSCALL", "syscall" },
};

const char *st_prog_type_name(enum bpf_prog_type type)
{
	for (size_t i = 0; i < sizeof(prog_types) / sizeof(prog_types[0]); i++)
		if (prog_types[i].type == type)
			return prog_types[i].kbpf_name;
	return NULL;
}

const char *st_prog_type_linux_name(enum bpf_prog_type type)
{
	for (size_t i = 0; i < sizeof(prog_types) / sizeof(prog_types[0]); i++)
		if (prog_types[i].type == type)
			return prog_types[i].linux_name;
	return "unknown";
}

static int set(struct st_outcome *out, int rc, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int set(struct st_outcome *out, int rc, const char *kind, const char *fmt, ...)
{
	va_list ap;

	out->rc = rc;
	snprintf(out->kind, sizeof(out->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	return rc;
}

/* Linux's probe_filter_length: up to the last instruction with a code or an imm. */
static size_t prog_len(const struct bpf_test *t)
{
	if (t->prog_len)
		return (size_t)t->prog_len;
	/* at least one instruction: an empty test is one zero instruction */
	int i = MAX_INSNS - 1;

	while (i > 0 && !t->insns[i].code && !t->insns[i].imm)
		i--;
	return (size_t)i + 1;
}

/* Linux's cmp_str_seq: the tab-separated parts of exp appear in log in order. */
static int str_seq_match(const char *log, const char *exp, char *missing, size_t missing_size)
{
	while (exp && *exp) {
		const char *tab = strchr(exp, '\t');
		size_t len = tab ? (size_t)(tab - exp) : strlen(exp);
		char needle[256];
		const char *q;

		if (!len || len >= sizeof(needle)) {
			snprintf(missing, missing_size, "(test bug: empty or long part)");
			return 0;
		}
		memcpy(needle, exp, len);
		needle[len] = 0;
		q = strstr(log, needle);
		if (!q) {
			snprintf(missing, missing_size, "%s", needle);
			return 0;
		}
		log = q + len;
		exp = tab ? tab + 1 : exp + len;
	}
	return 1;
}

/* The last line of a log (the reason of a rejection), skipping the statistics lines. */
static void log_reason(const char *log, char *buf, size_t size)
{
	const char *end = log + strlen(log), *line_end, *start;

	buf[0] = 0;
	while (end > log) {
		while (end > log && end[-1] == '\n')
			end--;
		line_end = end;
		start = end;
		while (start > log && start[-1] != '\n')
			start--;
		end = start;
		if (!strncmp(start, "processed ", 10) || !strncmp(start, "verification time", 17) ||
		    !strncmp(start, "stack depth", 11) || !strncmp(start, "max_states_per_insn", 19))
			continue;
		snprintf(buf, size, "%.*s", (int)(line_end - start), start);
		return;
	}
}

/* Whether the program loads data/data_end/data_meta from its context: those loads need
 * the verifier's context rewrite to give real pointers at run time. */
static int reads_packet_pointers(const struct bpf_insn *insns, size_t cnt, const char *type)
{
	int xdp = !strcmp(type, "xdp");

	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];

		if (in->code != (BPF_LDX | BPF_MEM | BPF_W))
			continue;
		if (xdp ? in->off <= 8 && in->off % 4 == 0 :
			  in->off == offsetof(struct __sk_buff, data) ||
			  in->off == offsetof(struct __sk_buff, data_end) ||
			  in->off == offsetof(struct __sk_buff, data_meta))
			return 1;
	}
	return 0;
}

/* Run an accepted program as test_run does, on one engine, with fresh maps. */
static int run_engine(struct kbpf_host *host, const struct st_case *c, const char *type,
		      const struct bpf_insn *orig, size_t cnt, const uint32_t *fill_retval, int jit,
		      struct st_outcome *out)
{
	const struct bpf_test *t = c->test;
	const char *engine = jit ? "jit" : "interp";
	struct bpf_insn *insns = malloc(cnt * sizeof(*insns));
	struct st_maps m;
	struct kbpf_prog *prog = NULL;
	char log[512] = "", why[256] = "";
	int runs = t->runs ? t->runs : 1, rc = ST_PASS;
	uint8_t *buf = c->low_packet ? mmap(NULL, RUN_BUF_SIZE, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0)
				     : malloc(RUN_BUF_SIZE);

	if (buf == MAP_FAILED)
		buf = NULL;
	/* Linux has no test run for LSM programs ("not supported": a pass) */
	if (t->prog_type == BPF_PROG_TYPE_LSM) {
		free(insns);
		if (buf && c->low_packet)
			munmap(buf, RUN_BUF_SIZE);
		else
			free(buf);
		return rc;
	}
	if (!insns || !buf) {
		free(insns);
		if (buf && !c->low_packet)
			free(buf);
		else if (buf)
			munmap(buf, RUN_BUF_SIZE);
		return set(out, ST_FAIL, "harness", "out of memory");
	}
	memcpy(insns, orig, cnt * sizeof(*insns));
	if (st_maps_create(host, t, insns, cnt, &m, why, sizeof(why))) {
		rc = set(out, ST_FAIL, "harness", "%s: maps: %s", engine, why);
		goto out;
	}
	struct kbpf_prog_opts popts = {
		.sz = sizeof(popts), .host = host, .name = t->descr, .log_buf = log,
		.log_size = sizeof(log), .maps = m.maps, .nr_maps = m.nr, .jit = jit,
		/* verified again: kbpf_prog_create takes the type's rules (LD_ABS…) from it */
		.prog_type = type, .license = "GPL", .unprivileged = c->unpriv,
	};
	st_attach_btf_id(host, t, &popts.attach_btf_id, why, sizeof(why)); /* checked before */
	struct btf *btf = test_btf(t);
	struct bpf_func_info fi[MAX_FUNC_INFOS];
	if (btf) {
		popts.prog_btf = btf;
		popts.func_info = case_func_info(c, cnt, fill_retval != NULL, fi);
		popts.nr_func_info = (uint32_t)t->func_info_cnt;
	}
	int created = kbpf_prog_create(insns, cnt, &popts, &prog);
	btf__free(btf);
	if (created) {
		int helper;

		if (strstr(log, "LD_ABS/LD_IND need")) {
			rc = set(out, ST_SKIP, "ld_abs-run", "LD_ABS/LD_IND: no run-time implementation");
			goto out;
		}

		if (sscanf(strstr(log, "unknown helper #") ? strstr(log, "unknown helper #") : "",
			   "unknown helper #%d", &helper) == 1) {
			rc = set(out, ST_SKIP, "helper-run",
				 "helper #%d: prototype only, no run-time implementation", helper);
			goto out;
		}
		rc = set(out, ST_FAIL, jit ? "jit-create" : "create", "%s: kbpf_prog_create: %.300s",
			 engine, log);
		goto out;
	}
	if (jit && !kbpf_prog_is_jited(prog)) {
		rc = set(out, ST_FAIL, "jit-refused", "jit: not JIT-compiled: %.300s", log);
		goto out;
	}
	for (int i = 0; i < runs && i < MAX_TEST_RUNS; i++) {
		uint32_t expected = fill_retval ? *fill_retval :
			c->unpriv && t->retvals[i].retval_unpriv ?
			t->retvals[i].retval_unpriv : t->retvals[i].retval;
		struct run_ctx rcx;
		uint64_t r0 = 0;
		int err;

#ifdef KBPF_SELFTEST_KFUNCS
		if (t->prog_type == BPF_PROG_TYPE_TRACING) {
			/* bpf_prog_test_run_tracing: the test functions' calls, through the
			 * trampoline of the one the program is attached to (unchecked) */
			uint32_t got = 0;
			err = kbpf_linux_test_run_tracing(prog, t->kfunc, (int)t->expected_attach_type, &got);
			if (err) {
				rc = set(out, ST_FAIL, "run-error", "%s: tracing run %d: %s", engine, i + 1,
					 strerror(-err));
				goto out;
			}
			if (expected != (uint32_t)POINTER_VALUE && got != expected) {
				rc = set(out, ST_FAIL, jit ? "retval-jit" : "retval-interp",
					 "%s: tracing run %d returned %u, expected %u", engine, i + 1, got, expected);
				goto out;
			}
			continue;
		}
#endif
		if (run_ctx_init(&rcx, buf, type, t->retvals[i].data))
			break; /* Linux: "Did not run the program (not supported)" */
		if (c->low_packet)
			run_ctx_low_pointers(&rcx, !strcmp(type, "xdp"));
		if (jit) {
			err = kbpf_prog_run(prog, rcx.ctx, &r0);
			if (err) {
				rc = set(out, ST_FAIL, "run-error", "jit: run %d: %s", i + 1, strerror(-err));
				goto out;
			}
		} else {
			char err_msg[256] = "";
			struct kbpf_mem_region regions[2] = {
				{ rcx.ctx, rcx.ctx_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
				{ rcx.buf, RUN_BUF_SIZE, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
			};
			struct kbpf_run_opts ropts = {
				.sz = sizeof(ropts), .flags = KBPF_RUN_CHECKED, .regions = regions,
				.nr_regions = 2, .max_insns = 50000000, .err = err_msg,
				.err_size = sizeof(err_msg),
			};
			struct kbpf_run_result rres = { .sz = sizeof(rres) };

			ropts.args[0] = (uint64_t)(uintptr_t)rcx.ctx;
			err = kbpf_prog_run_opts(prog, &ropts, &rres);
			if (err) {
				rc = set(out, ST_FAIL, "run-fault",
					 "interp (checked): run %d stopped at insn %lld: %.300s", i + 1,
					 (long long)rres.fault_insn, err_msg);
				goto out;
			}
			r0 = rres.retval;
		}
		if (expected != (uint32_t)POINTER_VALUE && (uint32_t)r0 != expected) {
			int pkt = reads_packet_pointers(orig, cnt, type);

			rc = set(out, ST_FAIL, pkt ? "retval-pkt" : jit ? "retval-jit" : "retval-interp",
				 "%s: run %d returned %u (0x%x), expected %u (0x%x)%s", engine, i + 1,
				 (uint32_t)r0, (uint32_t)r0, expected, expected,
				 pkt ? " (reads packet pointers from ctx)" : "");
			goto out;
		}
	}
out:
	kbpf_prog_free(prog);
	st_maps_free(&m);
	free(insns);
	if (buf && c->low_packet)
		munmap(buf, RUN_BUF_SIZE);
	else
		free(buf);
	return rc;
}

static int has_insns(const struct bpf_insn *insns, int n)
{
	for (int i = 0; i < n; i++)
		if (insns[i].code || insns[i].imm)
			return 1;
	return 0;
}

/* test_verifier.c's check_xlated_program, with its matching rules: expected_insns (up
 * to the first all-zero insn) must appear in the rewritten program in order, each run
 * between SKIP_INSNS() markers contiguous, unexpected_insns must not appear that way; a
 * pattern insn whose off is INSN_OFF_MASK or imm is INSN_IMM_MASK matches any off/imm. */
#ifndef INSN_OFF_MASK /* shim.h's, as test_verifier.c defines them */
#define INSN_OFF_MASK ((__s16)0xFFFF)
#define INSN_IMM_MASK ((__s32)0xFFFFFFFF)
#define SKIP_INSNS() BPF_RAW_INSN(0xde, 0xa, 0xd, (int16_t)0xbeef, (int32_t)0xdeadbeef)
#endif

static bool insn_is_null(const struct bpf_insn *in)
{
	static const struct bpf_insn zero;
	return !memcmp(in, &zero, sizeof(zero));
}

static bool insn_is_skip(const struct bpf_insn *in)
{
	const struct bpf_insn skip = SKIP_INSNS();
	return !memcmp(in, &skip, sizeof(skip));
}

static bool insn_match(const struct bpf_insn *prog, const struct bpf_insn *pat)
{
	struct bpf_insn p = *prog;
	if (pat->imm == INSN_IMM_MASK)
		p.imm = INSN_IMM_MASK;
	if (pat->off == INSN_OFF_MASK)
		p.off = INSN_OFF_MASK;
	return !memcmp(&p, pat, sizeof(p));
}

/* First index of sub[0..sub_len) in seq[0..seq_len), or -1. */
static int insn_subseq(const struct bpf_insn *seq, int seq_len, const struct bpf_insn *sub, int sub_len)
{
	for (int i = 0; i + sub_len <= seq_len; i++) {
		int j = 0;
		while (j < sub_len && insn_match(&seq[i + j], &sub[j]))
			j++;
		if (j == sub_len)
			return i;
	}
	return -1;
}

static bool insn_subseqs_found(const struct bpf_insn *seq, int seq_len, const struct bpf_insn *pats, int max)
{
	int len = 0;
	while (len < max && !insn_is_null(&pats[len]))
		len++;
	while (len > 0) {
		int cur = 0;
		while (cur < len && !insn_is_skip(&pats[cur]))
			cur++;
		int at = insn_subseq(seq, seq_len, pats, cur);
		if (at < 0)
			return false;
		seq += at + cur;
		seq_len -= at + cur;
		pats += cur + 1;
		len -= cur + 1;
	}
	return true;
}

static void print_insns(const struct bpf_insn *p, int n)
{
	fprintf(stderr, "  addr  op d s off  imm\n");
	for (int i = 0; i < n && !insn_is_null(&p[i]); i++) {
		if (insn_is_skip(&p[i]))
			fprintf(stderr, "  ...\n");
		else
			fprintf(stderr, "  %04x: %02x %1x %x %04hx %08x\n", i, p[i].code, p[i].dst_reg, p[i].src_reg,
				(unsigned short)p[i].off, (unsigned)p[i].imm);
	}
}

/* 0 if the xlated program passes the test's checks, else the reason in why. */
static int check_xlated(const struct bpf_test *t, const struct bpf_insn *prog, int cnt, int verbose,
			const char **why)
{
	if (has_insns(t->expected_insns, MAX_EXPECTED_INSNS) &&
	    !insn_subseqs_found(prog, cnt, t->expected_insns, MAX_EXPECTED_INSNS)) {
		*why = "can't find expected subsequence of instructions";
		if (verbose) {
			fprintf(stderr, "Program:\n");
			print_insns(prog, cnt);
			fprintf(stderr, "Expected subsequence:\n");
			print_insns(t->expected_insns, MAX_EXPECTED_INSNS);
		}
		return -1;
	}
	if (has_insns(t->unexpected_insns, MAX_UNEXPECTED_INSNS) &&
	    insn_subseqs_found(prog, cnt, t->unexpected_insns, MAX_UNEXPECTED_INSNS)) {
		*why = "found unexpected subsequence of instructions";
		if (verbose) {
			fprintf(stderr, "Program:\n");
			print_insns(prog, cnt);
			fprintf(stderr, "Un-expected subsequence:\n");
			print_insns(t->unexpected_insns, MAX_UNEXPECTED_INSNS);
		}
		return -1;
	}
	return 0;
}

/* The program as Linux's JIT-requested do_misc_fixups would also have it: each call of
 * bpf_jiffies64 inlined as a load of jiffies (r0 = &jiffies, here 0; r0 = *(u64 *)r0),
 * a rewrite kbpf does not do (its jiffies are computed by the helper, there is no
 * variable). Only to tell that a case's xlated checks fail for that reason alone. */
static struct bpf_insn *linux_jiffies_view(const struct bpf_insn *prog, int cnt, int *out_cnt)
{
	struct bpf_insn *v = malloc((size_t)cnt * 3 * sizeof(*v));
	int n = 0;

	if (!v)
		return NULL;
	for (int i = 0; i < cnt; i++) {
		if (prog[i].code == (BPF_JMP | BPF_CALL) && prog[i].src_reg == 0 && prog[i].imm == BPF_FUNC_jiffies64) {
			v[n++] = (struct bpf_insn)BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, BPF_REG_0, 0, 0, 0);
			v[n++] = (struct bpf_insn)BPF_RAW_INSN(0, 0, 0, 0, 0);
			v[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0);
		} else {
			v[n++] = prog[i];
		}
	}
	*out_cnt = n;
	return v;
}

/* The BTF id of a test kfunc in the host's BTF, or <= 0 without one. */
static int kfunc_btf_id(const struct kbpf_host *host, const char *name)
{
	const struct btf *btf = kbpf_host_btf(host);

	return btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
}

/* test_verifier.c's fixup_kfunc_btf_id: the call at insn_idx gets the kfunc's BTF id. */
static int kfunc_fixup(const struct kbpf_host *host, const struct bpf_test *t, struct bpf_insn *insns,
		       size_t cnt)
{
	for (int i = 0; i < MAX_FIXUPS && t->fixup_kfunc_btf_id[i].kfunc; i++) {
		int idx = t->fixup_kfunc_btf_id[i].insn_idx;

		if (idx < 0 || (size_t)idx >= cnt)
			return -ERANGE;
		insns[idx].imm = kfunc_btf_id(host, t->fixup_kfunc_btf_id[i].kfunc);
	}
	return 0;
}

static int case_run(struct kbpf_host *host, const struct st_case *c, char *log, size_t log_size,
		    int verbose, struct st_outcome *out)
{
	const struct bpf_test *t = c->test;
	const char *type = st_test_prog_type_name(t);
	int expect = c->unpriv && t->result_unpriv != UNDEF ? (int)t->result_unpriv : (int)t->result;
	const char *errstr = c->unpriv && t->errstr_unpriv ? t->errstr_unpriv : t->errstr;
	size_t cnt = prog_len(t);
	struct bpf_insn *insns = NULL, *filled = NULL;
	const struct bpf_insn *src = t->insns;
	uint32_t fill_retval = 0;
	struct bpf_insn *xprog = NULL; /* the verifier's rewritten program, when checked */
	struct st_maps m;
	char why[256] = "", reason[300], missing[256];
	int rc;

	memset(&m, 0, sizeof(m));
	if (!type || !kbpf_host_prog_type_find(host, type))
		return set(out, ST_SKIP, "prog type", "program type %s not modelled",
			   st_prog_type_linux_name(t->prog_type));
	if (t->fill_helper) {
		const char *unsupported;
		int err = st_fill(c->table, t, &filled, &cnt, &fill_retval, &unsupported);

		if (err == -EOPNOTSUPP)
			return set(out, ST_SKIP, "fill_helper", "generated program: %s", unsupported);
		if (err)
			return set(out, ST_FAIL, "harness", "generator: %s", strerror(-err));
		src = filled;
	}
	/* each named test kfunc must be in the host BTF (main.c registers them when this
	 * binary has its own BTF); its id replaces the call's imm below */
	for (int i = 0; i < MAX_FIXUPS && t->fixup_kfunc_btf_id[i].kfunc; i++)
		if (kfunc_btf_id(host, t->fixup_kfunc_btf_id[i].kfunc) <= 0) {
			free(filled);
			return set(out, ST_SKIP, "kfunc", "calls Linux's test kfuncs (%s): not registered",
				   t->fixup_kfunc_btf_id[i].kfunc);
		}
	uint32_t attach_btf_id = 0;
	if (st_attach_btf_id(host, t, &attach_btf_id, why, sizeof(why))) {
		free(filled);
		return set(out, ST_SKIP, "attach", "%s", why);
	}
	/* the rewritten program is checked (check_xlated) once the verdict is right */
	bool xlated = has_insns(t->expected_insns, MAX_EXPECTED_INSNS) ||
		      has_insns(t->unexpected_insns, MAX_UNEXPECTED_INSNS);
	insns = malloc(cnt * sizeof(*insns));
	if (!insns) {
		free(filled);
		return set(out, ST_FAIL, "harness", "out of memory");
	}
	memcpy(insns, src, cnt * sizeof(*insns));
	if (kfunc_fixup(host, t, insns, cnt)) {
		set(out, ST_FAIL, "harness", "a kfunc fixup lies beyond the program");
		goto out;
	}
	rc = st_maps_create(host, t, insns, cnt, &m, why, sizeof(why));
	if (rc) {
		set(out, rc == -EOPNOTSUPP ? ST_SKIP : ST_FAIL, "map", "%s", why);
		goto out;
	}

	struct kbpf_verify_opts vo = {
		.sz = sizeof(vo), .host = host, .prog_type = type, .maps = m.maps, .nr_maps = m.nr,
		.license = "GPL", .unprivileged = c->unpriv,
		/* Linux's test_verifier: statistics only, level 2 for VERBOSE_ACCEPT */
		.log_level = expect == VERBOSE_ACCEPT ? KBPF_LOG_LEVEL2 : KBPF_LOG_STATS,
		.log_buf = log, .log_size = log_size, .prog_name = t->descr,
		/* test_verifier's program flags: its own two flags become the alignment
		 * ones, and flags above them are passed as they are (BPF_F_TEST_STATE_FREQ,
		 * BPF_F_SLEEPABLE: the ones its cases use). 6.12's third, F_NEEDS_JIT_ENABLED
		 * (kbpf has a JIT), shares its bit with BPF_F_TEST_RND_HI32, which Linux's
		 * runner sets on every load anyway and kbpf does not model (no upper-half
		 * randomisation), as it does not model 6.12's BPF_F_TEST_REG_INVARIANTS yet:
		 * neither is passed on. */
		.prog_flags = ((t->flags & F_LOAD_WITH_STRICT_ALIGNMENT) ? BPF_F_STRICT_ALIGNMENT : 0) |
			      ((t->flags & F_NEEDS_EFFICIENT_UNALIGNED_ACCESS) ? BPF_F_ANY_ALIGNMENT : 0) |
			      (t->flags & ~(3u | F_NEEDS_JIT_ENABLED)),
		.attach_btf_id = attach_btf_id,
	};
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	vo.xlated_alloc = xlated;
	struct btf *btf = test_btf(t);
	struct bpf_func_info fi[MAX_FUNC_INFOS];
	if (btf) {
		vo.prog_btf = btf;
		vo.func_info = case_func_info(c, cnt, filled != NULL, fi);
		vo.nr_func_info = (uint32_t)t->func_info_cnt;
	}
	log[0] = 0;
	rc = kbpf_prog_verify(insns, cnt, &vo, &vr);
	xprog = vr.xlated_prog;
	free(vr.xlated_idx); /* only the program is checked */
	btf__free(btf);
	log_reason(log, reason, sizeof(reason));
	if (rc == -EOPNOTSUPP || rc == -524) {
		set(out, ST_SKIP, "unsupported", "verifier: unsupported feature: %s", reason);
		goto out;
	}
	/* Linux would know the helper: kbpf has no prototype for it */
	/* (6.12's words for 6.1's "unknown func", which the cases' errstr still says) */
	const char *unknown = strstr(reason, "program of this type cannot use helper ");
	if (rc && unknown && !(errstr && strstr(errstr, "unknown func")) && !unpriv_hidden_helper(host, c, unknown)) {
		char fn[80] = "";

		sscanf(unknown, "program of this type cannot use helper %79s", fn);
		set(out, ST_SKIP, "helper", "helper %s not modelled", fn);
		goto out;
	}
	if (expect == ACCEPT || expect == VERBOSE_ACCEPT) {
		if (rc) {
			set(out, ST_FAIL, "rejected", "expected accept, got reject (%s): %s",
			    strerror(-rc), reason);
			goto out;
		}
		if (expect == VERBOSE_ACCEPT && !str_seq_match(log, errstr, missing, sizeof(missing))) {
			set(out, ST_FAIL, "errstr", "accepted, but the level-2 log lacks \"%s\"", missing);
			if (verbose)
				fprintf(stderr, "---- log of %s:\n%s----\n", c->name, log);
			goto out;
		}
	} else {
		if (!rc) {
			set(out, ST_FAIL, "accepted", "expected reject with \"%s\", got accept",
			    errstr ? errstr : "");
			goto out;
		}
		if (!errstr || !str_seq_match(log, errstr, missing, sizeof(missing))) {
			set(out, ST_FAIL, "errstr", "expected \"%s\", got \"%s\"",
			    errstr ? missing : "(no errstr)", reason);
			if (verbose)
				fprintf(stderr, "---- log of %s:\n%s----\n", c->name, log);
			goto out;
		}
	}
	if (!c->unpriv && t->insn_processed && vr.insns_processed != t->insn_processed) {
		set(out, ST_FAIL, "insn_processed", "processed %u insns, expected %u",
		    vr.insns_processed, t->insn_processed);
		goto out;
	}
	if (!rc && xlated) {
		const char *bad = NULL;
		if (!xprog) {
			set(out, ST_FAIL, "xlated", "no rewritten program");
			goto out;
		}
		if (check_xlated(t, xprog, (int)vr.xlated_cnt, verbose, &bad)) {
			int vcnt = 0;
			struct bpf_insn *v = linux_jiffies_view(xprog, (int)vr.xlated_cnt, &vcnt);
			const char *bad2 = NULL;
			bool jiffies_only = v && !check_xlated(t, v, vcnt, 0, &bad2);

			free(v);
			if (jiffies_only)
				set(out, ST_SKIP, "xlated-jiffies",
				    "xlated: %s, a call of bpf_jiffies64, which Linux's JIT inlines (kbpf calls the helper)",
				    bad);
			else
				set(out, ST_FAIL, "xlated", "%s", bad);
			goto out;
		}
	}
	set(out, ST_PASS, "", "%s", "");
	if (!rc && t->runs >= 0) {
		/* both engines from the unpatched copy: each patches its own fresh maps in */
		const uint32_t *fr = filled ? &fill_retval : NULL;

		memcpy(insns, src, cnt * sizeof(*insns));
		kfunc_fixup(host, t, insns, cnt); /* checked above */
		if (run_engine(host, c, type, insns, cnt, fr, 0, out) == ST_PASS)
			run_engine(host, c, type, insns, cnt, fr, 1, out);
	}
out:
	free(xprog);
	st_maps_free(&m);
	free(insns);
	free(filled);
	return out->rc;
}

int st_case_run(struct kbpf_host *host, const struct st_case *c, char *log, size_t log_size,
		int verbose, struct st_outcome *out)
{
	return case_run(host, c, log, log_size, verbose, out);
}
