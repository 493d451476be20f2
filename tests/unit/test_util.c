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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/*
 * The cgroups that a worker killed with SIGKILL left behind are removed
 * when the next one probes for the pids controller; a live process's
 * stay.  (First: the probe is made once a process.)  Needs root and a
 * pids controller, else skipped.
 */
static void test_util__dead_cgroups(void **state)
{
	static const char *const roots[] = { "/sys/fs/cgroup/pids",
					     "/sys/fs/cgroup" };
	char dead[300] = "", live[300] = "";
	const char *root;
	pid_t pid = fork();
	size_t i;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0); /* a pid that is no process now */
	for (i = 0; i < 2 && !dead[0]; i++) {
		snprintf(dead, sizeof(dead), "%s/bisectd-%d-77", roots[i],
			 (int)pid);
		snprintf(live, sizeof(live), "%s/bisectd-%d-77", roots[i],
			 (int)getpid());
		if (mkdir(dead, 0755) || mkdir(live, 0755)) {
			rmdir(dead);
			dead[0] = '\0';
		}
	}
	root = proc_pids_root();
	if (!dead[0] || !root || strncmp(dead, root, strlen(root))) {
		if (dead[0]) {
			rmdir(dead);
			rmdir(live);
		}
		skip();
	}
	assert_int_not_equal(access(dead, F_OK), 0);
	assert_int_equal(access(live, F_OK), 0);
	rmdir(live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__dead_cgroups),
		cmocka_unit_test(test_util__proc_stall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
