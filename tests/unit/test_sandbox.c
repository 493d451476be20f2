// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the sandboxes' reach over a file of the worker's (root's,
 * mode 600) in the work directory they write: a build's nobody is root
 * outside its user namespace and reads it, unless the file is hidden (the
 * worker's token file is); a command's user is a real one and cannot,
 * nor can a build's real user (sandbox_build_user(), a worker's builds),
 * which writes its build directory but not the checkout.  And the
 * worker's cache hidden: another job's files there are out of sight,
 * the step's own directories bound back.  Needs root (the worker's
 * case) and bubblewrap: else skipped.
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

#include "buf.h"
#include "error.h"
#include "util.h"
#include "worker.h"

static char top[64], secret[96], secret2[96], log_path[96], cache[96],
	work[128], other[128], mirror[128];

/* The directory of path, in a buffer of its own. */
static const char *dirname_of(const char *path)
{
	static char dir[256];
	const char *slash = strrchr(path, '/');

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return dir;
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test-sandbox-XXXXXX");
	if (!mkdtemp(top) || chmod(top, 0755))
		return -1;
	snprintf(secret, sizeof(secret), "%s/token", top);
	snprintf(log_path, sizeof(log_path), "%s.log", top);
	unsetenv("CCACHE_DIR");
	if (util_write_atomic(secret, "worker-secret\n", 14) ||
	    chmod(secret, 0600))
		return -1;
	/* one that no test hides */
	snprintf(secret2, sizeof(secret2), "%s/token2", top);
	if (util_write_atomic(secret2, "worker-secret\n", 14) ||
	    chmod(secret2, 0600))
		return -1;
	/* the worker's cache: this step's work directory and repository,
	 * another job's file */
	if (geteuid() != 0)
		return 0; /* every test is skipped */
	/* (not below /tmp, which is a tmpfs of its own in a sandbox) */
	snprintf(cache, sizeof(cache), "/var/cache/test-sandbox-XXXXXX");
	if (util_mkdir_p("/var/cache") || !mkdtemp(cache) || chmod(cache, 0755))
		return -1;
	snprintf(work, sizeof(work), "%s/work/tiny", cache);
	snprintf(mirror, sizeof(mirror), "%s/mirrors/linux.git", cache);
	snprintf(other, sizeof(other), "%s/work/other/job.txt", cache);
	if (util_mkdir_p(work) || util_mkdir_p(mirror) ||
	    util_mkdir_p(dirname_of(other)) ||
	    util_write_atomic(other, "other-job\n", 10))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	util_remove_tree(top);
	util_remove_tree(cache);
	unlink(log_path);
	return 0;
}

/* Run sh -c script after the sandbox's n words; its exit status, and its
 * output in out. */
static int sh_in(const char **argv, size_t n, const char *script,
		 struct buf *out)
{
	struct proc_opts o = { .log_path = log_path };
	struct proc_result pr;

	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	assert_int_equal(proc_run(&pr, argv, &o), 0);
	assert_false(pr.exec_failed);
	buf_reset(out);
	assert_int_equal(buf_read_file(out, log_path), 0);
	return pr.exited ? pr.status : -1;
}

/* Run cat SECRET after the sandbox's n words; its exit status, and
 * whether its output held the secret. */
static int cat_secret(const char **argv, size_t n, int *leaked)
{
	struct proc_opts o = { .log_path = log_path };
	struct proc_result pr;
	struct buf out;

	argv[n++] = "cat";
	argv[n++] = secret;
	argv[n] = NULL;
	assert_int_equal(proc_run(&pr, argv, &o), 0);
	assert_false(pr.exec_failed);
	buf_init(&out, 1 << 20);
	assert_int_equal(buf_read_file(&out, log_path), 0);
	*leaked = strstr(buf_str(&out), "worker-secret") != NULL;
	buf_release(&out);
	return pr.exited ? pr.status : -1;
}

static int usable(void)
{
	return util_in_path("bwrap") && util_in_path("setpriv") &&
	       geteuid() == 0;
}

static void test_sandbox__command_user_cannot_read_roots_file(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	const struct sandbox_user nobody = { 65534, 65534, 0 };
	int leaked;

	(void)state;
	if (!usable())
		skip();
	assert_int_not_equal(
		cat_secret(argv,
			   sandbox_command_argv(argv, top, NULL, NULL, NULL,
						&nobody),
			   &leaked),
		0);
	assert_false(leaked);
}

static void test_sandbox__build_cannot_read_hidden_file(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	size_t n = 0;
	int leaked;

	(void)state;
	if (!usable())
		skip();
	/* what the hiding is for: a build reads root's files */
	assert_int_equal(sandbox_argv(argv, &n, top, NULL), 0);
	assert_int_equal(cat_secret(argv, n, &leaked), 0);
	assert_true(leaked);
	sandbox_hide_file(secret);
	/* (a device node bound over it, which nodev makes unreadable) */
	assert_int_equal(sandbox_argv(argv, &n, top, NULL), 0);
	cat_secret(argv, n, &leaked);
	assert_false(leaked);
}

static void test_sandbox__build_user_writes_only_its_build(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	char *built = util_fmt("%s/" SANDBOX_OUT "/build/vmlinux", work),
	     *tracked = util_fmt("%s/src/Makefile", work),
	     *script = util_fmt("cat %s; id -u; echo new > %s && "
				"! echo evil 2>/dev/null > %s && "
				"! mv %s/src %s/src.old 2>/dev/null && "
				"! ln -s / %s/planted 2>/dev/null && echo held",
				secret2, built, tracked, work, work, work);
	struct buf out;
	struct stat st;
	size_t n = 0;

	(void)state;
	if (!usable())
		skip();
	assert_non_null(script);
	assert_int_equal(util_mkdir_p(dirname_of(tracked)), 0);
	assert_int_equal(util_write_atomic(tracked, "all:\n", 5), 0);
	assert_int_equal(util_mkdir_p(built), 0);
	assert_int_equal(rmdir(built), 0);
	assert_int_equal(util_write_atomic(built, "old\n", 4), 0);
	buf_init(&out, 1 << 20);
	sandbox_build_user(65534, 65534);
	assert_int_equal(sandbox_argv(argv, &n, work, NULL), 0);
	/* the build directory given to the build's user, the checkout
	 * kept the worker's */
	assert_int_equal(lstat(built, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(lstat(tracked, &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* the secret is not the build's to read, even unhidden */
	assert_int_equal(sh_in(argv, n, script, &out), 0);
	assert_null(strstr(buf_str(&out), "worker-secret"));
	assert_non_null(strstr(buf_str(&out), "65534\n"));
	/* nor to replace its checkout, or to leave anything beside out/ */
	assert_non_null(strstr(buf_str(&out), "held\n"));
	assert_int_equal(lstat(work, &st), 0);
	assert_int_equal(st.st_uid, 0);
	buf_reset(&out);
	assert_int_equal(buf_read_file(&out, built), 0);
	assert_string_equal(buf_str(&out), "new\n");
	buf_reset(&out);
	assert_int_equal(buf_read_file(&out, tracked), 0);
	assert_string_equal(buf_str(&out), "all:\n");
	sandbox_build_user(0, 0);
	buf_release(&out);
	free(built);
	free(tracked);
	free(script);
}

static void test_sandbox__cache_shows_only_the_steps_own(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	const struct sandbox_user nobody = { 65534, 65534, 0 };
	char *script = util_fmt("ls -d %s %s && cat %s", work, mirror, other);
	struct buf out;
	size_t n = 0;

	(void)state;
	if (!usable())
		skip();
	assert_non_null(script);
	buf_init(&out, 1 << 20);
	/* before it is hidden, another job's file is there to read */
	assert_int_equal(sandbox_argv(argv, &n, work, NULL), 0);
	assert_int_equal(sh_in(argv, n, script, &out), 0);
	assert_non_null(strstr(buf_str(&out), "other-job"));
	sandbox_hide(cache);
	assert_int_equal(sandbox_argv(argv, &n, work, NULL), 0);
	assert_int_not_equal(sh_in(argv, n, script, &out), 0);
	assert_null(strstr(buf_str(&out), "other-job"));
	assert_non_null(strstr(buf_str(&out), work));
	/* a command's sandbox too, its repository bound back */
	n = sandbox_command_argv(argv, work, mirror, NULL, NULL, &nobody);
	assert_int_not_equal(sh_in(argv, n, script, &out), 0);
	assert_null(strstr(buf_str(&out), "other-job"));
	assert_non_null(strstr(buf_str(&out), work));
	assert_non_null(strstr(buf_str(&out), mirror));
	free(script);
	buf_release(&out);
}

static void test_sandbox__netns_words(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	size_t n = 0, i;
	int unshare_net = 0, share_net = 0;

	(void)state;
	/* without: a network namespace of bwrap's own, only a loopback */
	assert_int_equal(sandbox_argv(argv, &n, work, NULL), 0);
	assert_string_equal(argv[0], "bwrap");
	for (i = 0; i < n; i++)
		unshare_net |= !strcmp(argv[i], "--unshare-net") ||
			       !strcmp(argv[i], "--unshare-all");
	assert_true(unshare_net);
	/* with: entered before bwrap, and kept */
	assert_int_equal(sandbox_argv(argv, &n, work, "/proc/1/fd/7"), 0);
	assert_string_equal(argv[0], "nsenter");
	assert_string_equal(argv[1], "--net=/proc/1/fd/7");
	assert_string_equal(argv[2], "--");
	assert_string_equal(argv[3], "bwrap");
	for (i = 0; i < n; i++) {
		assert_string_not_equal(argv[i], "--unshare-net");
		share_net |= !strcmp(argv[i], "--share-net");
	}
	/* (--unshare-all, as nobody in a user namespace, takes it back) */
	for (i = 0; i < n; i++)
		if (!strcmp(argv[i], "--unshare-all"))
			assert_true(share_net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_sandbox__command_user_cannot_read_roots_file),
		cmocka_unit_test(test_sandbox__build_cannot_read_hidden_file),
		cmocka_unit_test(
			test_sandbox__build_user_writes_only_its_build),
		cmocka_unit_test(test_sandbox__cache_shows_only_the_steps_own),
		cmocka_unit_test(test_sandbox__netns_words),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
