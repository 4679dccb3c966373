/* SPDX-License-Identifier: Apache-2.0 */
/* Translation of BPF instructions to x86-64, one instruction at a time, plus each
 * function's prologue and epilogue and the stubs of run-time stops.
 *
 * Registers are Linux's mapping: R0 rax, R1-R5 rdi rsi rdx rcx r8 (the SysV argument
 * registers, so a helper call is just a call), R6-R9 rbx r13 r14 r15 (callee-saved, so
 * they survive helper calls), R10 rbp. r9, r10, r11 are scratch within one
 * instruction; r12 counts BPF-to-BPF call depth when the program has calls.
 * Semantics follow RFC 9669 exactly as the interpreter (interp_body.h) implements it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "exec/jit_ctx.h"
#include "exec/kfunc_call.h"
#include "exec/probe_mem.h"
#include "exec/tail_call.h"
#include "host/host_internal.h"

const uint8_t jit_reg[11] = { X_RAX, X_RDI, X_RSI, X_RDX, X_RCX, X_R8, X_RBX, X_R13, X_R14, X_R15, X_RBP };

#define X_DEPTH X_R12 /* BPF-to-BPF call depth: 0 in the main program */

int jit_refuse(struct jit_ctx *c, size_t insn, const char *fmt, ...)
{
	if (c->err && c->err_size) {
		int n = snprintf(c->err, c->err_size, "insn %zu: ", insn);
		if (n >= 0 && (size_t)n < c->err_size) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(c->err + n, c->err_size - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EOPNOTSUPP;
}

/* mov r32, r32: clears the upper half, as every ALU32 result must. */
static void zext32(struct jit_buf *b, unsigned r)
{
	x86_mov_rr(b, false, r, r);
}

/* rel32 from the end of an instruction of len bytes starting now to a previous-pass
 * offset. Used for fixed-size (always rel32) jumps and calls: their size never
 * changes, only their target, which is right once the layout has converged. */
static int32_t rel_from_here(const struct jit_ctx *c, uint32_t target, unsigned len)
{
	return (int32_t)((int64_t)target - (int64_t)(c->buf.len + len));
}

/* --- hardening ------------------------------------------------------------------ */

uint64_t jit_key64(const struct jit_ctx *c, size_t i)
{
	/* splitmix64 of seed + i: cheap, and every key looks unrelated to its neighbours */
	uint64_t z = c->seed + (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 0x5bd1e9955bd1e995ull; /* a zero key would leave the constant in clear */
}

/* reg = imm sign-extended (is64) or zero-extended, without imm in the code: mov the
 * blinded value imm ^ key, then xor the key back (Linux's BPF_REG_AX rewrite, done at
 * emit time into a scratch register). The 64-bit forms sign-extend both halves, and
 * sext(a) ^ sext(b) == sext(a ^ b). Fixed-size forms: the layout converges as usual. */
static void emit_blinded_imm(struct jit_ctx *c, size_t i, unsigned reg, int32_t imm, bool is64)
{
	struct jit_buf *b = &c->buf;
	uint32_t key = (uint32_t)jit_key64(c, i);

	if (!key)
		key = 0x5bd1e995u;
	x86_rr(b, is64 ? XF_W : 0, 0xc7, 0, reg); /* mov r/m, imm32 */
	jb_imm32(b, (uint32_t)imm ^ key);
	x86_rr(b, is64 ? XF_W : 0, 0x81, ALU_XOR, reg); /* xor r/m, imm32 (never the imm8 form) */
	jb_imm32(b, key);
}

/* The same for an LDDW's 64-bit value. */
static void emit_blinded_imm64(struct jit_ctx *c, size_t i, unsigned reg, uint64_t v)
{
	struct jit_buf *b = &c->buf;
	uint64_t key = jit_key64(c, i);

	/* movabs reg, v ^ key; movabs r10, key; xor reg, r10 (fixed 10-byte forms) */
	x86_movabs(b, reg, v ^ key);
	x86_movabs(b, X_R10, key);
	x86_alu_rr(b, true, ALU_XOR, reg, X_R10);
}

/* Stack guard: the canary into r10. */
static void emit_canary(struct jit_ctx *c)
{
	x86_movabs(&c->buf, X_R10, c->canary);
}

/* Fill a frame's guards (prologue) or check them (before it returns): the two qwords
 * above R10, and the two below its BPF stack if it has one. A check that fails stops
 * the run with -EFAULT through the abort stub, which never returns through this frame. */
static void emit_guard(struct jit_ctx *c, const struct jit_func *fn, bool check)
{
	struct jit_buf *b = &c->buf;
	int32_t at[4] = { 0, 8, fn->guard_lo, fn->guard_lo + 8 };
	unsigned n = fn->guard_lo ? 4 : 2;

	emit_canary(c);
	for (unsigned k = 0; k < n; k++) {
		if (!check) {
			x86_rm(b, XF_W, 0x89, X_R10, X_RBP, at[k]); /* mov [rbp + at], r10 */
			continue;
		}
		x86_rm(b, XF_W, 0x39, X_R10, X_RBP, at[k]); /* cmp [rbp + at], r10 */
		x86_jcc32(b, CC_NE, rel_from_here(c, c->prev.abort_fault, X86_JCC32_LEN));
	}
}

/* Leave a frame: rsp = the saved rbp's slot, pop rbp (leave, when no guard sits between). */
static void emit_leave(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;

	if (c->link) {
		x86_rm(b, XF_W, 0x8d, X_RSP, X_RBP, c->link); /* lea rsp, [rbp + link] */
		x86_pop(b, X_RBP);
	} else {
		jb_byte(b, 0xc9); /* leave: rsp = rbp; pop rbp */
	}
}

/* Budget mode: one backward jump or local call is spent; none left stops the run. The
 * budget sits above the depth in r12, so a borrow out of it is the carry flag. */
static void emit_budget_spend(struct jit_ctx *c, int32_t amount)
{
	struct jit_buf *b = &c->buf;

	x86_rr(b, XF_W, 0x81, ALU_SUB, X_DEPTH); /* sub r12, imm32 */
	jb_imm32(b, (uint32_t)amount);
	x86_jcc32(b, CC_B, rel_from_here(c, c->prev.abort_time, X86_JCC32_LEN));
}

/* --- call depth and the tail call state ------------------------------------------ */

/* r12 holds the call depth in two bytes (under a run budget, above them): bits 0-7 the
 * run's depth, counted as the interpreter counts it (0 in the main function of the run,
 * one more per local call, and a tail call's target keeps the depth of the function it
 * replaces); bits 8-15 the depth at which this native run's main function started: not
 * 0 only in a run a tail call from a subprogram entered (kbpf_jit_tail_call, docs/jit.md
 * "Tail calls"). Their difference is how many frames lie between the current one and
 * the main function's: stops and tail calls walk that many rbp links. */

/* cmp r12b, KBPF_MAX_CALL_FRAMES; jae: a local call deeper than the interpreter allows. */
static void emit_depth_check(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;

	x86_rr(b, XF_BRM, 0x80, 7, X_DEPTH); /* cmp r12b, imm8 */
	jb_byte(b, KBPF_MAX_CALL_FRAMES);
	x86_jcc32(b, CC_AE, rel_from_here(c, c->prev.abort_depth, X86_JCC32_LEN));
}

/* dst (32 bits) = the frames between the current one and this run's main function
 * (flags as "sub": ZF when none); tmp is clobbered. */
static void emit_frames_up(struct jit_buf *b, unsigned dst, unsigned tmp)
{
	x86_mov_rr(b, false, tmp, X_DEPTH);
	x86_shift_imm(b, false, SH_SHR, tmp, 8);
	x86_rr(b, XF_BRM, 0x0fb6, tmp, tmp);     /* movzx tmp, tmpb: the base */
	x86_rr(b, XF_BRM, 0x0fb6, dst, X_DEPTH); /* movzx dst, r12b: the depth */
	x86_alu_rr(b, false, ALU_SUB, dst, tmp);
}

/* The main function's entry state in r9 (the struct entry's 6th argument):
 *   0         a new run: depth 0, no tail call made yet;
 *   odd       a tail call from a main function replaced that function by this one
 *             (emit_tail_call): 2 * count + 1, the count of the run's tail calls, at
 *             depth 0 of a run that started at depth 0;
 *   even      a struct kbpf_jit_tail_run (tail_call.c) of a run that a tail call from a
 *             subprogram started: the count lives there, and the depth it started at.
 * r11 = the initial r12 depth bytes: the depth twice (bits 0-7, 8-15). */
static void emit_entry_depth(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;
	size_t fresh, odd;

	x86_mov_imm32(b, X_R11, 0);
	x86_test_rr(b, true, X_R9, X_R9);
	fresh = x86_jfwd8(b, CC_E);
	x86_rr(b, 0, 0xf6, 0, X_R9); /* test r9b, 1 */
	jb_byte(b, 1);
	odd = x86_jfwd8(b, CC_NE);
	x86_rm(b, 0, 0x0fb6, X_R11, X_R9, KBPF_JIT_TAIL_RUN_DEPTH); /* movzx r11d, byte [r9 + depth] */
	x86_rr(b, 0, 0x69, X_R11, X_R11);                             /* imul r11d, r11d, 0x101 */
	jb_imm32(b, 0x101);
	x86_patch8(b, fresh);
	x86_patch8(b, odd);
}

/* A main function that tail-calls keeps a pointer to the run's tail call count in its
 * frame (tail_ptr_off): to the count of the run that a tail call from a subprogram
 * started (r9 even), else to its own slot (tail_cnt_off), which starts at the count
 * carried by r9 (0, or 2 * count + 1). */
static void emit_tail_counter(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;
	size_t value, have;

	x86_rr(b, 0, 0xf6, 0, X_R9); /* test r9b, 1 */
	jb_byte(b, 1);
	value = x86_jfwd8(b, CC_NE);
	x86_test_rr(b, true, X_R9, X_R9);
	have = x86_jfwd8(b, CC_NE);
	x86_patch8(b, value);
	x86_mov_rr(b, false, X_R10, X_R9);
	x86_shift_imm(b, false, SH_SHR, X_R10, 1);
	x86_rm(b, XF_W, 0x8d, X_R9, X_RBP, c->tail_cnt_off); /* lea r9, [rbp + cnt] */
	x86_rm(b, 0, 0x89, X_R10, X_R9, 0);                   /* mov [r9], r10d */
	x86_patch8(b, have);
	x86_rm(b, XF_W, 0x89, X_R9, X_RBP, c->tail_ptr_off); /* mov [rbp + ptr], r9 */
}

/* --- entries ------------------------------------------------------------------- */

/* The main function has three entries, which differ in how R0 and the errno come back:
 *   run    int run(prog, ctx, uint64_t *retval): kbpf_prog_run's own signature (prog->run:
 *          kbpf_prog_run is a NULL check and a tail jump here); errno in eax, R0 in
 *          *retval when retval is not NULL;
 *   ctx    struct kbpf_prog_result fn(void *ctx): kbpf_prog_jited_func;
 *   struct struct kbpf_jit_ret entry(r1, ..., r5, tail_cnt): tail calls, struct_ops
 *          trampolines, kbpf_prog_run_opts; R0 in rax, errno in rdx (ctx too).
 * They lie in that order and each falls into the next, then into the body: none jumps.
 * The run entry pushes two words above the main function's frame:
 *   [entry rsp - 8]   where R0 goes: retval, or, for a NULL retval, the word below (a
 *                     scratch word: popped, in the red zone, by the time it is written)
 *   [entry rsp - 16]  0, the marker
 * the other two push nothing. The main function's return (emit_main_ret, and the stop
 * stub's emit_main_stop_ret) tells them apart by the word on top of the stack: the run
 * entry's 0, or else the caller's return address, which is never 0. Entering the body
 * directly, not through a call of the main function from a stub, is what makes a
 * kbpf_prog_run cost one call level (docs/jit.md, "Speed"); the entries' code starts on
 * a 64-byte boundary (JIT_CODE_START) so that a short program's path lies in one
 * window of the front end. rsp at the body is as a call leaves it, from every entry. */
#define JIT_RUN_SLOTS 16

static void emit_endbr64(struct jit_buf *b)
{
	/* a valid indirect-branch target under CET IBT, a nop elsewhere */
	jb_byte(b, 0xf3), jb_byte(b, 0x0f), jb_byte(b, 0x1e), jb_byte(b, 0xfa);
}

/* R2-R5 start zero as on the interpreter, r9 (the tail call state, jit_emit_prologue)
 * 0: a new run. Left out where nothing can read them (jit_ctx.entry_zero_args; r9 is
 * read by the prologue of a program with run-time stops, need_abort). */
static void emit_zero_args(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;

	if (c->entry_zero_args) {
		x86_mov_imm32(b, X_RSI, 0);
		x86_mov_imm32(b, X_RDX, 0);
		x86_mov_imm32(b, X_RCX, 0);
		x86_mov_imm32(b, X_R8, 0);
	}
	if (c->need_abort)
		x86_mov_imm32(b, X_R9, 0);
}

void jit_emit_entries(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;

	/* run: the two words, R1 = ctx; falls into the ctx entry */
	c->run_entry = (uint32_t)b->len;
	emit_endbr64(b);
	x86_rm(b, XF_W, 0x8d, X_R11, X_RSP, -JIT_RUN_SLOTS); /* lea r11, [rsp - 16]: scratch */
	x86_test_rr(b, true, X_RDX, X_RDX);
	x86_rr(b, XF_W, 0x0f45, X_R11, X_RDX); /* cmovne r11, rdx: retval unless NULL */
	x86_push(b, X_R11);
	jb_byte(b, 0x6a), jb_byte(b, 0x00); /* push 0: the marker */
	x86_mov_rr(b, true, X_RDI, X_RSI);  /* R1 = ctx */
	/* ctx: a new run with R1 = ctx; falls into the struct entry */
	c->ctx_entry = (uint32_t)b->len;
	emit_endbr64(b);
	emit_zero_args(c);
	/* struct: R1-R5 and r9 as they came */
	c->struct_entry = (uint32_t)b->len;
	emit_endbr64(b);
	c->body = (uint32_t)b->len;
}

/* cmp qword [rsp], 0; jne: the main function's return, its frame left, decides between
 * the run entry's convention (the marker on top) and the struct return (a return address
 * on top). The jump goes to the struct return, which the caller patches. */
static size_t emit_main_ret_which(struct jit_buf *b)
{
	x86_rm(b, XF_W, 0x83, 7, X_RSP, 0); /* cmp qword [rsp], imm8 */
	jb_byte(b, 0);
	return x86_jfwd8(b, CC_NE);
}

/* The main function's return, R0 in rax, its frame already left: as the entry asked. */
static void emit_main_ret(struct jit_buf *b)
{
	size_t to_struct = emit_main_ret_which(b);

	x86_pop(b, X_RCX);                      /* the marker */
	x86_pop(b, X_R11);                      /* where R0 goes */
	x86_rm(b, XF_W, 0x89, X_RAX, X_R11, 0); /* mov [r11], rax */
	x86_mov_imm32(b, X_RAX, 0);             /* no run-time stop */
	jb_byte(b, 0xc3);
	x86_patch8(b, to_struct);
	x86_mov_imm32(b, X_RDX, 0); /* rax = R0, rdx = no run-time stop */
	jb_byte(b, 0xc3);
}

/* The same after a run-time stop, the errno in r11d: R0 is 0, the errno goes to eax
 * (run entry, *retval = 0) or rdx (struct return: rax 0). */
static void emit_main_stop_ret(struct jit_buf *b)
{
	size_t to_struct = emit_main_ret_which(b);

	x86_pop(b, X_RCX);                     /* the marker */
	x86_pop(b, X_R10);                     /* where R0 goes */
	x86_rm(b, XF_W, 0xc7, 0, X_R10, 0);    /* mov qword [r10], 0 */
	jb_imm32(b, 0);
	x86_mov_rr(b, false, X_RAX, X_R11);    /* mov eax, r11d */
	jb_byte(b, 0xc3);
	x86_patch8(b, to_struct);
	x86_mov_imm32(b, X_RAX, 0);
	x86_rr(b, XF_W, 0x63, X_RDX, X_R11);   /* movsxd rdx, r11d */
	jb_byte(b, 0xc3);
}

/* --- prologue / epilogue ------------------------------------------------------ */

int jit_emit_prologue(struct jit_ctx *c, size_t f)
{
	const struct jit_func *fn = &c->funcs[f];
	struct jit_buf *b = &c->buf;

	if (fn->frame) {
		x86_push(b, X_RBP);
		if (c->link)
			x86_alu_imm(b, true, ALU_SUB, X_RSP, c->link); /* the guard above R10 */
		x86_mov_rr(b, true, X_RBP, X_RSP);
	}
	if (f != 0 && c->budget) {
		/* budget - 1 and depth + 1 at once; the depth check as below, on bits 0-15 */
		emit_budget_spend(c, (1 << JIT_BUDGET_SHIFT) - 1);
		emit_depth_check(c);
	} else if (f != 0) {
		/* One more frame: the interpreter allows 8 in all (main + 7 nested). */
		x86_rr(b, 0, 0xff, 0, X_DEPTH); /* inc r12d */
		emit_depth_check(c);
	}
	if (f == 0 && c->need_abort)
		emit_entry_depth(c);
	if (fn->stack)
		x86_alu_imm(b, true, ALU_SUB, X_RSP, (int32_t)fn->stack);
	if (f == 0 && c->has_tail_calls)
		emit_tail_counter(c);
	for (unsigned k = 0; k < fn->npush; k++)
		x86_push(b, fn->push[k]);
	if (f == 0) {
		/* The interpreter starts with R0 and R6-R9 zero; so does the JIT, so that even
		 * a program reading a register it never wrote gives the same result. */
		x86_mov_imm32(b, X_RAX, 0);
		for (unsigned k = 0; k < fn->npush; k++)
			if (fn->push[k] != X_DEPTH)
				x86_mov_imm32(b, fn->push[k], 0);
		if (c->budget) {
			x86_mov_imm64(b, X_DEPTH, c->budget << JIT_BUDGET_SHIFT);
			x86_alu_rr(b, true, ALU_OR, X_DEPTH, X_R11);
		} else if (c->need_abort) {
			x86_mov_rr(b, true, X_DEPTH, X_R11); /* the depth emit_entry_depth found */
		}
	}
	if (c->guard && fn->frame)
		emit_guard(c, fn, false);
	return 0;
}

/* Restore what the prologue saved and return; the main program returns R0 as its
 * entry asked (jit_emit_entries) and "no run-time stop": rdx 0 (the err half of struct
 * kbpf_jit_ret), or eax 0 (kbpf_prog_run's return). */
static void emit_restore(struct jit_ctx *c, const struct jit_func *fn)
{
	struct jit_buf *b = &c->buf;

	if (c->guard && fn->frame)
		emit_guard(c, fn, true);
	for (unsigned k = fn->npush; k-- > 0;)
		x86_pop(b, fn->push[k]);
	if (fn->frame)
		emit_leave(c);
	else if (fn->stack)
		x86_alu_imm(b, true, ALU_ADD, X_RSP, (int32_t)fn->stack);
}

static void emit_restore_and_ret(struct jit_ctx *c, const struct jit_func *fn, bool is_main)
{
	struct jit_buf *b = &c->buf;

	emit_restore(c, fn);
	if (is_main) {
		emit_main_ret(b);
		return;
	}
	x86_rr(b, c->budget ? XF_W : 0, 0xff, 1, X_DEPTH); /* dec r12d (r12: the budget above) */
	jb_byte(b, 0xc3);
}

void jit_emit_epilogue(struct jit_ctx *c, size_t f)
{
	emit_restore_and_ret(c, &c->funcs[f], f == 0);
}

/* Run-time stops (call depth; callx to an unknown helper or a call of an unresolved
 * __weak kfunc: -EINVAL): with the error in r11d,
 * walk the saved-rbp chain up r12 frames to the main program's frame, restore its
 * callee-saved registers and return R0 0 and err as the entry asked. Every subprogram frame starts with
 * push rbp; mov rbp, rsp, so [rbp] is always the caller's rbp. */
void jit_emit_abort_stubs(struct jit_ctx *c)
{
	const struct jit_func *main_fn = &c->funcs[0];
	struct jit_buf *b = &c->buf;
	size_t to_common[3], to_main, loop;

	c->cur.abort_einval = (uint32_t)b->len;
	x86_mov_imm32(b, X_R11, (uint32_t)-EINVAL);
	to_common[0] = x86_jfwd8(b, -1);
	c->cur.abort_fault = (uint32_t)b->len;
	x86_mov_imm32(b, X_R11, (uint32_t)-EFAULT);
	to_common[1] = x86_jfwd8(b, -1);
	c->cur.abort_time = (uint32_t)b->len;
	x86_mov_imm32(b, X_R11, (uint32_t)-ETIME);
	to_common[2] = x86_jfwd8(b, -1);
	c->cur.abort_depth = (uint32_t)b->len;
	x86_mov_imm32(b, X_R11, (uint32_t)-E2BIG);
	for (int k = 0; k < 3; k++)
		x86_patch8(b, to_common[k]);
	c->cur.abort_err = (uint32_t)b->len;
	emit_frames_up(b, X_DEPTH, X_R10); /* r12d: the frames below this run's main one */
	to_main = x86_jfwd8(b, CC_E);
	loop = b->len;
	x86_rm(b, XF_W, 0x8b, X_RBP, X_RBP, c->link); /* mov rbp, [rbp + link]: the caller's frame */
	x86_rr(b, 0, 0xff, 1, X_DEPTH);         /* dec r12d */
	x86_jcc8(b, CC_NE, (int8_t)((int64_t)loop - (int64_t)(b->len + X86_JCC8_LEN)));
	x86_patch8(b, to_main);
	/* lea rsp, [rbp - (stack + pushes)]: where the main prologue left rsp */
	x86_rm(b, XF_W, 0x8d, X_RSP, X_RBP, -(int32_t)(main_fn->stack + 8 * main_fn->npush));
	for (unsigned k = main_fn->npush; k-- > 0;)
		x86_pop(b, main_fn->push[k]);
	emit_leave(c);
	emit_main_stop_ret(b);
}

/* --- jumps between instructions ------------------------------------------------ */

/* Offset of a jump at insn i (its last bytes) to target, from the previous pass; in
 * the first pass every such jump is long, the upper bound the passes shrink from. */
static bool jump_rel(const struct jit_ctx *c, size_t i, uint32_t target, int64_t *rel)
{
	if (c->pass0)
		return false;
	*rel = (int64_t)target - (int64_t)c->prev.end[i];
	return true;
}

/* The form of insn i's jump to target this pass (recorded in the layout), and its rel:
 * none to the next instruction, short where it fits, else long; frozen passes keep the
 * previous pass's form (still valid: distances only shrink). */
static enum jit_jump_form jump_form(struct jit_ctx *c, size_t i, uint32_t target, int64_t *rel)
{
	enum jit_jump_form form = JIT_JUMP_LONG;

	*rel = 0;
	if (jump_rel(c, i, target, rel)) {
		form = *rel == 0 ? JIT_JUMP_NONE : fits_s8(*rel) ? JIT_JUMP_SHORT : JIT_JUMP_LONG;
		if (c->freeze && form < c->prev.jform[i] && !(form == JIT_JUMP_LONG))
			form = (enum jit_jump_form)c->prev.jform[i];
	}
	c->cur.jform[i] = (uint8_t)form;
	return form;
}

/* jmp/jcc (cc < 0: jmp) as the last bytes of insn i. */
static void emit_jump(struct jit_ctx *c, size_t i, int cc, uint32_t target)
{
	struct jit_buf *b = &c->buf;
	int64_t rel = 0;
	enum jit_jump_form form = jump_form(c, i, target, &rel);

	if (form == JIT_JUMP_NONE)
		return; /* to the next instruction */
	if (form == JIT_JUMP_SHORT) {
		if (cc < 0)
			x86_jmp8(b, (int8_t)rel);
		else
			x86_jcc8(b, (enum x86_cc)cc, (int8_t)rel);
	} else if (cc < 0) {
		x86_jmp32(b, (int32_t)rel);
	} else {
		x86_jcc32(b, (enum x86_cc)cc, (int32_t)rel);
	}
}

static int jmp_cc(uint8_t op)
{
	switch (op) {
	case BPF_JEQ: return CC_E;
	case BPF_JNE: return CC_NE;
	case BPF_JGT: return CC_A;
	case BPF_JGE: return CC_AE;
	case BPF_JLT: return CC_B;
	case BPF_JLE: return CC_BE;
	case BPF_JSGT: return CC_G;
	case BPF_JSGE: return CC_GE;
	case BPF_JSLT: return CC_L;
	case BPF_JSLE: return CC_LE;
	case BPF_JSET: return CC_NE;
	}
	return -1;
}

/* The compare of conditional jump i, then a jcc on cc (or its inverse) to target. */
static int emit_cond_jump_to(struct jit_ctx *c, size_t i, bool invert, uint32_t target)
{
	const struct bpf_insn *in = &c->insns[i];
	struct jit_buf *b = &c->buf;
	bool is64 = BPF_CLASS(in->code) == BPF_JMP, x = BPF_SRC(in->code) == BPF_X;
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg];
	int cc = jmp_cc(BPF_OP(in->code));
	int64_t rel;

	if (cc < 0)
		return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
	if (jump_form(c, i, target, &rel) == JIT_JUMP_NONE)
		return 0; /* both ways lead to the next instruction */
	if (c->blind && !x && in->imm) {
		emit_blinded_imm(c, i, X_R10, in->imm, is64);
		x = true;
		s = X_R10;
	}
	if (BPF_OP(in->code) == BPF_JSET) {
		if (x)
			x86_test_rr(b, is64, d, s);
		else /* a non-negative imm has a zero upper half: the 32-bit test is the same */
			x86_test_imm(b, is64 && in->imm < 0, d, in->imm);
	} else if (x) {
		x86_alu_rr(b, is64, ALU_CMP, d, s);
	} else if (in->imm == 0) {
		x86_test_rr(b, is64, d, d); /* same flags as cmp d, 0 */
	} else {
		x86_alu_imm(b, is64, ALU_CMP, d, in->imm);
	}
	emit_jump(c, i, invert ? cc ^ 1 : cc, target); /* x86 condition codes pair up in the low bit */
	return 0;
}

static int emit_cond_jump(struct jit_ctx *c, size_t i)
{
	return emit_cond_jump_to(c, i, false, c->prev.start[i + 1 + c->insns[i].off]);
}

/* "if cond goto +1; goto L" (how clang closes loops whose exit test comes first) as one
 * "if !cond goto L", when nothing jumps to the goto itself. */
static bool is_cond_jump(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_JA && op != BPF_CALL && op != BPF_EXIT &&
	       jmp_cc(op) >= 0;
}

static bool fuse_jcc_ja(struct jit_ctx *c, size_t f, size_t i, int *ret)
{
	const struct bpf_insn *jc = &c->insns[i], *ja = jc + 1;
	int64_t off;

	/* budget mode counts the goto when it runs, which one jcc could not tell */
	if (c->budget || !is_cond_jump(jc) || jc->off != 1 || i + 1 >= c->funcs[f].end || c->jump_target[i + 1])
		return false;
	if (kbpf_prog_insn_is_dead_stop(c->prog, i + 1))
		return false; /* a stop, not a jump */
	if (ja->code == (BPF_JMP | BPF_JA))
		off = ja->off;
	else if (ja->code == (BPF_JMP32 | BPF_JA))
		off = ja->imm;
	else
		return false;
	*ret = emit_cond_jump_to(c, i, true, c->prev.start[(int64_t)i + 2 + off]);
	return true;
}

/* --- ALU ------------------------------------------------------------------------ */

static enum x86_alu alu_op(uint8_t op)
{
	switch (op) {
	case BPF_ADD: return ALU_ADD;
	case BPF_SUB: return ALU_SUB;
	case BPF_OR: return ALU_OR;
	case BPF_AND: return ALU_AND;
	default: return ALU_XOR;
	}
}

static void emit_alu_imm(struct jit_buf *b, bool is64, uint8_t op, unsigned d, int32_t imm)
{
	if (imm == 0) {
		if (op == BPF_AND)
			x86_mov_imm32(b, d, 0);
		else if (!is64)
			zext32(b, d);
		return;
	}
	/* and with a non-negative imm: the 32-bit form is shorter and zero-extends, which is
	 * what the sign-extended 64-bit mask would do to the upper half anyway. */
	if (op == BPF_AND && imm > 0)
		is64 = false;
	x86_alu_imm(b, is64, alu_op(op), d, imm);
}

static int log2_exact(uint64_t v)
{
	return v && !(v & (v - 1)) ? __builtin_ctzll(v) : -1;
}

static void emit_mul_imm(struct jit_buf *b, bool is64, unsigned d, int32_t imm)
{
	uint64_t v = is64 ? (uint64_t)(int64_t)imm : (uint32_t)imm;
	int sh = log2_exact(v);

	if (v == 0) {
		x86_mov_imm32(b, d, 0);
	} else if (sh == 0) {
		if (!is64)
			zext32(b, d);
	} else if (sh > 0) {
		x86_shift_imm(b, is64, SH_SHL, d, (uint8_t)sh);
	} else if (fits_s8(imm)) {
		x86_rr(b, is64 ? XF_W : 0, 0x6b, d, d); /* imul d, d, imm8 */
		jb_byte(b, (uint8_t)imm);
	} else {
		x86_rr(b, is64 ? XF_W : 0, 0x69, d, d); /* imul d, d, imm32 */
		jb_imm32(b, (uint32_t)imm);
	}
}

/* The dividend is d, the (nonzero, for signed not -1) divisor is in r11. div/idiv use
 * rdx:rax, which hold R0 and R3: save them in r10/r9 unless d is one of them. */
static void emit_hw_divide(struct jit_buf *b, bool is64, bool is_signed, bool is_mod, unsigned d)
{
	unsigned w = is64 ? XF_W : 0, res = is_mod ? X_RDX : X_RAX;

	if (d != X_RAX)
		x86_mov_rr(b, true, X_R10, X_RAX);
	if (d != X_RDX)
		x86_mov_rr(b, true, X_R9, X_RDX);
	if (d != X_RAX)
		x86_mov_rr(b, is64, X_RAX, d);
	if (is_signed) {
		if (is64)
			jb_byte(b, 0x48);
		jb_byte(b, 0x99); /* cqo / cdq */
	} else {
		x86_mov_imm32(b, X_RDX, 0);
	}
	x86_rr(b, w, 0xf7, is_signed ? 7 : 6, X_R11); /* idiv / div r11 */
	if (d != res)
		x86_mov_rr(b, is64, d, res); /* 32-bit results are already zero-extended */
	if (d != X_RAX)
		x86_mov_rr(b, true, X_RAX, X_R10);
	if (d != X_RDX)
		x86_mov_rr(b, true, X_RDX, X_R9);
}

/* What RFC 9669 defines where x86 would trap: x / 0 = 0, x % 0 = x (ALU32: zero-
 * extended), and for signed ops x / -1 = -x, x % -1 = 0 (INT_MIN / -1 traps on x86). */
static void emit_div_by_zero(struct jit_buf *b, bool is64, bool is_mod, unsigned d)
{
	if (!is_mod)
		x86_mov_imm32(b, d, 0);
	else if (!is64)
		zext32(b, d);
}

static void emit_div_by_minus1(struct jit_buf *b, bool is64, bool is_mod, unsigned d)
{
	if (is_mod)
		x86_mov_imm32(b, d, 0);
	else
		x86_rr(b, is64 ? XF_W : 0, 0xf7, 3, d); /* neg */
}

/* in_r11: the divisor is already in r11 (a blinded constant): divide at run time. */
static void emit_divmod(struct jit_buf *b, const struct bpf_insn *in, bool in_r11)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X || in_r11;
	bool is_mod = BPF_OP(in->code) == BPF_MOD, is_signed = in->off == 1;
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg];

	if (!x) {
		/* The divisor is a constant: decide its special cases now. */
		uint64_t v = is64 ? (uint64_t)(int64_t)in->imm : (uint32_t)in->imm;
		uint64_t minus1 = is64 ? UINT64_MAX : UINT32_MAX;
		int sh = log2_exact(v);

		if (v == 0) {
			emit_div_by_zero(b, is64, is_mod, d);
		} else if (is_signed && v == minus1) {
			emit_div_by_minus1(b, is64, is_mod, d);
		} else if (!is_signed && sh >= 0) {
			if (is_mod) /* v - 1 < 2^31: the 32-bit and is exact and zero-extends */
				emit_alu_imm(b, false, BPF_AND, d, (int32_t)(v - 1));
			else if (sh)
				x86_shift_imm(b, is64, SH_SHR, d, (uint8_t)sh);
			else if (!is64)
				zext32(b, d);
		} else {
			if (is64)
				x86_mov_imm64(b, X_R11, v);
			else
				x86_mov_imm32(b, X_R11, (uint32_t)v);
			emit_hw_divide(b, is64, is_signed, is_mod, d);
		}
		return;
	}

	size_t to_zero, to_m1 = 0, done1, done2 = 0;

	if (!in_r11)
		x86_mov_rr(b, is64, X_R11, s);
	x86_test_rr(b, is64, X_R11, X_R11);
	to_zero = x86_jfwd8(b, CC_E);
	if (is_signed) {
		x86_alu_imm(b, is64, ALU_CMP, X_R11, -1);
		to_m1 = x86_jfwd8(b, CC_E);
	}
	emit_hw_divide(b, is64, is_signed, is_mod, d);
	done1 = x86_jfwd8(b, -1);
	if (is_signed) {
		x86_patch8(b, to_m1);
		emit_div_by_minus1(b, is64, is_mod, d);
		done2 = x86_jfwd8(b, -1);
	}
	x86_patch8(b, to_zero);
	emit_div_by_zero(b, is64, is_mod, d);
	x86_patch8(b, done1);
	if (is_signed)
		x86_patch8(b, done2);
}

static void emit_shift_reg(struct jit_ctx *c, bool is64, enum x86_shift op, unsigned d, unsigned s)
{
	struct jit_buf *b = &c->buf;

	if (c->bmi2) {
		x86_shiftx(b, is64, op, d, d, s); /* masks the count as BPF does */
		return;
	}
	/* shl/shr/sar take the count in cl, and rcx is R4. */
	if (s == X_RCX) {
		x86_shift_cl(b, is64, op, d);
	} else if (d == X_RCX) {
		x86_mov_rr(b, true, X_R11, X_RCX);
		x86_mov_rr(b, true, X_RCX, s);
		x86_shift_cl(b, is64, op, X_R11);
		x86_mov_rr(b, is64, X_RCX, X_R11);
		return;
	} else {
		x86_mov_rr(b, true, X_R11, X_RCX);
		x86_mov_rr(b, true, X_RCX, s);
		x86_shift_cl(b, is64, op, d);
		x86_mov_rr(b, true, X_RCX, X_R11);
	}
	/* Whether a 32-bit shift by a count of 0 clears the upper half is not spelled
	 * out the same way by every vendor; make it explicit. */
	if (!is64)
		zext32(b, d);
}

static void emit_end(struct jit_buf *b, const struct bpf_insn *in, unsigned d)
{
	/* ALU64 END is the unconditional bswap; to_be swaps on this little-endian host. */
	bool swap = BPF_CLASS(in->code) == BPF_ALU64 || BPF_SRC(in->code) == BPF_TO_BE;

	switch (in->imm) {
	case 16:
		if (swap) {
			/* bswap r32 then shr 16: no 16-bit partial-register write */
			x86_bswap(b, false, d);
			x86_shift_imm(b, false, SH_SHR, d, 16);
		} else {
			x86_rr(b, 0, 0x0fb7, d, d); /* movzx r32, r16 */
		}
		break;
	case 32:
		if (swap)
			x86_bswap(b, false, d);
		else
			zext32(b, d);
		break;
	case 64:
		if (swap)
			x86_bswap(b, true, d);
		break;
	}
}

static int emit_alu(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	struct jit_buf *b = &c->buf;
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X;
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg], w = is64 ? XF_W : 0;
	uint8_t op = BPF_OP(in->code);

	if (c->blind && !x && op != BPF_END && op != BPF_NEG) {
		/* Blinded: the constant goes through a scratch register and the register form
		 * does the work (the divisor's is r11, which the division expects; r10 is
		 * saved rax there). */
		if (op == BPF_MOV) {
			emit_blinded_imm(c, i, d, in->imm, is64);
			return 0;
		}
		if (op == BPF_DIV || op == BPF_MOD) {
			emit_blinded_imm(c, i, X_R11, in->imm, is64);
			emit_divmod(b, in, true);
			return 0;
		}
		emit_blinded_imm(c, i, X_R10, in->imm, is64);
		x = true;
		s = X_R10;
	}

	switch (op) {
	case BPF_MOV:
		if (!x) {
			if (is64)
				x86_mov_imm64(b, d, (uint64_t)(int64_t)in->imm);
			else
				x86_mov_imm32(b, d, (uint32_t)in->imm);
		} else if (in->off == 0) {
			if (!is64 || d != s) /* mov r32, r32 to itself still zero-extends */
				x86_mov_rr(b, is64, d, s);
		} else if (in->off == 8) {
			x86_rr(b, w | XF_BRM, 0x0fbe, d, s); /* movsx r, r8 */
		} else if (in->off == 16) {
			x86_rr(b, w, 0x0fbf, d, s); /* movsx r, r16 */
		} else if (in->off == 32 && is64) {
			x86_rr(b, XF_W, 0x63, d, s); /* movsxd */
		} else {
			return jit_refuse(c, i, "unsupported movsx offset %d", in->off);
		}
		return 0;
	case BPF_ADD:
	case BPF_SUB:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
		if (x)
			x86_alu_rr(b, is64, alu_op(op), d, s);
		else
			emit_alu_imm(b, is64, op, d, in->imm);
		return 0;
	case BPF_MUL:
		if (x)
			x86_rr(b, w, 0x0faf, d, s); /* imul d, s: the low half is the same as mul's */
		else
			emit_mul_imm(b, is64, d, in->imm);
		return 0;
	case BPF_DIV:
	case BPF_MOD:
		emit_divmod(b, in, false);
		return 0;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH: {
		enum x86_shift sh = op == BPF_LSH ? SH_SHL : op == BPF_RSH ? SH_SHR : SH_SAR;

		if (x) {
			emit_shift_reg(c, is64, sh, d, s);
		} else {
			uint8_t n = (uint8_t)((uint32_t)in->imm & (is64 ? 63u : 31u));
			if (n)
				x86_shift_imm(b, is64, sh, d, n);
			else if (!is64)
				zext32(b, d);
		}
		return 0;
	}
	case BPF_NEG:
		x86_rr(b, w, 0xf7, 3, d);
		return 0;
	case BPF_END:
		emit_end(b, in, d);
		return 0;
	}
	return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
}

/* --- memory ---------------------------------------------------------------------- */

/* The registers a call of host code may clobber that hold BPF state across instructions
 * (R0-R5, and r9, the entry's tail-call counter), plus r10 to keep the count even: rsp
 * stays aligned as at a helper call. */
static const uint8_t probe_saved[] = { X_RAX, X_RDI, X_RSI, X_RDX, X_RCX, X_R8, X_R9, X_R10 };

static void emit_host_call(struct jit_ctx *c, uintptr_t target);

/* LDX | KBPF_PROBE_MEM: dst = kbpf_probe_load(src + off, size), every register but dst
 * as it was (a load, not a call, for the program). */
static void emit_probe_load(struct jit_ctx *c, const struct bpf_insn *in)
{
	static const uint8_t bytes[4] = { 4, 2, 1, 8 }; /* by BPF_SIZE >> 3: W, H, B, DW */
	struct jit_buf *b = &c->buf;
	size_t n = sizeof(probe_saved);

	for (size_t k = 0; k < n; k++)
		x86_push(b, probe_saved[k]);
	x86_rm(b, XF_W, 0x8d, X_RDI, jit_reg[in->src_reg], in->off); /* lea rdi, [src + off] */
	x86_mov_imm32(b, X_RSI, bytes[BPF_SIZE(in->code) >> 3]);
	emit_host_call(c, (uintptr_t)&kbpf_probe_load);
	x86_mov_rr(b, true, X_R11, X_RAX);
	for (size_t k = n; k-- > 0;)
		x86_pop(b, probe_saved[k]);
	x86_mov_rr(b, true, jit_reg[in->dst_reg], X_R11);
}

static int emit_ldx(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	bool sx = BPF_MODE(in->code) == BPF_MEMSX;
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg];
	struct jit_buf *b = &c->buf;

	if (BPF_MODE(in->code) == KBPF_PROBE_MEM) {
		emit_probe_load(c, in);
		return 0;
	}

	switch (BPF_SIZE(in->code)) {
	case BPF_B: x86_rm(b, sx ? XF_W : 0, sx ? 0x0fbe : 0x0fb6, d, s, in->off); return 0;
	case BPF_H: x86_rm(b, sx ? XF_W : 0, sx ? 0x0fbf : 0x0fb7, d, s, in->off); return 0;
	case BPF_W: x86_rm(b, sx ? XF_W : 0, sx ? 0x63 : 0x8b, d, s, in->off); return 0;
	case BPF_DW:
		if (!sx) {
			x86_rm(b, XF_W, 0x8b, d, s, in->off);
			return 0;
		}
	}
	return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
}

static int emit_store(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg];
	struct jit_buf *b = &c->buf;

	if (BPF_CLASS(in->code) == BPF_ST && c->blind) {
		/* the constant through r10, then stored as a register */
		emit_blinded_imm(c, i, X_R10, in->imm, BPF_SIZE(in->code) == BPF_DW);
		s = X_R10;
	} else if (BPF_CLASS(in->code) == BPF_ST) {
		switch (BPF_SIZE(in->code)) {
		case BPF_B: x86_rm(b, 0, 0xc6, 0, d, in->off); jb_byte(b, (uint8_t)in->imm); break;
		case BPF_H: x86_rm(b, XF_66, 0xc7, 0, d, in->off); jb_imm16(b, (uint16_t)in->imm); break;
		case BPF_W: x86_rm(b, 0, 0xc7, 0, d, in->off); jb_imm32(b, (uint32_t)in->imm); break;
		case BPF_DW: x86_rm(b, XF_W, 0xc7, 0, d, in->off); jb_imm32(b, (uint32_t)in->imm); break;
		}
		return 0;
	}
	switch (BPF_SIZE(in->code)) {
	case BPF_B: x86_rm(b, XF_BREG, 0x88, s, d, in->off); break;
	case BPF_H: x86_rm(b, XF_66, 0x89, s, d, in->off); break;
	case BPF_W: x86_rm(b, 0, 0x89, s, d, in->off); break;
	case BPF_DW: x86_rm(b, XF_W, 0x89, s, d, in->off); break;
	}
	return 0;
}

/* and/or/xor with fetch have no single x86 instruction: a lock cmpxchg loop. rax (R0)
 * is cmpxchg's comparand, so R0 is parked in r10 and the operands that were rax are
 * read from there. */
static void emit_atomic_fetch_logic(struct jit_buf *b, bool is64, enum x86_alu op, unsigned d, unsigned s,
				    int16_t off)
{
	unsigned w = is64 ? XF_W : 0, base = d == X_RAX ? X_R10 : d, val = s == X_RAX ? X_R10 : s;
	size_t loop;

	x86_mov_rr(b, true, X_R10, X_RAX);
	x86_rm(b, w, 0x8b, X_RAX, base, off); /* the current value */
	loop = b->len;
	x86_mov_rr(b, true, X_R11, X_RAX);
	x86_alu_rr(b, is64, op, X_R11, val);
	x86_rm(b, w | XF_LOCK, 0x0fb1, X_R11, base, off); /* lock cmpxchg [base+off], r11 */
	x86_jcc8(b, CC_NE, (int8_t)((int64_t)loop - (int64_t)(b->len + X86_JCC8_LEN)));
	/* rax holds the old value (zero-extended for 32 bits): it goes to src */
	if (s != X_RAX) {
		x86_mov_rr(b, true, s, X_RAX);
		x86_mov_rr(b, true, X_RAX, X_R10);
	}
}

static int emit_atomic(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	bool is64 = BPF_SIZE(in->code) == BPF_DW;
	unsigned d = jit_reg[in->dst_reg], s = jit_reg[in->src_reg], w = is64 ? XF_W : 0;
	struct jit_buf *b = &c->buf;

	if (BPF_SIZE(in->code) != BPF_W && !is64)
		return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
	switch (in->imm) {
	case BPF_ADD: x86_rm(b, w | XF_LOCK, 0x01, s, d, in->off); return 0;
	case BPF_OR: x86_rm(b, w | XF_LOCK, 0x09, s, d, in->off); return 0;
	case BPF_AND: x86_rm(b, w | XF_LOCK, 0x21, s, d, in->off); return 0;
	case BPF_XOR: x86_rm(b, w | XF_LOCK, 0x31, s, d, in->off); return 0;
	case BPF_ADD | BPF_FETCH:
		x86_rm(b, w | XF_LOCK, 0x0fc1, s, d, in->off); /* lock xadd: 32-bit form zero-extends s */
		return 0;
	case BPF_OR | BPF_FETCH: emit_atomic_fetch_logic(b, is64, ALU_OR, d, s, in->off); return 0;
	case BPF_AND | BPF_FETCH: emit_atomic_fetch_logic(b, is64, ALU_AND, d, s, in->off); return 0;
	case BPF_XOR | BPF_FETCH: emit_atomic_fetch_logic(b, is64, ALU_XOR, d, s, in->off); return 0;
	case BPF_XCHG:
		x86_rm(b, w, 0x87, s, d, in->off); /* xchg with memory is always locked */
		return 0;
	case BPF_CMPXCHG:
		x86_rm(b, w | XF_LOCK, 0x0fb1, s, d, in->off);
		/* A successful 32-bit cmpxchg leaves rax unwritten, upper half included. */
		if (!is64)
			zext32(b, X_RAX);
		return 0;
	}
	return jit_refuse(c, i, "unsupported atomic operation 0x%02x", in->imm);
}

/* --- calls ------------------------------------------------------------------------ */

/* A call of host code at an absolute address: call rel32 when the address is within
 * reach of every byte of the (placed) mapping, so the choice does not depend on where in
 * it the call lands and the layout can converge; else movabs rax + call rax (before
 * placement, and for code more than 2 GiB away). rax is R0, which the call clobbers. */
static void emit_host_call(struct jit_ctx *c, uintptr_t target)
{
	struct jit_buf *b = &c->buf;
	int64_t lo = (int64_t)(target - c->base), hi = lo - (int64_t)c->base_size;

	if (c->base && fits_s32(lo) && fits_s32(hi)) {
		x86_call32(b, (int32_t)((int64_t)target - (int64_t)(c->base + b->len + X86_CALL32_LEN)));
	} else {
		x86_mov_imm64(b, X_RAX, (uint64_t)target);
		x86_call_reg(b, X_RAX);
	}
	if (!c->near)
		c->near = target;
}

/* A kfunc call: R1..R5 are the SysV argument registers already; each is narrowed in
 * place (the call clobbers them anyway) to its BTF parameter, then one call, then R0 is
 * extended from the BTF return type (void: 0, as the interpreter gives). */
static int emit_kfunc_call(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	const struct kbpf_kfunc_desc *k = kbpf_prog_kfunc_find(c->prog, (uint32_t)in->imm);
	struct jit_buf *b = &c->buf;

	if (!k) /* create pins every kfunc it calls before the JIT runs */
		return jit_refuse(c, i, "kfunc btf id %d is not pinned by the program", in->imm);
	for (unsigned a = 0; a < k->model.nr_args && a < KBPF_KFUNC_MAX_ARGS; a++)
		/* what a C caller does to a narrow argument: SysV leaves the upper bits to the
		 * caller, and clang's callees rely on the extension */
		x86_extend(b, jit_reg[BPF_REG_1 + a], k->model.arg_size[a],
			   k->model.arg_flags[a] & KBPF_FMODEL_SIGNED);
	emit_host_call(c, (uintptr_t)k->addr);
	if (k->model.ret_size)
		x86_extend(b, X_RAX, k->model.ret_size, k->model.ret_flags & KBPF_FMODEL_SIGNED);
	else
		x86_mov_imm32(b, X_RAX, 0);
	return 0;
}

/* A forward jcc rel32 whose target is not emitted yet (for skips that may pass 127
 * bytes): returns where its rel32 lies, for patch32_here. */
static size_t jfwd32(struct jit_buf *b, enum x86_cc cc)
{
	x86_jcc32(b, cc, 0);
	return b->len - 4;
}

static void patch32_here(struct jit_buf *b, size_t at)
{
	int32_t rel = (int32_t)(b->len - (at + 4));

	if (!b->err)
		memcpy(b->p + at, &rel, sizeof(rel));
}

/* After a call of kbpf_jit_tail_call or kbpf_jit_tail_interp (rax:rdx, struct
 * kbpf_jit_ret): fall through on KBPF_JIT_TAIL_FALLTHROUGH, stop the run on an errno,
 * else return the target's R0 as this function's. */
static void emit_tail_nested_result(struct jit_ctx *c, size_t f)
{
	struct jit_buf *b = &c->buf;
	size_t to_next;

	x86_alu_imm(b, true, ALU_CMP, X_RDX, KBPF_JIT_TAIL_FALLTHROUGH);
	to_next = jfwd32(b, CC_E);
	x86_mov_rr(b, false, X_R11, X_RDX);
	x86_test_rr(b, true, X_RDX, X_RDX);
	x86_jcc32(b, CC_NE, rel_from_here(c, c->prev.abort_err, X86_JCC32_LEN));
	emit_restore_and_ret(c, &c->funcs[f], f == 0);
	patch32_here(b, to_next);
}

/* bpf_tail_call(R1 ctx, R2 map, R3 index) in the main function: the target replaces
 * this function, as in Linux. kbpf_jit_tail_lookup counts the call and finds the target
 * (R1 saved around it); a JIT-compiled one is entered with a jump to its struct entry
 * after this function's frame is gone, so the native stack does not grow however long
 * the chain: r9 carries the count (2 * count + 1 when it lived in this frame, else the
 * pointer to the nested run's state), and the target's depth is this one's. A target
 * the JIT did not take runs nested on the interpreter (kbpf_jit_tail_interp). R2-R5
 * reach the target zero, as they reach every main function from kbpf_jit_tail_call. */
static void emit_tail_call_main(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;
	size_t not_jit, keep;

	x86_rm(b, XF_W, 0x8b, X_RCX, X_RBP, c->tail_ptr_off); /* mov rcx, [rbp + ptr] */
	x86_push(b, X_RDI);
	x86_push(b, X_RDI); /* twice: rsp stays 16-byte aligned at the call */
	emit_host_call(c, (uintptr_t)&kbpf_jit_tail_lookup);
	x86_pop(b, X_RDI);
	x86_pop(b, X_RDI);
	x86_test_rr(b, true, X_RAX, X_RAX);
	not_jit = jfwd32(b, CC_E);
	/* r9 = the count's pointer, or the count itself when it is in this frame */
	x86_rm(b, XF_W, 0x8b, X_R9, X_RBP, c->tail_ptr_off);
	x86_rm(b, XF_W, 0x8d, X_R10, X_RBP, c->tail_cnt_off);
	x86_alu_rr(b, true, ALU_CMP, X_R9, X_R10);
	keep = x86_jfwd8(b, CC_NE);
	x86_rm(b, 0, 0x8b, X_R9, X_R10, 0);       /* mov r9d, [r10] */
	x86_alu_rr(b, false, ALU_ADD, X_R9, X_R9); /* 2 * count + 1 */
	x86_alu_imm(b, false, ALU_OR, X_R9, 1);
	x86_patch8(b, keep);
	x86_mov_imm32(b, X_RSI, 0);
	x86_mov_imm32(b, X_RDX, 0);
	x86_mov_imm32(b, X_RCX, 0);
	x86_mov_imm32(b, X_R8, 0);
	emit_restore(c, &c->funcs[0]);
	x86_rr(b, 0, 0xff, 4, X_RAX); /* jmp rax: the target's struct entry (endbr64) */
	patch32_here(b, not_jit);
	/* rdx: the target for the interpreter, or NULL to fall through */
	x86_test_rr(b, true, X_RDX, X_RDX);
	keep = jfwd32(b, CC_E);
	x86_mov_rr(b, true, X_RSI, X_RDX);
	x86_rm(b, XF_W, 0x8b, X_RDX, X_RBP, c->tail_ptr_off);
	x86_rr(b, XF_BRM, 0x0fb6, X_RCX, X_DEPTH); /* movzx ecx, r12b: the depth */
	emit_host_call(c, (uintptr_t)&kbpf_jit_tail_interp);
	emit_tail_nested_result(c, 0);
	patch32_here(b, keep);
}

/* bpf_tail_call in a subprogram: kbpf_jit_tail_call runs the target as a nested run
 * that starts at this function's depth (r8: bits 0-7 of r12), so the frames it can add
 * are the ones the interpreter, whose target continues in the subprogram's frame, would
 * allow; the run's count is found in the main frame, the frames below it that r12 says.
 * The target's R0 is this subprogram's (Linux: the target replaces the subprogram). */
static void emit_tail_call_sub(struct jit_ctx *c, size_t f)
{
	struct jit_buf *b = &c->buf;
	size_t loop;

	x86_mov_rr(b, true, X_RCX, X_RBP);
	emit_frames_up(b, X_R11, X_R10);
	loop = b->len;
	x86_rm(b, XF_W, 0x8b, X_RCX, X_RCX, c->link); /* mov rcx, [rcx + link]: the caller's rbp */
	x86_rr(b, 0, 0xff, 1, X_R11);                 /* dec r11d */
	x86_jcc8(b, CC_NE, (int8_t)((int64_t)loop - (int64_t)(b->len + X86_JCC8_LEN)));
	x86_rm(b, XF_W, 0x8b, X_RCX, X_RCX, c->tail_ptr_off);
	x86_rr(b, XF_BRM, 0x0fb6, X_R8, X_DEPTH); /* movzx r8d, r12b */
	emit_host_call(c, (uintptr_t)&kbpf_jit_tail_call);
	emit_tail_nested_result(c, f);
}

static int emit_tail_call(struct jit_ctx *c, size_t f)
{
	if (f == 0)
		emit_tail_call_main(c);
	else
		emit_tail_call_sub(c, f);
	return 0;
}

static int emit_call(struct jit_ctx *c, size_t f, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	struct jit_buf *b = &c->buf;

	(void)f;
	if (BPF_SRC(in->code) == BPF_X) {
		/* callx: the helper id is only known now; look it up in the table after the
		 * code, an unknown id stops the program with -EINVAL like the interpreter. */
		x86_mov_rr(b, true, X_R11, jit_reg[in->dst_reg]);
		x86_alu_imm(b, true, ALU_CMP, X_R11, (int32_t)c->nr_callx);
		x86_jcc32(b, CC_AE, rel_from_here(c, c->prev.abort_einval, X86_JCC32_LEN));
		/* lea r10, [rip + table] */
		jb_byte(b, 0x4c), jb_byte(b, 0x8d), jb_byte(b, 0x15);
		jb_imm32(b, (uint32_t)rel_from_here(c, c->prev.table, 4));
		/* mov rax, [r10 + r11*8] */
		jb_byte(b, 0x4b), jb_byte(b, 0x8b), jb_byte(b, 0x04), jb_byte(b, 0xda);
		x86_test_rr(b, true, X_RAX, X_RAX);
		x86_jcc32(b, CC_E, rel_from_here(c, c->prev.abort_einval, X86_JCC32_LEN));
		x86_call_reg(b, X_RAX);
		return 0;
	}
	if (kbpf_insn_is_tail_call(c->prog->host, in))
		return emit_tail_call(c, f);
	switch (in->src_reg) {
	case 0: {
		kbpf_helper_fn fn = kbpf_host_helper_find(c->prog->host, in->imm, NULL);

		if (!fn) {
			snprintf(c->err, c->err_size, "insn %zu: call to unknown helper #%d", i, in->imm);
			return -EINVAL;
		}
		/* Absolute: the host's code can be anywhere relative to this mapping. R1-R5
		 * already sit in the argument registers, R0 receives rax. */
		emit_host_call(c, (uintptr_t)fn);
		return 0;
	}
	case BPF_PSEUDO_CALL: {
		size_t callee = c->func_of[i + 1 + in->imm];

		x86_call32(b, rel_from_here(c, c->prev.entry[callee], X86_CALL32_LEN));
		return 0;
	}
	case BPF_PSEUDO_KFUNC_CALL:
		if (in->imm == 0) {
			/* An unresolved __weak kfunc: reaching it stops the run, as in the
			 * interpreter. */
			x86_jmp32(b, rel_from_here(c, c->prev.abort_einval, X86_JMP32_LEN));
			return 0;
		}
		return emit_kfunc_call(c, i);
	}
	return jit_refuse(c, i, "call with src_reg %d is not supported", in->src_reg);
}

/* LD_ABS / LD_IND (interp_body.h has the semantics): rax = the program type's hook with
 * rdi = R6 (the context, as the verifier guarantees), esi = the offset (imm, or src + imm
 * in 32 bits) and edx = the size; NULL returns 0 from this function (rax is 0 already:
 * straight to its epilogue, as its exit would), else R0 = the big-endian value at rax.
 * The call clobbers R1-R5, as Linux's call of bpf_skb_load_helper_* does. */
static int emit_ld_abs(struct jit_ctx *c, size_t f, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	struct jit_buf *b = &c->buf;
	kbpf_ld_abs_fn hook = c->prog->ld_abs;

	if (!hook) /* create refuses such a program before the JIT sees it */
		return jit_refuse(c, i, "LD_ABS/LD_IND need a program type with a packet hook");
	switch (BPF_SIZE(in->code)) {
	case BPF_B:
	case BPF_H:
	case BPF_W:
		break;
	default:
		return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
	}
	if (BPF_MODE(in->code) == BPF_IND) {
		/* the offset first: src may be R1 (rdi) or R3 (rdx), overwritten next */
		x86_mov_rr(b, false, X_RSI, jit_reg[in->src_reg]);
		if (in->imm && c->blind) {
			emit_blinded_imm(c, i, X_R10, in->imm, false);
			x86_alu_rr(b, false, ALU_ADD, X_RSI, X_R10);
		} else if (in->imm) {
			x86_alu_imm(b, false, ALU_ADD, X_RSI, in->imm);
		}
	} else if (c->blind) {
		emit_blinded_imm(c, i, X_RSI, in->imm, false);
	} else {
		x86_mov_imm32(b, X_RSI, (uint32_t)in->imm);
	}
	x86_mov_rr(b, true, X_RDI, jit_reg[BPF_REG_6]);
	x86_mov_imm32(b, X_RDX, BPF_SIZE(in->code) == BPF_B ? 1 : BPF_SIZE(in->code) == BPF_H ? 2 : 4);
	emit_host_call(c, (uintptr_t)hook);
	x86_test_rr(b, true, X_RAX, X_RAX);
	x86_jcc32(b, CC_E, rel_from_here(c, c->prev.epi[f], X86_JCC32_LEN));
	switch (BPF_SIZE(in->code)) {
	case BPF_B:
		x86_rm(b, 0, 0x0fb6, X_RAX, X_RAX, 0); /* movzx eax, byte [rax] */
		break;
	case BPF_H:
		x86_rm(b, 0, 0x0fb7, X_RAX, X_RAX, 0); /* movzx eax, word [rax] */
		x86_bswap(b, false, X_RAX);           /* then the swap as emit_end does it */
		x86_shift_imm(b, false, SH_SHR, X_RAX, 16);
		break;
	default:
		x86_rm(b, 0, 0x8b, X_RAX, X_RAX, 0); /* mov eax, [rax] */
		x86_bswap(b, false, X_RAX);
		break;
	}
	return 0;
}

/* --- one instruction --------------------------------------------------------------- */

/* "rX = rY; rX += imm" (how compiled code makes pointers, e.g. r3 = r10; r3 += -248)
 * as one lea, when nothing jumps between the two. */
static bool fuse_mov_add(struct jit_ctx *c, size_t f, size_t i)
{
	const struct bpf_insn *mov = &c->insns[i], *add = mov + 1;
	int64_t imm;

	/* blinded: the lea's displacement would be the program's constant */
	if (c->blind || mov->code != (BPF_ALU64 | BPF_MOV | BPF_X) || mov->off || mov->dst_reg == mov->src_reg ||
	    i + 1 >= c->funcs[f].end || c->jump_target[i + 1] || add->dst_reg != mov->dst_reg)
		return false;
	if (add->code == (BPF_ALU64 | BPF_ADD | BPF_K))
		imm = add->imm;
	else if (add->code == (BPF_ALU64 | BPF_SUB | BPF_K))
		imm = -(int64_t)add->imm;
	else
		return false;
	if (!fits_s32(imm))
		return false;
	x86_rm(&c->buf, XF_W, 0x8d, jit_reg[mov->dst_reg], jit_reg[mov->src_reg], (int32_t)imm);
	return true;
}

/* The verifier's dead-code filler (prog_internal.h): report the instruction, then stop
 * the run with KBPF_RUN_DEAD_CODE through the abort stub, as the interpreter does. */
static int emit_dead_stop(struct jit_ctx *c, size_t i)
{
	struct jit_buf *b = &c->buf;

	x86_mov_imm64(b, X_RDI, (uint64_t)(uintptr_t)c->prog);
	x86_mov_imm32(b, X_RSI, (uint32_t)i);
	emit_host_call(c, (uintptr_t)&kbpf_prog_dead_code_reached);
	x86_mov_imm32(b, X_R11, (uint32_t)KBPF_RUN_DEAD_CODE);
	x86_jmp32(b, rel_from_here(c, c->prev.abort_err, X86_JMP32_LEN));
	return 0;
}

/* may_goto with its counter at [rbp + imm] (verifier/grow.c gives the slot): count down
 * while above 0, else jump. sub sets CF when the counter was 0 and adc puts the borrow
 * back, so a spent counter stays 0 and CF says "jump", the jcc last as emit_jump needs. */
static int emit_may_goto(struct jit_ctx *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	struct jit_buf *b = &c->buf;

	if (in->imm >= 0)
		return jit_refuse(c, i, "may_goto without its counter slot: only a verified program can run it");
	x86_rm(b, XF_W, 0x83, 5, X_RBP, in->imm); /* sub qword [rbp + slot], 1 */
	jb_byte(b, 1);
	x86_rm(b, XF_W, 0x83, 2, X_RBP, in->imm); /* adc qword [rbp + slot], 0 */
	jb_byte(b, 0);
	emit_jump(c, i, CC_B, c->prev.start[i + 1 + in->off]);
	return 0;
}

static int emit_one(struct jit_ctx *c, size_t f, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	uint8_t op = BPF_OP(in->code);

	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return emit_alu(c, i);
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_JA && kbpf_prog_insn_is_dead_stop(c->prog, i))
			return emit_dead_stop(c, i);
		if (op == BPF_JA) {
			int32_t off = BPF_CLASS(in->code) == BPF_JMP ? in->off : in->imm;
			emit_jump(c, i, -1, c->prev.start[i + 1 + off]);
			return 0;
		}
		if (op == BPF_EXIT && BPF_CLASS(in->code) == BPF_JMP) {
			emit_jump(c, i, -1, c->prev.epi[f]);
			return 0;
		}
		if (op == BPF_CALL && BPF_CLASS(in->code) == BPF_JMP)
			return emit_call(c, f, i);
		if (op == KBPF_JCOND && BPF_CLASS(in->code) == BPF_JMP)
			return emit_may_goto(c, i);
		return emit_cond_jump(c, i);
	case BPF_LD:
		if (in->code == KBPF_LDDW_CODE) {
			uint64_t v;
			int ret = kbpf_prog_ldimm64_value(c->prog, i, &v, c->err, c->err_size);

			if (ret)
				return ret;
			if (c->blind)
				emit_blinded_imm64(c, i, jit_reg[in->dst_reg], v);
			else
				x86_mov_imm64(&c->buf, jit_reg[in->dst_reg], v);
			return 0;
		}
		if (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND)
			return emit_ld_abs(c, f, i);
		break;
	case BPF_LDX:
		return emit_ldx(c, i);
	case BPF_ST:
		if (BPF_MODE(in->code) == BPF_MEM)
			return emit_store(c, i);
		break;
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_MEM)
			return emit_store(c, i);
		if (BPF_MODE(in->code) == BPF_ATOMIC)
			return emit_atomic(c, i);
		break;
	}
	return jit_refuse(c, i, "unsupported opcode 0x%02x", in->code);
}

/* Budget mode: a jump to itself or backwards (a loop's back edge, in any program)
 * spends one unit before it runs, taken or not, as the interpreter counts. */
static bool is_back_edge(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	int64_t off;

	if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_EXIT || op == BPF_CALL)
		return false;
	off = op == BPF_JA && cls == BPF_JMP32 ? in->imm : in->off;
	return off < 0;
}

int jit_emit_insn(struct jit_ctx *c, size_t f, size_t i)
{
	int ret;

	if (c->budget && is_back_edge(&c->insns[i]) && !kbpf_prog_insn_is_dead_stop(c->prog, i))
		emit_budget_spend(c, 1 << JIT_BUDGET_SHIFT);

	if (fuse_mov_add(c, f, i))
		return 2;
	if (fuse_jcc_ja(c, f, i, &ret))
		return ret ? ret : 2;
	ret = emit_one(c, f, i);
	if (ret)
		return ret;
	return c->insns[i].code == KBPF_LDDW_CODE ? 2 : 1;
}
