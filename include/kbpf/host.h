/* SPDX-License-Identifier: Apache-2.0 */
/* The host side: what an embedding application offers to BPF programs.
 * A struct kbpf_host owns the helper table (later: program types, kfunc sets,
 * struct_ops types, maps).  Nothing in kbpf is global: every program hangs off a host. */
#ifndef KBPF_HOST_H
#define KBPF_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_host;

/* A helper: called with R1..R5, its return value lands in R0. */
typedef uint64_t (*kbpf_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);

/* Create an empty host (no helpers). Returns NULL only when out of memory. */
struct kbpf_host *kbpf_host_new(void);
/* Free a host. Programs created on it must be freed first. NULL is allowed. */
void kbpf_host_free(struct kbpf_host *host);

/* Make helper number id (the imm of "call id") call fn. name is what disassembly and
 * errors print (copied). Returns 0, -EINVAL (id < 0 or fn NULL), -EEXIST, -ENOMEM. */
int kbpf_host_helper_register(struct kbpf_host *host, int32_t id, const char *name, kbpf_helper_fn fn);

/* The helper registered under id, or NULL (its name in *name if name is non-NULL). */
kbpf_helper_fn kbpf_host_helper_find(const struct kbpf_host *host, int32_t id, const char **name);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_HOST_H */
