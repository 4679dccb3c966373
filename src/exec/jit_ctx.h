/* SPDX-License-Identifier: Apache-2.0 */
/* The JIT's compile-time state, shared by the driver (jit.c: analysis, passes) and the
 * translation of instructions (jit_x86.c). */
#ifndef KBPF_SRC_EXEC_JIT_CTX_H
#define KBPF_SRC_EXEC_JIT_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/host.h>
#include "exec/jit.h"
#include "exec/jit_emit.h"

/* Code before the entries: int3 filler. Keeps them off the start of the mapping
 * (a sanitizer's function-type check reads bytes just before a called function). */
#define JIT_ENTRY_PAD 16
/* A program's code starts this far into its mapping (int3 filler before it, at least
 * JIT_ENTRY_PAD): the main function's three entries (jit_emit_entries), its prologue,
 * its body. On a 64-byte boundary, so that the path of a short program (the entries,
 * the body, the return) lies in as few of the windows the front end fetches in as it
 * can: an empty program's run and ctx paths each in one (docs/jit.md, "Speed"). */
#define JIT_CODE_START 64
/* Loops (from a backward jump's target to the jump) that fit in a 64-byte window are
 * padded with NOPs so that they lie in one; longer ones start in the middle of a window
 * when they hold no other loop, else on a 32-byte boundary: where a loop lies in the
 * windows the CPU fetches and predicts in decides its speed (docs/jit.md, "Branches"
 * and "Speed"). */
#define JIT_LOOP_WINDOW 64
#define JIT_LOOP_ALIGN 32
/* Stack guard mode: canary bytes above R10 (between the frame's BPF stack and its saved
 * rbp) and below the 512-byte BPF stack. 16 keeps the frame's alignment. */
#define JIT_GUARD_BYTES 16
/* Forms of a jump between instructions (jit_layout.jform). */
enum jit_jump_form { JIT_JUMP_NONE, JIT_JUMP_SHORT, JIT_JUMP_LONG };
/* After this many passes jumps stop shrinking (see jit_ctx.freeze). */
#define JIT_FREEZE_PASSES 16
/* Run budget mode: r12 holds the call depth in bits 0-15 and the budget left above. */
#define JIT_BUDGET_SHIFT 16

/* One BPF function: the main program or a subprogram (a BPF-to-BPF call target). Each
 * becomes a native function with its own frame. */
struct jit_func {
	size_t first, end;   /* instructions [first, end) */
	uint16_t used;       /* BPF registers referenced (bit n: Rn) */
	bool calls;          /* calls something: rsp must be 16-byte aligned inside */
	bool frame;          /* push rbp; mov rbp, rsp (R10 = rbp) */
	uint32_t stack;      /* bytes of "sub rsp": the 512-byte BPF stack (if R10 is used) + alignment */
	uint8_t push[6];     /* callee-saved registers pushed after the sub, in push order */
	unsigned npush;
	int32_t guard_lo;    /* stack guard mode: the guard below the BPF stack, from rbp (0: none) */
};

/* Code offsets (from the start of the buffer) of one pass. Jumps are sized from the
 * previous pass's layout; passes repeat until two layouts agree. */
struct jit_layout {
	uint32_t *start, *end; /* per instruction: its first byte, the byte after its last */
	uint32_t *entry, *epi; /* per function: prologue, epilogue */
	uint32_t abort_depth, abort_einval; /* run-time stop stubs: -E2BIG, -EINVAL */
	uint32_t abort_err;    /* the stop stub for the errno in r11d (a tail call's target stopped) */
	uint32_t abort_fault, abort_time; /* hardening: -EFAULT (a stack guard), -ETIME (the budget) */
	uint32_t table;        /* the callx helper table */
	uint8_t *jform;        /* per instruction: its jump's form (enum jit_jump_form) */
	uint8_t *pad;          /* per instruction: NOP bytes before it (loop head alignment) */
	uint32_t size;
};

struct jit_ctx {
	const struct kbpf_prog *prog;
	const struct bpf_insn *insns;
	size_t cnt;
	unsigned flags; /* KBPF_JIT_* */
	bool bmi2;

	struct jit_func *funcs;
	size_t nr_funcs;
	uint32_t *func_of; /* instruction -> function index */
	bool *jump_target; /* some jump lands on the instruction */
	/* per instruction: 1 + the last jump at or after it that lands on it (a loop's
	 * first instruction and its back edge), 0 for none */
	uint32_t *loop_end;
	bool *loop_inner; /* per loop head: no other loop head lies inside its loop */
	/* Loop alignment: the most padding spent on one loop (0: none; turned off when the
	 * layout does not converge with it). */
	unsigned align_max;
	size_t nr_loop_heads;
	bool has_local_calls, has_callx;
	bool has_stop_calls; /* calls of unresolved __weak kfuncs, dead-code stops: they stop the run */
	bool has_tail_calls; /* call 12: bpf_tail_call */
	bool entry_zero_args; /* the entries of a new run zero R2-R5: something may read them */
	int32_t tail_cnt_off, tail_ptr_off; /* their slots in the main frame, from rbp */
	bool need_abort; /* a run-time stop is possible: the depth counter lives in r12 */
	/* hardening (docs/jit.md): blinding keys and the guard canary derive from seed */
	bool blind, guard;
	uint64_t budget; /* run budget (0: none): backward jumps + local calls */
	uint64_t seed, canary;
	int32_t link;    /* where a frame's saved rbp lies, from its rbp (the guard moves it) */

	kbpf_helper_fn *callx_table; /* indexed by helper id */
	uintptr_t near;              /* host code the program calls: the code goes near it */
	/* Where the code will be mapped (0: not known yet, every host call is movabs + call
	 * rax) and how many bytes it may grow to: calls within rel32 reach of the whole
	 * mapping become one call rel32. */
	uintptr_t base;
	size_t base_size;
	size_t nr_callx;

	struct jit_layout prev, cur;
	bool pass0; /* no previous layout yet: every jump between instructions is long */
	/* Passes so far; from JIT_FREEZE_PASSES on, every jump keeps the form it had in the
	 * previous pass, so the layout stops changing and the passes end. */
	unsigned passes;
	bool freeze;
	struct jit_buf buf;

	/* Where the entries start (run_entry first: the start of the code) and where they
	 * lead, the main prologue (offsets in the buffer; the same in every pass: the
	 * entries' code never changes size). */
	uint32_t run_entry, ctx_entry, struct_entry, body;

	char *err;
	size_t err_size;
};

/* jit_unwind.c: describe the placed, sealed code's frames to the unwinder (stack walks
 * from helpers pass through the program), and forget them before the code goes. */
void jit_unwind_register(const struct jit_ctx *c, struct kbpf_jit *jit);
void jit_unwind_deregister(struct kbpf_jit *jit);

/* The native register holding each BPF register (Linux's x86-64 mapping). */
extern const uint8_t jit_reg[12];

/* jit_x86.c: code for one function's entry and exit, one instruction, the stubs.
 * Failures are -EOPNOTSUPP/-EINVAL with the reason in ctx->err. */
/* The main function's three entries (docs/jit.md, "Entries"), from the current end of
 * the buffer to c->body, each falling into the next: run (kbpf_prog_run's signature),
 * ctx (kbpf_prog_fn) and struct (kbpf_jit_entry_fn). */
void jit_emit_entries(struct jit_ctx *c);
int jit_emit_prologue(struct jit_ctx *c, size_t f);
void jit_emit_epilogue(struct jit_ctx *c, size_t f);
/* Returns how many instruction slots it translated (2: an LDDW, or a pair fused into
 * one native instruction) or a negative errno. */
int jit_emit_insn(struct jit_ctx *c, size_t f, size_t i);
void jit_emit_abort_stubs(struct jit_ctx *c);

/* jit_mem.c: executable memory that is never writable and executable at once, in two
 * steps, for code that must know its address while it is generated (direct call rel32 to
 * host functions): reserve a read+write mapping of at least len bytes, placed near the
 * address near if possible (0: anywhere), then copy code (len <= *map_size) into it and
 * make it read+exec. Return 0, or -errno. A failed seal leaves the mapping to
 * jit_mem_release. */
int jit_mem_reserve(size_t len, uintptr_t near, void **map, size_t *map_size);
int jit_mem_seal(void *map, size_t map_size, const uint8_t *code, size_t len);
void jit_mem_release(void *map, size_t map_size);

/* Blinding key of instruction i (SIZE_MAX: the stack guard canary): a mix of the
 * compile's seed, the same in every pass so that code sizes converge. */
uint64_t jit_key64(const struct jit_ctx *c, size_t i);

/* "reason" into ctx->err; returns -EOPNOTSUPP. */
int jit_refuse(struct jit_ctx *c, size_t insn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
