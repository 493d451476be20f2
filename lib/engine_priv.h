/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's state, shared by its two halves: engine.c (the graph and
 * git's deterministic bisection) and noisy.c (the probability of each
 * candidate under runs that may pass on a bad commit), and metric.c
 * (values in place of passes and failures).  Only those three files
 * include this header.
 */
#ifndef BISECTD_ENGINE_PRIV_H
#define BISECTD_ENGINE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct engine {
	size_t n;
	/* parents as per-commit growable arrays */
	uint32_t **par;
	uint32_t *npar, *cappar;
	uint32_t *topo; /* parents-first order, computed on first use */
	uint8_t *good_reach, *skipped, *in_c;
	uint32_t *weight, *seen, stamp;
	uint32_t *stack;
	int64_t bad;   /* -1 until a bad commit is marked */
	int64_t bad0;  /* the first bad commit marked: the range's top */
	int dirty;     /* candidates and weights need recomputing */
	int det_found; /* git's half has found a culprit; -1: not known */
	size_t nc;     /* candidate count when !dirty */

	/* observations: runs of the target failure and clean passes */
	uint32_t *fails, *passes;
	/* runs of good commits, which hold no candidate: they tell p0 */
	uint32_t good_fails, good_passes;
	uint8_t *pass_reach; /* an ancestor of (or) a commit that passed */
	unsigned long runs;
	int noisy; /* a pass and a failure disagreed: noisy model from now */
	int fix;   /* the prior of a fix bisection (engine_set_fix()) */
	double confidence;
	unsigned long max_runs; /* 0: no limit */
	/* the posterior, when !post_dirty */
	int post_dirty;
	double *post;  /* P(first bad commit = c) */
	double *qbar;  /* E[failure rate from c on | c] */
	double *q0bar; /* E[failure rate before c | c] */
	double *mass;  /* sum of post over the ancestors of c (c included) */
	double *gain;  /* expected information of one run at c, in bits */
	/* scratch, summed over the ancestors of c: post * qbar, post *
	 * q0bar and post * H(q0bar) */
	double *s1, *s0, *h0;
	uint32_t *fc, *pc; /* failures and passes of the commits holding c */
	uint8_t *range;	   /* an ancestor of bad0 (or bad0) */
	struct metric *metric; /* metric mode (metric.c); NULL: runs fail
				  or pass */
};

/* The parents-first order and candidates of the deterministic half. */
int engine_refresh(struct engine *e);
/* Visit c and its ancestors once each: fn returns nonzero to stop there. */
void engine_walk_ancestors(struct engine *e, uint32_t c,
			   void (*fn)(struct engine *e, uint32_t x,
				      void *payload),
			   void *payload);
uint32_t engine_next_stamp(struct engine *e);
/*
 * Up to want commits with the most gain (at least min_gain; allowed, when
 * not NULL, says which may be chosen; skipped ones never are), each one's
 * mass at least 1 / 2(nbusy + want + 1) from the busy ones' and the
 * others chosen: W probes that split the probability differently.
 */
size_t engine_pick_spread(struct engine *e, const double *gain,
			  const double *mass, const uint8_t *allowed,
			  double min_gain, const uint32_t *busy, size_t nbusy,
			  uint32_t *out, size_t want);

/* noisy.c */
int engine_noisy_alloc(struct engine *e);
void engine_noisy_free(struct engine *e);
/* Record runs; switches to the noisy model on a contradiction. */
void engine_noisy_observe(struct engine *e, uint32_t c, unsigned fails,
			  unsigned passes);
enum engine_state engine_noisy_next(struct engine *e, uint32_t *out);
size_t engine_noisy_pick(struct engine *e, const uint32_t *busy, size_t nbusy,
			 uint32_t *out, size_t want);
/* A run of c can still change the answer, or verifies it. */
int engine_noisy_useful(struct engine *e, uint32_t c);
size_t engine_noisy_candidates(struct engine *e, uint32_t *out, size_t max);

/* metric.c */
int engine_metric_alloc(struct engine *e);
void engine_metric_free(struct engine *e);
enum engine_state engine_metric_next(struct engine *e, uint32_t *out);
size_t engine_metric_pick(struct engine *e, const uint32_t *busy, size_t nbusy,
			  uint32_t *out, size_t want);
int engine_metric_useful(struct engine *e, uint32_t c);
size_t engine_metric_candidates(struct engine *e, uint32_t *out, size_t max);
double engine_metric_probability(struct engine *e, uint32_t c);

#endif
