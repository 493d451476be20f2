/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simulated bisections for the engine's tests and benchmark: random
 * commit DAGs with merges, a planted first bad commit, and runs that show
 * the failure with a given probability on the commits that contain it.
 */
#ifndef BISECTD_SIMBISECT_H
#define BISECTD_SIMBISECT_H

#include <stddef.h>
#include <stdint.h>

struct sim_dag {
	size_t n;	    /* commits, newest (the bad endpoint) first */
	uint32_t (*par)[2]; /* parents, older commits have larger indices */
	uint8_t *npar;
};

/* A DAG of n commits with side branches merged back; free with _free. */
int sim_dag_new(struct sim_dag *out, size_t n, uint64_t *rng);
void sim_dag_free(struct sim_dag *d);

uint64_t sim_rand(uint64_t *rng);
double sim_uniform(uint64_t *rng);

struct sim_result {
	int found;	    /* the engine named a culprit */
	uint32_t culprit;   /* it, when found */
	double confidence;  /* its probability (found or best) */
	unsigned long runs; /* all runs, endpoint included */
	unsigned long endpoint_runs;
	int not_reproduced; /* the bad endpoint never failed */
	int noisy;	    /* the engine switched to the noisy model */
};

/*
 * Bisect d for culprit with failure rate q (p0 before it: a good commit
 * fails too at that rate): the bad endpoint is run
 * until it failed 3 times or ran 10 times, then the engine's probes, w at
 * a time (each one run), until it ends.  confidence 0 is git's bisection
 * with the all-runs rule: every step runs `runs` times and is good only
 * if all pass (the endpoint too).
 */
int sim_bisect(struct sim_result *out, const struct sim_dag *d,
	       uint32_t culprit, double q, double p0, size_t w,
	       double confidence, unsigned runs, uint64_t *rng);
/*
 * A fix bisection of d: commits that hold fix show the failure at rate
 * after, the others at rate before (> after).  The engine is told the
 * runs without the failure as its failures (engine_set_fix()), so its
 * "culprit" is the fix; confidence > 0.
 */
int sim_bisect_fix(struct sim_result *out, const struct sim_dag *d,
		   uint32_t fix, double before, double after, size_t w,
		   double confidence, uint64_t *rng);
/* Either of the two above: fix set, q and p0 are the engine's rates. */
int sim_bisect_mode(struct sim_result *out, const struct sim_dag *d,
		    uint32_t culprit, double q, double p0, size_t w,
		    double confidence, unsigned runs, int fix, uint64_t *rng);

/*
 * A performance regression: runs of a commit give one value, lognormal
 * about 1 (before the culprit) or 1 + shift (from it on; a slowdown,
 * lower is better) with coefficient of variation cv; a share outliers
 * of the runs give three times their value.  The good endpoint is run 3
 * times, then the engine (metric mode, min_change 0) asks for runs until
 * it ends; runs counts all of them.
 */
struct sim_metric {
	double shift, cv, outliers, confidence, min_change;
	size_t w;
	unsigned long max_runs;
};
int sim_metric_bisect(struct sim_result *out, const struct sim_dag *d,
		      uint32_t culprit, const struct sim_metric *p,
		      uint64_t *rng);
double sim_normal(uint64_t *rng);

#endif
