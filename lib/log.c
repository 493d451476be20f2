// SPDX-License-Identifier: GPL-2.0-only
/*
 * The logger.  A line is "NAME: message", written to stderr with one
 * write(2), so that lines from threads and from child processes never
 * mix.  When stderr is the systemd journal's stream ($JOURNAL_STREAM
 * names its device and inode), each line starts with its syslog
 * priority ("<4>"), which journald records as the line's level.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

enum { PRI_ERR = 3, PRI_WARNING = 4, PRI_INFO = 6, PRI_DEBUG = 7 };

static const char *prog = "bisectd";
static int debug, journal;

/* stderr is the stream $JOURNAL_STREAM ("DEVICE:INODE") names */
static int to_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	       fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(const char *name, int verbose)
{
	prog = name;
	debug = verbose;
	journal = to_journal();
}

const char *log_name(void)
{
	return prog;
}

static void vlog(int pri, const char *err, const char *fmt, va_list ap)
{
	char line[4096];
	int n = 0, k;

	if (journal)
		n = snprintf(line, sizeof(line), "<%d>", pri);
	k = snprintf(line + n, sizeof(line) - (size_t)n, "%s: ", prog);
	n += k > 0 ? k : 0;
	if ((size_t)n < sizeof(line)) {
		k = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
		n += k > 0 ? k : 0;
	}
	if (err && (size_t)n < sizeof(line)) {
		k = snprintf(line + n, sizeof(line) - (size_t)n, ": %s", err);
		n += k > 0 ? k : 0;
	}
	if ((size_t)n >= sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	if (n > 0 && line[n - 1] == '\n')
		n--; /* (a callback's text may end in one) */
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere left to say it */
	}
}

void log_warn(const char *fmt, ...)
{
	char buf[128];
	const char *err = strerror_r(errno, buf, sizeof(buf));
	va_list ap;

	va_start(ap, fmt);
	vlog(PRI_WARNING, err, fmt, ap);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(PRI_WARNING, NULL, fmt, ap);
	va_end(ap);
}

void log_vwarnx(const char *fmt, va_list ap)
{
	vlog(PRI_WARNING, NULL, fmt, ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(PRI_INFO, NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	vlog(PRI_DEBUG, NULL, fmt, ap);
	va_end(ap);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(PRI_ERR, NULL, fmt, ap);
	va_end(ap);
	exit(3);
}
