/* SPDX-License-Identifier: Apache-2.0 */
/* The TCP host's BPF side (docs/tcp-sim.md "BPF congestion controls", docs/struct-ops.md):
 * what Linux 6.1's net/ipv4/bpf_tcp_ca.c gives a `struct_ops tcp_congestion_ops` object.
 *
 *   kbpf_host_btf_load_self(host);        // the executable links kbpf_tcp (kbpf_add_host_btf)
 *   kbpf_tcp_host_add(host);               // before kbpf_linux_host_add, see below
 *   kbpf_object_open_file("bpf_cubic.o", &(struct kbpf_object_open_opts){ .host = host, … }, &obj);
 *   kbpf_object_load(obj);
 *   kbpf_tcp_bpf_cc_load(obj, NULL, host, NULL, &cc);   // the struct_ops map as a CC
 *   kbpf_tcp_sim_register_cc(sim, kbpf_tcp_bpf_cc_ops(cc));
 *   kbpf_tcp_sim_add_flow(sim, kbpf_tcp_bpf_cc_ops(cc), NULL, NULL);
 *   …  kbpf_tcp_sim_free(sim); kbpf_tcp_bpf_cc_free(cc); kbpf_object_close(obj);
 */
#ifndef KBPF_TCP_HOST_H
#define KBPF_TCP_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/export.h>
#include <kbpf/host.h>
#include <kbpf/object.h>
#include <kbpf/tcp.h>
#include <kbpf/tcp_sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The program type's name, also the struct_ops type's. */
#define KBPF_TCP_CA_PROG_TYPE "tcp_congestion_ops"

/* Register on host (whose BTF must be loaded, from an executable that links kbpf_tcp):
 *  - program type "tcp_congestion_ops" (linux_type BPF_PROG_TYPE_STRUCT_OPS): context =
 *    the member's arguments with struct sock promoted to struct tcp_sock; writes only to
 *    Linux's writable tcp_sock fields; the helpers of bpf_tcp_ca_get_func_proto
 *    (bpf_tcp_send_ack, bpf_sk_storage_get/delete, bpf_setsockopt/getsockopt except from
 *    `release`, bpf_ktime_get_coarse_ns, the base helpers incl. bpf_jiffies64 and map ops);
 *  - the kfunc sets: the 5 generic functions and the cubic, dctcp and bbr sets;
 *  - the struct_ops type "tcp_congestion_ops" (bpf_tcp_ca_init_member's rules);
 *  - kconfig CONFIG_HZ = KBPF_TCP_HZ, and Linux's map helpers if missing.
 * The clock helpers (bpf_jiffies64, bpf_ktime_get_ns/_boot_ns/_coarse_ns) read the
 * simulated clocks while a simulation runs on the calling thread (the real ones
 * otherwise); so do sk helpers through the socket. The clock helpers and
 * bpf_tcp_send_ack are the host's run-time helpers for those ids: call this before
 * kbpf_linux_host_add (which then keeps them). The helpers that take a socket
 * (bpf_sk_storage_get/delete, bpf_setsockopt/getsockopt) are this program type's own,
 * under ids of their own: Linux's program types in the same host keep Linux's, so
 * none of them ever runs this host's on a socket or context of another kind. Returns 0,
 * -EINVAL, -ENOENT (no host BTF), -EEXIST (a helper id already has another run-time
 * implementation, or the types are registered), -ENOMEM; a kfunc registration error is
 * returned as is. */
KBPF_API int kbpf_tcp_host_add(struct kbpf_host *host);

/* A BPF congestion control: an object's struct_ops map made a struct tcp_congestion_ops. */
struct kbpf_tcp_bpf_cc;

struct kbpf_tcp_bpf_cc_opts {
	size_t sz;          /* sizeof(struct kbpf_tcp_bpf_cc_opts) */
	unsigned tramp_flags; /* KBPF_TRAMPOLINE_* */
	char *log_buf;      /* receives why a load fails (Linux's message where it has one) */
	size_t log_size;
};

/* Instantiate struct_ops variable map (NULL: the object's only one) of the loaded obj as
 * a tcp_congestion_ops, with the host's rules (check_member, validate). The object must
 * outlive the CC, and the CC every simulation using it. Returns 0 and *out; -ENOENT (no
 * such map / not exactly one), -EINVAL (not a tcp_congestion_ops, a rule broken),
 * -ENOTSUPP (524: an unsupported member such as get_info), -EEXIST (a native CC has the
 * name), -ENOMEM. */
KBPF_API int kbpf_tcp_bpf_cc_load(struct kbpf_object *obj, const char *map, struct kbpf_host *host,
			 const struct kbpf_tcp_bpf_cc_opts *opts, struct kbpf_tcp_bpf_cc **out);
KBPF_API const struct tcp_congestion_ops *kbpf_tcp_bpf_cc_ops(const struct kbpf_tcp_bpf_cc *cc);
KBPF_API void kbpf_tcp_bpf_cc_free(struct kbpf_tcp_bpf_cc *cc);

/* --- the per-simulation registry of CCs by name (Linux's tcp_cong_list) --- */

/* Make ops findable by name in sim (bpf_setsockopt(TCP_CONGESTION)), beside the native
 * CCs. ops must pass kbpf_tcp_cc_validate and outlive sim. Returns 0, -EINVAL, -EEXIST
 * (the name is taken: a native CC or another registered one), -ENOMEM. */
KBPF_API int kbpf_tcp_sim_register_cc(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops);
/* The CC registered in sim as name, else the native one, else NULL (sim NULL: native only). */
KBPF_API const struct tcp_congestion_ops *kbpf_tcp_sim_find_cc(const struct kbpf_tcp_sim *sim, const char *name);

/* tcp_set_congestion_control(sk, name) as bpf_setsockopt(SOL_TCP, TCP_CONGESTION) does it:
 * "cdg" → -ENOTSUPP (524), re-entered from an init it caused → -EBUSY, unknown → -ENOENT;
 * the same ops → 0; else the old ops' release, priv zeroed, ECT from the new ops, and
 * (established sockets) the new init. Names are looked up in the simulation the socket
 * belongs to. */
KBPF_API int kbpf_tcp_set_congestion_control(struct sock *sk, const char *name, size_t len);

/* --- socket local storage (BPF_MAP_TYPE_SK_STORAGE) --- */

/* Linux's bpf_map_update_elem(sk_storage_map, &sock_fd, value, flags) for socket sk:
 * 0 or kbpf_local_storage_update's error; -ENOSPC if the socket already holds values in
 * KBPF_TCP_SK_STORAGE_MAPS other maps. */
KBPF_API int kbpf_tcp_sk_storage_update(struct kbpf_map *map, struct sock *sk, const void *value, uint64_t flags);
/* Linux's bpf_map_lookup_elem(sk_storage_map, &sock_fd, value). */
KBPF_API int kbpf_tcp_sk_storage_lookup(struct kbpf_map *map, struct sock *sk, void *value);
/* The socket goes away: drop its value in every map that holds one (the simulator calls
 * it for its sockets; those maps must still exist). */
KBPF_API void kbpf_tcp_sk_storage_release(struct sock *sk);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_TCP_HOST_H */
