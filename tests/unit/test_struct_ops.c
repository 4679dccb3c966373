/* SPDX-License-Identifier: Apache-2.0 */
/* struct_ops trampolines: a clang-built object (tests/bpf/struct_ops_mixed.bpf.c) fills
 * this test's own struct kt_mixed_ops (host BTF from kbpf_add_host_btf); the test calls
 * the programs through the C function pointers with arguments of mixed widths (u8, s16,
 * u32, s64, pointer, six arguments) and dirty upper bits, on the interpreter (libffi
 * closures), on the JIT (native trampolines) and on the JIT through libffi; every mode
 * must give what C gives. Also: data members copied, the host's check_member/validate
 * hooks, a caller-provided instance, bad signatures and names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/struct_ops.h>
#include "test.h"

#if defined(KBPF_TEST_STRUCT_OPS_HOST) && defined(KBPF_TEST_BPF_OBJ_DIR)

/* The host's struct: in a different member order than the object's, with a member the
 * object does not know, so matching by name is exercised. */
struct kt_mixed_ops {
	uint32_t flags;
	uint64_t (*mix)(uint8_t a, int16_t b, uint32_t c, int64_t d, uint64_t *p);
	int16_t (*neg)(int16_t x);
	uint8_t (*low)(uint64_t v);
	void (*store)(uint64_t *p, uint32_t v);
	int32_t (*six)(int8_t a, uint16_t b, int32_t c, uint8_t d, int16_t e, uint32_t f);
	uint64_t (*unused)(uint64_t v);
	char name[16];
	void *host_only;
};

/* referenced, so that its type (and the prototypes) are in the binary's BTF */
struct kt_mixed_ops kt_mixed_ops_btf_anchor;

static struct kbpf_host *host;

/* What C computes for the same calls (the reference). */
static uint64_t c_mix(uint8_t a, int16_t b, uint32_t c, int64_t d, uint64_t *p)
{
	return (uint64_t)a + (uint64_t)(int64_t)b + (uint64_t)c + (uint64_t)d + *p;
}

static int32_t c_six(int8_t a, uint16_t b, int32_t c, uint8_t d, int16_t e, uint32_t f)
{
	uint64_t x0 = (uint64_t)(int64_t)a, x1 = b, x2 = (uint64_t)(int64_t)c, x3 = d, x4 = (uint64_t)(int64_t)e,
		 x5 = f;
	return (int32_t)((x0 ^ x1 << 1) + x2 * 3 + x3 + (x4 << 2) + x5);
}

static struct kbpf_object *open_loaded(int jit)
{
	char path[512], log[1024] = "";
	struct kbpf_object *obj = NULL;
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log),
					    .jit = jit };

	snprintf(path, sizeof(path), "%s/struct_ops_mixed.bpf.o", KBPF_TEST_BPF_OBJ_DIR);
	if (access(path, R_OK))
		return NULL;
	if (kbpf_object_open_file(path, &oo, &obj) || kbpf_object_load(obj)) {
		fprintf(stderr, "%s: %s %s\n", path, log, obj ? kbpf_object_log(obj) : "");
		CHECK(0);
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

/* volatile sources: the compiler must really pass these through the pointer */
static volatile uint8_t v_u8[] = { 0, 1, 0x7f, 0x80, 0xff };
static volatile int16_t v_s16[] = { 0, -1, -2, 0x7fff, -0x8000 };
static volatile uint32_t v_u32[] = { 0, 3, 0x7fffffff, 0x80000000u, 0xffffffffu };
static volatile int64_t v_s64[] = { 0, -4, INT64_MIN, INT64_MAX, 0x123456789ll };

static void check_instance(const struct kt_mixed_ops *ops, const char *mode)
{
	uint64_t cell = 0x1000, out = 0;

	CHECK_EQ_U64(ops->flags, 7);
	CHECK_STR(ops->name, "mixed");
	CHECK(ops->unused == NULL);
	CHECK(ops->host_only == NULL);
	if (!ops->mix || !ops->neg || !ops->low || !ops->store || !ops->six) {
		CHECK(0);
		return;
	}
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++) {
			uint64_t got = ops->mix(v_u8[i], v_s16[j], v_u32[(i + j) % 5], v_s64[(i * 3 + j) % 5], &cell);
			uint64_t want = c_mix(v_u8[i], v_s16[j], v_u32[(i + j) % 5], v_s64[(i * 3 + j) % 5], &cell);
			if (got != want)
				fprintf(stderr, "%s: mix(%d, %d): %#llx, C: %#llx\n", mode, i, j, (unsigned long long)got,
					(unsigned long long)want);
			CHECK_EQ_U64(got, want);
		}
	for (int j = 0; j < 5; j++)
		CHECK_EQ_U64((int64_t)ops->neg(v_s16[j]), (int64_t)(int16_t)-(int64_t)v_s16[j]);
	CHECK_EQ_U64(ops->low(0x123456789abcdefull), 0xef);
	CHECK_EQ_U64(ops->low(0x180), 0x80);
	ops->store(&out, 0xdeadbeefu);
	CHECK_EQ_U64(out, 0xdeadbeefull); /* u32 zero-extended */
	for (int i = 0; i < 5; i++) {
		int8_t a = (int8_t)v_u8[i];
		uint16_t b = (uint16_t)v_s16[i];
		int32_t c = (int32_t)v_u32[(i + 1) % 5];
		uint8_t d = v_u8[(i + 2) % 5];
		int16_t e = v_s16[(i + 3) % 5];
		uint32_t f = v_u32[(i + 4) % 5];
		CHECK_EQ_U64((int64_t)ops->six(a, b, c, d, e, f), (int64_t)c_six(a, b, c, d, e, f));
	}
}

static void run_mode(int jit, unsigned tramp_flags, const char *mode)
{
	struct kbpf_object *obj = open_loaded(jit);
	struct kbpf_struct_ops_inst *inst = NULL;
	char log[256] = "";
	struct kbpf_struct_ops_opts so = { .sz = sizeof(so), .tramp_flags = tramp_flags, .log_buf = log,
					   .log_size = sizeof(log) };

	if (!obj) {
		printf("%s: skipped (struct_ops_mixed.bpf.o not built)\n", mode);
		return;
	}
	CHECK_EQ_U64(kbpf_prog_is_jited(kbpf_program_prog(kbpf_object_find_program(obj, "mix"))), jit ? 1 : 0);
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), 0);
	if (!inst) {
		fprintf(stderr, "%s: %s\n", mode, log);
	} else {
		CHECK_EQ_U64(kbpf_struct_ops_size(inst), sizeof(struct kt_mixed_ops));
		check_instance(kbpf_struct_ops_data(inst), mode);
		kbpf_struct_ops_free(inst);
	}
	kbpf_object_close(obj);
}

static void test_interp(void)
{
	run_mode(0, 0, "interpreter (libffi)");
}

static void test_jit_native(void)
{
	run_mode(1, 0, "JIT (native trampolines)");
}

static void test_jit_ffi(void)
{
	run_mode(1, KBPF_TRAMPOLINE_FFI, "JIT (libffi trampolines)");
}

/* --- host hooks ---------------------------------------------------------------------- */

static int refuse_store(void *cookie, const char *member, const struct kbpf_program *prog, char *msg, size_t size)
{
	(*(int *)cookie)++;
	(void)prog;
	if (!strcmp(member, "store")) {
		snprintf(msg, size, "member store is not allowed here");
		return -EACCES;
	}
	return 0;
}

static int count_members(void *cookie, const char *member, const struct kbpf_program *prog, char *msg, size_t size)
{
	(void)member, (void)prog, (void)msg, (void)size;
	(*(int *)cookie)++;
	return 0;
}

static int need_flags_8(void *cookie, const void *data, size_t size, char *msg, size_t msg_size)
{
	const struct kt_mixed_ops *ops = data;

	(void)cookie;
	if (size != sizeof(*ops) || ops->flags != 8) {
		snprintf(msg, msg_size, "flags must be 8, not %u", ops->flags);
		return -EINVAL;
	}
	return 0;
}

static void test_hooks_and_errors(void)
{
	struct kbpf_object *obj = open_loaded(1);
	struct kbpf_struct_ops_inst *inst = NULL;
	char log[256] = "";
	int calls = 0;
	struct kbpf_struct_ops_type type = { .sz = sizeof(type), .name = "kt_mixed_ops", .check_member = refuse_store,
					     .cookie = &calls };
	struct kbpf_struct_ops_opts so = { .sz = sizeof(so), .type = &type, .log_buf = log, .log_size = sizeof(log) };
	struct kt_mixed_ops mine;

	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), -EACCES);
	CHECK(inst == NULL);
	CHECK_CONTAINS(log, "member store is not allowed here");
	CHECK(calls >= 1);

	type.check_member = count_members;
	calls = 0;
	type.validate = need_flags_8;
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), -EINVAL);
	CHECK_CONTAINS(log, "flags must be 8, not 7");
	CHECK_EQ_U64(calls, 5);

	/* a caller-provided instance */
	type.validate = NULL;
	so.data = &mine;
	so.data_size = sizeof(mine);
	memset(&mine, 0xaa, sizeof(mine));
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), 0);
	CHECK(kbpf_struct_ops_data(inst) == &mine);
	if (inst) {
		check_instance(&mine, "caller's instance");
		kbpf_struct_ops_free(inst);
		CHECK(mine.mix == NULL); /* cleared: no dangling pointers */
	}
	so.data_size = 8;
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), -EINVAL);
	CHECK_CONTAINS(log, "smaller than struct kt_mixed_ops");
	so.data = NULL;

	type.name = "tcp_congestion_ops";
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "mixed_ops", host, &so, &inst), -EINVAL);
	CHECK_CONTAINS(log, "is a struct kt_mixed_ops, not tcp_congestion_ops");
	CHECK_EQ_U64(kbpf_struct_ops_instantiate(obj, "nope", host, NULL, &inst), -ENOENT);
	kbpf_object_close(obj);
}

/* kbpf_trampoline_create directly: a raw program, the prototype of a member. */
static void test_trampoline_raw(void)
{
	const struct btf *btf = kbpf_host_btf(host);
	int sid = btf__find_by_name_kind(btf, "kt_mixed_ops", BTF_KIND_STRUCT);
	const struct btf_type *st = sid > 0 ? btf__type_by_id(btf, (uint32_t)sid) : NULL;
	uint32_t neg_type = 0, name_type = 0;
	/* r0 = ctx[0] * 2 (ctx[0] is the sign-extended s16) */
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	char log[256] = "";
	struct kbpf_trampoline_opts to = { .sz = sizeof(to), .log_buf = log, .log_size = sizeof(log) };

	CHECK(st != NULL);
	if (!st)
		return;
	for (unsigned i = 0; i < btf_vlen(st); i++) {
		const char *n = btf__name_by_offset(btf, btf_members(st)[i].name_off);
		if (!strcmp(n, "neg"))
			neg_type = btf_members(st)[i].type;
		if (!strcmp(n, "name"))
			name_type = btf_members(st)[i].type;
	}
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit };
		struct kbpf_prog *p = NULL;
		struct kbpf_trampoline *t = NULL;

		CHECK_EQ_U64(kbpf_prog_create(insns, 3, &po, &p), 0);
		CHECK_EQ_U64(kbpf_trampoline_create(p, btf, neg_type, &to, &t), 0);
		if (t) {
			int16_t (*fn)(int16_t) = (int16_t(*)(int16_t))kbpf_trampoline_fn(t);
			CHECK_EQ_U64(kbpf_trampoline_is_native(t), jit);
			CHECK_EQ_U64((int64_t)fn(-3), -6);
			CHECK_EQ_U64((int64_t)fn(0x4001), (int64_t)(int16_t)0x8002); /* narrowed to s16 */
			kbpf_trampoline_free(t);
		}
		CHECK_EQ_U64(kbpf_trampoline_create(p, btf, name_type, &to, &t), -EINVAL);
		CHECK_CONTAINS(log, "is not a function prototype");
		kbpf_prog_free(p);
	}
}

int main(void)
{
	host = kbpf_host_new();
	kt_mixed_ops_btf_anchor.flags = 0;
	if (!host || kbpf_host_btf_load_self(host)) {
		fprintf(stderr, "setting up the host failed\n");
		return 1;
	}
	RUN(test_interp);
	RUN(test_jit_native);
	RUN(test_jit_ffi);
	RUN(test_hooks_and_errors);
	RUN(test_trampoline_raw);
	kbpf_host_free(host);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: no host BTF or no BPF objects\n");
	return 0;
}

#endif
