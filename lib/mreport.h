/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report of a metric bisection (a performance regression,
 * lib/metric.c), one for bisectctl run --metric and bisectd: built once
 * as JSON from the engine (mreport_json), and written as text from that
 * JSON (mreport_text), so that a local run and a job of bisectd say the
 * same thing.  Not the coordinator's Prometheus /metrics.
 */
#ifndef BISECTD_MREPORT_H
#define BISECTD_MREPORT_H

#include <stdint.h>

#include "buf.h"
#include "engine.h"
#include "gitutil.h"

struct json_t;

struct mreport_opts {
	const char *name; /* the metric's */
	const char *unit; /* "" when none */
	int higher;	  /* higher is better */
	double min_change, confidence;
	unsigned long runs, skips; /* every run, and those without a value */
};

/*
 * The report as a JSON object (the caller owns it; NULL when out of
 * memory): result ("found" or "ambiguous"), metric, direction, unit,
 * min_change, confidence, runs, skips, culprit (or most_probable),
 * summary (probabilities, medians before and after, change with its
 * interval, values each side), verification (the culprit's median
 * against each parent's, the baseline for a root), baseline_median and
 * commits (each tested commit of g in history order: commit, subject,
 * median, values, the list of values and whether it holds the culprit).
 * st is the engine's last answer and pick its commit.  repo gives the
 * subjects (NULL: none).
 */
struct json_t *mreport_json(struct engine *e, const struct gu_graph *g,
			    struct gu_repo *repo, const struct mreport_opts *o,
			    enum engine_state st, uint32_t pick);

/* The report as text, from mreport_json()'s object. */
int mreport_text(struct buf *b, struct json_t *r);

#endif
