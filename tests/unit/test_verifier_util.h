/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the verifier unit tests: a host with the map helpers and three small
 * program types of the tests' own ("t_plain": 64-byte ctx, reads anywhere, writes to
 * the first 16 bytes; "t_pkt": ctx {u64 data; u64 data_end; u64 pad[6]} with direct
 * packet access; "t_ret01": t_plain that must return 0 or 1), maps, and EXPECT
 * macros that assemble pseudo-C text and check the verdict and a log substring. */
#ifndef TEST_VERIFIER_UTIL_H
#define TEST_VERIFIER_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/host.h>
#include <kbpf/isa.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "test.h"

static int t_plain_access(const struct kbpf_prog_type *t, int off, int size, enum kbpf_access_type a,
			  struct kbpf_ctx_access_info *info)
{
	(void)t;
	(void)info;
	if (off < 0 || off + size > 64 || off % size)
		return 0;
	return a == KBPF_ACCESS_READ || off + size <= 16;
}

static int t_pkt_access(const struct kbpf_prog_type *t, int off, int size, enum kbpf_access_type a,
			struct kbpf_ctx_access_info *info)
{
	(void)t;
	if (a != KBPF_ACCESS_READ || off < 0 || off + size > 64 || off % size)
		return 0;
	if (off == 0 || off == 8) {
		if (size != 8)
			return 0;
		info->reg_type = off == 0 ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
	}
	return 1;
}

static struct kbpf_host *tv_host;
static struct kbpf_map *tv_maps[4];

static void tv_setup(void)
{
	tv_host = kbpf_host_new();
	kbpf_host_add_map_helpers(tv_host);
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "t_plain", .ctx_size = 64,
				    .is_valid_access = t_plain_access };
	kbpf_host_prog_type_register(tv_host, &t);
	t.name = "t_ret01";
	t.has_ret_range = 1;
	t.ret_min = 0;
	t.ret_max = 1;
	kbpf_host_prog_type_register(tv_host, &t);
	struct kbpf_prog_type p = { .sz = sizeof(p), .name = "t_pkt", .ctx_size = 64,
				    .is_valid_access = t_pkt_access, .direct_packet_access = 1 };
	kbpf_host_prog_type_register(tv_host, &p);
	/* map 0: hash 8/8; map 1: array 4/48; map 2: ringbuf 4096; map 3: array 4/8 rdonly */
	struct kbpf_map_def d0 = { .sz = sizeof(d0), .type = BPF_MAP_TYPE_HASH, .key_size = 8, .value_size = 8,
				    .max_entries = 16, .map_flags = 0, .name = "h8" };
	struct kbpf_map_def d1 = { .sz = sizeof(d1), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 48,
				    .max_entries = 1, .map_flags = 0, .name = "a48" };
	struct kbpf_map_def d2 = { .sz = sizeof(d2), .type = BPF_MAP_TYPE_RINGBUF, .key_size = 0, .value_size = 0,
				    .max_entries = 4096, .map_flags = 0, .name = "rb" };
	struct kbpf_map_def d3 = { .sz = sizeof(d3), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				    .max_entries = 1, .map_flags = BPF_F_RDONLY_PROG, .name = "ro" };
	kbpf_map_create(&d0, &tv_maps[0]);
	kbpf_map_create(&d1, &tv_maps[1]);
	kbpf_map_create(&d2, &tv_maps[2]);
	kbpf_map_create(&d3, &tv_maps[3]);
}

static void tv_teardown(void)
{
	for (int i = 0; i < 4; i++)
		kbpf_map_free(tv_maps[i]);
	kbpf_host_free(tv_host);
}

static char tv_log[1 << 16];
static struct kbpf_verify_result tv_last; /* the last tv_verify's */

/* Verify text as prog type; returns kbpf_prog_verify's result (or -1000 if the text
 * does not assemble). The log is in tv_log. */
static int tv_verify(const char *text, const char *type, unsigned level, int unpriv)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[256];
	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err))) {
		fprintf(stderr, "asm failed: %s\n%s\n", err, text);
		return -1000;
	}
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = type, .maps = tv_maps,
				      .nr_maps = 4, .license = "GPL", .unprivileged = unpriv, .log_level = level,
				      .log_buf = tv_log, .log_size = sizeof(tv_log) };
	tv_last = (struct kbpf_verify_result){ .sz = sizeof(tv_last) };
	int r = kbpf_prog_verify(insns, cnt, &o, &tv_last);
	free(insns);
	return r;
}

static void tv_expect(const char *text, const char *type, int unpriv, int want_ok, const char *msg, int line)
{
	int r = tv_verify(text, type, 1, unpriv);
	bool ok = want_ok ? r == 0 : r < 0 && r != -1000;
	if (ok && msg && !strstr(tv_log, msg))
		ok = false;
	if (!ok) {
		fprintf(stderr, "%s:%d: verify gave %d, want %s%s%s\n--- program:\n%s\n--- log:\n%s\n", __FILE__, line, r,
			want_ok ? "accept" : "reject", msg ? " with " : "", msg ? msg : "", text, tv_log);
		test_failed_now = 1;
	}
}

#define ACCEPT(text) tv_expect(text, "t_plain", 0, 1, NULL, __LINE__)
#define ACCEPT_T(type, text) tv_expect(text, type, 0, 1, NULL, __LINE__)
#define REJECT(text, msg) tv_expect(text, "t_plain", 0, 0, msg, __LINE__)
#define REJECT_T(type, text, msg) tv_expect(text, type, 0, 0, msg, __LINE__)
#define REJECT_U(text, msg) tv_expect(text, "t_plain", 1, 0, msg, __LINE__)
#define ACCEPT_U(text) tv_expect(text, "t_plain", 1, 1, NULL, __LINE__)

/* Create text as a verified t_plain/t_pkt program (kbpf_prog_create with prog_type) and
 * run it in checked mode with adversarial contexts: every byte 0x00, 0xff, and a
 * pattern; for t_pkt the ctx points at a packet of pkt_len bytes. Returns the number of
 * runs that faulted (0 expected). */
__attribute__((unused)) static int tv_run_checked(const char *text, const char *type, size_t pkt_len)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[512];
	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)))
		return -1;
	struct kbpf_prog *prog = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = tv_host, .maps = tv_maps, .nr_maps = 4,
				     .log_buf = err, .log_size = sizeof(err), .prog_type = type, .license = "GPL" };
	int ret = kbpf_prog_create(insns, cnt, &po, &prog);
	free(insns);
	if (ret) {
		fprintf(stderr, "create: %d %s\n", ret, err);
		return -1;
	}
	int faults = 0;
	static const uint8_t fills[] = { 0x00, 0xff, 0x5a };
	for (size_t k = 0; k < sizeof(fills); k++) {
		uint64_t ctx[8];
		uint8_t pkt[256];
		memset(ctx, fills[k], sizeof(ctx));
		memset(pkt, fills[k], sizeof(pkt));
		struct kbpf_mem_region regs[16]; /* ctx, packet, each map's storage and header */
		size_t nr = 0;
		regs[nr++] = (struct kbpf_mem_region){ ctx, sizeof(ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
		if (pkt_len) {
			ctx[0] = (uint64_t)(uintptr_t)pkt;
			ctx[1] = (uint64_t)(uintptr_t)(pkt + pkt_len);
			regs[nr++] = (struct kbpf_mem_region){ pkt, pkt_len, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" };
		}
		for (int m = 0; m < 4 && nr < 16; m++)
			nr += kbpf_map_mem_regions(tv_maps[m], &regs[nr], 16 - nr);
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = regs,
					    .nr_regions = nr, .max_insns = 1000000, .err = err, .err_size = sizeof(err) };
		ro.args[0] = (uint64_t)(uintptr_t)ctx;
		if (kbpf_prog_run_opts(prog, &ro, NULL)) {
			fprintf(stderr, "checked run faulted: %s\n", err);
			faults++;
		}
	}
	kbpf_prog_free(prog);
	return faults;
}

#define ACCEPT_RUN(type, pkt_len, text)                                                            \
	do {                                                                                       \
		tv_expect(text, type, 0, 1, NULL, __LINE__);                                       \
		CHECK(tv_run_checked(text, type, pkt_len) == 0);                                   \
	} while (0)

#endif
