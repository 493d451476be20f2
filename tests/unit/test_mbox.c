// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of patch series from mail (lib/mbox.c): an mbox split into
 * its patches in [PATCH n/m] order, the cover letter left out,
 * quoted-printable and base64 bodies decoded, and the tree made by
 * applying them the same as git am's (tests/fixtures/mkmbox.sh); and
 * mail written with its control characters shown escaped.
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
#include "mbox.h"
#include "util.h"

static char top[64], base[41], tree[41];

static int setup(void **state)
{
	char line[128], *cmd;
	FILE *f;

	(void)state;
	if (gu_init())
		return -1;
	snprintf(top, sizeof(top), "/tmp/test-mbox-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	cmd = util_fmt("tests/fixtures/mkmbox.sh %s 2> /dev/null", top);
	f = cmd ? popen(cmd, "r") : NULL;
	free(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "BASE=%40s", base);
		sscanf(line, "TREE=%40s", tree);
	}
	return pclose(f) == 0 && *base && *tree ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	util_remove_tree(top);
	return 0;
}

static char *slurp(const char *name, size_t *len)
{
	char *path = util_fmt("%s/%s", top, name);
	struct buf b;
	char *s;

	buf_init(&b, 0);
	assert_int_equal(buf_read_file(&b, path), 0);
	free(path);
	*len = b.len;
	s = buf_detach(&b);
	return s;
}

static void test_mbox__a_series_in_order_decoded(void **state)
{
	struct mbox_patch *p;
	size_t n, len;
	char *text = slurp("encoded.mbox", &len);

	(void)state;
	assert_int_equal(mbox_patches(&p, &n, text, len), 0);
	/* 3, 0, 1, 2 in the mbox: the cover letter out, the rest in order */
	assert_int_equal(n, 3);
	assert_string_equal(p[0].subject, "[PATCH 1/3] a: two is a number");
	assert_string_equal(p[1].subject, "[PATCH 2/3] c: a new file");
	assert_string_equal(p[2].subject, "[PATCH 3/3] b: delta");
	/* quoted-printable: "TWO =3D 2" is "TWO = 2" */
	assert_non_null(strstr(p[0].text, "+TWO = 2\n"));
	/* base64, and UTF-8 in it */
	assert_non_null(
		strstr(p[1].text, "+gamma, caf\xc3\xa9 cr\xc3\xa8me\n"));
	mbox_patches_release(p, n);
	free(text);
}

static void test_mbox__not_an_mbox_is_one_diff(void **state)
{
	static const char diff[] = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n"
				   "-one\n+ONE\n";
	struct mbox_patch *p;
	size_t n;

	(void)state;
	assert_int_equal(mbox_patches(&p, &n, diff, sizeof(diff) - 1), 0);
	assert_int_equal(n, 0);
	assert_null(p);
}

static void test_mbox__a_cover_letter_alone_is_refused(void **state)
{
	static const char cover[] =
		"From 0000000000000000000000000000000000000000 Mon Sep 17 "
		"00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH 0/2] "
		"a series\n\nIt fixes things.\n";
	struct mbox_patch *p;
	size_t n;

	(void)state;
	assert_int_equal(mbox_patches(&p, &n, cover, sizeof(cover) - 1),
			 ERR_INPUT);
	assert_string_equal(err_last(), "an mbox without a patch in it");
}

/* The tree that applying names' files on the base makes. */
static void applied_tree(const char *const *names, size_t n, char out[41])
{
	const char *texts[4];
	size_t lens[4], i;
	char *dir = util_fmt("%s/work-%s", top, names[0]);
	char *repo_path = util_fmt("%s/repo", top);
	struct gu_repo *repo, *work;
	struct gu_oid b, commit;
	char **applied;
	size_t napplied;

	assert_true(n <= 4);
	for (i = 0; i < n; i++)
		texts[i] = slurp(names[i], &lens[i]);
	assert_int_equal(gu_open(&repo, repo_path), 0);
	gu_oid_parse(&b, base);
	if (mbox_apply_patches(&commit, repo, dir, &b, names, texts, lens, n,
			       &applied, &napplied))
		fail_msg("%s", err_last());
	/* each patch of the series by its subject, in the order applied */
	assert_int_equal(napplied, 3);
	assert_string_equal(applied[0], "[PATCH 1/3] a: two is a number");
	assert_string_equal(applied[1], "[PATCH 2/3] c: a new file");
	assert_string_equal(applied[2], "[PATCH 3/3] b: delta");
	mbox_names_release(applied, napplied);
	assert_int_equal(gu_open(&work, dir), 0);
	assert_int_equal(gu_tree_hex(work, &commit, out), 0);
	gu_close(work);
	gu_close(repo);
	for (i = 0; i < n; i++)
		free((char *)texts[i]);
	free(dir);
	free(repo_path);
}

static void test_mbox__the_same_tree_as_git_am(void **state)
{
	static const char *const encoded[] = { "encoded.mbox" };
	static const char *const plain[] = { "plain.mbox" };
	char t[41];

	(void)state;
	applied_tree(encoded, 1, t);
	assert_string_equal(t, tree);
	applied_tree(plain, 1, t);
	assert_string_equal(t, tree);
}

/* sh -c cmd (printf-style): its exit status */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(rc >= 0);
	rc = system(cmd);
	free(cmd);
	return rc;
}

/*
 * Plain diffs (quilt's, diff -u's) that make or delete a file, with
 * "/dev/null" on one side, as a commit of r itself on a parent of the
 * caller's choosing (gu_commit_patched).
 */
static void test_mbox__plain_diffs_make_and_delete_files(void **state)
{
	static const char made[] = "From: A <a@example.org>\n"
				   "Subject: a new file\n\n"
				   "--- /dev/null\n+++ b/d/new.txt\n"
				   "@@ -0,0 +1 @@\n+made\n";
	static const char gone[] = "--- a.txt\t2026-01-01 00:00:00\n"
				   "+++ /dev/null\n@@ -1,3 +0,0 @@\n"
				   "-one\n-two\n-three\n";
	static const char changed[] = "--- a/b.txt\n+++ b/b.txt\n"
				      "@@ -1,2 +1,2 @@\n alpha\n-beta\n"
				      "+BETA\n";
	static const char *const outside[] = {
		"--- /dev/null\n+++ b/../escape\n@@ -0,0 +1 @@\n+x\n",
		"--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+x\n",
		"--- /dev/null\n+++ b/d/./x\n@@ -0,0 +1 @@\n+x\n",
	};
	const char *names[] = { "made", "gone", "changed" };
	const char *texts[] = { made, gone, changed };
	size_t lens[] = { sizeof(made) - 1, sizeof(gone) - 1,
			  sizeof(changed) - 1 };
	char *repo_path = util_fmt("%s/repo", top), hex[41], first[41];
	struct gu_repo *repo;
	struct gu_oid b, c1, c2;
	size_t i;

	(void)state;
	assert_int_equal(gu_open(&repo, repo_path), 0);
	gu_oid_parse(&b, base);
	if (gu_commit_patched(&c1, repo, &b, &b, names, texts, lens, 3,
			      "all three\n"))
		fail_msg("%s", err_last());
	gu_oid_hex(first, &c1);
	assert_int_equal(sh("test \"$(git -C %s show %s:d/new.txt)\" = made",
			    repo_path, first),
			 0);
	assert_int_not_equal(sh("git -C %s cat-file -e %s:a.txt 2> /dev/null",
				repo_path, first),
			     0);
	assert_int_equal(
		sh("git -C %s show %s:b.txt | grep -qx BETA", repo_path, first),
		0);
	/* the next commit of such a history: its own series from the base,
	 * on the first */
	if (gu_commit_patched(&c2, repo, &b, &c1, names, texts, lens, 1,
			      "only the first\n"))
		fail_msg("%s", err_last());
	gu_oid_hex(hex, &c2);
	assert_int_equal(sh("test \"$(git -C %s log -1 --format=%%P:%%s %s)\" "
			    "= %s:'only the first'",
			    repo_path, hex, first),
			 0);
	assert_int_equal(sh("git -C %s cat-file -e %s:a.txt", repo_path, hex),
			 0);
	/* a diff that does not apply names the patch */
	assert_int_equal(gu_commit_patched(&c2, repo, &b, &b, names + 1,
					   texts + 1, lens + 1, 1, "x\n"),
			 0);
	gu_oid_hex(hex, &c2);
	texts[0] = gone; /* a.txt is no longer there to delete */
	names[0] = "gone again";
	assert_int_equal(gu_commit_patched(&c2, repo, &c2, &c2, names, texts,
					   lens + 1, 1, "x\n"),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "patch 'gone again' does not "
					   "apply"));
	/* a path that no tree holds is the patch's fault, not the
	 * machine's: ERR_INPUT, never retried */
	for (i = 0; i < sizeof(outside) / sizeof(*outside); i++) {
		texts[0] = outside[i];
		lens[0] = strlen(outside[i]);
		names[0] = "outside";
		assert_int_equal(gu_commit_patched(&c2, repo, &b, &b, names,
						   texts, lens, 1, "x\n"),
				 ERR_INPUT);
		assert_non_null(strstr(err_last(), "patch 'outside'"));
	}
	gu_close(repo);
	free(repo_path);
}

/* A report's From: one address, a name quoted where it needs to be. */
static void test_mbox__one_from_address(void **state)
{
	static const char *const good[] = {
		"bisectd <bisectd@localhost>",
		"ci@farm.example.org",
		"\"Lab, Kernel\" <lab@example.org>",
		"Zo\xc3\xab <zoe@example.org>",
		/* GMime quotes the name when it writes the header */
		"Lab, Kernel <lab@example.org>",
		"\"lab@example.org\" <lab@example.org>",
	};
	static const char *const bad[] = {
		"",
		"nobody",
		"a@example.org, b@example.org",
		"a <@example.org>",
		"a <a@>",
		"a <a@b@c>",
		"list: a@example.org, b@example.org;",
		"x <x@example.org>\nBcc: y@example.org",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_int_equal(mail_address_check(good[i]), 0);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(mail_address_check(bad[i]), ERR_INPUT);
		assert_non_null(strstr(err_last(), "is not one mail address"));
		assert_null(strchr(err_last(), '\n'));
	}
	assert_string_equal(err_last(), "'x <x@example.org>...' is not one "
					"mail address (Name <user@host>)");
}

/*
 * A mail shows a control character escaped wherever it came from (a
 * commit's subject, a console's escape sequences, a name in
 * MAINTAINERS): none is written as it is, but the body's newlines and
 * tabs.
 */
static void test_mbox__mail_shows_control_characters(void **state)
{
	const struct mail_out m = {
		.from = "bisectd <bisectd@localhost>",
		.to = "Eve\rMallory <eve@example.org>",
		.cc = "",
		.subject = "[REGRESSION] crash\r\x1b[31mred\x1b[0m",
		.body = "    crash\r\x1b[31mred\x1b[0m\n\tline\x07 "
			"two\xc2\x9b"
			"2J\n",
		.date = 0,
	};
	struct buf out;
	const char *p;

	(void)state;
	buf_init(&out, 0);
	assert_int_equal(mail_write(&out, &m), 0);
	for (p = buf_str(&out); *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			fail_msg("a raw control character 0x%02x at '%.20s'",
				 (unsigned char)*p, p);
	assert_non_null(strstr(buf_str(&out),
			       "[REGRESSION] crash\\r\\x1b[31mred"
			       "\\x1b[0m"));
	assert_non_null(strstr(buf_str(&out),
			       "\n    crash\\r\\x1b[31mred\\x1b[0m\n"
			       "\tline\\x07 two\\u009b2J\n"));
	/* the name quoted as RFC 5322 wants it: the recipient stays */
	assert_non_null(strstr(buf_str(&out),
			       "To: \"Eve\\\\rMallory\" <eve@example.org>\n"));
	assert_null(strstr(buf_str(&out), "\xc2\x9b"));
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox__a_series_in_order_decoded),
		cmocka_unit_test(test_mbox__not_an_mbox_is_one_diff),
		cmocka_unit_test(test_mbox__a_cover_letter_alone_is_refused),
		cmocka_unit_test(test_mbox__the_same_tree_as_git_am),
		cmocka_unit_test(test_mbox__one_from_address),
		cmocka_unit_test(test_mbox__mail_shows_control_characters),
		cmocka_unit_test(test_mbox__plain_diffs_make_and_delete_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
