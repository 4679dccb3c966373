/* SPDX-License-Identifier: Apache-2.0 */
/* The kfunc registry inside a host (src/host/kfunc_set.c): what the interpreter, the JIT
 * and the verifier look up for a kfunc call's BTF id. */
#ifndef KBPF_SRC_HOST_KFUNC_INTERNAL_H
#define KBPF_SRC_HOST_KFUNC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <kbpf/kfunc.h>
#include "btf/func_model.h"

struct kbpf_kfunc_set;

/* One registered kfunc. Lives as long as its set: hold a pin (kbpf_host_kfunc_get) to
 * use it outside the host's lock. */
struct kbpf_kfunc_desc {
	uint32_t btf_id;              /* its BTF_KIND_FUNC in the host BTF */
	const char *name;
	kbpf_kfunc_addr addr;
	uint32_t flags;               /* KBPF_KF_*, as this set registered it */
	struct kbpf_func_model model; /* argument/return sizes and signedness */
	const char *decl;             /* C declaration, for messages and audits */
	/* A pointer to a struct or union returned: its size from the host BTF (checked mode
	 * lets the program touch the object it got, as the verifier lets it), else 0. */
	uint32_t ret_obj_size;
	struct kbpf_kfunc_set *set;
};

/* Look up kfunc btf_id and pin the set it belongs to (a program does this for each kfunc
 * it calls, at create). Returns 0 and *desc; -ENOENT: no set of the host has it; -ENXIO:
 * only sets being unregistered have it. */
int kbpf_host_kfunc_get(struct kbpf_host *host, uint32_t btf_id, const struct kbpf_kfunc_desc **desc);
/* Drop the pin kbpf_host_kfunc_get took (wakes an unregister waiting for it). */
void kbpf_host_kfunc_put(struct kbpf_host *host, const struct kbpf_kfunc_desc *desc);

/* Number of pins on set (tests). */
unsigned long kbpf_kfunc_set_pins(struct kbpf_host *host, const struct kbpf_kfunc_set *set);

/* Called by kbpf_host_new / kbpf_host_free (src/host/host.c). */
int kbpf_host_kfunc_init(struct kbpf_host *host);
void kbpf_host_kfunc_release(struct kbpf_host *host);

#endif
