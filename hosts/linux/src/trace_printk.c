/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_trace_printk(fmt, fmt_size, a1, a2, a3): Linux 6.1's format rules (kernel/bpf/
 * helpers.c bpf_bprintf_prepare: at most three conversions among %d %i %u %x %X with l
 * or ll, %c, %s, %p, %pK, %px, %ps, %pS, %pB, %pks, %pus, %pi4, %pI4, %pi6, %pI6; a
 * NUL inside fmt_size; no control characters) with output to a process-wide sink,
 * stderr by default. Strings and IP addresses are read with process_vm_readv, so a bad
 * pointer prints as Linux prints it (an empty string, a zero address) instead of
 * faulting. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "linux_internal.h"

#define BUF_SIZE 1024 /* Linux's MAX_BPRINTF_BUF */

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static kbpf_linux_printk_fn sink_fn;
static void *sink_arg;

void kbpf_linux_trace_printk_set(kbpf_linux_printk_fn fn, void *arg)
{
	pthread_mutex_lock(&sink_lock);
	sink_fn = fn;
	sink_arg = arg;
	pthread_mutex_unlock(&sink_lock);
}

static bool read_mem(void *dst, uint64_t src, size_t size)
{
	struct iovec local = { dst, size }, remote = { (void *)(uintptr_t)src, size };
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

/* A string at an unchecked address, byte by byte up to max - 1 (short, so simplicity
 * wins over speed); "" if unreadable. */
static void read_str(char *dst, size_t max, uint64_t src)
{
	size_t i = 0;
	for (; i + 1 < max; i++)
		if (!read_mem(&dst[i], src + i, 1) || !dst[i])
			break;
	dst[i] = 0;
}

struct out {
	char buf[BUF_SIZE];
	size_t len; /* what would have been written: the return value, as vsnprintf's */
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < sizeof(o->buf) ? sizeof(o->buf) - o->len : 0;
	int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* One conversion starting at fmt[*i] (just past '%'); spec collects flags and width.
 * Returns 0 or -EINVAL. */
static int convert(struct out *o, const char *fmt, size_t *i, uint64_t arg)
{
	char spec[32] = "%";
	size_t s = 1, j = *i;
	/* flags, then width, copied into spec (bounded: a long run is kept short) */
	while (fmt[j] == '0' || fmt[j] == '+' || fmt[j] == '-' || fmt[j] == ' ') {
		if (s < 8)
			spec[s++] = fmt[j];
		j++;
	}
	if (fmt[j] >= '1' && fmt[j] <= '9') {
		while (fmt[j] >= '0' && fmt[j] <= '9') {
			if (s < 16)
				spec[s++] = fmt[j];
			j++;
		}
	}
	char c = fmt[j];
	if (c == 'p') {
		char n1 = fmt[j + 1], n2 = n1 ? fmt[j + 2] : 0;
		if (!n1 || isspace((unsigned char)n1) || ispunct((unsigned char)n1) || n1 == 'K' || n1 == 'x' ||
		    n1 == 's' || n1 == 'S' || n1 == 'B') {
			/* No kernel symbols or pointer hashing in a process: the raw value. */
			*i = j + (n1 && !isspace((unsigned char)n1) && !ispunct((unsigned char)n1) ? 2 : 1);
			memcpy(spec + s, "llx", 4);
			put(o, "0x");
			put(o, spec, (unsigned long long)arg);
			return 0;
		}
		if ((n1 == 'k' || n1 == 'u') && n2 == 's') {
			j += 2;
			c = 's';
		} else if ((n1 == 'i' || n1 == 'I') && (n2 == '4' || n2 == '6')) {
			unsigned char ip[16] = { 0 };
			size_t n = n2 == '4' ? 4 : 16;
			if (!read_mem(ip, arg, n))
				memset(ip, 0, n);
			if (n == 4) {
				put(o, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
			} else {
				/* %pI6 groups with ':', %pi6 prints 32 hex digits */
				for (size_t k = 0; k < 16; k += 2)
					put(o, "%s%02x%02x", n1 == 'I' && k ? ":" : "", ip[k], ip[k + 1]);
			}
			*i = j + 3;
			return 0;
		} else {
			return -EINVAL;
		}
	}
	if (c == 's') {
		char n1 = fmt[j + 1];
		if (n1 && !isspace((unsigned char)n1) && !ispunct((unsigned char)n1))
			return -EINVAL;
		char str[BUF_SIZE];
		read_str(str, sizeof(str), arg);
		spec[s++] = 's';
		put(o, spec, str);
		*i = j + 1;
		return 0;
	}
	if (c == 'c') {
		spec[s++] = 'c';
		put(o, spec, (int)(unsigned char)arg);
		*i = j + 1;
		return 0;
	}
	int longs = 0;
	while (fmt[j] == 'l' && longs < 2)
		longs++, j++;
	c = fmt[j];
	if (c != 'i' && c != 'd' && c != 'u' && c != 'x' && c != 'X')
		return -EINVAL;
	spec[s++] = 'l';
	spec[s++] = 'l';
	spec[s++] = c;
	bool is_signed = c == 'i' || c == 'd';
	/* an int conversion takes the low 32 bits, as Linux's binary argument buffer does;
	 * passing long long for both signednesses is what %ll[diux] reads */
	long long v = longs ? (long long)arg : is_signed ? (long long)(int32_t)arg : (long long)(uint32_t)arg;
	put(o, spec, v);
	*i = j + 1;
	return 0;
}

KBPF_LINUX_HELPER(trace_printk)
{
	const char *fmt = (const char *)(uintptr_t)r1;
	uint32_t fmt_size = (uint32_t)r2;
	uint64_t args[3] = { r3, r4, r5 };
	/* The verifier proved fmt_size readable bytes; the format must end inside them. */
	const char *end = memchr(fmt, 0, fmt_size);
	if (!end)
		return (uint64_t)(int64_t)-EINVAL;
	size_t n = (size_t)(end - fmt), nr_args = 0;
	static _Thread_local struct out o; /* 1 KiB: kept off a possibly small stack */
	o.len = 0;
	o.buf[0] = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)fmt[i];
		if (isascii(c) && !isprint(c) && !isspace(c))
			return (uint64_t)(int64_t)-EINVAL;
		if (c != '%') {
			put(&o, "%c", c);
			i++;
			continue;
		}
		if (fmt[i + 1] == '%') {
			put(&o, "%%");
			i += 2;
			continue;
		}
		if (nr_args >= 3 || !isascii((unsigned char)fmt[i + 1]))
			return (uint64_t)(int64_t)-EINVAL;
		i++;
		if (convert(&o, fmt, &i, args[nr_args++]))
			return (uint64_t)(int64_t)-EINVAL;
	}
	pthread_mutex_lock(&sink_lock);
	if (sink_fn)
		sink_fn(o.buf, sink_arg);
	else
		fputs(o.buf, stderr);
	pthread_mutex_unlock(&sink_lock);
	return o.len;
}
