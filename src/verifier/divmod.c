/* SPDX-License-Identifier: Apache-2.0 */
/* Division and modulo guards: Linux 6.12's do_misc_fixups makes a division by zero, and
 * a signed division by -1 (INT_MIN / -1 traps on x86), impossible before the JIT sees the
 * program, and kbpf does the same rewrite, so the program kbpf shows (kbpf_prog_insns,
 * `kbpf prog dump xlated`) is the one Linux shows and the one that runs:
 *   - sdiv/smod by the constant -1 become a negation / `wX = 0` (one insn for one);
 *   - a division or modulo by a register becomes a branch on the divisor around it:
 *     unsigned x / 0 = 0, x % 0 = x; signed also x / -1 = -x, x % -1 = 0. The signed
 *     forms test divisor + 1 (0 or 1 for -1 and 0) in R11, Linux's BPF_REG_AX, the
 *     verifier's scratch register: it is set and dead inside the patch.
 *   - 32-bit modulo by zero ends with `wX = wX`, the zero-extension of the result.
 * The engines (interp_body.h, jit_x86.c) still give each instruction the same defined
 * result on their own, so a program created without the verifier runs the same. */
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/insn.h>
#include "isa/validate.h"
#include "verifier/env.h"

#define REG_AX KBPF_REG_AX

static bool is_divmod_x(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_ALU || cls == BPF_ALU64) && (op == BPF_DIV || op == BPF_MOD) && BPF_SRC(in->code) == BPF_X;
}

bool divmod_k_minus1(struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if ((cls != BPF_ALU && cls != BPF_ALU64) || (op != BPF_DIV && op != BPF_MOD) || BPF_SRC(in->code) != BPF_K ||
	    in->off != 1 || in->imm != -1)
		return false;
	if (op == BPF_DIV)
		*in = (struct bpf_insn){ .code = (uint8_t)(cls | BPF_NEG | BPF_K), .dst_reg = in->dst_reg };
	else
		*in = (struct bpf_insn)BPF_MOV32_IMM(in->dst_reg, 0);
	return true;
}

/* Emits the patch of in at out (if out) and returns its length. */
static int divmod_patch(const struct bpf_insn *in, struct bpf_insn *out)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64, div = BPF_OP(in->code) == BPF_DIV, sign = in->off == 1;
	uint8_t alu = is64 ? BPF_ALU64 : BPF_ALU, jmp = is64 ? BPF_JMP : BPF_JMP32;
	uint8_t d = in->dst_reg, s = in->src_reg;
	struct bpf_insn p[9];
	int n = 0;

	if (sign) {
		/* AX = src + 1: above 1 an ordinary divisor; 0 is -1, 1 is 0 */
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(REG_AX, s);
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_ADD | BPF_K), .dst_reg = REG_AX, .imm = 1 };
		if (div) {
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JGT | BPF_K), .dst_reg = REG_AX, .off = 4, .imm = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JEQ | BPF_K), .dst_reg = REG_AX, .off = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_MOV | BPF_K), .dst_reg = d }; /* x / 0 */
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_NEG | BPF_K), .dst_reg = d }; /* x / -1 */
			p[n++] = (struct bpf_insn)BPF_JMP_A(1);
			p[n++] = *in;
		} else {
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JGT | BPF_K), .dst_reg = REG_AX, .off = 3, .imm = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JEQ | BPF_K), .dst_reg = REG_AX,
						    .off = (int16_t)(is64 ? 3 : 4), .imm = 1 }; /* x % 0 */
			p[n++] = (struct bpf_insn)BPF_MOV32_IMM(d, 0); /* x % -1 */
			p[n++] = (struct bpf_insn)BPF_JMP_A(1);
			p[n++] = *in;
			if (!is64) {
				p[n++] = (struct bpf_insn)BPF_JMP_A(1);
				p[n++] = (struct bpf_insn)BPF_MOV32_REG(d, d);
			}
		}
	} else if (div) {
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JNE | BPF_K), .dst_reg = s, .off = 2 };
		p[n++] = (struct bpf_insn)BPF_ALU32_REG(BPF_XOR, d, d); /* x / 0 */
		p[n++] = (struct bpf_insn)BPF_JMP_A(1);
		p[n++] = *in;
	} else {
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JEQ | BPF_K), .dst_reg = s,
					    .off = (int16_t)(is64 ? 1 : 2) }; /* x % 0 */
		p[n++] = *in;
		if (!is64) {
			p[n++] = (struct bpf_insn)BPF_JMP_A(1);
			p[n++] = (struct bpf_insn)BPF_MOV32_REG(d, d);
		}
	}
	if (out)
		memcpy(out, p, (size_t)n * sizeof(*p));
	return n;
}

int divmod_patch_len(const struct bpf_insn *in)
{
	return is_divmod_x(in) ? divmod_patch(in, NULL) : 1;
}

void divmod_emit(const struct bpf_insn *in, struct bpf_insn *out)
{
	divmod_patch(in, out);
}
