// SPDX-License-Identifier: GPL-2.0-only
/*
 * The planning of a bisection (scheduler.c's design): the checks before
 * it (merge bases, endpoints), the engine rebuilt from every verdict,
 * the probes for the free slots, and the verification of the culprit
 * (the revert and noop checks in kernel mode) before the job ends.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "recipe.h"
#include "scheduler.h"
#include "step.h"
#include "util.h"
#include "verdict.h"
#include "sched_priv.h"

static int other_failure(const struct plan *p, const char *hex)
{
	struct cstat cs;

	sched_commit_status(p, hex, &cs);
	return cs.other;
}

/*
 * When an endpoint's runs so far decide it, bisecting to a confidence:
 * its verdict, or VERDICT_NONE for another run.
 *
 * The bad endpoint runs until it failed 3 times or ran endpoint_runs
 * times, so that the engine learns how often the failure shows; it is
 * bad when it failed at all.
 */
static int bad_endpoint_rule(const struct cstat *cs, int endpoint_runs)
{
	if (cs->fails >= 3 || cs->fails + cs->passes >= (unsigned)endpoint_runs)
		return cs->fails ? VERDICT_BAD : VERDICT_GOOD;
	return VERDICT_NONE;
}

/*
 * A good endpoint: the target failure may show on good commits too, so
 * one failure does not end the job.  It runs until it passed once; one
 * that fails three times without a pass (or endpoint_runs times, if
 * fewer) is bad, as three failures in a row are no good commit's now and
 * then.  Its runs go to the engine, as p0's.
 */
static int good_endpoint_rule(const struct cstat *cs, int endpoint_runs)
{
	if (cs->passes)
		return VERDICT_GOOD;
	if (cs->fails >= 3 || cs->fails >= (unsigned)endpoint_runs)
		return VERDICT_BAD;
	return VERDICT_NONE;
}

/*
 * A fix bisection's endpoints, in the bisection's terms (a run without
 * the failure is a "failure"): the newer commit, where the failure is
 * gone, is judged as a regression's good endpoint is, the older one as
 * its bad endpoint, each with its runs turned back.
 */
static int mirrored(int (*rule)(const struct cstat *, int),
		    const struct cstat *cs, int endpoint_runs)
{
	struct cstat m = *cs;
	int v;

	m.fails = cs->passes;
	m.passes = cs->fails;
	v = rule(&m, endpoint_runs);
	return v == VERDICT_GOOD  ? VERDICT_BAD
	       : v == VERDICT_BAD ? VERDICT_GOOD
				  : v;
}

static int fixed_endpoint_rule(const struct cstat *cs, int endpoint_runs)
{
	return mirrored(good_endpoint_rule, cs, endpoint_runs);
}

static int broken_endpoint_rule(const struct cstat *cs, int endpoint_runs)
{
	return mirrored(bad_endpoint_rule, cs, endpoint_runs);
}

/* A verdict in the submitter's terms (a fix's are turned around). */
static enum verdict as_given(const struct job_spec *sp, int v)
{
	if (!sp->fix)
		return (enum verdict)v;
	return v == VERDICT_GOOD  ? VERDICT_BAD
	       : v == VERDICT_BAD ? VERDICT_GOOD
				  : (enum verdict)v;
}

/*
 * An endpoint's verdict by rule, queueing its runs one by one (or taking
 * them from the cache): NONE while waiting, < 0 when the job ended.
 */
static int need_endpoint(struct plan *p, const char *hex,
			 int (*rule)(const struct cstat *, int))
{
	struct cstat cs;
	int rc;

	for (;;) {
		sched_commit_status(p, hex, &cs);
		rc = rule(&cs, p->jc->spec.endpoint_runs);
		if (rc != VERDICT_NONE)
			return rc;
		if (cs.verdict == VERDICT_SKIP)
			return VERDICT_SKIP;
		if (cs.infra >= 2 || cs.abort) {
			sched_end_infra(p, hex, &cs);
			return -1;
		}
		if (cs.pending || p->active >= p->slots)
			return VERDICT_NONE;
		rc = sched_enqueue(p, hex, "endpoint", 0);
		if (rc <= 0)
			return rc;
		/* answered from the cache: count again */
	}
}

/*
 * The checks before bisecting: merge bases and endpoints.  Fills goods
 * with the good commits to bisect from; returns 1 when all checks have
 * verdicts, 0 while waiting, < 0 when the job ended or failed.
 */
static int plan_checks(struct plan *p, char goods[][GU_HEXSZ + 1],
		       size_t *ngoods)
{
	const struct job_spec *sp = &p->jc->spec;
	/* the range's top as the submitter named it: a fix's is good */
	const char *top = sp->fix ? "good" : "bad";
	struct gu_oid bad, g, mb;
	char mhex[GU_HEXSZ + 1];
	int waiting = 0, v, rc;
	size_t i;

	*ngoods = 0;
	gu_oid_parse(&bad, sp->bad);
	if (sp->fix && sp->check_endpoints && sp->recipe &&
	    !p->jc->have_failure) {
		/* the older commit first: its failure is the target that
		 * the newer one must be without (the loop below says what
		 * a wrong verdict of it means) */
		v = sp->confidence > 0 ? need_endpoint(p, sp->good[0],
						       broken_endpoint_rule)
				       : sched_need(p, sp->good[0], "endpoint");
		if (v <= 0)
			return v;
		sched_find_target(p);
	}
	if (sp->check_endpoints) {
		v = sp->confidence > 0
			    ? need_endpoint(p, sp->bad,
					    sp->fix ? fixed_endpoint_rule
						    : bad_endpoint_rule)
			    : sched_need(p, sp->bad, "endpoint");
		if (v < 0)
			return v;
		if (v == VERDICT_SKIP && other_failure(p, sp->bad))
			return sched_end_failed(
				p,
				"the %s commit %.12s fails, but not "
				"with the failure '%s'%s",
				top, sp->bad,
				sp->failure ? sp->failure : p->target,
				sched_why_of(p, sp->bad));
		if (v == 0)
			waiting = 1;
		else if (v == VERDICT_GOOD && sp->fix)
			return sched_end_failed(
				p,
				"the good commit %.12s showed the failure "
				"on every run: it is not fixed there",
				sp->bad);
		else if (v != VERDICT_BAD && sp->confidence > 0 &&
			 v == VERDICT_GOOD)
			return sched_end_failed(
				p,
				"the bad commit %.12s does not fail "
				"in %d runs: nothing to bisect",
				sp->bad, sp->endpoint_runs);
		else if (v != VERDICT_BAD)
			return sched_end_failed(
				p,
				"the %s commit %.12s does not %s: "
				"nothing to bisect (verdict %s%s)",
				top, sp->bad, sp->fix ? "pass" : "fail",
				verdict_name(as_given(sp, v)),
				sched_why_of(p, sp->bad));
	}
	for (i = 0; i < sp->ngood; i++) {
		gu_oid_parse(&g, sp->good[i]);
		if (gu_oid_equal(&g, &bad))
			return sched_end_failed(
				p,
				"good and bad are the same commit "
				"%.12s",
				sp->bad);
		if (sp->check_endpoints) {
			v = sp->confidence > 0
				    ? need_endpoint(
					      p, sp->good[i],
					      sp->fix ? broken_endpoint_rule
						      : good_endpoint_rule)
				    : sched_need(p, sp->good[i], "endpoint");
			if (v < 0)
				return v;
			if (v == 0)
				waiting = 1;
			else if (v != VERDICT_GOOD && sp->fix)
				return sched_end_failed(
					p,
					"the bad commit %.12s does not fail "
					"(verdict %s%s): nothing to bisect",
					sp->good[i],
					verdict_name(as_given(sp, v)),
					sched_why_of(p, sp->good[i]));
			else if (v != VERDICT_GOOD)
				return sched_end_failed(
					p,
					"the good commit %.12s does not pass "
					"(verdict %s%s)",
					sp->good[i],
					verdict_name((enum verdict)v),
					sched_why_of(p, sp->good[i]));
		}
		rc = gu_is_ancestor(p->jc->repo, &g, &bad);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			snprintf(goods[(*ngoods)++], GU_HEXSZ + 1, "%s",
				 sp->good[i]);
			continue;
		}
		rc = gu_merge_base(p->jc->repo, &g, &bad, &mb);
		if (rc == ERR_NOTFOUND)
			return sched_end_failed(
				p,
				"good commit %.12s shares no history "
				"with bad commit %.12s",
				sp->good[i], sp->bad);
		if (rc)
			return rc;
		if (gu_oid_equal(&mb, &bad))
			return sched_end_failed(
				p,
				"bad commit %.12s is an ancestor of "
				"good commit %.12s: did you swap good "
				"and bad?",
				sp->bad, sp->good[i]);
		gu_oid_hex(mhex, &mb);
		v = sched_need(p, mhex, "merge-base");
		if (v < 0)
			return v;
		if (v == 0)
			waiting = 1;
		else if (v == VERDICT_BAD)
			return sched_end_failed(
				p,
				"the merge base %.12s is bad: the "
				"regression was fixed between %.12s "
				"and %.12s, not introduced",
				mhex, mhex, sp->good[i]);
		else if (v == VERDICT_GOOD)
			snprintf(goods[(*ngoods)++], GU_HEXSZ + 1, "%s", mhex);
		/* a skipped merge base adds no good commit, as in git */
	}
	return !waiting;
}

static int load_graph(struct plan *p, char goods[][GU_HEXSZ + 1], size_t n)
{
	struct jobc *jc = p->jc;
	struct gu_oid bad, g[JOB_MAX_GOODS * 2];
	size_t i;
	int same = jc->have_graph && jc->ngraph_goods == n;

	for (i = 0; same && i < n; i++)
		same = !strcmp(jc->graph_goods[i], goods[i]);
	if (same)
		return 0;
	gu_graph_release(&jc->graph);
	jc->have_graph = 0;
	if (!jc->graph_goods &&
	    !(jc->graph_goods =
		      calloc(JOB_MAX_GOODS * 2, sizeof(*jc->graph_goods))))
		return -1;
	gu_oid_parse(&bad, jc->spec.bad);
	for (i = 0; i < n; i++) {
		gu_oid_parse(&g[i], goods[i]);
		memcpy(jc->graph_goods[i], goods[i], GU_HEXSZ + 1);
	}
	jc->ngraph_goods = n;
	if (gu_graph_load(&jc->graph, jc->repo, &bad, g, n))
		return -1;
	jc->have_graph = 1;
	return 0;
}

int sched_graph_ready(struct plan *p, char goods[][GU_HEXSZ + 1], size_t n)
{
	int rc;

	if (load_graph(p, goods, n))
		return ERR_INFRA;
	if (p->jc->graph.n == 0) {
		rc = sched_end_failed(p, "the bad commit is reachable from a "
					 "good commit: nothing to bisect");
		return rc < 0 ? rc : 1;
	}
	rc = store_job_set_candidates(p->s->store, p->jc->id,
				      (long long)p->jc->graph.n);
	return rc;
}

static int is_good_endpoint(const struct plan *p, const char *hex)
{
	size_t i;

	for (i = 0; i < p->jc->spec.ngood; i++)
		if (!strcmp(p->jc->spec.good[i], hex))
			return 1;
	return 0;
}

struct engine *sched_make_engine(struct plan *p)
{
	const struct gu_graph *g = &p->jc->graph;
	struct engine *e;
	struct gu_oid bad;
	size_t i;
	long idx;

	if (p->jc->spec.metric_name)
		return sched_metric_engine(p, NULL);
	if (engine_new(&e, g->n))
		return NULL;
	for (i = 0; i < g->nedges; i++)
		engine_add_parent(e, g->edge_child[i], g->edge_parent[i]);
	gu_oid_parse(&bad, p->jc->spec.bad);
	engine_set_bad(e, (uint32_t)gu_graph_find(g, &bad));
	engine_set_confidence(e, p->jc->spec.confidence,
			      (unsigned long)p->jc->spec.max_runs);
	if (p->jc->spec.fix)
		engine_set_fix(e);
	/* without the endpoint's runs, the user's word that it fails */
	if (!p->jc->spec.check_endpoints)
		engine_mark(e, (uint32_t)gu_graph_find(g, &bad), VERDICT_BAD);
	for (i = 0; i < p->nsteps; i++) {
		struct gu_oid oid;
		int other;
		enum verdict v = sched_step_verdict(p, &p->steps[i], &other);
		unsigned f, ps;

		if (p->steps[i].state != STEP_DONE || v == VERDICT_INFRA ||
		    v == VERDICT_NONE || sched_check_role(p->steps[i].role))
			continue;
		gu_oid_parse(&oid, p->steps[i].hex);
		idx = gu_graph_find(g, &oid);
		if (idx < 0 && p->jc->spec.confidence > 0 &&
		    (v == VERDICT_GOOD || v == VERDICT_BAD) &&
		    is_good_endpoint(p, p->steps[i].hex)) {
			sched_step_runs(p, &p->steps[i], v, &f, &ps);
			engine_observe_good(e, f, ps);
		}
		if (idx < 0)
			continue;
		if (v == VERDICT_GOOD || v == VERDICT_BAD) {
			sched_step_runs(p, &p->steps[i], v, &f, &ps);
			engine_observe(e, (uint32_t)idx, f, ps);
		} else {
			engine_mark(e, (uint32_t)idx, v);
		}
	}
	return e;
}

/*
 * The checks of a culprit that the engine found (kernel mode, with a
 * confidence), after its own re-runs of the culprit and its parents:
 *
 *   noop    the culprit's kernel image against each parent's (a "noop"
 *           step builds a parent whose image no step has reported; the
 *           kernel cache makes that cheap).  Builds are reproducible, so
 *           an identical image means the culprit changes nothing that
 *           runs, and the answer is most likely wrong.
 *   revert  the bad commit with the culprit reverted ("revert" steps),
 *           run until it passed as often as the learned failure rate
 *           needs to show a failure at the confidence asked for; one
 *           target failure rejects the culprit.  A revert that does not
 *           apply, build or boot cleanly proves nothing either way.
 */
struct verification {
	int noop;	  /* 1: the image equals a parent's */
	int noop_checked; /* every parent's image compared */
	char noop_parent[GU_HEXSZ + 1];
	int parent_fails; /* a parent's noop build failed too */
	char failing_parent[GU_HEXSZ + 1];
	int revert;	      /* 1 passed, -1 failed, 0 not shown */
	unsigned revert_runs; /* passing runs of the revert */
	char revert_why[256]; /* why it proves nothing */
};

/* The image SHA-256 of a done step on hex (role NULL: any but revert). */
static int image_of(const struct plan *p, const char *hex,
		    char out[DIGEST_HEXSZ + 1])
{
	size_t i;

	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		char *h;

		if (strcmp(st->hex, hex) || st->state != STEP_DONE ||
		    !st->result || !strcmp(st->role, "revert"))
			continue;
		h = job_json_string(st->result, "image_sha256");
		if (h && strlen(h) == DIGEST_HEXSZ) {
			memcpy(out, h, DIGEST_HEXSZ + 1);
			free(h);
			return 1;
		}
		free(h);
	}
	return 0;
}

/* Queue a check's step: never from the cache, never into it. */
static int enqueue_check(struct plan *p, const char *hex, const char *role)
{
	long long id;
	int rc;

	if (p->active >= p->slots)
		return 0;
	rc = store_step_insert(p->s->store, &id, p->jc->id, hex, role, p->round,
			       1, "");
	if (!rc)
		rc = sched_remember(p, id);
	if (!rc)
		p->active++;
	return rc;
}

/*
 * P(the runs come from a commit that holds the culprit), from f failures
 * and ps passes at the learned rates q1 (after) and q0 (before), even
 * odds first.
 */
static double after_probability(unsigned f, unsigned ps, double q0, double q1)
{
	double l1, l0;

	q0 = q0 < 1e-6 ? 1e-6 : q0;
	q1 = q1 > 1 - 1e-6 ? 1 - 1e-6 : q1;
	l1 = f * log(q1) + ps * log1p(-q1);
	l0 = f * log(q0) + ps * log1p(-q0);
	return 1 / (1 + exp(l0 - l1));
}

#define NOISY_CHECK_RUNS 12

/* The learned rates, when good commits fail too (noisy), for the checks. */
struct rates {
	int noisy;
	double q0, q1, conf;
};

/*
 * The culprit's parents: their images against the culprit's (noop steps
 * build those not known) and whether one fails too.  With noise, a
 * parent fails too only when its runs say "after" at the confidence, at
 * least twice.  1 when all are known, 0 while waiting, < 0 on error.
 */
static int check_parents(struct plan *p, const char *hex,
			 const struct gu_oid *c, const struct rates *r,
			 struct verification *v)
{
	char img[DIGEST_HEXSZ + 1];
	struct gu_oid par[8];
	int n, i, waiting = 0, rc, have_img = image_of(p, hex, img);
	struct cstat cs;

	n = gu_parents(p->jc->repo, c, par, 8);
	if (n < 0)
		return n;
	v->noop_checked = have_img;
	for (i = 0; i < n; i++) {
		char phex[GU_HEXSZ + 1], pimg[DIGEST_HEXSZ + 1];
		int fails;

		gu_oid_hex(phex, &par[i]);
		sched_role_status(p, phex, "noop", &cs);
		fails = r->noisy ? cs.fails >= 2 &&
					   after_probability(cs.fails,
							     cs.passes, r->q0,
							     r->q1) >= r->conf
				 : cs.verdict == VERDICT_BAD;
		if (fails && !v->parent_fails) {
			v->parent_fails = 1;
			memcpy(v->failing_parent, phex, sizeof(phex));
		}
		if (image_of(p, phex, pimg)) {
			if (have_img && !strcmp(img, pimg) && !v->noop) {
				v->noop = 1;
				memcpy(v->noop_parent, phex, sizeof(phex));
			}
			continue;
		}
		if (cs.pending) {
			waiting = 1;
		} else if (cs.verdict == VERDICT_NONE && !cs.infra) {
			if ((rc = enqueue_check(p, phex, "noop")) < 0)
				return rc;
			waiting = 1;
		} else {
			v->noop_checked = 0; /* the parent built no image */
		}
	}
	return !waiting;
}

/*
 * The revert's runs judged: 1 passed, -1 still fails, 0 undecided (run
 * it again, or revert_why says why not).  Without noise one failure
 * rejects the culprit, and it passes after as many runs as a commit
 * failing at rate q1 would need to show a failure at the confidence.
 * With noise its runs must say "before" or "after" at the confidence
 * (two failures at least for "after": one is what a good commit may
 * show), within NOISY_CHECK_RUNS runs.
 */
static int judge_revert(const struct cstat *cs, const struct rates *r,
			struct verification *v)
{
	unsigned need_runs = 1, n = cs->fails + cs->passes;
	double after;

	if (!r->noisy) {
		if (cs->fails)
			return -1;
		/* passes that a commit failing at rate q1 would fail once */
		if (r->q1 < 0.999) {
			double miss = r->q1 > 0.05 ? 1 - r->q1 : 0.95;

			while (need_runs < 10 &&
			       1 - pow(miss, need_runs) < r->conf)
				need_runs++;
		}
		return cs->passes >= need_runs;
	}
	after = after_probability(cs->fails, cs->passes, r->q0, r->q1);
	if (cs->fails >= 2 && after >= r->conf)
		return -1;
	if (n > 0 && 1 - after >= r->conf)
		return 1;
	if (n >= NOISY_CHECK_RUNS)
		snprintf(v->revert_why, sizeof(v->revert_why),
			 "%u of %u runs failed: neither rate at the "
			 "confidence",
			 cs->fails, n);
	return 0;
}

/* 1 when the checks are done (v filled), 0 while they run, < 0 error. */
static int verify_culprit(struct plan *p, struct engine *e, uint32_t pick,
			  struct verification *v)
{
	const struct job_spec *sp = &p->jc->spec;
	char hex[GU_HEXSZ + 1];
	struct rates r = { .q1 = engine_failure_rate(e),
			   .conf = sp->confidence };
	int rc, judged;
	struct cstat cs;

	memset(v, 0, sizeof(*v));
	if (!sp->recipe || sp->confidence <= 0)
		return 1;
	/* an intermittent failure, or failures seen before the culprit:
	 * a good commit may fail too */
	if (engine_is_noisy(e) || engine_failures_before(e, pick) > 0) {
		r.noisy = 1;
		r.q0 = engine_failure_rate_before(e);
	}
	gu_oid_hex(hex, &p->jc->graph.oids[pick]);
	rc = check_parents(p, hex, &p->jc->graph.oids[pick], &r, v);
	if (rc < 0)
		return rc;
	sched_role_status(p, hex, "revert", &cs);
	v->revert_runs = cs.passes;
	if (cs.verdict == VERDICT_SKIP || cs.infra >= 2) {
		if (!cs.fails || r.noisy)
			snprintf(v->revert_why, sizeof(v->revert_why), "%s",
				 cs.infra >= 2 ? cs.title
				 : cs.why[0]   ? cs.why + 2
					       : "skipped");
		else
			v->revert = -1;
		return rc;
	}
	judged = judge_revert(&cs, &r, v);
	if (judged) {
		v->revert = judged;
		return rc;
	}
	if (v->revert_why[0])
		return rc;
	if (!cs.pending && (rc = enqueue_check(p, hex, "revert")) < 0)
		return rc;
	return 0;
}

/* One sentence on the verification, for the reports. */
static void verification_text(struct buf *b, const struct job_spec *sp,
			      enum engine_state st,
			      const struct verification *v)
{
	if (st != ENGINE_FOUND) {
		buf_puts(b, "no culprit to verify");
		return;
	}
	if (sp->confidence <= 0) {
		buf_puts(b, "not verified: git's bisection (no confidence "
			    "asked for)");
		return;
	}
	if (v->noop)
		buf_printf(b,
			   "the %s does not change the built kernel (its "
			   "image is the same as its parent %.12s's), so the "
			   "result is most likely wrong",
			   sp->fix ? "fix" : "culprit", v->noop_parent);
	else if (v->revert < 0 && sp->fix)
		buf_puts(b, "the good commit with the fix reverted still "
			    "passes: the fix is not what took the failure "
			    "away");
	else if (v->revert < 0)
		buf_puts(b, "the bad commit with the culprit reverted still "
			    "fails: the culprit is not what brought the "
			    "failure in");
	else if (v->parent_fails)
		buf_printf(b, "its parent %.12s %s too: the failure %s earlier",
			   v->failing_parent, sp->fix ? "passes" : "fails",
			   sp->fix ? "was gone" : "came in");
	else if (sp->fix)
		buf_puts(b, "the fix passed again and its parents failed");
	else
		buf_puts(b, "the culprit failed again and its parents passed");
	if (v->noop || v->revert < 0 || v->parent_fails || !sp->recipe)
		return;
	if (v->revert > 0)
		buf_printf(b,
			   sp->fix ? "; the good commit with it reverted "
				     "failed again (%u run%s)"
				   : "; the bad commit with it reverted "
				     "passed %u run%s",
			   v->revert_runs, v->revert_runs == 1 ? "" : "s");
	else
		buf_printf(b, "; not shown by a revert (%s)", v->revert_why);
	if (!v->noop_checked)
		buf_puts(b, "; its image was not compared with its parents'");
}

static int verification_failed(const struct verification *v)
{
	return v->noop || v->revert < 0 || v->parent_fails;
}

/*
 * What the bisection concluded and how sure it is, as JSON for the job's
 * outcome: the probability of the answer under the engine's model of an
 * intermittent failure (computed for git's bisection too), the learned
 * failure rate, whether the culprit was verified, and the likeliest
 * candidates.  NULL when out of memory; the caller frees.
 */
struct likely {
	uint32_t c;
	double p;
};

static int more_likely(const void *a, const void *b)
{
	double pa = ((const struct likely *)a)->p,
	       pb = ((const struct likely *)b)->p;

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

static char *outcome_json(struct plan *p, struct engine *e,
			  enum engine_state st, uint32_t pick,
			  const struct verification *v)
{
	const struct gu_graph *g = &p->jc->graph;
	const struct job_spec *sp = &p->jc->spec;
	struct likely *top = calloc(g->n ? g->n : 1, sizeof(*top));
	size_t ntop = 0, i, k;
	char hex[GU_HEXSZ + 1];
	struct buf b;
	char *out;

	if (!top)
		return NULL;
	/* the ten likeliest commits, most probable first */
	for (i = 0; i < g->n; i++) {
		top[ntop].c = (uint32_t)i;
		top[ntop].p = engine_probability(e, (uint32_t)i);
		ntop += top[ntop].p >= 0.001;
	}
	qsort(top, ntop, sizeof(*top), more_likely);
	if (ntop > 10)
		ntop = 10;
	buf_init(&b, 1 << 16);
	buf_printf(&b, "{\"confidence\":%.4f,\"target_confidence\":%.4f,",
		   st == ENGINE_FOUND ? engine_probability(e, pick)
		   : ntop	      ? top[0].p
				      : 0.0,
		   sp->confidence);
	/* a fix's engine counts the runs without the failure */
	buf_printf(&b,
		   "\"failure_rate\":%.4f,\"failure_rate_before\":%.4f,"
		   "\"intermittent\":%s,\"runs\":%lu,",
		   sp->fix ? 1 - engine_failure_rate(e)
			   : engine_failure_rate(e),
		   sp->fix ? 1 - engine_failure_rate_before(e)
			   : engine_failure_rate_before(e),
		   engine_is_noisy(e) ? "true" : "false", engine_runs(e));
	if (sp->fix)
		buf_puts(&b, "\"fix\":true,");
	{
		struct buf t;
		char *q;

		buf_init(&t, 4096);
		verification_text(&t, sp, st, v);
		q = json_quote(p->jc->have_failure ? sp->failure : p->target);
		if (q && (p->jc->have_failure || p->target[0]))
			buf_printf(&b, "\"target_failure\":%s,", q);
		free(q);
		q = json_quote(buf_str(&t));
		buf_printf(&b, "\"verified\":%s,\"verification\":%s,",
			   st == ENGINE_FOUND && sp->confidence > 0 &&
					   !verification_failed(v)
				   ? "true"
				   : "false",
			   q ? q : "\"\"");
		if (st == ENGINE_FOUND && verification_failed(v)) {
			gu_oid_hex(hex, &p->jc->graph.oids[pick]);
			buf_printf(&b, "\"rejected\":\"%s\",", hex);
		}
		if (st == ENGINE_FOUND && sp->recipe && sp->confidence > 0)
			buf_printf(&b,
				   "\"checks\":{\"noop\":%s,\"revert\":\"%s\","
				   "\"revert_runs\":%u},",
				   !v->noop_checked ? "null"
				   : v->noop	    ? "true"
						    : "false",
				   /* what the reverted kernel did: a
				    * fix's is turned back */
				   v->revert == 0		? "not shown"
				   : (v->revert > 0) != sp->fix ? "passed"
								: "failed",
				   v->revert_runs);
		free(q);
		buf_release(&t);
	}
	buf_puts(&b, "\"other_failures\":[");
	for (i = 0, k = 0; i < p->nsteps; i++) {
		int other;
		char *t;

		if (p->steps[i].state != STEP_DONE ||
		    sched_check_role(p->steps[i].role))
			continue;
		sched_step_verdict(p, &p->steps[i], &other);
		t = other ? job_json_string(p->steps[i].result, "title") : NULL;
		if (t) {
			char *q = json_quote(t);

			buf_printf(&b, "%s{\"commit\":\"%s\",\"title\":%s}",
				   k++ ? "," : "", p->steps[i].hex,
				   q ? q : "\"\"");
			free(q);
		}
		free(t);
	}
	buf_puts(&b, "],\"candidates\":[");
	for (i = 0; i < ntop; i++) {
		gu_oid_hex(hex, &g->oids[top[i].c]);
		buf_printf(&b, "%s{\"commit\":\"%s\",\"probability\":%.4f}",
			   i ? "," : "", hex, top[i].p);
	}
	free(top);
	out = buf_puts(&b, "]}") ? NULL : strdup(buf_str(&b));
	buf_release(&b);
	return out;
}

int sched_set_outcome(struct plan *p, char *outcome)
{
	int rc =
		outcome ? store_job_set_outcome(p->s->store, p->jc->id, outcome)
			: err_set(ERR_NOMEM, "out of memory");

	free(outcome);
	return rc;
}

static int finish_bisect(struct plan *p, struct engine *e, enum engine_state st,
			 uint32_t pick, const struct verification *v)
{
	const struct gu_graph *g = &p->jc->graph;
	char hex[GU_HEXSZ + 1];
	struct buf why;
	uint32_t *idx;
	size_t n, i;
	int rc;

	if (st == ENGINE_NOTHING)
		return sched_end_failed(p, "no commit left to test");
	if ((rc = sched_set_outcome(p, outcome_json(p, e, st, pick, v))))
		return rc;
	if (st == ENGINE_FOUND && verification_failed(v)) {
		/* not reported as found: the evidence says why */
		gu_oid_hex(hex, &g->oids[pick]);
		buf_init(&why, 1 << 16);
		buf_printf(&why,
			   "the culprit %s did not pass verification: ", hex);
		verification_text(&why, &p->jc->spec, st, v);
		rc = sched_end_job(p, JOB_DONE, "ambiguous", NULL,
				   buf_str(&why));
		buf_release(&why);
		return rc;
	}
	if (st == ENGINE_FOUND) {
		gu_oid_hex(hex, &g->oids[pick]);
		return sched_end_job(p, JOB_DONE, "found", hex, NULL);
	}
	n = engine_candidate_count(e);
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!idx)
		return err_set(ERR_NOMEM, "out of memory");
	n = engine_candidates(e, idx, n);
	buf_init(&why, 1 << 20);
	if (p->jc->spec.confidence > 0 && engine_is_noisy(e))
		buf_printf(&why,
			   "the confidence %.2f was not reached in %lu runs "
			   "(the failure shows on about %.0f%% of the runs "
			   "before the first bad commit, %.0f%% after); the "
			   "first bad commit is one of:",
			   p->jc->spec.confidence, engine_runs(e),
			   100 * engine_failure_rate_before(e),
			   100 * engine_failure_rate(e));
	else
		buf_puts(&why, "only skipped commits left; the first bad "
			       "commit is one of:");
	for (i = 0; i < n; i++) {
		gu_oid_hex(hex, &g->oids[idx[i]]);
		buf_printf(&why, " %s", hex);
	}
	free(idx);
	rc = sched_end_job(p, JOB_DONE, "ambiguous", NULL, buf_str(&why));
	buf_release(&why);
	return rc;
}

/* Running probes that the engine no longer needs are cancelled; the
 * others are busy[] (up to 256). */
static void keep_useful_probes(struct plan *p, struct engine *e, uint32_t *busy,
			       size_t *nbusy)
{
	size_t i;

	for (i = 0; i < p->nsteps; i++) {
		struct store_step *sp = &p->steps[i];
		struct gu_oid oid;
		long idx;

		if ((sp->state != STEP_QUEUED && sp->state != STEP_LEASED) ||
		    sched_check_role(sp->role))
			continue;
		gu_oid_parse(&oid, sp->hex);
		idx = gu_graph_find(&p->jc->graph, &oid);
		if (idx < 0 || !engine_is_candidate(e, (uint32_t)idx) ||
		    *nbusy == 256) {
			store_step_cancel(p->s->store, sp->id);
			sp->state = STEP_CANCELLED;
			p->active--;
			continue;
		}
		busy[(*nbusy)++] = (uint32_t)idx;
	}
}

/*
 * A candidate with one infra verdict is tested again (and is busy); a
 * second one, or one that must abort, ends the job.  1 when it ended,
 * 0, or an error.
 */
static int retry_infra(struct plan *p, struct engine *e, uint32_t *busy,
		       size_t *nbusy)
{
	size_t i;
	int rc;

	for (i = 0; i < p->jc->graph.n; i++) {
		char hex[GU_HEXSZ + 1];
		struct cstat cs;

		if (!engine_is_candidate(e, (uint32_t)i))
			continue;
		gu_oid_hex(hex, &p->jc->graph.oids[i]);
		sched_commit_status(p, hex, &cs);
		if (cs.verdict != VERDICT_NONE || !cs.infra)
			continue;
		if (cs.infra >= 2 || cs.abort) {
			rc = sched_end_infra(p, hex, &cs);
			return rc < 0 ? rc : 1;
		}
		if (!cs.pending && p->active < p->slots && *nbusy < 256) {
			rc = sched_enqueue(
				p, hex, "bisect",
				(long long)engine_candidate_count(e));
			if (rc < 0)
				return rc;
			busy[(*nbusy)++] = (uint32_t)i;
		}
	}
	return 0;
}

/*
 * The engine's next probes for the free slots, chosen with the busy ones.
 * 1 when a verdict came from the cache (the candidates changed: plan
 * again), 0, or an error.
 */
static int enqueue_more(struct plan *p, struct engine *e, enum engine_state st,
			const uint32_t *busy, size_t nbusy)
{
	uint32_t more[256];
	size_t k, i,
		free_slots = p->slots > p->active
				     ? (size_t)(p->slots - p->active)
				     : 0;
	int rc, hit = 0;

	if (free_slots > 256 - nbusy)
		free_slots = 256 - nbusy;
	k = engine_next_more(e, busy, nbusy, more, free_slots);
	for (i = 0; i < k; i++) {
		char hex[GU_HEXSZ + 1];

		gu_oid_hex(hex, &p->jc->graph.oids[more[i]]);
		rc = sched_enqueue(p, hex,
				   st == ENGINE_VERIFY ? "verify" : "bisect",
				   (long long)engine_candidate_count(e));
		if (rc < 0)
			return rc;
		hit |= rc > 0;
	}
	return hit;
}

/*
 * git's bisection names the bad commit when every commit tested passed,
 * though it never ran it: here it is run once first.  1 when pick may
 * be reported; 0 while its run is awaited, or when the job ended (the
 * bad commit passed: there is nothing to bisect); < 0 on an error.
 */
static int untested_bad(struct plan *p, uint32_t pick)
{
	const struct job_spec *sp = &p->jc->spec;
	char hex[GU_HEXSZ + 1];
	int v, rc;

	gu_oid_hex(hex, &p->jc->graph.oids[pick]);
	if (sp->confidence > 0 || sp->check_endpoints || strcmp(hex, sp->bad))
		return 1;
	v = sched_need(p, sp->bad, "endpoint");
	if (v <= 0 || v == VERDICT_BAD)
		return v == VERDICT_BAD ? 1 : v;
	rc = sched_end_failed(p,
			      "every commit tested passed, and so did the bad "
			      "commit %.12s when it was run (verdict %s%s): "
			      "there is no failure to bisect",
			      sp->bad, verdict_name((enum verdict)v),
			      sched_why_of(p, sp->bad));
	return rc < 0 ? rc : 0;
}

/* One decision: the job ends (verified, or not), or probes are queued.
 * 1 to decide again (a cached verdict came in), 0, or an error. */
static int plan_round(struct plan *p)
{
	struct engine *e = sched_make_engine(p);
	uint32_t pick = 0, busy[256];
	size_t nbusy = 0;
	enum engine_state st;
	int rc;

	if (!e)
		return ERR_NOMEM;
	st = engine_next(e, &pick);
	if (st == ENGINE_FOUND && (rc = untested_bad(p, pick)) <= 0) {
		engine_free(e);
		return rc;
	}
	if (st != ENGINE_TEST && st != ENGINE_VERIFY) {
		struct verification v;

		rc = st == ENGINE_FOUND ? verify_culprit(p, e, pick, &v)
					: (memset(&v, 0, sizeof(v)), 1);
		if (rc > 0)
			rc = finish_bisect(p, e, st, pick, &v);
		engine_free(e);
		return rc < 0 ? rc : 0;
	}
	keep_useful_probes(p, e, busy, &nbusy);
	rc = retry_infra(p, e, busy, &nbusy);
	if (rc == 0)
		rc = enqueue_more(p, e, st, busy, nbusy);
	else if (rc > 0)
		rc = 0; /* the job ended */
	engine_free(e);
	return rc;
}

int sched_plan_bisect(struct plan *p)
{
	char goods[JOB_MAX_GOODS * 2][GU_HEXSZ + 1];
	size_t ngoods;
	int rc;

	if (p->jc->spec.metric_name)
		return sched_plan_metric(p);
	sched_find_target(p);
	rc = plan_checks(p, goods, &ngoods);
	sched_find_target(p); /* the bad endpoint may have just been answered */
	if (rc <= 0 || p->ended)
		return rc < 0 && !p->ended ? rc : 0;
	if (ngoods == 0)
		return sched_end_failed(p,
					"no good commit left after the merge "
					"base checks");
	if ((rc = sched_graph_ready(p, goods, ngoods)))
		return rc < 0 ? rc : 0;
	while ((rc = plan_round(p)) > 0)
		; /* a cached verdict changed the candidates: decide again */
	return rc;
}
