// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the job model: which worker may take which job (a
 * command that asks for the network goes only to a worker that gives
 * it), and the spec's refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "job.h"

static void spec(struct job_spec *j, const char *json)
{
	if (job_spec_parse(j, json, strlen(json)))
		fail_msg("'%s' refused: %s", json, err_last());
}

static void caps(struct job_caps *c, const char *json)
{
	if (job_caps_parse(c, json, strlen(json)))
		fail_msg("'%s' refused: %s", json, err_last());
}

static void test_job__network_goes_to_workers_that_give_it(void **state)
{
	struct job_spec plain, net;
	struct job_caps none, run, give, recipes;

	(void)state;
	spec(&plain, "{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		     "\"command\":\"true\"}");
	spec(&net, "{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		   "\"command\":\"curl x\",\"network\":true}");
	caps(&none, "{\"name\":\"a\"}");
	caps(&run, "{\"name\":\"b\",\"run\":true}");
	caps(&give, "{\"name\":\"c\",\"run\":true,\"network\":true}");
	/* network without commands gives nothing */
	caps(&recipes, "{\"name\":\"d\",\"network\":true}");
	assert_int_equal(net.network, 1);
	assert_int_equal(plain.network, 0);
	assert_false(job_caps_accept(&none, &plain));
	assert_true(job_caps_accept(&run, &plain));
	assert_true(job_caps_accept(&give, &plain));
	assert_false(job_caps_accept(&run, &net));
	assert_true(job_caps_accept(&give, &net));
	assert_false(job_caps_accept(&recipes, &net));
	assert_int_equal(recipes.network, 0);
	job_spec_release(&plain);
	job_spec_release(&net);
	job_caps_release(&none);
	job_caps_release(&run);
	job_caps_release(&give);
	job_caps_release(&recipes);
}

static void test_job__kernel_bisections_have_a_confidence(void **state)
{
	struct job_spec kernel, git, command, flaky;

	(void)state;
	spec(&kernel, "{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"g\"],"
		      "\"bad\":\"b\",\"recipe\":\"tiny\"}");
	spec(&git, "{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"g\"],"
		   "\"bad\":\"b\",\"recipe\":\"tiny\",\"confidence\":0}");
	spec(&command, "{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"g\"],"
		       "\"bad\":\"b\",\"command\":\"make test\"}");
	spec(&flaky, "{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"g\"],"
		     "\"bad\":\"b\",\"command\":\"make test\","
		     "\"confidence\":0.9}");
	/* a kernel bisection is made to 0.95 unless it names another */
	assert_true(kernel.confidence == JOB_KERNEL_CONFIDENCE);
	assert_true(git.confidence == 0);
	/* a command's is git's bisection unless given a confidence */
	assert_true(command.confidence == 0);
	assert_true(flaky.confidence == 0.9);
	assert_int_equal(kernel.check_endpoints, 1);
	assert_int_equal(command.check_endpoints, 0);
	assert_int_equal(flaky.check_endpoints, 1);
	job_spec_release(&kernel);
	job_spec_release(&git);
	job_spec_release(&command);
	job_spec_release(&flaky);
}

static void test_job__network_round_trips(void **state)
{
	struct job_spec j, back;
	struct job_caps c, cback;
	char *s;

	(void)state;
	spec(&j, "{\"type\":\"bisect\",\"repo\":\"/r\",\"bad\":\"b\","
		 "\"good\":[\"g\"],\"command\":\"x\",\"network\":true}");
	s = job_spec_dump(&j);
	assert_non_null(strstr(s, "\"network\":true"));
	spec(&back, s);
	assert_int_equal(back.network, 1);
	free(s);
	caps(&c, "{\"name\":\"c\",\"run\":true,\"network\":true}");
	s = job_caps_dump(&c);
	caps(&cback, s);
	assert_int_equal(cback.network, 1);
	free(s);
	job_spec_release(&j);
	job_spec_release(&back);
	job_caps_release(&c);
	job_caps_release(&cback);
}

static void test_job__network_is_for_commands(void **state)
{
	static const char body[] = "{\"type\":\"test\",\"repo\":\"/r\","
				   "\"commit\":\"c\",\"recipe\":\"tiny\","
				   "\"network\":true}";
	struct job_spec j;

	(void)state;
	assert_int_equal(job_spec_parse(&j, body, strlen(body)), ERR_INPUT);
	assert_non_null(strstr(err_last(), "'network'"));
}

static void refused(const char *json, const char *words)
{
	struct job_spec j;

	assert_int_equal(job_spec_parse(&j, json, strlen(json)), ERR_INPUT);
	if (!strstr(err_last(), words))
		fail_msg("'%s': '%s' does not say '%s'", json, err_last(),
			 words);
}

static void test_job__releases(void **state)
{
	struct job_spec j, back;
	struct job_caps c;
	char *s;

	(void)state;
	spec(&j, "{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		 "\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		 "\"test\":\"#!/bin/sh\\nexit 0\\n\",\"runs\":2}");
	assert_string_equal(j.type, "releases");
	assert_string_equal(j.flavour, "cloud-amd64");
	/* booted with Debian's cloud recipe's settings, to 0.95 */
	assert_string_equal(j.recipe, RELEASES_RECIPE);
	assert_true(j.confidence == JOB_KERNEL_CONFIDENCE);
	assert_int_equal(j.check_endpoints, 0);
	s = job_spec_dump(&j);
	spec(&back, s);
	assert_string_equal(back.flavour, "cloud-amd64");
	assert_string_equal(back.good[0], "6.1.0-47");
	assert_string_equal(back.bad, "6.1.0-57");
	assert_int_equal(back.runs, 2);
	free(s);
	/* a worker with that recipe takes it */
	caps(&c, "{\"name\":\"w\",\"recipes\":[\"debian-cloud-amd64\"]}");
	assert_true(job_caps_accept(&c, &j));
	job_caps_release(&c);
	job_spec_release(&j);
	job_spec_release(&back);

	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"bad\":\"6.1.0-57\"}",
		"a releases job needs 'flavour', 'bad' and one 'good'");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\",\"6.1.0-48\"],\"bad\":\"6.1.0-57\"}",
		"one 'good'");
	refused("{\"type\":\"releases\",\"flavour\":\"Cloud/amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\"}",
		"is not a flavour such as cloud-amd64");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"v6.1\"],\"bad\":\"6.1.0-57\"}",
		"releases such as 6.1.0-47");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"commit\":\"c\"}",
		"'commit' is not for releases jobs");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"base_release\":\"6.1.0-47\"}",
		"'base_release' is not for releases jobs");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"commit_recipe\":\"tiny\"}",
		"'commit_recipe' is for the commit level, which needs 'repo'");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"releases_job\":3}",
		"'releases_job' is for bisect jobs");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"confidence\":0.2}",
		"field 'confidence'");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"flavour\":\"cloud-amd64\"}",
		"'flavour' is for releases jobs, or with 'base_release'");
	refused("{\"type\":\"release\"}", "\"releases\"");
}

/* A metric bisection: its object parsed, checked and written back. */
#define GENERIC                                                                \
	"{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"g\"],\"bad\":\"b\"," \
	"\"command\":\"./bench\","
static void test_job__metric(void **state)
{
	struct job_spec j, back, dflt;
	char *s;

	(void)state;
	spec(&j, GENERIC "\"metric\":{\"name\":\"latency_ms\","
			 "\"direction\":\"higher\",\"min_change\":0.05}}");
	assert_string_equal(j.metric_name, "latency_ms");
	assert_int_equal(j.metric_higher, 1);
	assert_true(j.metric_min_change == 0.05);
	/* generic mode's CLI: 0.95 unless given */
	assert_true(j.confidence == 0.95);
	s = job_spec_dump(&j);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"direction\":\"higher\""));
	spec(&back, s);
	assert_string_equal(back.metric_name, "latency_ms");
	assert_int_equal(back.metric_higher, 1);
	assert_true(back.metric_min_change == 0.05);
	free(s);
	spec(&dflt, GENERIC "\"metric\":{\"name\":\"t\"},"
			    "\"confidence\":0.9}");
	assert_int_equal(dflt.metric_higher, 0);
	assert_true(dflt.metric_min_change == 0);
	assert_true(dflt.confidence == 0.9);
	job_spec_release(&j);
	job_spec_release(&back);
	job_spec_release(&dflt);
	refused(GENERIC "\"metric\":{\"name\":\"a b\"}}",
		"field 'metric.name' must be");
	refused(GENERIC "\"metric\":{}}", "field 'metric' needs a 'name'");
	refused(GENERIC "\"metric\":\"t\"}",
		"field 'metric' must be an object");
	refused(GENERIC "\"metric\":{\"name\":\"t\",\"direction\":\"up\"}}",
		"field 'metric.direction' must be \"lower\" or \"higher\"");
	refused(GENERIC "\"metric\":{\"name\":\"t\",\"min_change\":5}}",
		"field 'metric.min_change' must be a fraction");
	refused(GENERIC "\"metric\":{\"name\":\"t\",\"min_change\":-0.1}}",
		"field 'metric.min_change'");
	refused(GENERIC "\"metric\":{\"name\":\"t\",\"units\":\"ms\"}}",
		"unknown field 'metric.units'");
	refused(GENERIC "\"metric\":{\"name\":\"t\"},\"confidence\":0}",
		"values need a probability");
	refused(GENERIC "\"metric\":{\"name\":\"t\"},\"failure\":\"x\"}",
		"'failure' does not go with 'metric'");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"command\":\"true\",\"metric\":{\"name\":\"t\"}}",
		"'metric' is for bisect jobs");
}

/*
 * Releases, ABIs and flavours become apt-get's and apt-cache's
 * arguments: each starts with a letter or digit, never with '-', in
 * every field that names one.
 */
/* what bisectctl refuses before it starts, a request is refused for */
static void test_job__refused_as_bisectctl_refuses(void **state)
{
	struct job_spec j;

	(void)state;
	refused("{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"v1\","
		"\"v2\"],\"bad\":\"v2\",\"command\":\"true\"}",
		"good and bad are the same revision 'v2'");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"apply\":[{\"name\":\"a.patch\","
		"\"text\":\"\"}]}",
		"patch 1 ('a.patch') is empty");
	spec(&j, "{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"v1\"],"
		 "\"bad\":\"v2\",\"command\":\"true\"}");
	job_spec_release(&j);
}

static void test_job__release_words_are_not_options(void **state)
{
	char release[25], verdict[5];
	static const char answer[] =
		"{\"release\":\"-6.1.0-52\",\"verdict\":\"bad\"}";

	(void)state;
	assert_true(job_flavour_ok("cloud-amd64"));
	assert_true(job_flavour_ok("amd64"));
	assert_true(job_flavour_ok("6"));
	assert_false(job_flavour_ok("-amd64"));
	assert_false(job_flavour_ok("--help"));
	assert_false(job_flavour_ok("-"));
	assert_true(job_release_ok("6.1.0-47"));
	assert_false(job_release_ok("--1"));
	assert_false(job_release_ok("-6.1.0-47"));
	assert_false(job_release_ok(".1"));
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"--1\"],\"bad\":\"6.1.0-57\"}",
		"releases such as 6.1.0-47");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"-6.1.0-57\"}",
		"releases such as 6.1.0-47");
	refused("{\"type\":\"releases\",\"flavour\":\"-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\"}",
		"field 'flavour': '-amd64' is not a flavour");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"base_release\":\"--1\","
		"\"flavour\":\"cloud-amd64\"}",
		"'base_release' takes a release such as 6.1.0-47");
	refused("{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"a\"],"
		"\"bad\":\"b\",\"recipe\":\"tiny\","
		"\"base_release\":\"6.1.0-47\",\"flavour\":\"-amd64\"}",
		"'flavour' one such as cloud-amd64");
	assert_int_equal(
		job_answer_parse(answer, sizeof(answer) - 1, release, verdict),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "is not a release"));
}

/* json parsed, dumped and parsed again into back. */
static void round_trip(struct job_spec *back, const char *json)
{
	struct job_spec j;
	char *s;

	spec(&j, json);
	s = job_spec_dump(&j);
	assert_non_null(s);
	spec(back, s);
	free(s);
	job_spec_release(&j);
}

/* A releases job that goes on at the commit level, and the bisect job
 * it leads to: a kernel job with a Debian release's config. */
static void test_job__commit_level(void **state)
{
	struct job_spec back;

	(void)state;
	round_trip(&back, "{\"type\":\"releases\",\"flavour\":"
			  "\"cloud-amd64\",\"good\":[\"6.1.0-47\"],"
			  "\"bad\":\"6.1.0-57\",\"repo\":\"/r\","
			  "\"commit_recipe\":\"tiny\"}");
	assert_string_equal(back.repo, "/r");
	assert_string_equal(back.commit_recipe, "tiny");
	job_spec_release(&back);

	round_trip(&back, "{\"type\":\"bisect\",\"repo\":\"/r\","
			  "\"good\":[\"a\"],\"bad\":\"b\",\"recipe\":"
			  "\"debian-cloud-amd64\",\"base_release\":"
			  "\"6.1.0-47\",\"flavour\":\"cloud-amd64\","
			  "\"releases_job\":7}");
	assert_string_equal(back.base_release, "6.1.0-47");
	assert_string_equal(back.flavour, "cloud-amd64");
	assert_int_equal(back.releases_job, 7);
	job_spec_release(&back);

	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"base_release\":\"6.1.0-47\"}",
		"'flavour' is for releases jobs, or with 'base_release'");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"base_release\":\"v6.1\","
		"\"flavour\":\"cloud-amd64\"}",
		"'base_release' takes a release such as 6.1.0-47");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"command\":\"true\",\"base_release\":\"6.1.0-47\","
		"\"flavour\":\"cloud-amd64\"}",
		"for a kernel job with a 'recipe'");
	refused("{\"type\":\"test\",\"repo\":\"/r\",\"commit\":\"c\","
		"\"recipe\":\"tiny\",\"releases_job\":7}",
		"'releases_job' is for bisect jobs");
	refused("{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"a\"],"
		"\"bad\":\"b\",\"recipe\":\"tiny\","
		"\"commit_recipe\":\"tiny\"}",
		"'commit_recipe' is for releases jobs");
}

/* A manual releases job, and the answers its submitter sends. */
static void test_job__manual_releases(void **state)
{
	static const char ok[] =
		"{\"release\":\"6.1.0-52\",\"verdict\":\"bad\"}";
	const char *bad[][2] = {
		{ "{\"release\":\"6.1.0-52\",\"verdict\":\"maybe\"}",
		  "field 'verdict': 'maybe' is not good, bad or skip" },
		{ "{\"release\":\"v6.1\",\"verdict\":\"good\"}",
		  "field 'release': 'v6.1' is not a release such as 6.1.0-47" },
		{ "{\"release\":\"6.1.0-52\",\"verdict\":\"good\",\"x\":1}",
		  "an answer is {\"release\": ABI" },
		{ "{\"verdict\":\"good\"}", "an answer is" },
		{ "[]", "the body must be a JSON object" },
	};
	char release[25], verdict[5];
	struct job_spec back;
	size_t i;

	(void)state;
	round_trip(&back, "{\"type\":\"releases\",\"flavour\":"
			  "\"cloud-amd64\",\"good\":[\"6.1.0-47\"],"
			  "\"bad\":\"6.1.0-57\",\"manual\":true}");
	assert_true(back.manual);
	job_spec_release(&back);
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"manual\":true,\"test\":\"exit 0\"}",
		"a manual releases job boots nothing: no 'test' or 'repo'");
	refused("{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"answers\":\"6.1.0-50:good\"}",
		"'answers' are a manual releases job's");
	refused("{\"type\":\"bisect\",\"repo\":\"/r\",\"good\":[\"a\"],"
		"\"bad\":\"b\",\"recipe\":\"tiny\",\"manual\":true}",
		"'manual' is for releases jobs");

	assert_int_equal(job_answer_parse(ok, sizeof(ok) - 1, release, verdict),
			 0);
	assert_string_equal(release, "6.1.0-52");
	assert_string_equal(verdict, "bad");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(job_answer_parse(bad[i][0], strlen(bad[i][0]),
						  release, verdict),
				 ERR_INPUT);
		if (!strstr(err_last(), bad[i][1]))
			fail_msg("'%s': '%s' does not say '%s'", bad[i][0],
				 err_last(), bad[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_job__network_goes_to_workers_that_give_it),
		cmocka_unit_test(test_job__network_round_trips),
		cmocka_unit_test(test_job__kernel_bisections_have_a_confidence),
		cmocka_unit_test(test_job__network_is_for_commands),
		cmocka_unit_test(test_job__releases),
		cmocka_unit_test(test_job__refused_as_bisectctl_refuses),
		cmocka_unit_test(test_job__release_words_are_not_options),
		cmocka_unit_test(test_job__commit_level),
		cmocka_unit_test(test_job__manual_releases),
		cmocka_unit_test(test_job__metric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
