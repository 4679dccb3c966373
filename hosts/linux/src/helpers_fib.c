/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_fib_lookup (Linux 6.1's bpf_xdp_fib_lookup / bpf_skb_fib_lookup, one shape for xdp
 * and tc). kbpf runs in a process: it has no FIB, no neighbour table and no devices to
 * forward through. The argument checks are Linux's (-EINVAL for a short params or
 * unknown flags, -EAFNOSUPPORT for a family other than AF_INET/AF_INET6); an IPv4 or IPv6
 * lookup then finds no route, and Linux's answer for that is
 * BPF_FIB_LKUP_RET_NOT_FWDED ("packet is not forwarded": pass it to the stack), with
 * params left as they were. A program written for Linux thus takes its slow path. */
#include <errno.h>
#include <sys/socket.h>
#include "linux_internal.h"

KBPF_LINUX_HELPER(fib_lookup)
{
	LINUX_UNUSED5(r1, 0, 0, 0, r5);
	const struct bpf_fib_lookup *params = (const struct bpf_fib_lookup *)(uintptr_t)r2;
	int32_t plen = (int32_t)r3;
	uint32_t flags = (uint32_t)r4;

	if (plen < (int32_t)sizeof(*params))
		return (uint64_t)(int64_t)-EINVAL;
	if (flags & ~(uint32_t)(BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_OUTPUT))
		return (uint64_t)(int64_t)-EINVAL;
	if (params->family != AF_INET && params->family != AF_INET6)
		return (uint64_t)(int64_t)-EAFNOSUPPORT;
	return BPF_FIB_LKUP_RET_NOT_FWDED;
}
