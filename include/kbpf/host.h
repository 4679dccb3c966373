/* SPDX-License-Identifier: Apache-2.0 */
/* The host side: what an embedding application offers to BPF programs.
 * A struct kbpf_host owns its helper table, host BTF and kconfig values (here), its
 * program types and helper prototypes (<kbpf/prog_type.h>), kfunc sets, host variables
 * and kptr destructors (<kbpf/kfunc.h>), struct_ops types (<kbpf/struct_ops.h>) and timer
 * engine (<kbpf/timer.h>). Nothing in kbpf is global: every program hangs off a host.
 *
 * Ownership: kbpf_host_new's host belongs to the caller, who frees it with
 * kbpf_host_free after every program and object created on it. Names passed in are
 * copied. kbpf_host_btf and kbpf_host_helper_find's *name point into the host: valid
 * until it is freed (the BTF: until the next kbpf_host_btf_load_*).
 * Threads: set up the helper table, BTF and kconfig values (kbpf_host_helper_register,
 * kbpf_host_add_map_helpers, kbpf_host_btf_load_*, kbpf_host_kconfig_set) before other
 * threads use the host; after that kbpf_host_helper_find, kbpf_host_btf and
 * kbpf_host_kconfig_get may be called from any number of threads. Program types, kfunc
 * sets, struct_ops types, host variables and kptr destructors may be registered while
 * other threads create and run programs on the host (tests/concurrency). */
#ifndef KBPF_HOST_H
#define KBPF_HOST_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_host;
struct btf; /* libbpf's */

/* A helper: called with R1..R5, its return value lands in R0. */
typedef uint64_t (*kbpf_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);

/* Create an empty host (no helpers). Returns NULL only when out of memory. */
KBPF_API struct kbpf_host *kbpf_host_new(void);
/* Free a host. Programs created on it must be freed first. NULL is allowed. */
KBPF_API void kbpf_host_free(struct kbpf_host *host);

/* Make helper number id (the imm of "call id") call fn. name is what disassembly and
 * errors print (copied). Returns 0, -EINVAL (id < 0 or fn NULL), -EEXIST, -ENOMEM. */
KBPF_API int kbpf_host_helper_register(struct kbpf_host *host, int32_t id, const char *name, kbpf_helper_fn fn);

/* The helper registered under id, or NULL (its name in *name if name is non-NULL). */
KBPF_API kbpf_helper_fn kbpf_host_helper_find(const struct kbpf_host *host, int32_t id, const char **name);

/* Register Linux's map helpers under their Linux ids and names, with Linux 6.1's
 * prototypes for the verifier (kbpf_host_helper_proto, <kbpf/prog_type.h>)
 * (src/host/map_helpers.c):
 * 1 bpf_map_lookup_elem, 2 bpf_map_update_elem, 3 bpf_map_delete_elem,
 * 8 bpf_get_smp_processor_id, 130 bpf_ringbuf_output, 131 bpf_ringbuf_reserve,
 * 132 bpf_ringbuf_submit, 133 bpf_ringbuf_discard, 134 bpf_ringbuf_query,
 * 195 bpf_map_lookup_percpu_elem, 81 bpf_get_local_storage, 87 bpf_map_push_elem,
 * 88 bpf_map_pop_elem, 89 bpf_map_peek_elem. Returns 0, -EEXIST (an id is taken), -ENOMEM. */
KBPF_API int kbpf_host_add_map_helpers(struct kbpf_host *host);

/* --- Host BTF (src/btf/host_btf.c) ---
 * A host's types and functions come from its own debug info: built with -g, then
 * `pahole -J` adds a .BTF section (CMake: kbpf_add_host_btf(target)). */

/* Read the BTF of the running executable (/proc/self/exe). Returns 0, -ENOENT if it
 * has no .BTF section (say how to add one in the log), or another negative errno. */
KBPF_API int kbpf_host_btf_load_self(struct kbpf_host *host);
/* Read host BTF from an ELF file with a .BTF section, or from a raw BTF file. Returns 0,
 * -ENOENT (no such file, or an ELF file without .BTF), -ENOEXEC (neither an ELF file nor
 * raw BTF), -EINVAL (malformed BTF) or another negative errno. */
KBPF_API int kbpf_host_btf_load_file(struct kbpf_host *host, const char *path);
/* The host's BTF (a libbpf struct btf, owned by the host), or NULL if none loaded. */
KBPF_API const struct btf *kbpf_host_btf(const struct kbpf_host *host);
/* The lowest id of a type of the host's BTF with this name and BTF_KIND_* kind, as
 * btf__find_by_name_kind gives it but from a hash index built when the BTF is loaded
 * (libbpf walks every type): for lookups on hot paths, e.g. a program type's ctx or
 * btf_struct_access callbacks, which run for every access the verifier checks.
 * Thread-safe. Returns the id, -ENOENT (no such type, or no host BTF) or -EINVAL. */
KBPF_API int32_t kbpf_host_btf_find(const struct kbpf_host *host, const char *name, uint32_t kind);

/* --- Host object types (src/host/object_types.c) ---
 * Declare the struct `name` of the host's BTF (no "struct ") an object only the host hands
 * out: a kfunc parameter pointing to one then takes only a BTF pointer to it (a struct_ops
 * or tracing argument, a kfunc's return, a pointer read from another such object), never
 * program memory (stack, map value, ringbuf record, ...). Linux's rule takes any memory
 * of the right size for a struct without pointer members; declare every struct the
 * host's functions treat as part of a larger object (struct sock, the head of a struct
 * tcp_sock) or whose address they keep. The verifier refuses other pointers with
 * "arg#N is fp expected ptr_ or socket" (docs/kfuncs.md). Looked up by name when a
 * program is verified, so the host may load its BTF later. Declaring a name twice is
 * fine. Returns 0, -EINVAL (NULL host or empty name), -ENOMEM. */
KBPF_API int kbpf_host_object_type_register(struct kbpf_host *host, const char *name);

/* --- Kconfig values for `extern ... __kconfig` (src/host/kconfig.c) ---
 * Names as in Linux ("CONFIG_HZ", "LINUX_KERNEL_VERSION"); the value is taken at the
 * extern's size. Setting a name again replaces it. Returns 0, -EINVAL, -ENOMEM. */
KBPF_API int kbpf_host_kconfig_set(struct kbpf_host *host, const char *name, uint64_t value);
/* 0 and *value if set, else -ENOENT. */
KBPF_API int kbpf_host_kconfig_get(const struct kbpf_host *host, const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_HOST_H */
