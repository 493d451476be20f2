// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the logger (lib/log.c): one line per call, the program's
 * name in front, debug lines only when verbose, and the syslog priority
 * in front when stderr is the systemd journal's stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "log.h"

static char path[64];
static int saved = -1;

/* stderr into a fresh file, whose text *out gets after fn ran */
static void capture(void (*fn)(void), struct buf *out)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-log-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	saved = dup(STDERR_FILENO);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	fn();
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	buf_reset(out);
	assert_int_equal(buf_read_file(out, path), 0);
	unlink(path);
}

static void lines(void)
{
	log_init("prog", 0);
	log_info("one %d", 1);
	log_debug("not shown");
	errno = ENOENT;
	log_warn("cannot open '%s'", "x");
	log_warnx("two");
}

static void verbose(void)
{
	log_init("prog", 1);
	log_debug("shown");
}

/* the journal's stream is stderr itself: its device and inode */
static void journal(void)
{
	struct stat st;
	char js[64];

	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	log_init("prog", 0);
	log_warnx("to the journal");
	log_info("and this");
	unsetenv("JOURNAL_STREAM");
}

static void test_log__lines(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 1 << 16);
	capture(lines, &b);
	assert_string_equal(buf_str(&b),
			    "prog: one 1\n"
			    "prog: cannot open 'x': No such file or directory\n"
			    "prog: two\n");
	capture(verbose, &b);
	assert_string_equal(buf_str(&b), "prog: shown\n");
	capture(journal, &b);
	assert_string_equal(buf_str(&b), "<4>prog: to the journal\n"
					 "<6>prog: and this\n");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log__lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
