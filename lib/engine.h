/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bisection engine: git's bisection semantics over a commit DAG, and
 * with a confidence, the probability of each candidate being the first
 * bad commit when the failure does not show on every run; no I/O.
 * Commits are the indices 0..n-1 that the caller chose, given in
 * rev-list order (newest first); the caller keeps the map to object ids.
 */
#ifndef BISECTD_ENGINE_H
#define BISECTD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

struct engine;

enum engine_state {
	ENGINE_TEST,	  /* test the commit returned */
	ENGINE_FOUND,	  /* the returned commit is the first bad one */
	ENGINE_AMBIGUOUS, /* only skipped commits are left, or (with a
			     confidence) no run can decide, or max runs */
	ENGINE_NOTHING,	  /* no candidate at all: bad is reachable from good */
	ENGINE_VERIFY,	  /* run the returned commit to verify the culprit
			     (engine_next_many() gives all such runs) */
};

/*
 * A graph of n commits without edges.  The caller owns *out and releases
 * it with engine_free().
 */
int engine_new(struct engine **out, size_t n);
void engine_free(struct engine *e);

/* Record that parent is a parent of child; both must be < n. */
int engine_add_parent(struct engine *e, uint32_t child, uint32_t parent);

/*
 * Bisect to a confidence (0 < p < 1; 0, the default, is git's bisection
 * with no verification).  Until a pass and a failure disagree the probes
 * are git's; then the next run goes where it is expected to tell most,
 * and a culprit is found when its probability reaches p and it is
 * verified: it failed twice and each of its parents passed.  max_runs
 * (0: no limit) ends the bisection ambiguous when that many runs were
 * observed.
 */
void engine_set_confidence(struct engine *e, double p, unsigned long max_runs);

/*
 * A fix bisection: the runs the caller observes as failures are those
 * without the target failure, the "bad" commits those that hold the fix.
 * The noisy model's prior is then the mirror of a regression's: commits
 * with the fix (nearly) never show the failure, commits before it show
 * it at any rate.  Call before the first observation.
 */
void engine_set_fix(struct engine *e);

/*
 * The range's bad commit, as the user named it, with no run observed
 * (they come with engine_observe()); a pass of it is a contradiction.
 */
int engine_set_bad(struct engine *e, uint32_t commit);

/*
 * Record runs of commit: fails showed the target failure, passes were
 * clean.  For git's half, a commit with a failure is bad, one with only
 * passes good.
 */
int engine_observe(struct engine *e, uint32_t commit, unsigned fails,
		   unsigned passes);

/*
 * Record runs of a good commit (a good endpoint, which holds no
 * candidate): with a confidence, its failures tell how often the failure
 * shows before the culprit, and one makes the failure intermittent; they
 * rule nothing out.
 */
int engine_observe_good(struct engine *e, unsigned fails, unsigned passes);

/*
 * Record a verdict.  BAD moves the bad commit (the candidates become its
 * ancestors), GOOD removes the commit and its ancestors, SKIP keeps the
 * commit as a candidate that is never chosen.  Other verdicts are ignored,
 * and so are good and bad verdicts on commits that are no longer
 * candidates (results of parallel probes that another result overtook)
 * as far as git's half goes.  GOOD and BAD are one run of engine_observe().
 */
int engine_mark(struct engine *e, uint32_t commit, enum verdict v);

/*
 * Decide the next move.  For ENGINE_TEST and ENGINE_FOUND *out is the
 * commit; otherwise it is left alone.
 */
enum engine_state engine_next(struct engine *e, uint32_t *out);

/*
 * Choose up to want commits to test at once (one per idle worker), so
 * that they split the candidates into want + 1 parts of nearly equal
 * weight: the commits whose weights are nearest k * N / (want + 1) for
 * k = 1 .. want.  Returns how many were written to out (fewer when there
 * are fewer untested candidates); 0 when engine_next() would not say
 * ENGINE_TEST.
 */
size_t engine_next_many(struct engine *e, uint32_t *out, size_t want);

/*
 * Like engine_next_many(), when the busy commits are already being
 * tested: up to want more commits that fill the widest gaps that the busy
 * ones (those still untested candidates) leave between weight 0 and N.
 * With no busy candidate it is engine_next_many().
 */
size_t engine_next_more(struct engine *e, const uint32_t *busy, size_t nbusy,
			uint32_t *out, size_t want);

/*
 * The current candidates (the bad commit included) in rev-list order;
 * once the failure proved intermittent, the fewest commits that hold 99%
 * of the probability, most probable first.
 */
size_t engine_candidates(struct engine *e, uint32_t *out, size_t max);
size_t engine_candidate_count(struct engine *e);

/* 1 when commit is a candidate that has no verdict yet. */
int engine_is_candidate(struct engine *e, uint32_t commit);

/* A pass and a failure disagreed: the failure is intermittent. */
int engine_is_noisy(const struct engine *e);
unsigned long engine_runs(const struct engine *e);
/* The probability that commit is the first bad one (with a confidence). */
double engine_probability(struct engine *e, uint32_t commit);
/* The expected failure rate of a bad commit, learned from the runs. */
double engine_failure_rate(struct engine *e);
/* The same before the culprit: how often a good commit fails too. */
double engine_failure_rate_before(struct engine *e);
/* Target failures seen on commits that do not hold c, good ones too. */
unsigned long engine_failures_before(struct engine *e, uint32_t c);

/* ceil(log2(n)): the steps that an ideal bisection of n candidates takes. */
unsigned engine_estimate_steps(size_t n);

/* The weight (candidate ancestors, itself included) of commit; test aid. */
size_t engine_weight(struct engine *e, uint32_t commit);

/*
 * Metric mode (lib/metric.c): a performance regression.  Each run gives
 * values (a time, a throughput: a benchmark's measurements, not the
 * coordinator's Prometheus metrics) instead of a pass or a failure; the
 * values before the culprit and after it are drawn from two robust
 * (Student-t) distributions whose locations differ by a regression of at
 * least min_change (a fraction: 0.05 for 5%).  Call engine_set_metric()
 * before any run, then engine_set_bad() (the range's top),
 * engine_set_confidence() (p > 0) and the good endpoint's values with
 * engine_observe_baseline() (at least 3: the verification of a root
 * culprit compares against them).  engine_next() and engine_next_many()
 * then ask for the bad endpoint until it has 3 values, then for the
 * commit whose run tells most; ENGINE_VERIFY asks for runs of the
 * culprit and its parents; ENGINE_FOUND when the culprit's probability
 * reaches the confidence and its median is worse than each parent's
 * (each with 5 values or more, the baseline 3); ENGINE_AMBIGUOUS at max runs or when
 * the medians still disagree at 12 values.  engine_observe() and
 * engine_mark(GOOD/BAD) are refused in this mode; SKIP is allowed.
 */
int engine_set_metric(struct engine *e, int higher_is_better,
		      double min_change);
int engine_is_metric(const struct engine *e);
/* Values (positive, finite) of one run of commit; the caller keeps v. */
int engine_observe_values(struct engine *e, uint32_t commit, const double *v,
			  size_t n);
/* Values of one run of the good endpoint, outside the graph. */
int engine_observe_baseline(struct engine *e, const double *v, size_t n);
/* Runs observed in metric mode, baseline included. */
unsigned long engine_metric_runs(const struct engine *e);
/* The probability that there is no change at all. */
double engine_metric_null_probability(struct engine *e);
/* The values of commit, borrowed until the next observation. */
size_t engine_metric_values(const struct engine *e, uint32_t commit,
			    const double **out);
/* Medians of commit's values and of the baseline's; NAN for none. */
double engine_metric_median(const struct engine *e, uint32_t commit);
double engine_metric_baseline_median(const struct engine *e);

struct engine_metric_summary {
	double probability;	 /* of the commit being the culprit */
	double null_probability; /* of no change at all */
	/* medians of the values of the commits without it (the baseline
	 * included) and with it */
	double median_before, median_after;
	/* the relative change of the typical value, after / before - 1,
	 * and its 95% interval (from the Student-t fit on log values) */
	double change, change_lo, change_hi;
	size_t runs_before, runs_after; /* values each side */
};

/* The report of commit c as the culprit. */
int engine_metric_summary(struct engine_metric_summary *out, struct engine *e,
			  uint32_t c);

/*
 * Two samples of a metric, without and with a change (bisectctl verify
 * --metric: a commit without and with a patch), by the same Student-t
 * fit on log values as the bisection.  change is the typical value's
 * v1 / v0 - 1 with its 95% interval; the verdict is BETTER when the
 * whole interval is a gain of min_change or more in the metric's
 * direction, NOT_BETTER when none of it is, UNCLEAR otherwise (more runs
 * would tell).  ERR_INPUT for a side without values or a value that is
 * not positive and finite.
 */
enum metric_verdict { METRIC_UNCLEAR, METRIC_BETTER, METRIC_NOT_BETTER };
struct metric_change {
	double median0, median1;
	double change, change_lo, change_hi;
	size_t n0, n1;
	enum metric_verdict verdict;
};
int metric_compare(struct metric_change *out, const double *v0, size_t n0,
		   const double *v1, size_t n1, int higher_is_better,
		   double min_change);

#endif
