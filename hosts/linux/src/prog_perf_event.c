/* SPDX-License-Identifier: Apache-2.0 */
/* The perf_event program type: a struct bpf_perf_event_data (the sampled registers, the
 * sample period and address) when a perf event overflows. Linux 6.1's
 * pe_prog_is_valid_access and pe_prog_func_proto (kernel/trace/bpf_trace.c), written
 * from their behaviour. Read-only context; kbpf has no perf events, so no test run
 * (Linux has none either): a host that runs one passes the uapi struct itself. */
#include <linux/bpf_perf_event.h>
#include "linux_internal.h"

#define OFF(f) offsetof(struct bpf_perf_event_data, f)
#define END(f) (offsetof(struct bpf_perf_event_data, f) + sizeof(((struct bpf_perf_event_data *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))

/* The u64 sample_period and addr: whole or narrow (aligned, a power of two); the
 * registers: whole longs. */
static int pe_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
		     struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || off >= (int)sizeof(struct bpf_perf_event_data) || size <= 0 || off % size ||
	    access != KBPF_ACCESS_READ)
		return 0;
	if (IN(sample_period) || IN(addr)) {
		info->ctx_field_size = 8;
		return size <= 8 && !(size & (size - 1));
	}
	return size == sizeof(long);
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
static const int32_t pe_set[] = {
	ID(perf_event_output), ID(get_stackid), ID(get_stack), ID(perf_prog_read_value), ID(read_branch_records),
	ID(get_attach_cookie), END_ID
};
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc pe_desc = { SETS(pe_set, kbpf_linux_tracing_set, kbpf_linux_base_set) };

const struct kbpf_prog_type kbpf_linux_perf_event_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "perf_event", .linux_type = BPF_PROG_TYPE_PERF_EVENT,
	  .ctx_size = sizeof(struct bpf_perf_event_data), .ctx_btf_name = "bpf_perf_event_data",
	  .is_valid_access = pe_access, .get_func_proto = kbpf_linux_get_func_proto, .priv = (void *)&pe_desc,
	  .load_caps = KBPF_CAP_BPF | KBPF_CAP_PERFMON },
};
const size_t kbpf_linux_nr_perf_event_types = 1;
