/* SPDX-License-Identifier: Apache-2.0 */
/* Fault-tolerant loads (Linux's BPF_PROBE_MEM): what a verified program's loads through
 * untrusted BTF pointers become (a kptr read from a map value and what is read through
 * it). Nothing vouches that such a pointer still points at its object: Linux reads it
 * with an exception-table load that gives 0 on a fault. A process cannot catch its own
 * faults without owning signal handling, which an embedded library must not, so the
 * read goes through the kernel (process_vm_readv on this process), which reports a bad
 * address instead of faulting. A syscall per load: these loads are rare, and only
 * programs that make them pay. */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <unistd.h>
#include "exec/probe_mem.h"

uint64_t kbpf_probe_load(uint64_t addr, uint64_t size)
{
	uint64_t v = 0;

	/* the first page is never mapped; a wrap-around is no object */
	if (addr < 4096 || addr + size < addr || size > sizeof(v))
		return 0;
	struct iovec local = { &v, (size_t)size }, remote = { (void *)(uintptr_t)addr, (size_t)size };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)size)
		return 0; /* as Linux's fault fixup: the destination register becomes 0 */
	return v; /* little-endian: the size bytes are the value's low bytes */
}
