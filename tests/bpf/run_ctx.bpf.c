/* SPDX-License-Identifier: Apache-2.0 */
/* Programs that read their context, for `kbpf run FILE.o PROG` without --packet
 * (tests/cli/run_ctx.sh): a raw tracepoint's arguments, a writable one's buffer, a tc
 * program's __sk_buff, a syscall program's argument block. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* ctx[0] + ctx[1] + 1: 1 on the zeroed context kbpf run gives when none is named */
SEC("raw_tp/kbpf_test")
int args_sum(__u64 *ctx)
{
	return (int)(ctx[0] + ctx[1] + 1);
}

/* a writable raw tracepoint: ctx[0] is its buffer (kbpf run gives a zeroed one, the
 * --ctx bytes the other slots); 7 + ctx[1] read back through it */
SEC("raw_tp.w/kbpf_test")
int tp_buf(__u64 *ctx)
{
	__u32 *buf = (__u32 *)(unsigned long)ctx[0];

	buf[0] = 7;
	return (int)(buf[0] + ctx[1]);
}

/* needs a real packet: its context is converted to kbpf's skb */
SEC("tc")
int skb_len(struct __sk_buff *skb)
{
	return skb->len;
}

/* a syscall program's context is what the caller passes (BPF_PROG_TEST_RUN's ctx_in):
 * reads past what is given are refused before the run */
SEC("syscall")
int sys_first(__u32 *ctx)
{
	return ctx[0] + 1;
}

char LICENSE[] SEC("license") = "GPL";
