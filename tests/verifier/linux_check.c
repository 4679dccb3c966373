/* SPDX-License-Identifier: Apache-2.0 */
/* Check the verifier cases against the live Linux kernel: each case is assembled with
 * kbpf's assembler, its maps are created with bpf(BPF_MAP_CREATE), map LDDWs are patched
 * to the real fds and the program is loaded with bpf(BPF_PROG_LOAD) at log level 1. The
 * case's verdict and message substrings must match Linux's; an accepted case with a
 * retval is also run once with BPF_PROG_TEST_RUN (64 zero bytes of packet) where the
 * program type supports it.  Needs root; exits 77 (skip) when bpf() is unavailable.
 *
 * usage: kbpf-verifier-linux [-v] [--only NAME] FILE.case...   */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#ifndef BPF_F_TEST_REG_INVARIANTS
#define BPF_F_TEST_REG_INVARIANTS (1U << 7) /* Linux 6.7; older <linux/bpf.h> lack it */
#endif

#include <kbpf/isa.h>
#include "case.h"
#include "funcs.h"
#include <bpf/btf.h>

#define LOG_SIZE (16u << 20)
#define ENOTSUPP_KERNEL 524

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(const struct case_map *m)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = m->type;
	a.key_size = m->key_size;
	a.value_size = m->value_size;
	a.max_entries = m->max_entries;
	a.map_flags = m->flags;
	int fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0 || (!m->value_len && !m->frozen))
		return fd;
	if (m->value_len) {
		uint8_t *v = calloc(1, m->value_size);
		uint32_t key = 0;
		long r = -1;
		if (v) {
			memcpy(v, m->value, m->value_len);
			memset(&a, 0, sizeof(a));
			a.map_fd = (uint32_t)fd;
			a.key = (uint64_t)(uintptr_t)&key;
			a.value = (uint64_t)(uintptr_t)v;
			r = sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
			free(v);
		}
		if (r) {
			close(fd);
			return -1;
		}
	}
	if (m->frozen) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)fd;
		if (sys_bpf(BPF_MAP_FREEZE, &a)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Unprivileged loads as Linux's test_verifier emulates them: drop CAP_SYS_ADMIN,
 * CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF from the effective set around the load. */
static int caps_set_privileged(int on)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	const int drop[] = { CAP_SYS_ADMIN, CAP_NET_ADMIN, 38 /* CAP_PERFMON */, 39 /* CAP_BPF */ };

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		uint32_t bit = 1u << (drop[i] % 32);

		if (on)
			data[drop[i] / 32].effective |= bit & data[drop[i] / 32].permitted;
		else
			data[drop[i] / 32].effective &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

static int unpriv_bpf_disabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "r");
	int v = 1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	return v;
}

/* BPF_PSEUDO_MAP_IDX(_VALUE) and MAP_FD imm are indexes into the case's maps. */
static int patch_maps(struct bpf_insn *insns, size_t cnt, const int *fds, int nr)
{
	for (size_t i = 0; i + 1 < cnt; i++) {
		struct bpf_insn *in = &insns[i];

		if (in->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_IDX ||
		    in->src_reg == BPF_PSEUDO_MAP_VALUE || in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
			int value = in->src_reg == BPF_PSEUDO_MAP_VALUE ||
				    in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE;

			if (in->imm < 0 || in->imm >= nr)
				return -1;
			in->src_reg = value ? BPF_PSEUDO_MAP_VALUE : BPF_PSEUDO_MAP_FD;
			in->imm = fds[in->imm];
		}
		i++;
	}
	return 0;
}

/* The kernel's name of a program type's context struct, for "ctx" in funcs: lines. */
static const char *linux_ctx_name(const char *type)
{
	if (!strcmp(type, "xdp"))
		return "xdp_md";
	if (!strcmp(type, "socket_filter") || !strcmp(type, "sched_cls") || !strcmp(type, "sched_act") ||
	    !strcmp(type, "cgroup_skb"))
		return "__sk_buff";
	return NULL;
}

static const struct case_funcs *cur_funcs; /* the case's BTF func_info, loaded, or NULL */

static int prog_load(const struct vcase *c, int type, const struct bpf_insn *insns, size_t cnt,
		     char *log, unsigned level, uint32_t log_size)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	if (cur_funcs) {
		a.prog_btf_fd = (uint32_t)btf__fd(cur_funcs->btf);
		a.func_info = (uint64_t)(uintptr_t)cur_funcs->info;
		a.func_info_cnt = cur_funcs->nr;
		a.func_info_rec_size = sizeof(cur_funcs->info[0]);
	}
	a.prog_type = type;
	a.expected_attach_type = (uint32_t)case_linux_attach_type(c->type);
	if (c->state_freq)
		a.prog_flags = BPF_F_TEST_STATE_FREQ;
	if (c->reg_invariants)
		a.prog_flags |= BPF_F_TEST_REG_INVARIANTS;
	if (c->sleepable)
		a.prog_flags |= BPF_F_SLEEPABLE;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = cnt;
	a.license = (uint64_t)(uintptr_t)c->license;
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = log_size;
	a.log_level = level;
	log[0] = 0;
	if (c->unpriv && caps_set_privileged(0))
		return -EPERM;
	fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fd = -errno;
	if (c->unpriv)
		caps_set_privileged(1);
	return fd;
}

/* Returns 1 agree, 0 disagree, -1 skipped. */
static int check_case(const struct vcase *c, char *log, int verbose, char *why, size_t why_size)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[256];
	int fds[CASE_MAX_MAPS], nr_fds = 0, type, fd, ok = 0;
	struct case_funcs funcs = { 0 };

	why[0] = 0;
	type = case_linux_prog_type(c->type);
	if (type < 0) {
		snprintf(why, why_size, "unknown program type %s", c->type);
		return 0;
	}
	if (kbpf_asm(c->text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err))) {
		snprintf(why, why_size, "assembler: %s", err);
		return 0;
	}
	for (int i = 0; i < c->nr_maps; i++) {
		fds[i] = map_create(&c->maps[i]);
		if (fds[i] < 0) {
			snprintf(why, why_size, "map %d (%s): %s", i, c->maps[i].kind, strerror(errno));
			goto out;
		}
		nr_fds++;
	}
	if (patch_maps(insns, cnt, fds, nr_fds)) {
		snprintf(why, why_size, "a map LDDW names a map the case does not declare");
		goto out;
	}
	if (c->funcs[0]) {
		if (case_funcs_build(c->funcs, linux_ctx_name(c->type), insns, cnt, &funcs, why, why_size))
			goto out;
		if (btf__load_into_kernel(funcs.btf)) {
			snprintf(why, why_size, "BPF_BTF_LOAD: %s", strerror(errno));
			goto out;
		}
		cur_funcs = &funcs;
	}
	fd = prog_load(c, type, insns, cnt, log, 1, LOG_SIZE);
	if (fd == -ENOSPC) /* a long level-1 trace: the verdict and the error from level 4 */
		fd = prog_load(c, type, insns, cnt, log, 4, 1u << 16);
	if (fd >= 0) {
		if (!c->accept) {
			snprintf(why, why_size, "Linux accepts, case expects reject");
		} else if (c->has_retval) {
			union bpf_attr a;
			unsigned char data[64] = { 0 };

			memset(&a, 0, sizeof(a));
			a.test.prog_fd = fd;
			a.test.data_in = (uint64_t)(uintptr_t)data;
			a.test.data_size_in = sizeof(data);
			a.test.repeat = 1;
			if (sys_bpf(BPF_PROG_TEST_RUN, &a) == 0) {
				if ((uint32_t)a.test.retval != (uint32_t)c->retval)
					snprintf(why, why_size, "Linux's test_run returns %u, case expects %llu",
						 a.test.retval, (unsigned long long)c->retval);
				else
					ok = 1;
			} else {
				ok = 1; /* this type has no test_run: the verdict is what we check */
			}
		} else {
			ok = 1;
		}
		close(fd);
	} else if (fd == -EPERM && !c->unpriv && !log[0]) {
		snprintf(why, why_size, "bpf(BPF_PROG_LOAD): EPERM without a log");
	} else if (c->accept) {
		snprintf(why, why_size, "Linux rejects (%s): %s", strerror(-fd), log);
	} else if (!case_log_matches(c, log, 1)) {
		snprintf(why, why_size, "message not in Linux's log (%s)", strerror(-fd));
	} else {
		ok = 1;
	}
	if (!ok && verbose && log[0] && !c->accept)
		fprintf(stderr, "---- Linux's log for %s:\n%s----\n", c->name,
			strlen(log) > 4000 ? log + strlen(log) - 4000 : log);
out:
	cur_funcs = NULL;
	case_funcs_free(&funcs);
	for (int i = 0; i < nr_fds; i++)
		close(fds[i]);
	free(insns);
	return ok;
}

static int bpf_available(void)
{
	struct bpf_insn prog[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct vcase *cases = NULL;
	size_t nr = 0;
	char err[512], why[1024];
	const char *only = NULL;
	int verbose = 0, passed = 0, failed = 0, skipped = 0, unpriv_ok, rc;
	char *log;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (case_file_parse(argv[i], &cases, &nr, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
	}
	if (geteuid() != 0) {
		printf("SKIP: the Linux check needs root (bpf() with CAP_BPF/CAP_SYS_ADMIN)\n");
		return 77;
	}
	rc = bpf_available();
	if (rc) {
		printf("SKIP: bpf(BPF_PROG_LOAD) is refused here: %s\n", strerror(-rc));
		return 77;
	}
	unpriv_ok = unpriv_bpf_disabled() == 0;
	if (!unpriv_ok)
		printf("note: kernel.unprivileged_bpf_disabled is set: unprivileged cases skipped\n");
	log = malloc(LOG_SIZE);
	if (!log)
		return 1;
	for (size_t i = 0; i < nr; i++) {
		const struct vcase *c = &cases[i];

		if (only && strcmp(only, c->name))
			continue;
		if (c->linux_differs[0] || (c->unpriv && !unpriv_ok)) {
			skipped++;
			continue;
		}
		rc = check_case(c, log, verbose, why, sizeof(why));
		if (rc > 0) {
			passed++;
		} else if (rc < 0) {
			skipped++;
		} else {
			failed++;
			if (strlen(why) > 600)
				strcpy(why + 590, " [...]");
			printf("FAIL %s:%d %s: %s\n", c->file, c->line, c->name, why);
		}
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	free(log);
	case_free_all(cases, nr);
	return failed ? 1 : 0;
}
