/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup_device program type: a struct bpf_cgroup_dev_ctx (access type, major,
 * minor) when a process of the cgroup opens or creates a device node; return 0 to deny,
 * 1 to allow. Linux 6.1's cgroup_dev_is_valid_access and cgroup_dev_func_proto
 * (kernel/bpf/cgroup.c), written from their behaviour: read-only, access_type narrow,
 * the rest whole u32s. CAP_NET_ADMIN to load; no test run in Linux. */
#include "linux_internal.h"

static int dev_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
		      struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (access == KBPF_ACCESS_WRITE || off < 0 || size <= 0 ||
	    off + size > (int)sizeof(struct bpf_cgroup_dev_ctx) || off % size)
		return 0;
	if (off < (int)sizeof(__u32)) { /* access_type */
		info->ctx_field_size = 4;
		return size <= 4 && !(size & (size - 1));
	}
	return size == 4;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
/* cgroup_current_func_proto's (the cgroup ids: not registered), perf_event_output, then
 * bpf_base_func_proto */
static const int32_t dev_set[] = {
	ID(get_local_storage), ID(get_current_uid_gid), ID(get_current_pid_tgid), ID(get_current_comm), ID(get_current_cgroup_id),
	ID(get_current_ancestor_cgroup_id), ID(get_cgroup_classid), ID(perf_event_output), END_ID
};
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc dev_desc = { SETS(dev_set, kbpf_linux_base_set) };

const struct kbpf_prog_type kbpf_linux_cgroup_device_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "cgroup_device", .linux_type = BPF_PROG_TYPE_CGROUP_DEVICE,
	  .ctx_size = sizeof(struct bpf_cgroup_dev_ctx), .ctx_btf_name = "bpf_cgroup_dev_ctx",
	  .is_valid_access = dev_access, .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1,
	  .ret_min = 0, .ret_max = 1, .priv = (void *)&dev_desc, .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
};
const size_t kbpf_linux_nr_cgroup_device_types = 1;
