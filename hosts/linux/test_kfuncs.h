/* SPDX-License-Identifier: Apache-2.0 */
/* The test kfuncs of Linux 6.1's net/bpf/test_run.c and the types they take, with Linux's
 * names and layouts (docs/reference/kfunc-spec.md §4.1), so that Linux's kfunc
 * selftest programs resolve their `__ksym` externs and CO-RE relocations against a kbpf
 * host exactly as against vmlinux. The functions are global and noinline: each needs a
 * symbol, so that pahole gives it a BTF FUNC (docs/host-btf.md). Registered by
 * kbpf_linux_host_add_test_kfuncs (kbpf/linux.h). */
#ifndef KBPF_LINUX_TEST_KFUNCS_H
#define KBPF_LINUX_TEST_KFUNCS_H

#include <stdint.h>
#include <linux/bpf.h> /* struct __sk_buff */
#include <kbpf/tcp.h>  /* struct sock: the host's socket model, shared with the TCP host */

/* Linux's refcount_t, so the member reads as in vmlinux.h. */
typedef struct {
	int counter;
} kbpf_test_atomic_t;
typedef struct refcount_struct {
	kbpf_test_atomic_t refs;
} refcount_t;

struct prog_test_member1 {
	int a;
};

struct prog_test_member {
	struct prog_test_member1 m;
	int c;
};

/* a=0, b=4, memb=8, next=16, cnt=24: the offsets the selftests' BTF loads use. */
struct prog_test_ref_kfunc {
	int a;
	int b;
	struct prog_test_member memb;
	struct prog_test_ref_kfunc *next;
	refcount_t cnt;
};

/* Scalar-only structs nested up to 4 levels (memory arguments that pass). */
struct prog_test_pass1 {
	int x0;
	struct {
		int x1;
		struct {
			int x2;
			struct {
				int x3;
			};
		};
	};
};

struct prog_test_pass2 {
	int len;
	short arr1[4];
	struct {
		char arr2[4];
		unsigned long arr3[8];
	} x;
};

/* Memory arguments the verifier must refuse: a pointer member, nesting deeper than 4,
 * a flexible array. */
struct prog_test_fail1 {
	void *p;
	int x;
};

struct prog_test_fail2 {
	int x8;
	struct prog_test_pass1 x;
};

struct prog_test_fail3 {
	int len;
	char arr1[2];
	char arr2[];
};

#define KBPF_TEST_KFUNC __attribute__((noinline, used))

KBPF_TEST_KFUNC uint64_t bpf_kfunc_call_test1(struct sock *sk, uint32_t a, uint64_t b, uint32_t c, uint64_t d);
KBPF_TEST_KFUNC int bpf_kfunc_call_test2(struct sock *sk, uint32_t a, uint32_t b);
KBPF_TEST_KFUNC struct sock *bpf_kfunc_call_test3(struct sock *sk);
KBPF_TEST_KFUNC struct prog_test_ref_kfunc *bpf_kfunc_call_test_acquire(unsigned long *scalar_ptr);
KBPF_TEST_KFUNC struct prog_test_member *bpf_kfunc_call_memb_acquire(void);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_memb_release(struct prog_test_member *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_memb1_release(struct prog_test_member1 *p);
KBPF_TEST_KFUNC int *bpf_kfunc_call_test_get_rdwr_mem(struct prog_test_ref_kfunc *p, const int rdwr_buf_size);
KBPF_TEST_KFUNC int *bpf_kfunc_call_test_get_rdonly_mem(struct prog_test_ref_kfunc *p, const int rdonly_buf_size);
KBPF_TEST_KFUNC int *bpf_kfunc_call_test_acq_rdonly_mem(struct prog_test_ref_kfunc *p, const int rdonly_buf_size);
KBPF_TEST_KFUNC void bpf_kfunc_call_int_mem_release(int *p);
KBPF_TEST_KFUNC struct prog_test_ref_kfunc *bpf_kfunc_call_test_kptr_get(struct prog_test_ref_kfunc **pp, int a, int b);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_pass_ctx(struct __sk_buff *skb);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_pass1(struct prog_test_pass1 *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_pass2(struct prog_test_pass2 *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_fail1(struct prog_test_fail1 *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_fail2(struct prog_test_fail2 *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_fail3(struct prog_test_fail3 *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_mem_len_pass1(void *mem, int mem__sz);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_mem_len_fail1(void *mem, int len);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_mem_len_fail2(uint64_t *mem, int len);
/* kbpf's own, for 6.12's argument suffixes: a (mem, constant size) pair that writes the
 * size's bytes, and a constant string whose length it returns */
KBPF_TEST_KFUNC void bpf_kfunc_call_test_mem_len_szk(char *mem, int mem__szk);
KBPF_TEST_KFUNC int bpf_kfunc_call_test_str(const char *s__str);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_ref(struct prog_test_ref_kfunc *p);
/* 6.12's bpf_testmod: takes an object; never meant to run (the verifier refuses its calls
 * in the selftests) */
KBPF_TEST_KFUNC void bpf_kfunc_call_test_offset(struct prog_test_ref_kfunc *p);
KBPF_TEST_KFUNC void bpf_kfunc_call_test_destructive(void);

/* The one static object the acquire kfuncs hand out ({a 42, b 108, next itself, cnt 1}),
 * and how many times a kfunc Linux guards with WARN_ON_ONCE ran (memb_acquire,
 * memb1_release: never, if the verifier does its job). For tests. */
struct prog_test_ref_kfunc *kbpf_linux_test_kfunc_object(void);
unsigned kbpf_linux_test_kfunc_warnings(void);

#endif /* KBPF_LINUX_TEST_KFUNCS_H */
