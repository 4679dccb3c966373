/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: the cgroup program types whose rules depend on the attach type — one
 * kbpf type per attach type, named as libbpf names the section ("cgroup/connect4",
 * "cgroup/post_bind4", "cgroup/getsockopt" …) — and cgroup_sysctl, cgroup_device,
 * perf_event: Linux 6.1's context rules at representative offsets, return ranges and
 * helper sets, with Linux's messages. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf_perf_event.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define R KBPF_ACCESS_READ
#define W KBPF_ACCESS_WRITE
#define SK(f) ((int)offsetof(struct bpf_sock, f))
#define SA(f) ((int)offsetof(struct bpf_sock_addr, f))
#define SO(f) ((int)offsetof(struct bpf_sockopt, f))

/* The verdict of type name for an access (-1: no such type). */
static int ok(const struct kbpf_host *host, const char *name, int off, int size, enum kbpf_access_type a,
	      struct kbpf_ctx_access_info *info)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, name);
	return t ? ctx_ok(t, off, size, a, info) : -1;
}

static bool has(const struct kbpf_host *host, const char *type, int32_t id)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, type);
	return t && t->get_func_proto(t, host, id) != NULL;
}

static int ret_range(const struct kbpf_host *host, const char *type, int *min, int *max)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, type);
	if (!t)
		return -1;
	*min = t->ret_min;
	*max = t->ret_max;
	return t->has_ret_range;
}

static void test_cgroup_sock(void)
{
	struct kbpf_host *host = linux_host();
	int lo, hi;
	if (!host)
		return;
	/* cgroup_sock is Linux's default attach type, sock_create */
	CHECK(ok(host, "cgroup_sock", SK(mark), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/sock_create", SK(bound_dev_if), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/sock_release", SK(priority), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/post_bind4", SK(mark), 4, R, NULL) == 0);
	/* source address and port: after bind only, of the family, read-only */
	CHECK(ok(host, "cgroup/post_bind4", SK(src_ip4), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup/post_bind4", SK(src_ip4), 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup/post_bind4", SK(src_ip6[0]), 4, R, NULL) == 0);
	CHECK(ok(host, "cgroup/post_bind6", SK(src_ip6[3]), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup/post_bind6", SK(src_port), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sock", SK(src_port), 4, R, NULL) == 0);
	/* the rest: bpf_sock_is_valid_access, read-only */
	CHECK(ok(host, "cgroup_sock", SK(family), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sock", SK(family), 1, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sock", SK(family), 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup_sock", SK(dst_port), 2, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sock", SK(dst_port) + 2, 2, R, NULL) == 0); /* padding */
	CHECK(ok(host, "cgroup_sock", SK(dst_ip4), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sock", SK(mark), 2, W, NULL) == 0);
	CHECK(ret_range(host, "cgroup/post_bind4", &lo, &hi) == 1 && lo == 0 && hi == 1);
	CHECK(has(host, "cgroup_sock", BPF_FUNC_get_socket_cookie) && has(host, "cgroup_sock", BPF_FUNC_get_netns_cookie));
	CHECK(has(host, "cgroup_sock", BPF_FUNC_map_lookup_elem) && !has(host, "cgroup_sock", BPF_FUNC_sk_lookup_tcp));
	kbpf_host_free(host);
}

static void test_sock_addr(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_ctx_access_info info;
	int lo, hi;
	if (!host)
		return;
	/* the address of the attach type's family only */
	CHECK(ok(host, "cgroup/connect4", SA(user_ip4), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup/connect4", SA(user_ip4), 1, R, &info) == 1 && info.ctx_field_size == 4);
	CHECK(ok(host, "cgroup/connect4", SA(user_ip4), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/connect4", SA(user_ip6[0]), 4, R, NULL) == 0);
	CHECK(ok(host, "cgroup/connect6", SA(user_ip4), 4, R, NULL) == 0);
	CHECK(ok(host, "cgroup/connect6", SA(user_ip6[2]), 4, W, NULL) == 1);
	/* wide_access.c: 8-byte accesses aligned to 8 inside the ip6 arrays */
	CHECK(ok(host, "cgroup/sendmsg6", SA(user_ip6[0]), 8, W, NULL) == 1);
	CHECK(ok(host, "cgroup/sendmsg6", SA(user_ip6[1]), 8, W, NULL) == 0);
	CHECK(ok(host, "cgroup/sendmsg6", SA(user_ip6[2]), 8, R, NULL) == 1);
	CHECK(ok(host, "cgroup/sendmsg6", SA(msg_src_ip6[0]), 8, W, NULL) == 0); /* at 44: not aligned */
	CHECK(ok(host, "cgroup/sendmsg6", SA(msg_src_ip6[1]), 8, W, NULL) == 1);
	CHECK(ok(host, "cgroup/sendmsg6", SA(msg_src_ip6[3]), 8, R, NULL) == 0); /* runs past it */
	/* msg_src_*: sendmsg of the family only */
	CHECK(ok(host, "cgroup/sendmsg4", SA(msg_src_ip4), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/connect4", SA(msg_src_ip4), 4, R, NULL) == 0);
	CHECK(ok(host, "cgroup/sendmsg4", SA(msg_src_ip6[0]), 4, R, NULL) == 0);
	/* user_port: whole writes, narrow reads; the rest read-only whole u32s */
	CHECK(ok(host, "cgroup/bind4", SA(user_port), 2, R, NULL) == 1);
	CHECK(ok(host, "cgroup/bind4", SA(user_port), 2, W, NULL) == 0);
	CHECK(ok(host, "cgroup/bind4", SA(family), 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup/bind4", SA(family), 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup/bind4", SA(protocol), 2, R, NULL) == 0);
	CHECK(ok(host, "cgroup/bind4", SA(sk), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_SOCKET);
	/* check_return_code */
	CHECK(ret_range(host, "cgroup/bind6", &lo, &hi) == 1 && lo == 0 && hi == 3);
	CHECK(ret_range(host, "cgroup/recvmsg4", &lo, &hi) == 1 && lo == 1 && hi == 1);
	CHECK(ret_range(host, "cgroup/getsockname6", &lo, &hi) == 1 && lo == 1 && hi == 1);
	CHECK(ret_range(host, "cgroup/connect4", &lo, &hi) == 1 && lo == 0 && hi == 1);
	CHECK(has(host, "cgroup/connect4", BPF_FUNC_sk_lookup_tcp) && has(host, "cgroup/connect4", BPF_FUNC_sk_release));
	/* ctx.c: get_netns_cookie takes the context or NULL */
	char log[2048] = "";
	const struct bpf_insn one[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "cgroup/sendmsg6", .log_buf = log,
				      .log_size = sizeof(log) };
	CHECK_EQ_U64(kbpf_prog_verify(one, 4, &o, NULL), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "R1 type=scalar expected=ctx");
	struct bpf_insn null_ctx[4];
	memcpy(null_ctx, one, sizeof(one));
	null_ctx[0] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_1, 0);
	CHECK_EQ_U64(kbpf_prog_verify(null_ctx, 4, &o, NULL), 0);
	kbpf_host_free(host);
}

/* Linux 6.7+'s AF_UNIX sock_addr attach types: their own return ranges (6.12's
 * check_return_code: [1, 1] for recvmsg, getpeername, getsockname; [0, 1] for connect and
 * sendmsg) and no inet address in the context. */
static void test_sock_addr_unix(void)
{
	struct kbpf_host *host = linux_host();
	int lo, hi;
	if (!host)
		return;
	static const struct {
		const char *type;
		int min, max;
	} unix_types[] = {
		{ "cgroup/connect_unix", 0, 1 },     { "cgroup/sendmsg_unix", 0, 1 },
		{ "cgroup/recvmsg_unix", 1, 1 },     { "cgroup/getpeername_unix", 1, 1 },
		{ "cgroup/getsockname_unix", 1, 1 },
	};
	for (size_t i = 0; i < sizeof(unix_types) / sizeof(unix_types[0]); i++) {
		const char *type = unix_types[i].type;
		CHECK(ret_range(host, type, &lo, &hi) == 1 && lo == unix_types[i].min && hi == unix_types[i].max);
		CHECK(ok(host, type, SA(user_ip4), 4, R, NULL) == 0);
		CHECK(ok(host, type, SA(user_ip6[0]), 4, R, NULL) == 0);
		CHECK(ok(host, type, SA(msg_src_ip4), 4, R, NULL) == 0);
		CHECK(ok(host, type, SA(user_family), 4, R, NULL) == 1);
		/* verified: a constant just outside the range is refused with 6.12's message */
		char log[1024] = "", want[128];
		const struct bpf_insn prog[] = { BPF_MOV64_IMM(BPF_REG_0, unix_types[i].max + 1), BPF_EXIT_INSN() };
		struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .log_buf = log,
					      .log_size = sizeof(log) };
		CHECK_EQ_U64(kbpf_prog_verify(prog, 2, &o, NULL), (uint64_t)-EINVAL);
		snprintf(want, sizeof(want), "At program exit the register R0 has smin=%d smax=%d should have been in [%d, %d]",
			 unix_types[i].max + 1, unix_types[i].max + 1, unix_types[i].min, unix_types[i].max);
		CHECK_CONTAINS(log, want);
		const struct bpf_insn good[] = { BPF_MOV64_IMM(BPF_REG_0, unix_types[i].max), BPF_EXIT_INSN() };
		CHECK_EQ_U64(kbpf_prog_verify(good, 2, &o, NULL), 0);
	}
	kbpf_host_free(host);
}

static void test_sockopt_sysctl_device(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_ctx_access_info info;
	int lo, hi;
	if (!host)
		return;
	/* bpf_sockopt: optval .. optval_end is a packet, read and written directly */
	CHECK(ok(host, "cgroup/getsockopt", SO(optval), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET);
	CHECK(ok(host, "cgroup/getsockopt", SO(optval_end), 8, R, &info) == 1 &&
	      info.reg_type == KBPF_PTR_TO_PACKET_END);
	CHECK(ok(host, "cgroup/setsockopt", SO(sk), 8, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_SOCKET);
	CHECK(ok(host, "cgroup/getsockopt", SO(retval), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/setsockopt", SO(retval), 4, R, NULL) == 0);
	CHECK(ok(host, "cgroup/setsockopt", SO(optname), 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup/getsockopt", SO(level), 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup/getsockopt", SO(optlen), 4, W, NULL) == 1);
	CHECK(kbpf_host_prog_type_find(host, "cgroup/getsockopt")->direct_packet_access == KBPF_PKT_ACCESS_RW);
	CHECK(has(host, "cgroup/setsockopt", BPF_FUNC_setsockopt) && !has(host, "cgroup/getsockopt", BPF_FUNC_setsockopt));
	/* bpf_sysctl: write read-only, file_pos written whole */
	CHECK(ok(host, "cgroup_sysctl", 0, 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sysctl", 0, 1, R, NULL) == 1);
	CHECK(ok(host, "cgroup_sysctl", 0, 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup_sysctl", 4, 4, W, NULL) == 1);
	CHECK(ok(host, "cgroup_sysctl", 4, 2, W, NULL) == 0);
	CHECK(ok(host, "cgroup_sysctl", 8, 4, R, NULL) == 0);
	CHECK(ret_range(host, "cgroup_sysctl", &lo, &hi) == 1 && lo == 0 && hi == 1);
	CHECK(has(host, "cgroup_sysctl", BPF_FUNC_strtoul) && has(host, "cgroup_sysctl", BPF_FUNC_map_lookup_elem));
	/* bpf_cgroup_dev_ctx: read-only; access_type narrow, major/minor whole */
	CHECK(ok(host, "cgroup_device", 0, 2, R, NULL) == 1);
	CHECK(ok(host, "cgroup_device", 4, 4, R, NULL) == 1);
	CHECK(ok(host, "cgroup_device", 4, 2, R, NULL) == 0);
	CHECK(ok(host, "cgroup_device", 8, 4, W, NULL) == 0);
	CHECK(ok(host, "cgroup_device", 12, 4, R, NULL) == 0);
	CHECK(ret_range(host, "cgroup_device", &lo, &hi) == 1 && lo == 0 && hi == 1);
	kbpf_host_free(host);
}

static void test_perf_event(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_ctx_access_info info;
	int sp = (int)offsetof(struct bpf_perf_event_data, sample_period);
	if (!host)
		return;
	/* perf_event_sample_period.c: byte, half, word and dword loads of sample_period */
	for (int size = 1; size <= 8; size *= 2)
		CHECK(ok(host, "perf_event", sp, size, R, &info) == 1 && info.ctx_field_size == 8);
	CHECK(ok(host, "perf_event", sp + 4, 4, R, NULL) == 1);
	CHECK(ok(host, "perf_event", sp, 8, W, NULL) == 0);
	CHECK(ok(host, "perf_event", 0, 8, R, NULL) == 1); /* a register: a whole long */
	CHECK(ok(host, "perf_event", 0, 4, R, NULL) == 0);
	CHECK(ok(host, "perf_event", (int)sizeof(struct bpf_perf_event_data), 8, R, NULL) == 0);
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, "perf_event");
	CHECK(t && t->linux_type == BPF_PROG_TYPE_PERF_EVENT && t->load_caps == (KBPF_CAP_BPF | KBPF_CAP_PERFMON));
	/* helper_restricted.c: no ktime_get_coarse_ns for tracing types */
	CHECK(has(host, "perf_event", BPF_FUNC_get_stack) && !has(host, "perf_event", BPF_FUNC_ktime_get_coarse_ns));
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_cgroup_sock);
	RUN(test_sock_addr);
	RUN(test_sock_addr_unix);
	RUN(test_sockopt_sysctl_device);
	RUN(test_perf_event);
	return test_summary();
}
