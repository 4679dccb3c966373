/* SPDX-License-Identifier: Apache-2.0 */
/* Host BTF: loading the test host's (tests/host, built with kbpf_add_host_btf), the C
 * declarations of its functions, and kfunc extern prototypes checked against them —
 * from a clang-compiled object (tests/host/externs.bpf.c) and from BTF built by hand
 * for the cases clang cannot produce. KBPF_TEST_HOST and KBPF_TEST_EXTERNS_OBJ are
 * paths given by tests/host/CMakeLists.txt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/kbpf.h>
#include "btf/btf_check.h"
#include "btf/btf_walk.h"
#include "btf/func_compat.h"

#ifdef KBPF_TEST_HOST
#include "test.h"

static struct kbpf_host *host;
static const struct btf *hbtf; /* the test host's BTF */

static int silent(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static int host_func(const char *name)
{
	return btf__find_by_name_kind(hbtf, name, BTF_KIND_FUNC);
}

static void test_load_test_host(void)
{
	CHECK(hbtf != NULL);
	if (!hbtf)
		return;
	int id = btf__find_by_name_kind(hbtf, "th_flow", BTF_KIND_STRUCT);
	CHECK(id > 0);
	CHECK(btf__find_by_name_kind(hbtf, "th_conn", BTF_KIND_STRUCT) > 0);
	CHECK(btf__find_by_name_kind(hbtf, "th_addr", BTF_KIND_UNION) > 0);
	CHECK(btf__find_by_name_kind(hbtf, "th_state", BTF_KIND_ENUM) > 0);
	CHECK(btf__find_by_name_kind(hbtf, "th_big", BTF_KIND_ENUM64) > 0);
	CHECK(btf__find_by_name_kind(hbtf, "th_stats_t", BTF_KIND_TYPEDEF) > 0);
	CHECK(host_func("th_mix") > 0);
	CHECK(host_func("th_flow_acquire") > 0);
	/* a static function of the host is there too: pahole encodes every function with a
	 * symbol; main is the program's */
	CHECK(host_func("main") > 0);
	/* the bitfields: ecn is 2 bits */
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(hbtf, id);
		int found = 0;
		for (unsigned i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(hbtf, btf_members(t)[i].name_off), "ecn")) {
				CHECK_EQ_U64(btf_member_bitfield_size(t, i), 2);
				found = 1;
			}
		CHECK(found);
	}
}

/* kbpf_host_btf_find (the host's name index) answers as btf__find_by_name_kind for
 * every named type of every kind, and -ENOENT / -EINVAL otherwise. */
static void test_find_index(void)
{
	uint32_t n = btf__type_cnt(hbtf), checked = 0, bad = 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(hbtf, id);
		const char *name = btf__name_by_offset(hbtf, t->name_off);
		if (!name || !*name)
			continue;
		int want = btf__find_by_name_kind(hbtf, name, btf_kind(t));
		int got = kbpf_host_btf_find(host, name, btf_kind(t));
		bad += got != want;
		checked++;
	}
	CHECK(checked > 100);
	CHECK_EQ_U64(bad, 0);
	CHECK(kbpf_host_btf_find(host, "th_flow", BTF_KIND_STRUCT) > 0);
	CHECK_EQ_U64(kbpf_host_btf_find(host, "th_flow", BTF_KIND_UNION), -ENOENT);
	CHECK_EQ_U64(kbpf_host_btf_find(host, "th_no_such_type", BTF_KIND_STRUCT), -ENOENT);
	CHECK_EQ_U64(kbpf_host_btf_find(host, "", BTF_KIND_STRUCT), -ENOENT);
	CHECK_EQ_U64(kbpf_host_btf_find(host, NULL, BTF_KIND_STRUCT), -EINVAL);
	CHECK_EQ_U64(kbpf_host_btf_find(NULL, "th_flow", BTF_KIND_STRUCT), -EINVAL);
	struct kbpf_host *h = kbpf_host_new();
	CHECK_EQ_U64(kbpf_host_btf_find(h, "th_flow", BTF_KIND_STRUCT), -ENOENT); /* no BTF */
	/* a second load replaces the BTF and its index */
	CHECK_EQ_U64(kbpf_host_btf_load_file(h, KBPF_TEST_HOST), 0);
	CHECK_EQ_U64(kbpf_host_btf_load_file(h, KBPF_TEST_HOST), 0);
	CHECK_EQ_U64(kbpf_host_btf_find(h, "th_flow", BTF_KIND_STRUCT),
		     btf__find_by_name_kind(kbpf_host_btf(h), "th_flow", BTF_KIND_STRUCT));
	kbpf_host_free(h);
}

static void test_load_errors(void)
{
	struct kbpf_host *h = kbpf_host_new();
	char path[] = "/tmp/kbpf-test-host-btf-XXXXXX";
	int fd;

	CHECK(h != NULL);
	if (!h)
		return;
	/* this test binary is not built with kbpf_add_host_btf */
	CHECK_EQ_U64(kbpf_host_btf_load_self(h), -ENOENT);
	CHECK(kbpf_host_btf(h) == NULL);
	CHECK(kbpf_host_btf_load_file(h, "/nonexistent/kbpf-host") < 0);
	CHECK(kbpf_host_btf_load_file(h, NULL) == -EINVAL);
	CHECK(kbpf_host_btf_load_file(NULL, KBPF_TEST_HOST) == -EINVAL);

	/* text, then raw BTF: the test host's section written out on its own */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, "not BTF\n", 8) == 8);
		/* an errno (libbpf's own codes, -4001 here, are not: "Unknown error 4001") */
		CHECK_EQ_U64(kbpf_host_btf_load_file(h, path), -ENOEXEC);
		uint32_t size;
		const void *raw = btf__raw_data(hbtf, &size);
		CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, raw, size, 0) == (ssize_t)size);
		CHECK_EQ_U64(kbpf_host_btf_load_file(h, path), 0);
		CHECK(kbpf_host_btf(h) && btf__type_cnt(kbpf_host_btf(h)) == btf__type_cnt(hbtf));
		/* truncated raw BTF */
		CHECK(ftruncate(fd, size / 2) == 0);
		CHECK(kbpf_host_btf_load_file(h, path) < 0);
		close(fd);
		unlink(path);
	}
	kbpf_host_free(h);
}

static const char *decl(const struct btf *btf, int id)
{
	static char buf[256];
	int ret = kbpf_btf_func_decl(btf, (uint32_t)id, buf, sizeof(buf));
	if (ret)
		snprintf(buf, sizeof(buf), "error %d", ret);
	return buf;
}

static void test_func_decl(void)
{
	CHECK_STR(decl(hbtf, host_func("th_mix")), "u32 th_mix(u8 a, s16 b, u32 c)");
	CHECK_STR(decl(hbtf, host_func("th_add")), "int th_add(int a, int b)");
	CHECK_STR(decl(hbtf, host_func("th_noop")), "void th_noop(void)");
	CHECK_STR(decl(hbtf, host_func("th_flow_acquire")), "struct th_flow *th_flow_acquire(u64 id)");
	CHECK_STR(decl(hbtf, host_func("th_flow_cwnd")), "u32 th_flow_cwnd(const struct th_flow *flow)");
	CHECK_STR(decl(hbtf, host_func("th_state_is_open")), "int th_state_is_open(enum th_state state)");
	CHECK_STR(decl(hbtf, host_func("th_log")), "int th_log(const char *fmt, ...)");
	CHECK_STR(decl(hbtf, host_func("th_scale")), "double th_scale(double x, int factor)");
	CHECK_STR(decl(hbtf, host_func("th_ctx_init")),
		  "void th_ctx_init(struct th_ctx *ctx, struct th_flow *flow, struct th_conn *conn)");

	char small[8];
	CHECK_EQ_U64(kbpf_btf_func_decl(hbtf, host_func("th_mix"), small, sizeof(small)), -ENOSPC);
	CHECK_STR(small, "u32 th_");
	CHECK_EQ_U64(kbpf_btf_func_decl(hbtf, btf__find_by_name_kind(hbtf, "th_flow", BTF_KIND_STRUCT), small,
					sizeof(small)),
		     -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_decl(hbtf, 0, small, sizeof(small)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_decl(hbtf, btf__type_cnt(hbtf), small, sizeof(small)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_decl(NULL, 1, small, sizeof(small)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_decl(hbtf, host_func("th_mix"), NULL, 0), -EINVAL);
}

/* The extern name in the object, the host function by the name before "___". */
static int check_extern(const struct btf *obj, const char *ext, char *msg, size_t size)
{
	char host_name[64];
	int lid = btf__find_by_name_kind(obj, ext, BTF_KIND_FUNC), tid;
	const char *flavour = strstr(ext, "___");

	snprintf(host_name, sizeof(host_name), "%.*s", flavour ? (int)(flavour - ext) : (int)strlen(ext), ext);
	tid = host_func(host_name);
	if (lid <= 0 || tid <= 0) {
		snprintf(msg, size, "'%s' (%d) or '%s' (%d) not found", ext, lid, host_name, tid);
		return -100;
	}
	return kbpf_btf_func_compat(obj, lid, hbtf, tid, msg, size);
}

#define EXPECT_COMPAT(obj, ext)                                                         \
	do {                                                                            \
		char m_[512];                                                           \
		int r_ = check_extern(obj, ext, m_, sizeof(m_));                        \
		if (r_ != 1)                                                            \
			fprintf(stderr, "%s: %d %s\n", ext, r_, m_);                    \
		CHECK(r_ == 1);                                                         \
	} while (0)
#define EXPECT_INCOMPAT(obj, ext, text)                                                 \
	do {                                                                            \
		char m_[512];                                                           \
		int r_ = check_extern(obj, ext, m_, sizeof(m_));                        \
		CHECK_EQ_U64(r_, 0);                                                    \
		CHECK_STR(m_, text);                                                    \
	} while (0)

static void test_compat_clang_externs(void)
{
	struct btf *obj = btf__parse_elf(KBPF_TEST_EXTERNS_OBJ, NULL);

	CHECK(obj != NULL);
	if (!obj)
		return;
	EXPECT_COMPAT(obj, "th_add");
	EXPECT_COMPAT(obj, "th_mix");
	EXPECT_COMPAT(obj, "th_sum5");
	EXPECT_COMPAT(obj, "th_flow_set_cwnd");
	EXPECT_COMPAT(obj, "th_flow_acquire");
	EXPECT_COMPAT(obj, "th_flow_release");
	EXPECT_COMPAT(obj, "th_noop");
	EXPECT_COMPAT(obj, "th_add___wide");
	EXPECT_COMPAT(obj, "th_flow_cwnd___other_struct");
	EXPECT_COMPAT(obj, "th_flow_cwnd___const");

	EXPECT_INCOMPAT(obj, "th_add___arity",
			"extern 'int th_add___arity(int)' does not match host 'int th_add(int a, int b)': "
			"1 parameter vs 2");
	EXPECT_INCOMPAT(obj, "th_flow_cwnd___scalar",
			"extern 'u32 th_flow_cwnd___scalar(u64)' does not match host "
			"'u32 th_flow_cwnd(const struct th_flow *flow)': parameter 1 'flow': 'u64' vs "
			"'const struct th_flow *' (an integer vs a pointer)");
	EXPECT_INCOMPAT(obj, "th_noop___ret",
			"extern 'int th_noop___ret(void)' does not match host 'void th_noop(void)': "
			"return type: 'int' vs 'void' (an integer vs void)");
	EXPECT_INCOMPAT(obj, "th_state_is_open___int",
			"extern 'int th_state_is_open___int(int)' does not match host "
			"'int th_state_is_open(enum th_state state)': parameter 1 'state': 'int' vs "
			"'enum th_state' (an integer vs an enum)");
	EXPECT_INCOMPAT(obj, "th_flow_set_cwnd___ptr_ptr",
			"extern 'void th_flow_set_cwnd___ptr_ptr(struct th_flow **, u32)' does not "
			"match host 'void th_flow_set_cwnd(struct th_flow *flow, u32 cwnd)': parameter 1 "
			"'flow': 'struct th_flow **' vs 'struct th_flow *' (below a pointer: a pointer vs a "
			"struct)");
	EXPECT_INCOMPAT(obj, "th_flow_cwnd___fwd",
			"extern 'u32 th_flow_cwnd___fwd(struct th_conn *)' does not match host "
			"'u32 th_flow_cwnd(const struct th_flow *flow)': parameter 1 'flow': 'struct th_conn *' vs "
			"'const struct th_flow *' (below a pointer: a forward declaration vs a struct; clang "
			"records only a declaration of a struct whose members the program never uses)");
	btf__free(obj);
}

/* A BTF for the cases clang does not produce from C: built with libbpf's btf__add_*. */
struct built {
	struct btf *btf;
	int u32, s8, ptr_st, ptr_fwd, dbl, en, en64, cv_u32; /* type ids */
};

static void build(struct built *b)
{
	struct btf *btf = btf__new_empty();
	b->btf = btf;
	if (!btf)
		return;
	b->u32 = btf__add_int(btf, "unsigned int", 4, 0);
	b->s8 = btf__add_int(btf, "signed char", 1, BTF_INT_SIGNED);
	int st = btf__add_struct(btf, "th_flow", 4);
	btf__add_field(btf, "cwnd", b->u32, 0, 0);
	b->ptr_st = btf__add_ptr(btf, st);
	b->ptr_fwd = btf__add_ptr(btf, btf__add_fwd(btf, "th_flow", BTF_FWD_STRUCT));
	b->dbl = btf__add_float(btf, "double", 8);
	b->en = btf__add_enum(btf, "th_state", 4);
	btf__add_enum_value(btf, "TH_STATE_OPEN", 1);
	b->en64 = btf__add_enum64(btf, "th_state64", 8, false);
	btf__add_enum64_value(btf, "TH_STATE_OPEN", 1);
	/* typedef const volatile-free chain: typedef const u32 cu32 */
	b->cv_u32 = btf__add_typedef(btf, "cu32", btf__add_const(btf, btf__add_typedef(btf, "u32", b->u32)));
}

/* A FUNC named name: ret (params...), params given as type ids, 0-terminated; -1 for a
 * trailing vararg marker. */
static int add_func(struct btf *btf, const char *name, int ret, const int *params)
{
	int proto = btf__add_func_proto(btf, ret);
	for (int i = 0; params[i]; i++)
		btf__add_func_param(btf, params[i] < 0 ? "" : "p", params[i] < 0 ? 0 : params[i]);
	return btf__add_func(btf, name, BTF_FUNC_EXTERN, proto);
}

static void test_compat_built(void)
{
	struct built b;
	char msg[512];

	build(&b);
	CHECK(b.btf != NULL);
	if (!b.btf)
		return;
	struct btf *btf = b.btf;
	int f_st = add_func(btf, "f_st", 0, (int[]){ b.ptr_st, 0 });
	int f_fwd = add_func(btf, "f_fwd", 0, (int[]){ b.ptr_fwd, 0 });
	int f_dbl = add_func(btf, "f_dbl", b.dbl, (int[]){ b.u32, 0 });
	int f_u32 = add_func(btf, "f_u32", b.u32, (int[]){ b.u32, 0 });
	int f_cv = add_func(btf, "f_cv", b.cv_u32, (int[]){ b.cv_u32, 0 });
	int f_s8 = add_func(btf, "f_s8", b.s8, (int[]){ b.s8, 0 });
	int f_en = add_func(btf, "f_en", b.en, (int[]){ b.en, 0 });
	int f_en64 = add_func(btf, "f_en64", b.en64, (int[]){ b.en64, 0 });
	int f_var = add_func(btf, "f_var", b.u32, (int[]){ b.u32, -1, 0 });
	int f_two = add_func(btf, "f_two", b.u32, (int[]){ b.u32, b.u32, 0 });
	int proto_u32 = btf__type_by_id(btf, f_u32)->type;

	/* a forward declaration is not a struct (libbpf compares kinds, not names) */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_fwd, btf, f_st, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "extern 'void f_fwd(struct th_flow *p)' does not match host 'void f_st(struct th_flow *p)': "
		       "parameter 1 'p': 'struct th_flow *' vs 'struct th_flow *' (below a pointer: a forward "
		       "declaration vs a struct; clang records only a declaration of a struct whose members the "
		       "program never uses)");
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_st, btf, f_st, msg, sizeof(msg)), 1);
	CHECK_STR(msg, "");
	/* floats are never compatible, not even with themselves */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_dbl, btf, f_dbl, msg, sizeof(msg)), 0);
	CHECK_CONTAINS(msg, "return type: 'double' vs 'double' (floating point");
	/* typedefs and const are looked through; integer size and sign do not matter */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_cv, btf, f_u32, msg, sizeof(msg)), 1);
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_s8, btf, f_u32, msg, sizeof(msg)), 1);
	/* ENUM and ENUM64 are one kind */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_en, btf, f_en64, msg, sizeof(msg)), 1);
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_en, btf, f_u32, msg, sizeof(msg)), 0);
	CHECK_CONTAINS(msg, "(an enum vs an integer)");
	/* varargs: the marker is a parameter of type void */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_var, btf, f_two, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "extern 'unsigned int f_var(unsigned int p, ...)' does not match host "
		       "'unsigned int f_two(unsigned int p, unsigned int p)': parameter 2 'p': '...' vs "
		       "'unsigned int'");
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_var, btf, f_var, msg, sizeof(msg)), 1);
	/* FUNC_PROTO ids are accepted as well (no name to print) */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, proto_u32, btf, f_u32, msg, sizeof(msg)), 1);
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, proto_u32, btf, f_two, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "extern 'unsigned int (unsigned int p)' does not match host "
		       "'unsigned int f_two(unsigned int p, unsigned int p)': 1 parameter vs 2");
	/* against the real host BTF: the built th_flow pointer fits th_flow_cwnd's */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, add_func(btf, "th_flow_cwnd", b.u32, (int[]){ b.ptr_st, 0 }), hbtf,
					  host_func("th_flow_cwnd"), msg, sizeof(msg)),
		     1);
	/* NULL / empty message buffers are fine */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_fwd, btf, f_st, NULL, 0), 0);
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_fwd, btf, f_st, msg, 1), 0);
	CHECK_STR(msg, "");

	/* not functions, ids out of range, no BTF: -EINVAL with a reason */
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, b.u32, btf, f_u32, msg, sizeof(msg)), -EINVAL);
	CHECK_STR(msg, "program BTF type [1] is not a function with a prototype");
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_u32, btf, 100000, msg, sizeof(msg)), -EINVAL);
	CHECK_CONTAINS(msg, "host BTF type [100000]");
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, 0, btf, f_u32, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_compat(NULL, f_u32, btf, f_u32, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_func_compat(btf, f_u32, NULL, f_u32, msg, sizeof(msg)), -EINVAL);
	/* a FUNC whose type is not a FUNC_PROTO */
	int bad = btf__add_func(btf, "bad", BTF_FUNC_EXTERN, btf__add_func_proto(btf, 0));
	if (bad > 0) {
		/* point it at an INT behind libbpf's back: a FUNC must reference a FUNC_PROTO */
		struct btf_type *t = (struct btf_type *)btf__type_by_id(btf, bad);
		t->type = b.u32;
		CHECK_EQ_U64(kbpf_btf_func_compat(btf, bad, btf, f_u32, msg, sizeof(msg)), -EINVAL);
		CHECK_EQ_U64(kbpf_btf_func_decl(btf, bad, msg, sizeof(msg)), -EINVAL);
	}
	btf__free(btf);
}

/* BTF that libbpf parses but its btf_dump would recurse on forever: refused up front. */
static void set_type(struct btf *btf, int id, int to)
{
	((struct btf_type *)btf__type_by_id(btf, id))->type = to;
}

static void test_cycles(void)
{
	char msg[256];

	CHECK_EQ_U64(kbpf_btf_check_printable(hbtf, 0, msg, sizeof(msg)), 0);
	for (int which = 0; which < 7; which++) {
		struct btf *btf = btf__new_empty();
		int i = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		int p = btf__add_ptr(btf, i), t = btf__add_typedef(btf, "t", i);
		int c = btf__add_const(btf, i), v = btf__add_volatile(btf, c);
		int anon = btf__add_struct(btf, NULL, 8);
		btf__add_field(btf, "m", i, 0, 0);
		int anon_ptr = btf__add_ptr(btf, anon);
		int proto = btf__add_func_proto(btf, i);
		btf__add_func_param(btf, "x", i);
		int proto_ptr = btf__add_ptr(btf, proto);
		int named = btf__add_struct(btf, "node", 8);
		btf__add_field(btf, "next", i, 0, 0);
		int named_ptr = btf__add_ptr(btf, named);
		int f = btf__add_func(btf, "f", BTF_FUNC_GLOBAL, proto);
		int expect = -ELOOP, on = 0;

		switch (which) {
		case 0: set_type(btf, p, p), on = p; break;     /* int **** ... */
		case 1: set_type(btf, t, t), on = t; break;     /* typedef t t */
		case 2: set_type(btf, c, v), on = v; break;     /* const volatile const ... */
		case 3: btf_members(btf__type_by_id(btf, anon))->type = anon_ptr, on = anon; break;
		case 4: btf_params(btf__type_by_id(btf, proto))->type = proto_ptr, on = proto; break;
		case 5: /* legal C: struct node { struct node *next; } and int (*)(int (*)(...)) via a name */
			btf_members(btf__type_by_id(btf, named))->type = named_ptr, on = named;
			expect = 0;
			break;
		case 6: /* struct node { struct node next; }: by value */
			btf_members(btf__type_by_id(btf, named))->type = named, on = named;
			break;
		}
		CHECK_EQ_U64(kbpf_btf_check_printable(btf, on, msg, sizeof(msg)), expect);
		CHECK_EQ_U64(kbpf_btf_check_printable(btf, 0, msg, sizeof(msg)), expect);
		if (expect)
			CHECK_CONTAINS(msg, "refers back to itself");
		if (which == 4) { /* the function's own declaration cannot be printed */
			CHECK_EQ_U64(kbpf_btf_func_decl(btf, f, msg, sizeof(msg)), -ELOOP);
			CHECK(kbpf_btf_func_compat(btf, f, hbtf, host_func("th_add"), msg, sizeof(msg)) < 0);
		}
		btf__free(btf);
	}

	/* a member typed void: pahole 1.24's encoding of a DWARF 5 _Atomic member */
	struct btf *atomic = btf__new_empty();
	int td = btf__add_typedef(atomic, "atomic_uint", 0);
	int lock = btf__add_struct(atomic, "lock", 4);
	btf__add_field(atomic, "locked", td, 0, 0);
	CHECK_EQ_U64(kbpf_btf_check_printable(atomic, lock, msg, sizeof(msg)), -EINVAL);
	CHECK_STR(msg, "struct 'lock' [2] member 'locked' has a type without size or alignment");
	CHECK_EQ_U64(kbpf_btf_check_printable(atomic, td, msg, sizeof(msg)), 0); /* typedef void: fine */
	btf__free(atomic);

	/* acyclic but too deep for a recursive printer */
	struct btf *btf = btf__new_empty();
	int id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	for (int n = 0; n < KBPF_BTF_MAX_REF_DEPTH + 10; n++)
		id = btf__add_ptr(btf, id);
	CHECK_EQ_U64(kbpf_btf_check_printable(btf, id, msg, sizeof(msg)), -E2BIG);
	CHECK_EQ_U64(kbpf_btf_check_printable(btf, 0, msg, sizeof(msg)), -E2BIG);
	CHECK_CONTAINS(msg, "chain of more than");
	CHECK_EQ_U64(kbpf_btf_check_printable(btf, id - 20, msg, sizeof(msg)), 0);
	CHECK_EQ_U64(kbpf_btf_check_printable(btf, id + 1, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_U64(kbpf_btf_check_printable(NULL, 0, msg, sizeof(msg)), -EINVAL);
	btf__free(btf);
}

/* What libbpf 1.1's parser lets through: found by kbpf_btf_validate. */
static void test_validate(void)
{
	char msg[256];
	uint32_t size;

	CHECK_EQ_U64(kbpf_btf_validate(hbtf, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "");
	CHECK_EQ_U64(kbpf_btf_validate(NULL, msg, sizeof(msg)), -EINVAL);
	for (int which = 0; which < 6; which++) {
		struct btf *btf = btf__new_empty();
		int i = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		int st = btf__add_struct(btf, "s", 8);
		btf__add_field(btf, "a", i, 0, 0);
		btf__add_field(btf, "b", i, 32, 0);
		int proto = btf__add_func_proto(btf, i);
		btf__add_func_param(btf, "x", i);
		struct btf_type *t;
		const char *want = NULL;

		switch (which) {
		case 0: /* a parameter of type 1000 */
			btf_params(btf__type_by_id(btf, proto))->type = 1000;
			want = "type [3] has a parameter of a type that does not exist";
			break;
		case 1: /* a struct name past the strings */
			((struct btf_type *)btf__type_by_id(btf, st))->name_off = 1u << 20;
			want = "type [2] has a name outside the string section";
			break;
		case 2: /* member b at bit 64 of an 8-byte struct */
			t = (struct btf_type *)btf__type_by_id(btf, st);
			btf_members(t)[1].offset = 64;
			want = "type [2] has a member that lies outside it";
			break;
		case 3: /* 8 bytes claimed, then grown to 100 MiB of holes */
			((struct btf_type *)btf__type_by_id(btf, st))->size = 100u << 20;
			want = "type [2] has holes between its members too large to be real";
			break;
		case 4: /* a 4-byte int of 40 bits */
			*(uint32_t *)((struct btf_type *)btf__type_by_id(btf, i) + 1) = 40;
			want = "type [1] has an integer whose bits do not fit its size";
			break;
		case 5: /* a return type of type 1000 */
			((struct btf_type *)btf__type_by_id(btf, proto))->type = 1000;
			want = "type [3] has a return type that does not exist";
			break;
		}
		CHECK_EQ_U64(kbpf_btf_validate(btf, msg, sizeof(msg)), -EINVAL);
		CHECK_STR(msg, want);
		/* everything that prints refuses it too */
		CHECK_EQ_U64(kbpf_btf_check_printable(btf, 0, msg, sizeof(msg)), -EINVAL);
		btf__free(btf);
	}

	/* a header of 25 bytes: libbpf 1.1 parses it, every record is misaligned */
	const unsigned char *raw = btf__raw_data(hbtf, &size);
	unsigned char *copy = malloc(size + 1);
	if (copy) {
		uint32_t hdr_len;
		memcpy(&hdr_len, raw + 4, 4);
		memcpy(copy, raw, hdr_len);
		copy[hdr_len] = 0;
		memcpy(copy + hdr_len + 1, raw + hdr_len, size - hdr_len);
		hdr_len++;
		memcpy(copy + 4, &hdr_len, 4);
		struct btf *odd = btf__new(copy, size + 1);
		if (odd) { /* (a later libbpf may refuse it itself) */
			CHECK_EQ_U64(kbpf_btf_check_aligned(odd), -EINVAL);
			CHECK_EQ_U64(kbpf_btf_validate(odd, msg, sizeof(msg)), -EINVAL);
			CHECK_CONTAINS(msg, "not 4-byte aligned");
			CHECK_EQ_U64(kbpf_btf_func_decl(odd, 1, msg, sizeof(msg)), -EINVAL);
			btf__free(odd);
		}
		free(copy);
	}
	CHECK_EQ_U64(kbpf_btf_check_aligned(hbtf), 0);
}

/* Write size bytes to a new temporary file; its path in path (a mkstemp template). */
static int write_temp(char *path, const void *data, size_t size)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, data, size);
	close(fd);
	return n == (ssize_t)size ? 0 : -1;
}

/* Host BTF is input like any object: libbpf 1.1 parses raw BTF whose type ids, name
 * offsets or record alignment are wrong, so kbpf_host_btf_load_file validates it
 * (kbpf_btf_validate) and refuses it with -EINVAL, keeping the BTF the host had. */
static void test_load_file_validated(void)
{
	struct kbpf_host *h = kbpf_host_new();
	struct btf *b = btf__new_empty();
	uint32_t size, hdr_len, type_off;
	const unsigned char *raw;
	unsigned char *copy;

	CHECK(h && b);
	if (!h || !b)
		goto out;
	CHECK(btf__add_int(b, "int", 4, BTF_INT_SIGNED) == 1);
	CHECK(btf__add_ptr(b, 1) == 2);
	raw = btf__raw_data(b, &size);
	copy = raw ? malloc(size) : NULL;
	CHECK(copy != NULL);
	if (!copy)
		goto out;
	memcpy(&hdr_len, raw + 4, 4);
	memcpy(&type_off, raw + 8, 4);
	/* the types: INT "int" (16 bytes: name_off, info, size, encoding), then PTR */
	size_t int_rec = hdr_len + type_off, ptr_rec = int_rec + 16;
	for (int c = 0; c < 4; c++) {
		char path[] = "/tmp/kbpf-test-host-btf-XXXXXX";
		uint32_t v;
		memcpy(copy, raw, size);
		switch (c) {
		case 0: break; /* as written: loads */
		case 1: v = 1000; memcpy(copy + ptr_rec + 8, &v, 4); break;   /* PTR to type 1000 */
		case 2: v = 0xffff; memcpy(copy + int_rec, &v, 4); break;     /* name past the strings */
		case 3: v = 64; memcpy(copy + int_rec + 12, &v, 4); break;    /* a 4-byte int of 64 bits */
		}
		CHECK(write_temp(path, copy, size) == 0);
		int ret = kbpf_host_btf_load_file(h, path);
		unlink(path);
		if (c == 0) {
			CHECK_EQ_U64(ret, 0);
			CHECK(kbpf_host_btf(h) && btf__type_cnt(kbpf_host_btf(h)) == 3);
		} else {
			if (ret != -EINVAL)
				fprintf(stderr, "corruption %d: got %d\n", c, ret);
			CHECK_EQ_U64(ret, -EINVAL);
			/* the host keeps the BTF it had */
			CHECK(kbpf_host_btf(h) && btf__type_cnt(kbpf_host_btf(h)) == 3);
		}
	}
	free(copy);
out:
	btf__free(b);
	kbpf_host_free(h);
}

/* The shared walks of src/btf/btf_walk.c and the object check (btf_check_object.c), each
 * the one copy the loader, the verifier, the trampolines and the kbpf command use. */
static void test_walks(void)
{
	struct btf *btf = btf__new_empty();
	char msg[160];
	int i = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int proto = btf__add_func_proto(btf, i);
	int fptr = btf__add_ptr(btf, proto);
	int cfptr = btf__add_const(btf, fptr);
	int tfptr = btf__add_typedef(btf, "handler_t", cfptr);
	int st = btf__add_struct(btf, "ops", 16);
	btf__add_field(btf, "a", i, 0, 0);
	btf__add_field(btf, "fn", tfptr, 64, 0);
	int chain = i; /* 100 consts: longer than the loader's old limit of 32, still a chain */
	for (int k = 0; k < 100; k++)
		chain = btf__add_const(btf, chain);
	const struct btf_type *s = btf__type_by_id(btf, st);
	unsigned idx = 99;
	uint32_t rid = 0;

	CHECK_STR(kbpf_btf_kind_str(s), "STRUCT");
	CHECK_STR(kbpf_btf_kind_str(btf__type_by_id(btf, proto)), "FUNC_PROTO");
	CHECK_STR(kbpf_btf_kind_str(NULL), "UNKNOWN");
	CHECK_STR(kbpf_btf_kind_str(btf__type_by_id(btf, 0)), "UNKNOWN");
	CHECK_STR(kbpf_btf_kind_str_lower(s), "struct");
	CHECK_STR(kbpf_btf_kind_str_lower(btf__type_by_id(btf, 0)), "void");
	CHECK(kbpf_btf_member_by_name(btf, s, "fn", &idx) == &btf_members(s)[1] && idx == 1);
	CHECK(kbpf_btf_member_by_name(btf, s, "zz", NULL) == NULL);
	CHECK_EQ_U64(kbpf_btf_func_ptr_proto(btf, tfptr), proto);
	CHECK_EQ_U64(kbpf_btf_func_ptr_proto(btf, i), 0);
	CHECK_EQ_U64(kbpf_btf_func_ptr_proto(btf, proto), 0); /* a prototype, not a pointer to one */
	CHECK(kbpf_btf_skip_mods(btf, chain, &rid) == btf__type_by_id(btf, i) && rid == (uint32_t)i);
	CHECK_EQ_U64(kbpf_btf_check_object(btf, msg, sizeof(msg)), 0);
	/* a struct that holds itself by value, through a typedef; then a reference past the end */
	int self = btf__add_struct(btf, "self", 8);
	btf__add_field(btf, "me", i, 0, 0);
	int tself = btf__add_typedef(btf, "self_t", self);
	btf_members(btf__type_by_id(btf, self))->type = (uint32_t)tself;
	CHECK_EQ_U64(kbpf_btf_check_object(btf, msg, sizeof(msg)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(msg, "contains itself");
	btf_members(btf__type_by_id(btf, self))->type = (uint32_t)btf__type_cnt(btf) + 5;
	CHECK_EQ_U64(kbpf_btf_check_object(btf, msg, sizeof(msg)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(msg, "beyond the last type");
	/* a loop of modifiers: NULL, not a hang */
	set_type(btf, chain, chain);
	CHECK(kbpf_btf_skip_mods(btf, chain, NULL) == NULL);
	btf__free(btf);
}

int main(void)
{
	libbpf_set_print(silent); /* expected parse failures would print */
	host = kbpf_host_new();
	if (host && kbpf_host_btf_load_file(host, KBPF_TEST_HOST) == 0)
		hbtf = kbpf_host_btf(host);
	else
		fprintf(stderr, "cannot load the test host's BTF from %s\n", KBPF_TEST_HOST);
	RUN(test_load_test_host);
	if (hbtf) {
		RUN(test_load_errors);
		RUN(test_find_index);
		RUN(test_func_decl);
		RUN(test_compat_clang_externs);
		RUN(test_compat_built);
		RUN(test_cycles);
		RUN(test_validate);
	}
	RUN(test_walks);
	RUN(test_load_file_validated);
	kbpf_host_free(host);
	return test_summary();
}

#else /* built without host BTF (KBPF_HOST_BTF=OFF or no clang): nothing to test */

int main(void)
{
	printf("skipped: no test host BTF (see tests/host/CMakeLists.txt)\n");
	return 0;
}

#endif
