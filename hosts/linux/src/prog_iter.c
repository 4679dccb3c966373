/* SPDX-License-Identifier: Apache-2.0 */
/* BPF iterators (Linux 6.1's BPF_PROG_TYPE_TRACING with expected_attach_type
 * BPF_TRACE_ITER, kernel/bpf/bpf_iter.c): a program attached to an iterator target,
 * which Linux declares as the function bpf_iter_<target>(struct bpf_iter_meta *meta,
 * <object> *obj, ...) and kbpf finds as such a function in the host's BTF (SEC
 * ("iter/task") names bpf_iter_task). The context is that function's argument array,
 * typed as for fentry; every argument after meta may be NULL (Linux's iterators end
 * with a last call whose object is NULL: their ctx_arg_info types it
 * PTR_TO_BTF_ID_OR_NULL). The program returns 0 or 1 (1: see this object again).
 * Helpers: tracing_prog_func_proto's for iterators (bpf_seq_write, bpf_seq_printf: verify
 * only, kbpf has no seq_file), bpf_d_path without an allowlist, then the tracing ones.
 * kbpf has no iterator run (nor has Linux's BPF_PROG_TEST_RUN): a host that offers a
 * target calls the program itself, with its own objects. */
#include "linux_internal.h"

/* No attach target: no context field at all. */
static int iter_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
		       struct kbpf_ctx_access_info *info)
{
	(void)type, (void)off, (void)size, (void)access, (void)info;
	return 0;
}

/* The object arguments after meta: maybe NULL (trusted: meta only, src/verifier/btf_ctx.c). */
static int iter_ctx_arg_access(const struct kbpf_prog_type *type, const struct kbpf_host *host, uint32_t arg,
			       struct kbpf_ctx_access_info *info)
{
	(void)type, (void)host;
	if (arg > 0 && KBPF_REG_BASE(info->reg_type) == KBPF_PTR_TO_BTF_ID)
		info->reg_type |= KBPF_PTR_MAYBE_NULL;
	return 1;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
static const int32_t iter_own_set[] = { ID(seq_printf), ID(seq_write), ID(d_path), END_ID };
static const int32_t raw_tp_set[] = { ID(perf_event_output), ID(get_stackid), ID(get_stack), END_ID };
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc iter_desc = { SETS(iter_own_set, raw_tp_set, kbpf_linux_tracing_set,
						       kbpf_linux_base_set) };

const struct kbpf_prog_type kbpf_linux_iter_types[] = {
	/* check_return_code: BPF_TRACE_ITER returns 0 or 1 */
	{ .sz = sizeof(struct kbpf_prog_type), .name = "iter", .linux_type = BPF_PROG_TYPE_TRACING,
	  .ctx_size = KBPF_LINUX_RAW_TP_CTX_SIZE, .is_valid_access = iter_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1, .ret_min = 0, .ret_max = 1,
	  .priv = (void *)&iter_desc, .load_caps = KBPF_CAP_BPF | KBPF_CAP_PERFMON,
	  .ctx_arg_access = iter_ctx_arg_access, .expected_attach_type = BPF_TRACE_ITER },
};
const size_t kbpf_linux_nr_iter_types = sizeof(kbpf_linux_iter_types) / sizeof(kbpf_linux_iter_types[0]);
