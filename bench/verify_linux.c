/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-verify's Linux side (verify_linux.h): libbpf loads the object into the live
 * kernel with log level 4 on every program; the kernel's own figures are read back. */
#include "verify_linux.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#define LOG_SIZE (1 << 16)

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* "verification time N usec" and "processed N insns" of a level-4 log */
static void read_stats(const char *log, long *usec, long *processed)
{
	const char *t = strstr(log, "verification time ");
	const char *p = strstr(log, "processed ");
	*usec = t ? atol(t + strlen("verification time ")) : -1;
	*processed = p ? atol(p + strlen("processed ")) : -1;
}

static int one_round(const char *path, struct vb_linux_prog *out, int max, int first, char *err, size_t err_size)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	char *logs[64] = { 0 };
	int n = 0, ret;

	if (!obj) {
		ret = -errno;
		snprintf(err, err_size, "libbpf cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (n == max || n == 64)
			break;
		logs[n] = calloc(1, LOG_SIZE);
		if (!logs[n]) {
			ret = -ENOMEM;
			goto out;
		}
		bpf_program__set_log_buf(prog, logs[n], LOG_SIZE);
		bpf_program__set_log_level(prog, 4);
		if (first) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", bpf_program__name(prog));
			out[n].ok = 1;
			out[n].usec = -1;
			out[n].processed = -1;
		}
		n++;
	}
	/* A refused program stops libbpf's load there: its log still has the figures, the
	 * programs after it have none (-1) and are not "ok". */
	ret = bpf_object__load(obj);
	int failed = -1; /* the refused program: the last one the kernel wrote a log for */
	for (int i = 0; ret && i < n; i++)
		if (logs[i][0])
			failed = i;
	for (int i = 0; i < n; i++) {
		long usec, processed;
		read_stats(logs[i], &usec, &processed);
		if (ret && (failed < 0 || i >= failed))
			out[i].ok = 0;
		if (usec >= 0 && (out[i].usec < 0 || usec < out[i].usec))
			out[i].usec = usec;
		if (processed >= 0)
			out[i].processed = processed;
	}
	if (ret)
		snprintf(err, err_size, "the kernel refused a program of %s: %s", path, strerror(-ret));
	ret = n;
out:
	for (int i = 0; i < 64; i++)
		free(logs[i]);
	bpf_object__close(obj);
	return ret;
}

int vb_linux_verify_object(const char *path, int rounds, struct vb_linux_prog *out, int max, char *err,
			   size_t err_size)
{
	int n = 0;
	libbpf_set_print(quiet);
	for (int r = 0; r < rounds; r++) {
		n = one_round(path, out, max, r == 0, err, err_size);
		if (n < 0)
			return n;
	}
	return n;
}
