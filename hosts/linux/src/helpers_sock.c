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

/* sk_fullsock, tcp_sock, get_listener_sock. */
KBPF_LINUX_HELPER(sk_cast)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	return 0;
}
