/* SPDX-License-Identifier: Apache-2.0 */
/* Socket helpers in a process without kernel sockets: every lookup finds nothing, which
 * is Linux's answer for a tuple no socket matches. The verifier still tracks the
 * references these would acquire, so programs written for Linux verify and run; the
 * helpers taking a socket are never reached with one, and answer NULL or 0. */
#include "linux_internal.h"

KBPF_LINUX_HELPER(sk_lookup)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}

KBPF_LINUX_HELPER(sk_release)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}

/* bpf_sk_fullsock: a socket a host puts in a context (struct __sk_buff's sk) is one of
 * its own full sockets (kbpf hosts have no request or time-wait minisockets), so it is
 * returned as it is, as Linux returns a full socket; NULL stays NULL. */
KBPF_LINUX_HELPER(sk_fullsock)
{
	LINUX_UNUSED5(r2, r3, r4, r5, 0);
	return r1;
}

/* tcp_sock, get_listener_sock. */
KBPF_LINUX_HELPER(sk_cast)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}
