// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the linear bisection that releases and Debian's
 * patches share (worker/releases.c, releases_linear): the first bad
 * candidate with and without a confidence, a bad end that does not
 * fail or does not boot, and candidates that cannot be told apart;
 * and the words that reach APT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "releases.h"
#include "util.h"

/* candidates newest first: bad from 0 to first_bad, skipped in skip */
struct fake {
	long first_bad;
	unsigned skip; /* bit i: candidate i does not boot */
	unsigned probes;
	char names[8][8];
};

static int fake_probe(void *ctx, size_t i, int runs, unsigned *fails,
		      unsigned *passes, unsigned *skips)
{
	struct fake *f = ctx;

	f->probes++;
	*fails = *passes = *skips = 0;
	if (f->skip & (1u << i))
		*skips = (unsigned)runs;
	else if ((long)i <= f->first_bad)
		*fails = (unsigned)runs;
	else
		*passes = (unsigned)runs;
	return 0;
}

static const char *fake_name(void *ctx, size_t i)
{
	struct fake *f = ctx;

	snprintf(f->names[i], sizeof(f->names[i]), "c%zu", i);
	return f->names[i];
}

static const char *fake_title(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return "no console";
}

static struct linear_probe lp_of(struct fake *f, size_t n, double confidence)
{
	struct linear_probe lp = { .n = n,
				   .confidence = confidence,
				   .runs = 1,
				   .what = "commit",
				   .probe = fake_probe,
				   .name = fake_name,
				   .title = fake_title,
				   .ctx = f };
	return lp;
}

static void test_releases__the_first_bad_one(void **state)
{
	double confidences[] = { 0, 0.95 };
	long culprit;
	double c;
	size_t k;
	long at;

	(void)state;
	for (k = 0; k < 2; k++)
		for (at = 0; at < 6; at++) {
			struct fake f = { .first_bad = at };
			struct linear_probe lp = lp_of(&f, 6, confidences[k]);

			assert_int_equal(releases_linear(&lp, &culprit, &c), 0);
			assert_int_equal(culprit, at);
			if (confidences[k] > 0)
				assert_true(c >= 0.95);
			else
				assert_true(c == 0);
		}
}

static void test_releases__a_bad_end_that_does_not_fail(void **state)
{
	struct fake f = { .first_bad = -1 };
	struct linear_probe lp = lp_of(&f, 4, 0.95);
	long culprit;
	double c;

	(void)state;
	assert_int_equal(releases_linear(&lp, &culprit, &c), ERR_INPUT);
	assert_string_equal(err_last(), "the bad commit c0 does not fail in 10 "
					"boots: nothing to bisect");
	assert_int_equal(culprit, -1);
	f.skip = 1;
	assert_int_equal(releases_linear(&lp, &culprit, &c), ERR_INPUT);
	assert_string_equal(err_last(),
			    "the bad commit c0 does not boot: no console");
}

static void test_releases__skips_that_leave_no_answer(void **state)
{
	/* c1 and c2 do not boot, c2 is the first bad one: c0, c1 or c2 */
	struct fake f = { .first_bad = 2, .skip = 6 };
	struct linear_probe lp = lp_of(&f, 4, 0);
	long culprit;
	double c;

	(void)state;
	assert_int_equal(releases_linear(&lp, &culprit, &c), 0);
	assert_int_equal(culprit, -1);
	assert_string_equal(lp.why, "only commits that do not boot are left, "
				    "or no run can decide");
}

/*
 * A flavour or a release that would be an option to APT is refused
 * before APT runs, whoever calls.
 */
static void test_releases__words_that_would_be_options(void **state)
{
	char dir[] = "/tmp/test-releases.XXXXXX", *deb = NULL, *out;
	struct releases_opts o = { .flavour = "cloud-amd64",
				   .good = "--1",
				   .bad = "6.1.0-57",
				   .cache = dir };
	int found = 1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	out = util_fmt("%s/out", dir);
	o.out_dir = out;
	assert_int_equal(releases_package(dir, "-amd64", "6.1.0-47", out, &deb),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "'-amd64' is not a flavour"));
	assert_null(deb);
	assert_int_equal(releases_package(dir, "cloud-amd64", "--1", out, &deb),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "'--1' is not a release"));
	assert_int_equal(releases_bisect(&o, &found), ERR_INPUT);
	assert_non_null(strstr(err_last(), "'--1' is not a release"));
	assert_int_equal(found, 0);
	o.good = "6.1.0-47";
	o.flavour = "-amd64";
	assert_int_equal(releases_bisect(&o, &found), ERR_INPUT);
	assert_non_null(strstr(err_last(), "is not a flavour"));
	/* nothing ran: APT's logs would be in out */
	assert_int_equal(access(out, F_OK), -1);
	util_remove_tree(dir);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_releases__the_first_bad_one),
		cmocka_unit_test(test_releases__a_bad_end_that_does_not_fail),
		cmocka_unit_test(test_releases__skips_that_leave_no_answer),
		cmocka_unit_test(test_releases__words_that_would_be_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
