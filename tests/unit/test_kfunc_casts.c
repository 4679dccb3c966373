/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.12's generic casts bpf_cast_to_kern_ctx / bpf_rdonly_cast (the Linux host's
 * common kfuncs, hosts/linux/src/kfuncs_common.c; src/verifier/kfunc.c), trusted BTF
 * pointers as read-only helper memory (src/verifier/helper.c), and global function
 * arguments tagged arg:trusted (src/verifier/func_info.c): each rule accepted and
 * refused with Linux 6.12's message, the casts run on the interpreter (checked and not)
 * and the JIT. The host BTF is this binary's own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include "test.h"

#ifdef KBPF_TEST_VKFUNC_HOST
#include <kbpf/linux.h>
#include "../../hosts/linux/test_kfuncs.h"

static struct kbpf_host *host;
static char log_buf[65536];

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* bpf_csum_diff(R1, 4, NULL, 0, 0): a helper that only reads its memory (5 insns) */
#define CSUM_DIFF_R1_4                                                                       \
	BPF_MOV64_IMM(BPF_REG_2, 4), BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0), \
		BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_csum_diff)
#define K(name) BPF_CALL_KFUNC(0, test_btf_id(host, name, BTF_KIND_FUNC))
#define SKB_ID test_btf_id(host, "kbpf_linux_skb", BTF_KIND_STRUCT)

/* The program's own BTF and func_info, for global functions (NULL: none). */
struct prog_btf {
	struct btf *btf;
	struct bpf_func_info fi[2];
	uint32_t nr;
};

/* Verify as type (sched_cls by default); expect NULL: must pass, else the log must
 * contain expect. xlated: the rewritten program, if wanted. */
static int verify_btf(const struct bpf_insn *insns, size_t n, const char *type, const struct prog_btf *pb,
		      const char *expect, struct bpf_insn *xlated)
{
	struct kbpf_verify_opts o = {
		.sz = sizeof(o), .host = host, .prog_type = type ? type : "sched_cls", .license = "GPL",
		.log_level = KBPF_LOG_LEVEL1, .log_buf = log_buf, .log_size = sizeof(log_buf), .xlated_insns = xlated,
	};
	if (pb) {
		o.prog_btf = pb->btf;
		o.func_info = pb->fi;
		o.nr_func_info = pb->nr;
	}
	log_buf[0] = 0;
	int err = kbpf_prog_verify(insns, n, &o, NULL);
	return check_verdict(err, log_buf, expect);
}

static int verify(const struct bpf_insn *insns, size_t n, const char *type, const char *expect)
{
	return verify_btf(insns, n, type, NULL, expect, NULL);
}

/* setup; call kfunc; r0 = 0; exit — verified as type (sched_cls by default). */
static void call_after(struct bpf_insn setup, const char *kfunc, const char *type, const char *expect)
{
	struct bpf_insn p[] = { setup, K(kfunc), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	verify(p, N(p), type, expect);
}

/* Create insns as sched_cls and run it on a 64-byte packet: the interpreter, checked
 * (the context struct and the packet declared), and the JIT must all give expected. */
static void run_skb(const struct bpf_insn *insns, size_t n, const struct prog_btf *pb, uint64_t expected, int line)
{
	static uint8_t buf[256];
	struct kbpf_linux_skb skb;
	CHECK(!kbpf_linux_skb_init(&skb, buf, sizeof(buf), 64, 64));
	for (int engine = 0; engine < 3; engine++) {
#ifndef __x86_64__
		if (engine == 2) { /* kbpf's JIT is x86-64's only */
			static int said;
			if (!said++)
				printf("JIT runs skipped: no JIT off x86-64\n");
			break;
		}
#endif
		char log[4096] = "", err[256] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .name = "casts", .prog_type = "sched_cls",
					     .license = "GPL", .jit = engine == 2, .log_buf = log,
					     .log_size = sizeof(log) };
		if (pb) {
			po.prog_btf = pb->btf;
			po.func_info = pb->fi;
			po.nr_func_info = pb->nr;
		}
		struct kbpf_prog *prog = NULL;
		int ret = kbpf_prog_create(insns, n, &po, &prog);
		if (ret) {
			fprintf(stderr, "line %d: create failed %d: %s\n", line, ret, log);
			test_failed_now = 1;
			continue;
		}
		uint64_t r0 = ~0ull;
		if (engine == 1) {
			struct kbpf_mem_region regions[2] = {
				{ &skb, sizeof(skb), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
				{ buf, sizeof(buf), KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
			};
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&skb },
						    .flags = KBPF_RUN_CHECKED, .regions = regions, .nr_regions = 2,
						    .err = err, .err_size = sizeof(err) };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			ret = kbpf_prog_run_opts(prog, &ro, &rr);
			r0 = rr.retval;
		} else {
			ret = kbpf_prog_run(prog, &skb, &r0);
		}
		if (ret || r0 != expected) {
			fprintf(stderr, "line %d: engine %d: run %d gave 0x%llx, expected 0x%llx %s\n", line, engine, ret,
				(unsigned long long)r0, (unsigned long long)expected, err);
			test_failed_now = 1;
		}
		kbpf_prog_free(prog);
	}
}

/* bpf_cast_to_kern_ctx: the context as struct kbpf_linux_skb, a BTF pointer read through
 * the host BTF (md.len at 0: the packet's length), never written. */
static void test_cast_to_kern_ctx(void)
{
	struct bpf_insn ok[] = {
		K("bpf_cast_to_kern_ctx"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), /* kskb->md.len */
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL, NULL);
	run_skb(ok, N(ok), NULL, 64, __LINE__);
	/* the whole run-time struct: past the __sk_buff view, its head pointer (a scalar) */
	struct bpf_insn head[] = {
		K("bpf_cast_to_kern_ctx"),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)offsetof(struct kbpf_linux_skb, head)),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, (int16_t)offsetof(struct kbpf_linux_skb, data)),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	run_skb(head, N(head), NULL, 64, __LINE__);
	/* the argument: the context itself, unmodified */
	call_after((struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), "bpf_cast_to_kern_ctx", NULL,
		   "arg#0 expected pointer to ctx, but got fp");
	call_after((struct bpf_insn)BPF_MOV64_IMM(BPF_REG_1, 0), "bpf_cast_to_kern_ctx", NULL,
		   "arg#0 expected pointer to ctx, but got scalar");
	call_after((struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), "bpf_cast_to_kern_ctx", NULL,
		   "dereference of modified ctx ptr R1 off=8 disallowed");
	/* read-only: sched_cls has no btf_struct_access */
	struct bpf_insn write[] = {
		K("bpf_cast_to_kern_ctx"),
		BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(write, N(write), NULL, "only read is supported");
	/* nothing beyond the struct */
	struct bpf_insn beyond[] = {
		K("bpf_cast_to_kern_ctx"),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, (int16_t)sizeof(struct kbpf_linux_skb)),
		BPF_EXIT_INSN(),
	};
	verify(beyond, N(beyond), NULL, "access beyond struct kbpf_linux_skb");
	/* a type whose run-time context the host did not name (kbpf_prog_type.kern_ctx_btf_name) */
	verify(ok, N(ok), "kprobe", "kern ctx type id 0 is not a struct\n"); /* Linux 6.12's line, exactly */
	/* R1-R5 are clobbered like any call's */
	struct bpf_insn clob[] = {
		BPF_MOV64_IMM(BPF_REG_2, 1),
		K("bpf_cast_to_kern_ctx"),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	verify(clob, N(clob), NULL, "R2 !read_ok");
}

/* bpf_rdonly_cast: anything as an untrusted, read-only pointer to a host struct or union;
 * its loads are fault-tolerant, so even a made-up address reads (as 0). */
static void test_rdonly_cast(void)
{
	struct bpf_insn ok[] = {
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		K("bpf_rdonly_cast"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL, NULL);
	run_skb(ok, N(ok), NULL, 64, __LINE__);
	/* an address nothing backs: Linux's fault gives 0, so does kbpf's probe load */
	struct bpf_insn wild[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0x10),
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		K("bpf_rdonly_cast"),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	run_skb(wild, N(wild), NULL, 0, __LINE__);
	/* never written: ST, STX, atomic through the cast */
	const struct bpf_insn stores[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1),
		BPF_STX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),
		BPF_STX_XADD(BPF_W, BPF_REG_0, BPF_REG_1, 0),
	};
	for (size_t i = 0; i < N(stores); i++) {
		struct bpf_insn w[] = {
			BPF_MOV64_IMM(BPF_REG_2, SKB_ID), K("bpf_rdonly_cast"), BPF_MOV64_IMM(BPF_REG_1, 1), stores[i],
			BPF_MOV64_IMM(BPF_REG_0, 0),	  BPF_EXIT_INSN(),
		};
		verify(w, N(w), NULL, "only read is supported");
	}
	/* nor with a variable offset */
	struct bpf_insn var_off[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_6, 8),
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		K("bpf_rdonly_cast"),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(var_off, N(var_off), NULL, "invalid variable offset");
	/* nor handed to a helper as memory, even one that only reads it */
	struct bpf_insn helper[] = {
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		K("bpf_rdonly_cast"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		CSUM_DIFF_R1_4,
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(helper, N(helper), NULL, "R1 type=untrusted_ptr_ expected=");
	/* nor to a kfunc */
	struct bpf_insn kfunc[] = {
		BPF_MOV64_IMM(BPF_REG_2, test_btf_id(host, "prog_test_ref_kfunc", BTF_KIND_STRUCT)),
		K("bpf_rdonly_cast"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		K("bpf_kfunc_call_test_ref"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	/* Linux 6.12 takes the untrusted BTF pointer as KF_ARG_PTR_TO_BTF_ID and refuses it
	 * for KF_TRUSTED_ARGS ("R1 must be a rcu pointer" with the selftests' KF_RCU) */
	verify_btf(kfunc, N(kfunc), "sched_cls", NULL, "R1 must be referenced or trusted\n", NULL);
	/* the type id: a known constant, of a struct or union */
	call_after((struct bpf_insn)BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0), "bpf_rdonly_cast", NULL,
		   "R2 must be a known constant");
	call_after((struct bpf_insn)BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), "bpf_rdonly_cast", NULL,
		   "R2 is not a scalar");
	call_after((struct bpf_insn)BPF_MOV64_IMM(BPF_REG_2, test_btf_id(host, "int", BTF_KIND_INT)), "bpf_rdonly_cast", NULL,
		   "kfunc bpf_rdonly_cast type ID argument must be of a struct");
	call_after((struct bpf_insn)BPF_MOV64_IMM(BPF_REG_2, 0x7ffffff0), "bpf_rdonly_cast", NULL,
		   "kfunc bpf_rdonly_cast type ID argument must be of a struct");
	struct bpf_insn uninit[] = {
		BPF_EMIT_CALL(BPF_FUNC_ktime_get_ns),
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		K("bpf_rdonly_cast"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(uninit, N(uninit), NULL, "R1 !read_ok");
}

/* insns verify as sched_cls into exactly want (the rewritten program, stack depth 0),
 * and run to ret on every engine. */
static void xlated_is(const struct bpf_insn *insns, size_t n, const struct bpf_insn *want, size_t nw, uint64_t ret,
		      int line)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				      .log_buf = log_buf, .log_size = sizeof(log_buf), .xlated_alloc = 1 };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	CHECK_EQ_U64(kbpf_prog_verify(insns, n, &o, &res), 0);
	CHECK_EQ_U64(res.xlated_cnt, nw);
	if (!res.xlated_prog || res.xlated_cnt != nw || memcmp(res.xlated_prog, want, nw * sizeof(*want))) {
		fprintf(stderr, "line %d: not the expected rewrite\n", line);
		test_failed_now = 1;
	}
	CHECK_EQ_U64(res.stack_depth[0], 0);
	free(res.xlated_prog);
	free(res.xlated_idx);
	run_skb(insns, n, NULL, ret, line);
}

/* Both casts become r0 = r1 (Linux's fixup_kfunc_call), and their bpf_fastcall spills go
 * (6.12's verifier_bpf_fastcall kfunc_bpf_rdonly_cast: R3 kept across the call;
 * kfunc_bpf_cast_to_kern_ctx: R2). */
static void test_casts_xlated(void)
{
	const struct bpf_insn rc[] = {
		BPF_MOV64_IMM(BPF_REG_3, 7),
		BPF_MOV64_IMM(BPF_REG_2, SKB_ID),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_3, -8),
		K("bpf_rdonly_cast"),
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_10, -8),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_3),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn rc_x[] = { rc[0], rc[1], BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), rc[5], rc[6] };
	xlated_is(rc, N(rc), rc_x, N(rc_x), 7, __LINE__);
	const struct bpf_insn kc[] = {
		BPF_MOV64_IMM(BPF_REG_2, 5),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
		K("bpf_cast_to_kern_ctx"),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -8),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn kc_x[] = { kc[0], BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), kc[4], kc[5] };
	xlated_is(kc, N(kc), kc_x, N(kc_x), 5, __LINE__);
}

/* 6.12: helper memory may be a trusted BTF pointer, when the helper only reads it. */
static void test_trusted_helper_mem(void)
{
	struct bpf_insn ok[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		K("bpf_cast_to_kern_ctx"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		CSUM_DIFF_R1_4,
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL, NULL);
	run_skb(ok, N(ok), NULL, 0, __LINE__);
	struct bpf_insn beyond[N(ok)];
	memcpy(beyond, ok, sizeof(ok));
	beyond[3] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_2, (int32_t)sizeof(struct kbpf_linux_skb) + 4);
	verify(beyond, N(beyond), NULL, "access beyond struct kbpf_linux_skb");
	/* a helper that writes its memory (bpf_skb_load_bytes' to) */
	struct bpf_insn wr[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		K("bpf_cast_to_kern_ctx"),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_4, 4),
		BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(wr, N(wr), NULL, "bpf_skb_load_bytes() may write into memory pointed by R3 type=ptr_");
	/* the expected list names it (6.12's verifier_movsx "MOV64SX, S16, R10") */
	struct bpf_insn sc[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		CSUM_DIFF_R1_4,
		BPF_EXIT_INSN(),
	};
	verify(sc, N(sc), NULL,
	       "R1 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_");
}

/* --- arg:trusted ---------------------------------------------------------------- */

/* BTF: int main(struct __sk_buff *ctx); int f(struct NAME *p) with the decl tags
 * "arg:TAG" of tags (space-separated) on p. */
static void trusted_btf(struct prog_btf *pb, const char *name, const char *tags, int f_start)
{
	struct btf *b = btf__new_empty();
	int t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int t_s = btf__add_struct(b, name, 0);
	int t_p = btf__add_ptr(b, t_s);
	int t_ctx = btf__add_struct(b, "__sk_buff", 0);
	int t_pctx = btf__add_ptr(b, t_ctx);
	int pm = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "ctx", t_pctx);
	int fm = btf__add_func(b, "main", BTF_FUNC_GLOBAL, pm);
	int pf = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "p", t_p);
	int ff = btf__add_func(b, "f", BTF_FUNC_GLOBAL, pf);
	char buf[64];
	for (const char *s = tags; s && *s;) {
		size_t len = strcspn(s, " ");
		snprintf(buf, sizeof(buf), "arg:%.*s", (int)len, s);
		btf__add_decl_tag(b, buf, ff, 0);
		s += len + (s[len] == ' ');
	}
	pb->btf = b;
	pb->fi[0] = (struct bpf_func_info){ 0, (uint32_t)fm };
	pb->fi[1] = (struct bpf_func_info){ (uint32_t)f_start, (uint32_t)ff };
	pb->nr = 2;
}

/* main's body that leaves in R1 what f gets (n insns; nonnull: it left R7 known
 * non-NULL), then calls f and releases the acquired object in R7 if any; f returns p->a
 * (42 for Linux's test object) or, with check_null, 0 for NULL. */
static int trusted_case_at(int line, const struct bpf_insn *arg, size_t n, bool nonnull, const char *name,
			   const char *tags, bool check_null, const char *expect, uint64_t retval)
{
	struct bpf_insn p[64];
	size_t k = 0;
	/* r7 = acquire(&(u64){0}) */
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[k++] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0);
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
	p[k++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8);
	p[k++] = (struct bpf_insn)K("bpf_kfunc_call_test_acquire");
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_7, BPF_REG_0);
	for (size_t i = 0; i < n; i++)
		p[k++] = arg[i];
	size_t call = k++;
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_8, BPF_REG_0);
	if (!nonnull) /* (kbpf decides no compare of a BTF pointer, checked or not) */
		p[k++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 2);
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_7);
	p[k++] = (struct bpf_insn)K("bpf_kfunc_call_test_release");
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_0, BPF_REG_8);
	p[k++] = (struct bpf_insn)BPF_EXIT_INSN();
	size_t f = k;
	p[call] = (struct bpf_insn)BPF_CALL_REL((int32_t)(f - call - 1));
	if (check_null) {
		p[k++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
		p[k++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1);
	}
	p[k++] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0);
	p[k++] = (struct bpf_insn)BPF_EXIT_INSN();
	struct prog_btf pb;
	trusted_btf(&pb, name, tags, (int)f);
	int err = verify_btf(p, k, NULL, &pb, expect, NULL);
	if (!expect && !err && retval != ~0ull)
		run_skb(p, k, &pb, retval, line);
	btf__free(pb.btf);
	return err;
}
#define trusted_case(...) trusted_case_at(__LINE__, __VA_ARGS__)

static void test_arg_trusted(void)
{
	/* an acquired object, NULL-checked (a NULL one exits): the callee reads it unchecked */
	struct bpf_insn ok[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 1),
		BPF_EXIT_INSN(), /* R0 = NULL: a scalar 0 */
	};
	trusted_case(ok, N(ok), true, "prog_test_ref_kfunc", "trusted", false, NULL, 42);
	CHECK_CONTAINS(log_buf, "Func#1 ('f') is safe for any args that match its prototype");
	/* a CO-RE flavour of the struct's name */
	trusted_case(ok, N(ok), true, "prog_test_ref_kfunc___local", "trusted", false, NULL, 42);
	/* maybe NULL: refused for the non-nullable argument */
	struct bpf_insn maybe[] = { BPF_MOV64_REG(BPF_REG_1, BPF_REG_7) };
	trusted_case(maybe, N(maybe), false, "prog_test_ref_kfunc", "trusted", false,
		     "R1 type=ptr_or_null_ expected=ptr_, trusted_ptr_, rcu_ptr_", 0);
	CHECK_CONTAINS(log_buf, "Caller passes invalid args into func#1 ('f')");
	struct bpf_insn null[] = { BPF_MOV64_IMM(BPF_REG_1, 0) };
	trusted_case(null, N(null), false, "prog_test_ref_kfunc", "trusted", false,
		     "R1 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_", 0);
	/* nullable: NULL and maybe-NULL pass, and the callee must check */
	trusted_case(maybe, N(maybe), false, "prog_test_ref_kfunc", "trusted nullable", true, NULL, 42);
	trusted_case(null, N(null), false, "prog_test_ref_kfunc", "trusted nullable", true, NULL, 0);
	trusted_case(maybe, N(maybe), false, "prog_test_ref_kfunc", "trusted nullable", false,
		     "R1 invalid mem access 'ptr_or_null_'", 0);
	/* another struct */
	struct bpf_insn ctx[] = { BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), K("bpf_cast_to_kern_ctx"),
				  BPF_MOV64_REG(BPF_REG_1, BPF_REG_0) };
	trusted_case(ctx, N(ctx), false, "prog_test_ref_kfunc", "trusted", false,
		     "R1 is of type kbpf_linux_skb but prog_test_ref_kfunc is expected", 0);
	/* an untrusted pointer: bpf_rdonly_cast's, of the right struct */
	struct bpf_insn unt[] = { BPF_MOV64_IMM(BPF_REG_1, 0x1000),
				  BPF_MOV64_IMM(BPF_REG_2, test_btf_id(host, "prog_test_ref_kfunc", BTF_KIND_STRUCT)),
				  K("bpf_rdonly_cast"), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0) };
	trusted_case(unt, N(unt), false, "prog_test_ref_kfunc", "trusted", false,
		     "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_", 0);
	/* a plain pointer (read from the object, NULL-checked): refused, stricter than 6.12,
	 * which takes a plain ptr_ here and makes it trusted inside the function */
	struct bpf_insn walked[] = {
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 1),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_7, (int16_t)offsetof(struct prog_test_ref_kfunc, next)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 1),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
	};
	trusted_case(walked, N(walked), true, "prog_test_ref_kfunc", "trusted", false,
		     "R1 must be referenced or trusted", 0);
	CHECK_CONTAINS(log_buf, "Caller passes invalid args into func#1 ('f')");
	/* memory of the struct's size is no object */
	struct bpf_insn stack[] = { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8) };
	trusted_case(stack, N(stack), false, "prog_test_ref_kfunc", "trusted", false,
		     "R1 type=fp expected=ptr_, trusted_ptr_, rcu_ptr_", 0);
	/* tags and types the callee refuses */
	trusted_case(ok, N(ok), true, "prog_test_ref_kfunc", "trusted nonnull", false,
		     "arg#0 has invalid combination of tags", 0);
	trusted_case(ok, N(ok), true, "no_such_struct", "trusted", false,
		     "arg#0 reference type('STRUCT no_such_struct') has no matches", 0);
	/* 6.12's candidate search refuses an anonymous struct (bpf_core_find_cands: -EINVAL) */
	trusted_case(ok, N(ok), true, "", "trusted", false,
		     "arg#0 reference type('STRUCT ') candidate matching error: -22\n", 0);
	trusted_case(null, N(null), false, "prog_test_ref_kfunc", "arena", false, "arg:arena is not supported by kbpf", 0);
}

/* Inside, the argument is read-only (sched_cls has no btf_struct_access) and holds no
 * reference: the callee cannot release it. */
static void test_arg_trusted_callee(void)
{
	struct bpf_insn pass[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 1),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn p[32];
	size_t k = 0;
	p[k++] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0);
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
	p[k++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8);
	p[k++] = (struct bpf_insn)K("bpf_kfunc_call_test_acquire");
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_7, BPF_REG_0);
	for (size_t i = 0; i < N(pass); i++)
		p[k++] = pass[i];
	size_t call = k++;
	p[k++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_1, BPF_REG_7);
	p[k++] = (struct bpf_insn)K("bpf_kfunc_call_test_release");
	p[k++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
	p[k++] = (struct bpf_insn)BPF_EXIT_INSN();
	size_t f = k;
	p[call] = (struct bpf_insn)BPF_CALL_REL((int32_t)(f - call - 1));
	struct prog_btf pb;
	trusted_btf(&pb, "prog_test_ref_kfunc", "trusted", (int)f);
	/* f: release it */
	p[k] = (struct bpf_insn)K("bpf_kfunc_call_test_release");
	p[k + 1] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
	p[k + 2] = (struct bpf_insn)BPF_EXIT_INSN();
	verify_btf(p, k + 3, NULL, &pb, "release kernel function bpf_kfunc_call_test_release expects refcounted PTR_TO_BTF_ID",
		   NULL);
	/* f: write it */
	p[k] = (struct bpf_insn)BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 1);
	verify_btf(p, k + 3, NULL, &pb, "only read is supported", NULL);
	/* f: walk it: its next pointer is maybe-NULL (kbpf's plain loads) */
	p[k] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1,
					     (int16_t)offsetof(struct prog_test_ref_kfunc, next));
	p[k + 1] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0);
	verify_btf(p, k + 3, NULL, &pb, "R1 invalid mem access 'ptr_or_null_'", NULL);
	btf__free(pb.btf);
}

/* registered once: a second registration is a duplicate */
static void test_kfuncs_registered_once(void)
{
	char err[256] = "";
	CHECK_EQ_U64(kbpf_linux_host_add_kfuncs(host, err, sizeof(err)), -EEXIST);
}

static void count_type(const struct kbpf_prog_type *type, void *arg)
{
	(void)type;
	++*(size_t *)arg;
}

/* A Linux host with n program types (its own and "extra_*" ones), BTF loaded. */
static struct kbpf_host *host_with_types(size_t n)
{
	struct kbpf_host *h = kbpf_host_new();
	size_t have = 0;
	char name[32];

	if (!h || kbpf_linux_host_add(h) || kbpf_host_btf_load_self(h)) {
		kbpf_host_free(h);
		return NULL;
	}
	kbpf_host_prog_type_foreach(h, count_type, &have);
	for (size_t i = 0; have < n; i++, have++) {
		struct kbpf_prog_type t = { .sz = sizeof(t), .name = name };

		snprintf(name, sizeof(name), "extra_%zu", i);
		if (kbpf_host_prog_type_register(h, &t)) {
			kbpf_host_free(h);
			return NULL;
		}
	}
	return have == n ? h : (kbpf_host_free(h), NULL);
}

/* The casts are registered for up to 256 program types (256 were refused as too many);
 * a refusal says why in the log. */
static void test_kfuncs_type_limit(void)
{
	char err[256] = "";
	struct kbpf_host *h = host_with_types(256);

	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_U64(kbpf_linux_host_add_kfuncs(h, err, sizeof(err)), 0);
		kbpf_host_free(h);
	}
	h = host_with_types(257);
	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_U64(kbpf_linux_host_add_kfuncs(h, err, sizeof(err)), -E2BIG);
		CHECK_CONTAINS(err, "the host has 257 program types, more than the 256");
		kbpf_host_free(h);
	}
	err[0] = 0;
	CHECK_EQ_U64(kbpf_linux_host_add_kfuncs(NULL, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "no host");
}

int main(void)
{
	char err[256] = "";
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host) ||
	    kbpf_linux_host_add_test_kfuncs(host, err, sizeof(err)) || kbpf_linux_host_add_kfuncs(host, err, sizeof(err))) {
		fprintf(stderr, "test host: %s\n", err);
		return 1;
	}
	RUN(test_kfuncs_registered_once);
	RUN(test_kfuncs_type_limit);
	RUN(test_cast_to_kern_ctx);
	RUN(test_rdonly_cast);
	RUN(test_casts_xlated);
	RUN(test_trusted_helper_mem);
	RUN(test_arg_trusted);
	RUN(test_arg_trusted_callee);
	kbpf_host_free(host);
	return test_summary();
}
#else
int main(void)
{
	printf("test_kfunc_casts: no host BTF in this build (pahole missing): skipped\n0 passed, 0 failed\n");
	return 0;
}
#endif
