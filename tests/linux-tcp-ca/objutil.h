/* SPDX-License-Identifier: Apache-2.0 */
/* What Linux's bpf_tcp_ca test does through a libbpf skeleton, done on kbpf's object API:
 * write a `const volatile` global before load (skel->rodata->fallback), read .bss globals
 * after a run (skel->bss->stg_result). */
#ifndef KBPF_LINUX_TCP_CA_OBJUTIL_H
#define KBPF_LINUX_TCP_CA_OBJUTIL_H

#include <stddef.h>

struct kbpf_object;

/* Read the file at path into a malloc'ed buffer (*size bytes). Returns 0 or -errno. */
int ca_read_file(const char *path, void **buf, size_t *size);

/* Overwrite the initial bytes of the global variable sym (a symbol of the ELF image in
 * buf: .rodata/.data) with len bytes of val, as a skeleton writes its rodata before load.
 * Returns 0, -ENOENT (no such symbol), -E2BIG (len larger than the symbol), -EINVAL. */
int ca_elf_set_global(void *buf, size_t size, const char *sym, const void *val, size_t len);

/* The live address of global variable name (any DATASEC of the object's BTF) in its
 * loaded map, and its size in *size (may be NULL); NULL if not found. */
void *ca_object_global(struct kbpf_object *obj, const char *name, size_t *size);

#endif
