/* SPDX-License-Identifier: Apache-2.0 */
/* The threaded-code loop of the interpreter, written once and included twice by
 * interp.c: with KBPF_INTERP_CHECKED 0 it is the fast loop (no checks, no counting),
 * with 1 the checked loop (memory rules, instruction budget, messages).  Writing the
 * semantics once keeps both modes giving the same results.
 *
 * The includer defines KBPF_INTERP_FN (the function's name) and KBPF_INTERP_CHECKED. */

#ifndef KBPF_INTERP_BODY_ONCE
#define KBPF_INTERP_BODY_ONCE

/* Memory accessors.  memcpy keeps unaligned accesses defined; it compiles to one move. */
static inline uint64_t kbpf_ld8(uint64_t a) { uint8_t v; memcpy(&v, (const void *)(uintptr_t)a, 1); return v; }
static inline uint64_t kbpf_ld16(uint64_t a) { uint16_t v; memcpy(&v, (const void *)(uintptr_t)a, 2); return v; }
static inline uint64_t kbpf_ld32(uint64_t a) { uint32_t v; memcpy(&v, (const void *)(uintptr_t)a, 4); return v; }
static inline uint64_t kbpf_ld64(uint64_t a) { uint64_t v; memcpy(&v, (const void *)(uintptr_t)a, 8); return v; }
static inline void kbpf_st8(uint64_t a, uint8_t v) { memcpy((void *)(uintptr_t)a, &v, 1); }
static inline void kbpf_st16(uint64_t a, uint16_t v) { memcpy((void *)(uintptr_t)a, &v, 2); }
static inline void kbpf_st32(uint64_t a, uint32_t v) { memcpy((void *)(uintptr_t)a, &v, 4); }
static inline void kbpf_st64(uint64_t a, uint64_t v) { memcpy((void *)(uintptr_t)a, &v, 8); }

/* Signed division as RFC 9669 defines it: x / 0 = 0, x % 0 = x, and INT_MIN / -1 (which
 * traps in C and on x86) gives INT_MIN with remainder 0.  Dividing by -1 is negation,
 * done in unsigned arithmetic so it wraps instead of overflowing. */
static inline uint64_t kbpf_sdiv64(uint64_t d, uint64_t s)
{
	if (s == 0)
		return 0;
	if (s == UINT64_MAX)
		return 0 - d;
	return (uint64_t)((int64_t)d / (int64_t)s);
}
static inline uint64_t kbpf_smod64(uint64_t d, uint64_t s)
{
	if (s == 0)
		return d;
	if (s == UINT64_MAX)
		return 0;
	return (uint64_t)((int64_t)d % (int64_t)s);
}
static inline uint32_t kbpf_sdiv32(uint32_t d, uint32_t s)
{
	if (s == 0)
		return 0;
	if (s == UINT32_MAX)
		return 0 - d;
	return (uint32_t)((int32_t)d / (int32_t)s);
}
static inline uint32_t kbpf_smod32(uint32_t d, uint32_t s)
{
	if (s == 0)
		return d;
	if (s == UINT32_MAX)
		return 0;
	return (uint32_t)((int32_t)d % (int32_t)s);
}

/* Jump conditions; S is the signed type of the operands' width. */
#define KBPF_C_JEQ(d, s, S) ((d) == (s))
#define KBPF_C_JNE(d, s, S) ((d) != (s))
#define KBPF_C_JGT(d, s, S) ((d) > (s))
#define KBPF_C_JGE(d, s, S) ((d) >= (s))
#define KBPF_C_JLT(d, s, S) ((d) < (s))
#define KBPF_C_JLE(d, s, S) ((d) <= (s))
#define KBPF_C_JSGT(d, s, S) ((S)(d) > (S)(s))
#define KBPF_C_JSGE(d, s, S) ((S)(d) >= (S)(s))
#define KBPF_C_JSLT(d, s, S) ((S)(d) < (S)(s))
#define KBPF_C_JSLE(d, s, S) ((S)(d) <= (S)(s))
#define KBPF_C_JSET(d, s, S) (((d) & (s)) != 0)

struct kbpf_interp_frame {
	const struct kbpf_di *ret;
	const struct kbpf_interp *ip; /* the caller's program: a tail call may switch ours */
	uint64_t saved[4]; /* the caller's R6..R9 */
};

/* A tail call's target decoded for the other unchecked loop (hardened or not): run it
 * there, nested; its result is the caller's. Out of line and cold: rare, and it keeps
 * the loops' hot code as it was. */
static __attribute__((noinline, cold)) int kbpf_interp_tail_nested(const struct kbpf_prog *t, uint64_t r1, uint64_t r2,
								  uint64_t r3, uint64_t r4, uint64_t r5,
								  uint32_t *tail_cnt, uint64_t *r0, unsigned depth)
{
	const uint64_t args[5] = { r1, r2, r3, r4, r5 };
	struct kbpf_interp_run sub = { .args = args, .tail_calls = *tail_cnt, .depth = depth };
	int ret = kbpf_interp_run_from(t, &sub);

	*tail_cnt = sub.tail_calls;
	*r0 = sub.retval;
	return ret;
}

#endif /* KBPF_INTERP_BODY_ONCE */

#ifndef KBPF_INTERP_HARDENED
#define KBPF_INTERP_HARDENED 0
#endif
/* The hardened loop puts guard bytes between frames and at both ends of the block. */
#define KBPF_INTERP_GUARD (KBPF_INTERP_HARDENED ? KBPF_INTERP_GUARD_BYTES : 0)
#define KBPF_INTERP_STRIDE (KBPF_STACK_SIZE + KBPF_INTERP_GUARD)

#define DST R[pc->dst]
#define SRC R[pc->src]
#define IMM64 ((uint64_t)(int64_t)pc->imm)
#define IMM32 ((uint32_t)pc->imm)
#define OFF ((uint64_t)(int64_t)pc->off)

#if KBPF_INTERP_CHECKED
#define DISPATCH()                                            \
	do {                                                  \
		if (__builtin_expect(count >= budget, 0))     \
			goto out_budget;                      \
		count++;                                      \
		goto *pc->hc;                                 \
	} while (0)
/* The live stack is the current frame and every caller's frame above it. */
#define STACK_LO (stack_hi - (uintptr_t)(depth + 1) * KBPF_STACK_SIZE)
#define MEMCHK(addr, size, need, base)                                                   \
	do {                                                                             \
		if (!kbpf_interp_mem_ok(opts, STACK_LO, stack_hi, addr, size, need)) {   \
			f_addr = (addr), f_size = (size), f_need = (need), f_base = (base); \
			goto out_fault;                                                  \
		}                                                                        \
	} while (0)
/* Atomics must also be naturally aligned: a split-lock atomic is slow or faults. */
#define ATOMCHK(addr, size, base)                                                        \
	do {                                                                             \
		MEMCHK(addr, size, KBPF_MEM_READ | KBPF_MEM_WRITE, base);                \
		if ((addr) & ((size) - 1)) {                                             \
			f_addr = (addr), f_size = (size), f_base = (base);               \
			goto out_misaligned;                                             \
		}                                                                        \
	} while (0)
#else
#define DISPATCH() goto *pc->h
#define MEMCHK(addr, size, need, base) ((void)0)
#define ATOMCHK(addr, size, base) ((void)0)
#endif
#if KBPF_INTERP_CHECKED
/* The bytes an LD_ABS/LD_IND hook found must lie in the declared regions too: checked
 * mode never lets a program read outside them, whoever computed the address. */
#define PKTCHK(addr, size)                                                               \
	do {                                                                             \
		if (!kbpf_interp_mem_ok(opts, STACK_LO, stack_hi, addr, size, KBPF_MEM_READ)) { \
			f_addr = (addr), f_size = (size);                                \
			goto out_ld_abs_fault;                                           \
		}                                                                        \
	} while (0)
#else
#define PKTCHK(addr, size) ((void)0)
#endif
#if KBPF_INTERP_HARDENED
/* The run budget: a jump to itself or backwards spends one unit whether it is taken or
 * not (the JIT counts the same instructions the same way). */
#define BACKEDGE()                                                    \
	do {                                                          \
		if (pc->x.target <= pc) {                             \
			if (__builtin_expect(!budget_left, 0))        \
				goto out_run_budget;                  \
			budget_left--;                                \
		}                                                     \
	} while (0)
#else
#define BACKEDGE() ((void)0)
#endif
#define NEXT()            \
	do {              \
		pc++;     \
		DISPATCH(); \
	} while (0)

#define ALU64(NAME, EXPR)                                                   \
	L_ALU64_##NAME##_K : {                                              \
		const uint64_t d = DST, s = IMM64;                          \
		DST = (EXPR);                                               \
		NEXT();                                                     \
	}                                                                   \
	L_ALU64_##NAME##_X : {                                              \
		const uint64_t d = DST, s = SRC;                            \
		DST = (EXPR);                                               \
		NEXT();                                                     \
	}
#define ALU32(NAME, EXPR)                                                   \
	L_ALU32_##NAME##_K : {                                              \
		const uint32_t d = (uint32_t)DST, s = IMM32;                \
		DST = (uint32_t)(EXPR);                                     \
		NEXT();                                                     \
	}                                                                   \
	L_ALU32_##NAME##_X : {                                              \
		const uint32_t d = (uint32_t)DST, s = (uint32_t)SRC;        \
		DST = (uint32_t)(EXPR);                                     \
		NEXT();                                                     \
	}
/* Two dispatch sites per jump (taken, not taken) give the branch predictor more to
 * go on than one merged site. */
#define JMPS(NAME)                                                          \
	L_JMP_##NAME##_K : {                                                \
		BACKEDGE();                                                  \
		const uint64_t d = DST, s = IMM64;                          \
		if (KBPF_C_##NAME(d, s, int64_t)) {                         \
			pc = pc->x.target;                                  \
			DISPATCH();                                         \
		}                                                           \
		NEXT();                                                     \
	}                                                                   \
	L_JMP_##NAME##_X : {                                                \
		BACKEDGE();                                                  \
		const uint64_t d = DST, s = SRC;                            \
		if (KBPF_C_##NAME(d, s, int64_t)) {                         \
			pc = pc->x.target;                                  \
			DISPATCH();                                         \
		}                                                           \
		NEXT();                                                     \
	}                                                                   \
	L_JMP32_##NAME##_K : {                                              \
		BACKEDGE();                                                  \
		const uint32_t d = (uint32_t)DST, s = IMM32;                \
		if (KBPF_C_##NAME(d, s, int32_t)) {                         \
			pc = pc->x.target;                                  \
			DISPATCH();                                         \
		}                                                           \
		NEXT();                                                     \
	}                                                                   \
	L_JMP32_##NAME##_X : {                                              \
		BACKEDGE();                                                  \
		const uint32_t d = (uint32_t)DST, s = (uint32_t)SRC;        \
		if (KBPF_C_##NAME(d, s, int32_t)) {                         \
			pc = pc->x.target;                                  \
			DISPATCH();                                         \
		}                                                           \
		NEXT();                                                     \
	}
#define LDX(NAME, SIZE, LOAD)                                               \
	L_##NAME : {                                                        \
		const uint64_t a = SRC + OFF;                               \
		MEMCHK(a, SIZE, KBPF_MEM_READ, pc->src);                    \
		DST = (LOAD);                                               \
		NEXT();                                                     \
	}
#define ST(NAME, SIZE, STORE, VAL)                                          \
	L_##NAME : {                                                        \
		const uint64_t a = DST + OFF;                               \
		MEMCHK(a, SIZE, KBPF_MEM_WRITE, pc->dst);                   \
		STORE(a, VAL);                                              \
		NEXT();                                                     \
	}
/* Read-modify-write atomics; the FETCH form puts the old value (zero-extended) in src. */
#define ATOMIC_RMW(SZ, T, NAME, FETCH_OP)                                                   \
	L_ATOMIC_##SZ##_##NAME : {                                                          \
		const uint64_t a = DST + OFF;                                               \
		ATOMCHK(a, sizeof(T), pc->dst);                                             \
		(void)FETCH_OP((T *)(uintptr_t)a, (T)SRC, __ATOMIC_SEQ_CST);                \
		NEXT();                                                                     \
	}                                                                                   \
	L_ATOMIC_##SZ##_FETCH_##NAME : {                                                    \
		const uint64_t a = DST + OFF;                                               \
		ATOMCHK(a, sizeof(T), pc->dst);                                             \
		SRC = (T)FETCH_OP((T *)(uintptr_t)a, (T)SRC, __ATOMIC_SEQ_CST);             \
		NEXT();                                                                     \
	}
#define ATOMICS(SZ, T)                                                                      \
	ATOMIC_RMW(SZ, T, ADD, __atomic_fetch_add)                                          \
	ATOMIC_RMW(SZ, T, OR, __atomic_fetch_or)                                            \
	ATOMIC_RMW(SZ, T, AND, __atomic_fetch_and)                                          \
	ATOMIC_RMW(SZ, T, XOR, __atomic_fetch_xor)                                          \
	L_ATOMIC_##SZ##_XCHG : {                                                            \
		const uint64_t a = DST + OFF;                                               \
		ATOMCHK(a, sizeof(T), pc->dst);                                             \
		SRC = (T)__atomic_exchange_n((T *)(uintptr_t)a, (T)SRC, __ATOMIC_SEQ_CST);  \
		NEXT();                                                                     \
	}                                                                                   \
	L_ATOMIC_##SZ##_CMPXCHG : {                                                         \
		const uint64_t a = DST + OFF;                                               \
		ATOMCHK(a, sizeof(T), pc->dst);                                             \
		/* On success expected keeps the old value, on failure it receives it:     \
		 * either way it is what R0 must hold afterwards. */                       \
		T expected = (T)R[0];                                                       \
		__atomic_compare_exchange_n((T *)(uintptr_t)a, &expected, (T)SRC, false,    \
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
		R[0] = expected;                                                            \
		NEXT();                                                                     \
	}

/* LD_ABS / LD_IND, as Linux runs them (its verifier turns each into a call of
 * bpf_skb_load_helper_{8,16,32} followed by "if r0 s< 0: r0 = 0, exit"): R0 = the
 * big-endian value of the packet bytes the program type's hook finds at the offset (a
 * signed 32-bit sum for IND); none there returns 0 from the current function, whose
 * caller continues with its R6-R9 restored. */
#define LDABS(NAME, SIZE, OFFSET, VALUE)                                                    \
	L_##NAME : {                                                                        \
		const uint8_t *p = pc->x.ld_abs((const void *)(uintptr_t)R[6], (OFFSET), SIZE); \
		if (__builtin_expect(!p, 0)) {                                              \
			R[0] = 0;                                                           \
			goto L_EXIT;                                                        \
		}                                                                           \
		PKTCHK((uint64_t)(uintptr_t)p, SIZE);                                       \
		R[0] = (VALUE);                                                             \
		NEXT();                                                                     \
	}
#define LDABS_IND_OFF ((int32_t)((uint32_t)SRC + (uint32_t)pc->imm))
#define LDABS_BE16 ((uint64_t)p[0] << 8 | p[1])
#define LDABS_BE32 ((uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3])

/* Run ip (see struct kbpf_interp_run), or with labels_out non-NULL only report this
 * loop's label table (the addresses the decoder stores in each instruction). */
static __attribute__((noinline)) int KBPF_INTERP_FN(const struct kbpf_interp *ip, struct kbpf_interp_run *run,
						     const void *const **labels_out)
{
#define KBPF_IH_LABEL_ADDR(name) [KBPF_IH_##name] = &&L_##name,
	static const void *const labels[KBPF_IH__COUNT] = { KBPF_INTERP_HANDLERS(KBPF_IH_LABEL_ADDR) };
#undef KBPF_IH_LABEL_ADDR
	if (labels_out) {
		*labels_out = labels;
		return 0;
	}

	/* All frames' stacks in one block: frame k's R10 is the block's top minus k*512,
	 * so the live frames are always one contiguous range. */
	_Alignas(16) uint8_t stack[KBPF_INTERP_GUARD + KBPF_INTERP_STRIDE * KBPF_MAX_CALL_FRAMES];
	uint8_t *const stack_top = stack + sizeof(stack) - KBPF_INTERP_GUARD;
	struct kbpf_interp_frame frames[KBPF_MAX_CALL_FRAMES - 1];
	unsigned depth = 0;
	/* The deepest frame index a local call may reach, counted from this loop's main: a
	 * local in the fast and checked loops, read from run in the hardened one (the form
	 * each loop's code is fastest with, bench/harden.c). */
#if KBPF_INTERP_HARDENED
#define MAX_DEPTH (KBPF_MAX_CALL_FRAMES - 1 - run->depth)
#else
	const unsigned max_depth = KBPF_MAX_CALL_FRAMES - 1 - run->depth;
#define MAX_DEPTH max_depth
#endif
	uint64_t R[MAX_BPF_REG + 1]; /* R11: the verifier's AX (isa/validate.h) */
	const struct kbpf_di *pc = ip->code + run->start;
	uint32_t tail_cnt = run->tail_calls;
	int ret;

	R[0] = 0;
	for (int i = 0; i < 5; i++)
		R[1 + i] = run->args[i];
	R[6] = R[7] = R[8] = R[9] = R[11] = 0;
	R[10] = (uint64_t)(uintptr_t)stack_top;
#if KBPF_INTERP_HARDENED
	uint64_t budget_left = ip->prog->run_budget ? ip->prog->run_budget : UINT64_MAX;
	const bool guard = ip->prog->harden & KBPF_HARDEN_STACK_GUARD;

	/* The guards above and below the main frame now; each call fills the one below its
	 * new frame (the one above is its caller's below). */
	if (guard) {
		kbpf_interp_guard_fill(stack_top, KBPF_INTERP_GUARD, ip->canary);
		kbpf_interp_guard_fill(stack_top - KBPF_INTERP_STRIDE, KBPF_INTERP_GUARD, ip->canary);
	}
	/* The guards above and below the current frame, intact? (R10 itself may be lost.) */
#define FRAME_GUARDS_OK()                                                                           \
	(!guard || (kbpf_interp_guard_ok(stack_top - depth * KBPF_INTERP_STRIDE, KBPF_INTERP_GUARD, ip->canary) && \
		    kbpf_interp_guard_ok(stack_top - (depth + 1) * KBPF_INTERP_STRIDE, KBPF_INTERP_GUARD, ip->canary)))
#endif

#if KBPF_INTERP_CHECKED
	const struct kbpf_run_opts *opts = run->opts;
	const uintptr_t stack_hi = (uintptr_t)stack_top;
	const uint64_t budget = opts->max_insns ? opts->max_insns : UINT64_MAX;
	uint64_t count = 0;
	uint64_t f_addr = 0;
	uint32_t f_size = 0;
	unsigned f_need = 0, f_base = 0;

	/* Deterministic results even for a program that reads stack it never wrote; another
	 * fill (KBPF_RUN_STACK_FILL) shows whether it does. */
	memset(stack, (opts->flags & KBPF_RUN_STACK_FILL) ? opts->stack_fill : 0, sizeof(stack));
#endif

	DISPATCH();

	/* --- ALU --- */
	ALU64(ADD, d + s)
	ALU64(SUB, d - s)
	ALU64(MUL, d * s)
	ALU64(DIV, s ? d / s : 0)
	ALU64(SDIV, kbpf_sdiv64(d, s))
	ALU64(MOD, s ? d % s : d)
	ALU64(SMOD, kbpf_smod64(d, s))
	ALU64(OR, d | s)
	ALU64(AND, d & s)
	ALU64(LSH, d << (s & 63))
	ALU64(RSH, d >> (s & 63))
	ALU64(ARSH, (uint64_t)((int64_t)d >> (s & 63)))
	ALU64(XOR, d ^ s)
	ALU32(ADD, d + s)
	ALU32(SUB, d - s)
	ALU32(MUL, d * s)
	ALU32(DIV, s ? d / s : 0)
	ALU32(SDIV, kbpf_sdiv32(d, s))
	ALU32(MOD, s ? d % s : d)
	ALU32(SMOD, kbpf_smod32(d, s))
	ALU32(OR, d | s)
	ALU32(AND, d & s)
	ALU32(LSH, d << (s & 31))
	ALU32(RSH, d >> (s & 31))
	ALU32(ARSH, (uint32_t)((int32_t)d >> (s & 31)))
	ALU32(XOR, d ^ s)
L_ALU64_MOV_K:
	DST = IMM64;
	NEXT();
L_ALU64_MOV_X:
	DST = SRC;
	NEXT();
L_ALU32_MOV_K:
	DST = IMM32;
	NEXT();
L_ALU32_MOV_X:
	DST = (uint32_t)SRC;
	NEXT();
L_NEG64:
	DST = 0 - DST;
	NEXT();
L_NEG32:
	DST = (uint32_t)(0u - (uint32_t)DST);
	NEXT();
L_MOVSX64_8:
	DST = (uint64_t)(int64_t)(int8_t)SRC;
	NEXT();
L_MOVSX64_16:
	DST = (uint64_t)(int64_t)(int16_t)SRC;
	NEXT();
L_MOVSX64_32:
	DST = (uint64_t)(int64_t)(int32_t)SRC;
	NEXT();
L_MOV_PERCPU: {
	/* the verifier's inlined bpf_get_smp_processor_id: the thread's per-CPU block */
	uint64_t base = kbpf_pcpu_base();
#if KBPF_INTERP_CHECKED
	/* ... which the program may read (the CPU number), not write */
	if ((ret = kbpf_interp_checked_add_object(run, base, sizeof(struct kbpf_pcpu), KBPF_MEM_READ,
						  "per-CPU data"))) {
		kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "cannot track the per-CPU data: %s",
				     strerror(-ret));
		goto out_stop;
	}
	opts = run->opts;
#endif
	DST = SRC + base;
	NEXT();
}
L_MOVSX32_8:
	DST = (uint32_t)(int32_t)(int8_t)SRC;
	NEXT();
L_MOVSX32_16:
	DST = (uint32_t)(int32_t)(int16_t)SRC;
	NEXT();
	/* Byte order: the decoder maps to_le/to_be/bswap onto these for the host's order. */
L_ZEXT16:
	DST = (uint16_t)DST;
	NEXT();
L_ZEXT32:
	DST = (uint32_t)DST;
	NEXT();
L_NOP:
	NEXT();
L_SWAP16:
	DST = __builtin_bswap16((uint16_t)DST);
	NEXT();
L_SWAP32:
	DST = __builtin_bswap32((uint32_t)DST);
	NEXT();
L_SWAP64:
	DST = __builtin_bswap64(DST);
	NEXT();

	/* --- jumps --- */
	JMPS(JEQ)
	JMPS(JNE)
	JMPS(JGT)
	JMPS(JGE)
	JMPS(JLT)
	JMPS(JLE)
	JMPS(JSGT)
	JMPS(JSGE)
	JMPS(JSLT)
	JMPS(JSLE)
	JMPS(JSET)
L_JA:
	BACKEDGE();
	pc = pc->x.target;
	DISPATCH();
	/* may_goto with its counter in this frame's slot imm below r10 (verifier/grow.c):
	 * falls through while the budget lasts, then jumps */
L_MAY_GOTO: {
	BACKEDGE();
	const uint64_t a = R[BPF_REG_10] + IMM64;
	MEMCHK(a, 8, KBPF_MEM_READ | KBPF_MEM_WRITE, BPF_REG_10);
	const uint64_t n = kbpf_ld64(a);
	if (!n) {
		pc = pc->x.target;
		DISPATCH();
	}
	kbpf_st64(a, n - 1);
	NEXT();
}

	/* --- memory --- */
	LDX(LDX_B, 1, kbpf_ld8(a))
	LDX(LDX_H, 2, kbpf_ld16(a))
	LDX(LDX_W, 4, kbpf_ld32(a))
	LDX(LDX_DW, 8, kbpf_ld64(a))
	LDX(LDXSX_B, 1, (uint64_t)(int64_t)(int8_t)kbpf_ld8(a))
	LDX(LDXSX_H, 2, (uint64_t)(int64_t)(int16_t)kbpf_ld16(a))
	LDX(LDXSX_W, 4, (uint64_t)(int64_t)(int32_t)kbpf_ld32(a))
	/* fault-tolerant loads (probe_mem.c): safe at any address, so no memory check */
	L_LDX_PROBE_B : DST = kbpf_probe_load(SRC + OFF, 1); NEXT();
	L_LDX_PROBE_H : DST = kbpf_probe_load(SRC + OFF, 2); NEXT();
	L_LDX_PROBE_W : DST = kbpf_probe_load(SRC + OFF, 4); NEXT();
	L_LDX_PROBE_DW : DST = kbpf_probe_load(SRC + OFF, 8); NEXT();
	ST(ST_B, 1, kbpf_st8, (uint8_t)pc->imm)
	ST(ST_H, 2, kbpf_st16, (uint16_t)pc->imm)
	ST(ST_W, 4, kbpf_st32, (uint32_t)pc->imm)
	ST(ST_DW, 8, kbpf_st64, IMM64)
	ST(STX_B, 1, kbpf_st8, (uint8_t)SRC)
	ST(STX_H, 2, kbpf_st16, (uint16_t)SRC)
	ST(STX_W, 4, kbpf_st32, (uint32_t)SRC)
	ST(STX_DW, 8, kbpf_st64, SRC)
	ATOMICS(W, uint32_t)
	ATOMICS(DW, uint64_t)
L_LDDW:
	DST = pc->x.u64;
	pc += 2;
	DISPATCH();
	LDABS(LD_ABS_B, 1, pc->imm, p[0])
	LDABS(LD_ABS_H, 2, pc->imm, LDABS_BE16)
	LDABS(LD_ABS_W, 4, pc->imm, LDABS_BE32)
	LDABS(LD_IND_B, 1, LDABS_IND_OFF, p[0])
	LDABS(LD_IND_H, 2, LDABS_IND_OFF, LDABS_BE16)
	LDABS(LD_IND_W, 4, LDABS_IND_OFF, LDABS_BE32)

	/* --- calls --- */
L_CALL_HELPER:
	R[0] = pc->x.fn(R[1], R[2], R[3], R[4], R[5]);
	NEXT();
L_CALL_KFUNC:
	R[0] = kbpf_kfunc_call(pc->x.kfunc, &R[1]);
#if KBPF_INTERP_CHECKED
	/* the host object a kfunc returned: the program may touch it (its BTF size) */
	if (R[0] && pc->x.kfunc->ret_obj_size &&
	    (ret = kbpf_interp_checked_add_object(run, R[0], pc->x.kfunc->ret_obj_size, KBPF_MEM_READ | KBPF_MEM_WRITE,
						  pc->x.kfunc->name))) {
		kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "cannot track the object kfunc %s returned: %s",
				     pc->x.kfunc->name, strerror(-ret));
		goto out_stop;
	}
	opts = run->opts;
#endif
	NEXT();
L_CALLX: {
	kbpf_helper_fn fn = kbpf_interp_callx_find(ip, DST);
	if (!fn)
		goto out_callx;
	R[0] = fn(R[1], R[2], R[3], R[4], R[5]);
	NEXT();
}
L_CALL_LOCAL:
#if KBPF_INTERP_HARDENED
	if (__builtin_expect(!budget_left, 0))
		goto out_run_budget;
	budget_left--;
#endif
	if (depth == MAX_DEPTH)
		goto out_depth;
	frames[depth].ret = pc + 1;
	frames[depth].ip = ip;
	memcpy(frames[depth].saved, &R[6], sizeof(frames[depth].saved));
	depth++;
	R[10] -= KBPF_INTERP_STRIDE;
#if KBPF_INTERP_CHECKED
	/* the callee's frame starts filled too, not with an earlier callee's leftovers */
	if (opts->flags & KBPF_RUN_STACK_FILL)
		memset((void *)STACK_LO, opts->stack_fill, KBPF_STACK_SIZE);
#endif
#if KBPF_INTERP_HARDENED
	if (guard)
		kbpf_interp_guard_fill(stack_top - (depth + 1) * KBPF_INTERP_STRIDE, KBPF_INTERP_GUARD, ip->canary);
#endif
	pc = pc->x.target;
	DISPATCH();
L_EXIT:
#if KBPF_INTERP_HARDENED
	if (__builtin_expect(!FRAME_GUARDS_OK(), 0))
		goto out_guard;
#endif
	if (!depth)
		goto out_done;
	depth--;
	memcpy(&R[6], frames[depth].saved, sizeof(frames[depth].saved));
	R[10] += KBPF_INTERP_STRIDE;
	pc = frames[depth].ret;
#if KBPF_INTERP_CHECKED
	if (frames[depth].ip != ip) {
		/* a subprogram's tail call ran another program, which returns here: the
		 * caller's maps are the regions again, not the target's */
		ret = kbpf_interp_checked_enter(run, frames[depth].ip->prog);
		if (ret)
			goto out_stop;
		opts = run->opts;
	}
#endif
	ip = frames[depth].ip;
	DISPATCH();
	/* bpf_tail_call(ctx, map, index): the target continues in this frame with the
	 * registers as they are (R1 is the ctx); falling through leaves R0 alone, as
	 * Linux's interpreter does. In a subprogram the target replaces the subprogram:
	 * its exit returns to the subprogram's caller. */
L_TAIL_CALL: {
#if KBPF_INTERP_CHECKED
	if (!kbpf_tail_call_map_ok(ip->prog, R[2]))
		goto out_tail_map;
#endif
	const struct kbpf_prog *t =
		kbpf_tail_call_target((const struct kbpf_map *)(uintptr_t)R[2], (uint32_t)R[3], &tail_cnt);
	if (!t)
		NEXT();
#if !KBPF_INTERP_CHECKED
	if (t->interp->hardened != KBPF_INTERP_HARDENED) {
		/* The target was decoded for the other unchecked loop (hardened or not). From
		 * the main function it replaces this loop's run (kbpf_interp_run_from runs it
		 * next): a chain does not nest. From a subprogram it runs there, nested, from
		 * this depth, and its return is the subprogram's. */
		uint64_t r0 = 0;

		if (!depth) {
#if KBPF_INTERP_HARDENED
			if (__builtin_expect(!FRAME_GUARDS_OK(), 0))
				goto out_guard; /* the frame is left here, not at an exit */
#endif
			run->next = t;
			run->next_args[0] = R[1], run->next_args[1] = R[2], run->next_args[2] = R[3];
			run->next_args[3] = R[4], run->next_args[4] = R[5];
			ret = KBPF_INTERP_SWITCH;
			goto out;
		}
		/* R1..R5 by value: R's address must not escape (the loop keeps R in registers) */
		ret = kbpf_interp_tail_nested(t, R[1], R[2], R[3], R[4], R[5], &tail_cnt, &r0, run->depth + depth);
		if (ret)
			goto out_stop;
		R[0] = r0;
		goto L_EXIT;
	}
#endif
#if KBPF_INTERP_HARDENED
	/* as in the JIT, where the target's entry sets its own budget */
	budget_left = t->run_budget ? t->run_budget : UINT64_MAX;
#endif
#if KBPF_INTERP_CHECKED
	ret = kbpf_interp_checked_enter(run, t);
	if (ret)
		goto out_stop;
	opts = run->opts;
#endif
	ip = t->interp;
	pc = ip->code;
	DISPATCH();
}
L_FELL_OFF:
	goto out_fell_off;
L_CALL_UNRESOLVED:
	goto out_unresolved;
L_DEAD:
	goto out_dead;

out_done:
	run->retval = R[0];
	ret = 0;
	goto out;
#if KBPF_INTERP_HARDENED
out_run_budget:
	ret = -ETIME;
	goto out_stop;
out_guard:
	ret = -EFAULT; /* a write just outside the frame: the stack guard caught it */
	goto out_stop;
#undef FRAME_GUARDS_OK
#endif
out_depth:
	ret = -E2BIG;
#if KBPF_INTERP_CHECKED
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "call nested deeper than %d frames",
			     KBPF_MAX_CALL_FRAMES);
#endif
	goto out_stop;
out_callx:
	ret = -EINVAL;
#if KBPF_INTERP_CHECKED
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "callx to unknown helper #%lld",
			     (long long)DST);
#endif
	goto out_stop;
out_unresolved:
	ret = -EINVAL;
#if KBPF_INTERP_CHECKED
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "%s",
			     pc->src == 0 ? "reached an instruction poisoned by an unresolved CO-RE relocation"
					  : "call to an unresolved __weak kfunc");
#endif
	goto out_stop;
out_dead:
	ret = KBPF_RUN_DEAD_CODE;
	kbpf_prog_dead_code_reached(ip->prog, (size_t)(pc - ip->code));
#if KBPF_INTERP_CHECKED
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code),
			     "reached code the verifier judged unreachable (a verifier bug)");
#endif
	goto out_stop;
out_fell_off:
	ret = -EINVAL;
#if KBPF_INTERP_CHECKED
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "fell off the end of the program");
#endif
	goto out_stop;
#if KBPF_INTERP_CHECKED
out_tail_map:
	ret = -EINVAL;
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "bpf_tail_call: r2 (0x%llx) is not a map of this program",
			     (unsigned long long)R[2]);
	goto out_stop;
out_budget:
	ret = -ETIME;
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code), "instruction budget of %llu exhausted",
			     (unsigned long long)opts->max_insns);
	goto out_stop;
out_fault:
	ret = -EFAULT;
	kbpf_interp_mem_fault(opts, (size_t)(pc - ip->code), STACK_LO, stack_hi, f_addr, f_size, f_need,
			      f_base, pc->off);
	goto out_stop;
out_ld_abs_fault:
	ret = -EFAULT;
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code),
			     "invalid packet read of %u bytes at 0x%llx (LD_ABS/LD_IND, the program type's "
			     "hook): outside the declared regions", f_size, (unsigned long long)f_addr);
	goto out_stop;
out_misaligned:
	ret = -EFAULT;
	kbpf_interp_stop_msg(opts, (size_t)(pc - ip->code),
			     "misaligned atomic access of %u bytes at 0x%llx (r%u %+d)", f_size,
			     (unsigned long long)f_addr, f_base, pc->off);
	goto out_stop;
#endif
out_stop:
	run->fault_insn = pc - ip->code;
out:
	run->tail_calls = tail_cnt;
#if KBPF_INTERP_CHECKED
	run->insns_executed = count;
#endif
	return ret;
}

#undef DST
#undef SRC
#undef IMM64
#undef IMM32
#undef OFF
#undef DISPATCH
#undef STACK_LO
#undef MAX_DEPTH
#undef MEMCHK
#undef ATOMCHK
#undef NEXT
#undef BACKEDGE
#undef KBPF_INTERP_GUARD
#undef KBPF_INTERP_STRIDE
#undef ALU64
#undef ALU32
#undef JMPS
#undef LDX
#undef ST
#undef ATOMIC_RMW
#undef ATOMICS
#undef PKTCHK
#undef LDABS
#undef LDABS_IND_OFF
#undef LDABS_BE16
#undef LDABS_BE32
