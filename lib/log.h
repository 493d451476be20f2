/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One logger for every program (log.c), in the manner of OpenBSD's
 * log.c: the program's name is set once, and every line says it.
 */
#ifndef BISECTD_LOG_H
#define BISECTD_LOG_H

#include <stdarg.h>

/*
 * name: the program's, in front of every line.  verbose: log_debug()
 * lines too.  Under systemd (stderr is the journal's stream), each line
 * carries its syslog priority for journald.  Until it is called, lines
 * say "bisectd".
 */
void log_init(const char *name, int verbose);
const char *log_name(void);

/* A problem, with ": " and strerror(errno) after it. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A problem. */
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same from a va_list (a library's logging callback); a final
 * newline in the text is dropped. */
void log_vwarnx(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
/* What the program is doing. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Details, with verbose only. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The program cannot go on: the line, then exit status 3 (infra).  For
 * a program's main only; the library never calls it. */
void fatalx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
