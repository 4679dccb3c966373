/* SPDX-License-Identifier: Apache-2.0 */
/* Reads the host object a kfunc returned (Linux's test kfuncs, hosts/linux:
 * bpf_kfunc_call_test_acquire's struct prog_test_ref_kfunc): checked mode knows the
 * object's size from the host BTF (tests/cli/kfunc_object.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct prog_test_ref_kfunc {
	int a;
	int b;
} __attribute__((preserve_access_index));

extern struct prog_test_ref_kfunc *bpf_kfunc_call_test_acquire(unsigned long *scalar_ptr) __ksym;
extern void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p) __ksym;

SEC("tc")
int read_obj(struct __sk_buff *skb)
{
	unsigned long sp = 0;
	struct prog_test_ref_kfunc *p = bpf_kfunc_call_test_acquire(&sp);
	int v;

	if (!p)
		return -1;
	v = p->a * 100 + p->b;
	bpf_kfunc_call_test_release(p);
	return v;
}

char LICENSE[] SEC("license") = "GPL";
