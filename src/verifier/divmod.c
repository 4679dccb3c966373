/* SPDX-License-Identifier: Apache-2.0 */
/* Division and modulo guards (grow.c applies the growing ones): Linux 6.12's do_misc_fixups makes a division by zero, and
 * a signed division by -1 (INT_MIN / -1 traps on x86), impossible before the JIT sees the
 * program, and kbpf does the same rewrite, so the program kbpf shows (kbpf_prog_insns,
 * `kbpf prog dump xlated`) is the one Linux shows and the one that runs:
 *   - sdiv/smod by the constant -1 become a negation / `wX = 0` (one insn for one);
 *   - a division or modulo by a register becomes a branch on the divisor around it:
 *     unsigned x / 0 = 0, x % 0 = x; signed also x / -1 = -x, x % -1 = 0. The signed
 *     forms test divisor + 1 (0 or 1 for -1 and 0) in R11, Linux's BPF_REG_AX, the
 *     verifier's scratch register: it is set and dead inside the patch.
 *   - 32-bit modulo by zero ends with `wX = wX`, the zero-extension of the result.
 * The sequences are isa/div_guard.c's. The engines (interp_body.h, jit_x86.c) still give
 * each instruction the same defined result on their own, so a program created without the
 * verifier runs the same. */
#include <linux/bpf.h>
#include <kbpf/insn.h>
#include "verifier/env.h"

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
