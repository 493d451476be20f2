// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread-local buffer holding the last error message, in the manner of
 * libgit2's git_error_last(): callees describe what failed, callers decide
 * whether and how to print it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static _Thread_local char last[1024] = "no error";

/*
 * Format into a buffer of its own first: a message is often built from the
 * previous one (err_set(code, "...: %s", err_last())), and vsnprintf must
 * not read the buffer it is writing.
 */
static void vset(const char *fmt, va_list ap)
{
	char msg[sizeof(last)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	memcpy(last, msg, sizeof(last));
}

int err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	return code;
}

int err_sys(int code, const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	len = strlen(last);
	snprintf(last + len, sizeof(last) - len, ": %s", strerror(saved));
	return code;
}

int err_wrap(int code, const char *fmt, ...)
{
	char old[sizeof(last)];
	size_t len;
	va_list ap;

	memcpy(old, last, sizeof(old));
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	len = strlen(last);
	if (len + 3 < sizeof(last)) {
		size_t n = strnlen(old, sizeof(last) - len - 3);

		memcpy(last + len, ": ", 2);
		memcpy(last + len + 2, old, n);
		last[len + 2 + n] = '\0';
	}
	return code;
}

const char *err_last(void)
{
	return last;
}

void err_clear(void)
{
	strcpy(last, "no error");
}
