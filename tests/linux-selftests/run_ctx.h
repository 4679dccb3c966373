/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_PROG_TEST_RUN's context for one run of a networking program: the 64 data bytes of
 * a test as the packet of a struct kbpf_linux_skb or kbpf_linux_xdp, as Linux's test_run
 * builds it. Shared by the 6.1 test_verifier harness and the 6.12 test_progs one. */
#ifndef KBPF_TESTS_RUN_CTX_H
#define KBPF_TESTS_RUN_CTX_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/linux.h>

#ifndef TEST_DATA_LEN
#define TEST_DATA_LEN 64
#endif

/* BPF_PROG_TEST_RUN's context for one run: the 64 data bytes as a packet. */
#define RUN_BUF_SIZE (KBPF_LINUX_XDP_HEADROOM + TEST_DATA_LEN + 64)
struct run_ctx {
	uint8_t *buf; /* RUN_BUF_SIZE bytes */
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	void *ctx;
	size_t ctx_size;
};

/* Fill rc for a program of type (kbpf's name) with data (TEST_DATA_LEN bytes) in buf
 * (RUN_BUF_SIZE bytes). Returns 0, or -EOPNOTSUPP for types Linux's test_run does not
 * run with data_in, -EINVAL if the context cannot be built. */
int run_ctx_init(struct run_ctx *rc, uint8_t *buf, const char *type, const uint8_t *data);

/* --low-packet (a diagnosis): the packet lies below 4 GiB and the u32 data/data_end/
 * data_meta fields of the program's view hold the real pointers. */
void run_ctx_low_pointers(struct run_ctx *rc, int xdp);

#endif
