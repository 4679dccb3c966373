/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-conformance: runs bpf_conformance ".data" files on kbpf's interpreter or JIT.
 *
 *   kbpf-conformance [--checked | --jit] [--harden] [--exceptions FILE] [-v] FILE.data...
 *
 * Each file is parsed into its sections, the "-- asm" program is assembled with the
 * conformance dialect (and compared with "-- raw" when present), created as a kbpf
 * program on a host offering the helpers the suite calls, run with R1 = a copy of
 * "-- mem" and R2 = its length, and R0 compared with "-- result".  With --jit the
 * program must also have been JIT-compiled: falling back to the interpreter fails the
 * test.  --harden creates every program with KBPF_HARDEN_ALL and a run budget (blinded
 * JIT code, guarded frames, the hardened interpreter loop).  See README.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>

#define MSG_SIZE 512
/* Checked runs stop a runaway loop instead of hanging the suite. */
#define CHECKED_MAX_INSNS 10000000u

/* ------------------------------------------------------------------------ */
/* Small growable buffers                                                    */

struct buf {
	char *data;
	size_t len, cap;
};

static bool buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *d;
		while (cap < b->len + n + 1)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return false;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return true;
}

static char *read_file(const char *path, char *msg)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;

	if (!f) {
		snprintf(msg, MSG_SIZE, "cannot open: %s", strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (!buf_append(&b, chunk, n)) {
			snprintf(msg, MSG_SIZE, "out of memory");
			free(b.data);
			fclose(f);
			return NULL;
		}
	}
	fclose(f);
	if (!b.data && !buf_append(&b, "", 0))
		snprintf(msg, MSG_SIZE, "out of memory");
	return b.data;
}

/* ------------------------------------------------------------------------ */
/* The .data format                                                          */

enum section { S_NONE, S_ASM, S_MEM, S_RESULT, S_RAW, S_ERROR, S_IGNORED };

struct test_case {
	struct buf asm_text; /* the asm section, other lines blank: line numbers match the file */
	struct buf mem;
	bool has_asm, has_mem, has_result, has_raw, has_error;
	uint64_t result;
	uint64_t *raw;
	size_t raw_cnt, raw_cap;
	struct buf error; /* "-- error": the program is expected to be rejected */
};

static void test_case_free(struct test_case *tc)
{
	free(tc->asm_text.data);
	free(tc->mem.data);
	free(tc->raw);
	free(tc->error.data);
}

static const char *const section_names[] = {
	[S_ASM] = "asm", [S_MEM] = "mem", [S_RESULT] = "result", [S_RAW] = "raw", [S_ERROR] = "error",
};

/* The section a "-- name" header opens; marks it present in tc. */
static enum section section_named(const char *name, size_t n, struct test_case *tc)
{
	bool *present[] = {
		[S_ASM] = &tc->has_asm, [S_MEM] = &tc->has_mem, [S_RESULT] = &tc->has_result,
		[S_RAW] = &tc->has_raw, [S_ERROR] = &tc->has_error,
	};

	for (int sec = S_ASM; sec <= S_ERROR; sec++) {
		if (n == strlen(section_names[sec]) && !memcmp(name, section_names[sec], n)) {
			*present[sec] = true;
			return (enum section)sec;
		}
	}
	/* "-- c" (the source) and "-- no register offset" (a uBPF note) carry nothing
	 * this runner checks. */
	return S_IGNORED;
}

/* Parse one hex number token ("0x1f", "1f"); false if it is not one. */
static bool parse_hex(const char *tok, uint64_t *out)
{
	char *end;

	if (!*tok || *tok == '-' || *tok == '+')
		return false;
	errno = 0;
	*out = strtoull(tok, &end, 16);
	return !errno && !*end;
}

/* Whitespace-separated tokens of line (modified in place), each passed to fn. */
static bool for_each_token(char *line, bool (*fn)(struct test_case *, const char *), struct test_case *tc)
{
	for (char *save = NULL, *tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save))
		if (!fn(tc, tok))
			return false;
	return true;
}

static bool add_mem_byte(struct test_case *tc, const char *tok)
{
	uint64_t v;
	uint8_t byte;

	if (!parse_hex(tok, &v) || v > 0xff)
		return false;
	byte = (uint8_t)v;
	return buf_append(&tc->mem, &byte, 1);
}

static bool add_raw_word(struct test_case *tc, const char *tok)
{
	uint64_t v;

	if (!parse_hex(tok, &v))
		return false;
	if (tc->raw_cnt == tc->raw_cap) {
		size_t cap = tc->raw_cap ? tc->raw_cap * 2 : 16;
		uint64_t *p = realloc(tc->raw, cap * sizeof(*p));
		if (!p)
			return false;
		tc->raw = p;
		tc->raw_cap = cap;
	}
	tc->raw[tc->raw_cnt++] = v;
	return true;
}

/* Split text into sections. Returns false with the reason in msg. */
static bool parse_data(char *text, struct test_case *tc, char *msg)
{
	enum section sec = S_NONE;
	unsigned lineno = 0, result_tokens = 0;
	char *p = text;

	while (*p) {
		char *line = p, *nl = strchr(p, '\n');
		bool keep_in_asm = false, ok = true;

		p = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		lineno++;
		if (!strncmp(line, "-- ", 3)) {
			size_t n = strlen(line + 3);
			while (n && (line[3 + n - 1] == ' ' || line[3 + n - 1] == '\r'))
				n--;
			sec = section_named(line + 3, n, tc);
		} else if (sec == S_ASM) {
			keep_in_asm = true; /* the assembler handles its own comments */
		} else if (line[0] != '#') {
			switch (sec) {
			case S_MEM:
				ok = for_each_token(line, add_mem_byte, tc);
				break;
			case S_RESULT:
				for (char *save = NULL, *tok = strtok_r(line, " \t\r", &save); ok && tok;
				     tok = strtok_r(NULL, " \t\r", &save))
					ok = ++result_tokens == 1 && parse_hex(tok, &tc->result);
				break;
			case S_RAW:
				ok = for_each_token(line, add_raw_word, tc);
				break;
			case S_ERROR:
				ok = (!tc->error.len || buf_append(&tc->error, " ", 1)) &&
				     buf_append(&tc->error, line, strlen(line));
				break;
			default:
				break;
			}
		}
		if (!ok) {
			snprintf(msg, MSG_SIZE, "line %u: malformed '-- %s' section", lineno, section_names[sec]);
			return false;
		}
		if (!buf_append(&tc->asm_text, keep_in_asm ? line : "", keep_in_asm ? strlen(line) : 0) ||
		    !buf_append(&tc->asm_text, "\n", 1)) {
			snprintf(msg, MSG_SIZE, "out of memory");
			return false;
		}
	}
	if (!tc->has_asm)
		snprintf(msg, MSG_SIZE, "no '-- asm' section");
	else if (!tc->has_result && !tc->has_error)
		snprintf(msg, MSG_SIZE, "no '-- result' section");
	else if (tc->has_result && result_tokens != 1)
		snprintf(msg, MSG_SIZE, "'-- result' must hold one hex value");
	else
		return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Helpers the suite calls (numbered as in uBPF's test runner)               */

/* uBPF registers helper 5 as its "unwind" function: returning 0 stops the program.
 * kbpf has no unwinding; the suite only calls it with a nonzero argument
 * (call_unwind_fail.data, callx.data), where uBPF too simply continues. */
static uint64_t helper_unwind(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r2, (void)r3, (void)r4, (void)r5;
	return r1;
}

static struct kbpf_host *make_host(void)
{
	struct kbpf_host *host = kbpf_host_new();

	if (host && kbpf_host_helper_register(host, 5, "unwind", helper_unwind)) {
		kbpf_host_free(host);
		host = NULL;
	}
	return host;
}

/* ------------------------------------------------------------------------ */
/* Running one file                                                          */

struct options {
	bool checked, jit, verbose;
	bool harden;
};

static uint64_t raw_word(const struct bpf_insn *in)
{
	return (uint64_t)in->code | (uint64_t)in->dst_reg << 8 | (uint64_t)in->src_reg << 12 |
	       (uint64_t)(uint16_t)in->off << 16 | (uint64_t)(uint32_t)in->imm << 32;
}

static bool check_raw(const struct test_case *tc, const struct bpf_insn *insns, size_t cnt, char *msg)
{
	if (cnt != tc->raw_cnt) {
		snprintf(msg, MSG_SIZE, "raw: assembled %zu instructions, expected %zu", cnt, tc->raw_cnt);
		return false;
	}
	for (size_t i = 0; i < cnt; i++) {
		if (raw_word(&insns[i]) != tc->raw[i]) {
			snprintf(msg, MSG_SIZE, "raw: insn %zu is 0x%016" PRIx64 ", expected 0x%016" PRIx64, i,
				 raw_word(&insns[i]), tc->raw[i]);
			return false;
		}
	}
	return true;
}

/* Run prog on a fresh copy of the test's memory; R0 in *r0. */
static bool run_prog(const struct kbpf_prog *prog, const struct test_case *tc, const struct options *o,
		     uint64_t *r0, char *msg)
{
	char err[MSG_SIZE - 64] = "";
	size_t len = tc->mem.len;
	uint8_t *mem = len ? malloc(len) : NULL;
	struct kbpf_mem_region region = { mem, len, KBPF_MEM_READ | KBPF_MEM_WRITE, "mem" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret;

	if (len && !mem) {
		snprintf(msg, MSG_SIZE, "out of memory");
		return false;
	}
	if (len)
		memcpy(mem, tc->mem.data, len);
	ro.args[0] = (uint64_t)(uintptr_t)mem;
	ro.args[1] = len;
	if (o->checked) {
		ro.flags = KBPF_RUN_CHECKED;
		ro.regions = len ? &region : NULL;
		ro.nr_regions = len ? 1 : 0;
		ro.max_insns = CHECKED_MAX_INSNS;
	}
	ret = kbpf_prog_run_opts(prog, &ro, &rr);
	free(mem);
	if (ret) {
		snprintf(msg, MSG_SIZE, "run: %s (%s)", err[0] ? err : "stopped", strerror(-ret));
		return false;
	}
	*r0 = rr.retval;
	return true;
}

/* Assemble, create and run one test case. Returns true when R0 matches, or, for a
 * test with an "-- error" section, when the assembler, kbpf_prog_create or the run
 * rejects the program (kbpf's messages differ from uBPF's, so the text is not compared). */
static bool run_case(const struct test_case *tc, const char *name, const struct options *o, char *msg)
{
	struct bpf_insn *insns = NULL;
	struct kbpf_host *host = NULL;
	struct kbpf_prog *prog = NULL;
	char log[MSG_SIZE - 64] = "";
	bool ok = false, rejected = true;
	uint64_t r0 = 0;
	size_t cnt = 0;
	int ret;

	ret = kbpf_asm(tc->asm_text.data, KBPF_ASM_CONFORMANCE, &insns, &cnt, log, sizeof(log));
	if (ret) {
		snprintf(msg, MSG_SIZE, "assemble: %s", log);
		goto out;
	}
	rejected = false;
	if (tc->has_raw && !check_raw(tc, insns, cnt, msg))
		goto out;
	host = make_host();
	if (!host) {
		snprintf(msg, MSG_SIZE, "out of memory");
		goto out;
	}
	rejected = true;
	ret = kbpf_prog_create(insns, cnt,
			       &(struct kbpf_prog_opts){ .sz = sizeof(struct kbpf_prog_opts), .host = host,
							 .trusted_unverified = 1, /* the suite's own programs */
							 .name = name, .log_buf = log, .log_size = sizeof(log),
							 .jit = o->jit, .harden = o->harden ? KBPF_HARDEN_ALL : 0,
							 .run_budget = o->harden ? 1u << 30 : 0 },
			       &prog);
	if (ret) {
		snprintf(msg, MSG_SIZE, "create: %s (%s)", log[0] ? log : "rejected", strerror(-ret));
		goto out;
	}
	if (o->jit && !kbpf_prog_is_jited(prog)) {
		rejected = false; /* an "-- error" test is not passed by the JIT's refusal */
		snprintf(msg, MSG_SIZE, "not JIT-compiled: %s", log[0] ? log : "no reason given");
		goto out;
	}
	if (!run_prog(prog, tc, o, &r0, msg))
		goto out;
	rejected = false;
	ok = !tc->has_error && r0 == tc->result;
	if (tc->has_error)
		snprintf(msg, MSG_SIZE, "ran (R0 = 0x%" PRIx64 ") but expected an error: %s", r0,
			 tc->error.data ? tc->error.data : "");
	else if (!ok)
		snprintf(msg, MSG_SIZE, "R0 = 0x%" PRIx64 ", expected 0x%" PRIx64, r0, tc->result);
out:
	if (tc->has_error && rejected)
		ok = true;
	kbpf_prog_free(prog);
	kbpf_host_free(host);
	free(insns);
	return ok;
}

static bool run_file(const char *path, const char *name, const struct options *o, char *msg)
{
	struct test_case tc = { 0 };
	char *text = read_file(path, msg);
	bool ok = false;

	if (text && parse_data(text, &tc, msg))
		ok = run_case(&tc, name, o, msg);
	free(text);
	test_case_free(&tc);
	return ok;
}

/* ------------------------------------------------------------------------ */
/* EXCEPTIONS: "name reason" lines, '#' comments                             */

struct exception {
	char *name;
	char *reason;
};

struct exceptions {
	struct exception *list;
	size_t cnt;
	char *text;
};

static int load_exceptions(const char *path, struct exceptions *ex)
{
	char msg[MSG_SIZE];
	char *p;

	ex->text = read_file(path, msg);
	if (!ex->text) {
		fprintf(stderr, "kbpf-conformance: %s: %s\n", path, msg);
		return -1;
	}
	for (p = ex->text; *p;) {
		char *line = p, *nl = strchr(p, '\n'), *name, *save = NULL;
		struct exception *l;

		p = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		name = strtok_r(line, " \t\r", &save);
		if (!name || name[0] == '#')
			continue;
		l = realloc(ex->list, (ex->cnt + 1) * sizeof(*l));
		if (!l)
			return -1;
		ex->list = l;
		l[ex->cnt].name = name;
		l[ex->cnt].reason = save ? save + strspn(save, " \t") : "";
		ex->cnt++;
	}
	return 0;
}

/* The exception entry for a test name ("foo" or "foo.data"), or NULL. */
static const struct exception *find_exception(const struct exceptions *ex, const char *name)
{
	for (size_t i = 0; i < ex->cnt; i++) {
		const char *n = ex->list[i].name;
		size_t len = strlen(name);
		if (!strcmp(n, name) || (!strncmp(n, name, len) && !strcmp(n + len, ".data")))
			return &ex->list[i];
	}
	return NULL;
}

/* "dir/foo.data" -> "foo" (into out). */
static void test_name(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".data"))
		n -= 5;
	snprintf(out, size, "%.*s", (int)n, base);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: kbpf-conformance [--checked | --jit] [--harden] [--exceptions FILE] [-v] FILE.data...\n");
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct exceptions ex = { 0 };
	unsigned passed = 0, failed = 0, skipped = 0;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--checked")) {
			o.checked = true;
		} else if (!strcmp(argv[i], "--jit")) {
			o.jit = true;
		} else if (!strcmp(argv[i], "--harden")) {
			o.harden = true;
		} else if (!strcmp(argv[i], "-v")) {
			o.verbose = true;
		} else if (!strcmp(argv[i], "--exceptions") && i + 1 < argc) {
			if (load_exceptions(argv[++i], &ex))
				return 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i == argc || (o.checked && o.jit)) {
		usage(stderr);
		return 2;
	}
	for (; i < argc; i++) {
		char name[256], msg[MSG_SIZE] = "";
		bool ok;
		const struct exception *e;

		test_name(argv[i], name, sizeof(name));
		ok = run_file(argv[i], name, &o, msg);
		e = find_exception(&ex, name);
		if (ok && e) {
			printf("unexpected pass %s (listed in exceptions: %s)\n", name, e->reason);
			passed++;
		} else if (ok) {
			if (o.verbose)
				printf("PASS %s\n", name);
			passed++;
		} else if (e) {
			if (o.verbose)
				printf("SKIP %s: %s (exception: %s)\n", name, msg, e->reason);
			skipped++;
		} else {
			printf("FAIL %s: %s\n", name, msg);
			failed++;
		}
	}
	printf("%u passed, %u failed", passed, failed);
	if (skipped)
		printf(", %u skipped", skipped);
	printf("\n");
	free(ex.list);
	free(ex.text);
	return failed ? 1 : 0;
}
