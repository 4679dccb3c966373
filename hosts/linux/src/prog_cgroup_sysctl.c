/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup_sysctl program type: a struct bpf_sysctl (whether the access writes, the
 * file position) when a process reads or writes /proc/sys. Linux 6.1's
 * sysctl_is_valid_access and sysctl_func_proto (kernel/bpf/cgroup.c), written from their
 * behaviour. Return 0 (refuse) or 1 (allow); CAP_NET_ADMIN to load; no test run in Linux.
 * The sysctl name and value helpers need the kernel's sysctl table: not registered. */
#include "linux_internal.h"

#define OFF(f) offsetof(struct bpf_sysctl, f)
#define END(f) (offsetof(struct bpf_sysctl, f) + sizeof(((struct bpf_sysctl *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))

/* write: read-only, narrow reads allowed; file_pos: narrow reads, whole writes. */
static int sysctl_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			 struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off < 0 || size <= 0 || off + size > (int)sizeof(struct bpf_sysctl) || off % size)
		return 0;
	if (!IN(write) && !IN(file_pos))
		return 0;
	if (access == KBPF_ACCESS_WRITE)
		return IN(file_pos) && size == 4;
	info->ctx_field_size = 4;
	return size <= 4 && !(size & (size - 1));
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
/* sysctl_func_proto's own cases and cgroup_current_func_proto's, then bpf_base_func_proto */
static const int32_t sysctl_set[] = {
	ID(get_local_storage), ID(strtol), ID(strtoul), ID(sysctl_get_name), ID(sysctl_get_current_value), ID(sysctl_get_new_value),
	ID(sysctl_set_new_value), ID(ktime_get_coarse_ns), ID(perf_event_output), ID(get_current_uid_gid),
	ID(get_current_pid_tgid), ID(get_current_comm), ID(get_current_cgroup_id),
	ID(get_current_ancestor_cgroup_id), ID(get_cgroup_classid), END_ID
};
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc sysctl_desc = { SETS(sysctl_set, kbpf_linux_base_set) };

const struct kbpf_prog_type kbpf_linux_cgroup_sysctl_types[] = {
	{ .sz = sizeof(struct kbpf_prog_type), .name = "cgroup_sysctl", .linux_type = BPF_PROG_TYPE_CGROUP_SYSCTL,
	  .ctx_size = sizeof(struct bpf_sysctl), .ctx_btf_name = "bpf_sysctl", .is_valid_access = sysctl_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1, .ret_min = 0, .ret_max = 1,
	  .priv = (void *)&sysctl_desc, .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
};
const size_t kbpf_linux_nr_cgroup_sysctl_types = 1;
