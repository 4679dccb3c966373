/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.12's division guards (do_misc_fixups), as sequences of instructions: a division
 * or modulo by a register branches on its divisor around the instruction. Unsigned:
 * x / 0 = 0, x % 0 = x. Signed also x / -1 = -x, x % -1 = 0, testing divisor + 1 (0 or 1
 * for -1 and 0) in R11, Linux's BPF_REG_AX, which is set and dead inside the guard. A
 * 32-bit modulo by zero ends with `wX = wX`, the result's zero-extension. */
#include <stdbool.h>
#include <string.h>
#include <linux/bpf.h>
#include "isa/div_guard.h"
#include "isa/validate.h"

static bool is_divmod_x(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_ALU || cls == BPF_ALU64) && (op == BPF_DIV || op == BPF_MOD) && BPF_SRC(in->code) == BPF_X;
}

int kbpf_div_guard(const struct bpf_insn *in, struct bpf_insn *out)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64, div = BPF_OP(in->code) == BPF_DIV, sign = in->off == 1;
	uint8_t alu = is64 ? BPF_ALU64 : BPF_ALU, jmp = is64 ? BPF_JMP : BPF_JMP32;
	uint8_t d = in->dst_reg, s = in->src_reg;
	struct bpf_insn p[KBPF_DIV_GUARD_MAX];
	int n = 0;

	if (!is_divmod_x(in))
		return 1;

	if (sign) {
		/* AX = src + 1: above 1 an ordinary divisor; 0 is -1, 1 is 0 */
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(KBPF_REG_AX, s);
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_ADD | BPF_K), .dst_reg = KBPF_REG_AX, .imm = 1 };
		if (div) {
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JGT | BPF_K), .dst_reg = KBPF_REG_AX, .off = 4, .imm = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JEQ | BPF_K), .dst_reg = KBPF_REG_AX, .off = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_MOV | BPF_K), .dst_reg = d }; /* x / 0 */
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(alu | BPF_NEG | BPF_K), .dst_reg = d }; /* x / -1 */
			p[n++] = (struct bpf_insn)BPF_JMP_A(1);
			p[n++] = *in;
		} else {
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JGT | BPF_K), .dst_reg = KBPF_REG_AX, .off = 3, .imm = 1 };
			p[n++] = (struct bpf_insn){ .code = (uint8_t)(jmp | BPF_JEQ | BPF_K), .dst_reg = KBPF_REG_AX,
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
