// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of files below a directory that unprivileged code wrote
 * (lib/beneath.c), and of gu_checkout() into a checkout where a command
 * left links: nothing outside the tree is read or written.
 */
#define _GNU_SOURCE
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

#include "beneath.h"
#include "buf.h"
#include "error.h"
#include "gitutil.h"
#include "util.h"

static char top[64];

static char *at(const char *rel)
{
	static char paths[8][256];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", top, rel);
	return p;
}

static void put(const char *path, const char *text)
{
	assert_int_equal(util_write_atomic(path, text, strlen(text)), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test-beneath-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	return util_mkdir_p(at("work/dir")) || util_mkdir_p(at("victim"));
}

static int teardown(void **state)
{
	(void)state;
	return util_remove_tree(top);
}

static void test_beneath__reads_and_writes_without_links(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 1 << 20);
	put(at("victim/secret"), "the worker's own\n");
	put(at("work/dir/file"), "built\n");
	assert_int_equal(symlink(at("victim"), at("work/link")), 0);
	assert_int_equal(symlink(at("victim/secret"), at("work/dir/lfile")), 0);
	assert_int_equal(link(at("victim/secret"), at("work/dir/hard")), 0);

	assert_int_equal(beneath_read(&b, at("work"), at("work/dir/file")), 0);
	assert_string_equal(buf_str(&b), "built\n");
	buf_reset(&b);
	/* a link on the way, a link at the end, a hard link: none read */
	assert_int_equal(beneath_read(&b, at("work"), at("work/link/secret")),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "link"));
	assert_int_equal(beneath_read(&b, at("work"), at("work/dir/lfile")),
			 ERR_INPUT);
	assert_int_equal(beneath_read(&b, at("work"), at("work/dir/hard")),
			 ERR_INPUT);
	assert_int_equal(b.len, 0);
	assert_int_equal(beneath_read(&b, at("work"), at("victim/secret")),
			 ERR_INPUT);

	/* writing: through a link on the way, refused; over a link or a
	 * hard link at the end, a new file in its place */
	assert_int_not_equal(
		beneath_write(at("work"), at("work/link/secret"), "x", 1), 0);
	assert_int_equal(
		beneath_write(at("work"), at("work/dir/lfile"), "new\n", 4), 0);
	assert_int_equal(
		beneath_write(at("work"), at("work/dir/hard"), "new\n", 4), 0);
	assert_int_equal(buf_read_file(&b, at("victim/secret")), 0);
	assert_string_equal(buf_str(&b), "the worker's own\n");
	buf_reset(&b);
	assert_int_equal(beneath_read(&b, at("work"), at("work/dir/lfile")), 0);
	assert_string_equal(buf_str(&b), "new\n");
	buf_release(&b);
}

static void test_beneath__clear_removes_what_a_writer_would_follow(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(util_mkdir_p(at("work/t/real")), 0);
	assert_int_equal(symlink(at("victim"), at("work/t/d")), 0);
	assert_int_equal(symlink(at("victim/f"), at("work/t/f")), 0);
	put(at("work/t/notdir"), "a file where a directory goes\n");
	assert_int_equal(mkfifo(at("work/t/real/fifo"), 0644), 0);
	put(at("work/t/real/kept"), "kept\n");

	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/d/a"), NULL, NULL), 0);
	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/f"), NULL, NULL), 0);
	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/notdir/x"), NULL, NULL),
		0);
	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/real/fifo"), NULL, NULL),
		0);
	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/real/kept"), NULL, NULL),
		0);
	assert_int_equal(
		beneath_clear(at("work/t"), at("work/t/no/such"), NULL, NULL),
		0);
	assert_int_equal(lstat(at("work/t/d"), &st), -1);
	assert_int_equal(lstat(at("work/t/f"), &st), -1);
	/* a file on the way leads nowhere: the checkout replaces it */
	assert_int_equal(lstat(at("work/t/notdir"), &st), 0);
	assert_int_equal(lstat(at("work/t/real/fifo"), &st), -1);
	assert_int_equal(lstat(at("work/t/real/kept"), &st), 0);
	assert_int_equal(lstat(at("victim"), &st), 0);

	assert_int_equal(symlink(at("victim"), at("work/t/real/l")), 0);
	assert_int_equal(beneath_clear_tree(at("work/t"), NULL, NULL), 0);
	assert_int_equal(lstat(at("work/t/real/l"), &st), -1);
	assert_int_equal(lstat(at("work/t/real/kept"), &st), 0);
}

static void git(const char *dir, const char *args)
{
	char *cmd = util_fmt("git -C '%s' -c user.name=t "
			     "-c user.email=t@example.org %s > /dev/null 2>&1",
			     dir, args);

	assert_non_null(cmd);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Two commits: the second changes d/a and f, and the committed link l
 * (to the victim's directory) becomes a directory with a file in it. */
static void two_commits(struct gu_oid *one, struct gu_oid *two,
			struct gu_repo **r)
{
	assert_int_equal(util_mkdir_p(at("repo/d")), 0);
	git(at("repo"), "init -q -b main");
	put(at("repo/d/a"), "one\n");
	put(at("repo/f"), "one\n");
	assert_int_equal(symlink(at("victim"), at("repo/l")), 0);
	git(at("repo"), "add -A");
	git(at("repo"), "commit -q -m one");
	assert_int_equal(unlink(at("repo/l")), 0);
	assert_int_equal(util_mkdir_p(at("repo/l")), 0);
	put(at("repo/d/a"), "two\n");
	put(at("repo/f"), "two\n");
	put(at("repo/l/a"), "two\n");
	git(at("repo"), "add -A");
	git(at("repo"), "commit -q -m two");
	assert_int_equal(gu_open(r, at("repo")), 0);
	assert_int_equal(gu_resolve(*r, "HEAD~1", one), 0);
	assert_int_equal(gu_resolve(*r, "HEAD", two), 0);
}

static void test_beneath__checkout_never_follows_a_planted_link(void **state)
{
	struct gu_oid one, two;
	struct gu_repo *r = NULL, *w = NULL;
	struct buf b;
	struct stat st;

	(void)state;
	buf_init(&b, 1 << 20);
	put(at("victim/f"), "untouched\n");
	two_commits(&one, &two, &r);
	assert_int_equal(gu_checkout(r, at("co"), &one), 0);
	/* its git directory is beside it, and a .git file names it */
	assert_int_equal(lstat(at("co.git/HEAD"), &st), 0);
	assert_int_equal(lstat(at("co/.git"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(gu_open_worktree(&w, at("co")), 0);
	gu_close(w);
	/* the committed link is checked out as a link */
	assert_int_equal(lstat(at("co/l"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* what a command leaves: links where the next commit writes */
	assert_int_equal(util_remove_tree(at("co/d")), 0);
	assert_int_equal(unlink(at("co/f")), 0);
	assert_int_equal(symlink(at("victim"), at("co/d")), 0);
	assert_int_equal(symlink(at("victim/f"), at("co/f")), 0);
	assert_int_equal(gu_checkout(r, at("co"), &two), 0);

	assert_int_equal(buf_read_file(&b, at("co/d/a")), 0);
	assert_string_equal(buf_str(&b), "two\n");
	buf_reset(&b);
	assert_int_equal(buf_read_file(&b, at("co/l/a")), 0);
	assert_string_equal(buf_str(&b), "two\n");
	buf_reset(&b);
	assert_int_equal(lstat(at("co/f"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(at("victim/a"), &st), -1);
	assert_int_equal(buf_read_file(&b, at("victim/f")), 0);
	assert_string_equal(buf_str(&b), "untouched\n");
	buf_release(&b);
	gu_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beneath__reads_and_writes_without_links),
		cmocka_unit_test(
			test_beneath__clear_removes_what_a_writer_would_follow),
		cmocka_unit_test(
			test_beneath__checkout_never_follows_a_planted_link),
	};

	assert_int_equal(gu_init(), 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
