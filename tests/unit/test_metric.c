// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the engine's metric mode (lib/metric.c) on simulated
 * values: the planted culprit found on DAGs with merges, outliers at 3x
 * tolerated, no change ending ambiguous, the direction and the minimum
 * change honoured, and the report's summary.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "error.h"
#include "simbisect.h"

/* A linear history of n commits (0 the newest) in metric mode. */
static struct engine *line_engine(size_t n, int higher, double min_change)
{
	struct engine *e;
	size_t i;

	assert_int_equal(engine_new(&e, n), 0);
	for (i = 0; i + 1 < n; i++)
		assert_int_equal(
			engine_add_parent(e, (uint32_t)i, (uint32_t)(i + 1)),
			0);
	assert_int_equal(engine_set_metric(e, higher, min_change), 0);
	assert_int_equal(engine_set_bad(e, 0), 0);
	engine_set_confidence(e, 0.95, 400);
	return e;
}

/* Drive e to its end: value(c) = base (x after when c <= culprit). */
static enum engine_state drive(struct engine *e, int64_t culprit, double base,
			       double after, double cv, uint64_t *rng,
			       uint32_t *out)
{
	enum engine_state st;
	uint32_t pick = 0;
	double v;
	int i;

	for (i = 0; i < 3; i++) {
		v = base * (1 + cv * sim_normal(rng));
		assert_int_equal(engine_observe_baseline(e, &v, 1), 0);
	}
	for (;;) {
		st = engine_next(e, &pick);
		if (st != ENGINE_TEST && st != ENGINE_VERIFY)
			break;
		v = ((int64_t)pick <= culprit ? after : base) *
		    (1 + cv * sim_normal(rng));
		assert_int_equal(engine_observe_values(e, pick, &v, 1), 0);
	}
	*out = pick;
	return st;
}

static void test_metric__line_found(void **state)
{
	uint64_t rng = 42;
	uint32_t got;
	struct engine *e = line_engine(100, 0, 0);

	(void)state;
	assert_int_equal(drive(e, 37, 10, 12, 0.03, &rng, &got), ENGINE_FOUND);
	assert_int_equal(got, 37);
	assert_true(engine_probability(e, 37) >= 0.95);
	engine_free(e);
}

static void test_metric__summary(void **state)
{
	struct engine_metric_summary s;
	uint64_t rng = 7;
	uint32_t got;
	struct engine *e = line_engine(50, 0, 0.05);

	(void)state;
	assert_int_equal(drive(e, 20, 100, 120, 0.02, &rng, &got),
			 ENGINE_FOUND);
	assert_int_equal(got, 20);
	assert_int_equal(engine_metric_summary(&s, e, got), 0);
	assert_true(fabs(s.median_before - 100) < 3);
	assert_true(fabs(s.median_after - 120) < 3);
	assert_true(s.change_lo < 0.2 && s.change_hi > 0.2);
	assert_true(s.change_lo > 0.1 && s.change_hi < 0.3);
	assert_true(s.runs_before >= 3 && s.runs_after >= 3);
	/* the verification: the culprit and its parent have 3 values */
	assert_true(engine_metric_values(e, 20, &(const double *){ 0 }) >= 3);
	assert_true(engine_metric_values(e, 21, &(const double *){ 0 }) >= 3);
	assert_true(engine_metric_median(e, 20) > engine_metric_median(e, 21));
	engine_free(e);
}

static void test_metric__higher_is_better(void **state)
{
	uint64_t rng = 9;
	uint32_t got;
	struct engine *e = line_engine(80, 1, 0);

	(void)state;
	/* a throughput that drops by 20% */
	assert_int_equal(drive(e, 60, 1000, 800, 0.03, &rng, &got),
			 ENGINE_FOUND);
	assert_int_equal(got, 60);
	engine_free(e);
	/* the same drop, lower is better: an improvement, no culprit */
	rng = 9;
	e = line_engine(80, 0, 0);
	assert_int_not_equal(drive(e, 60, 1000, 800, 0.03, &rng, &got),
			     ENGINE_FOUND);
	engine_free(e);
}

static void test_metric__no_change_ambiguous(void **state)
{
	uint64_t rng = 5;
	uint32_t got;
	int k, found = 0;

	(void)state;
	for (k = 0; k < 5; k++) {
		struct engine *e = line_engine(60, 0, 0);

		found += drive(e, -1, 10, 10, 0.03, &rng, &got) == ENGINE_FOUND;
		engine_free(e);
	}
	assert_int_equal(found, 0);
}

static void test_metric__below_min_change(void **state)
{
	uint64_t rng = 3;
	uint32_t got;
	struct engine *e = line_engine(60, 0, 0.10);

	(void)state;
	/* +3% when only 10% counts */
	assert_int_not_equal(drive(e, 30, 10, 10.3, 0.01, &rng, &got),
			     ENGINE_FOUND);
	engine_free(e);
}

/* On DAGs with merges, with and without outliers at 3x. */
static void dags(double shift, double cv, double outliers, unsigned jobs,
		 unsigned *right, unsigned *found)
{
	struct sim_metric p = { .shift = shift,
				.cv = cv,
				.outliers = outliers,
				.confidence = 0.95,
				.w = 1,
				.max_runs = 600 };
	uint64_t rng = 1234;
	unsigned k;

	*right = *found = 0;
	for (k = 0; k < jobs; k++) {
		struct sim_dag d;
		struct sim_result r;
		uint32_t culprit;

		assert_int_equal(sim_dag_new(&d, 80, &rng), 0);
		culprit = (uint32_t)(sim_rand(&rng) % d.n);
		assert_int_equal(sim_metric_bisect(&r, &d, culprit, &p, &rng),
				 0);
		*found += r.found;
		*right += r.found && r.culprit == culprit;
		sim_dag_free(&d);
	}
}

static void test_metric__dags(void **state)
{
	unsigned right, found;

	(void)state;
	dags(0.20, 0.03, 0, 30, &right, &found);
	assert_true(found >= 28 && right == found);
}

static void test_metric__outliers_tolerated(void **state)
{
	unsigned right, found;

	(void)state;
	/* 5% of the runs 3x too slow: a normal model (NU large) names a
	 * wrong culprit here (22 right of 23 found), the t model does not */
	dags(0.20, 0.03, 0.05, 30, &right, &found);
	assert_true(found >= 22 && right == found);
}

static void test_metric__bad_input(void **state)
{
	struct engine *e;
	double v = NAN, w = -1, ok = 1;

	(void)state;
	assert_int_equal(engine_new(&e, 4), 0);
	assert_int_equal(engine_observe_values(e, 0, &ok, 1), ERR_GENERIC);
	assert_int_equal(engine_set_metric(e, 0, 1.5), ERR_INPUT);
	assert_int_equal(engine_set_metric(e, 0, 0.05), 0);
	assert_int_equal(engine_observe_values(e, 0, &v, 1), ERR_INPUT);
	assert_int_equal(engine_observe_values(e, 0, &w, 1), ERR_INPUT);
	assert_int_equal(engine_observe_values(e, 9, &ok, 1), ERR_INPUT);
	assert_int_equal(engine_observe(e, 0, 1, 0), ERR_GENERIC);
	assert_int_equal(engine_observe_values(e, 0, &ok, 1), 0);
	assert_int_equal(engine_set_metric(e, 1, 0), ERR_GENERIC);
	engine_free(e);
}

/* verify --metric's comparison: a patch's effect, without and with */
static void test_metric__compare(void **state)
{
	const double base[] = { 100, 102, 98, 101, 99 };
	const double fast[] = { 88, 90, 87, 89, 91 };
	const double same[] = { 101, 99, 100, 98, 102 };
	const double slow[] = { 110, 112, 109, 111, 113 };
	struct metric_change c;

	(void)state;
	assert_int_equal(metric_compare(&c, base, 5, fast, 5, 0, 0), 0);
	assert_int_equal(c.verdict, METRIC_BETTER);
	assert_true(c.change < -0.09 && c.change > -0.13);
	assert_true(c.change_lo < c.change && c.change < c.change_hi);
	assert_true(c.change_hi < 0);
	assert_true(c.median0 == 100 && c.median1 == 89);
	assert_true(c.n0 == 5 && c.n1 == 5);
	/* the same values are a loss when higher is better */
	assert_int_equal(metric_compare(&c, base, 5, fast, 5, 1, 0), 0);
	assert_int_equal(c.verdict, METRIC_NOT_BETTER);
	/* a gain of 10% is not one of 20% */
	assert_int_equal(metric_compare(&c, base, 5, fast, 5, 0, 0.2), 0);
	assert_int_equal(c.verdict, METRIC_NOT_BETTER);
	/* no effect: unclear at min_change 0, not better at 5% */
	assert_int_equal(metric_compare(&c, base, 5, same, 5, 0, 0), 0);
	assert_int_equal(c.verdict, METRIC_UNCLEAR);
	assert_true(c.change_lo < 0 && c.change_hi > 0);
	assert_int_equal(metric_compare(&c, base, 5, same, 5, 0, 0.05), 0);
	assert_int_equal(c.verdict, METRIC_NOT_BETTER);
	assert_int_equal(metric_compare(&c, base, 5, slow, 5, 0, 0), 0);
	assert_int_equal(c.verdict, METRIC_NOT_BETTER);
	assert_true(c.change_lo > 0.05);
	/* higher is better: the slower side is the better one */
	assert_int_equal(metric_compare(&c, base, 5, slow, 5, 1, 0), 0);
	assert_int_equal(c.verdict, METRIC_BETTER);
	assert_int_equal(metric_compare(&c, base, 0, fast, 5, 0, 0), ERR_INPUT);
	assert_int_equal(metric_compare(&c, base, 5, fast, 5, 0, 1.5),
			 ERR_INPUT);
}

/*
 * The interval holds the true change as often as it says: 5 runs a
 * side at 5% noise, a true change of -10%, 2,000 draws.
 */
static void test_metric__compare_coverage(void **state)
{
	uint64_t rng = 7;
	double v0[5], v1[5];
	unsigned covered = 0, better = 0, i, k;
	struct metric_change c;

	(void)state;
	for (i = 0; i < 2000; i++) {
		for (k = 0; k < 5; k++) {
			v0[k] = 1.0 * exp(0.05 * sim_normal(&rng));
			v1[k] = 0.9 * exp(0.05 * sim_normal(&rng));
		}
		assert_int_equal(metric_compare(&c, v0, 5, v1, 5, 0, 0), 0);
		covered += c.change_lo <= -0.1 && -0.1 <= c.change_hi;
		better += c.verdict == METRIC_BETTER;
	}
	print_message("compare: %u of 2000 intervals hold -10%%, %u better\n",
		      covered, better);
	assert_true(covered >= 1860); /* 93% */
	assert_true(better >= 1500);  /* the power of 5 runs a side: 83% */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric__line_found),
		cmocka_unit_test(test_metric__summary),
		cmocka_unit_test(test_metric__higher_is_better),
		cmocka_unit_test(test_metric__no_change_ambiguous),
		cmocka_unit_test(test_metric__below_min_change),
		cmocka_unit_test(test_metric__dags),
		cmocka_unit_test(test_metric__outliers_tolerated),
		cmocka_unit_test(test_metric__bad_input),
		cmocka_unit_test(test_metric__compare),
		cmocka_unit_test(test_metric__compare_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
