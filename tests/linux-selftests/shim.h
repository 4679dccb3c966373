/* SPDX-License-Identifier: Apache-2.0 */
/* What Linux's verifier/NAME.c test files expect to be defined before they are included:
 * the uapi types, the instruction macros (from kbpf's <kbpf/insn.h>, which uses Linux's
 * filter.h names), the shared instruction prologues of test_verifier.c (written here
 * from their description in verifier-notes §10.1), the BTF encoding macros, and the
 * value structs of the test maps. Only the generated table includes this. */
#ifndef KBPF_SELFTEST_SHIM_H
#define KBPF_SELFTEST_SHIM_H
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/btf.h>
#include <linux/if_ether.h>
#include "bpf_test.h"

#define ENOTSUPP 524
#define INSN_OFF_MASK ((__s16)0xFFFF)
#define INSN_IMM_MASK ((__s32)0xFFFFFFFF)
/* a marker between expected sub-sequences; only the xlated checks use it */
#define SKIP_INSNS() BPF_RAW_INSN(0xde, 0xa, 0xd, 0xbeef, 0xdeadbeef)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef sizeof_field
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#endif
#ifndef offsetofend
#define offsetofend(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))
#endif

/* The value layouts of the 48- and 16-byte test maps. */
#define MAX_ENTRIES 11
struct test_val {
	unsigned int index;
	int foo[MAX_ENTRIES];
};
struct other_val {
	long long foo;
	long long bar;
};

/* Program generators of test_verifier.c: here each is a distinct exported function that
 * does nothing; the runner finds them by name and runs its own generator instead
 * (fill.c). */
#define KBPF_FILL_STUB(n) void n(struct bpf_test *self); void n(struct bpf_test *self) { (void)self; }
KBPF_FILL_STUB(bpf_fill_big_prog_with_loop_1)
KBPF_FILL_STUB(bpf_fill_jump_around_ld_abs)
KBPF_FILL_STUB(bpf_fill_ld_abs_vlan_push_pop)
KBPF_FILL_STUB(bpf_fill_rand_ld_dw)
KBPF_FILL_STUB(bpf_fill_scale)
KBPF_FILL_STUB(bpf_fill_torturous_jumps)

/* 13 insns: a zeroed struct bpf_sock_tuple at fp-48, then
 * sk = func(ctx, &tuple, sizeof(tuple), 0, 0). */
#define BPF_SK_LOOKUP(func)                                             \
	BPF_MOV64_IMM(BPF_REG_2, 0),                                    \
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_2, -8),                  \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -16),                \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -24),                \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -32),                \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -40),                \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -48),                \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                           \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -48),                         \
	BPF_MOV64_IMM(BPF_REG_3, sizeof(struct bpf_sock_tuple)),        \
	BPF_MOV64_IMM(BPF_REG_4, 0),                                    \
	BPF_MOV64_IMM(BPF_REG_5, 0),                                    \
	BPF_EMIT_CALL(BPF_FUNC_ ## func)

/* 7 insns: r0 = 0; r2 = skb->data, r3 = skb->data_end; exit unless 8 bytes are there. */
#define BPF_DIRECT_PKT_R2                                               \
	BPF_MOV64_IMM(BPF_REG_0, 0),                                    \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)), \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)), \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),                            \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),                           \
	BPF_JMP_REG(BPF_JLE, BPF_REG_4, BPF_REG_3, 1),                  \
	BPF_EXIT_INSN()

/* 4 insns: r7 = a random u32 below 2^31, zero-extended. */
#define BPF_RAND_UEXT_R7                                                \
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_prandom_u32), \
	BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),                            \
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 33),                          \
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_7, 33)

/* 5 insns: r7 = a random negative s32, sign-extended. */
#define BPF_RAND_SEXT_R7                                                \
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_prandom_u32), \
	BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),                            \
	BPF_ALU64_IMM(BPF_OR, BPF_REG_7, 0x80000000),                   \
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 32),                          \
	BPF_ALU64_IMM(BPF_ARSH, BPF_REG_7, 32)

/* BTF type encodings (Documentation/bpf/btf.rst), for tests that load their own BTF. */
#define BTF_END_RAW 0xdeadbeef
#define BTF_INFO_ENC(kind, kind_flag, vlen) \
	((!!(kind_flag) << 31) | ((kind) << 24) | ((vlen) & BTF_MAX_VLEN))
#define BTF_TYPE_ENC(name, info, size_or_type) (name), (info), (size_or_type)
#define BTF_INT_ENC(encoding, bits_offset, nr_bits) \
	((encoding) << 24 | (bits_offset) << 16 | (nr_bits))
#define BTF_TYPE_INT_ENC(name, encoding, bits_offset, bits, sz) \
	BTF_TYPE_ENC(name, BTF_INFO_ENC(BTF_KIND_INT, 0, 0), sz), \
	BTF_INT_ENC(encoding, bits_offset, bits)
#define BTF_PTR_ENC(type) BTF_TYPE_ENC(0, BTF_INFO_ENC(BTF_KIND_PTR, 0, 0), type)
#define BTF_FUNC_PROTO_ENC(ret_type, vlen) \
	BTF_TYPE_ENC(0, BTF_INFO_ENC(BTF_KIND_FUNC_PROTO, 0, vlen), ret_type)
#define BTF_FUNC_PROTO_ARG_ENC(name, type) (name), (type)
#define BTF_FUNC_ENC(name, func_proto) \
	BTF_TYPE_ENC(name, BTF_INFO_ENC(BTF_KIND_FUNC, 0, 0), func_proto)

#endif /* KBPF_SELFTEST_SHIM_H */
