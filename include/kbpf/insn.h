/* SPDX-License-Identifier: Apache-2.0 */
/* eBPF instruction encoding (RFC 9669) and the builder macros Linux's selftests use.
 *
 * The encoding constants and `struct bpf_insn` come from the system's <linux/bpf.h>
 * (linux-libc-dev), so a program that includes both headers sees one definition.
 * What older uapi headers lack (the RFC 9669 "v4" additions) is defined here. */
#ifndef KBPF_INSN_H
#define KBPF_INSN_H

#include <linux/bpf.h>
#include <stdint.h>

/* In a verified program's LDX (the "xlated" program, never the verifier's input): a
 * fault-tolerant load, 0 where nothing can be read (Linux's internal BPF_PROBE_MEM). The
 * verifier makes loads through untrusted BTF pointers so (docs/verifier.md). */
#define KBPF_PROBE_MEM 0x20

/* --- RFC 9669 additions missing from older uapi headers --- */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80 /* sign-extending load (LDX only) */
#endif
#ifndef BPF_JMP32
#define BPF_JMP32 0x06
#endif
#ifndef BPF_XCHG
#define BPF_XCHG (0xe0 | BPF_FETCH)
#endif

/* may_goto (Linux 6.9+; libbpf's can_loop / cond_break): BPF_JMP | KBPF_JCOND | BPF_K with
 * src_reg KBPF_MAY_GOTO, dst_reg and imm 0: "goto +off once the loop budget is spent",
 * else fall through (docs/verifier.md "may_goto"). Linux's uapi names are BPF_JCOND and
 * BPF_MAY_GOTO, which Debian 12's headers lack. */
#define KBPF_JCOND 0xe0
#define KBPF_MAY_GOTO 0

/* Number of instructions an LDDW (BPF_LD | BPF_IMM | BPF_DW) occupies. */
#define KBPF_LDDW_CODE (BPF_LD | BPF_IMM | BPF_DW)

/* --- Builder macros, with the names of Linux's include/linux/filter.h --- */
#ifndef BPF_RAW_INSN
#define BPF_RAW_INSN(CODE, DST, SRC, OFF, IMM) \
	((struct bpf_insn){ .code = (CODE), .dst_reg = (DST), .src_reg = (SRC), .off = (OFF), .imm = (IMM) })

#define BPF_ALU64_REG_OFF(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_ALU64_REG(OP, DST, SRC) BPF_ALU64_REG_OFF(OP, DST, SRC, 0)
#define BPF_ALU32_REG_OFF(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_ALU32_REG(OP, DST, SRC) BPF_ALU32_REG_OFF(OP, DST, SRC, 0)
#define BPF_ALU64_IMM_OFF(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_ALU64_IMM(OP, DST, IMM) BPF_ALU64_IMM_OFF(OP, DST, IMM, 0)
#define BPF_ALU32_IMM_OFF(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_ALU32_IMM(OP, DST, IMM) BPF_ALU32_IMM_OFF(OP, DST, IMM, 0)

/* Byte swaps: BPF_ENDIAN(BPF_TO_BE, r, 32) converts to big endian; BPF_BSWAP is the
 * unconditional ALU64 form of RFC 9669. */
#define BPF_ENDIAN(TYPE, DST, LEN) BPF_RAW_INSN(BPF_ALU | BPF_END | BPF_SRC(TYPE), DST, 0, 0, LEN)
#define BPF_BSWAP(DST, LEN) BPF_RAW_INSN(BPF_ALU64 | BPF_END | BPF_TO_LE, DST, 0, 0, LEN)

#define BPF_MOV64_REG(DST, SRC) BPF_ALU64_REG(BPF_MOV, DST, SRC)
#define BPF_MOV32_REG(DST, SRC) BPF_ALU32_REG(BPF_MOV, DST, SRC)
#define BPF_MOV64_IMM(DST, IMM) BPF_ALU64_IMM(BPF_MOV, DST, IMM)
#define BPF_MOV32_IMM(DST, IMM) BPF_ALU32_IMM(BPF_MOV, DST, IMM)
#define BPF_MOVSX64_REG(DST, SRC, OFF) BPF_ALU64_REG_OFF(BPF_MOV, DST, SRC, OFF)
#define BPF_MOVSX32_REG(DST, SRC, OFF) BPF_ALU32_REG_OFF(BPF_MOV, DST, SRC, OFF)
/* 32-bit move of a register to itself: zero-extends the low half. */
#define BPF_ZEXT_REG(DST) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, DST, DST, 0, 1)
#define BPF_MOV64_RAW(TYPE, DST, SRC, IMM) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_SRC(TYPE), DST, SRC, 0, IMM)
#define BPF_MOV32_RAW(TYPE, DST, SRC, IMM) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_SRC(TYPE), DST, SRC, 0, IMM)

/* Two-slot 64-bit immediate load (expands to two initializers, as in Linux). */
#define BPF_LD_IMM64_RAW(DST, SRC, IMM)                                                        \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, DST, SRC, 0, (int32_t)(uint32_t)(uint64_t)(IMM)), \
	BPF_RAW_INSN(0, 0, 0, 0, (int32_t)(uint32_t)(((uint64_t)(IMM)) >> 32))
#define BPF_LD_IMM64_RAW_FULL(DST, SRC, OFF1, OFF2, IMM1, IMM2)  \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, DST, SRC, OFF1, IMM1), \
	BPF_RAW_INSN(0, 0, 0, OFF2, IMM2)
#define BPF_LD_IMM64(DST, IMM) BPF_LD_IMM64_RAW(DST, 0, IMM)
#define BPF_LD_MAP_FD(DST, MAP_FD) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_FD, MAP_FD)
#define BPF_LD_MAP_VALUE(DST, MAP_FD, VALUE_OFF) \
	BPF_LD_IMM64_RAW_FULL(DST, BPF_PSEUDO_MAP_VALUE, 0, 0, MAP_FD, VALUE_OFF)

/* Legacy packet access (socket filters): R0 = *(SIZE *)(skb + IMM [+ SRC]). */
#define BPF_LD_ABS(SIZE, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_ABS, 0, 0, 0, IMM)
#define BPF_LD_IND(SIZE, SRC, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_IND, 0, SRC, 0, IMM)

#define BPF_LDX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_LDX_MEMSX(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEMSX, DST, SRC, OFF, 0)
#define BPF_STX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_ST_MEM(SIZE, DST, OFF, IMM) BPF_RAW_INSN(BPF_ST | BPF_SIZE(SIZE) | BPF_MEM, DST, 0, OFF, IMM)
#define BPF_ATOMIC_OP(SIZE, OP, DST, SRC, OFF) \
	BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_ATOMIC, DST, SRC, OFF, OP)
#define BPF_STX_XADD(SIZE, DST, SRC, OFF) BPF_ATOMIC_OP(SIZE, BPF_ADD, DST, SRC, OFF)

#define BPF_JMP_REG(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP_IMM(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP32_REG(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP32_IMM(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP_A(OFF) BPF_RAW_INSN(BPF_JMP | BPF_JA, 0, 0, OFF, 0)
/* "gotol": the 32-bit-range unconditional jump; the offset is in imm. */
#define BPF_JMP32_A(IMM) BPF_RAW_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, IMM)

/* Helper call by id; BPF-to-BPF call (imm = offset from the next insn); kfunc by BTF id. */
#define BPF_EMIT_CALL(FUNC_ID) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC_ID)
#define BPF_CALL_REL(IMM) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, IMM)
#define BPF_CALL_KFUNC(OFF, IMM) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, OFF, IMM)
#define BPF_EXIT_INSN() BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#endif /* BPF_RAW_INSN */

/* Register numbers BPF_REG_0..BPF_REG_10 and MAX_BPF_REG come from <linux/bpf.h>. */
#ifndef BPF_REG_ARG1
#define BPF_REG_ARG1 BPF_REG_1
#define BPF_REG_ARG2 BPF_REG_2
#define BPF_REG_ARG3 BPF_REG_3
#define BPF_REG_ARG4 BPF_REG_4
#define BPF_REG_ARG5 BPF_REG_5
#define BPF_REG_CTX BPF_REG_6
#define BPF_REG_FP BPF_REG_10
#endif

/* Frame geometry shared by the verifier and both execution engines. */
#define KBPF_STACK_SIZE 512
#define KBPF_MAX_CALL_FRAMES 8

#endif /* KBPF_INSN_H */
