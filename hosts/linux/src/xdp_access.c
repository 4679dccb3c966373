/* SPDX-License-Identifier: Apache-2.0 */
/* struct xdp_md access for xdp programs (Linux 6.1's xdp_is_valid_access): read-only,
 * every field exactly 4 bytes; data, data_meta and data_end are packet pointers, found
 * at run time in struct kbpf_linux_xdp. egress_ifindex needs the devmap attach type,
 * which kbpf does not have, and writes need a device-bound program: both refused. */
#include "linux_internal.h"

int kbpf_linux_xdp_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info)
{
	(void)type;
	if (off == (int)offsetof(struct xdp_md, egress_ifindex))
		return 0;
	if (access != KBPF_ACCESS_READ)
		return 0;
	if (off < 0 || off >= (int)sizeof(struct xdp_md) || size != 4 || off % size)
		return 0;
	if (off == (int)offsetof(struct xdp_md, data)) {
		info->reg_type = KBPF_PTR_TO_PACKET;
		info->conv_off = offsetof(struct kbpf_linux_xdp, data);
	} else if (off == (int)offsetof(struct xdp_md, data_meta)) {
		info->reg_type = KBPF_PTR_TO_PACKET_META;
		info->conv_off = offsetof(struct kbpf_linux_xdp, data_meta);
	} else if (off == (int)offsetof(struct xdp_md, data_end)) {
		info->reg_type = KBPF_PTR_TO_PACKET_END;
		info->conv_off = offsetof(struct kbpf_linux_xdp, data_end);
	} else {
		return 1;
	}
	info->conv_size = sizeof(void *);
	return 1;
}
