/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE relocation against BTF built with libbpf's writable API: a local (program)
 * BTF and a target (host) BTF whose layouts differ, every relocation kind, flavours,
 * anonymous members, arrays, bitfields, enums, candidate ambiguity and pruning,
 * poisoning, and malformed relocations. */
#include <errno.h>
#include <stdlib.h>
#include <kbpf/isa.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf/core.h"
#include "test.h"

static struct btf *L, *T;
static char logbuf[512];

/* local and target ids by name */
static struct {
	int l_int, l_uint, l_u64, l_char;
	int l_foo, l_foo_v2, l_bar, l_baz, l_qux, l_nest, l_nest2, l_arr, l_arr2, l_arrf, l_bf, l_bfx, l_e, l_e64,
		l_eneg, l_absent, l_m, l_m2, l_u32t, l_fc, l_big, l_anon, l_cyc, l_deep;
	int t_int, t_foo, t_m, t_e64;
} id;

static void build_local(void)
{
	L = btf__new_empty();
	id.l_int = btf__add_int(L, "int", 4, BTF_INT_SIGNED);
	id.l_uint = btf__add_int(L, "unsigned int", 4, 0);
	id.l_u64 = btf__add_int(L, "unsigned long long", 8, 0);
	id.l_char = btf__add_int(L, "char", 1, BTF_INT_CHAR);

	/* struct foo { int a; int b; unsigned c; int d; int gone; } */
	id.l_foo = btf__add_struct(L, "foo", 20);
	btf__add_field(L, "a", id.l_int, 0, 0);
	btf__add_field(L, "b", id.l_int, 32, 0);
	btf__add_field(L, "c", id.l_uint, 64, 0);
	btf__add_field(L, "d", id.l_int, 96, 0);
	btf__add_field(L, "gone", id.l_int, 128, 0);
	id.l_foo_v2 = btf__add_struct(L, "foo___v2", 8);
	btf__add_field(L, "a", id.l_int, 0, 0);
	btf__add_field(L, "b", id.l_int, 32, 0);

	id.l_bar = btf__add_struct(L, "bar", 4);
	btf__add_field(L, "x", id.l_int, 0, 0);
	id.l_baz = btf__add_struct(L, "baz", 4);
	btf__add_field(L, "x", id.l_int, 0, 0);
	id.l_qux = btf__add_struct(L, "qux", 8);
	btf__add_field(L, "x", id.l_int, 0, 0);
	btf__add_field(L, "y", id.l_int, 32, 0);

	/* struct nest { int k; int v; } */
	id.l_nest = btf__add_struct(L, "nest", 8);
	btf__add_field(L, "k", id.l_int, 0, 0);
	btf__add_field(L, "v", id.l_int, 32, 0);
	/* struct nest2 { int k; struct { int v; }; } */
	int anon = btf__add_struct(L, NULL, 4);
	btf__add_field(L, "v", id.l_int, 0, 0);
	id.l_anon = anon;
	id.l_nest2 = btf__add_struct(L, "nest2", 8);
	btf__add_field(L, "k", id.l_int, 0, 0);
	btf__add_field(L, NULL, anon, 32, 0);

	/* struct arr { int n; int x[4]; }, arr2 { int x[4]; }, arrf { int n; int x[4]; } */
	int a4 = btf__add_array(L, id.l_int, id.l_int, 4);
	id.l_arr = btf__add_struct(L, "arr", 20);
	btf__add_field(L, "n", id.l_int, 0, 0);
	btf__add_field(L, "x", a4, 32, 0);
	id.l_arr2 = btf__add_struct(L, "arr2", 16);
	btf__add_field(L, "x", a4, 0, 0);
	id.l_arrf = btf__add_struct(L, "arrf", 20);
	btf__add_field(L, "n", id.l_int, 0, 0);
	btf__add_field(L, "x", a4, 32, 0);

	/* struct bf { unsigned f1:3; int f2:5; }, bfx { unsigned long long f:8; } */
	id.l_bf = btf__add_struct(L, "bf", 4);
	btf__add_field(L, "f1", id.l_uint, 0, 3);
	btf__add_field(L, "f2", id.l_int, 3, 5);
	id.l_bfx = btf__add_struct(L, "bfx", 8);
	btf__add_field(L, "f", id.l_u64, 0, 8);

	/* enum e { A, B, C }, enum e64 { BIG = 1 }, enum eneg { NEG = 1 } */
	id.l_e = btf__add_enum(L, "e", 4);
	btf__add_enum_value(L, "A", 0);
	btf__add_enum_value(L, "B", 1);
	btf__add_enum_value(L, "C", 2);
	id.l_e64 = btf__add_enum(L, "e64", 4);
	btf__add_enum_value(L, "BIG", 1);
	id.l_eneg = btf__add_enum(L, "eneg", 4);
	btf__add_enum_value(L, "NEG___flavour", 1);

	id.l_absent = btf__add_struct(L, "absent", 4);
	btf__add_field(L, "x", id.l_int, 0, 0);
	id.l_m = btf__add_struct(L, "m", 4);
	btf__add_field(L, "a", id.l_int, 0, 0);
	id.l_m2 = btf__add_struct(L, "m2", 4);
	btf__add_field(L, "a", id.l_int, 0, 0);
	id.l_u32t = btf__add_typedef(L, "u32t", id.l_uint);
	id.l_fc = btf__add_struct(L, "fc", 4);
	btf__add_field(L, "x", id.l_int, 0, 0);
	id.l_big = btf__add_struct(L, "big", 4);
	btf__add_field(L, "a", id.l_int, 0, 0);
	id.l_deep = btf__add_struct(L, "deep", 4);
	btf__add_field(L, "x", id.l_int, 0, 0);

	/* a typedef cycle: malformed BTF libbpf 1.1 does not reject */
	id.l_cyc = btf__add_typedef(L, "cyc", id.l_int);
	((struct btf_type *)btf__type_by_id(L, id.l_cyc))->type = id.l_cyc;
}

static void build_target(void)
{
	T = btf__new_empty();
	id.t_int = btf__add_int(T, "int", 4, BTF_INT_SIGNED);
	int t_uint = btf__add_int(T, "unsigned int", 4, 0);
	int t_u64 = btf__add_int(T, "unsigned long long", 8, 0);
	int t_long = btf__add_int(T, "long", 8, BTF_INT_SIGNED);
	int t_char = btf__add_int(T, "char", 1, BTF_INT_CHAR);

	/* struct foo { long pad; u64 c; int b; int a; long d; }: reordered, c and d grown,
	 * gone missing */
	id.t_foo = btf__add_struct(T, "foo", 32);
	btf__add_field(T, "pad", t_long, 0, 0);
	btf__add_field(T, "c", t_u64, 64, 0);
	btf__add_field(T, "b", id.t_int, 128, 0);
	btf__add_field(T, "a", id.t_int, 160, 0);
	btf__add_field(T, "d", t_long, 192, 0);

	/* two flavours of bar disagreeing on x; two of baz agreeing */
	btf__add_struct(T, "bar", 4);
	btf__add_field(T, "x", id.t_int, 0, 0);
	btf__add_struct(T, "bar___old", 8);
	btf__add_field(T, "pad", id.t_int, 0, 0);
	btf__add_field(T, "x", id.t_int, 32, 0);
	btf__add_struct(T, "baz", 4);
	btf__add_field(T, "x", id.t_int, 0, 0);
	btf__add_struct(T, "baz___2", 8);
	btf__add_field(T, "x", id.t_int, 0, 0);
	btf__add_field(T, "y", id.t_int, 32, 0);
	/* qux split over two flavours */
	btf__add_struct(T, "qux___a", 4);
	btf__add_field(T, "x", id.t_int, 0, 0);
	btf__add_struct(T, "qux___b", 8);
	btf__add_field(T, "pad", id.t_int, 0, 0);
	btf__add_field(T, "y", id.t_int, 32, 0);

	/* struct nest { int k; union { long w; int v; }; } */
	int u = btf__add_union(T, NULL, 8);
	btf__add_field(T, "w", t_long, 0, 0);
	btf__add_field(T, "v", id.t_int, 0, 0);
	btf__add_struct(T, "nest", 16);
	btf__add_field(T, "k", id.t_int, 0, 0);
	btf__add_field(T, NULL, u, 64, 0);
	/* struct nest2 { long pad; int k; int v; } */
	btf__add_struct(T, "nest2", 16);
	btf__add_field(T, "pad", t_long, 0, 0);
	btf__add_field(T, "k", id.t_int, 64, 0);
	btf__add_field(T, "v", id.t_int, 96, 0);

	int a8 = btf__add_array(T, id.t_int, id.t_int, 8);
	int a2 = btf__add_array(T, id.t_int, id.t_int, 2);
	int a0 = btf__add_array(T, id.t_int, id.t_int, 0);
	btf__add_struct(T, "arr", 40);
	btf__add_field(T, "n", t_long, 0, 0);
	btf__add_field(T, "x", a8, 64, 0);
	btf__add_struct(T, "arr2", 8);
	btf__add_field(T, "x", a2, 0, 0);
	btf__add_struct(T, "arrf", 4); /* int n; int x[]; */
	btf__add_field(T, "n", id.t_int, 0, 0);
	btf__add_field(T, "x", a0, 32, 0);

	/* struct bf { unsigned pad:7, f1:3; ...; int f2:5 at bit 40 } */
	btf__add_struct(T, "bf", 8);
	btf__add_field(T, "pad", t_uint, 0, 7);
	btf__add_field(T, "f1", t_uint, 7, 3);
	btf__add_field(T, "f2", id.t_int, 40, 5);
	/* a bitfield straddling the 8-byte boundary: no single load reads it */
	btf__add_struct(T, "bfx", 16);
	btf__add_field(T, "pad", t_u64, 0, 60);
	btf__add_field(T, "f", t_u64, 60, 8);

	btf__add_enum(T, "e", 4);
	btf__add_enum_value(T, "C", 10);
	btf__add_enum_value(T, "A", 20);
	id.t_e64 = btf__add_enum64(T, "e64", 8, false);
	btf__add_enum64_value(T, "BIG", 1ULL << 40);
	btf__add_enum(T, "eneg", 4);
	btf__add_enum_value(T, "NEG", -5);

	id.t_m = btf__add_struct(T, "m", 16);
	btf__add_field(T, "b", t_long, 0, 0);
	btf__add_field(T, "a", id.t_int, 64, 0);
	btf__add_struct(T, "m2", 4);
	btf__add_field(T, "a", t_uint, 0, 0);
	btf__add_typedef(T, "u32t", t_u64);
	/* fc.x became a struct: incompatible */
	int sub = btf__add_struct(T, "sub", 4);
	btf__add_field(T, "q", id.t_int, 0, 0);
	btf__add_struct(T, "fc", 4);
	btf__add_field(T, "x", sub, 0, 0);
	/* big.a lands beyond what an instruction's 16-bit offset can hold */
	int pad = btf__add_array(T, id.t_int, t_char, 40000);
	btf__add_struct(T, "big", 40004);
	btf__add_field(T, "pad", pad, 0, 0);
	btf__add_field(T, "a", id.t_int, 320000, 0);
	/* deep: an anonymous member that contains itself (malformed) */
	int self = btf__add_struct(T, "deep", 4);
	btf__add_field(T, NULL, self, 0, 0);
}

static struct bpf_core_relo mk(int type_id, const char *access, uint32_t kind)
{
	return (struct bpf_core_relo){ .type_id = (uint32_t)type_id, .access_str_off = (uint32_t)btf__add_str(L, access),
				       .kind = kind };
}

/* One relocation through a fresh context, as the loader applies them (stateless). */
static int core_apply(const struct btf *local, const struct btf *target, const struct bpf_core_relo *relo,
		      int relo_idx, struct bpf_insn *insns, size_t insn_cnt, size_t insn_idx)
{
	struct kbpf_core_ctx *ctx = kbpf_core_ctx_new(local, target);
	int ret;

	if (!ctx)
		return -ENOMEM;
	ret = kbpf_core_ctx_apply(ctx, relo, relo_idx, insns, insn_cnt, insn_idx, logbuf, sizeof(logbuf));
	kbpf_core_ctx_free(ctx);
	return ret;
}

static int apply(int type_id, const char *access, uint32_t kind, struct bpf_insn *insns, size_t cnt, size_t idx)
{
	struct bpf_core_relo r = mk(type_id, access, kind);

	logbuf[0] = 0;
	return core_apply(L, T, &r, 7, insns, cnt, idx);
}

/* ALU64 mov of imm: the patched imm, or a sentinel on error */
static int64_t mov(int type_id, const char *access, uint32_t kind, int32_t imm)
{
	struct bpf_insn in[] = { BPF_MOV64_IMM(BPF_REG_0, imm), BPF_EXIT_INSN() };
	int ret = apply(type_id, access, kind, in, 2, 0);

	if (ret)
		return -1000000 + ret;
	if (in[0].code != (BPF_ALU64 | BPF_MOV | BPF_K))
		return -2000000; /* poisoned */
	return in[0].imm;
}

static bool is_poison(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->imm == KBPF_CORE_POISON_HELPER && !in->src_reg && !in->dst_reg &&
	       !in->off;
}

static void test_field_offsets(void)
{
	/* b: 4 -> 16 through an ALU immediate */
	CHECK_EQ_U64(mov(id.l_foo, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 4), 16);
	CHECK_STR(logbuf, "");
	/* a: a load's offset */
	struct bpf_insn ld[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, ld, 2, 0), 0);
	CHECK_EQ_U64(ld[0].off, 20);
	CHECK_EQ_U64(ld[0].code, BPF_LDX | BPF_W | BPF_MEM);
	/* c: unsigned 4 -> 8 bytes: the load widens */
	struct bpf_insn ldc[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_OFFSET, ldc, 2, 0), 0);
	CHECK_EQ_U64(ldc[0].off, 8);
	CHECK_EQ_U64(ldc[0].code, BPF_LDX | BPF_DW | BPF_MEM);
	/* stores too */
	struct bpf_insn st[] = { BPF_STX_MEM(BPF_W, BPF_REG_1, BPF_REG_2, 8), BPF_ST_MEM(BPF_W, BPF_REG_1, 8, 3),
				 BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_OFFSET, st, 3, 0), 0);
	CHECK_EQ_U64(apply(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_OFFSET, st, 3, 1), 0);
	CHECK(st[0].code == (BPF_STX | BPF_DW | BPF_MEM) && st[0].off == 8);
	CHECK(st[1].code == (BPF_ST | BPF_DW | BPF_MEM) && st[1].off == 8 && st[1].imm == 3);
	/* d: signed 4 -> 8: a load would read garbage: poisoned; an ALU offset is fine */
	struct bpf_insn ldd[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 12), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:3", BPF_CORE_FIELD_BYTE_OFFSET, ldd, 2, 0), 0);
	CHECK(is_poison(&ldd[0]));
	CHECK_CONTAINS(logbuf, "relo #7: insn #0 poisoned: the load/store accesses the field incorrectly");
	CHECK_EQ_U64(mov(id.l_foo, "0:3", BPF_CORE_FIELD_BYTE_OFFSET, 12), 24);
	/* the pointer used as an array: foo[2].b */
	CHECK_EQ_U64(mov(id.l_foo, "2:1", BPF_CORE_FIELD_BYTE_OFFSET, 44), 80);
	/* a flavoured local type finds the plain target type */
	CHECK_EQ_U64(mov(id.l_foo_v2, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 4), 16);
}

static void test_field_info(void)
{
	CHECK_EQ_U64(mov(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_SIZE, 4), 8);
	CHECK_EQ_U64(mov(id.l_foo, "0:0", BPF_CORE_FIELD_BYTE_SIZE, 4), 4);
	CHECK_EQ_U64(mov(id.l_foo, "0:4", BPF_CORE_FIELD_EXISTS, 1), 0);
	CHECK_STR(logbuf, ""); /* not found is an answer here, not a failure */
	CHECK_EQ_U64(mov(id.l_foo, "0:0", BPF_CORE_FIELD_EXISTS, 1), 1);
	CHECK_EQ_U64(mov(id.l_foo, "0:0", BPF_CORE_FIELD_SIGNED, 1), 1);
	CHECK_EQ_U64(mov(id.l_foo, "0:2", BPF_CORE_FIELD_SIGNED, 0), 0);
	/* a whole (non-bitfield) field: shifts by its size */
	CHECK_EQ_U64(mov(id.l_foo, "0:2", BPF_CORE_FIELD_LSHIFT_U64, 32), 0);
	CHECK_EQ_U64(mov(id.l_foo, "0:2", BPF_CORE_FIELD_RSHIFT_U64, 32), 0);
	CHECK_EQ_U64(mov(id.l_foo, "0:0", BPF_CORE_FIELD_LSHIFT_U64, 32), 32);
	/* missing field: its offset/size cannot be had: poisoned, with the reason */
	struct bpf_insn ld[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 16), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:4", BPF_CORE_FIELD_BYTE_OFFSET, ld, 2, 0), 0);
	CHECK(is_poison(&ld[0]));
	CHECK_CONTAINS(logbuf, "relo #7: insn #0 poisoned: field 'gone' not found in struct foo");
	CHECK_CONTAINS(logbuf, "<byte_off> [5] struct foo.gone (0:4 @ offset 16)");
	CHECK_EQ_U64(mov(id.l_foo, "0:4", BPF_CORE_FIELD_BYTE_SIZE, 4), -2000000);
	/* the instruction must hold what the local BTF says */
	CHECK_EQ_U64(mov(id.l_foo, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 5), -1000000 - EINVAL);
	CHECK_CONTAINS(logbuf, "relo #7: unexpected insn #0 (ALU/ALU64) value: got 5, exp 4 -> 16");
	struct bpf_insn bad[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, bad, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "unexpected insn #0 (LDX/ST/STX) value: got 1, exp 0 -> 20");
	struct bpf_insn sz[] = { BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_OFFSET, sz, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "unexpected mem size: got 1, exp 4");
}

static void test_anon_and_arrays(void)
{
	/* v moved into an anonymous union */
	CHECK_EQ_U64(mov(id.l_nest, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 4), 8);
	/* v moved out of a local anonymous struct */
	CHECK_EQ_U64(mov(id.l_nest2, "0:1:0", BPF_CORE_FIELD_BYTE_OFFSET, 4), 12);
	/* x[2]: array element offsets and sizes */
	CHECK_EQ_U64(mov(id.l_arr, "0:1:2", BPF_CORE_FIELD_BYTE_OFFSET, 12), 16);
	CHECK_EQ_U64(mov(id.l_arr, "0:1:2", BPF_CORE_FIELD_BYTE_SIZE, 4), 4);
	CHECK_EQ_U64(mov(id.l_arr, "0:1", BPF_CORE_FIELD_BYTE_SIZE, 16), 32);
	CHECK_EQ_U64(mov(id.l_arr, "0:1:2", BPF_CORE_FIELD_EXISTS, 1), 1);
	/* x[3] of a target array of 2: not there */
	CHECK_EQ_U64(mov(id.l_arr2, "0:0:3", BPF_CORE_FIELD_EXISTS, 1), 0);
	CHECK_EQ_U64(mov(id.l_arr2, "0:0:3", BPF_CORE_FIELD_BYTE_OFFSET, 12), -2000000);
	CHECK_CONTAINS(logbuf, "index 3 is beyond the 2 elements of 'x' here");
	/* a flexible target array takes any index */
	CHECK_EQ_U64(mov(id.l_arrf, "0:1:3", BPF_CORE_FIELD_BYTE_OFFSET, 16), 16);
	/* shifts make no sense on an array element */
	CHECK_EQ_U64(mov(id.l_arr, "0:1:2", BPF_CORE_FIELD_LSHIFT_U64, 0), -1000000 - EINVAL);
	CHECK_CONTAINS(logbuf, "can't be applied to an array element");
}

static void test_bitfields(void)
{
	/* f1: bits 7..9 of a u32 in the target; bitfield offsets/lshift are not checked
	 * against the instruction (the compiler may have chosen another load) */
	CHECK_EQ_U64(mov(id.l_bf, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, 99), 0);
	CHECK_EQ_U64(mov(id.l_bf, "0:0", BPF_CORE_FIELD_BYTE_SIZE, 99), 4);
	CHECK_EQ_U64(mov(id.l_bf, "0:0", BPF_CORE_FIELD_LSHIFT_U64, 99), 54);
	CHECK_EQ_U64(mov(id.l_bf, "0:0", BPF_CORE_FIELD_RSHIFT_U64, 61), 61);
	CHECK_EQ_U64(mov(id.l_bf, "0:0", BPF_CORE_FIELD_SIGNED, 0), 0);
	/* f2: bits 40..44, signed */
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 0), 4);
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_BYTE_SIZE, 4), 4);
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_LSHIFT_U64, 56), 51);
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_RSHIFT_U64, 59), 59);
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_SIGNED, 1), 1);
	/* RSHIFT is checked: the field's width is unambiguous */
	CHECK_EQ_U64(mov(id.l_bf, "0:1", BPF_CORE_FIELD_RSHIFT_U64, 58), -1000000 - EINVAL);
	/* no 8-byte load covers bits 60..67 */
	CHECK_EQ_U64(mov(id.l_bfx, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, 0), -1000000 - E2BIG);
	CHECK_CONTAINS(logbuf, "can't be satisfied for bitfield 'f'");
}

static void test_enums(void)
{
	CHECK_EQ_U64(mov(id.l_e, "0", BPF_CORE_ENUMVAL_VALUE, 0), 20);
	CHECK_EQ_U64(mov(id.l_e, "2", BPF_CORE_ENUMVAL_VALUE, 2), 10);
	CHECK_EQ_U64(mov(id.l_e, "1", BPF_CORE_ENUMVAL_EXISTS, 1), 0);
	CHECK_EQ_U64(mov(id.l_e, "0", BPF_CORE_ENUMVAL_EXISTS, 1), 1);
	CHECK_EQ_U64(mov(id.l_e, "1", BPF_CORE_ENUMVAL_VALUE, 1), -2000000);
	CHECK_CONTAINS(logbuf, "poisoned: enum value 'B' not found in enum e");
	/* enum64 in the target, through an LDDW */
	struct bpf_insn ld[] = { BPF_LD_IMM64(BPF_REG_0, 1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_e64, "0", BPF_CORE_ENUMVAL_VALUE, ld, 3, 0), 0);
	CHECK_EQ_U64((uint32_t)ld[0].imm | (uint64_t)(uint32_t)ld[1].imm << 32, 1ULL << 40);
	/* enumerator names match up to flavours; 32-bit values sign-extend */
	struct bpf_insn neg[] = { BPF_LD_IMM64(BPF_REG_0, 1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_eneg, "0", BPF_CORE_ENUMVAL_VALUE, neg, 3, 0), 0);
	CHECK_EQ_U64((uint32_t)neg[0].imm | (uint64_t)(uint32_t)neg[1].imm << 32, (uint64_t)-5);
	/* a poisoned LDDW: both slots become calls, and the program still validates */
	struct bpf_insn p[] = { BPF_LD_IMM64(BPF_REG_0, 1), BPF_EXIT_INSN() };
	char err[128];
	CHECK_EQ_U64(apply(id.l_e, "1", BPF_CORE_ENUMVAL_VALUE, p, 3, 0), 0);
	CHECK(is_poison(&p[0]) && is_poison(&p[1]));
	CHECK_EQ_U64(kbpf_insns_validate(p, 3, err, sizeof(err)), 0);
}

static void test_types(void)
{
	CHECK_EQ_U64(mov(id.l_foo, "0", BPF_CORE_TYPE_EXISTS, 1), 1);
	CHECK_EQ_U64(mov(id.l_absent, "0", BPF_CORE_TYPE_EXISTS, 1), 0);
	CHECK_EQ_U64(mov(id.l_foo, "0", BPF_CORE_TYPE_SIZE, 20), 32);
	CHECK_EQ_U64(mov(id.l_absent, "0", BPF_CORE_TYPE_SIZE, 4), 0);
	CHECK_EQ_U64(mov(id.l_u32t, "0", BPF_CORE_TYPE_SIZE, 4), 8);
	CHECK_EQ_U64(mov(id.l_u32t, "0", BPF_CORE_TYPE_EXISTS, 1), 1);
	CHECK_EQ_U64(mov(id.l_m, "0", KBPF_CORE_TYPE_MATCHES, 1), 1);
	CHECK_EQ_U64(mov(id.l_m2, "0", KBPF_CORE_TYPE_MATCHES, 1), 0); /* int vs unsigned */
	CHECK_EQ_U64(mov(id.l_m2, "0", BPF_CORE_TYPE_EXISTS, 1), 1);
	/* type ids: target id through an LDDW (the compiler's value is not checked) */
	struct bpf_insn ld[] = { BPF_LD_IMM64(BPF_REG_0, 12345), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_m, "0", BPF_CORE_TYPE_ID_TARGET, ld, 3, 0), 0);
	CHECK_EQ_U64(ld[0].imm, id.t_m);
	CHECK_EQ_U64(ld[1].imm, 0);
	CHECK_EQ_U64(mov(id.l_m, "0", BPF_CORE_TYPE_ID_LOCAL, 777), id.l_m);
	CHECK_EQ_U64(mov(id.l_absent, "0", BPF_CORE_TYPE_ID_TARGET, 0), 0);
	/* the local id needs no target BTF; everything else does */
	struct bpf_core_relo r = mk(id.l_m, "0", BPF_CORE_TYPE_ID_LOCAL);
	struct bpf_insn in[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(core_apply(L, NULL, &r, 0, in, 2, 0), 0);
	CHECK_EQ_U64(in[0].imm, id.l_m);
	r = mk(id.l_m, "0", BPF_CORE_TYPE_EXISTS);
	CHECK_EQ_U64(core_apply(L, NULL, &r, 0, in, 2, 0), (uint64_t)-ENOENT);
	CHECK_CONTAINS(logbuf, "relo #0: <type_exists> of struct m needs the host's BTF");
}

static void test_candidates(void)
{
	/* two flavours place x differently: refused */
	CHECK_EQ_U64(mov(id.l_bar, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, 0), -1000000 - EINVAL);
	CHECK_CONTAINS(logbuf, "relo #7: field offset ambiguity: 32 != 0");
	/* two flavours that agree: fine */
	CHECK_EQ_U64(mov(id.l_baz, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, 0), 0);
	/* incompatible field types do not match */
	struct bpf_insn ld[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_fc, "0:0", BPF_CORE_FIELD_BYTE_OFFSET, ld, 2, 0), 0);
	CHECK(is_poison(&ld[0]));
	CHECK_CONTAINS(logbuf, "field 'x' of struct fc has an incompatible type (struct sub here, int in the program)");

	/* Candidate pruning, as libbpf: with one ctx, relocating qux.x keeps only
	 * qux___a, so qux.y then finds nothing; stateless, qux.y finds qux___b. */
	struct kbpf_core_ctx *ctx = kbpf_core_ctx_new(L, T);
	struct bpf_core_relo rx = mk(id.l_qux, "0:0", BPF_CORE_FIELD_BYTE_OFFSET);
	struct bpf_core_relo ry = mk(id.l_qux, "0:1", BPF_CORE_FIELD_BYTE_OFFSET);
	struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_0, 4), BPF_EXIT_INSN() };
	struct kbpf_core_res res;
	CHECK(ctx != NULL);
	CHECK_EQ_U64(kbpf_core_ctx_apply(ctx, &rx, 0, p, 3, 0, logbuf, sizeof(logbuf)), 0);
	CHECK_EQ_U64(p[0].imm, 0);
	CHECK_EQ_U64(kbpf_core_ctx_calc(ctx, &ry, 1, &res, logbuf, sizeof(logbuf)), 0);
	CHECK(res.poison);
	CHECK_CONTAINS(res.why, "field 'y' not found in struct qux___a");
	CHECK_EQ_U64(kbpf_core_ctx_apply(ctx, &ry, 1, p, 3, 1, logbuf, sizeof(logbuf)), 0);
	CHECK(is_poison(&p[1]));
	kbpf_core_ctx_free(ctx);
	kbpf_core_ctx_free(NULL);
	CHECK(kbpf_core_ctx_new(NULL, T) == NULL);
	CHECK_EQ_U64(mov(id.l_qux, "0:1", BPF_CORE_FIELD_BYTE_OFFSET, 4), 4);

	/* calc without patching */
	ctx = kbpf_core_ctx_new(L, T);
	struct bpf_core_relo rb = mk(id.l_foo, "0:2", BPF_CORE_FIELD_BYTE_OFFSET);
	CHECK_EQ_U64(kbpf_core_ctx_calc(ctx, &rb, 0, &res, logbuf, sizeof(logbuf)), 0);
	CHECK(!res.poison && res.validate && res.orig_val == 8 && res.new_val == 8 && res.orig_sz == 4 &&
	      res.new_sz == 8 && !res.fail_memsz_adjust);
	kbpf_core_ctx_free(ctx);
}

/* The helpers the loader will use to print things. */
static void test_names(void)
{
	CHECK_STR(kbpf_core_relo_kind_str(BPF_CORE_FIELD_BYTE_OFFSET), "byte_off");
	CHECK_STR(kbpf_core_relo_kind_str(KBPF_CORE_TYPE_MATCHES), "type_matches");
	CHECK_STR(kbpf_core_relo_kind_str(13), "unknown");
	CHECK_EQ_U64(kbpf_core_essential_name_len("task_struct___v2"), 11);
	CHECK_EQ_U64(kbpf_core_essential_name_len("foo"), 3);
	CHECK_EQ_U64(kbpf_core_essential_name_len("a___b___c"), 5);
	CHECK_EQ_U64(kbpf_core_essential_name_len("foo___"), 6);
	CHECK_EQ_U64(kbpf_core_essential_name_len("foo____bar"), 10);
	CHECK_EQ_U64(kbpf_core_essential_name_len("___x"), 4);
	CHECK_EQ_U64(kbpf_core_essential_name_len(""), 0);
}

/* Relocation records that are wrong in themselves. */
static void test_malformed(void)
{
	struct {
		int type_id;
		const char *access;
		uint32_t kind;
		int ret;
		const char *msg;
	} cases[] = {
		{ 999, "0:0", 0, -EINVAL, "relo #7: type_id 999 is not in the object's BTF" },
		{ id.l_foo, "", 0, -EINVAL, "parsing [5] struct foo +  failed: empty access string" },
		{ id.l_foo, "0:x", 0, -EINVAL, "access string \"0:x\" is malformed at offset 2" },
		{ id.l_foo, "0:", 0, -EINVAL, "malformed at offset 2" },
		{ id.l_foo, "-1", 0, -EINVAL, "malformed at offset 0" },
		{ id.l_foo, "0::1", 0, -EINVAL, "malformed at offset 2" },
		{ id.l_foo, "0 :1", 0, -EINVAL, "malformed at offset 1" },
		{ id.l_foo, "99999999999", 0, -EINVAL, "index too large" },
		{ id.l_foo, "0:9", 0, -EINVAL, "step 1: member 9 of struct foo [5] which has 5" },
		{ id.l_foo, "0:0:1", 0, -EINVAL, "captures type [1] of unexpected kind int" },
		{ id.l_arr, "0:1:4", 0, -EINVAL, "index 4 of an array of 4" },
		{ id.l_foo, "0:1", BPF_CORE_TYPE_SIZE, -EINVAL, "of a type relocation is not \"0\"" },
		{ id.l_e, "3", BPF_CORE_ENUMVAL_VALUE, -EINVAL, "enum has 3 values" },
		{ id.l_e, "0:0", BPF_CORE_ENUMVAL_VALUE, -EINVAL, "enum has 3 values" },
		{ id.l_foo, "0", BPF_CORE_ENUMVAL_VALUE, -EINVAL, "enum value relocation on struct, not an enum" },
		{ id.l_foo, "0:0", 99, -EINVAL, "unrecognized CO-RE relocation kind 99" },
		{ id.l_anon, "0:0", 0, -EINVAL, "target candidate search failed for [" },
		{ id.l_cyc, "0:0", 0, -EINVAL, "is not a valid type" },
		{ id.l_deep, "0:0", 0, -E2BIG, "error matching candidate #0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn in[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
		int ret = apply(cases[i].type_id, cases[i].access, cases[i].kind, in, 2, 0);

		if (ret != cases[i].ret || !strstr(logbuf, cases[i].msg)) {
			fprintf(stderr, "case %zu (%s): got %d \"%s\", want %d \"%s\"\n", i, cases[i].access, ret, logbuf,
				cases[i].ret, cases[i].msg);
			test_failed_now = 1;
		}
		CHECK_EQ_U64(in[0].imm, 0); /* untouched */
	}
	/* 65 steps */
	char longstr[200] = "0";
	for (int i = 0; i < 64; i++)
		strcat(longstr, ":0");
	struct bpf_insn in[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, longstr, 0, in, 2, 0), (uint64_t)-E2BIG);
	CHECK_CONTAINS(logbuf, "longer than 64 steps");
	/* access_str_off outside the string table */
	struct bpf_core_relo r = { .type_id = (uint32_t)id.l_foo, .access_str_off = 1u << 30 };
	CHECK_EQ_U64(core_apply(L, T, &r, 3, in, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "access_str_off 1073741824 is not in the BTF string table");
}

/* Instructions that cannot carry the relocated value. */
static void test_bad_insns(void)
{
	struct bpf_insn x[] = { BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, x, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "insn #0 (ALU/ALU64) has a register operand");
	struct bpf_insn j[] = { BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 4, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, j, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "trying to relocate unrecognized insn #0, code:0x15");
	struct bpf_insn abs[] = { BPF_LD_ABS(BPF_W, 4), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, abs, 2, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "insn #0 (LDIMM64) has unexpected form");
	struct bpf_insn pseudo[] = { BPF_LD_IMM64_RAW(BPF_REG_0, BPF_PSEUDO_MAP_FD, 4), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, pseudo, 3, 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "(LDIMM64) has unexpected form");
	struct bpf_insn half[] = { BPF_EXIT_INSN(), BPF_LD_IMM64(BPF_REG_0, 4) };
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, half, 2, 1), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "insn #1 (LDIMM64) is missing its second half");
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, half, 2, 2), (uint64_t)-EINVAL);
	CHECK_CONTAINS(logbuf, "insn #2 is out of range (program has 2 insns)");
	CHECK_EQ_U64(apply(id.l_foo, "0:1", 0, NULL, 0, 0), (uint64_t)-EINVAL);
	/* a target offset an instruction cannot hold */
	struct bpf_insn far[] = { BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(apply(id.l_big, "0:0", 0, far, 2, 0), (uint64_t)-ERANGE);
	CHECK_CONTAINS(logbuf, "insn #0 (LDX/ST/STX) value too big: 40000");
	/* but an ALU immediate can */
	CHECK_EQ_U64(mov(id.l_big, "0:0", 0, 0), 40000);
}

/* Random relocations against randomly corrupted BTF (types only, so the strings stay
 * where the access strings expect them): never a crash, never a silent garbage write
 * (run under ASan/UBSan in the sanitizer build). */
static void test_random(void)
{
	static const char *const access[] = { "0", "1", "0:0", "0:1", "0:4", "0:1:2", "2:1", "0:0:0:0", "0:1:0", "3" };
	uint32_t access_off[sizeof(access) / sizeof(access[0])];
	uint32_t lsize, tsize;
	unsigned seed = 4242;

	for (size_t i = 0; i < sizeof(access) / sizeof(access[0]); i++)
		access_off[i] = (uint32_t)btf__add_str(L, access[i]);
	const uint8_t *lraw = btf__raw_data(L, &lsize), *traw = btf__raw_data(T, &tsize);
	uint8_t *lbuf = malloc(lsize), *tbuf = malloc(tsize);
	uint32_t ltypes = ((const struct btf_header *)lraw)->type_len, ttypes = ((const struct btf_header *)traw)->type_len;
	int parsed = 0, resolved = 0, calculated = 0;
	struct good {
		const int *type_id;
		int access; /* index into access[] */
		uint32_t kind;
	} good[] = {
		{ &id.l_foo, 3, BPF_CORE_FIELD_BYTE_OFFSET }, { &id.l_foo, 4, BPF_CORE_FIELD_EXISTS },
		{ &id.l_foo, 6, BPF_CORE_FIELD_BYTE_SIZE },   { &id.l_nest, 3, BPF_CORE_FIELD_BYTE_OFFSET },
		{ &id.l_nest2, 8, BPF_CORE_FIELD_BYTE_OFFSET }, { &id.l_arr, 5, BPF_CORE_FIELD_BYTE_OFFSET },
		{ &id.l_bf, 3, BPF_CORE_FIELD_LSHIFT_U64 },   { &id.l_bf, 2, BPF_CORE_FIELD_SIGNED },
		{ &id.l_e, 0, BPF_CORE_ENUMVAL_VALUE },       { &id.l_e, 1, BPF_CORE_ENUMVAL_EXISTS },
		{ &id.l_m, 0, KBPF_CORE_TYPE_MATCHES },       { &id.l_foo, 0, BPF_CORE_TYPE_SIZE },
		{ &id.l_qux, 3, BPF_CORE_FIELD_BYTE_OFFSET }, { &id.l_bar, 2, BPF_CORE_FIELD_BYTE_OFFSET },
		{ &id.l_u32t, 0, BPF_CORE_TYPE_EXISTS },      { &id.l_m, 0, BPF_CORE_TYPE_ID_TARGET },
	};

	for (int iter = 0; iter < 3000; iter++) {
		memcpy(lbuf, lraw, lsize);
		memcpy(tbuf, traw, tsize);
		/* corrupt one side a little (or, one time in four, neither) */
		uint8_t *buf = iter % 2 ? lbuf : tbuf;
		uint32_t types = iter % 2 ? ltypes : ttypes;
		int flips = iter % 4 ? 1 + rand_r(&seed) % 6 : 0;
		for (int f = flips; f > 0; f--)
			buf[24 + rand_r(&seed) % types] ^= (uint8_t)(1u << rand_r(&seed) % 8);
		struct btf *l = btf__new(lbuf, lsize), *t = btf__new(tbuf, tsize);
		if (l && t) {
			struct kbpf_core_ctx *ctx = kbpf_core_ctx_new(l, t);
			parsed++;
			for (int r = 0; r < 24; r++) {
				struct bpf_core_relo relo = {
					.type_id = (uint32_t)(rand_r(&seed) % (btf__type_cnt(l) + 2)),
					.access_str_off = access_off[rand_r(&seed) % (sizeof(access_off) / sizeof(access_off[0]))],
					.kind = (uint32_t)(rand_r(&seed) % 14),
				};
				if (r % 2) { /* half of them make sense on the uncorrupted BTF */
					const struct good *g = &good[rand_r(&seed) % (sizeof(good) / sizeof(good[0]))];
					relo.type_id = (uint32_t)*g->type_id;
					relo.access_str_off = access_off[g->access];
					relo.kind = g->kind;
				}
				struct kbpf_core_res res;
				char clog[256];
				calculated += kbpf_core_ctx_calc(ctx, &relo, r, &res, clog, sizeof(clog)) == 0;
				struct bpf_insn in[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),
							 BPF_LD_IMM64(BPF_REG_0, 0), BPF_EXIT_INSN() };
				size_t idx = (size_t)(rand_r(&seed) % 3);
				char log[256] = "";
				int ret = kbpf_core_ctx_apply(ctx, &relo, r, in, 5, idx == 2 ? 2 : idx, log, sizeof(log));

				/* every error says why */
				if (ret && !log[0]) {
					fprintf(stderr, "silent error %d: type %u access %u kind %u\n", ret, relo.type_id,
						relo.access_str_off, relo.kind);
					test_failed_now = 1;
				}
				resolved += ret == 0;
				/* whatever happened, the program is still structurally valid */
				char err[128];
				if (kbpf_insns_validate(in, 5, err, sizeof(err))) {
					fprintf(stderr, "invalid after relo: %s (%s)\n", err, log);
					test_failed_now = 1;
				}
			}
			kbpf_core_ctx_free(ctx);
		}
		btf__free(l);
		btf__free(t);
	}
	printf("random: %d BTF pairs parsed, of %d relocations %d resolved, %d patched\n", parsed, parsed * 24,
	       calculated, resolved);
	CHECK(parsed > 100 && calculated > parsed * 4 && resolved > 100);
	free(lbuf);
	free(tbuf);
}

int main(void)
{
	libbpf_set_print(NULL); /* corrupted BTF makes libbpf talk */
	build_local();
	build_target();
	RUN(test_field_offsets);
	RUN(test_field_info);
	RUN(test_anon_and_arrays);
	RUN(test_bitfields);
	RUN(test_enums);
	RUN(test_types);
	RUN(test_candidates);
	RUN(test_names);
	RUN(test_malformed);
	RUN(test_bad_insns);
	RUN(test_random);
	btf__free(L);
	btf__free(T);
	return test_summary();
}
