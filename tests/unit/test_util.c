// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of proc_run()'s watchdogs: a child whose log stops growing
 * is killed after stall_s, one that keeps writing runs to its end.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "util.h"

static void run_sh(struct proc_result *pr, const char *script, double stall)
{
	char log[] = "/tmp/test_util.XXXXXX";
	const char *argv[] = { "sh", "-c", script, NULL };
	struct proc_opts o = { .log_path = log,
			       .timeout_s = 20,
			       .stall_s = stall };
	int fd = mkstemp(log);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(proc_run(pr, argv, &o), 0);
	unlink(log);
}

static void test_util__proc_stall(void **state)
{
	struct proc_result pr;

	(void)state;
	/* says one thing, then nothing: killed a second later */
	run_sh(&pr, "echo start; sleep 10", 1);
	assert_true(pr.stalled);
	assert_false(pr.timed_out);
	assert_false(pr.exited);
	assert_true(pr.seconds >= 1 && pr.seconds < 5);
	/* a line every 0.3 s for 2 s: slow, never stalled */
	run_sh(&pr, "for i in 1 2 3 4 5 6 7; do echo $i; sleep 0.3; done", 1);
	assert_false(pr.stalled);
	assert_true(pr.exited);
	assert_int_equal(pr.status, 0);
	/* without the watchdog, silence is allowed */
	run_sh(&pr, "sleep 1.5", 0);
	assert_false(pr.stalled);
	assert_true(pr.exited);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__proc_stall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
