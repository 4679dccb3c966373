/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_csum_diff(from, from_size, to, to_size, seed): the ones'-complement sum of the
 * complemented "from" words and the "to" words, added to seed, as Linux computes it on
 * x86-64 (csum_partial: 64-bit words with end-around carry, the tail zero-padded, then
 * folded to 32 bits with one add-with-carry), so results match Linux's. */
#include <errno.h>
#include <string.h>
#include "linux_internal.h"

#define SCRATCH 512 /* Linux's per-CPU scratchpad: MAX_BPF_STACK bytes */

static uint32_t csum_partial(const uint8_t *buf, size_t len, uint32_t seed)
{
	uint64_t sum = seed;
	for (; len >= 8; buf += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, buf, 8);
		sum += w;
		sum += sum < w; /* end-around carry */
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, buf, len);
		sum += w;
		sum += sum < w;
	}
	uint32_t hi = (uint32_t)(sum >> 32), lo = (uint32_t)sum;
	uint32_t r = hi + lo;
	return r + (r < hi);
}

KBPF_LINUX_HELPER(csum_diff)
{
	const uint32_t *from = (const uint32_t *)(uintptr_t)r1, *to = (const uint32_t *)(uintptr_t)r3;
	uint32_t from_size = (uint32_t)r2, to_size = (uint32_t)r4;
	uint32_t diff[SCRATCH / 4];
	if (((from_size | to_size) & 3) || (uint64_t)from_size + to_size > SCRATCH)
		return (uint64_t)(int64_t)-EINVAL;
	/* The verifier passes a maybe-NULL pointer (a map lookup not yet checked) with any
	 * size it could have if not NULL, as 6.12 does; a NULL one is refused here, where
	 * 6.12's helper would read address 0 (attack6). */
	if ((!from && from_size) || (!to && to_size))
		return (uint64_t)(int64_t)-EINVAL;
	size_t j = 0;
	for (uint32_t i = 0; i < from_size / 4; i++) {
		uint32_t w;
		memcpy(&w, &from[i], 4); /* packet memory need not be aligned */
		diff[j++] = ~w;
	}
	for (uint32_t i = 0; i < to_size / 4; i++)
		memcpy(&diff[j++], &to[i], 4);
	return csum_partial((const uint8_t *)diff, j * 4, (uint32_t)r5);
}
