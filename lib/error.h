/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error codes and the thread-local "last error" message.
 *
 * Functions that can fail return 0 or one of the negative codes below and
 * leave a message for err_last(); the message is never NULL.  The code says
 * what kind of failure it was, which is what decides a program's exit
 * status: bad input (2) or an infrastructure failure (3).
 */
#ifndef BISECTD_ERROR_H
#define BISECTD_ERROR_H

enum {
	ERR_GENERIC = -1, /* anything not classified below */
	ERR_INPUT = -2,	  /* the user's input is wrong */
	ERR_INFRA = -3,	  /* the machine failed us: fork, disk, QEMU */
	ERR_NOMEM = -4,
	ERR_NOTFOUND = -5,
	ERR_DENIED = -6, /* the caller may not: another's worker or lease */
};

/* Set the last error message and return code, for `return err_set(...)`. */
int err_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like err_set, appending ": strerror(errno)". */
int err_sys(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the current message with more context: "ctx: old message". */
int err_wrap(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last message set on this thread; borrowed, never NULL. */
const char *err_last(void);

void err_clear(void);

#endif
