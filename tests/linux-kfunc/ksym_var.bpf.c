// SPDX-License-Identifier: Apache-2.0
/* A typed __ksym host variable as Linux's kfunc_call_test_subprog.c reads one
 * (cli_cap_ctx.sh): with -DWRONG_TYPE its type does not match the host's. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifdef WRONG_TYPE
struct not_an_int {
	long a, b;
};
extern const struct not_an_int bpf_prog_active __ksym;
#else
extern const int bpf_prog_active __ksym;
#endif

SEC("syscall")
int read_active(void *ctx)
{
	const int *p = bpf_this_cpu_ptr(&bpf_prog_active);

	return *p;
}

char _license[] SEC("license") = "GPL";
