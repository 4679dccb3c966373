/* SPDX-License-Identifier: Apache-2.0 */
/* The attach targets of Linux's tracing test run (net/bpf/test_run.c): the host
 * functions bpf_fentry_test1..8 (6.1), bpf_fentry_test9 (6.12) and
 * bpf_modify_return_test, with Linux's prototypes and results, in this library's BTF so
 * that a fentry/fexit/fmod_ret program can name them (kbpf_verify_opts.attach_btf_id);
 * and kbpf_linux_test_run_tracing, which calls them as Linux's bpf_prog_test_run_tracing
 * does, through a trampoline that runs the program attached to one of them. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/linux.h>
#include <kbpf/prog.h>

/* noinline + used: each is a real function with its own DWARF (and so BTF FUNC), and
 * the calls below go through it, as Linux's trampolines need. */
#define TEST_FN __attribute__((noinline, used))

struct bpf_fentry_test_t {
	struct bpf_fentry_test_t *a;
};

int bpf_fentry_test1(int a);
int bpf_fentry_test2(int a, uint64_t b);
int bpf_fentry_test3(char a, int b, uint64_t c);
int bpf_fentry_test4(void *a, char b, int c, uint64_t d);
int bpf_fentry_test5(uint64_t a, void *b, short c, int d, uint64_t e);
int bpf_fentry_test6(uint64_t a, void *b, short c, int d, void *e, uint64_t f);
int bpf_fentry_test7(struct bpf_fentry_test_t *arg);
int bpf_fentry_test8(struct bpf_fentry_test_t *arg);
uint32_t bpf_fentry_test9(uint32_t *a);
int bpf_modify_return_test(int a, int *b);

/* Linux's arithmetic, in its types (the narrowing to int is Linux's too). */
TEST_FN int bpf_fentry_test1(int a)
{
	return a + 1;
}

TEST_FN int bpf_fentry_test2(int a, uint64_t b)
{
	return (int)(a + b);
}

TEST_FN int bpf_fentry_test3(char a, int b, uint64_t c)
{
	return (int)(a + b + c);
}

TEST_FN int bpf_fentry_test4(void *a, char b, int c, uint64_t d)
{
	return (int)((long)a + b + c + d);
}

TEST_FN int bpf_fentry_test5(uint64_t a, void *b, short c, int d, uint64_t e)
{
	return (int)(a + (long)b + c + d + e);
}

TEST_FN int bpf_fentry_test6(uint64_t a, void *b, short c, int d, void *e, uint64_t f)
{
	return (int)(a + (long)b + c + d + (long)e + f);
}

TEST_FN int bpf_fentry_test7(struct bpf_fentry_test_t *arg)
{
	return (int)(long)arg;
}

TEST_FN int bpf_fentry_test8(struct bpf_fentry_test_t *arg)
{
	return (int)(long)arg->a;
}

/* Linux 6.12's: a u32 pointer argument (verifier_btf_ctx_access reads it). */
TEST_FN uint32_t bpf_fentry_test9(uint32_t *a)
{
	return *a;
}

/* 6.12's bpf_fentry_test_sinfo (net/bpf/test_run.c, which defines it and never calls it:
 * verifier_typedef.c attaches to it to walk skb_shared_info's typedef'd frags), with
 * Linux 6.12's struct skb_shared_info layout (include/linux/skbuff.h, x86-64). */
struct sk_buff;
typedef unsigned long netmem_ref;
typedef struct skb_frag {
	netmem_ref netmem;
	unsigned int len;
	unsigned int offset;
} skb_frag_t;
struct skb_shared_hwtstamps {
	union {
		int64_t hwtstamp;
		void *netdev_data;
	};
};
struct xsk_tx_metadata_compl {
	uint64_t *tx_timestamp;
};
#define LINUX_MAX_SKB_FRAGS 17
struct skb_shared_info {
	uint8_t flags;
	uint8_t meta_len;
	uint8_t nr_frags;
	uint8_t tx_flags;
	unsigned short gso_size;
	unsigned short gso_segs;
	struct sk_buff *frag_list;
	union {
		struct skb_shared_hwtstamps hwtstamps;
		struct xsk_tx_metadata_compl xsk_meta;
	};
	unsigned int gso_type;
	uint32_t tskey;
	struct {
		int counter;
	} dataref;
	unsigned int xdp_frags_size;
	void *destructor_arg;
	skb_frag_t frags[LINUX_MAX_SKB_FRAGS];
};
_Static_assert(offsetof(struct skb_shared_info, frags) == 48, "struct skb_shared_info is not Linux 6.12's");

void bpf_fentry_test_sinfo(struct skb_shared_info *sinfo);

TEST_FN void bpf_fentry_test_sinfo(struct skb_shared_info *sinfo)
{
	(void)sinfo;
}

TEST_FN int bpf_modify_return_test(int a, int *b)
{
	*b += 1;
	return a + *b;
}

/* One call of the test run: the target, its arguments as the u64 context array a
 * program attached to it sees (C's argument conversions applied), and the call. */
struct tramp {
	const struct kbpf_prog *prog;
	const char *attached; /* the function the program is attached to */
	int kind;             /* BPF_TRACE_FENTRY, BPF_TRACE_FEXIT, BPF_MODIFY_RETURN */
	int err;              /* the first kbpf_prog_run error */
};

static int call_target(int idx, const uint64_t *a)
{
	switch (idx) {
	case 1: return bpf_fentry_test1((int)a[0]);
	case 2: return bpf_fentry_test2((int)a[0], a[1]);
	case 3: return bpf_fentry_test3((char)a[0], (int)a[1], a[2]);
	case 4: return bpf_fentry_test4((void *)(uintptr_t)a[0], (char)a[1], (int)a[2], a[3]);
	case 5: return bpf_fentry_test5(a[0], (void *)(uintptr_t)a[1], (short)a[2], (int)a[3], a[4]);
	case 6:
		return bpf_fentry_test6(a[0], (void *)(uintptr_t)a[1], (short)a[2], (int)a[3],
					(void *)(uintptr_t)a[4], a[5]);
	case 7: return bpf_fentry_test7((struct bpf_fentry_test_t *)(uintptr_t)a[0]);
	case 8: return bpf_fentry_test8((struct bpf_fentry_test_t *)(uintptr_t)a[0]);
	case 9: return (int)bpf_fentry_test9((uint32_t *)(uintptr_t)a[0]);
	default: return bpf_modify_return_test((int)a[0], (int *)(uintptr_t)a[1]);
	}
}

static const char *const target_names[] = {
	"bpf_modify_return_test", "bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3", "bpf_fentry_test4",
	"bpf_fentry_test5",       "bpf_fentry_test6", "bpf_fentry_test7", "bpf_fentry_test8",
	"bpf_fentry_test9",
};

static uint64_t run_prog(struct tramp *t, uint64_t *ctx)
{
	uint64_t r0 = 0;
	int err = kbpf_prog_run(t->prog, ctx, &r0);
	if (err && !t->err)
		t->err = err;
	return r0;
}

/* Linux's BPF trampoline for one call: fentry runs before the function, fexit after it
 * with the return value in the slot after the arguments; fmod_ret runs before and, when
 * it returns nonzero, the function is skipped and its result is the program's. */
static int tramp_call(struct tramp *t, int idx, int nargs, const uint64_t *args)
{
	uint64_t ctx[8] = { 0 };
	memcpy(ctx, args, (size_t)nargs * sizeof(*args));
	if (!t->attached || strcmp(t->attached, target_names[idx]))
		return call_target(idx, args);
	if (t->kind == BPF_MODIFY_RETURN) {
		int64_t r = (int64_t)run_prog(t, ctx);
		if ((int)r)
			return (int)r;
		return call_target(idx, args);
	}
	if (t->kind == BPF_TRACE_FENTRY)
		run_prog(t, ctx);
	int ret = call_target(idx, args);
	if (t->kind == BPF_TRACE_FEXIT) {
		ctx[nargs] = (uint64_t)(int64_t)ret;
		run_prog(t, ctx);
	}
	return ret;
}

#define CALL(idx, ...)                                                                                          \
	tramp_call(&t, idx, (int)(sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)),                      \
		   (uint64_t[]){ __VA_ARGS__ })

int kbpf_linux_test_run_tracing(const struct kbpf_prog *prog, const char *attach_func, int attach_type,
				uint32_t *retval)
{
	if (!prog || !retval)
		return -EINVAL;
	struct tramp t = { .prog = prog, .attached = attach_func, .kind = attach_type };
	struct bpf_fentry_test_t arg = { 0 };
	uint16_t side_effect = 0, ret = 0;
	uint32_t zero = 0; /* 6.12 passes its retval, still 0 */
	int b = 2;

	switch (attach_type) {
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
		if (CALL(1, 1) != 2 || CALL(2, 2, 3) != 5 || CALL(3, 4, 5, 6) != 15 || CALL(4, 7, 8, 9, 10) != 34 ||
		    CALL(5, 11, 12, 13, 14, 15) != 65 || CALL(6, 16, 17, 18, 19, 20, 21) != 111 || CALL(7, 0) != 0 ||
		    CALL(8, (uint64_t)(uintptr_t)&arg) != 0 || CALL(9, (uint64_t)(uintptr_t)&zero) != 0)
			return t.err ? t.err : -EFAULT;
		break;
	case BPF_MODIFY_RETURN:
		ret = (uint16_t)CALL(0, 1, (uint64_t)(uintptr_t)&b);
		if (b != 2)
			side_effect = 1;
		break;
	default:
		return -EINVAL;
	}
	if (t.err)
		return t.err;
	*retval = ((uint32_t)side_effect << 16) | ret;
	return 0;
}

/* --- LSM: the hook Linux's verifier selftests attach to, and the key kfuncs --- */

/* The LSM hook of the bpf() syscall (Linux's security_bpf → bpf_lsm_bpf): an LSM program
 * attaches to bpf_lsm_<hook> (libbpf_find_vmlinux_btf_id's "bpf_lsm_" prefix). The
 * default hook allows everything. */
union bpf_attr;
int bpf_lsm_bpf(int cmd, union bpf_attr *attr, unsigned int size);
TEST_FN int bpf_lsm_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	(void)cmd, (void)attr, (void)size;
	return 0;
}

/* The hooks Linux 6.12's verifier_lsm.c attaches to, with lsm_hook_defs.h's prototypes
 * and defaults (0, or -EINVAL for the procattr hooks): file_alloc_security and
 * file_mprotect (int: 0 or -errno), audit_rule_known (a bool hook), file_free_security
 * (void), and three hooks Linux disables for BPF (getprocattr, setprocattr, ismaclabel).
 * The structs are opaque here: no program reads through them. */
struct file;
struct vm_area_struct;
struct audit_krule;
struct task_struct;
int bpf_lsm_file_alloc_security(struct file *file);
void bpf_lsm_file_free_security(struct file *file);
int bpf_lsm_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot);
int bpf_lsm_audit_rule_known(struct audit_krule *krule);
int bpf_lsm_getprocattr(struct task_struct *p, const char *name, char **value);
int bpf_lsm_setprocattr(const char *name, void *value, size_t size);
int bpf_lsm_ismaclabel(const char *name);

TEST_FN int bpf_lsm_file_alloc_security(struct file *file)
{
	(void)file;
	return 0;
}

TEST_FN void bpf_lsm_file_free_security(struct file *file)
{
	(void)file;
}

TEST_FN int bpf_lsm_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot)
{
	(void)vma, (void)reqprot, (void)prot;
	return 0;
}

TEST_FN int bpf_lsm_audit_rule_known(struct audit_krule *krule)
{
	(void)krule;
	return 0;
}

TEST_FN int bpf_lsm_getprocattr(struct task_struct *p, const char *name, char **value)
{
	(void)p, (void)name, (void)value;
	return -EINVAL;
}

TEST_FN int bpf_lsm_setprocattr(const char *name, void *value, size_t size)
{
	(void)name, (void)value, (void)size;
	return -EINVAL;
}

TEST_FN int bpf_lsm_ismaclabel(const char *name)
{
	(void)name;
	return 0;
}

/* 6.12's verifier_const.c attaches a sleepable LSM program here (lsm_hook_defs.h: void
 * bprm_committed_creds(const struct linux_binprm *bprm)). */
struct linux_binprm;
void bpf_lsm_bprm_committed_creds(const struct linux_binprm *bprm);
TEST_FN void bpf_lsm_bprm_committed_creds(const struct linux_binprm *bprm)
{
	(void)bprm;
}

/* --- netfilter: the hook state a netfilter program's context points to ---
 * Linux's struct nf_hook_state (include/linux/netfilter.h), so that this host's BTF has
 * the struct the netfilter type types bpf_nf_ctx.state with (prog_netfilter.c; without
 * it the field cannot be read). The devices, socket and namespace stay opaque. */
struct net_device;
struct net;
struct sock;
struct sk_buff;
struct nf_hook_state {
	uint8_t hook;
	uint8_t pf;
	struct net_device *in;
	struct net_device *out;
	struct sock *sk;
	struct net *net;
	int (*okfn)(struct net *, struct sock *, struct sk_buff *);
};

/* Linux's nf_hook_state_init: a state for hook of protocol family pf. */
void nf_hook_state_init(struct nf_hook_state *p, unsigned int hook, uint8_t pf, struct net_device *indev,
			struct net_device *outdev, struct sock *sk, struct net *net,
			int (*okfn)(struct net *, struct sock *, struct sk_buff *));
TEST_FN void nf_hook_state_init(struct nf_hook_state *p, unsigned int hook, uint8_t pf, struct net_device *indev,
				struct net_device *outdev, struct sock *sk, struct net *net,
				int (*okfn)(struct net *, struct sock *, struct sk_buff *))
{
	*p = (struct nf_hook_state){ .hook = (uint8_t)hook, .pf = pf, .in = indev, .out = outdev, .sk = sk,
				     .net = net, .okfn = okfn };
}

/* Linux's struct bpf_key (kernel/trace/bpf_trace.c): a reference to a keyring. kbpf has
 * no keyrings: the lookups find none (NULL), so a correct program never has one to put. */
struct key;
struct bpf_key {
	struct key *key;
	_Bool has_ref;
};

struct bpf_key *bpf_lookup_user_key(uint32_t serial, uint64_t flags);
struct bpf_key *bpf_lookup_system_key(uint64_t id);
void bpf_key_put(struct bpf_key *bkey);

TEST_FN struct bpf_key *bpf_lookup_user_key(uint32_t serial, uint64_t flags)
{
	(void)serial, (void)flags;
	return NULL;
}

TEST_FN struct bpf_key *bpf_lookup_system_key(uint64_t id)
{
	(void)id;
	return NULL;
}

TEST_FN void bpf_key_put(struct bpf_key *bkey)
{
	(void)bkey;
}

/* --- The other attach targets of Linux's verifier selftests ---
 * The file functions of d_path.c (dentry_open, on bpf_d_path's allowlist, and d_path,
 * not on it) over kbpf's struct path (<kbpf/linux.h>: a descriptor), and the task
 * iterator target of bpf_get_stack.c (bpf_iter_task, with Linux's struct bpf_iter_meta
 * and a seq_file and task_struct of this host's own). */

/* Linux's dentry_open(path, flags, cred) opens a new file of path: here, a new
 * descriptor of path's file (cred: unused, kbpf has no credentials). The descriptor, or
 * -1. */
struct cred;
int dentry_open(const struct path *path, int flags, const struct cred *cred);
TEST_FN int dentry_open(const struct path *path, int flags, const struct cred *cred)
{
	char link[64];

	(void)cred;
	if (!path || path->fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", path->fd);
	return open(link, flags);
}

/* Linux's d_path: the name is built at the end of buf, which is returned; NULL when it
 * does not fit or path names nothing (Linux: an ERR_PTR). */
char *d_path(const struct path *path, char *buf, int buflen);
TEST_FN char *d_path(const struct path *path, char *buf, int buflen)
{
	if (!buf || buflen <= 0)
		return NULL;
	long n = kbpf_linux_path_name(path, buf, (size_t)buflen);
	if (n < 0)
		return NULL;
	memmove(buf + buflen - n, buf, (size_t)n);
	return buf + buflen - n;
}

/* The iterator's output and objects. Linux's struct bpf_iter_meta is uapi-shaped (seq,
 * session_id, seq_num); seq_file and task_struct are this host's. */
struct seq_file {
	char *buf;
	size_t size, count;
};

struct bpf_iter_meta {
	struct seq_file *seq;
	uint64_t session_id;
	uint64_t seq_num;
};

struct task_struct {
	int pid, tgid;
	char comm[16];
};

/* The task iterator target (Linux's DEFINE_BPF_ITER_FUNC(task, ...)): what an
 * SEC("iter/task") program attaches to; its body is never the point. */
int bpf_iter_task(struct bpf_iter_meta *meta, struct task_struct *task);
TEST_FN int bpf_iter_task(struct bpf_iter_meta *meta, struct task_struct *task)
{
	return meta && task ? 0 : 1;
}
