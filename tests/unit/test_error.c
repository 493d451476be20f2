// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the last-error message: a new message may be built from
 * the old one, as callers that add context do.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"

static void test_error__set_from_last(void **state)
{
	(void)state;
	err_set(ERR_INFRA, "cannot run '%s'", "rpm");
	assert_int_equal(err_set(ERR_INFRA, "step failed: %s, on %s",
				 err_last(), "worker-1"),
			 ERR_INFRA);
	assert_string_equal(err_last(),
			    "step failed: cannot run 'rpm', on worker-1");
}

static void test_error__set_from_last_at_end(void **state)
{
	(void)state;
	err_set(ERR_INPUT, "no recipe '%s'", "tiny");
	err_set(ERR_INFRA, "%s on this worker", err_last());
	assert_string_equal(err_last(), "no recipe 'tiny' on this worker");
}

static void test_error__sys_from_last(void **state)
{
	(void)state;
	err_set(ERR_INFRA, "disk full");
	errno = ENOENT;
	err_sys(ERR_INFRA, "writing '%s' (%s)", "x", err_last());
	assert_string_equal(err_last(), "writing 'x' (disk full): "
					"No such file or directory");
}

static void test_error__wrap(void **state)
{
	(void)state;
	err_set(ERR_INPUT, "bad hunk");
	err_wrap(ERR_INPUT, "patch '%s'", "a.patch");
	assert_string_equal(err_last(), "patch 'a.patch': bad hunk");
	err_clear();
	assert_string_equal(err_last(), "no error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error__set_from_last),
		cmocka_unit_test(test_error__set_from_last_at_end),
		cmocka_unit_test(test_error__sys_from_last),
		cmocka_unit_test(test_error__wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
