// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the submits-per-minute quota: at most per_minute in any
 * 60 s, per submitter, with the wait until the oldest leaves the minute.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "quota.h"

static void test_quota__per_minute(void **state)
{
	struct quota *q;
	int i;

	(void)state;
	assert_int_equal(quota_new(&q, 3), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(quota_wait(q, "alice", 100 + i * 10), 0);
		assert_int_equal(quota_count(q, "alice", 100 + i * 10), 0);
	}
	/* 100, 110, 120: the fourth waits until 160 */
	assert_int_equal(quota_wait(q, "alice", 125), 35);
	assert_int_equal(quota_wait(q, "alice", 159.5), 1);
	/* another submitter is not held up */
	assert_int_equal(quota_wait(q, "bob", 125), 0);
	/* at 160 the first has left the minute; then 110 is the oldest */
	assert_int_equal(quota_wait(q, "alice", 160), 0);
	assert_int_equal(quota_count(q, "alice", 160), 0);
	assert_int_equal(quota_wait(q, "alice", 161), 9);
	quota_free(q);
}

static void test_quota__quiet_submitters_forgotten(void **state)
{
	struct quota *q;

	(void)state;
	assert_int_equal(quota_new(&q, 1), 0);
	assert_int_equal(quota_count(q, "alice", 0), 0);
	assert_int_equal(quota_count(q, "bob", 30), 0);
	assert_int_equal(quota_wait(q, "alice", 59), 1);
	assert_int_equal(quota_wait(q, "alice", 60), 0);
	assert_int_equal(quota_wait(q, "bob", 60), 30);
	quota_free(q);
	quota_free(NULL);
}

static void test_quota__bad_limits(void **state)
{
	struct quota *q = (struct quota *)1;

	(void)state;
	assert_int_equal(quota_new(&q, 0), ERR_INPUT);
	assert_null(q);
	assert_int_equal(quota_new(&q, QUOTA_PER_MINUTE_MAX + 1), ERR_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quota__per_minute),
		cmocka_unit_test(test_quota__quiet_submitters_forgotten),
		cmocka_unit_test(test_quota__bad_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
