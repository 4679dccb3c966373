/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-soundness --kernel (tests/soundness/README.md): load what kbpf accepted into the
 * running Linux kernel with bpf(BPF_PROG_LOAD), against kernel maps shaped like the
 * harness's, and report what Linux refuses. Needs root (CAP_BPF, CAP_SYS_ADMIN) and
 * a kernel with BPF; opt-in, never part of CI. */
#ifndef KBPF_TESTS_SOUND_KERNEL_H
#define KBPF_TESTS_SOUND_KERNEL_H

#include <stddef.h>
#include "harness.h"

struct snd_kernel;

enum snd_kverdict {
	SND_K_ACCEPTED,  /* Linux accepts it too */
	SND_K_REFUSED,   /* Linux refuses it: msg holds the verifier's error line */
	SND_K_SKIPPED,   /* not tried: msg says why (kfuncs of the test host, unprivileged
			  * loads disabled by kernel.unprivileged_bpf_disabled, ...) */
	SND_K_ERROR,     /* the load did not finish (timeout, crash of the child) */
};

/* Create the kernel maps (and load the harness's BTF for the lock map and func_info).
 * Returns 0, or a negative errno with a sentence in why (no root, no BPF...). */
int snd_kernel_open(struct snd_kernel **out, const struct snd_env *env, char *why, size_t why_size);
void snd_kernel_close(struct snd_kernel *k);
/* Load c into the kernel in a child process (10 s limit); msg receives the kernel's
 * error line or the reason for a skip. */
enum snd_kverdict snd_kernel_load(struct snd_kernel *k, const struct snd_env *env, const struct snd_case *c,
				  char *msg, size_t msg_size);

#endif
