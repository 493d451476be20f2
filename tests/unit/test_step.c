// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the step's wire forms: an assignment and a result go
 * through their codec unchanged, carry the wire version, and a form of
 * another version is refused, saying which.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "step.h"

static void test_step__assignment_round_trip(void **state)
{
	static const char spec[] = "{\"type\":\"test\",\"repo\":\"/r\","
				   "\"commit\":\"c\",\"command\":\"true\"}";
	struct step_assignment a = { .step = 7, .job = 3, .lease_seconds = 60 },
			       b;
	char *s;

	(void)state;
	snprintf(a.lease, sizeof(a.lease), "L1");
	snprintf(a.commit, sizeof(a.commit), "%040d", 1);
	snprintf(a.role, sizeof(a.role), "bisect");
	assert_int_equal(job_spec_parse(&a.spec, spec, strlen(spec)), 0);
	s = step_assignment_dump(&a);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"v\":1"));
	assert_int_equal(step_assignment_parse(&b, s, strlen(s)), 0);
	assert_int_equal(b.step, 7);
	assert_int_equal(b.job, 3);
	assert_string_equal(b.lease, "L1");
	assert_string_equal(b.commit, a.commit);
	assert_string_equal(b.spec.command, "true");
	/* no tenant (a local run): none on the wire */
	assert_null(strstr(s, "tenant"));
	assert_string_equal(b.tenant, "");
	free(s);
	job_spec_release(&b.spec);
	/* a submitter's key goes along; anything but 16 hex is refused */
	snprintf(a.tenant, sizeof(a.tenant), "0123456789abcdef");
	s = step_assignment_dump(&a);
	assert_non_null(s);
	assert_int_equal(step_assignment_parse(&b, s, strlen(s)), 0);
	assert_string_equal(b.tenant, "0123456789abcdef");
	job_spec_release(&b.spec);
	free(s);
	snprintf(a.tenant, sizeof(a.tenant), "../../etc");
	s = step_assignment_dump(&a);
	assert_int_equal(step_assignment_parse(&b, s, strlen(s)), ERR_INPUT);
	assert_non_null(strstr(err_last(), "tenant"));
	free(s);
	job_spec_release(&a.spec);
}

static void test_step__result_round_trip(void **state)
{
	char title[] = "BUG: kernel NULL pointer dereference in foo",
	     excerpt[] = "";
	struct step_result r = { .verdict = VERDICT_BAD,
				 .title = title,
				 .excerpt = excerpt,
				 .exit_code = -1,
				 .runs = 3,
				 .runs_failed = 2,
				 .role = "bisect",
				 .build_cached = 1 },
			   back;
	const char *const patches[] = { "mm: fix the \"leak\"", "0001.diff" };
	char *json, verdict[8];

	(void)state;
	snprintf(r.hex, sizeof(r.hex), "%040d", 2);
	assert_int_equal(step_result_set_patches(&r, patches, 2), 0);
	assert_int_equal(step_result_dump(&json, NULL, &r), 0);
	assert_non_null(strstr(json, "\"v\": 1"));
	assert_int_equal(step_result_check(json, strlen(json), r.hex, verdict),
			 0);
	assert_string_equal(verdict, "bad");
	/* a result is about its step's commit, and no other */
	assert_int_equal(step_result_check(json, strlen(json),
					   "0000000000000000000000000000000000"
					   "000003",
					   verdict),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "field 'commit'"));
	assert_int_equal(step_result_parse(&back, json), 0);
	assert_int_equal(back.verdict, VERDICT_BAD);
	assert_string_equal(back.title, r.title);
	assert_int_equal(back.runs, 3);
	assert_int_equal(back.runs_failed, 2);
	assert_int_equal(back.build_cached, 1);
	/* a build's patches, by name, in their order */
	assert_string_equal(back.patches,
			    "[\"mm: fix the \\\"leak\\\"\",\"0001.diff\"]");
	assert_null(back.releases);
	step_result_release(&back);
	free(json);
	/* a releases job's bisection rides along as an object */
	r.releases = strdup("{\"result\":\"found\",\"first_bad_release\":"
			    "\"6.1.0-50\",\"probes\":[]}");
	assert_int_equal(step_result_dump(&json, NULL, &r), 0);
	assert_int_equal(step_result_parse(&back, json), 0);
	assert_non_null(back.releases);
	assert_non_null(strstr(back.releases, "\"first_bad_release\":"
					      "\"6.1.0-50\""));
	step_result_release(&back);
	free(json);
	free(r.releases);
	free(r.patches);
}

/*
 * A metric bisection's step: the values of its metric, read from the
 * run's output, ride in the result; a run without one is a skip that
 * says why.
 */
static void test_step__metric_values(void **state)
{
	const char out[] = "warming up\n"
			   "bisect-metric: t 10.5 ms\n"
			   "bisect-metric: other 3\n"
			   "[   1.25] bisect-metric: t 11 ms\n";
	struct step_result r = { .verdict = VERDICT_GOOD, .exit_code = 0 },
			   back;
	char *json;

	(void)state;
	snprintf(r.hex, sizeof(r.hex), "%040d", 4);
	r.title = strdup("");
	r.excerpt = strdup("");
	assert_int_equal(step_result_measure(&r, out, strlen(out), "t"), 0);
	assert_int_equal(r.verdict, VERDICT_GOOD);
	assert_int_equal(r.nvalues, 2);
	assert_true(r.values[0] == 10.5 && r.values[1] == 11);
	assert_int_equal(step_result_dump(&json, NULL, &r), 0);
	assert_int_equal(step_result_parse(&back, json), 0);
	assert_int_equal(back.nvalues, 2);
	assert_true(back.values[0] == 10.5 && back.values[1] == 11);
	assert_string_equal(back.unit, "ms");
	step_result_release(&back);
	free(json);
	/* no value of the name: a skip, saying so */
	assert_int_equal(step_result_measure(&r, out, strlen(out), "rps"), 0);
	assert_int_equal(r.verdict, VERDICT_SKIP);
	assert_int_equal(r.nvalues, 0);
	assert_null(r.values);
	assert_string_equal(r.title, "no value of 'rps' in the output");
	/* a failed run: a skip too, its values unread */
	r.verdict = VERDICT_BAD;
	free(r.title);
	r.title = strdup("exit status 1");
	assert_int_equal(step_result_measure(&r, out, strlen(out), "t"), 0);
	assert_int_equal(r.verdict, VERDICT_SKIP);
	assert_string_equal(r.title, "the run failed (bad: exit status 1): "
				     "no value of 't'");
	/* a value that is not positive */
	r.verdict = VERDICT_GOOD;
	assert_int_equal(
		step_result_measure(&r, "bisect-metric: t 0\n", 18, "t"), 0);
	assert_int_equal(r.verdict, VERDICT_SKIP);
	assert_non_null(strstr(r.title, "is not positive"));
	step_result_release(&r);
}

static void test_step__other_versions_refused(void **state)
{
	static const char result[] = "{\"v\":2,\"verdict\":\"good\"}";
	static const char assignment[] =
		"{\"v\":2,\"lease\":\"L\",\"step\":1,\"job\":1,\"commit\":"
		"\"c\","
		"\"role\":\"bisect\",\"lease_seconds\":60,\"spec\":{}}";
	static const char unversioned[] =
		"{\"verdict\":\"good\",\"commit\":\"c\"}";
	static const char uncommitted[] = "{\"verdict\":\"good\"}";
	struct step_assignment a;
	struct step_result r;
	char verdict[8];

	(void)state;
	assert_int_equal(
		step_result_check(result, strlen(result), NULL, verdict),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "version 2"));
	assert_non_null(strstr(err_last(), "speaks version 1"));
	assert_int_equal(step_result_parse(&r, result), ERR_INPUT);
	assert_int_equal(
		step_assignment_parse(&a, assignment, strlen(assignment)),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "an assignment"));
	/* a form without "v" is this version's */
	assert_int_equal(step_result_check(unversioned, strlen(unversioned),
					   "c", verdict),
			 0);
	/* and one that names no commit is about no step */
	assert_int_equal(step_result_check(uncommitted, strlen(uncommitted),
					   "c", verdict),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "field 'commit' is missing"));
}

#define HEX_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HEX_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void test_step__cached_runs_add_up(void **state)
{
	static const char bad[] =
		"{\"verdict\":\"bad\",\"title\":\"BUG: oops in f\","
		"\"console_log\":\"/a/console-1.log\",\"runs\":1,"
		"\"runs_failed\":1,\"run_results\":[{\"verdict\":\"bad\","
		"\"title\":\"BUG: oops in f\"}]}";
	static const char good[] = "{\"verdict\":\"good\",\"title\":\"\","
				   "\"console_log\":\"/b/console-1.log\","
				   "\"runs\":2,\"runs_failed\":0}";
	static const char skip[] = "{\"verdict\":\"skip\",\"title\":"
				   "\"error: foo.c: no such member\"}";
	struct step_result st;
	char *m1, *m2, *m3, verdict[8];
	int i;

	(void)state;
	assert_int_equal(step_result_merge(&m1, verdict, NULL, bad, HEX_A), 0);
	assert_string_equal(verdict, "bad");
	assert_int_equal(step_result_runs(m1), 1);
	/* two passes later, on another commit of the same tree: three runs,
	 * still bad, with the failure's evidence, from the commit run last */
	assert_int_equal(step_result_merge(&m2, verdict, m1, good, HEX_B), 0);
	assert_string_equal(verdict, "bad");
	assert_int_equal(step_result_runs(m2), 3);
	assert_int_equal(step_result_parse(&st, m2), 0);
	assert_int_equal(st.runs, 3);
	assert_int_equal(st.runs_failed, 1);
	assert_string_equal(st.title, "BUG: oops in f");
	assert_string_equal(st.console_log, "/a/console-1.log");
	assert_string_equal(st.cached_from, HEX_B);
	step_result_release(&st);
	/* a result without runs replaces what was there */
	assert_int_equal(step_result_merge(&m3, verdict, m2, skip, HEX_A), 0);
	assert_string_equal(verdict, "skip");
	assert_int_equal(step_result_runs(m3), 0);
	free(m1);
	free(m3);
	/* at most STEP_CACHE_RUNS of the latest are kept */
	for (i = 0; i < STEP_CACHE_RUNS; i++) {
		assert_int_equal(
			step_result_merge(&m1, verdict, m2, good, HEX_A), 0);
		free(m2);
		m2 = m1;
	}
	assert_int_equal(step_result_runs(m2), STEP_CACHE_RUNS);
	assert_string_equal(verdict, "good");
	free(m2);
	assert_int_equal(step_result_merge(&m1, verdict, NULL, "[", HEX_A),
			 ERR_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step__assignment_round_trip),
		cmocka_unit_test(test_step__result_round_trip),
		cmocka_unit_test(test_step__other_versions_refused),
		cmocka_unit_test(test_step__cached_runs_add_up),
		cmocka_unit_test(test_step__metric_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
