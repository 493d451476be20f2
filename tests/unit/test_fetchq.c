// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the fetch queue's rule for starting a fetch: not twice,
 * at most per_submitter of one submitter's at once, one fetch per key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fetchq.h"

/* two of alice's fetches and one of bob's under way, one slot free */
static const struct fetchq_running run[] = {
	{ 1, "alice", "http://a.example/1.git" },
	{ 0, NULL, NULL },
	{ 2, "alice", "http://a.example/2.git" },
	{ 3, "bob", "git://b.example/linux.git" },
};

#define N (sizeof(run) / sizeof(run[0]))

static void test_fetchq__submitter_cap(void **state)
{
	(void)state;
	/* alice holds two: at a cap of 2 her next waits, at 3 it starts */
	assert_false(fetchq_may_start(run, N, 2, 9, "alice", "k"));
	assert_false(fetchq_may_start(run, N, 2, 9, "alice", NULL));
	assert_true(fetchq_may_start(run, N, 3, 9, "alice", "k"));
	/* others are not held up by her */
	assert_true(fetchq_may_start(run, N, 2, 9, "carol", "k"));
	assert_true(fetchq_may_start(run, N, 2, 9, "bob", "k"));
	assert_false(fetchq_may_start(run, N, 1, 9, "bob", "k"));
	/* jobs without a submitter share one cap */
	assert_true(fetchq_may_start(run, N, 1, 9, "", "k"));
}

static void test_fetchq__one_fetch_per_job_and_key(void **state)
{
	(void)state;
	assert_false(fetchq_may_start(run, N, 4, 3, "bob", "k"));
	/* a mirror being written waits, whoever asks for it */
	assert_false(fetchq_may_start(run, N, 4, 9, "carol",
				      "git://b.example/linux.git"));
	assert_true(fetchq_may_start(run, N, 4, 9, "carol",
				     "git://b.example/linux2.git"));
	/* nothing under way: anything starts */
	assert_true(fetchq_may_start(run, 0, 1, 1, "alice",
				     "http://a.example/1.git"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fetchq__submitter_cap),
		cmocka_unit_test(test_fetchq__one_fetch_per_job_and_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
