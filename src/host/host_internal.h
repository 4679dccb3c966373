/* SPDX-License-Identifier: Apache-2.0 */
#ifndef KBPF_SRC_HOST_HOST_INTERNAL_H
#define KBPF_SRC_HOST_HOST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <kbpf/host.h>
#include <kbpf/prog_type.h>
#include <kbpf/struct_ops.h>
#include "maps/map_host.h"

struct kbpf_helper_entry {
	int32_t id;
	char *name;
	kbpf_helper_fn fn;
};

/* A helper prototype (src/host/prog_type.c). Kept apart from the helper table because a
 * helper may have a prototype but no implementation yet (the verifier can check programs
 * that call it; loading them for running still says the helper is unknown). */
struct kbpf_proto_entry {
	int32_t id;
	struct kbpf_helper_proto *proto; /* heap copy: the pointer handed out stays valid */
};

struct kbpf_kconfig_entry {
	char *name;
	uint64_t value;
};

struct kbpf_host {
	/* what the maps typed by this host ask of it (host.c sets it; maps/map_host.h):
	 * first, where a map reads it */
	const struct kbpf_map_host_ops *map_ops;
	struct kbpf_helper_entry *helpers; /* sorted by id */
	size_t nr_helpers, cap_helpers;
	struct btf *btf;                   /* host BTF (host_btf.c), or NULL */
	struct kbpf_btf_name_index *btf_index; /* its names (NULL: out of memory at load) */
	struct kbpf_kconfig_entry *kconfig; /* src/host/kconfig.c */
	size_t nr_kconfig;
	struct kbpf_prog_type **prog_types; /* src/host/prog_type.c; heap copies, so the
					     * pointers find() hands out stay valid */
	size_t nr_prog_types;
	/* Types are registered while other threads verify (plugins): the table grows
	 * under the write lock, lookups take the read lock. Entries are never removed. */
	pthread_rwlock_t prog_types_lock;
	struct kbpf_proto_entry *protos;    /* sorted by id */
	size_t nr_protos, cap_protos;
	struct kbpf_kfunc_registry *kfuncs; /* src/host/kfunc_set.c: sets, checks, pins */
	/* src/host/struct_ops_types.c: heap copies (stable pointers), guarded by
	 * prog_types_lock like the program types they name; never removed. */
	struct kbpf_struct_ops_type **struct_ops_types;
	size_t nr_struct_ops_types;
	/* src/host/host_vars.c: typed __ksym targets, sorted by BTF id; guarded by
	 * prog_types_lock; never removed. */
	struct kbpf_host_var_entry *vars;
	size_t nr_vars;
	/* src/host/kptr_dtor.c: destructors of referenced kptr types, sorted by the
	 * type's BTF id; guarded by prog_types_lock; never removed. */
	struct kbpf_kptr_dtor_entry *dtors;
	size_t nr_dtors;
	/* src/host/object_types.c: the host object types (names); guarded by
	 * prog_types_lock; never removed. */
	char **object_types;
	size_t nr_object_types;
	/* src/maps/timer.c: the engine bpf_timers of maps bound to this host run on, made
	 * when the first such map binds (a program created with it) */
	struct kbpf_timers *_Atomic timers;
};

_Static_assert(offsetof(struct kbpf_host, map_ops) == 0, "kbpf_map_host_ops reads it first");

/* Release what host_btf.c / kconfig.c hold (called by kbpf_host_free). */
void kbpf_host_btf_release(struct kbpf_host *host);
void kbpf_host_kconfig_release(struct kbpf_host *host);
/* Free the program types and helper prototypes (src/host/prog_type.c). */
void kbpf_host_prog_type_release(struct kbpf_host *host);
/* Free the host variables (src/host/host_vars.c). */
void kbpf_host_vars_release(struct kbpf_host *host);
/* Free the kptr destructor table (src/host/kptr_dtor.c). */
void kbpf_host_kptr_dtor_release(struct kbpf_host *host);
/* Free the host object types (src/host/object_types.c). */
void kbpf_host_object_types_release(struct kbpf_host *host);
/* Whether the host declared the struct name an object type (kbpf_host_object_type_register). */
bool kbpf_host_is_object_type(const struct kbpf_host *host, const char *name);
/* kbpf's bpf_get_smp_processor_id (map_helpers.c): a host whose helper 8 is this one
 * gets it inlined by the verifier (src/verifier/fastcall.c), another function is called. */
uint64_t kbpf_helper_get_smp_processor_id(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);
/* Free the struct_ops types (src/host/struct_ops_types.c). */
void kbpf_host_struct_ops_release(struct kbpf_host *host);

#endif
