/* SPDX-License-Identifier: Apache-2.0 */
/* Context access conversion: Linux 6.1's convert_ctx_accesses, driven by data. A program
 * type's is_valid_access says, per field, where the value really lives in the run-time
 * context (kbpf_ctx_access_info.conv_off/conv_size); the walk records that per insn and,
 * once the program is proven safe, the accesses are rewritten in a copy of the program.
 * Every rewrite is one insn for one insn (a u32 LDX of __sk_buff.data becomes a u64 LDX
 * of struct kbpf_linux_skb.data), so jumps, subprogram starts, line info and the JIT's
 * insn map need no adjusting. */
#include <errno.h>
#include <string.h>
#include "verifier/env.h"
#include "verifier/kfunc.h"

static int size_code(int size)
{
	switch (size) {
	case 1: return BPF_B;
	case 2: return BPF_H;
	case 4: return BPF_W;
	case 8: return BPF_DW;
	default: return -1;
	}
}

static int size_bytes(int code)
{
	switch (code) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

/* Called for every ctx access the walk allows; the same insn may be reached on many
 * paths, and because a ctx pointer cannot be moved (check_ptr_off_reg) it always has the
 * same offset there: a different conversion would be a bug in the type's callback. */
int fixup_note_ctx(struct env *env, int insn_idx, int off, int size, const struct kbpf_ctx_access_info *info)
{
	struct insn_aux *a = &env->aux[insn_idx];
	int32_t new_off = off;
	int new_size = size;

	if (info->conv_size) {
		uint32_t field = info->ctx_field_size;
		int start = field ? off & ~(int)(field - 1) : off;
		/* A full-field access takes the run-time field's width; a narrow load keeps its
		 * width and its byte position inside the field (little-endian, as the host). */
		if (!field || (uint32_t)size == field) {
			new_size = (int)info->conv_size;
			new_off = (int32_t)info->conv_off;
		} else {
			new_off = (int32_t)info->conv_off + (off - start);
		}
		if (size_code(new_size) < 0 || new_off < INT16_MIN || new_off > INT16_MAX ||
		    (uint64_t)new_off + new_size > UINT32_MAX) {
			vlog(env, "bpf verifier is misconfigured\n");
			return -EINVAL;
		}
	} else if (!a->ctx_conv) {
		return 0; /* the program's offset is the run-time one */
	}
	if (a->ctx_conv && (a->ctx_conv_off != new_off || a->ctx_conv_size != new_size)) {
		vlog(env, "bpf verifier is misconfigured\n");
		return -EINVAL;
	}
	a->ctx_conv = true;
	a->ctx_conv_off = new_off;
	a->ctx_conv_size = (uint8_t)new_size;
	return 0;
}

/* out receives the program (env->cnt insns) with the recorded accesses converted.
 * Returns the number of rewritten insns. */
int fixup_apply(struct env *env, struct bpf_insn *out)
{
	int n = 0;
	memcpy(out, env->insns, (size_t)env->cnt * sizeof(*out));
	for (int i = 0; i < env->cnt; i++) {
		const struct insn_aux *a = &env->aux[i];
		if (!a->ctx_conv)
			continue;
		struct bpf_insn *in = &out[i];
		uint8_t cls = BPF_CLASS(in->code);
		uint8_t mode = BPF_MODE(in->code);
		if ((cls != BPF_LDX && cls != BPF_STX && cls != BPF_ST) || (mode != BPF_MEM && mode != BPF_MEMSX))
			continue; /* only loads and stores reach check_ctx_access */
		if (mode == BPF_MEMSX && a->ctx_conv_size >= size_bytes(BPF_SIZE(in->code))) {
			/* the run-time field is as wide or wider: sign-extend its low bytes
			 * (little-endian, as the host), which is what Linux's appended movsx does */
			in->off = (int16_t)(a->ctx_conv_off);
		} else {
			/* a narrower run-time field is unsigned: zero-extending it is the
			 * sign extension of the program's wider view of it */
			in->code = (uint8_t)(cls | BPF_MEM | size_code(a->ctx_conv_size));
			in->off = (int16_t)a->ctx_conv_off;
		}
		n++;
	}
	/* Loads through untrusted BTF pointers (kptr.c) become fault-tolerant (Linux's
	 * BPF_PROBE_MEM, which its JIT gives every PTR_TO_BTF_ID load; kbpf only these:
	 * trusted pointers are valid by the host's contract). */
	for (int i = 0; i < env->cnt; i++)
		if (env->aux[i].untrusted_load && BPF_CLASS(out[i].code) == BPF_LDX && BPF_MODE(out[i].code) == BPF_MEM)
			out[i].code = (uint8_t)(BPF_LDX | KBPF_PROBE_MEM | BPF_SIZE(out[i].code));
	/* The casts (kfunc.c) are the identity: Linux's fixup_kfunc_call makes them r0 = r1
	 * (dead calls are goto -1 below) */
	for (int i = 0; i < env->cnt; i++)
		if (env->aux[i].seen && env->aux[i].kfunc_cast != KFUNC_CAST_NONE)
			out[i] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_0, BPF_REG_1);
	/* A helper whose proto runs under another id (kbpf_helper_proto.run_id): Linux's
	 * do_misc_fixups puts the proto's own function into the call. */
	for (int i = 0; i < env->cnt; i++)
		if (env->aux[i].run_id && out[i].code == (BPF_JMP | BPF_CALL) && out[i].src_reg == 0)
			out[i].imm = env->aux[i].run_id;
	/* sdiv/smod by the constant -1: a negation / wX = 0 (divmod.c) */
	for (int i = 0; i < env->cnt; i++)
		if (env->aux[i].seen)
			divmod_k_minus1(&out[i]);
	/* Dead code: instructions no path reached become "goto -1" (Linux's
	 * sanitize_dead_code), so nothing unverified is left to run or to JIT, and what
	 * the structural check refuses there (a write to R10) is gone. An ld_imm64 is
	 * judged by its first half. */
	for (int i = 0; i < env->cnt; i++) {
		bool wide = env->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) && i + 1 < env->cnt;
		if (!env->aux[i].seen) {
			out[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = -1 };
			if (wide)
				out[i + 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = -1 };
		}
		if (wide)
			i++;
	}
	return n;
}
