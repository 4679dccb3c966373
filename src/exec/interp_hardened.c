/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's hardened loop: the fast loop of interp_body.h plus the run budget
 * (backward jumps and local calls counted, -ETIME) and guard bytes between the frames
 * (checked at every exit, -EFAULT). Programs created with kbpf_prog_opts.run_budget or
 * KBPF_HARDEN_STACK_GUARD are decoded for it (interp_prepare.c). Apart from interp.c so
 * that adding it leaves the fast loop's generated code as it was. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "exec/interp_internal.h"
#include "exec/tail_call.h"

#define KBPF_INTERP_FN interp_loop_hardened
#define KBPF_INTERP_CHECKED 0
#define KBPF_INTERP_HARDENED 1
#include "exec/interp_body.h"
#undef KBPF_INTERP_FN
#undef KBPF_INTERP_CHECKED
#undef KBPF_INTERP_HARDENED

int kbpf_interp_loop_hardened(const struct kbpf_interp *ip, struct kbpf_interp_run *run,
			      const void *const **labels_out)
{
	return interp_loop_hardened(ip, run, labels_out);
}
