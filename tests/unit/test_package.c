// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of taking packages out of a build's work directory, which
 * the build's sandbox writes: only regular files leave it.
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

#include "error.h"
#include "util.h"
#include "worker.h"

struct dirs {
	char top[64], work[96], out[96];
};

static void make_dirs(struct dirs *d)
{
	snprintf(d->top, sizeof(d->top), "/tmp/test-package-XXXXXX");
	assert_non_null(mkdtemp(d->top));
	snprintf(d->work, sizeof(d->work), "%s/work", d->top);
	snprintf(d->out, sizeof(d->out), "%s/out", d->top);
	assert_int_equal(mkdir(d->work, 0755), 0);
	assert_int_equal(mkdir(d->out, 0755), 0);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path = util_fmt("%s/%s", dir, name);

	assert_int_equal(util_write_atomic(path, text, strlen(text)), 0);
	free(path);
}

static int exists(const char *dir, const char *name)
{
	char *path = util_fmt("%s/%s", dir, name);
	struct stat st;
	int rc = !lstat(path, &st);

	free(path);
	return rc;
}

static void test_package__regular_files_move(void **state)
{
	struct package_result r = { 0 };
	struct dirs d;

	(void)state;
	make_dirs(&d);
	put(d.work, "linux-image-6.1.0_1_amd64.deb", "deb");
	put(d.work, "linux-image-6.1.0-dbg_1_amd64.deb", "dbg");
	put(d.work, "build.log", "log");
	assert_int_equal(package_collect(&r, d.top, d.work, ".deb", d.out, 0),
			 0);
	assert_int_equal(r.nfiles, 1);
	assert_string_equal(r.files[0], "linux-image-6.1.0_1_amd64.deb");
	assert_true(exists(d.out, "linux-image-6.1.0_1_amd64.deb"));
	assert_false(exists(d.work, "linux-image-6.1.0-dbg_1_amd64.deb"));
	assert_false(exists(d.out, "linux-image-6.1.0-dbg_1_amd64.deb"));
	assert_true(exists(d.work, "build.log"));
	package_result_release(&r);
	util_remove_tree(d.top);
}

static void test_package__a_link_is_refused(void **state)
{
	struct package_result r = { 0 };
	char *link;
	struct dirs d;

	(void)state;
	make_dirs(&d);
	put(d.top, "secret", "the worker's own file");
	link = util_fmt("%s/linux-image_1_amd64.deb", d.work);
	assert_int_equal(symlink("../secret", link), 0);
	assert_int_not_equal(
		package_collect(&r, d.top, d.work, ".deb", d.out, 0), 0);
	assert_non_null(strstr(err_last(), "not a regular file"));
	assert_int_equal(r.nfiles, 0);
	assert_false(exists(d.out, "linux-image_1_amd64.deb"));
	assert_false(exists(d.work, "linux-image_1_amd64.deb"));
	assert_true(exists(d.top, "secret"));
	package_result_release(&r);
	free(link);
	util_remove_tree(d.top);
}

static void test_package__a_hard_link_is_refused(void **state)
{
	struct package_result r = { 0 };
	char *from, *to;
	struct dirs d;

	(void)state;
	make_dirs(&d);
	put(d.top, "secret", "the worker's own file");
	from = util_fmt("%s/secret", d.top);
	to = util_fmt("%s/linux-image_1_amd64.deb", d.work);
	assert_int_equal(link(from, to), 0);
	assert_int_not_equal(
		package_collect(&r, d.top, d.work, ".deb", d.out, 0), 0);
	assert_non_null(strstr(err_last(), "not a regular file"));
	assert_false(exists(d.out, "linux-image_1_amd64.deb"));
	assert_true(exists(d.top, "secret"));
	package_result_release(&r);
	free(from);
	free(to);
	util_remove_tree(d.top);
}

/* rpmbuild's RPMS/x86_64 is below what the build wrote: a link on the
 * way to it is not followed */
static void test_package__a_link_on_the_way_is_refused(void **state)
{
	struct package_result r = { 0 };
	char *elsewhere, *link, *rpms, *rpms_there;
	struct dirs d;

	(void)state;
	make_dirs(&d);
	elsewhere = util_fmt("%s/elsewhere", d.top);
	link = util_fmt("%s/rpmbuild", d.work);
	rpms = util_fmt("%s/rpmbuild/RPMS", d.work);
	rpms_there = util_fmt("%s/elsewhere/RPMS", d.top);
	assert_true(elsewhere && link && rpms && rpms_there);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	assert_int_equal(util_mkdir_p(rpms_there), 0);
	put(rpms_there, "x.rpm", "the worker's own file");
	assert_int_equal(symlink(elsewhere, link), 0);
	assert_int_not_equal(package_collect(&r, d.top, rpms, ".rpm", d.out, 0),
			     0);
	assert_non_null(strstr(err_last(), "link"));
	assert_int_equal(r.nfiles, 0);
	assert_true(exists(rpms_there, "x.rpm"));
	package_result_release(&r);
	free(rpms_there);
	free(elsewhere);
	free(link);
	free(rpms);
	util_remove_tree(d.top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_package__regular_files_move),
		cmocka_unit_test(test_package__a_link_is_refused),
		cmocka_unit_test(test_package__a_hard_link_is_refused),
		cmocka_unit_test(test_package__a_link_on_the_way_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
