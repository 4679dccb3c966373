/* SPDX-License-Identifier: Apache-2.0 */
/* The program-type registry and helper prototypes (src/host/prog_type.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "test.h"

static uint64_t h_add(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a + b + c + d + e;
}
static uint64_t h_other(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)b, (void)c, (void)d, (void)e;
	return a * 3;
}

static int allow_first_word(const struct kbpf_prog_type *type, int off, int size,
			    enum kbpf_access_type access, struct kbpf_ctx_access_info *info)
{
	(void)type;
	info->ctx_field_size = 4;
	return off == 0 && size <= 4 && access == KBPF_ACCESS_READ;
}

static void test_proto_register_and_run(void)
{
	struct kbpf_host *host = kbpf_host_new();
	/* The name lives in a buffer we overwrite: the host must have copied it. */
	char name[32];
	strcpy(name, "bpf_add");
	struct kbpf_helper_proto p = {
		.name = name, .fn = h_add, .ret_type = KBPF_RET_INTEGER,
		.arg_type = { KBPF_ARG_ANYTHING, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE },
		.flags = KBPF_HELPER_GPL_ONLY, .caps = KBPF_CAP_BPF,
	};
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 7, &p), 0);
	memset(name, 'x', sizeof(name) - 1);
	p.ret_type = KBPF_RET_VOID;

	const struct kbpf_helper_proto *got = kbpf_host_helper_proto(host, 7);
	CHECK(got && got != &p);
	if (got) {
		CHECK_STR(got->name, "bpf_add");
		CHECK(got->fn == h_add);
		CHECK_EQ_U64(got->ret_type, KBPF_RET_INTEGER);
		CHECK_EQ_U64(got->arg_type[1], KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY);
		CHECK_EQ_U64(got->arg_type[3], KBPF_ARG_DONTCARE);
		CHECK_EQ_U64(got->flags, KBPF_HELPER_GPL_ONLY);
		CHECK_EQ_U64(got->caps, KBPF_CAP_BPF);
	}
	/* Runs like a plain registration. */
	const char *n = NULL;
	CHECK(kbpf_host_helper_find(host, 7, &n) == h_add);
	CHECK_STR(n, "bpf_add");
	CHECK(kbpf_host_helper_proto(host, 8) == NULL);
	CHECK(kbpf_host_helper_proto(NULL, 7) == NULL);

	/* Pointers stay valid while the table grows. */
	for (int i = 200; i > 10; i--) {
		struct kbpf_helper_proto q = { .name = "many", .fn = h_other };
		CHECK_EQ_U64(kbpf_host_helper_register_proto(host, i, &q), 0);
	}
	CHECK(kbpf_host_helper_proto(host, 7) == got);
	CHECK(kbpf_host_helper_proto(host, 150) && kbpf_host_helper_proto(host, 150)->fn == h_other);
	CHECK(kbpf_host_helper_find(host, 11, NULL) == h_other);
	kbpf_host_free(host);
}

static void test_proto_only_and_plain(void)
{
	struct kbpf_host *host = kbpf_host_new();
	/* Verifier-only: no implementation, so nothing to run. */
	struct kbpf_helper_proto p = { .name = "bpf_loop", .ret_type = KBPF_RET_INTEGER,
				       .arg_type = { KBPF_ARG_CONST_SIZE_OR_ZERO, KBPF_ARG_PTR_TO_FUNC,
						     KBPF_ARG_PTR_TO_STACK | KBPF_ARG_MAYBE_NULL,
						     KBPF_ARG_ANYTHING } };
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 181, &p), 0);
	CHECK(kbpf_host_helper_proto(host, 181) != NULL);
	CHECK(kbpf_host_helper_find(host, 181, NULL) == NULL);
	/* ...and an implementation can be added later without a second prototype. */
	CHECK_EQ_U64(kbpf_host_helper_register(host, 181, "bpf_loop", h_add), 0);
	CHECK(kbpf_host_helper_find(host, 181, NULL) == h_add);

	/* A plain helper has no prototype; a proto with fn for its id is a duplicate, a
	 * proto without fn just describes it. */
	CHECK_EQ_U64(kbpf_host_helper_register(host, 5, "plain", h_add), 0);
	CHECK(kbpf_host_helper_proto(host, 5) == NULL);
	struct kbpf_helper_proto q = { .name = "plain", .fn = h_other };
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 5, &q), (uint64_t)-EEXIST);
	CHECK(kbpf_host_helper_proto(host, 5) == NULL); /* the failure left nothing behind */
	CHECK(kbpf_host_helper_find(host, 5, NULL) == h_add);
	q.fn = NULL;
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 5, &q), 0);
	CHECK(kbpf_host_helper_find(host, 5, NULL) == h_add);
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 5, &q), (uint64_t)-EEXIST);
	kbpf_host_free(host);
}

static void test_proto_errors(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_helper_proto p = { .name = "x", .fn = h_add };
	CHECK_EQ_U64(kbpf_host_helper_register_proto(NULL, 1, &p), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, -1, &p), (uint64_t)-EINVAL);
	p.name = NULL;
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), (uint64_t)-EINVAL);
	p.name = "";
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), (uint64_t)-EINVAL);
	p.name = "x";
	p.ret_type = KBPF_RET_TYPE_MAX;
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), (uint64_t)-EINVAL);
	p.ret_type = KBPF_RET_INTEGER;
	p.arg_type[4] = KBPF_ARG_TYPE_MAX;
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), (uint64_t)-EINVAL);
	CHECK(kbpf_host_helper_find(host, 1, NULL) == NULL);
	CHECK(kbpf_host_helper_proto(host, 1) == NULL);
	p.arg_type[4] = KBPF_ARG_DONTCARE;
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), 0);
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, 1, &p), (uint64_t)-EEXIST);
	kbpf_host_free(host);
}

static void count_type(const struct kbpf_prog_type *type, void *arg)
{
	(void)type;
	(*(int *)arg)++;
}

static void collect_name(const struct kbpf_prog_type *type, void *arg)
{
	strcat((char *)arg, type->name);
	strcat((char *)arg, ",");
}

static void test_prog_type_register_find(void)
{
	struct kbpf_host *host = kbpf_host_new();
	char name[16];
	strcpy(name, "mytype");
	int priv = 0;
	struct kbpf_prog_type t = {
		.sz = sizeof(t), .name = name, .linux_type = 0, .ctx_size = 16,
		.ctx_btf_name = "my_ctx", .is_valid_access = allow_first_word,
		.has_ret_range = 1, .ret_min = 0, .ret_max = 3,
		.direct_packet_access = KBPF_PKT_ACCESS_RDONLY, .priv = &priv, .load_caps = KBPF_CAP_BPF,
	};
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), 0);
	memset(name, 'z', sizeof(name) - 1);
	t.ctx_size = 99;

	const struct kbpf_prog_type *got = kbpf_host_prog_type_find(host, "mytype");
	CHECK(got && got != &t);
	if (got) {
		CHECK_STR(got->name, "mytype");
		CHECK_STR(got->ctx_btf_name, "my_ctx");
		CHECK_EQ_U64(got->ctx_size, 16);
		CHECK(got->is_valid_access == allow_first_word);
		CHECK(got->get_func_proto == NULL);
		CHECK_EQ_U64(got->ret_max, 3);
		CHECK(got->priv == &priv);
		CHECK_EQ_U64(got->load_caps, KBPF_CAP_BPF);
		CHECK_EQ_U64(got->direct_packet_access, KBPF_PKT_ACCESS_RDONLY);
		struct kbpf_ctx_access_info info = { 0 };
		CHECK(got->is_valid_access(got, 0, 2, KBPF_ACCESS_READ, &info) == 1);
		CHECK(got->is_valid_access(got, 4, 4, KBPF_ACCESS_READ, &info) == 0);
	}
	CHECK(kbpf_host_prog_type_find(host, "other") == NULL);
	CHECK(kbpf_host_prog_type_find(host, NULL) == NULL);
	CHECK(kbpf_host_prog_type_find(NULL, "mytype") == NULL);

	/* Same name again. */
	t.name = "mytype";
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), (uint64_t)-EEXIST);

	/* Many more: earlier pointers stay valid, foreach sees all in order. */
	char buf[16];
	for (int i = 0; i < 40; i++) {
		snprintf(buf, sizeof(buf), "t%d", i);
		struct kbpf_prog_type u = { .sz = sizeof(u), .name = buf };
		CHECK_EQ_U64(kbpf_host_prog_type_register(host, &u), 0);
	}
	CHECK(kbpf_host_prog_type_find(host, "mytype") == got);
	CHECK(kbpf_host_prog_type_find(host, "t39") != NULL);
	CHECK(kbpf_host_prog_type_find(host, "t39")->ctx_btf_name == NULL);
	int n = 0;
	kbpf_host_prog_type_foreach(host, count_type, &n);
	CHECK_EQ_U64(n, 41);
	kbpf_host_prog_type_foreach(host, NULL, &n);
	kbpf_host_prog_type_foreach(NULL, count_type, &n);
	CHECK_EQ_U64(n, 41);
	kbpf_host_free(host);

	host = kbpf_host_new();
	char names[64] = "";
	struct kbpf_prog_type a = { .sz = sizeof(a), .name = "a" }, b = { .sz = sizeof(b), .name = "b" };
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &b), 0);
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &a), 0);
	kbpf_host_prog_type_foreach(host, collect_name, names);
	CHECK_STR(names, "b,a,");
	kbpf_host_free(host);
}

static void test_prog_type_errors_and_sz(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "x" };
	CHECK_EQ_U64(kbpf_host_prog_type_register(NULL, &t), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, NULL), (uint64_t)-EINVAL);
	t.sz = 0;
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), (uint64_t)-EINVAL);
	t.sz = sizeof(t);
	t.name = NULL;
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), (uint64_t)-EINVAL);
	t.name = "";
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), (uint64_t)-EINVAL);
	t.name = "x";
	t.has_ret_range = 1, t.ret_min = 2, t.ret_max = 1;
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &t), (uint64_t)-EINVAL);
	CHECK(kbpf_host_prog_type_find(host, "x") == NULL);

	/* An older caller's shorter struct: the fields it lacks read as zero. */
	struct kbpf_prog_type old = { .name = "old", .ctx_size = 8, .load_caps = KBPF_CAP_SYS_ADMIN };
	old.sz = offsetof(struct kbpf_prog_type, priv);
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &old), 0);
	const struct kbpf_prog_type *got = kbpf_host_prog_type_find(host, "old");
	CHECK(got && got->ctx_size == 8 && got->load_caps == 0 && got->sz == sizeof(*got));

	/* A newer caller's longer struct: fine if the tail is zero, refused if not. */
	struct {
		struct kbpf_prog_type t;
		uint64_t future;
	} big = { .t = { .name = "new" } };
	big.t.sz = sizeof(big);
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &big.t), 0);
	big.t.name = "newer";
	big.future = 1;
	CHECK_EQ_U64(kbpf_host_prog_type_register(host, &big.t), (uint64_t)-EINVAL);
	CHECK(kbpf_host_prog_type_find(host, "newer") == NULL);
	kbpf_host_free(host);
}

/* kbpf_host_add_map_helpers registers Linux 6.1's prototypes with the functions. */
static void test_map_helper_protos(void)
{
	struct kbpf_host *host = kbpf_host_new();
	CHECK_EQ_U64(kbpf_host_add_map_helpers(host), 0);
	const struct kbpf_helper_proto *p = kbpf_host_helper_proto(host, 1);
	CHECK(p && p->fn && kbpf_host_helper_find(host, 1, NULL) == p->fn);
	if (p) {
		CHECK_STR(p->name, "bpf_map_lookup_elem");
		CHECK_EQ_U64(p->ret_type, KBPF_RET_PTR_TO_MAP_VALUE | KBPF_RET_MAYBE_NULL);
		CHECK_EQ_U64(p->arg_type[0], KBPF_ARG_CONST_MAP_PTR);
		CHECK_EQ_U64(p->arg_type[1], KBPF_ARG_PTR_TO_MAP_KEY);
		CHECK_EQ_U64(p->arg_type[2], KBPF_ARG_DONTCARE);
		CHECK_EQ_U64(p->flags, KBPF_HELPER_PKT_ACCESS);
	}
	p = kbpf_host_helper_proto(host, 2);
	CHECK(p && p->arg_type[2] == KBPF_ARG_PTR_TO_MAP_VALUE && p->arg_type[3] == KBPF_ARG_ANYTHING);
	p = kbpf_host_helper_proto(host, 8);
	CHECK(p && !strcmp(p->name, "bpf_get_smp_processor_id") && p->ret_type == KBPF_RET_INTEGER &&
	      p->arg_type[0] == KBPF_ARG_DONTCARE && p->flags == 0);
	p = kbpf_host_helper_proto(host, 130);
	CHECK(p && p->arg_type[1] == (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY) &&
	      p->arg_type[2] == KBPF_ARG_CONST_SIZE_OR_ZERO && p->flags == 0);
	p = kbpf_host_helper_proto(host, 131);
	CHECK(p && p->ret_type == (KBPF_RET_PTR_TO_ALLOC_MEM | KBPF_RET_MAYBE_NULL) &&
	      p->arg_type[1] == KBPF_ARG_CONST_ALLOC_SIZE_OR_ZERO && (p->flags & KBPF_HELPER_ACQUIRE));
	for (int id = 132; id <= 133; id++) {
		p = kbpf_host_helper_proto(host, id);
		CHECK(p && p->ret_type == KBPF_RET_VOID &&
		      p->arg_type[0] == (KBPF_ARG_PTR_TO_ALLOC_MEM | KBPF_ARG_OBJ_RELEASE));
	}
	p = kbpf_host_helper_proto(host, 134);
	CHECK(p && !strcmp(p->name, "bpf_ringbuf_query") && p->arg_type[1] == KBPF_ARG_ANYTHING);
	p = kbpf_host_helper_proto(host, 195);
	CHECK(p && !strcmp(p->name, "bpf_map_lookup_percpu_elem") && p->arg_type[2] == KBPF_ARG_ANYTHING);
	CHECK_EQ_U64(kbpf_host_add_map_helpers(host), (uint64_t)-EEXIST);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_proto_register_and_run);
	RUN(test_proto_only_and_plain);
	RUN(test_proto_errors);
	RUN(test_prog_type_register_find);
	RUN(test_prog_type_errors_and_sz);
	RUN(test_map_helper_protos);
	return test_summary();
}
