/* SPDX-License-Identifier: Apache-2.0 */
/* Unwind information for JIT code: one DWARF CFI record (an .eh_frame FDE) per JIT
 * function, registered with the unwinder of libgcc (__register_frame), so that a stack
 * walk that starts in a helper or kfunc the program called (bpf_get_stack, a host's own
 * backtrace, a debugger's) passes through the program's frames into the host code that
 * ran it. Without it the walk stops at the first JIT frame: generated code has no
 * .eh_frame of its own.
 *
 * Only call sites need describing (an unwinder only ever stands at a return address),
 * and at every call site a function's frame is complete, so each FDE states the one
 * rule that holds there for the whole function (jit_emit_prologue's frame):
 *  - a function with a frame: push rbp [; sub rsp, link]; mov rbp, rsp: the CFA is
 *    rbp + link + 16, the caller's rbp at CFA - 16;
 *  - without a frame: the CFA is rsp + 8 + its sub rsp + its pushes;
 *  - the callee-saved registers pushed after the BPF stack, each at its slot.
 * The main function is entered through one of three entries (jit_emit_entries): the run
 * entry pushes two words (where R0 goes, then a 0 marker), the ctx and struct entries
 * none, so what lies above its frame depends on how the run began. Its FDE computes the
 * CFA with a DWARF expression that looks at the word the entry left on top, as the
 * main function's return does (emit_main_ret_which): 0 is the run entry's marker (the
 * return address 16 bytes further), anything else is the return address itself; the
 * saved registers are found from rbp or rsp, which do not depend on the entry. */
#include <stdlib.h>
#include <string.h>
#include "exec/jit_ctx.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define KBPF_JIT_UNWIND 1
/* libgcc's (unwind-dw2-fde.c): begin is an .eh_frame section, ended by a zero word. */
extern void __register_frame(void *begin);
extern void __deregister_frame(void *begin);
#endif

/* DWARF register numbers of x86-64 (System V psABI) for the JIT's X_* numbers, which
 * are the hardware encodings: rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7,
 * r8-r15 8-15. */
static const uint8_t dwarf_reg[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
#define DW_RSP 7
#define DW_RBP 6
#define DW_RA 16

#define DW_CFA_def_cfa 0x0c
#define DW_CFA_def_cfa_expression 0x0f
#define DW_CFA_expression 0x10
#define DW_CFA_offset 0x80
#define DW_CFA_nop 0x00
#define DW_OP_deref 0x06
#define DW_OP_dup 0x12
#define DW_OP_plus_uconst 0x23
#define DW_OP_bra 0x28
#define DW_OP_breg0 0x70

struct eh_buf {
	uint8_t *p;
	size_t len, cap;
	bool err;
};

static void eb_byte(struct eh_buf *b, uint8_t v)
{
	if (b->len == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->err = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	b->p[b->len++] = v;
}

static void eb_bytes(struct eh_buf *b, const void *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		eb_byte(b, ((const uint8_t *)v)[i]);
}

static void eb_uleb(struct eh_buf *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		eb_byte(b, byte | (v ? 0x80 : 0));
	} while (v);
}

static void eb_sleb(struct eh_buf *b, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;
		v >>= 7; /* arithmetic: gcc and clang shift signed values so */
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
			eb_byte(b, byte);
			return;
		}
		eb_byte(b, byte | 0x80);
	}
}

/* DW_OP_breg<reg> off as a DWARF expression block of its own (length first): the
 * address reg + off, for DW_CFA_expression. */
static void eb_breg_block(struct eh_buf *b, uint8_t dwreg, int64_t off)
{
	struct eh_buf t = { 0 };

	eb_byte(&t, (uint8_t)(DW_OP_breg0 + dwreg));
	eb_sleb(&t, off);
	eb_uleb(b, t.len);
	eb_bytes(b, t.p, t.len);
	b->err |= t.err;
	free(t.p);
}

/* Pad the record that started at start (its 4-byte length first) to 8 bytes with
 * DW_CFA_nop, then write its length. */
static void eb_close(struct eh_buf *b, size_t start)
{
	while ((b->len - start) % 8)
		eb_byte(b, DW_CFA_nop);
	if (b->err)
		return;
	uint32_t len = (uint32_t)(b->len - start - 4);
	memcpy(b->p + start, &len, 4);
}

/* The CIE all FDEs share: code alignment 1, data alignment -8, return address in
 * "register" 16, absolute pointers; at a function's first byte the CFA is rsp + 8 and
 * the return address at CFA - 8. */
static void emit_cie(struct eh_buf *b)
{
	static const uint32_t zero = 0;
	size_t start = b->len;

	eb_bytes(b, &zero, 4); /* length, patched */
	eb_bytes(b, &zero, 4); /* CIE id */
	eb_byte(b, 1);         /* version */
	eb_bytes(b, "zR", 3);  /* augmentation, with its NUL */
	eb_uleb(b, 1);         /* code alignment */
	eb_byte(b, 0x78);      /* data alignment: sleb -8 */
	eb_uleb(b, DW_RA);
	eb_uleb(b, 1);         /* augmentation data: */
	eb_byte(b, 0x00);      /* DW_EH_PE_absptr */
	eb_byte(b, DW_CFA_def_cfa), eb_uleb(b, DW_RSP), eb_uleb(b, 8);
	eb_byte(b, DW_CFA_offset | DW_RA), eb_uleb(b, 1);
	eb_close(b, start);
}

/* The main function's CFA: the entry's top word lies at base register + at (rbp with a
 * frame, rsp without); it is 0 for the run entry (CFA = that word + 24: the marker,
 * where R0 goes, the return address) and the return address for the others (+ 8). */
static void emit_main_cfa(struct eh_buf *b, uint8_t dwreg, int64_t at)
{
	struct eh_buf t = { 0 };

	eb_byte(&t, (uint8_t)(DW_OP_breg0 + dwreg));
	eb_sleb(&t, at);
	eb_byte(&t, DW_OP_dup);
	eb_byte(&t, DW_OP_deref);
	eb_byte(&t, DW_OP_bra); /* a return address: skip the run entry's two words */
	eb_byte(&t, 2), eb_byte(&t, 0);
	eb_byte(&t, DW_OP_plus_uconst), eb_uleb(&t, 16);
	eb_byte(&t, DW_OP_plus_uconst), eb_uleb(&t, 8);
	eb_byte(b, DW_CFA_def_cfa_expression);
	eb_uleb(b, t.len);
	eb_bytes(b, t.p, t.len);
	b->err |= t.err;
	free(t.p);
}

/* One function's FDE for the code [lo, hi). */
static void emit_fde(struct eh_buf *b, const struct jit_ctx *c, size_t f, uint64_t lo, uint64_t hi)
{
	const struct jit_func *fn = &c->funcs[f];
	static const uint32_t zero = 0;
	size_t start = b->len;
	uint64_t range = hi - lo;
	/* the slots: from rbp with a frame (entry rsp = rbp + link + 8, saved rbp at
	 * rbp + link, push k at rbp - stack - 8(k + 1)); from rsp without (entry rsp = rsp
	 * + stack + pushes, push k at rsp + 8(npush - 1 - k)) */
	uint8_t base = fn->frame ? DW_RBP : DW_RSP;
	int64_t entry_rsp = fn->frame ? (int64_t)c->link + 8 : (int64_t)fn->stack + 8ll * fn->npush;

	eb_bytes(b, &zero, 4);
	uint32_t cie_ptr = (uint32_t)(b->len); /* from this field back to the CIE at 0 */
	eb_bytes(b, &cie_ptr, 4);
	eb_bytes(b, &lo, 8);
	eb_bytes(b, &range, 8);
	eb_uleb(b, 0); /* no augmentation data */
	if (f == 0)
		emit_main_cfa(b, base, entry_rsp);
	else
		eb_byte(b, DW_CFA_def_cfa), eb_uleb(b, base), eb_uleb(b, (uint64_t)entry_rsp + 8);
	if (fn->frame)
		eb_byte(b, DW_CFA_expression), eb_uleb(b, DW_RBP), eb_breg_block(b, DW_RBP, c->link);
	for (unsigned k = 0; k < fn->npush; k++) {
		uint8_t r = fn->push[k];
		int64_t at = fn->frame ? -(int64_t)fn->stack - 8ll * (k + 1) : 8ll * (fn->npush - 1 - k);
		if (r < 16)
			eb_byte(b, DW_CFA_expression), eb_uleb(b, dwarf_reg[r]), eb_breg_block(b, base, at);
	}
	eb_close(b, start);
}

void jit_unwind_register(const struct jit_ctx *c, struct kbpf_jit *jit)
{
	jit->eh_frame = NULL;
#ifdef KBPF_JIT_UNWIND
	struct eh_buf b = { 0 };
	static const uint32_t end = 0;

	emit_cie(&b);
	for (size_t f = 0; f < c->nr_funcs; f++) {
		const struct jit_func *fn = &c->funcs[f];
		if (fn->first >= fn->end)
			continue;
		/* the body: every call site lies in an instruction's code */
		uint64_t lo = (uint64_t)c->base + c->cur.start[fn->first], hi = (uint64_t)c->base + c->cur.epi[f];
		if (hi > lo)
			emit_fde(&b, c, f, lo, hi);
	}
	eb_bytes(&b, &end, 4);
	if (b.err) {
		free(b.p); /* no unwind information: stack walks stop at the program */
		return;
	}
	__register_frame(b.p);
	jit->eh_frame = b.p;
#else
	(void)c;
#endif
}

void jit_unwind_deregister(struct kbpf_jit *jit)
{
#ifdef KBPF_JIT_UNWIND
	if (jit->eh_frame)
		__deregister_frame(jit->eh_frame);
#endif
	free(jit->eh_frame);
	jit->eh_frame = NULL;
}
