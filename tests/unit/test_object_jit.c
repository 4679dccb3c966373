/* SPDX-License-Identifier: Apache-2.0 */
/* Objects loaded with kbpf_object_open_opts.jit: every program JIT-compiled, results
 * equal to the interpreter's, tail calls through a PROG_ARRAY that `.values` filled
 * (tests/bpf/tail_call.bpf.c), and the JIT's per-instruction code ranges. */
#include <errno.h>
#include <string.h>
#include "test_object_util.h"

/* The tc programs' context: a struct __sk_buff image; they keep n and acc in cb[0..1]. */
struct skb {
	uint32_t head[12];
	uint32_t cb[5];
	uint32_t tail[31];
};
_Static_assert(sizeof(struct skb) == 192, "struct __sk_buff is 192 bytes");

static struct kbpf_object *load_jit(const char *name, int jit)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .log_buf = test_log, .log_size = sizeof(test_log), .jit = jit,
	};
	struct kbpf_object *obj = NULL;
	int ret = kbpf_object_open_file(bpf_obj(name), &opts, &obj);

	if (!ret)
		ret = kbpf_object_load(obj);
	if (ret) {
		fprintf(stderr, "%s: %d: %s\n", name, ret, obj ? kbpf_object_log(obj) : test_log);
		test_failed_now = 1;
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

static uint64_t run_named(struct kbpf_object *obj, const char *name, void *ctx)
{
	struct kbpf_program *p = kbpf_object_find_program(obj, name);
	uint64_t r0 = 0xdead;

	CHECK(p != NULL);
	CHECK_EQ_U64(kbpf_program_run(p, ctx, &r0), 0);
	return r0;
}

/* The tail call chain and the 33-call limit, JIT-compiled and interpreted. */
static void test_tail_call_object(void)
{
	if (!have_bpf_objects())
		return;
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_object *obj = load_jit("tail_call", jit);
		struct kbpf_program *p = NULL;
		struct skb a = { .cb = { 5 } };

		if (!obj)
			return;
		while ((p = kbpf_object_next_program(obj, p)))
			CHECK_EQ_U64(kbpf_prog_is_jited(kbpf_program_prog(p)), jit);
		CHECK_EQ_U64(run_named(obj, "entry", &a), 30);
		CHECK_EQ_U64(a.cb[1], 30);
		a = (struct skb){ 0 };
		CHECK_EQ_U64(run_named(obj, "again", &a), 34);
		CHECK_EQ_U64(a.cb[0], 34);
		kbpf_object_close(obj);
	}
}

/* Maps, global data, subprograms: the same results with and without the JIT. */
static void test_same_results(void)
{
	static const struct {
		const char *obj, *prog;
	} cases[] = {
		{ "maps", "use_maps" }, { "globals", "globals" }, { "subprogs", "calls_nested" },
		{ "subprogs", "calls_static" },
	};

	if (!have_bpf_objects())
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kbpf_object *oi = load_jit(cases[i].obj, 0), *oj = load_jit(cases[i].obj, 1);
		uint64_t ctx[24] = { 0 };

		if (oi && oj) {
			CHECK(kbpf_prog_is_jited(kbpf_program_prog(kbpf_object_find_program(oj, cases[i].prog))));
			CHECK_EQ_U64(run_named(oj, cases[i].prog, ctx), run_named(oi, cases[i].prog, ctx));
		}
		kbpf_object_close(oi);
		kbpf_object_close(oj);
	}
}

/* kbpf_prog_jited_line_info: one range per instruction, in order, inside the code; an
 * LDDW's second half has none; the interpreter has no ranges. */
static void test_line_info(void)
{
	struct kbpf_object *obj;
	struct kbpf_prog *prog;
	const struct kbpf_jited_line *li;
	const struct bpf_insn *insns;
	size_t n, cnt, size;

	if (!have_bpf_objects())
		return;
	obj = load_jit("tail_call", 1);
	if (!obj)
		return;
	prog = kbpf_program_prog(kbpf_object_find_program(obj, "entry"));
	li = kbpf_prog_jited_line_info(prog, &n);
	insns = kbpf_prog_insns(prog, &cnt);
	CHECK(kbpf_prog_jited_code(prog, &size) != NULL);
	CHECK(li != NULL);
	CHECK_EQ_U64(n, cnt);
	for (size_t i = 0; li && i < n; i++) {
		CHECK(li[i].start <= li[i].end);
		CHECK(li[i].end <= size);
		if (i)
			CHECK(li[i - 1].end <= li[i].start);
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			CHECK(li[i].end > li[i].start);
			CHECK_EQ_U64(li[i + 1].start, li[i + 1].end);
		}
	}
	CHECK(li && li[0].start > 0); /* the prologue comes first */
	kbpf_object_close(obj);

	obj = load_jit("tail_call", 0);
	if (!obj)
		return;
	prog = kbpf_program_prog(kbpf_object_find_program(obj, "entry"));
	CHECK(kbpf_prog_jited_line_info(prog, &n) == NULL);
	CHECK_EQ_U64(n, 0);
	kbpf_object_close(obj);
	CHECK(kbpf_prog_jited_line_info(NULL, &n) == NULL);
}

int main(void)
{
	if (!have_bpf_objects())
		fprintf(stderr, "no clang: tests/bpf objects not built, object JIT tests skipped\n");
	RUN(test_tail_call_object);
	RUN(test_same_results);
	RUN(test_line_info);
	return test_summary();
}
