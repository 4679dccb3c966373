/* SPDX-License-Identifier: Apache-2.0 */
/* The x86-64 encoder (see jit_emit.h). Only byte layout lives here; what to emit for
 * a BPF instruction is jit_x86.c's business. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "exec/jit_emit.h"

static bool reserve(struct jit_buf *b, size_t n)
{
	if (b->err)
		return false;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return false;
		}
		b->p = p;
		b->cap = cap;
	}
	return true;
}

void jb_byte(struct jit_buf *b, uint8_t v)
{
	if (reserve(b, 1))
		b->p[b->len++] = v;
}

/* x86 is little-endian; so is every host this JIT runs on, but memcpy of a value would
 * tie the encoder's output to the build host. Spell the bytes out. */
static void put_le(struct jit_buf *b, uint64_t v, unsigned n)
{
	if (!reserve(b, n))
		return;
	for (unsigned i = 0; i < n; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

void jb_imm16(struct jit_buf *b, uint16_t v) { put_le(b, v, 2); }
void jb_imm32(struct jit_buf *b, uint32_t v) { put_le(b, v, 4); }
void jb_imm64(struct jit_buf *b, uint64_t v) { put_le(b, v, 8); }

void jb_fill(struct jit_buf *b, uint8_t v, size_t n)
{
	if (reserve(b, n)) {
		memset(b->p + b->len, v, n);
		b->len += n;
	}
}

void x86_nops(struct jit_buf *b, size_t n)
{
	static const uint8_t nop[9][9] = {
		{ 0x90 },
		{ 0x66, 0x90 },
		{ 0x0f, 0x1f, 0x00 },
		{ 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};

	while (n) {
		size_t k = n < 9 ? n : 9;

		for (size_t j = 0; j < k; j++)
			jb_byte(b, nop[k - 1][j]);
		n -= k;
	}
}

/* Legacy prefixes, then REX when any field needs it (or a byte register among
 * spl/bpl/sil/dil must not be read as ah/ch/dh/bh), then the opcode bytes. */
static void prefix_rex_op(struct jit_buf *b, unsigned flags, uint32_t opcode, unsigned reg, unsigned rm,
			  bool rm_is_reg)
{
	uint8_t rex = 0x40 | (flags & XF_W ? 8 : 0) | (reg & 8 ? 4 : 0) | (rm & 8 ? 1 : 0);
	bool force = ((flags & XF_BREG) && reg >= 4 && reg <= 7) ||
		     ((flags & XF_BRM) && rm_is_reg && rm >= 4 && rm <= 7);

	if (flags & XF_LOCK)
		jb_byte(b, 0xf0);
	if (flags & XF_66)
		jb_byte(b, 0x66);
	if (rex != 0x40 || force)
		jb_byte(b, rex);
	if (opcode > 0xffff)
		jb_byte(b, (uint8_t)(opcode >> 16));
	if (opcode > 0xff)
		jb_byte(b, (uint8_t)(opcode >> 8));
	jb_byte(b, (uint8_t)opcode);
}

void x86_rr(struct jit_buf *b, unsigned flags, uint32_t opcode, unsigned reg, unsigned rm)
{
	prefix_rex_op(b, flags, opcode, reg, rm, true);
	jb_byte(b, (uint8_t)(0xc0 | (reg & 7) << 3 | (rm & 7)));
}

void x86_rm(struct jit_buf *b, unsigned flags, uint32_t opcode, unsigned reg, unsigned base, int32_t disp)
{
	uint8_t mod;

	prefix_rex_op(b, flags, opcode, reg, base, false);
	/* mod=00 with rbp/r13 means rip-relative: those bases always carry a displacement. */
	if (disp == 0 && (base & 7) != X_RBP)
		mod = 0;
	else if (fits_s8(disp))
		mod = 1;
	else
		mod = 2;
	jb_byte(b, (uint8_t)(mod << 6 | (reg & 7) << 3 | (base & 7)));
	if ((base & 7) == X_RSP) /* rsp/r12 as base need a SIB byte (no index) */
		jb_byte(b, 0x24);
	if (mod == 1)
		jb_byte(b, (uint8_t)disp);
	else if (mod == 2)
		jb_imm32(b, (uint32_t)disp);
}

void x86_mov_rr(struct jit_buf *b, bool is64, unsigned dst, unsigned src)
{
	x86_rr(b, is64 ? XF_W : 0, 0x89, src, dst);
}

void x86_mov_imm32(struct jit_buf *b, unsigned dst, uint32_t v)
{
	if (v == 0) {
		x86_rr(b, 0, 0x31, dst, dst); /* xor r32, r32 */
		return;
	}
	if (dst & 8)
		jb_byte(b, 0x41);
	jb_byte(b, (uint8_t)(0xb8 | (dst & 7)));
	jb_imm32(b, v);
}

void x86_mov_imm64(struct jit_buf *b, unsigned dst, uint64_t v)
{
	if (v <= UINT32_MAX) {
		x86_mov_imm32(b, dst, (uint32_t)v); /* writes of 32-bit registers zero-extend */
	} else if (fits_s32((int64_t)v)) {
		x86_rr(b, XF_W, 0xc7, 0, dst); /* mov r/m64, imm32 sign-extended */
		jb_imm32(b, (uint32_t)v);
	} else {
		jb_byte(b, (uint8_t)(0x48 | (dst & 8 ? 1 : 0)));
		jb_byte(b, (uint8_t)(0xb8 | (dst & 7)));
		jb_imm64(b, v);
	}
}

void x86_movabs(struct jit_buf *b, unsigned dst, uint64_t v)
{
	jb_byte(b, (uint8_t)(0x48 | (dst & 8 ? 1 : 0)));
	jb_byte(b, (uint8_t)(0xb8 | (dst & 7)));
	jb_imm64(b, v);
}

/* The register form "op r/m, reg" of each group-1 operation. */
static const uint8_t alu_rr_opcode[8] = {
	[ALU_ADD] = 0x01, [ALU_OR] = 0x09, [ALU_AND] = 0x21, [ALU_SUB] = 0x29, [ALU_XOR] = 0x31, [ALU_CMP] = 0x39,
};

void x86_alu_rr(struct jit_buf *b, bool is64, enum x86_alu op, unsigned dst, unsigned src)
{
	x86_rr(b, is64 ? XF_W : 0, alu_rr_opcode[op], src, dst);
}

void x86_alu_imm(struct jit_buf *b, bool is64, enum x86_alu op, unsigned dst, int32_t imm)
{
	if (fits_s8(imm)) {
		x86_rr(b, is64 ? XF_W : 0, 0x83, op, dst);
		jb_byte(b, (uint8_t)imm);
	} else {
		x86_rr(b, is64 ? XF_W : 0, 0x81, op, dst);
		jb_imm32(b, (uint32_t)imm);
	}
}

void x86_test_rr(struct jit_buf *b, bool is64, unsigned dst, unsigned src)
{
	x86_rr(b, is64 ? XF_W : 0, 0x85, src, dst);
}

void x86_test_imm(struct jit_buf *b, bool is64, unsigned dst, int32_t imm)
{
	x86_rr(b, is64 ? XF_W : 0, 0xf7, 0, dst);
	jb_imm32(b, (uint32_t)imm);
}

void x86_shift_imm(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst, uint8_t n)
{
	if (n == 1) {
		x86_rr(b, is64 ? XF_W : 0, 0xd1, op, dst);
	} else {
		x86_rr(b, is64 ? XF_W : 0, 0xc1, op, dst);
		jb_byte(b, n);
	}
}

void x86_shift_cl(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst)
{
	x86_rr(b, is64 ? XF_W : 0, 0xd3, op, dst);
}

/* VEX.LZ.{66,F2,F3}.0F38.W{0,1} F7 /r: ModRM.reg = dst, ModRM.rm = src, VEX.vvvv = cnt. */
void x86_shiftx(struct jit_buf *b, bool is64, enum x86_shift op, unsigned dst, unsigned src, unsigned cnt)
{
	uint8_t pp = op == SH_SHL ? 1 : op == SH_SAR ? 2 : 3;

	jb_byte(b, 0xc4);
	/* R, X, B are stored inverted; map_select 2 is the 0F38 opcode map. */
	jb_byte(b, (uint8_t)((dst & 8 ? 0 : 0x80) | 0x40 | (src & 8 ? 0 : 0x20) | 0x02));
	jb_byte(b, (uint8_t)((is64 ? 0x80 : 0) | (~cnt & 15) << 3 | pp));
	jb_byte(b, 0xf7);
	jb_byte(b, (uint8_t)(0xc0 | (dst & 7) << 3 | (src & 7)));
}

void x86_bswap(struct jit_buf *b, bool is64, unsigned reg)
{
	if (is64 || (reg & 8))
		jb_byte(b, (uint8_t)(0x40 | (is64 ? 8 : 0) | (reg & 8 ? 1 : 0)));
	jb_byte(b, 0x0f);
	jb_byte(b, (uint8_t)(0xc8 | (reg & 7))); /* register in the opcode, no ModRM */
}

void x86_push(struct jit_buf *b, unsigned reg)
{
	if (reg & 8)
		jb_byte(b, 0x41);
	jb_byte(b, (uint8_t)(0x50 | (reg & 7)));
}

void x86_pop(struct jit_buf *b, unsigned reg)
{
	if (reg & 8)
		jb_byte(b, 0x41);
	jb_byte(b, (uint8_t)(0x58 | (reg & 7)));
}

void x86_call_reg(struct jit_buf *b, unsigned reg)
{
	x86_rr(b, 0, 0xff, 2, reg);
}

void x86_extend(struct jit_buf *b, unsigned reg, uint8_t size, bool is_signed)
{
	switch (size) {
	case 1:
		x86_rr(b, (is_signed ? XF_W : 0) | XF_BRM, is_signed ? 0x0fbe : 0x0fb6, reg, reg);
		break;
	case 2:
		x86_rr(b, is_signed ? XF_W : 0, is_signed ? 0x0fbf : 0x0fb7, reg, reg);
		break;
	case 4:
		x86_rr(b, is_signed ? XF_W : 0, is_signed ? 0x63 : 0x89, reg, reg); /* movsxd / mov r32 */
		break;
	}
}

void x86_jcc8(struct jit_buf *b, enum x86_cc cc, int8_t rel)
{
	jb_byte(b, (uint8_t)(0x70 | cc));
	jb_byte(b, (uint8_t)rel);
}

void x86_jcc32(struct jit_buf *b, enum x86_cc cc, int32_t rel)
{
	jb_byte(b, 0x0f);
	jb_byte(b, (uint8_t)(0x80 | cc));
	jb_imm32(b, (uint32_t)rel);
}

void x86_jmp8(struct jit_buf *b, int8_t rel)
{
	jb_byte(b, 0xeb);
	jb_byte(b, (uint8_t)rel);
}

void x86_jmp32(struct jit_buf *b, int32_t rel)
{
	jb_byte(b, 0xe9);
	jb_imm32(b, (uint32_t)rel);
}

void x86_call32(struct jit_buf *b, int32_t rel)
{
	jb_byte(b, 0xe8);
	jb_imm32(b, (uint32_t)rel);
}

size_t x86_jfwd8(struct jit_buf *b, int cc)
{
	if (cc < 0)
		x86_jmp8(b, 0);
	else
		x86_jcc8(b, (enum x86_cc)cc, 0);
	return b->len - 1;
}

void x86_patch8(struct jit_buf *b, size_t at)
{
	/* Every local skip the JIT emits spans a few dozen bytes at most. */
	if (!b->err)
		b->p[at] = (uint8_t)(int8_t)(b->len - (at + 1));
}
