// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the end-of-bisection reports (bisectd/report.c) and the
 * texts they are made of: what came from the repository or a console
 * (a commit's subject, author and files, a step's title, excerpt and
 * logs, the bisect log) is shown with its control characters escaped
 * in the text report and the mail, and kept as it is in the JSON one.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "gitutil.h"
#include "recipe.h"
#include "report.h"
#include "session.h"
#include "step.h"
#include "util.h"

#define SUBJECT "crash\r\x1b[31mred\x1b[0m here"
#define SUBJECT_SHOWN "crash\\r\\x1b[31mred\\x1b[0m here"

static char top[64], good[41], bad[41];

/*
 * A repository whose second commit has a CR and a terminal's colour in
 * its subject and its author's name, and an escape in a file's name.
 */
static int setup(void **state)
{
	char line[128], *cmd;
	FILE *f;

	(void)state;
	if (gu_init())
		return -1;
	snprintf(top, sizeof(top), "/tmp/test-report-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	cmd = util_fmt(
		"set -e; cd %s; git init -q r; cd r;"
		" git -c user.name=t -c user.email=t@example.org commit -q"
		" --allow-empty -m base; echo GOOD=$(git rev-parse HEAD);"
		" touch \"$(printf 'x\\033[2J.c')\"; git add -A;"
		" git -c user.name=\"$(printf 'Eve\\rMallory')\""
		" -c user.email=eve@example.org commit -q --cleanup=verbatim"
		" -m \"$(printf 'crash\\r\\033[31mred\\033[0m here')\";"
		" echo BAD=$(git rev-parse HEAD)",
		top);
	f = cmd ? popen(cmd, "r") : NULL;
	free(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "GOOD=%40s", good);
		sscanf(line, "BAD=%40s", bad);
	}
	return pclose(f) == 0 && *good && *bad ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	util_remove_tree(top);
	return 0;
}

/* No byte of text is a control character but a newline or a tab. */
static void no_raw_controls(const char *text)
{
	const char *p;

	for (p = text; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') ||
		    *p == 0x7f)
			fail_msg("a raw control character 0x%02x at '%.40s'",
				 (unsigned char)*p, p);
}

static void test_report__control_characters_shown(void **state)
{
	struct session s;
	struct gu_repo *repo;
	struct gu_oid goods[1];
	struct step_result *st;
	struct report_info ri = { .mode = "run",
				  .repo_path = "/srv/r",
				  .command = "./check.sh" };
	struct buf text, mail;
	char *json = NULL, *path;

	(void)state;
	path = util_fmt("%s/r", top);
	assert_int_equal(gu_open(&repo, path), 0);
	free(path);
	session_init(&s);
	s.repo = repo;
	s.state = ENGINE_FOUND;
	s.have_bad = 1;
	assert_int_equal(gu_resolve(repo, bad, &s.bad), 0);
	assert_int_equal(gu_resolve(repo, good, &goods[0]), 0);
	s.first_bad = s.bad;
	s.goods = goods;
	s.ngoods = 1;
	s.initial_candidates = 1;
	s.steps = st = calloc(1, sizeof(*st));
	assert_non_null(st);
	s.nsteps = s.cap_steps = 1;
	snprintf(st->hex, sizeof(st->hex), "%s", bad);
	st->verdict = VERDICT_BAD;
	st->role = "bisect";
	st->exit_code = 1;
	st->title = strdup("oops\r\x1b[31m at boot");
	st->excerpt = strdup("[ 1.0] BUG\r\n[ 1.1] \x1b[1mbold\x1b[0m\n");
	st->log = strdup("/srv/logs/\x1b]0;title\x07.log");
	buf_printf(&s.log, "git bisect start\n# bad: [%s] %s\n", bad,
		   "crash\r\x1b[31mred");

	buf_init(&text, 0);
	assert_int_equal(report_text(&text, &s, &ri), 0);
	no_raw_controls(buf_str(&text));
	assert_non_null(
		strstr(buf_str(&text), "  subject: " SUBJECT_SHOWN "\n"));
	assert_non_null(strstr(buf_str(&text), "  author:  Eve\\rMallory"));
	assert_non_null(strstr(buf_str(&text), " x\\x1b[2J.c\n"));
	assert_non_null(strstr(buf_str(&text),
			       "  failure: oops\\r\\x1b[31m at boot\n"));
	/* the excerpt keeps its lines, as the bisect log does */
	assert_non_null(strstr(buf_str(&text),
			       "[ 1.0] BUG\\r\n[ 1.1] \\x1b[1mbold\\x1b[0m\n"));
	assert_non_null(strstr(buf_str(&text), "crash\\r\\x1b[31mred\n"));
	assert_non_null(strstr(buf_str(&text), "\\x1b]0;title\\x07.log"));

	buf_init(&mail, 0);
	assert_int_equal(report_mail(&mail, &s, &ri, "http://farm.example"), 0);
	no_raw_controls(buf_str(&mail));
	assert_non_null(strstr(buf_str(&mail), "Subject: [REGRESSION] "
					       "oops\\r\\x1b[31m at boot"));
	assert_non_null(strstr(buf_str(&mail), "\n    " SUBJECT_SHOWN "\n"));
	assert_non_null(strstr(buf_str(&mail), "Author: Eve\\rMallory"));
	buf_release(&mail);
	/* without a title, the mail's subject is the commit's */
	free(st->title);
	st->title = strdup("");
	buf_init(&mail, 0);
	assert_int_equal(report_mail(&mail, &s, &ri, NULL), 0);
	no_raw_controls(buf_str(&mail));
	assert_non_null(
		strstr(buf_str(&mail), "Subject: [REGRESSION] " SUBJECT_SHOWN));

	/* JSON says it as it is (its own escapes) */
	assert_int_equal(report_json(&json, &s, &ri), 0);
	assert_non_null(strstr(json, "crash\\r\\u001B[31mred"));

	free(json);
	buf_release(&mail);
	buf_release(&text);
	s.goods = NULL;
	session_release(&s);
	gu_close(repo);
}

/*
 * What a kernel bisection's answer leads to: a regression's report
 * offers the fix bisection, a fix's the backport, each one command with
 * the repository's path one word of sh; a fix's mail is regzbot's
 * "fix:"; generic mode offers none.
 */
static void test_report__next(void **state)
{
	struct session s;
	struct gu_repo *repo;
	char tiny[] = "tiny";
	struct recipe recipe = { .name = tiny };
	struct report_info ri = { .mode = "bisect",
				  .repo_path = "/srv/a b'c",
				  .recipe = &recipe,
				  .test_script = "/t/crash.sh" };
	struct buf text, mail;
	char *json = NULL, *path, want[512];

	(void)state;
	path = util_fmt("%s/r", top);
	assert_int_equal(gu_open(&repo, path), 0);
	free(path);
	session_init(&s);
	s.repo = repo;
	s.state = ENGINE_FOUND;
	assert_int_equal(gu_resolve(repo, bad, &s.first_bad), 0);
	buf_init(&text, 0);
	assert_int_equal(report_text(&text, &s, &ri), 0);
	snprintf(want, sizeof(want),
		 "next: find the fix in a newer kernel (NEWER: one that "
		 "passes):\n  bisectctl bisect --fix --repo '/srv/a b'\\''c' "
		 "--bad %s --good NEWER --recipe tiny --test /t/crash.sh\n",
		 bad);
	assert_non_null(strstr(buf_str(&text), want));
	buf_release(&text);
	/* a fix */
	s.outcome = strdup("{\"fix\":true}");
	buf_init(&text, 0);
	assert_int_equal(report_text(&text, &s, &ri), 0);
	snprintf(want, sizeof(want),
		 "  bisectctl backport --repo '/srv/a b'\\''c' --fix %s "
		 "--release ABI --flavour FLAVOUR --test /t/crash.sh\n",
		 bad);
	assert_non_null(strstr(buf_str(&text), want));
	assert_int_equal(report_json(&json, &s, &ri), 0);
	assert_non_null(strstr(json, "\"what\": \"build a Debian release "
				     "with the fix\""));
	free(json);
	buf_init(&mail, 0);
	assert_int_equal(report_mail(&mail, &s, &ri, NULL), 0);
	assert_non_null(strstr(buf_str(&mail), "Next, to build a Debian "
					       "release with the fix:"));
	buf_release(&mail);
	/* generic mode: no next step */
	ri.recipe = NULL;
	ri.mode = "run";
	assert_int_equal(report_json(&json, &s, &ri), 0);
	assert_null(strstr(json, "\"next\""));
	free(json);
	buf_release(&text);
	session_release(&s);
	gu_close(repo);
}

/* The one helper: what it escapes, and what it keeps. */
static void test_report__shown(void **state)
{
	char *s;
	struct buf b;

	(void)state;
	s = buf_shown("a\rb\x1b[31mc\td\ne\x7f\x01", 0);
	assert_string_equal(s, "a\\rb\\x1b[31mc\td\\ne\\x7f\\x01");
	free(s);
	s = buf_shown("one\r\ntwo\n", 1);
	assert_string_equal(s, "one\\r\ntwo\n");
	free(s);
	/* UTF-8 is kept but for C1 controls (CSI, U+009B) */
	s = buf_shown("Zo\xc3\xab \xc2\x9b"
		      "2J",
		      0);
	assert_string_equal(s, "Zo\xc3\xab \\u009b2J");
	free(s);
	/* shown twice is shown once */
	s = buf_shown("a\\rb", 0);
	assert_string_equal(s, "a\\rb");
	free(s);
	buf_init(&b, 0);
	assert_int_equal(buf_put_shown(&b, NULL, 0), 0);
	assert_string_equal(buf_str(&b), "");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report__shown),
		cmocka_unit_test(test_report__next),
		cmocka_unit_test(test_report__control_characters_shown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
