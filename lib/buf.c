// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bounded growable buffer used for everything of variable size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"

void buf_init(struct buf *b, size_t max)
{
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : BUF_DEFAULT_MAX;
}

void buf_release(struct buf *b)
{
	free(b->ptr);
	buf_init(b, b->max);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

static int grow(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > b->max - b->len)
		return err_set(ERR_INPUT, "buffer limit of %zu bytes exceeded",
			       b->max);
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->ptr, cap);
	if (!p)
		return err_set(ERR_NOMEM, "out of memory");
	b->ptr = p;
	b->cap = cap;
	return 0;
}

int buf_put(struct buf *b, const void *data, size_t len)
{
	int rc = grow(b, len);

	if (rc)
		return rc;
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_put(b, s, strlen(s));
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return err_set(ERR_GENERIC, "bad format string");
	rc = grow(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *buf_str(const struct buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *buf_detach(struct buf *b)
{
	char *p = b->ptr;

	if (!p)
		p = strdup("");
	buf_init(b, b->max);
	return p;
}

char *buf_detach_text(struct buf *b)
{
	size_t i;

	for (i = 0; b->ptr && i < b->len; i++)
		if (b->ptr[i] == '\0')
			b->ptr[i] = ' ';
	return buf_detach(b);
}

int buf_read_fd(struct buf *b, int fd, const char *name)
{
	char chunk[65536];
	ssize_t n;
	int rc = 0;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = err_sys(ERR_GENERIC, "cannot read '%s'", name);
			break;
		}
		rc = buf_put(b, chunk, (size_t)n);
		if (rc)
			break;
	}
	return rc;
}

int buf_read_file(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_GENERIC,
			       "cannot open '%s'", path);
	rc = buf_read_fd(b, fd, path);
	close(fd);
	return rc;
}

int buf_put_escaped(struct buf *b, const char *s)
{
	int rc = 0;

	for (; *s && !rc; s++)
		switch (*s) {
		case '<':
			rc = buf_puts(b, "&lt;");
			break;
		case '>':
			rc = buf_puts(b, "&gt;");
			break;
		case '&':
			rc = buf_puts(b, "&amp;");
			break;
		case '\'':
			rc = buf_puts(b, "&apos;");
			break;
		case '"':
			rc = buf_puts(b, "&quot;");
			break;
		default:
			rc = buf_put(b, s, 1);
		}
	return rc;
}

int buf_put_shown(struct buf *b, const char *s, int lines)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int rc = 0;

	for (; *p && !rc; p++) {
		if (*p == '\t' || (*p == '\n' && lines))
			rc = buf_put(b, p, 1);
		else if (*p == '\r')
			rc = buf_puts(b, "\\r");
		else if (*p == '\n')
			rc = buf_puts(b, "\\n");
		else if (*p < 0x20 || *p == 0x7f)
			rc = buf_printf(b, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			/* C1, U+0080 to U+009F in UTF-8: CSI is U+009B */
			rc = buf_printf(b, "\\u%04x", *++p);
		else
			rc = buf_put(b, p, 1);
	}
	return rc;
}

char *buf_shown(const char *s, int lines)
{
	struct buf b;

	buf_init(&b, BUF_DEFAULT_MAX);
	if (buf_put_shown(&b, s, lines)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}
