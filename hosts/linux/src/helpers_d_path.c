/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_d_path (Linux 6.1's kernel/trace/bpf_trace.c): the name of a struct path. Linux's
 * struct path is a place in the file system tree; what user space holds of one is a
 * file descriptor (an O_PATH descriptor is exactly a struct path), so kbpf's model of it
 * (struct path of <kbpf/linux.h>) is a descriptor of the host process, and its name is
 * what Linux's d_path gives for it: the absolute path the kernel reports for the
 * descriptor (/proc/self/fd/N), " (deleted)" and all. The helper is offered only where
 * Linux offers it (bpf_d_path_allowed): iterators, LSM programs on sleepable hooks, and
 * tracing programs attached to the functions of btf_allowlist_d_path. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "linux_internal.h"

long kbpf_linux_path_name(const struct path *path, char *buf, size_t size)
{
	char link[64], name[PATH_MAX];

	if (!path || (!buf && size))
		return -EFAULT;
	if (path->fd < 0)
		return -EBADF;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", path->fd);
	ssize_t n = readlink(link, name, sizeof(name));
	if (n < 0)
		return errno == ENOENT ? -EBADF : -errno;
	if ((size_t)n >= sizeof(name) || (size_t)n + 1 > size)
		return -ENAMETOOLONG; /* Linux's prepend_path when the name does not fit */
	memcpy(buf, name, (size_t)n);
	buf[n] = 0;
	return n + 1;
}

/* Linux's bpf_d_path: 0 for a zero size, else the name's length with its NUL or a
 * negative errno (the buffer's contents are then unspecified, as in Linux). */
KBPF_LINUX_HELPER(d_path)
{
	LINUX_UNUSED5(r1, r2, r3, r4, r5);
	if (!(uint32_t)r3)
		return 0;
	return (uint64_t)kbpf_linux_path_name((const struct path *)(uintptr_t)r1, (char *)(uintptr_t)r2, (uint32_t)r3);
}

/* btf_allowlist_d_path (with CONFIG_SECURITY and CONFIG_SECURITY_PATH, as Debian's). */
static const char *const d_path_targets[] = {
	"security_file_permission", "security_inode_getattr", "security_file_open", "security_path_truncate",
	"vfs_truncate", "vfs_fallocate", "dentry_open", "vfs_getattr", "filp_close",
};

/* bpf_lsm.c's sleepable_lsm_hooks, without their "bpf_lsm_" prefix. */
static const char *const sleepable_lsm_hooks[] = {
	"bpf", "bpf_map", "bpf_map_alloc_security", "bpf_map_free_security", "bpf_prog",
	"bprm_check_security", "bprm_committed_creds", "bprm_committing_creds", "bprm_creds_for_exec",
	"bprm_creds_from_file", "capget", "capset", "cred_prepare", "file_ioctl", "file_lock",
	"file_open", "file_receive", "inet_conn_established", "inode_create", "inode_free_security",
	"inode_getattr", "inode_getxattr", "inode_mknod", "inode_need_killpriv", "inode_post_setxattr",
	"inode_readlink", "inode_rename", "inode_rmdir", "inode_setattr", "inode_setxattr",
	"inode_symlink", "inode_unlink", "kernel_module_request", "kernel_read_file",
	"kernfs_init_security", "key_free", "mmap_file", "netlink_send", "path_notify", "release_secctx",
	"sb_alloc_security", "sb_eat_lsm_opts", "sb_kern_mount", "sb_mount", "sb_remount",
	"sb_set_mnt_opts", "sb_show_options", "sb_statfs", "sb_umount", "settime", "socket_accept",
	"socket_bind", "socket_connect", "socket_create", "socket_getpeername", "socket_getpeersec_dgram",
	"socket_getsockname", "socket_getsockopt", "socket_listen", "socket_post_create",
	"socket_recvmsg", "socket_sendmsg", "socket_shutdown", "socket_socketpair", "syslog",
	"task_alloc", "current_getsecid_subj", "task_getsecid_obj", "task_prctl", "task_setscheduler",
	"userns_create",
};

static bool name_in(const char *name, const char *const *set, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, set[i]))
			return true;
	return false;
}

bool kbpf_linux_d_path_allowed(const struct kbpf_host *host, const struct kbpf_prog_type *type,
			       uint32_t attach_btf_id)
{
	const struct btf *btf = kbpf_host_btf(host);
	const struct btf_type *t = btf && attach_btf_id ? btf__type_by_id(btf, attach_btf_id) : NULL;
	const char *name = t && btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;

	if (!type)
		return false;
	if (type->linux_type == BPF_PROG_TYPE_TRACING && !strcmp(type->name, "iter"))
		return true;
	if (type->linux_type == BPF_PROG_TYPE_LSM)
		return name && !strncmp(name, "bpf_lsm_", 8) &&
		       name_in(name + 8, sleepable_lsm_hooks, sizeof(sleepable_lsm_hooks) / sizeof(sleepable_lsm_hooks[0]));
	if (type->linux_type != BPF_PROG_TYPE_TRACING)
		return false;
	return name_in(name, d_path_targets, sizeof(d_path_targets) / sizeof(d_path_targets[0]));
}
