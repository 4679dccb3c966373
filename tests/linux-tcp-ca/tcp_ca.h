/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the linux.tcp_ca runner's files: an object loaded on the TCP host
 * (tcp_ca_selftests.c), the host-specific glue (host_glue.c) and the comparison of Linux's
 * BPF CCs with the native ones (compare.c). */
#ifndef KBPF_LINUX_TCP_CA_H
#define KBPF_LINUX_TCP_CA_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/kbpf.h>
#include <kbpf/tcp_host.h>
#include <kbpf/tcp_sim.h>

/* Where run.sh put the compiled objects (argv[1]). */
extern const char *ca_objdir;

/* One object on its own fresh host (a skeleton + its attach link). */
struct ca_obj {
	struct kbpf_host *host;
	struct kbpf_object *obj;
	struct kbpf_tcp_bpf_cc *cc; /* the attached CC (bpf_map__attach_struct_ops) */
	int open_err, load_err, attach_err;
	int nr_progs, nr_jited; /* loaded programs, and how many of them the JIT compiled */
	char log[65536];
	char attach_log[1024];
};

struct kbpf_host *ca_host_new(char *err, size_t err_size);
int ca_obj_load(struct ca_obj *o, const char *file, int jit, const char *patch_sym, const char *patch_val);
int ca_obj_attach(struct ca_obj *o, const char *map);
const struct tcp_congestion_ops *ca_obj_ops(const struct ca_obj *o);
void ca_obj_close(struct ca_obj *o);

struct ca_transfer_hooks {
	void (*flow_opts)(struct kbpf_tcp_flow_opts *fo, void *ctx);
	int (*before_start)(struct kbpf_tcp_sim *sim, unsigned int id, void *ctx, char *err, size_t err_size);
	int (*after_run)(struct kbpf_tcp_sim *sim, unsigned int id, void *ctx, char *err, size_t err_size);
	void *ctx;
};
int ca_transfer(const struct tcp_congestion_ops *ops, uint64_t bytes, int ecn,
		const struct ca_transfer_hooks *hooks, struct kbpf_tcp_flow_stats *fs, char *err, size_t err_size);

/* --- host_glue.c: what depends on the TCP host's API --- */
/* Make ops findable by name in sim (Linux's registration: setsockopt(TCP_CONGESTION)). */
int ca_sim_register(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops);
/* The flow's peer does not negotiate ECN (Linux's test: a "cubic" client, tcp_ecn 2). */
void ca_flow_opts_no_ecn_peer(struct kbpf_tcp_flow_opts *fo);
/* bpf_map_update_elem(map, &sock_fd, value, BPF_NOEXIST) / bpf_map_lookup_elem on an
 * SK_STORAGE map of the object, for socket sk. */
int ca_sk_storage_update(struct ca_obj *o, const char *map, const void *sk, const void *value);
int ca_sk_storage_lookup(struct ca_obj *o, const char *map, const void *sk, void *value);

/* --- compare.c --- */
int ca_compare(uint64_t seed);

#endif
