/* SPDX-License-Identifier: Apache-2.0 */
/* The differential mode against the running kernel (kernel.h). Each map of the
 * harness has a kernel twin of the same type and sizes (the lock map with the same BTF);
 * a program's ld_imm64 map references (index into the harness's table) are rewritten to
 * the twins' fds. Each load runs in a child process with an alarm, so a kernel that
 * takes long (or a load that blocks) costs one program, not the run; an unprivileged
 * case's child gives up root first. */
#define _GNU_SOURCE /* setresuid */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kernel.h"

#define LOG_SIZE (1u << 20)
#define LOAD_SECONDS 10

struct snd_kernel {
	int map_fd[SND_NR_MAPS];
	int btf_fd;
	int unpriv_disabled; /* kernel.unprivileged_bpf_disabled */
	char *log;
};

static int unpriv_disabled(void)
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

int snd_kernel_open(struct snd_kernel **out, const struct snd_env *env, char *why, size_t why_size)
{
	struct snd_kernel *k = calloc(1, sizeof(*k));
	int ret = 0;

	*out = NULL;
	if (!k)
		return -ENOMEM;
	k->log = malloc(LOG_SIZE);
	k->btf_fd = -1;
	for (int i = 0; i < SND_NR_MAPS; i++)
		k->map_fd[i] = -1;
	if (!k->log) {
		snd_kernel_close(k);
		return -ENOMEM;
	}
	if (geteuid() != 0) {
		snprintf(why, why_size, "--kernel needs root (CAP_BPF and CAP_SYS_ADMIN to load programs)");
		snd_kernel_close(k);
		return -EPERM;
	}
	k->btf_fd = btf__load_into_kernel(env->prog_btf) ? -1 : btf__fd(env->prog_btf);
	if (k->btf_fd < 0) {
		snprintf(why, why_size, "the kernel refuses the harness's BTF (%s): no BPF with BTF here?", strerror(errno));
		snd_kernel_close(k);
		return -ENOTSUP;
	}
	for (int i = 0; i < SND_NR_MAPS && !ret; i++) {
		struct kbpf_map *m = env->maps[i];
		LIBBPF_OPTS(bpf_map_create_opts, mo);
		char name[16];

		if (i == SND_MAP_LOCK) {
			mo.btf_fd = (uint32_t)k->btf_fd;
			mo.btf_key_type_id = 1;   /* int */
			mo.btf_value_type_id = 3; /* struct lockval */
		}
		snprintf(name, sizeof(name), "snd%d", i);
		k->map_fd[i] = bpf_map_create((enum bpf_map_type)kbpf_map_type(m), name, kbpf_map_key_size(m),
					      kbpf_map_value_size(m), kbpf_map_max_entries(m), &mo);
		if (k->map_fd[i] < 0) {
			ret = -errno;
			snprintf(why, why_size, "cannot create kernel map %d (%s): %s", i, kbpf_map_name(m), strerror(errno));
		}
	}
	if (ret) {
		snd_kernel_close(k);
		return ret;
	}
	k->unpriv_disabled = unpriv_disabled();
	*out = k;
	return 0;
}

void snd_kernel_close(struct snd_kernel *k)
{
	if (!k)
		return;
	for (int i = 0; i < SND_NR_MAPS; i++)
		if (k->map_fd[i] >= 0)
			close(k->map_fd[i]);
	/* the BTF's fd belongs to env->prog_btf (btf__free closes it) */
	free(k->log);
	free(k);
}

/* The kernel's reason: the last line of the log that is not the statistics. */
static void log_reason(const char *log, char *msg, size_t msg_size)
{
	const char *end = log + strlen(log), *line;

	for (;;) {
		while (end > log && end[-1] == '\n')
			end--;
		line = end;
		while (line > log && line[-1] != '\n')
			line--;
		if (line > log && (!strncmp(line, "processed ", 10) || !strncmp(line, "verification time", 17) ||
				   !strncmp(line, "stack depth", 11))) {
			end = line;
			continue;
		}
		break;
	}
	snprintf(msg, msg_size, "%.*s", (int)(end - line), line);
}

static const enum bpf_prog_type kernel_type[SND_NR_TYPES] = {
	[SND_SOCKET_FILTER] = BPF_PROG_TYPE_SOCKET_FILTER, [SND_SCHED_CLS] = BPF_PROG_TYPE_SCHED_CLS,
	[SND_XDP] = BPF_PROG_TYPE_XDP, [SND_SYSCALL] = BPF_PROG_TYPE_SYSCALL,
};

/* In the child: load and report through fd (a status byte, then the message). */
static void child_load(struct snd_kernel *k, const struct snd_env *env, const struct snd_case *c,
		       struct bpf_insn *insns, int fd)
{
	static struct bpf_func_info fi[64];
	/* log level 0 with a buffer: libbpf loads again with level 1 only when it fails */
	LIBBPF_OPTS(bpf_prog_load_opts, po, .log_buf = k->log, .log_size = LOG_SIZE, .log_level = 0);
	char msg[512] = "";
	uint8_t status;

	alarm(LOAD_SECONDS);
	size_t nfi = snd_case_func_info(env, c, fi, 64);
	if (nfi) {
		po.prog_btf_fd = (uint32_t)k->btf_fd;
		po.func_info = fi;
		po.func_info_cnt = (uint32_t)nfi;
		po.func_info_rec_size = sizeof(fi[0]);
	}
	po.prog_flags = (c->state_freq ? BPF_F_TEST_STATE_FREQ : 0) | (c->type == SND_SYSCALL ? BPF_F_SLEEPABLE : 0);
	if (c->unprivileged && setresuid(65534, 65534, 65534)) {
		status = SND_K_ERROR;
		snprintf(msg, sizeof(msg), "cannot drop root: %s", strerror(errno));
	} else {
		k->log[0] = 0;
		int pfd = bpf_prog_load(kernel_type[c->type], "snd", "GPL", insns, c->cnt, &po);
		if (pfd >= 0) {
			status = SND_K_ACCEPTED;
		} else {
			status = SND_K_REFUSED;
			int err = errno;
			log_reason(k->log, msg, sizeof(msg));
			if (getenv("KBPF_SOUND_KLOG"))
				fprintf(stderr, "--- kernel log\n%s\n", k->log);
			if (!msg[0])
				snprintf(msg, sizeof(msg), "bpf(BPF_PROG_LOAD): %s", strerror(err));
		}
	}
	(void)!write(fd, &status, 1);
	(void)!write(fd, msg, strlen(msg));
}

enum snd_kverdict snd_kernel_load(struct snd_kernel *k, const struct snd_env *env, const struct snd_case *c,
				  char *msg, size_t msg_size)
{
	static struct bpf_insn insns[4096];
	int p[2];

	msg[0] = 0;
	if (c->cnt > sizeof(insns) / sizeof(insns[0])) {
		snprintf(msg, msg_size, "too long");
		return SND_K_SKIPPED;
	}
	if (c->unprivileged && k->unpriv_disabled) {
		snprintf(msg, msg_size, "unprivileged: kernel.unprivileged_bpf_disabled=%d", k->unpriv_disabled);
		return SND_K_SKIPPED;
	}
	memcpy(insns, c->insns, c->cnt * sizeof(insns[0]));
	for (size_t i = 0; i < c->cnt; i++) {
		struct bpf_insn *in = &insns[i];

		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL) {
			snprintf(msg, msg_size, "kfunc of the test host");
			return SND_K_SKIPPED;
		}
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_VALUE)) {
			if ((uint32_t)in->imm >= SND_NR_MAPS) {
				snprintf(msg, msg_size, "map index %d", in->imm);
				return SND_K_SKIPPED;
			}
			in->imm = k->map_fd[in->imm];
		}
	}
	if (pipe(p))
		return SND_K_ERROR;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		snprintf(msg, msg_size, "fork: %s", strerror(errno));
		return SND_K_ERROR;
	}
	if (!pid) {
		close(p[0]);
		signal(SIGALRM, SIG_DFL);
		struct snd_case kc = *c;
		kc.insns = insns;
		child_load(k, env, &kc, insns, p[1]);
		_exit(0);
	}
	close(p[1]);
	uint8_t status = SND_K_ERROR;
	char buf[512];
	ssize_t n = read(p[0], &status, 1), m = 0;
	if (n == 1) {
		ssize_t r;
		while (m < (ssize_t)sizeof(buf) - 1 && (r = read(p[0], buf + m, sizeof(buf) - 1 - (size_t)m)) > 0)
			m += r;
	}
	buf[m] = 0;
	close(p[0]);
	int ws = 0;
	waitpid(pid, &ws, 0);
	if (n != 1) {
		snprintf(msg, msg_size, "the loading child %s", WIFSIGNALED(ws) ? strsignal(WTERMSIG(ws)) : "failed");
		return SND_K_ERROR;
	}
	snprintf(msg, msg_size, "%s", buf);
	return (enum snd_kverdict)status;
}
