/* SPDX-License-Identifier: Apache-2.0 */
/* Options structs versioned by sz (src/opts.h): an older caller's shorter struct reads
 * defaults for what it lacks; a newer caller's longer one is accepted only when the
 * bytes this build does not know are zero — checked on the macros and on the public
 * functions that now share them (kbpf_prog_create, kbpf_object_open_mem,
 * kbpf_host_prog_type_register, kbpf_map_create). */
#include <errno.h>
#include <stdlib.h>
#include <kbpf/kbpf.h>
#include "opts.h"
#include "test.h"

struct demo_opts {
	size_t sz;
	int a;
	int b;
};

/* OPTS_VALID as the library meets it: on a caller's struct of unknown size (inlined on
 * this file's own locals, GCC's -Warray-bounds would judge the unreachable tail loop). */
static __attribute__((noinline)) bool demo_valid(const struct demo_opts *o, size_t min_sz)
{
	return OPTS_VALID(o, min_sz);
}

static void test_macros(void)
{
	struct demo_opts full_s = { .sz = sizeof(full_s), .a = 1, .b = 2 };
	struct demo_opts old_s = { .sz = OPTS_END(struct demo_opts, a), .a = 1, .b = 99 };
	/* through pointers, as the library sees them */
	const struct demo_opts *full = &full_s, *old = &old_s, *none = NULL;

	CHECK(OPTS_HAS(full, b));
	CHECK(!OPTS_HAS(old, b));
	CHECK(!OPTS_HAS(none, a));
	CHECK_EQ_U64(OPTS_GET(old, b, 7), 7); /* 99 lies past the caller's sz */
	CHECK_EQ_U64(OPTS_GET(full, b, 7), 2);
	CHECK(demo_valid(none, OPTS_MIN_SZ));
	CHECK(demo_valid(old, OPTS_MIN_SZ));
	CHECK(!demo_valid(old, sizeof(*old)));

	struct demo_opts copy;
	OPTS_COPY(&copy, old);
	CHECK_EQ_U64(copy.sz, sizeof(copy));
	CHECK_EQ_U64(copy.a, 1);
	CHECK_EQ_U64(copy.b, 0);
}

/* A caller compiled against a newer kbpf: its struct is longer than ours. */
struct newer_prog_opts {
	struct kbpf_prog_opts o;
	uint64_t future;
};

static void test_prog_create_newer_caller(void)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 3), BPF_EXIT_INSN() };
	struct newer_prog_opts n = { .o.sz = sizeof(n), .o.trusted_unverified = 1 };
	struct kbpf_prog *prog = NULL;

	/* what we do not know is zero: fine */
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &n.o, &prog), 0);
	kbpf_prog_free(prog);
	prog = NULL;
	/* a request we cannot honour is refused, not dropped */
	n.future = 1;
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &n.o, &prog), (uint64_t)-EINVAL);
	CHECK(!prog);
	/* too short to hold even sz */
	n.o.sz = 1;
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &n.o, &prog), (uint64_t)-EINVAL);
}

struct newer_open_opts {
	struct kbpf_object_open_opts o;
	uint64_t future;
};

static void test_object_open_newer_caller(void)
{
	static const char not_elf[] = "not an ELF object";
	char log[128] = "untouched";
	struct newer_open_opts n = { .o.sz = sizeof(n), .o.log_buf = log, .o.log_size = sizeof(log), .future = 1 };
	struct kbpf_object *obj = NULL;

	/* refused for the options, before the bytes are looked at */
	CHECK_EQ_U64(kbpf_object_open_mem(not_elf, sizeof(not_elf), &n.o, &obj), (uint64_t)-EINVAL);
	CHECK(!obj);
	CHECK_STR(log, "untouched");
	/* without the unknown field the bytes are judged (and logged) */
	n.future = 0;
	CHECK(kbpf_object_open_mem(not_elf, sizeof(not_elf), &n.o, &obj) != 0);
	CHECK(strcmp(log, "untouched") != 0);
	kbpf_object_close(obj);
}

struct newer_prog_type {
	struct kbpf_prog_type t;
	uint64_t future;
};

static void test_prog_type_register(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct newer_prog_type n = { .t.sz = sizeof(n), .t.name = "opts_demo", .future = 1 };

	CHECK(host);
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &n.t), (uint64_t)-EINVAL);
	n.future = 0;
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &n.t), 0);
	const struct kbpf_prog_type *got = kbpf_host_prog_type_find(host, "opts_demo");
	CHECK(got && got->sz == sizeof(struct kbpf_prog_type));
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_macros);
	RUN(test_prog_create_newer_caller);
	RUN(test_object_open_newer_caller);
	RUN(test_prog_type_register);
	return test_summary();
}
