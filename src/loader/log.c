/* SPDX-License-Identifier: Apache-2.0 */
/* The object's log: lines naming what is wrong and where, kept in the object and
 * mirrored into the caller's log_buf (truncated to fit, always NUL-terminated). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader/loader_internal.h"

/* A hostile object could make every relocation fail; the log stays bounded. */
#define OBJ_LOG_MAX (1u << 20)

void obj_log_init(struct obj_log *log, char *user, size_t user_size)
{
	memset(log, 0, sizeof(*log));
	log->user = user_size ? user : NULL;
	log->user_size = user ? user_size : 0;
	if (log->user)
		log->user[0] = 0;
}

void obj_log_free(struct obj_log *log)
{
	free(log->buf);
	log->buf = NULL;
	log->len = log->cap = 0;
}

static void mirror(struct obj_log *log)
{
	if (!log->user)
		return;
	size_t n = log->len < log->user_size - 1 ? log->len : log->user_size - 1;
	memcpy(log->user, log->buf, n);
	log->user[n] = 0;
}

static void append(struct obj_log *log, const char *s, size_t n)
{
	if (log->len + n + 1 > OBJ_LOG_MAX)
		return;
	if (log->len + n + 1 > log->cap) {
		size_t cap = log->cap ? log->cap : 256;
		while (cap < log->len + n + 1)
			cap *= 2;
		char *buf = realloc(log->buf, cap);
		if (!buf)
			return;
		log->buf = buf;
		log->cap = cap;
	}
	memcpy(log->buf + log->len, s, n);
	log->len += n;
	log->buf[log->len] = 0;
	mirror(log);
}

void obj_log(struct obj_log *log, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	append(log, line, (size_t)n);
}

void obj_log_text(struct obj_log *log, const char *text)
{
	size_t n = strlen(text);

	if (!n)
		return;
	/* a verifier log as long as the whole log: its end, as Linux's rotating log keeps
	 * it (the reason for a refusal is its last line), with room for a summary line */
	const size_t keep = 2 + 512;
	if (log->len + n + keep > OBJ_LOG_MAX) {
		size_t room = log->len + keep < OBJ_LOG_MAX ? OBJ_LOG_MAX - log->len - keep : 0;
		text += n - room;
		n = room;
		if (!n)
			return;
	}
	append(log, text, n);
	if (text[n - 1] != '\n')
		append(log, "\n", 1);
}
