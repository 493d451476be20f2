// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the "bisect-metric: NAME VALUE [UNIT]" parser: good
 * lines, console prefixes, and every kind of garbage refused with a
 * reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "measure.h"

static int parse(struct measure *m, const char *line)
{
	return measure_parse_line(m, line, strlen(line));
}

static void test_measure__good_lines(void **state)
{
	struct measure m;

	(void)state;
	assert_int_equal(parse(&m, "bisect-metric: boot_time 12.5 ms"), 1);
	assert_string_equal(m.name, "boot_time");
	assert_true(m.value == 12.5);
	assert_string_equal(m.unit, "ms");
	assert_int_equal(parse(&m, "bisect-metric:\tt 3e2\r"), 1);
	assert_true(m.value == 300);
	assert_string_equal(m.unit, "");
	assert_int_equal(parse(&m, "[   4.210] bisect-metric: fio.iops 1000 "
				   "IOPS  "),
			 1);
	assert_string_equal(m.name, "fio.iops");
	assert_int_equal(parse(&m, "x bisect-metric: n -1"), 1);
	assert_true(m.value == -1);
}

static void test_measure__not_a_measurement(void **state)
{
	struct measure m;

	(void)state;
	assert_int_equal(parse(&m, ""), 0);
	assert_int_equal(parse(&m, "metric: t 1"), 0);
	assert_int_equal(parse(&m, "xbisect-metric: t 1"), 0);
	assert_int_equal(parse(&m, "bisect-metric"), 0);
}

static void test_measure__garbage_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "bisect-metric:", "no name" },
		{ "bisect-metric: t", "no value" },
		{ "bisect-metric: t nan", "not a finite number" },
		{ "bisect-metric: t inf ms", "not a finite number" },
		{ "bisect-metric: t -INF", "not a finite number" },
		{ "bisect-metric: t 1e999", "not a finite number" },
		{ "bisect-metric: t 12abc", "not a number" },
		{ "bisect-metric: t 0x", "not a number" },
		{ "bisect-metric: t 1 ms extra", "words after" },
		{ "bisect-metric: t$ 1", "bad measurement name" },
		{ "bisect-metric: t 1 "
		  "averyveryveryverylongunit",
		  "unit too long" },
		{ "bisect-metric: t 1 m\x1b[2Js", "not printable ASCII" },
		{ "bisect-metric: t 1 \xc2\x9b"
		  "2J",
		  "not printable ASCII" },
	};
	struct measure m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(parse(&m, bad[i][0]), ERR_INPUT);
		if (!strstr(err_last(), bad[i][1]))
			fail_msg("'%s': '%s'", bad[i][0], err_last());
	}
}

static void test_measure__not_terminated(void **state)
{
	/* a buffer without NUL: nothing past len is read */
	char *p = malloc(22);
	struct measure m;

	(void)state;
	memcpy(p, "bisect-metric: t 1.25", 21);
	assert_int_equal(measure_parse_line(&m, p, 21), 1);
	assert_true(m.value == 1.25);
	assert_int_equal(measure_parse_line(&m, p, 17), ERR_INPUT);
	free(p);
}

static void test_measure__collect(void **state)
{
	static const char text[] = "boot\n"
				   "bisect-metric: t 10 ms\n"
				   "bisect-metric: other 5\n"
				   "bisect-metric: t nan\n"
				   "  bisect-metric: t 11.5 ms\n"
				   "bisect-metric: t 12";
	double *v;
	size_t n, nbad;

	(void)state;
	assert_int_equal(
		measure_collect(&v, &n, &nbad, text, sizeof(text) - 1, "t"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(nbad, 1);
	assert_true(v[0] == 10 && v[1] == 11.5 && v[2] == 12);
	assert_non_null(strstr(err_last(), "not a finite number"));
	free(v);
	assert_int_equal(measure_collect(&v, &n, NULL, text, sizeof(text) - 1,
					 "missing"),
			 0);
	assert_int_equal(n, 0);
	assert_null(v);
}

static void test_measure__name_ok(void **state)
{
	(void)state;
	assert_true(measure_name_ok("t"));
	assert_true(measure_name_ok("fio/read.iops-4k"));
	assert_false(measure_name_ok(""));
	assert_false(measure_name_ok("a b"));
	assert_false(
		measure_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				"aaaaaaaaaaaaaaaaaaaaa"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure__good_lines),
		cmocka_unit_test(test_measure__not_a_measurement),
		cmocka_unit_test(test_measure__garbage_refused),
		cmocka_unit_test(test_measure__not_terminated),
		cmocka_unit_test(test_measure__collect),
		cmocka_unit_test(test_measure__name_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
