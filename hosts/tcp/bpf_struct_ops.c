/* SPDX-License-Identifier: Apache-2.0 */
/* The struct_ops type tcp_congestion_ops (Linux 6.1's bpf_tcp_congestion_ops: check_member,
 * init_member, reg), kbpf_tcp_host_add, and BPF CCs as struct tcp_congestion_ops. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kfunc.h>
#include <kbpf/struct_ops.h>
#include "tcp_host_internal.h"

/* bpf_tcp_ca_check_member: get_info has no BPF form (it fills netlink attributes). */
static int tcp_ca_check_member(void *cookie, const char *member, const struct kbpf_program *prog, char *msg,
			       size_t msg_size)
{
	(void)cookie, (void)prog;
	if (member && !strcmp(member, "get_info")) {
		snprintf(msg, msg_size, "attach to unsupported member %s of struct tcp_congestion_ops", member);
		return -KBPF_ENOTSUPP;
	}
	return 0;
}

/* bpf_obj_name_cpy: letters, digits, '_' and '.', NUL-terminated within the array;
 * returns the length or -EINVAL. */
static int obj_name_len(const char *name, size_t size)
{
	size_t n = 0;

	for (; n < size && name[n]; n++)
		if (!isalnum((unsigned char)name[n]) && name[n] != '_' && name[n] != '.')
			return -EINVAL;
	return n == size ? -EINVAL : (int)n;
}

/* bpf_tcp_ca_init_member for the data members, then tcp_register_congestion_control's
 * check. Linux's init_member fails with an errno only; the messages here say which rule. */
static int tcp_ca_validate(void *cookie, const void *data, size_t size, char *msg, size_t msg_size)
{
	const struct tcp_congestion_ops *ops = data;
	static const char zero[sizeof(struct list_head)];
	int len;

	(void)cookie;
	if (size < sizeof(*ops)) {
		snprintf(msg, msg_size, "tcp_congestion_ops: %zu bytes, expected %zu", size, sizeof(*ops));
		return -EINVAL;
	}
	if (ops->flags & ~TCP_CONG_MASK) {
		snprintf(msg, msg_size, "tcp_congestion_ops: flags %#x not within TCP_CONG_MASK (%#x)", ops->flags,
			 TCP_CONG_MASK);
		return -EINVAL;
	}
	len = obj_name_len(ops->name, sizeof(ops->name));
	if (len <= 0) {
		snprintf(msg, msg_size, "tcp_congestion_ops: name must be 1 to %d letters, digits, '_' or '.'",
			 TCP_CA_NAME_MAX - 1);
		return -EINVAL;
	}
	if (kbpf_tcp_cc_find(ops->name)) {
		snprintf(msg, msg_size, "tcp_congestion_ops: name \"%s\" is already registered", ops->name);
		return -EEXIST;
	}
	if (ops->owner || ops->key || memcmp(&ops->list, zero, sizeof(zero))) {
		snprintf(msg, msg_size, "tcp_congestion_ops: member %s must be zero",
			 ops->owner ? "owner" : ops->key ? "key" : "list");
		return -EINVAL;
	}
	if (!ops->ssthresh || !ops->undo_cwnd || (!ops->cong_avoid && !ops->cong_control)) {
		snprintf(msg, msg_size, "%s does not implement required ops", ops->name);
		return -EINVAL;
	}
	return 0;
}

int kbpf_tcp_struct_ops_add(struct kbpf_host *host)
{
	struct kbpf_struct_ops_type t = {
		.sz = sizeof(t), .name = "tcp_congestion_ops", .prog_type = KBPF_TCP_CA_PROG_TYPE,
		.check_member = tcp_ca_check_member, .validate = tcp_ca_validate,
	};
	return kbpf_host_struct_ops_register(host, &t);
}

int kbpf_tcp_host_add(struct kbpf_host *host)
{
	struct kbpf_prog_type pt = kbpf_tcp_ca_prog_type;
	int ret;

	if (!host)
		return -EINVAL;
	if (kbpf_host_prog_type_find(host, KBPF_TCP_CA_PROG_TYPE))
		return -EEXIST;
	/* the socket model, the kfuncs' prototypes: this executable's own BTF */
	if (!kbpf_host_btf(host) && (ret = kbpf_host_btf_load_self(host)))
		return ret;
	if (!kbpf_host_helper_proto(host, 1 /* bpf_map_lookup_elem */) && (ret = kbpf_host_add_map_helpers(host)))
		return ret;
	if ((ret = kbpf_tcp_helpers_add(host)))
		return ret;
	pt.priv = host;
	if ((ret = kbpf_host_prog_type_register(host, &pt)))
		return ret;
	if ((ret = kbpf_tcp_kfuncs_add(host)))
		return ret;
	if ((ret = kbpf_tcp_struct_ops_add(host)))
		return ret;
	return kbpf_host_kconfig_set(host, "CONFIG_HZ", KBPF_TCP_HZ);
}

struct kbpf_tcp_bpf_cc {
	struct tcp_congestion_ops ops;
	struct kbpf_struct_ops_inst *inst;
};

/* The object's only tcp_congestion_ops variable, or NULL (none, or several). */
static const char *only_tcp_ca_map(const struct kbpf_object *obj)
{
	const struct kbpf_struct_ops *found = NULL;

	for (const struct kbpf_struct_ops *so = kbpf_object_next_struct_ops(obj, NULL); so;
	     so = kbpf_object_next_struct_ops(obj, so)) {
		if (strcmp(so->type_name, "tcp_congestion_ops"))
			continue;
		if (found)
			return NULL;
		found = so;
	}
	return found ? found->name : NULL;
}

int kbpf_tcp_bpf_cc_load(struct kbpf_object *obj, const char *map, struct kbpf_host *host,
			 const struct kbpf_tcp_bpf_cc_opts *opts, struct kbpf_tcp_bpf_cc **out)
{
	const struct kbpf_struct_ops *so;
	struct kbpf_tcp_bpf_cc *cc;
	char *log = opts && opts->sz >= offsetof(struct kbpf_tcp_bpf_cc_opts, log_size) + sizeof(size_t)
			    ? opts->log_buf : NULL;
	size_t log_size = log ? opts->log_size : 0;
	int ret;

	if (log_size)
		log[0] = 0;
	if (!obj || !host || !out || (opts && opts->sz < offsetof(struct kbpf_tcp_bpf_cc_opts, tramp_flags) +
						   sizeof(unsigned)))
		return -EINVAL;
	*out = NULL;
	if (!map && !(map = only_tcp_ca_map(obj))) {
		if (log_size)
			snprintf(log, log_size, "object '%s': no single tcp_congestion_ops struct_ops map: name one",
				 kbpf_object_name(obj));
		return -ENOENT;
	}
	so = kbpf_object_find_struct_ops(obj, map);
	if (!so) {
		if (log_size)
			snprintf(log, log_size, "object '%s': no struct_ops map '%s'", kbpf_object_name(obj), map);
		return -ENOENT;
	}
	if (strcmp(so->type_name, "tcp_congestion_ops")) {
		if (log_size)
			snprintf(log, log_size, "struct_ops map '%s' is a struct %s, not a tcp_congestion_ops", map,
				 so->type_name);
		return -EINVAL;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return -ENOMEM;
	struct kbpf_struct_ops_opts so_opts = {
		.sz = sizeof(so_opts), .type = kbpf_host_struct_ops_find(host, "tcp_congestion_ops"),
		.data = &cc->ops, .data_size = sizeof(cc->ops), .tramp_flags = opts ? opts->tramp_flags : 0,
		.log_buf = log, .log_size = log_size,
	};
	if (!so_opts.type) {
		free(cc);
		if (log_size)
			snprintf(log, log_size, "the host has no tcp_congestion_ops type (kbpf_tcp_host_add)");
		return -EINVAL;
	}
	ret = kbpf_struct_ops_instantiate(obj, map, host, &so_opts, &cc->inst);
	if (ret) {
		free(cc);
		return ret;
	}
	*out = cc;
	return 0;
}

const struct tcp_congestion_ops *kbpf_tcp_bpf_cc_ops(const struct kbpf_tcp_bpf_cc *cc)
{
	return cc ? &cc->ops : NULL;
}

void kbpf_tcp_bpf_cc_free(struct kbpf_tcp_bpf_cc *cc)
{
	if (!cc)
		return;
	kbpf_struct_ops_free(cc->inst);
	free(cc);
}
