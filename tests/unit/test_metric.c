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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
