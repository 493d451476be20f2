// SPDX-License-Identifier: GPL-2.0-only
/*
 * The planning of a metric bisection (a performance regression,
 * lib/metric.c; not the coordinator's Prometheus /metrics): the
 * engine's metric mode rebuilt from every step's values, as
 * sched_bisect.c does for failures.
 *
 * Design.  The good endpoint (the first good) runs BASELINE_RUNS times
 * with values first: the baseline.  Then each round asks the engine for
 * the next commit (ENGINE_TEST) or for more values of the culprit and
 * its parents (ENGINE_VERIFY), one step at a time: a value depends on
 * the values before it only through the engine, and the engine's next
 * question depends on every answer.  A step without a value (the run
 * failed, printed none) is a skip.  Steps never come from the result
 * cache, nor go into it: every run is a new measurement.  The job ends
 * found (the engine's culprit, verified by its values against its
 * parents') or ambiguous, with lib/mreport.c's report in its outcome.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "mreport.h"
#include "scheduler.h"
#include "step.h"
#include "util.h"
#include "verdict.h"
#include "sched_priv.h"

#define BASELINE_RUNS 3
#define DEFAULT_MAX_RUNS 300

/* What the steps so far hold, besides the engine's evidence. */
struct tally {
	unsigned baseline, baseline_skips; /* runs of the good endpoint */
	unsigned bad_skips;		   /* runs of the bad one, no value */
	unsigned long runs, skips;	   /* every run, those without value */
	int pending;			   /* a step queued or leased */
	char why[256];			   /* the last skip's title */
	char unit[17];			   /* the first step's with one */
};

static int is_baseline(const struct plan *p, const struct store_step *st)
{
	return !strcmp(st->role, "endpoint") &&
	       !strcmp(st->hex, p->jc->spec.good[0]);
}

/* One done step into the engine (and the tally). */
static void observe(struct plan *p, struct engine *e, struct tally *t,
		    const struct store_step *st)
{
	struct step_result r;
	struct gu_oid oid;
	long idx = -1;

	if (!st->result || step_result_parse(&r, st->result))
		return;
	if (r.verdict == VERDICT_INFRA || r.verdict == VERDICT_NONE) {
		step_result_release(&r);
		return;
	}
	if (!is_baseline(p, st) && !gu_oid_parse(&oid, st->hex))
		idx = gu_graph_find(&p->jc->graph, &oid);
	t->runs++;
	if (!t->unit[0])
		memcpy(t->unit, r.unit, sizeof(t->unit));
	if (!r.nvalues) {
		t->skips++;
		snprintf(t->why, sizeof(t->why), "%s", r.title ? r.title : "");
	}
	if (is_baseline(p, st)) {
		if (r.nvalues &&
		    !engine_observe_baseline(e, r.values, r.nvalues))
			t->baseline++;
		else
			t->baseline_skips++;
	} else if (idx >= 0 && r.nvalues) {
		engine_observe_values(e, (uint32_t)idx, r.values, r.nvalues);
	} else if (idx >= 0) {
		engine_mark(e, (uint32_t)idx, VERDICT_SKIP);
		t->bad_skips += !strcmp(st->hex, p->jc->spec.bad);
	}
	step_result_release(&r);
}

/* The engine in metric mode from every done step; NULL when out of
 * memory.  t (may be NULL) gets what the steps hold. */
struct engine *sched_metric_engine(struct plan *p, struct tally *t)
{
	const struct job_spec *sp = &p->jc->spec;
	const struct gu_graph *g = &p->jc->graph;
	struct tally own;
	struct engine *e;
	struct gu_oid bad;
	size_t i;

	t = t ? t : &own;
	memset(t, 0, sizeof(*t));
	if (engine_new(&e, g->n))
		return NULL;
	for (i = 0; i < g->nedges; i++)
		engine_add_parent(e, g->edge_child[i], g->edge_parent[i]);
	gu_oid_parse(&bad, sp->bad);
	if (engine_set_metric(e, sp->metric_higher, sp->metric_min_change) ||
	    engine_set_bad(e, (uint32_t)gu_graph_find(g, &bad))) {
		engine_free(e);
		return NULL;
	}
	engine_set_confidence(e, sp->confidence,
			      sp->max_runs ? (unsigned long)sp->max_runs
					   : DEFAULT_MAX_RUNS);
	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];

		if (st->state == STEP_QUEUED || st->state == STEP_LEASED)
			t->pending = 1;
		if (st->state == STEP_DONE)
			observe(p, e, t, st);
	}
	return e;
}

/* Queue one run of hex: never from the cache, never into it. */
static int enqueue_run(struct plan *p, const char *hex, const char *role,
		       long long candidates)
{
	long long id;
	int rc;

	if (p->active >= p->slots)
		return 0;
	rc = store_step_insert(p->s->store, &id, p->jc->id, hex, role, p->round,
			       candidates, "");
	if (!rc)
		rc = sched_remember(p, id);
	if (!rc)
		p->active++;
	return rc;
}

/* The outcome: the engine's answer with lib/mreport.c's report. */
static char *outcome_json(struct plan *p, struct engine *e,
			  enum engine_state st, uint32_t pick,
			  const struct tally *t)
{
	const struct job_spec *sp = &p->jc->spec;
	const struct mreport_opts o = { .name = sp->metric_name,
					.unit = t->unit,
					.higher = sp->metric_higher,
					.min_change = sp->metric_min_change,
					.confidence = sp->confidence,
					.runs = t->runs,
					.skips = t->skips };
	json_t *m = mreport_json(e, &p->jc->graph, p->jc->repo, &o, st, pick);
	json_t *s = json_object_get(m, "summary"), *cands = json_array(), *x;
	char hex[GU_HEXSZ + 1], *out;
	uint32_t idx[10];
	size_t n, i;

	if (!m || !cands) {
		json_decref(m);
		json_decref(cands);
		return NULL;
	}
	n = engine_candidates(e, idx, 10);
	for (i = 0; i < n; i++) {
		gu_oid_hex(hex, &p->jc->graph.oids[idx[i]]);
		json_array_append_new(cands,
				      json_pack("{s:s, s:f}", "commit", hex,
						"probability",
						engine_probability(e, idx[i])));
	}
	x = json_pack("{s:f, s:f, s:b, s:s, s:I, s:o, s:[], s:o}", "confidence",
		      json_number_value(json_object_get(s, "probability")),
		      "target_confidence", sp->confidence, "verified",
		      st == ENGINE_FOUND, "verification",
		      st == ENGINE_FOUND
			      ? "the culprit's median is worse than "
				"each parent's (5 values each at least)"
			      : "no culprit to verify",
		      "runs", (json_int_t)t->runs, "candidates", cands,
		      "other_failures", "metric", m);
	out = x ? json_dumps(x, JSON_COMPACT) : NULL;
	json_decref(x);
	return out;
}

static int finish(struct plan *p, struct engine *e, enum engine_state st,
		  uint32_t pick, const struct tally *t)
{
	char hex[GU_HEXSZ + 1];
	int rc;

	if (st == ENGINE_NOTHING)
		return sched_end_failed(p, "no commit left to test");
	if ((rc = sched_set_outcome(p, outcome_json(p, e, st, pick, t))))
		return rc;
	if (st == ENGINE_FOUND) {
		gu_oid_hex(hex, &p->jc->graph.oids[pick]);
		return sched_end_job(p, JOB_DONE, "found", hex, NULL);
	}
	return sched_end_job(p, JOB_DONE, "ambiguous", NULL,
			     "no commit's values reached the confidence (or "
			     "the culprit's medians disagree with its "
			     "parents')");
}

/* A commit that failed to run twice for want of a machine ends the job;
 * one such failure is run again.  1 when it ended, 0, < 0 on error. */
static int infra_ends(struct plan *p)
{
	const struct store_step *last =
		p->nsteps ? &p->steps[p->nsteps - 1] : NULL;
	struct cstat cs;
	int rc;

	if (!last || last->state != STEP_DONE || strcmp(last->verdict, "infra"))
		return 0;
	sched_commit_status(p, last->hex, &cs);
	if (cs.infra < 2 && !cs.abort)
		return 0;
	rc = sched_end_infra(p, last->hex, &cs);
	return rc < 0 ? rc : 1;
}

static int plan_round(struct plan *p, struct engine *e, const struct tally *t)
{
	const struct job_spec *sp = &p->jc->spec;
	char hex[GU_HEXSZ + 1];
	enum engine_state st;
	uint32_t pick = 0;
	int rc;

	if (t->pending)
		return 0; /* one step at a time */
	if ((rc = infra_ends(p)))
		return rc < 0 ? rc : 0;
	if (t->baseline < BASELINE_RUNS) {
		if (t->baseline_skips >= BASELINE_RUNS)
			return sched_end_failed(p,
						"the good commit %.12s gave no "
						"value of '%s' (%s)",
						sp->good[0], sp->metric_name,
						t->why);
		return enqueue_run(p, sp->good[0], "endpoint", 0);
	}
	if (t->bad_skips >= BASELINE_RUNS)
		return sched_end_failed(p,
					"the bad commit %.12s gave no value "
					"of '%s' (%s)",
					sp->bad, sp->metric_name, t->why);
	st = engine_next(e, &pick);
	if (st != ENGINE_TEST && st != ENGINE_VERIFY)
		return finish(p, e, st, pick, t);
	gu_oid_hex(hex, &p->jc->graph.oids[pick]);
	return enqueue_run(p, hex, st == ENGINE_VERIFY ? "verify" : "bisect",
			   (long long)engine_candidate_count(e));
}

int sched_plan_metric(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	char goods[JOB_MAX_GOODS * 2][GU_HEXSZ + 1];
	struct engine *e;
	struct tally t;
	size_t i;
	int rc;

	for (i = 0; i < sp->ngood; i++) {
		if (!strcmp(sp->good[i], sp->bad))
			return sched_end_failed(p,
						"good and bad are the same "
						"commit %.12s",
						sp->bad);
		snprintf(goods[i], GU_HEXSZ + 1, "%s", sp->good[i]);
	}
	if ((rc = sched_graph_ready(p, goods, sp->ngood)))
		return rc < 0 ? rc : 0;
	if (!(e = sched_metric_engine(p, &t)))
		return ERR_NOMEM;
	rc = plan_round(p, e, &t);
	engine_free(e);
	return rc < 0 ? rc : 0;
}
