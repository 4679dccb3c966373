/* SPDX-License-Identifier: Apache-2.0 */
/* The test kfuncs of Linux 6.1's net/bpf/test_run.c as a kbpf host, written from their
 * documented behaviour (docs/reference/kfunc-spec.md §4.1): what Linux's kfunc selftests call. Most do
 * nothing: the selftests test the verifier's argument and reference rules, and only
 * test1/2/3, acquire/release and the get_mem pair have results a program can see. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <kbpf/kfunc.h>
#include <kbpf/linux.h>
#include "test_kfuncs.h"

/* Linux has one static instance too (prog_test_struct): the kfuncs get no host pointer,
 * so a per-host object could not be found. Its count is atomic because programs may run
 * on several threads. */
static struct prog_test_ref_kfunc test_object = {
	.a = 42,
	.b = 108,
	.next = &test_object,
	.cnt = { { 1 } },
};
/* Linux WARNs when a kfunc that a correct verifier never lets run does run. */
static unsigned test_warnings;

struct prog_test_ref_kfunc *kbpf_linux_test_kfunc_object(void)
{
	return &test_object;
}

unsigned kbpf_linux_test_kfunc_warnings(void)
{
	return __atomic_load_n(&test_warnings, __ATOMIC_RELAXED);
}

static void warn_once(const char *fn)
{
	if (__atomic_fetch_add(&test_warnings, 1, __ATOMIC_RELAXED) == 0)
		fprintf(stderr, "kbpf: test kfunc %s ran: the verifier should have refused the call\n", fn);
}

uint64_t bpf_kfunc_call_test1(struct sock *sk, uint32_t a, uint64_t b, uint32_t c, uint64_t d)
{
	(void)sk;
	return a + b + c + d;
}

int bpf_kfunc_call_test2(struct sock *sk, uint32_t a, uint32_t b)
{
	(void)sk;
	return (int)(a + b);
}

struct sock *bpf_kfunc_call_test3(struct sock *sk)
{
	return sk;
}

struct prog_test_ref_kfunc *bpf_kfunc_call_test_acquire(unsigned long *scalar_ptr)
{
	(void)scalar_ptr;
	__atomic_fetch_add(&test_object.cnt.refs.counter, 1, __ATOMIC_RELAXED);
	return &test_object;
}

struct prog_test_member *bpf_kfunc_call_memb_acquire(void)
{
	warn_once(__func__);
	return NULL;
}

void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&p->cnt.refs.counter, 1, __ATOMIC_RELEASE);
}

void bpf_kfunc_call_memb_release(struct prog_test_member *p)
{
	(void)p;
}

void bpf_kfunc_call_memb1_release(struct prog_test_member1 *p)
{
	(void)p;
	warn_once(__func__);
}

/* The first size bytes of the object as memory (a and b): NULL beyond 8 bytes. */
static int *test_get_mem(struct prog_test_ref_kfunc *p, int size)
{
	if (size > (int)(2 * sizeof(int)))
		return NULL;
	return (int *)p;
}

int *bpf_kfunc_call_test_get_rdwr_mem(struct prog_test_ref_kfunc *p, const int rdwr_buf_size)
{
	return test_get_mem(p, rdwr_buf_size);
}

int *bpf_kfunc_call_test_get_rdonly_mem(struct prog_test_ref_kfunc *p, const int rdonly_buf_size)
{
	return test_get_mem(p, rdonly_buf_size);
}

/* Invalid by design (an acquire kfunc returning memory): the verifier must refuse it. */
int *bpf_kfunc_call_test_acq_rdonly_mem(struct prog_test_ref_kfunc *p, const int rdonly_buf_size)
{
	return test_get_mem(p, rdonly_buf_size);
}

void bpf_kfunc_call_int_mem_release(int *p)
{
	(void)p;
}

struct prog_test_ref_kfunc *bpf_kfunc_call_test_kptr_get(struct prog_test_ref_kfunc **pp, int a, int b)
{
	struct prog_test_ref_kfunc *p = __atomic_load_n(pp, __ATOMIC_RELAXED);

	(void)a, (void)b;
	if (!p)
		return NULL;
	__atomic_fetch_add(&p->cnt.refs.counter, 1, __ATOMIC_RELAXED);
	return p;
}

void bpf_kfunc_call_test_pass_ctx(struct __sk_buff *skb)
{
	(void)skb;
}

void bpf_kfunc_call_test_pass1(struct prog_test_pass1 *p)
{
	(void)p;
}

void bpf_kfunc_call_test_pass2(struct prog_test_pass2 *p)
{
	(void)p;
}

void bpf_kfunc_call_test_fail1(struct prog_test_fail1 *p)
{
	(void)p;
}

void bpf_kfunc_call_test_fail2(struct prog_test_fail2 *p)
{
	(void)p;
}

void bpf_kfunc_call_test_fail3(struct prog_test_fail3 *p)
{
	(void)p;
}

void bpf_kfunc_call_test_mem_len_pass1(void *mem, int mem__sz)
{
	(void)mem, (void)mem__sz;
}

void bpf_kfunc_call_test_mem_len_szk(char *mem, int mem__szk)
{
	for (int i = 0; i < mem__szk; i++)
		mem[i] = 0x41;
}

int bpf_kfunc_call_test_str(const char *s__str)
{
	return (int)strlen(s__str);
}

void bpf_kfunc_call_test_mem_len_fail1(void *mem, int len)
{
	(void)mem, (void)len;
}

void bpf_kfunc_call_test_mem_len_fail2(uint64_t *mem, int len)
{
	(void)mem, (void)len;
}

void bpf_kfunc_call_test_ref(struct prog_test_ref_kfunc *p)
{
	(void)p;
}

void bpf_kfunc_call_test_destructive(void)
{
}

/* 6.12's bpf_testmod kfunc for calls.c's "PTR_TO_BTF_ID with negative offset" (6.1's
 * version of that case loaded a member pointer instead): a call that must be refused. */
void bpf_kfunc_call_test_offset(struct prog_test_ref_kfunc *p)
{
	(void)p;
	warn_once(__func__);
}

/* Linux's per-CPU counter of running tracing programs (kernel/bpf/syscall.c), which
 * kfunc_call_test_subprog.c reads through a typed __ksym and bpf_per_cpu_ptr. No
 * program type here counts into it: it stays 0 (a tc program sees 0 in Linux too). */
KBPF_HOST_PERCPU int bpf_prog_active;

static const struct kbpf_host_var test_vars[] = { KBPF_HOST_VAR(bpf_prog_active) };

/* Linux's set bpf_prog_test_kfunc_set, flags as in its BTF_ID_FLAGS lines. */
static const struct kbpf_kfunc test_kfuncs[] = {
	KBPF_KFUNC(bpf_kfunc_call_test1, 0),
	KBPF_KFUNC(bpf_kfunc_call_test2, 0),
	KBPF_KFUNC(bpf_kfunc_call_test3, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_acquire, KF_ACQUIRE | KF_RET_NULL),
	KBPF_KFUNC(bpf_kfunc_call_memb_acquire, KF_ACQUIRE | KF_RET_NULL),
	KBPF_KFUNC(bpf_kfunc_call_test_release, KF_RELEASE),
	KBPF_KFUNC(bpf_kfunc_call_memb_release, KF_RELEASE),
	KBPF_KFUNC(bpf_kfunc_call_memb1_release, KF_RELEASE),
	KBPF_KFUNC(bpf_kfunc_call_test_get_rdwr_mem, KF_RET_NULL),
	KBPF_KFUNC(bpf_kfunc_call_test_get_rdonly_mem, KF_RET_NULL),
	KBPF_KFUNC(bpf_kfunc_call_test_acq_rdonly_mem, KF_ACQUIRE | KF_RET_NULL),
	KBPF_KFUNC(bpf_kfunc_call_int_mem_release, KF_RELEASE),
	KBPF_KFUNC(bpf_kfunc_call_test_kptr_get, KF_ACQUIRE | KF_RET_NULL | KF_KPTR_GET),
	KBPF_KFUNC(bpf_kfunc_call_test_pass_ctx, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_pass1, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_pass2, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_fail1, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_fail2, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_fail3, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_mem_len_pass1, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_mem_len_fail1, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_mem_len_fail2, 0),
	KBPF_KFUNC(bpf_kfunc_call_test_mem_len_szk, 0), /* kbpf's */
	KBPF_KFUNC(bpf_kfunc_call_test_str, 0),         /* kbpf's */
	KBPF_KFUNC(bpf_kfunc_call_test_ref, KF_TRUSTED_ARGS),
	KBPF_KFUNC(bpf_kfunc_call_test_destructive, KF_DESTRUCTIVE),
	KBPF_KFUNC(bpf_kfunc_call_test_offset, 0), /* 6.12's bpf_testmod set, no flags */
};

/* Linux's bpf_prog_test_dtor_kfunc: what a map holding a referenced kptr of these types
 * calls when it lets go of it (map_kptr.c's map has one of each). */
static const struct kbpf_kptr_dtor test_dtors[] = {
	KBPF_KPTR_DTOR(prog_test_ref_kfunc, bpf_kfunc_call_test_release),
	KBPF_KPTR_DTOR(prog_test_member, bpf_kfunc_call_memb_release),
};

/* Linux registers the set for BPF_PROG_TYPE_SCHED_CLS, _TRACING and _SYSCALL; kbpf_linux
 * has one type per tracing attach type. */
static const char *const test_kfunc_types[] = { "sched_cls", "fentry", "fexit", "fmod_ret", "syscall", NULL };

/* Linux's key_sig_kfunc_set (kernel/trace/bpf_trace.c, for BPF_PROG_TYPE_TRACING — which
 * LSM programs resolve to for kfuncs): the keyring lookups of test_fentry.c. */
struct bpf_key;
struct bpf_key *bpf_lookup_user_key(uint32_t serial, uint64_t flags);
struct bpf_key *bpf_lookup_system_key(uint64_t id);
void bpf_key_put(struct bpf_key *bkey);
static const struct kbpf_kfunc key_kfuncs[] = {
	KBPF_KFUNC(bpf_lookup_user_key, KF_ACQUIRE | KF_RET_NULL | KF_SLEEPABLE),
	KBPF_KFUNC(bpf_lookup_system_key, KF_ACQUIRE | KF_RET_NULL),
	KBPF_KFUNC(bpf_key_put, KF_RELEASE),
};
static const char *const key_kfunc_types[] = { "fentry", "fexit", "fmod_ret", "lsm", NULL };

int kbpf_linux_host_add_test_kfuncs(struct kbpf_host *host, char *log_buf, size_t log_size)
{
	struct kbpf_kfunc_set_opts opts = {
		.sz = sizeof(opts),
		.name = "bpf_prog_test_kfunc_set",
		.funcs = test_kfuncs,
		.nr_funcs = sizeof(test_kfuncs) / sizeof(test_kfuncs[0]),
		.prog_types = test_kfunc_types,
		.log_buf = log_buf,
		.log_size = log_size,
	};

	int ret;

	if (!host)
		return -EINVAL;
	ret = kbpf_host_kfunc_set_register(host, &opts, NULL);
	struct kbpf_kfunc_set_opts key_opts = {
		.sz = sizeof(key_opts), .name = "key_sig_kfunc_set", .funcs = key_kfuncs,
		.nr_funcs = sizeof(key_kfuncs) / sizeof(key_kfuncs[0]), .prog_types = key_kfunc_types,
		.log_buf = log_buf, .log_size = log_size,
	};
	if (!ret)
		ret = kbpf_host_kfunc_set_register(host, &key_opts, NULL);
	if (!ret)
		ret = kbpf_host_var_register(host, test_vars, sizeof(test_vars) / sizeof(test_vars[0]), log_buf,
					     log_size);
	if (!ret)
		ret = kbpf_host_kptr_dtor_register(host, test_dtors, sizeof(test_dtors) / sizeof(test_dtors[0]),
						   log_buf, log_size);
	return ret;
}
