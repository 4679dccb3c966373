/* SPDX-License-Identifier: Apache-2.0 */
/* struct_ops trampolines (<kbpf/struct_ops.h>): a C function of a BTF signature that
 * packs its arguments into the u64 context array and runs a program.
 *
 * Each argument is zero- or sign-extended from its type to 64 bits before it is stored,
 * as Linux's trampoline does (the caller only guarantees the type's own bits, and a
 * program reading ctx[i] as u64 must see what C would convert the value to); R0 goes
 * back converted to the return type. JIT-compiled programs get native x86-64 code that
 * calls the JIT entry directly; programs on the interpreter (and anything when asked)
 * get a libffi closure around kbpf_prog_run. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <ffi.h>
#include <kbpf/struct_ops.h>
#include "btf/btf_walk.h"
#include "exec/jit.h"
#include "exec/jit_ctx.h"
#include "exec/jit_emit.h"
#include "exec/prog_internal.h"
#include "opts.h"


/* One value's width and extension. */
struct tramp_val {
	uint8_t size;    /* 1, 2, 4, 8; 0: void (return only) */
	bool is_signed;
};

struct kbpf_trampoline {
	const struct kbpf_prog *prog;
	unsigned nr_args;
	struct tramp_val args[KBPF_TRAMPOLINE_MAX_ARGS], ret;
	kbpf_trampoline_fn_t fn;
	/* native */
	void *map;
	size_t map_size;
	/* libffi */
	ffi_closure *closure;
	ffi_cif cif;
	ffi_type *ffi_args[KBPF_TRAMPOLINE_MAX_ARGS];
};

/* The width and signedness of a parameter or return type; -EINVAL for what does not fit
 * in one integer register as an integer (struct, float, 128-bit...). */
static int classify(const struct btf *btf, uint32_t id, bool is_ret, struct tramp_val *v)
{
	const struct btf_type *t;

	if (id == 0) {
		v->size = 0;
		v->is_signed = false;
		return is_ret ? 0 : -EINVAL;
	}
	t = kbpf_btf_skip_mods(btf, id, &id);
	if (!t)
		return -EINVAL;
	if (btf_is_ptr(t)) {
		v->size = 8;
		v->is_signed = false;
		return 0;
	}
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);

		v->size = (uint8_t)t->size;
		v->is_signed = (enc & BTF_INT_SIGNED) && !(enc & BTF_INT_BOOL);
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		v->size = (uint8_t)t->size;
		v->is_signed = btf_kflag(t);
	} else {
		return -EINVAL;
	}
	return v->size == 1 || v->size == 2 || v->size == 4 || v->size == 8 ? 0 : -EINVAL;
}

/* The FUNC_PROTO behind id (a FUNC_PROTO, a FUNC, or a pointer to either). */
static const struct btf_type *find_proto(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = kbpf_btf_skip_mods(btf, id, &id);

	if (t && btf_is_ptr(t)) {
		id = t->type;
		t = kbpf_btf_skip_mods(btf, id, &id);
	}
	if (t && btf_is_func(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

static int distill(struct kbpf_trampoline *t, const struct btf *btf, uint32_t proto_id, char *log, size_t log_size)
{
	const struct btf_type *p = btf ? find_proto(btf, proto_id) : NULL;
	const struct btf_param *param;
	unsigned n;

	if (!p) {
		snprintf(log, log_size, "btf id %u is not a function prototype", proto_id);
		return -EINVAL;
	}
	n = btf_vlen(p);
	param = btf_params(p);
	if (n && param[n - 1].type == 0) {
		snprintf(log, log_size, "btf id %u: variadic functions are not supported", proto_id);
		return -EINVAL;
	}
	if (n > KBPF_TRAMPOLINE_MAX_ARGS) {
		snprintf(log, log_size, "btf id %u has %u > %d args", proto_id, n, KBPF_TRAMPOLINE_MAX_ARGS);
		return -EINVAL;
	}
	for (unsigned a = 0; a < n; a++) {
		if (classify(btf, param[a].type, false, &t->args[a])) {
			snprintf(log, log_size, "btf id %u: arg%u type is unsupported (not an integer, enum or pointer)",
				 proto_id, a);
			return -EINVAL;
		}
	}
	if (classify(btf, p->type, true, &t->ret)) {
		snprintf(log, log_size, "btf id %u: return type is unsupported (not void, an integer, enum or pointer)",
			 proto_id);
		return -EINVAL;
	}
	t->nr_args = n;
	return 0;
}

/* --- native (JIT) ------------------------------------------------------------------ */

#if defined(__x86_64__)
static const uint8_t sysv_args[KBPF_TRAMPOLINE_MAX_ARGS] = { X_RDI, X_RSI, X_RDX, X_RCX, X_R8, X_R9 };

/* The trampoline's code for base (where it will run; 0: not known, a movabs call). */
static void emit_native(struct jit_buf *b, const struct kbpf_trampoline *t, uintptr_t base, size_t base_size)
{
	uintptr_t entry = (uintptr_t)t->prog->jit->entry;
	int64_t lo = (int64_t)(entry - base), hi = lo - (int64_t)base_size;

	b->len = 0;
	jb_fill(b, 0xcc, JIT_ENTRY_PAD);
	jb_byte(b, 0xf3), jb_byte(b, 0x0f), jb_byte(b, 0x1e), jb_byte(b, 0xfa); /* endbr64 */
	x86_push(b, X_RBP);
	x86_mov_rr(b, true, X_RBP, X_RSP);
	/* ctx[6] at rsp; rsp stays 16-byte aligned for the call */
	x86_alu_imm(b, true, ALU_SUB, X_RSP, 8 * KBPF_TRAMPOLINE_MAX_ARGS);
	for (unsigned a = 0; a < t->nr_args; a++) {
		x86_extend(b, sysv_args[a], t->args[a].size, t->args[a].is_signed);
		x86_rm(b, XF_W, 0x89, sysv_args[a], X_RSP, (int32_t)(8 * a)); /* mov [rsp + 8a], reg */
	}
	/* entry(ctx, 0, 0, 0, 0, NULL): R1 = ctx, R2-R5 zero as kbpf_prog_run gives them */
	x86_mov_rr(b, true, X_RDI, X_RSP);
	x86_mov_imm32(b, X_RSI, 0);
	x86_mov_imm32(b, X_RDX, 0);
	x86_mov_imm32(b, X_RCX, 0);
	x86_mov_imm32(b, X_R8, 0);
	x86_mov_imm32(b, X_R9, 0);
	if (base && fits_s32(lo) && fits_s32(hi)) {
		x86_call32(b, (int32_t)((int64_t)entry - (int64_t)(base + b->len + X86_CALL32_LEN)));
	} else {
		x86_mov_imm64(b, X_RAX, (uint64_t)entry);
		x86_call_reg(b, X_RAX);
	}
	/* a run-time stop returned rax = 0, as kbpf_prog_run's R0 */
	if (t->ret.size)
		x86_extend(b, X_RAX, t->ret.size, t->ret.is_signed);
	jb_byte(b, 0xc9); /* leave */
	jb_byte(b, 0xc3); /* ret */
}

static int make_native(struct kbpf_trampoline *t)
{
	struct jit_buf b = { 0 };
	int ret;

	emit_native(&b, t, 0, 0); /* the longest form: the size to reserve */
	ret = b.err;
	if (!ret)
		ret = jit_mem_reserve(b.len, (uintptr_t)t->prog->jit->entry, &t->map, &t->map_size);
	if (!ret) {
		emit_native(&b, t, (uintptr_t)t->map, t->map_size);
		ret = b.err ? b.err : jit_mem_seal(t->map, t->map_size, b.p, b.len);
	}
	free(b.p);
	if (ret)
		return ret;
	t->fn = (kbpf_trampoline_fn_t)(uintptr_t)((uint8_t *)t->map + JIT_ENTRY_PAD);
	return 0;
}
#else
static int make_native(struct kbpf_trampoline *t)
{
	(void)t;
	return -EOPNOTSUPP;
}
#endif

/* --- libffi ---------------------------------------------------------------------- */

static ffi_type *ffi_of(const struct tramp_val *v)
{
	switch (v->size) {
	case 0: return &ffi_type_void;
	case 1: return v->is_signed ? &ffi_type_sint8 : &ffi_type_uint8;
	case 2: return v->is_signed ? &ffi_type_sint16 : &ffi_type_uint16;
	case 4: return v->is_signed ? &ffi_type_sint32 : &ffi_type_uint32;
	default: return v->is_signed ? &ffi_type_sint64 : &ffi_type_uint64;
	}
}

/* v's bits read from where libffi keeps an argument of its type, extended to 64. */
static uint64_t load_ext(const void *p, const struct tramp_val *v)
{
	switch (v->size) {
	case 1: return v->is_signed ? (uint64_t)(int64_t)*(const int8_t *)p : *(const uint8_t *)p;
	case 2: return v->is_signed ? (uint64_t)(int64_t)*(const int16_t *)p : *(const uint16_t *)p;
	case 4: return v->is_signed ? (uint64_t)(int64_t)*(const int32_t *)p : *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static void ffi_handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	const struct kbpf_trampoline *t = user;
	uint64_t ctx[KBPF_TRAMPOLINE_MAX_ARGS] = { 0 }, r0 = 0;

	(void)cif;
	for (unsigned a = 0; a < t->nr_args; a++)
		ctx[a] = load_ext(args[a], &t->args[a]);
	kbpf_prog_run(t->prog, ctx, &r0); /* a run-time stop leaves R0 = 0 */
	if (!t->ret.size)
		return;
	/* libffi: a result narrower than a register is returned as a full ffi_arg */
	if (t->ret.size < sizeof(ffi_arg)) {
		uint64_t v = load_ext(&r0, &t->ret);
		if (t->ret.is_signed)
			*(ffi_sarg *)ret = (ffi_sarg)(int64_t)v;
		else
			*(ffi_arg *)ret = (ffi_arg)v;
	} else {
		memcpy(ret, &r0, sizeof(r0));
	}
}

static int make_ffi(struct kbpf_trampoline *t, char *log, size_t log_size)
{
	void *code = NULL;

	for (unsigned a = 0; a < t->nr_args; a++)
		t->ffi_args[a] = ffi_of(&t->args[a]);
	t->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
	if (!t->closure)
		return -ENOMEM;
	if (ffi_prep_cif(&t->cif, FFI_DEFAULT_ABI, t->nr_args, ffi_of(&t->ret), t->ffi_args) != FFI_OK ||
	    ffi_prep_closure_loc(t->closure, &t->cif, ffi_handler, t, code) != FFI_OK) {
		snprintf(log, log_size, "libffi cannot make a closure of this signature");
		return -EINVAL;
	}
	t->fn = (kbpf_trampoline_fn_t)(uintptr_t)code;
	return 0;
}

/* --- <kbpf/struct_ops.h> ------------------------------------------------------------- */

int kbpf_trampoline_create(const struct kbpf_prog *prog, const struct btf *btf, uint32_t proto_id,
			   const struct kbpf_trampoline_opts *opts, struct kbpf_trampoline **out)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t log_size = log ? OPTS_GET(opts, log_size, 0) : 0;
	unsigned flags = OPTS_GET(opts, flags, 0);
	struct kbpf_trampoline *t;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!prog || !btf || !OPTS_VALID(opts, OPTS_MIN_SZ) || (flags & ~KBPF_TRAMPOLINE_FFI))
		return -EINVAL;
	if (log_size)
		log[0] = 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->prog = prog;
	ret = distill(t, btf, proto_id, log, log_size);
	if (!ret) {
		if (prog->jit && !(flags & KBPF_TRAMPOLINE_FFI)) {
			ret = make_native(t);
			if (ret && log_size)
				snprintf(log, log_size, "cannot map the trampoline's code: %s", strerror(-ret));
		} else {
			ret = make_ffi(t, log, log_size);
		}
	}
	if (ret) {
		kbpf_trampoline_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

kbpf_trampoline_fn_t kbpf_trampoline_fn(const struct kbpf_trampoline *t)
{
	return t ? t->fn : NULL;
}

int kbpf_trampoline_is_native(const struct kbpf_trampoline *t)
{
	return t && t->map;
}

void kbpf_trampoline_free(struct kbpf_trampoline *t)
{
	if (!t)
		return;
	jit_mem_release(t->map, t->map_size);
	if (t->closure)
		ffi_closure_free(t->closure);
	free(t);
}
