/*
 * Unit tests of the sandboxes' reach over a file of the worker's (root's,
 * mode 600) in the work directory they write: a build's nobody is root
 * outside its user namespace and reads it, unless the file is hidden (the
 * worker's token file is); a command's user is a real one and cannot.
 * Needs root (the worker's case) and bubblewrap: else skipped.
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

static char top[64], secret[96], log_path[96];

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
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	util_remove_tree(top);
	unlink(log_path);
	return 0;
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
			   sandbox_command_argv(argv, top, NULL, NULL, &nobody),
			   &leaked),
		0);
	assert_false(leaked);
}

static void test_sandbox__build_cannot_read_hidden_file(void **state)
{
	const char *argv[SANDBOX_WORDS + 8];
	int leaked;

	(void)state;
	if (!usable())
		skip();
	/* what the hiding is for: a build reads root's files */
	assert_int_equal(cat_secret(argv, sandbox_argv(argv, top), &leaked), 0);
	assert_true(leaked);
	sandbox_hide_file(secret);
	/* (a device node bound over it, which nodev makes unreadable) */
	cat_secret(argv, sandbox_argv(argv, top), &leaked);
	assert_false(leaked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_sandbox__command_user_cannot_read_roots_file),
		cmocka_unit_test(test_sandbox__build_cannot_read_hidden_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
