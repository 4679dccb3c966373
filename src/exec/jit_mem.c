/* SPDX-License-Identifier: Apache-2.0 */
/* Executable memory for the JIT: written while read+write, then switched to read+exec.
 * No page is ever writable and executable at once (W^X), so a stray write from a
 * program or a bug cannot plant code.
 *
 * Where the pages go matters for speed: calls and returns between code more than 4 GiB
 * apart predict poorly on x86 cores (helper_calls in bench/ ran 1.5x slower with the
 * code at mmap's default place, the top of the address space, than near the host's
 * text). So the mapping is put within a window a little below an anchor — the host
 * code the program calls — and anywhere only if that window is full. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "exec/jit_ctx.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint */
#endif

#define NEAR_SLOT (1ull << 20)   /* candidate addresses are 1 MiB apart */
#define NEAR_SLOTS 1024ull       /* a 1 GiB window... */
#define NEAR_BELOW (3ull << 29)  /* ...starting 1.5 GiB below the anchor */
#define NEAR_TRIES 16

/* A mapping of size bytes within the window near anchor, or MAP_FAILED. The probes
 * start at a slot picked from the clock so that many programs do not all queue on the
 * first slots. */
static void *map_near(uintptr_t anchor, size_t size)
{
	struct timespec ts;
	uintptr_t lo;
	uint64_t first;

	if (!anchor)
		return MAP_FAILED;
	/* below the host's text (the heap grows upwards from its end); above it if the
	 * text is too low in the address space for that */
	lo = anchor > NEAR_BELOW + (1ull << 24) ? anchor - NEAR_BELOW : anchor + (1ull << 29);
	lo &= ~(uintptr_t)(NEAR_SLOT - 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	first = ((uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull) >> 54; /* 0..1023 */
	for (unsigned k = 0; k < NEAR_TRIES; k++) {
		uintptr_t hint = lo + ((first + k) % NEAR_SLOTS) * NEAR_SLOT;
		void *p = mmap((void *)hint, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED)
			continue; /* taken (EEXIST), or not allowed there */
		if ((uintptr_t)p == hint)
			return p;
		munmap(p, size); /* an old kernel placed it elsewhere: not what we asked */
	}
	return MAP_FAILED;
}

int jit_mem_reserve(size_t len, uintptr_t near, void **map, size_t *map_size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size;
	void *p;

	if (page <= 0)
		page = 4096;
	size = (len + (size_t)page - 1) & ~((size_t)page - 1);
	p = map_near(near, size);
	if (p == MAP_FAILED)
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*map = p;
	*map_size = size;
	return 0;
}

int jit_mem_seal(void *map, size_t map_size, const uint8_t *code, size_t len)
{
	if (len > map_size)
		return -EINVAL;
	memcpy(map, code, len);
	/* The tail of the last page traps (int3) if anything ever jumps there. */
	memset((uint8_t *)map + len, 0xcc, map_size - len);
	if (mprotect(map, map_size, PROT_READ | PROT_EXEC))
		return -errno;
	/* x86 keeps instruction fetch coherent with stores; other targets would need this. */
	__builtin___clear_cache((char *)map, (char *)map + map_size);
	return 0;
}

void jit_mem_release(void *map, size_t map_size)
{
	if (map)
		munmap(map, map_size);
}
