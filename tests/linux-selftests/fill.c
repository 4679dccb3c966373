/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf's own generators for the suite's long programs. Linux's test_verifier.c builds
 * them at run time (a test names its generator in .fill_helper, and the test's retval
 * picks a variant or a size); these write programs of the same shape, from the
 * description of what each test exercises, and the value the program must return. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "selftests.h"

#define FILL_MAX_INSNS 1000000 /* Linux's MAX_TEST_INSNS */
#define JMP_SEQ 8192           /* jumps in a scale test */

/* A fixed sequence of "semi-random" 64-bit values (xorshift64): the tests only need values
 * the verifier cannot predict and the generator knows. */
static uint64_t rand_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ld_dw: n/3 LDDW constants xored into r0, folded to 32 bits. */
static size_t fill_rand_ld_dw(struct bpf_insn *p, uint32_t n, uint32_t *retval)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, acc = 0;
	size_t i = 0;

	p[i++] = (struct bpf_insn)BPF_MOV32_IMM(BPF_REG_0, 0);
	while (i < n) {
		uint64_t v = rand_next(&seed);
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_1, v) };

		acc ^= v;
		p[i++] = ld[0];
		p[i++] = ld[1];
		p[i++] = (struct bpf_insn)BPF_ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_1);
	}
	p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	p[i++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 32);
	p[i++] = (struct bpf_insn)BPF_ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_1);
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	*retval = (uint32_t)(acc ^ (acc >> 32));
	return i;
}

/* scale: 8192 unpredictable branches around stack stores (in the main program, or in the
 * innermost of 8 nested functions), then enough "r0 = 42" to make about 1M insns. */
static size_t fill_scale(struct bpf_insn *p, int nested, uint32_t *retval)
{
	const int depth = 7, slots = nested ? 64 - 4 * depth : 64;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	size_t i = 0;

	for (int k = 0; nested && k < depth; k++) {
		p[i++] = (struct bpf_insn)BPF_CALL_REL(1);
		p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	}
	p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (int k = 1; k <= JMP_SEQ; k++) {
		p[i++] = (struct bpf_insn)BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32);
		p[i++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, (int32_t)rand_next(&seed), 2);
		p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
		p[i++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, -8 * (k % slots + 1));
	}
	while (i < FILL_MAX_INSNS - JMP_SEQ * 4)
		p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 42);
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	*retval = 42;
	return i;
}

/* Jumps whose encodings stress a JIT's size convergence: 128 conditional jumps over 128
 * unconditional ones that chain back to the end (short forms), returning 1. */
static size_t torture_short(struct bpf_insn *p)
{
	const int half = 128, len = 2 * half + 3;

	p[0] = (struct bpf_insn)BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32);
	for (int k = 1; k <= half; k++) {
		p[k] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, k, half);
		p[k + half] = (struct bpf_insn)BPF_JMP_A(half - k);
	}
	p[len - 2] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 1);
	p[len - 1] = (struct bpf_insn)BPF_EXIT_INSN();
	return (size_t)len;
}

/* ...and long forms: 2048 conditional jumps 2048 ahead into runs of 16 jumps that each
 * land on the run's end, returning 2. */
static size_t torture_long(struct bpf_insn *p)
{
	const int off = 2048, len = 2 * off + 4;
	int k;

	p[0] = (struct bpf_insn)BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32);
	for (k = 1; k <= off; k++)
		p[k] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, k, off);
	p[k++] = (struct bpf_insn)BPF_JMP_A(off);
	for (; k <= 2 * off + 1; k += 16)
		for (int j = 0; j < 16; j++)
			p[k + j] = (struct bpf_insn)BPF_JMP_A(16 - j - 1);
	p[len - 2] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 2);
	p[len - 1] = (struct bpf_insn)BPF_EXIT_INSN();
	return (size_t)len;
}

static size_t fill_torturous(struct bpf_insn *p, uint32_t variant, uint32_t *retval)
{
	size_t i = 0;

	*retval = variant;
	switch (variant) {
	case 1: return torture_short(p);
	case 2: return torture_long(p);
	case 3:
		/* both as subprograms of a main that returns 3 */
		p[i++] = (struct bpf_insn)BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 4);
		p[i++] = (struct bpf_insn)BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0,
						       2 * 128 + 3 + 3);
		p[i++] = (struct bpf_insn)BPF_ST_MEM(BPF_B, BPF_REG_10, -32, 0);
		p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 3);
		p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
		i += torture_short(p + i);
		i += torture_long(p + i);
		return i;
	default:
		return 0;
	}
}

/* bpf_fill_big_prog_with_loop_1: a bpf_loop call near the start of a program a page of
 * insns long (page size 4096 as on x86-64, minus 25: Linux sized it so that inlining the
 * call makes the program cross a page), then "r0 = 0"s up to the exit and the callback,
 * the last two insns (the runner moves the callback's func_info there). Returns 0. */
static size_t fill_big_prog_with_loop(struct bpf_insn *p, uint32_t *retval)
{
	const size_t len = 4096 - 25;
	size_t i = 0;

	*retval = 0;
	p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_1, 1);
	p[i++] = (struct bpf_insn)BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, BPF_REG_2, BPF_PSEUDO_FUNC, 0,
					       (int32_t)(len - 2 - 1 - 1));
	p[i++] = (struct bpf_insn)BPF_RAW_INSN(0, 0, 0, 0, 0);
	p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_3, 0);
	p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_4, 0);
	p[i++] = (struct bpf_insn)BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop);
	while (i < len - 3)
		p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	return i;
}

/* bpf_fill_ld_abs_vlan_push_pop ("ld_abs: vlan + abs, test 1"): five rounds of 51
 * {read packet byte 0 with LD_ABS, check it is 0x34, push a VLAN tag} then 51 {the same
 * read and check, pop a tag}, every check or helper failure jumping to an error exit
 * that returns 0; the program is padded with "r0 = 0xbef" so that its last jumps span
 * nearly the 16-bit range (Linux's LD_ABS rewrite grows each read: the test is that
 * nothing overflows). Returns 0xbef. */
static size_t fill_vlan_push_pop(struct bpf_insn *p, uint32_t *retval)
{
	const int pushes = 51;
	const size_t len = (1u << 15) - (size_t)pushes * 2 * 5 * 6;
	size_t i = 0;
#define TO_ERROR(insn) ((int16_t)(len - 2 - (insn) - 1)) /* the error exit is at len - 2 */

	*retval = 0xbef;
	p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (int round = 0; round < 5; round++) {
		for (int push = 1; push >= 0; push--) {
			for (int j = 0; j < pushes; j++) {
				p[i++] = (struct bpf_insn)BPF_LD_ABS(BPF_B, 0);
				p[i] = (struct bpf_insn)BPF_JMP32_IMM(BPF_JNE, BPF_REG_0, 0x34, TO_ERROR(i));
				i++;
				p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
				if (push) {
					p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_2, 1); /* ETH_P_8021Q's */
					p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_3, 2); /* vlan tci */
				}
				p[i++] = (struct bpf_insn)BPF_EMIT_CALL(push ? BPF_FUNC_skb_vlan_push : BPF_FUNC_skb_vlan_pop);
				p[i] = (struct bpf_insn)BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, TO_ERROR(i));
				i++;
			}
		}
	}
#undef TO_ERROR
	while (i < len - 3)
		p[i++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0xbef);
	p[i++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JA, 0, 0, 1);
	p[i++] = (struct bpf_insn)BPF_MOV32_IMM(BPF_REG_0, 0); /* the error exit */
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	return i;
}

/* bpf_fill_jump_around_ld_abs ("ld_abs: jump around ld_abs"): packet byte 0 read with
 * LD_ABS, and if it is 10 a jump over a run of LD_ABS reads of byte 1 to the exit; the
 * run is as long as Linux's rewrite of each read (up to 7 insns) lets the jump still
 * fit in 16 bits. Returns 10 (the test's packet starts with 10). */
static size_t fill_jump_around_ld_abs(struct bpf_insn *p, uint32_t *retval)
{
	const size_t len = (1u << 15) / 7;
	size_t i = 0;

	*retval = 10;
	p[i++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[i++] = (struct bpf_insn)BPF_LD_ABS(BPF_B, 0);
	p[i] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 10, (int16_t)(len - 1 - i - 1)); /* to the exit */
	i++;
	while (i < len - 1)
		p[i++] = (struct bpf_insn)BPF_LD_ABS(BPF_B, 1);
	p[i++] = (struct bpf_insn)BPF_EXIT_INSN();
	return i;
}

void *st_table_sym(void *table, const char *name)
{
	return dlsym(table, name);
}

int st_fill(void *table, const struct bpf_test *t, struct bpf_insn **insns, size_t *cnt,
	    uint32_t *retval, const char **unsupported)
{
	void (*fn)(struct bpf_test *) = t->fill_helper;
	struct bpf_insn *p;
	size_t n = 0;

	*unsupported = NULL;
#define IS(name) (table && fn == (void (*)(struct bpf_test *))st_table_sym(table, #name))
	if (!IS(bpf_fill_rand_ld_dw) && !IS(bpf_fill_scale) && !IS(bpf_fill_torturous_jumps) &&
	    !IS(bpf_fill_big_prog_with_loop_1) && !IS(bpf_fill_ld_abs_vlan_push_pop) &&
	    !IS(bpf_fill_jump_around_ld_abs)) {
		*unsupported = "its generator is not reimplemented";
		return -EOPNOTSUPP;
	}
	p = calloc(FILL_MAX_INSNS, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (IS(bpf_fill_rand_ld_dw))
		n = fill_rand_ld_dw(p, t->retval, retval);
	else if (IS(bpf_fill_big_prog_with_loop_1))
		n = fill_big_prog_with_loop(p, retval);
	else if (IS(bpf_fill_ld_abs_vlan_push_pop))
		n = fill_vlan_push_pop(p, retval);
	else if (IS(bpf_fill_jump_around_ld_abs))
		n = fill_jump_around_ld_abs(p, retval);
	else if (IS(bpf_fill_scale))
		n = t->retval == 1 || t->retval == 2 ? fill_scale(p, t->retval == 2, retval) : 0;
	else
		n = fill_torturous(p, t->retval, retval);
#undef IS
	if (!n) {
		free(p);
		*unsupported = "unknown generator variant";
		return -EOPNOTSUPP;
	}
	*insns = p;
	*cnt = n;
	return 0;
}

/* --- Attach targets (test_verifier.c's `.kfunc`) ---
 * Linux types a TRACING program by its expected_attach_type and loads it with the BTF
 * id libbpf_find_vmlinux_btf_id finds for the test's .kfunc: kbpf has one program type
 * per attach type, and the target is a FUNC of the host's BTF (the runner's own, which
 * holds hosts/linux/test_fentry.c's bpf_fentry_test* and bpf_modify_return_test). */
const char *st_test_prog_type_name(const struct bpf_test *t)
{
	static const struct {
		enum bpf_attach_type attach;
		const char *name;
	} cg_sock[] = {
		/* hosts/linux names these as libbpf names their sections */
		{ BPF_CGROUP_INET_SOCK_CREATE, "cgroup/sock_create" },
		{ BPF_CGROUP_INET_SOCK_RELEASE, "cgroup/sock_release" },
		{ BPF_CGROUP_INET4_POST_BIND, "cgroup/post_bind4" },
		{ BPF_CGROUP_INET6_POST_BIND, "cgroup/post_bind6" },
		{ BPF_CGROUP_INET4_BIND, "cgroup/bind4" }, { BPF_CGROUP_INET6_BIND, "cgroup/bind6" },
		{ BPF_CGROUP_INET4_CONNECT, "cgroup/connect4" }, { BPF_CGROUP_INET6_CONNECT, "cgroup/connect6" },
		{ BPF_CGROUP_INET4_GETPEERNAME, "cgroup/getpeername4" },
		{ BPF_CGROUP_INET6_GETPEERNAME, "cgroup/getpeername6" },
		{ BPF_CGROUP_INET4_GETSOCKNAME, "cgroup/getsockname4" },
		{ BPF_CGROUP_INET6_GETSOCKNAME, "cgroup/getsockname6" },
		{ BPF_CGROUP_UDP4_SENDMSG, "cgroup/sendmsg4" }, { BPF_CGROUP_UDP6_SENDMSG, "cgroup/sendmsg6" },
		{ BPF_CGROUP_UDP4_RECVMSG, "cgroup/recvmsg4" }, { BPF_CGROUP_UDP6_RECVMSG, "cgroup/recvmsg6" },
	};
	if (t->prog_type == BPF_PROG_TYPE_CGROUP_SOCK || t->prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR) {
		/* Linux's default for cgroup_sock (0 is also BPF_CGROUP_INET_INGRESS) */
		if (t->prog_type == BPF_PROG_TYPE_CGROUP_SOCK && !t->expected_attach_type)
			return "cgroup_sock";
		for (size_t i = 0; i < sizeof(cg_sock) / sizeof(cg_sock[0]); i++)
			if (cg_sock[i].attach == t->expected_attach_type)
				return cg_sock[i].name;
		return NULL;
	}
	if (t->prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT)
		return t->expected_attach_type == BPF_CGROUP_GETSOCKOPT ? "cgroup/getsockopt"
		       : t->expected_attach_type == BPF_CGROUP_SETSOCKOPT ? "cgroup/setsockopt" : NULL;
	if (t->prog_type == BPF_PROG_TYPE_LSM)
		return t->expected_attach_type == BPF_LSM_MAC ? "lsm" : NULL;
	if (t->prog_type != BPF_PROG_TYPE_TRACING)
		return st_prog_type_name(t->prog_type);
	switch (t->expected_attach_type) {
	case BPF_TRACE_FENTRY: return "fentry";
	case BPF_TRACE_FEXIT: return "fexit";
	case BPF_MODIFY_RETURN: return "fmod_ret";
	case BPF_TRACE_ITER: return "iter";
	default: return NULL; /* tp_btf: not modelled */
	}
}

int st_attach_btf_id(const struct kbpf_host *host, const struct bpf_test *t, uint32_t *id, char *why,
		     size_t why_size)
{
	*id = 0;
	if ((t->prog_type != BPF_PROG_TYPE_TRACING && t->prog_type != BPF_PROG_TYPE_LSM) || !t->kfunc)
		return 0;
	/* libbpf_find_vmlinux_btf_id: an LSM hook's function is bpf_lsm_<hook>, an
	 * iterator target's bpf_iter_<target> */
	char name[128];
	snprintf(name, sizeof(name), "%s%s",
		 t->prog_type == BPF_PROG_TYPE_LSM			      ? "bpf_lsm_"
		 : t->expected_attach_type == BPF_TRACE_ITER ? "bpf_iter_"
							      : "",
		 t->kfunc);
	const struct btf *btf = kbpf_host_btf(host);
	int r = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
	if (r <= 0) {
		snprintf(why, why_size, "attach target %s: not a function of the host", name);
		return -EOPNOTSUPP;
	}
	*id = (uint32_t)r;
	return 0;
}
