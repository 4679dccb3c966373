/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc externs against the test host, compiled with clang against the host's own dumped
 * header (`kbpf btf dump --host kbpf-test-host --format c`). test_host_btf checks each
 * against the host's prototype: the name before "___" is the host function (libbpf's
 * flavour convention), the rest says what the declaration gets wrong, if anything.
 * Compiled, not run. */
#include "host.h"
#include <bpf/bpf_helpers.h>

/* compatible: the host's own prototypes */
extern int th_add(int a, int b) __ksym;
extern u32 th_mix(u8 a, s16 b, u32 c) __ksym;
extern u64 th_sum5(u64 a, u64 b, u64 c, u64 d, u64 e) __ksym;
extern void th_flow_set_cwnd(struct th_flow *flow, u32 cwnd) __ksym;
extern struct th_flow *th_flow_acquire(u64 id) __ksym;
extern void th_flow_release(struct th_flow *flow) __ksym;
extern void th_noop(void) __ksym;
/* compatible by libbpf's rule although they differ: integer sizes and signedness are not
 * compared, nor what struct a pointer points to, nor const */
extern long th_add___wide(long a, unsigned char b) __ksym;
extern u32 th_flow_cwnd___other_struct(struct th_ctx *ctx) __ksym;
extern u32 th_flow_cwnd___const(const struct th_flow *flow) __ksym;
/* incompatible */
extern int th_add___arity(int a) __ksym;
extern u32 th_flow_cwnd___scalar(u64 flow) __ksym;
extern int th_noop___ret(void) __ksym;
extern int th_state_is_open___int(int state) __ksym; /* host: enum th_state */
extern void th_flow_set_cwnd___ptr_ptr(struct th_flow **flow, u32 cwnd) __ksym;
/* struct th_conn is defined (host.h) but no member of it is used here, so clang's BTF
 * has only a forward declaration, which libbpf's rule does not accept for a struct */
extern u32 th_flow_cwnd___fwd(struct th_conn *conn) __ksym;
/* weak and absent from the host */
extern void th_missing(void) __ksym __weak;

SEC("tc")
int call_all(struct th_ctx *ctx)
{
	struct th_flow *f = th_flow_acquire(1);
	long r = 0;

	if (f) {
		th_flow_set_cwnd(f, 5);
		r += th_flow_cwnd___const(f);
		th_flow_set_cwnd___ptr_ptr(&f, 6);
		th_flow_release(f);
	}
	r += th_add(1, 2) + th_mix(1, -1, 3) + th_sum5(1, 2, 3, 4, 5);
	r += th_add___wide(1, 2) + th_flow_cwnd___other_struct(ctx) + th_flow_cwnd___fwd(ctx->conn);
	r += th_add___arity(1) + th_flow_cwnd___scalar(0) + th_noop___ret();
	r += th_state_is_open___int(1);
	th_noop();
	if (th_missing)
		th_missing();
	return r;
}

char _license[] SEC("license") = "GPL";
