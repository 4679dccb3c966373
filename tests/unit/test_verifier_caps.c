/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.12's two privilege tiers in the verifier (docs/verifier.md, "Privileges"): a
 * loader with CAP_BPF but not CAP_PERFMON keeps the pointer, stack and BTF-load rules of
 * an unprivileged one. Before the split kbpf had one flag for both tiers, and these
 * programs, accepted with CAP_BPF alone, read any host address (bpf_rdonly_cast then a
 * load, bpf_copy_from_user) or the host's stack contents (an uninitialised slot). Each is
 * refused with CAP_BPF alone, with Linux's message, and accepted with CAP_PERFMON too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include "test.h"

#ifdef KBPF_TEST_VKFUNC_HOST
#include <kbpf/linux.h>

static struct kbpf_host *host;
static char log_buf[65536];

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define K(name) BPF_CALL_KFUNC(0, test_btf_id(host, name, BTF_KIND_FUNC))
#define BPF_ONLY (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN)
#define WITH_PERFMON (KBPF_CAP_BPF | KBPF_CAP_PERFMON | KBPF_CAP_NET_ADMIN)

/* Verify as type with caps; expect NULL: must pass, else the log must contain it. */
static int verify(const struct bpf_insn *insns, size_t n, const char *type, unsigned caps, int sleepable,
		  const char *expect)
{
	struct kbpf_verify_opts o = {
		.sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL", .caps = caps,
		.sleepable = sleepable, .log_level = KBPF_LOG_LEVEL1, .log_buf = log_buf,
		.log_size = sizeof(log_buf),
	};
	log_buf[0] = 0;
	return check_verdict(kbpf_prog_verify(insns, n, &o, NULL), log_buf, expect);
}

/* the same with maps (map[idx:N] in the program) */
static int verify_maps(const struct bpf_insn *insns, size_t n, const char *type, unsigned caps,
		       struct kbpf_map *const *maps, size_t nr_maps, const char *expect)
{
	struct kbpf_verify_opts o = {
		.sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL", .caps = caps,
		.maps = maps, .nr_maps = nr_maps, .log_level = KBPF_LOG_LEVEL1, .log_buf = log_buf,
		.log_size = sizeof(log_buf),
	};
	log_buf[0] = 0;
	return check_verdict(kbpf_prog_verify(insns, n, &o, NULL), log_buf, expect);
}

/* bpf_rdonly_cast(any address, struct) then a load: a host object read, CAP_PERFMON's */
static void test_btf_load_needs_perfmon(void)
{
	uint32_t skb = test_btf_id(host, "kbpf_linux_skb", BTF_KIND_STRUCT);
	struct bpf_insn p[] = {
		BPF_LD_IMM64(BPF_REG_1, 0x555555554000ull),
		BPF_MOV64_IMM(BPF_REG_2, (int32_t)skb),
		K("bpf_rdonly_cast"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(p, N(p), "sched_cls", BPF_ONLY, 0,
			    "'struct kbpf_linux_skb' access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN"),
		     -EPERM);
	verify(p, N(p), "sched_cls", WITH_PERFMON, 0, NULL);
	verify(p, N(p), "sched_cls", KBPF_CAP_SYS_ADMIN, 0, NULL);
}

/* an uninitialised stack slot read: the host's stack contents, allow_uninit_stack's */
static void test_uninit_stack_needs_perfmon(void)
{
	struct bpf_insn p[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(p, N(p), "sched_cls", BPF_ONLY, 0, "invalid read from stack R10 off=-8 size=8"), -EACCES);
	verify(p, N(p), "sched_cls", WITH_PERFMON, 0, NULL);
	/* a helper reading it: the same rule (check_stack_range_initialized) */
	struct bpf_insn h[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_MOV64_IMM(BPF_REG_5, 0),
		BPF_EMIT_CALL(BPF_FUNC_csum_diff),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(h, N(h), "sched_cls", BPF_ONLY, 0, "invalid indirect read from stack R1 off -8+0 size 8"),
		     -EACCES);
	verify(h, N(h), "sched_cls", WITH_PERFMON, 0, NULL);
}

/* pointers: returned, stored, compared — allow_ptr_leaks' */
static void test_ptr_leaks_need_perfmon(void)
{
	struct bpf_insn ret[] = { BPF_MOV64_REG(BPF_REG_0, BPF_REG_10), BPF_EXIT_INSN() };
	CHECK_EQ_U64(verify(ret, N(ret), "sched_cls", BPF_ONLY, 0, "R0 leaks addr as return value"), -EACCES);
	verify(ret, N(ret), "sched_cls", WITH_PERFMON, 0, NULL);
	struct bpf_insn cmp[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_JMP_REG(BPF_JEQ, BPF_REG_2, BPF_REG_1, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(cmp, N(cmp), "sched_cls", BPF_ONLY, 0, "R1 pointer comparison prohibited"), -EACCES);
	verify(cmp, N(cmp), "sched_cls", WITH_PERFMON, 0, NULL);
	/* CAP_BPF's own tier stays: a BPF-to-BPF call (a loop is not a fair probe: without
	 * CAP_PERFMON 6.12 walks each decided branch's dead side speculatively) */
	struct bpf_insn call[] = {
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	verify(call, N(call), "sched_cls", BPF_ONLY, 0, NULL);
	CHECK_EQ_U64(verify(call, N(call), "socket_filter", KBPF_CAP_PERFMON, 0,
			    "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"),
		     -EPERM);
}

/* bpf_copy_from_user reads any host address in kbpf: CAP_PERFMON, as probe_read_kernel */
static void test_copy_from_user_needs_perfmon(void)
{
	struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_LD_IMM64(BPF_REG_3, 0x555555554000ull),
		BPF_EMIT_CALL(BPF_FUNC_copy_from_user),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(p, N(p), "syscall", KBPF_CAP_BPF, 1,
			    "program of this type cannot use helper bpf_copy_from_user#148"),
		     -EINVAL);
	verify(p, N(p), "syscall", KBPF_CAP_BPF | KBPF_CAP_PERFMON, 1, NULL);
	/* the legacy probe reads too (a CAP_BPF-only syscall program read the host's ELF
	 * header with them) */
	p[5] = (struct bpf_insn)BPF_EMIT_CALL(BPF_FUNC_probe_read);
	CHECK_EQ_U64(verify(p, N(p), "syscall", KBPF_CAP_BPF, 0, "program of this type cannot use helper bpf_probe_read#4"),
		     -EINVAL);
	verify(p, N(p), "syscall", KBPF_CAP_BPF | KBPF_CAP_PERFMON, 0, NULL);
	p[5] = (struct bpf_insn)BPF_EMIT_CALL(BPF_FUNC_probe_read_str);
	CHECK_EQ_U64(verify(p, N(p), "syscall", KBPF_CAP_BPF, 0,
			    "program of this type cannot use helper bpf_probe_read_str#45"),
		     -EINVAL);
}

/* bpf_get_stack / bpf_get_stackid give the host thread's return addresses (an ASLR leak):
 * CAP_PERFMON in every type. A syscall program loaded with CAP_BPF alone had them (6.12
 * lists them there through raw_tp_prog_func_proto) */
static void test_get_stack_needs_perfmon(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_STACK_TRACE, .key_size = 4,
				    .value_size = 8 * 8, .max_entries = 4, .name = "st" };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	struct kbpf_map *maps[] = { m };
	struct bpf_insn stack[] = {
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
		BPF_MOV64_IMM(BPF_REG_3, 64),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_stack),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -64), /* a host return address */
		BPF_EXIT_INSN(),
	};
	struct bpf_insn stackid[] = {
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_stackid),
		BPF_EXIT_INSN(),
	};
	for (unsigned sleepable = 0; sleepable < 2; sleepable++) {
		CHECK_EQ_U64(verify(stack, N(stack), "syscall", KBPF_CAP_BPF, (int)sleepable,
				    "program of this type cannot use helper bpf_get_stack#67"),
			     -EINVAL);
		verify(stack, N(stack), "syscall", KBPF_CAP_BPF | KBPF_CAP_PERFMON, (int)sleepable, NULL);
		CHECK_EQ_U64(verify_maps(stackid, N(stackid), "syscall", KBPF_CAP_BPF, maps, 1,
					 "program of this type cannot use helper bpf_get_stackid#27"),
			     -EINVAL);
		verify_maps(stackid, N(stackid), "syscall", KBPF_CAP_BPF | KBPF_CAP_PERFMON, maps, 1, NULL);
	}
	/* the types that have them need CAP_PERFMON to load at all */
	verify(stack, N(stack), "kprobe", KBPF_CAP_BPF | KBPF_CAP_PERFMON, 0, NULL);
	verify_maps(stackid, N(stackid), "raw_tracepoint", KBPF_CAP_SYS_ADMIN, maps, 1, NULL);
	kbpf_map_free(m);
}

int main(void)
{
	char err[256] = "";
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host) ||
	    kbpf_linux_host_add_kfuncs(host, err, sizeof(err))) {
		fprintf(stderr, "test host: %s\n", err);
		return 1;
	}
	RUN(test_btf_load_needs_perfmon);
	RUN(test_uninit_stack_needs_perfmon);
	RUN(test_ptr_leaks_need_perfmon);
	RUN(test_copy_from_user_needs_perfmon);
	RUN(test_get_stack_needs_perfmon);
	kbpf_host_free(host);
	return test_summary();
}
#else
int main(void)
{
	printf("test_verifier_caps: no host BTF in this build (pahole missing): skipped\n0 passed, 0 failed\n");
	return 0;
}
#endif
