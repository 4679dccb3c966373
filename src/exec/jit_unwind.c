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
 *  - the main function is entered through an entry that pushed two words first
 *    (jit_emit_entries): 16 more; without a frame its CFA is rsp + 8 + 16 + its
 *    sub rsp + its pushes;
 *  - the callee-saved registers pushed after the BPF stack, each at its slot. */
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
#define DW_CFA_offset 0x80
#define DW_CFA_nop 0x00

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

/* One function's FDE for the code [lo, hi). */
static void emit_fde(struct eh_buf *b, const struct jit_ctx *c, size_t f, uint64_t lo, uint64_t hi)
{
	const struct jit_func *fn = &c->funcs[f];
	static const uint32_t zero = 0;
	size_t start = b->len;
	uint32_t entry_words = f == 0 ? 16 : 0; /* the entry's two pushes */
	uint64_t range = hi - lo, cfa_off, below; /* below: CFA - (the first push's slot + 8) */

	eb_bytes(b, &zero, 4);
	uint32_t cie_ptr = (uint32_t)(b->len); /* from this field back to the CIE at 0 */
	eb_bytes(b, &cie_ptr, 4);
	eb_bytes(b, &lo, 8);
	eb_bytes(b, &range, 8);
	eb_uleb(b, 0); /* no augmentation data */
	if (fn->frame) {
		cfa_off = (uint64_t)c->link + 16 + entry_words;
		eb_byte(b, DW_CFA_def_cfa), eb_uleb(b, DW_RBP), eb_uleb(b, cfa_off);
		eb_byte(b, DW_CFA_offset | DW_RBP), eb_uleb(b, (16 + entry_words) / 8);
		below = cfa_off + fn->stack;
	} else {
		below = 8 + entry_words + fn->stack;
		cfa_off = below + 8ull * fn->npush;
		eb_byte(b, DW_CFA_def_cfa), eb_uleb(b, DW_RSP), eb_uleb(b, cfa_off);
	}
	for (unsigned k = 0; k < fn->npush; k++) {
		uint8_t r = fn->push[k];
		if (r < 16)
			eb_byte(b, (uint8_t)(DW_CFA_offset | dwarf_reg[r])), eb_uleb(b, (below + 8ull * (k + 1)) / 8);
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
