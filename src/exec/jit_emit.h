/* SPDX-License-Identifier: Apache-2.0 */
/* A small hand-written x86-64 encoder: exactly the instruction forms the JIT uses.
 * Each function appends one instruction to a growable byte buffer; running out of
 * memory sets buf->err and later calls do nothing, so callers check once at the end. */
#ifndef KBPF_SRC_EXEC_JIT_EMIT_H
#define KBPF_SRC_EXEC_JIT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hardware register numbers (the ModRM/REX encoding). */
enum x86_reg {
	X_RAX, X_RCX, X_RDX, X_RBX, X_RSP, X_RBP, X_RSI, X_RDI,
	X_R8, X_R9, X_R10, X_R11, X_R12, X_R13, X_R14, X_R15,
};

/* Condition codes (the low nibble of Jcc). */
enum x86_cc {
	CC_B = 0x2, CC_AE = 0x3, CC_E = 0x4, CC_NE = 0x5, CC_BE = 0x6, CC_A = 0x7,
	CC_L = 0xc, CC_GE = 0xd, CC_LE = 0xe, CC_G = 0xf,
};

/* The /digit of the group-1 ALU immediates (0x81 / 0x83) and the matching
 * register-form opcode (op r/m, reg). */
enum x86_alu {
	ALU_ADD = 0, ALU_OR = 1, ALU_AND = 4, ALU_SUB = 5, ALU_XOR = 6, ALU_CMP = 7,
};

/* The /digit of the shift group (0xc1 / 0xd1 / 0xd3). */
enum x86_shift { SH_SHL = 4, SH_SHR = 5, SH_SAR = 7 };

struct jit_buf {
	uint8_t *p;
	size_t len, cap;
	int err; /* -ENOMEM once an append failed */
};

/* Operand flags of x86_rr / x86_rm. */
#define XF_W 0x01u    /* REX.W: 64-bit operand size */
#define XF_66 0x02u   /* 0x66 prefix: 16-bit operand size */
#define XF_LOCK 0x04u /* 0xf0 prefix */
#define XF_BREG 0x08u /* the reg field is a byte register: spl..dil need a REX prefix */
#define XF_BRM 0x10u  /* the rm field is a byte register (register form only) */

void jb_byte(struct jit_buf *b, uint8_t v);
void jb_imm16(struct jit_buf *b, uint16_t v);
void jb_imm32(struct jit_buf *b, uint32_t v);
void jb_imm64(struct jit_buf *b, uint64_t v);
void jb_fill(struct jit_buf *b, uint8_t v, size_t n);
/* n bytes of padding that run as few instructions: the recommended multi-byte NOPs
 * (0f 1f /0), at most 9 bytes each. */
void x86_nops(struct jit_buf *b, size_t n);

/* Prefixes, REX, opcode (1-3 bytes, e.g. 0x0fb6), ModRM with mod=11. */
void x86_rr(struct jit_buf *b, unsigned flags, uint32_t opcode, unsigned reg, unsigned rm);
/* The same with a memory operand [base + disp] (shortest displacement form). */
void x86_rm(struct jit_buf *b, unsigned flags, uint32_t opcode, unsigned reg, unsigned base, int32_t disp);

/* --- whole instructions --- */
void x86_mov_rr(struct jit_buf *b, bool is64, unsigned dst, unsigned src);
/* dst = v, in the shortest form (xor, mov r32, sign-extended mov, movabs). Clobbers
 * flags when v is 0. */
void x86_mov_imm64(struct jit_buf *b, unsigned dst, uint64_t v);
/* movabs dst, v: always the 10-byte form, whatever v is. */
void x86_movabs(struct jit_buf *b, unsigned dst, uint64_t v);
/* dst = v zero-extended (mov r32, imm32 or xor). */
void x86_mov_imm32(struct jit_buf *b, unsigned dst, uint32_t v);
/* op dst, src for op in enum x86_alu (add/or/and/sub/xor/cmp). */
void x86_alu_rr(struct jit_buf *b, bool is64, enum x86_alu op, unsigned dst, unsigned src);
/* op dst, imm (imm8 form when it fits). */
void x86_alu_imm(struct jit_buf *b, bool is64, enum x86_alu op, unsigned dst, int32_t imm);
void x86_test_rr(struct jit_buf *b, bool is64, unsigned dst, unsigned src);
void x86_test_imm(struct jit_buf *b, bool is64, unsigned dst, int32_t imm);
void x86_shift_imm(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst, uint8_t n);
void x86_shift_cl(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst);
/* BMI2 shlx/shrx/sarx dst, src, cnt (count masked by the CPU, flags untouched). */
void x86_shiftx(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst, unsigned src, unsigned cnt);
void x86_bswap(struct jit_buf *b, bool is64, unsigned reg);
void x86_push(struct jit_buf *b, unsigned reg);
void x86_pop(struct jit_buf *b, unsigned reg);
void x86_call_reg(struct jit_buf *b, unsigned reg);
/* Extend reg in place from its low size bytes (1, 2, 4; 8: nothing) to 64 bits, signed
 * or not: movzx/movsx/mov r32/movsxd. */
void x86_extend(struct jit_buf *b, unsigned reg, uint8_t size, bool is_signed);

/* Jumps. rel is from the end of the emitted instruction. */
void x86_jcc8(struct jit_buf *b, enum x86_cc cc, int8_t rel);
void x86_jcc32(struct jit_buf *b, enum x86_cc cc, int32_t rel);
void x86_jmp8(struct jit_buf *b, int8_t rel);
void x86_jmp32(struct jit_buf *b, int32_t rel);
void x86_call32(struct jit_buf *b, int32_t rel);
/* A short forward jump whose target is not emitted yet: returns where its rel8 byte is,
 * for x86_patch8 to point it at the current end of the buffer. cc < 0: jmp. */
size_t x86_jfwd8(struct jit_buf *b, int cc);
void x86_patch8(struct jit_buf *b, size_t at);

#define X86_JCC8_LEN 2
#define X86_JCC32_LEN 6
#define X86_JMP8_LEN 2
#define X86_JMP32_LEN 5
#define X86_CALL32_LEN 5

static inline bool fits_s8(int64_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX;
}

static inline bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

#endif
