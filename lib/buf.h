/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable byte buffer with a hard cap, in the manner of curl's dynbuf:
 * console logs, command output and JSON all go through it, and none of
 * them can grow without bound.  The content is always NUL-terminated.
 */
#ifndef BISECTD_BUF_H
#define BISECTD_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *ptr;  /* owned; NULL until the first write */
	size_t len; /* bytes used, not counting the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* hard cap on len */
};

#define BUF_DEFAULT_MAX (64u << 20)

void buf_init(struct buf *b, size_t max);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);

/* Append; ERR_NOMEM when allocation fails, ERR_INPUT past the cap. */
int buf_put(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap);

/* The content; "" for an empty buffer.  Borrowed. */
const char *buf_str(const struct buf *b);

/* Hand the content over to the caller, who frees it; resets b. */
char *buf_detach(struct buf *b);

/*
 * buf_detach() for text read from a device: NUL bytes (a serial line's
 * noise) become spaces, so that nothing after them is lost to C strings.
 */
char *buf_detach_text(struct buf *b);

/* Append s with the characters XML and HTML give meaning to escaped. */
int buf_put_escaped(struct buf *b, const char *s);

/*
 * Append s as a text report or a mail shows what came from a repository
 * or a console (NULL as ""): control characters escaped, \r as "\\r",
 * \n as "\\n" (kept when lines: text of several lines by design), tab
 * kept, the others and DEL as "\\x1b", UTF-8's C1 controls as
 * "\\u009b".  A backslash is kept as it is: text already shown is shown
 * the same.  buf_shown() returns it as a string (the caller frees it;
 * NULL when out of memory).
 */
int buf_put_shown(struct buf *b, const char *s, int lines);
char *buf_shown(const char *s, int lines);

/* Read a whole file into b (appending). */
int buf_read_file(struct buf *b, const char *path);
/* Append what the descriptor fd gives until its end (name: for errors). */
int buf_read_fd(struct buf *b, int fd, const char *name);

#endif
