/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf: an embeddable eBPF runtime built around kfuncs. Umbrella header: includes every
 * public header of the library (the hosts' <kbpf/linux.h>, <kbpf/tcp*.h> are separate
 * libraries). docs/embedding.md: building against it; docs/architecture.md: the design. */
#ifndef KBPF_KBPF_H
#define KBPF_KBPF_H

#include <kbpf/export.h>
#include <kbpf/insn.h>
#include <kbpf/isa.h>
#include <kbpf/host.h>
#include <kbpf/kfunc.h>
#include <kbpf/prog_type.h>
#include <kbpf/prog.h>
#include <kbpf/verifier.h>
#include <kbpf/map.h>
#include <kbpf/object.h>
#include <kbpf/struct_ops.h>
#include <kbpf/timer.h>
#include <kbpf/btf.h>

#define KBPF_VERSION_MAJOR 0
#define KBPF_VERSION_MINOR 1
#define KBPF_VERSION_STRING "0.1.0"

#endif
