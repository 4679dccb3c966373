/* SPDX-License-Identifier: Apache-2.0 */
/* The JIT driver: split the program into functions, decide each function's frame,
 * emit the whole program pass after pass until the code layout stops changing (jumps
 * shrink to their rel8 form as distances become known), then install the code in
 * read+exec memory. Also the public accessors of <kbpf/prog.h> about the JIT. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include "exec/jit_ctx.h"
#include "exec/tail_call.h"
#include "host/host_internal.h"

/* Sizes only ever shrink from the all-long first pass, so this is plenty; a program
 * that has not converged by then stays on the interpreter. */
#define JIT_MAX_PASSES 32
/* callx looks helpers up in a dense table indexed by id; ids above this are refused. */
#define JIT_MAX_CALLX_ID 65535

bool kbpf_jit_arch_supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

/* A fresh random seed per compile: blinding keys and the guard canary derive from it,
 * so neither can be predicted from the program or from another program's code. */
static void jit_seed(struct jit_ctx *c)
{
	uint64_t seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
		/* no entropy yet (early boot): still unpredictable enough to differ per program */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)c;
	}
	c->seed = seed;
	c->canary = jit_key64(c, SIZE_MAX);
}

/* --- analysis ------------------------------------------------------------------- */

static bool is_lddw(const struct bpf_insn *in)
{
	return in->code == KBPF_LDDW_CODE;
}

/* LD_ABS / LD_IND: a call of the program type's packet hook. */
static bool is_ld_abs(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_LD && (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND);
}

static bool is_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) || in->code == (BPF_JMP | BPF_CALL | BPF_X) || is_ld_abs(in);
}

static bool is_local_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

/* The BPF registers insn names as operands (bit n: Rn). */
static uint16_t insn_regs(const struct bpf_insn *in)
{
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return (uint16_t)(1u << in->dst_reg | (x && op != BPF_END ? 1u << in->src_reg : 0));
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_JA || op == BPF_EXIT)
			return 0;
		if (op == BPF_CALL)
			return x ? (uint16_t)(1u << in->dst_reg) : 0;
		return (uint16_t)(1u << in->dst_reg | (x ? 1u << in->src_reg : 0));
	case BPF_LD:
		if (is_ld_abs(in)) /* R0 = load(R6, off [+ src]) */
			return (uint16_t)(1u << BPF_REG_0 | 1u << BPF_REG_6 |
					  (BPF_MODE(in->code) == BPF_IND ? 1u << in->src_reg : 0));
		return (uint16_t)(1u << in->dst_reg);
	case BPF_ST:
		return (uint16_t)(1u << in->dst_reg);
	default: /* LDX, STX */
		return (uint16_t)(1u << in->dst_reg | 1u << in->src_reg);
	}
}

/* Where a jump at i goes, or -1 for an instruction that does not jump. */
static int64_t jump_target(const struct bpf_insn *in, size_t i)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_EXIT || op == BPF_CALL)
		return -1;
	return (int64_t)i + 1 + (op == BPF_JA && cls == BPF_JMP32 ? in->imm : in->off);
}

/* Callee-saved native registers of R6..R9 in the mask used. */
static unsigned callee_saved(uint16_t used, uint8_t *push)
{
	unsigned n = 0;

	for (unsigned r = BPF_REG_6; r <= BPF_REG_9; r++)
		if (used & (1u << r))
			push[n++] = jit_reg[r];
	return n;
}

/* Split into functions: the main program and every BPF-to-BPF call target. Each
 * becomes a native function, so control may not cross from one into another except
 * by call and exit (Linux's verifier insists on the same). */
static int find_functions(struct jit_ctx *c)
{
	size_t n = c->cnt, nr = 0;
	bool *starts = calloc(n, sizeof(*starts));

	if (!starts)
		return -ENOMEM;
	starts[0] = true;
	for (size_t i = 0; i < n; i += is_lddw(&c->insns[i]) ? 2 : 1) {
		const struct bpf_insn *in = &c->insns[i];

		if (is_local_call(in)) {
			starts[i + 1 + in->imm] = true; /* validation keeps it inside the program */
			c->has_local_calls = true;
		} else if (in->code == (BPF_JMP | BPF_CALL | BPF_X)) {
			c->has_callx = true;
		} else if ((in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL && !in->imm) ||
			   kbpf_prog_insn_is_dead_stop(c->prog, i)) {
			c->has_stop_calls = true;
		} else if (kbpf_insn_is_tail_call(c->prog->host, in)) {
			c->has_tail_calls = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		nr += starts[i];
	c->funcs = calloc(nr, sizeof(*c->funcs));
	if (!c->funcs) {
		free(starts);
		return -ENOMEM;
	}
	for (size_t i = 0, f = 0; i < n; i++) {
		if (starts[i]) {
			if (f)
				c->funcs[f - 1].end = i;
			c->funcs[f++].first = i;
		}
		c->func_of[i] = (uint32_t)(f - 1);
	}
	c->funcs[nr - 1].end = n;
	c->nr_funcs = nr;
	free(starts);
	return 0;
}

/* Registers, calls and control flow of each function; then each frame's shape. */
static int plan_functions(struct jit_ctx *c)
{
	uint16_t all_used = 0;

	/* A tail call's target may stop the run: it needs the stop stubs (and r12). */
	c->need_abort = c->has_local_calls || c->has_callx || c->has_stop_calls || c->has_tail_calls || c->guard ||
			c->budget;
	for (size_t f = 0; f < c->nr_funcs; f++) {
		struct jit_func *fn = &c->funcs[f];
		size_t last = fn->first;

		for (size_t i = fn->first; i < fn->end; i += is_lddw(&c->insns[i]) ? 2 : 1) {
			const struct bpf_insn *in = &c->insns[i];
			int64_t t = jump_target(in, i);

			last = i;
			fn->used |= insn_regs(in);
			fn->calls |= is_call(in) || kbpf_prog_insn_is_dead_stop(c->prog, i); /* it calls the reporter */
			if (t >= 0 && (t < (int64_t)fn->first || t >= (int64_t)fn->end))
				return jit_refuse(c, i, "jump to insn %lld crosses into another function",
						  (long long)t);
			if (t >= 0)
				c->jump_target[t] = true;
			if (t >= 0 && t <= (int64_t)i && c->loop_end[t] < i + 1)
				c->loop_end[t] = (uint32_t)(i + 1);
			if (is_lddw(in) && i + 1 >= fn->end)
				return jit_refuse(c, i, "ld_imm64 split across functions");
		}
		if (BPF_CLASS(c->insns[last].code) != BPF_JMP && BPF_CLASS(c->insns[last].code) != BPF_JMP32)
			return jit_refuse(c, last, "function falls through into the next one");
		if (c->insns[last].code != (BPF_JMP | BPF_EXIT) && BPF_OP(c->insns[last].code) != BPF_JA)
			return jit_refuse(c, last, "function falls through into the next one");
		all_used |= fn->used;
		c->entry_zero_args |= fn->calls; /* a callee reads R1-R5 whatever the program set */
	}
	/* The ctx and run entries zero R2-R5 only for a program that can read them, and the
	 * tail call counter pointer only for one that tail-calls (a few instructions less
	 * in the fixed cost of a run) */
	c->entry_zero_args |= (all_used & (1u << BPF_REG_2 | 1u << BPF_REG_3 | 1u << BPF_REG_4 | 1u << BPF_REG_5)) != 0;

	for (size_t f = 0; f < c->nr_funcs; f++) {
		struct jit_func *fn = &c->funcs[f];
		bool uses_fp = fn->used & (1u << BPF_REG_10);
		unsigned below_ret;

		if (f == 0) {
			/* The main program saves every R6-R9 the program uses (it zeroes them,
			 * as the interpreter does) and r12, the call depth. */
			fn->npush = callee_saved(all_used, fn->push);
			if (c->need_abort)
				fn->push[fn->npush++] = X_R12;
			fn->frame = uses_fp || c->need_abort;
		} else {
			fn->npush = callee_saved(fn->used, fn->push);
			fn->frame = true; /* the abort stub walks the rbp chain */
		}
		fn->stack = uses_fp ? KBPF_STACK_SIZE : 0;
		if (c->guard && uses_fp) {
			fn->guard_lo = -(int32_t)fn->stack - JIT_GUARD_BYTES;
			fn->stack += JIT_GUARD_BYTES;
		}
		if (f == 0 && c->has_tail_calls) {
			/* below the BPF stack: the run's tail call counter and a pointer to it
			 * (this frame's counter, or the one of the run that tail-called us) */
			c->tail_cnt_off = -(int32_t)fn->stack - 8;
			c->tail_ptr_off = -(int32_t)fn->stack - 16;
			fn->stack += 16;
		}
		/* The caller's call left rsp 8 below a 16-byte boundary; calls from here need
		 * it on one. */
		below_ret = (fn->frame ? 8 + (uint32_t)c->link : 0) + fn->stack + 8 * fn->npush;
		if (fn->calls && (8 + below_ret) % 16)
			fn->stack += 8;
	}
	return 0;
}

/* callx's table: every helper of the host by id (NULL where none is registered). */
static int build_callx_table(struct jit_ctx *c)
{
	const struct kbpf_host *host = c->prog->host;
	int32_t max = -1;

	if (!host)
		return 0;
	for (size_t k = 0; k < host->nr_helpers; k++)
		if (host->helpers[k].id > max)
			max = host->helpers[k].id;
	if (max > JIT_MAX_CALLX_ID)
		return jit_refuse(c, 0, "callx with helper ids above %d", JIT_MAX_CALLX_ID);
	if (max < 0)
		return 0;
	c->nr_callx = (size_t)max + 1;
	c->callx_table = calloc(c->nr_callx, sizeof(*c->callx_table));
	if (!c->callx_table)
		return -ENOMEM;
	for (size_t k = 0; k < host->nr_helpers; k++)
		if (host->helpers[k].id >= 0)
			c->callx_table[host->helpers[k].id] = host->helpers[k].fn;
	return 0;
}

/* --- passes ----------------------------------------------------------------------- */

static int layout_alloc(struct jit_layout *l, size_t cnt, size_t nr_funcs)
{
	l->start = calloc(cnt, sizeof(*l->start));
	l->end = calloc(cnt, sizeof(*l->end));
	l->entry = calloc(nr_funcs, sizeof(*l->entry));
	l->epi = calloc(nr_funcs, sizeof(*l->epi));
	l->jform = calloc(cnt, sizeof(*l->jform));
	l->pad = calloc(cnt, sizeof(*l->pad));
	return l->start && l->end && l->entry && l->epi && l->jform && l->pad ? 0 : -ENOMEM;
}

static void layout_free(struct jit_layout *l)
{
	free(l->start);
	free(l->end);
	free(l->entry);
	free(l->epi);
	free(l->jform);
	free(l->pad);
}

static bool layout_equal(const struct jit_layout *a, const struct jit_layout *b, size_t cnt, size_t nr_funcs)
{
	return a->size == b->size && a->abort_depth == b->abort_depth && a->abort_einval == b->abort_einval &&
	       a->abort_err == b->abort_err && a->abort_fault == b->abort_fault && a->abort_time == b->abort_time &&
	       a->table == b->table && !memcmp(a->start, b->start, cnt * sizeof(*a->start)) &&
	       !memcmp(a->end, b->end, cnt * sizeof(*a->end)) &&
	       !memcmp(a->entry, b->entry, nr_funcs * sizeof(*a->entry)) &&
	       !memcmp(a->epi, b->epi, nr_funcs * sizeof(*a->epi));
}

/* NOP bytes before loop head i, which would start at pos: a loop that fits in one
 * 64-byte window goes into one (to the next window when it would straddle two); a longer
 * innermost loop starts in the middle of a window (32 mod 64), any other longer loop on
 * a 32-byte boundary (docs/jit.md, "Speed": each rule was chosen by timing). Sized with
 * the previous pass (the loop: from its head to the end of its last backward jump);
 * before there is one, the 32-byte rule. */
static size_t loop_pad(const struct jit_ctx *c, size_t i, size_t pos)
{
	size_t size = c->pass0 ? SIZE_MAX : (size_t)(c->prev.end[c->loop_end[i] - 1] - c->prev.start[i]);
	size_t pad;

	if (size <= JIT_LOOP_WINDOW)
		pad = pos % JIT_LOOP_WINDOW + size <= JIT_LOOP_WINDOW ? 0 : JIT_LOOP_WINDOW - pos % JIT_LOOP_WINDOW;
	else if (c->loop_inner[i] && size != SIZE_MAX)
		pad = (JIT_LOOP_WINDOW + JIT_LOOP_WINDOW / 2 - pos % JIT_LOOP_WINDOW) % JIT_LOOP_WINDOW;
	else
		pad = (JIT_LOOP_ALIGN - pos % JIT_LOOP_ALIGN) % JIT_LOOP_ALIGN;
	return pad <= c->align_max ? pad : 0;
}

/* One pass: the whole image into c->buf, offsets into c->cur. */
static int emit_pass(struct jit_ctx *c)
{
	struct jit_buf *b = &c->buf;
	int ret;

	b->len = 0;
	jb_fill(b, 0xcc, JIT_CODE_START);
	jit_emit_entries(c);
	for (size_t f = 0; f < c->nr_funcs; f++) {
		const struct jit_func *fn = &c->funcs[f];

		c->cur.entry[f] = (uint32_t)b->len;
		ret = jit_emit_prologue(c, f);
		if (ret)
			return ret;
		for (size_t i = fn->first; i < fn->end; i++) {
			size_t pad = 0;

			if (c->align_max && c->loop_end[i]) {
				/* frozen passes keep the padding, so that only jumps may still grow */
				pad = c->freeze ? c->prev.pad[i] : loop_pad(c, i, b->len);
				x86_nops(b, pad);
			}
			c->cur.pad[i] = (uint8_t)pad;
			c->cur.start[i] = (uint32_t)b->len;
			ret = jit_emit_insn(c, f, i);
			if (ret < 0)
				return ret;
			c->cur.end[i] = (uint32_t)b->len;
			/* an LDDW's second slot, or the second of a fused pair: no code of its own */
			for (int k = 1; k < ret; k++)
				c->cur.start[i + k] = c->cur.end[i + k] = (uint32_t)b->len;
			i += (size_t)ret - 1;
		}
		c->cur.epi[f] = (uint32_t)b->len;
		jit_emit_epilogue(c, f);
	}
	if (c->need_abort)
		jit_emit_abort_stubs(c);
	c->cur.size = (uint32_t)b->len;
	if (c->has_callx) {
		jb_fill(b, 0xcc, (8 - b->len % 8) % 8);
		c->cur.table = (uint32_t)b->len;
		for (size_t k = 0; k < c->nr_callx; k++)
			jb_imm64(b, (uint64_t)(uintptr_t)c->callx_table[k]);
	}
	if (b->err)
		return b->err;
	if (b->len > INT32_MAX)
		return jit_refuse(c, 0, "program too large for the JIT");
	return 0;
}

/* Emit pass after pass until two layouts agree. Every jump of a pass is sized and aimed
 * with the previous layout; when a pass produces that very layout, the code is right as
 * it stands. Continues from c->prev when called again (after c->base changed). */
static int converge(struct jit_ctx *c)
{
	for (int pass = 0; pass < JIT_MAX_PASSES; pass++) {
		int ret;

		/* Sizes only shrink, but a chain of jumps each waiting for the next one to
		 * shrink can take a pass per jump; from here on nothing shrinks any more, and
		 * every form stays valid because distances never grow. */
		c->freeze = !c->pass0 && c->passes >= JIT_FREEZE_PASSES;
		c->passes++;
		ret = emit_pass(c);

		if (ret)
			return ret;
		if (!c->pass0 && layout_equal(&c->prev, &c->cur, c->cnt, c->nr_funcs))
			return 0;
		struct jit_layout t = c->prev;
		c->prev = c->cur;
		c->cur = t;
		c->pass0 = false;
	}
	return jit_refuse(c, 0, "code layout did not converge in %d passes", JIT_MAX_PASSES);
}

/* converge, and if the loop head padding kept the layout from settling (padding can
 * grow where jumps shrink), once more from scratch without it: alignment is only
 * worth some speed, never a program left on the interpreter. */
static int converge_aligned(struct jit_ctx *c)
{
	int ret = converge(c);

	if (ret == -EOPNOTSUPP && c->align_max) {
		c->align_max = 0;
		c->pass0 = true;
		c->passes = 0;
		if (c->err && c->err_size)
			c->err[0] = 0;
		ret = converge(c);
	}
	return ret;
}

/* Place the code: reserve its mapping first (near the first host function the program
 * calls, else near kbpf itself, which calls the entry; both usually in the host
 * executable), so that the passes can turn host calls within reach into call rel32
 * (code only shrinks, so it still fits), then copy it in and make it read+exec. */
static int place(struct jit_ctx *c, struct kbpf_jit **out)
{
	struct kbpf_jit *jit = calloc(1, sizeof(*jit));
	/* Only host calls depend on where the code lands (everything else is relative to
	 * the code itself, and the mapping keeps the buffer's alignment): without any, the
	 * converged code is final and needs no pass more. */
	bool host_calls = c->near != 0;
	int ret;

	if (!jit)
		return -ENOMEM;
	jit->lines = malloc(c->cnt * sizeof(*jit->lines));
	if (!jit->lines) {
		free(jit);
		return -ENOMEM;
	}
	if (!c->near)
		c->near = (uintptr_t)&kbpf_jit_compile;
	/* room for the padding of every loop head as well: it may grow as calls shrink */
	ret = jit_mem_reserve(c->buf.len + c->nr_loop_heads * c->align_max, c->near, &jit->map, &jit->map_size);
	if (ret) {
		snprintf(c->err, c->err_size, "cannot map executable memory: %s", strerror(-ret));
		goto fail;
	}
	c->base = (uintptr_t)jit->map;
	c->base_size = jit->map_size;
	ret = host_calls ? converge_aligned(c) : 0;
	if (!ret && c->buf.len > jit->map_size)
		ret = jit_refuse(c, 0, "code grew after placement"); /* cannot happen: it only shrinks */
	if (!ret) {
		ret = jit_mem_seal(jit->map, jit->map_size, c->buf.p, c->buf.len);
		if (ret)
			snprintf(c->err, c->err_size, "cannot make JIT memory executable: %s", strerror(-ret));
	}
	if (ret)
		goto fail;
	/* the code starts with the entries (jit_emit_entries: they are its prologue too) */
	jit->code = (const uint8_t *)jit->map + c->run_entry;
	jit->code_size = c->cur.size - c->run_entry;
	/* An object pointer to a function pointer: how every JIT hands out its code. */
	jit->entry = (kbpf_jit_entry_fn)(uintptr_t)((const uint8_t *)jit->map + c->struct_entry);
	jit->func = (kbpf_prog_fn)(uintptr_t)((const uint8_t *)jit->map + c->ctx_entry);
	jit->run = (kbpf_prog_run_fn)(uintptr_t)((const uint8_t *)jit->map + c->run_entry);
	for (size_t i = 0; i < c->cnt; i++) {
		jit->lines[i].start = c->cur.start[i] - c->run_entry;
		jit->lines[i].end = c->cur.end[i] - c->run_entry;
	}
	jit->insn_cnt = c->cnt;
	jit_unwind_register(c, jit);
	*out = jit;
	return 0;
fail:
	jit_mem_release(jit->map, jit->map_size);
	free(jit->lines);
	free(jit);
	return ret;
}

int kbpf_jit_compile(const struct kbpf_prog *prog, unsigned flags, struct kbpf_jit **out, char *err,
		     size_t err_size)
{
	struct jit_ctx c = {
		.prog = prog, .insns = prog->insns, .cnt = prog->insn_cnt, .flags = flags,
		.err = err, .err_size = err_size,
	};
	int ret;

	*out = NULL;
	if (err && err_size)
		err[0] = 0;
	if (!kbpf_jit_arch_supported()) {
		snprintf(err, err_size, "the JIT generates x86-64 code only");
		return -EOPNOTSUPP;
	}
#if defined(__x86_64__)
	c.bmi2 = !(flags & KBPF_JIT_NO_BMI2) && __builtin_cpu_supports("bmi2");
#endif
	c.blind = flags & KBPF_JIT_BLIND;
	c.guard = flags & KBPF_JIT_STACK_GUARD;
	c.budget = prog->run_budget;
	c.link = c.guard ? JIT_GUARD_BYTES : 0;
	if (c.blind || c.guard)
		jit_seed(&c);
	c.func_of = calloc(c.cnt, sizeof(*c.func_of));
	c.jump_target = calloc(c.cnt, sizeof(*c.jump_target));
	c.loop_end = calloc(c.cnt, sizeof(*c.loop_end));
	c.loop_inner = calloc(c.cnt, sizeof(*c.loop_inner));
	ret = c.func_of && c.jump_target && c.loop_end && c.loop_inner ? find_functions(&c) : -ENOMEM;
	if (!ret)
		ret = plan_functions(&c);
	if (!ret && c.has_callx)
		ret = build_callx_table(&c);
	if (!ret)
		ret = layout_alloc(&c.prev, c.cnt, c.nr_funcs);
	if (!ret)
		ret = layout_alloc(&c.cur, c.cnt, c.nr_funcs);
	if (!ret && !(flags & KBPF_JIT_NO_ALIGN)) {
		size_t next = c.cnt; /* the next loop head after i */

		c.align_max = JIT_LOOP_WINDOW - 1;
		for (size_t i = c.cnt; i-- > 0;) {
			if (!c.loop_end[i])
				continue;
			c.nr_loop_heads++;
			c.loop_inner[i] = next >= c.loop_end[i]; /* no other head inside */
			next = i;
		}
	}
	c.pass0 = true;
	if (!ret)
		ret = converge_aligned(&c);
	if (!ret)
		ret = place(&c, out);

	layout_free(&c.prev);
	layout_free(&c.cur);
	free(c.buf.p);
	free(c.callx_table);
	free(c.funcs);
	free(c.func_of);
	free(c.jump_target);
	free(c.loop_end);
	free(c.loop_inner);
	return ret;
}

int kbpf_jit_attach(struct kbpf_prog *prog, unsigned flags, char *err, size_t err_size)
{
	int ret = kbpf_jit_compile(prog, flags, &prog->jit, err, err_size);

	if (!ret)
		prog->run = prog->jit->run;
	return ret;
}

void kbpf_jit_free(struct kbpf_jit *jit)
{
	if (!jit)
		return;
	jit_unwind_deregister(jit);
	jit_mem_release(jit->map, jit->map_size);
	free(jit->lines);
	free(jit);
}

/* --- <kbpf/prog.h> ------------------------------------------------------------------ */

int kbpf_prog_is_jited(const struct kbpf_prog *prog)
{
	return prog && prog->jit;
}

const void *kbpf_prog_jited_code(const struct kbpf_prog *prog, size_t *size)
{
	const struct kbpf_jit *jit = prog ? prog->jit : NULL;

	if (size)
		*size = jit ? jit->code_size : 0;
	return jit ? jit->code : NULL;
}

kbpf_prog_fn kbpf_prog_jited_func(const struct kbpf_prog *prog)
{
	return prog && prog->jit ? prog->jit->func : NULL;
}

const struct kbpf_jited_line *kbpf_prog_jited_line_info(const struct kbpf_prog *prog, size_t *cnt)
{
	const struct kbpf_jit *jit = prog ? prog->jit : NULL;

	if (cnt)
		*cnt = jit ? jit->insn_cnt : 0;
	return jit ? jit->lines : NULL;
}
