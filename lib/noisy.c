/*
 * Bisection when the failure does not show on every run.
 *
 * Design.  The first bad commit c* is one of the candidates: the commits
 * of the graph that are ancestors of the range's bad commit.  A commit x
 * "contains" c when c is x or one of its ancestors; a run of x shows the
 * target failure with probability q when x contains c*, and never
 * otherwise (a failure is never seen on a good commit).  q is not known.
 * Its prior is a mixture: with probability DET_PRIOR the failure is
 * deterministic (q = 1), otherwise q ~ Beta(A, B).  For each candidate c,
 * with F_c failures and P_c passes seen on the commits that contain it,
 *
 *     L(c) = DET_PRIOR [P_c = 0] + (1 - DET_PRIOR) B(A + F_c, B + P_c) / B(A, B)
 *
 * and L(c) = 0 when a commit that does not contain c failed.  The
 * posterior is L normalised over the candidates (a uniform prior), and
 * E[q | c] follows from the same two terms.  The next run goes where its
 * outcome tells most about c*: for a commit x with mass M1(x) = sum over
 * the candidates it contains of P(c) E[q | c] (its chance to fail) and
 * M2(x) = sum of P(c) H(E[q | c]), the expected information of one run is
 * H(M1(x)) - M2(x) bits (H the binary entropy), so a commit may be run
 * again when that is worth most.  W probes at once are the W best by
 * that measure whose contained mass differs by at least 1 / 2(W + 1).
 *
 * A culprit is concluded when its probability reaches the confidence and
 * it is verified by the same runs: it failed at least twice (it was
 * tested again) and each of its parents in the graph passed at least
 * once and never failed (a failure there would have lowered its
 * probability anyway).
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_priv.h"
#include "error.h"

/*
 * The prior: a failure is deterministic with probability DET_PRIOR, else
 * its rate is uniform.  Chosen with tests/sim/bisect-sim: 0.5 made a
 * lucky run of failures at rate 0.5 look deterministic too often
 * (93% right at 0.95 confidence), 0.2 keeps the answers calibrated at
 * every rate down to 0.3 for one more run at rate 1.
 */
#define DET_PRIOR 0.2
#define BETA_A 1.0
#define BETA_B 1.0
/* below this, a run tells nothing worth its cost: ambiguous */
#define MIN_GAIN 1e-4

int engine_noisy_alloc(struct engine *e)
{
	size_t n = e->n;

	e->fails = calloc(n, sizeof(*e->fails));
	e->passes = calloc(n, sizeof(*e->passes));
	e->pass_reach = calloc(n, 1);
	e->post = calloc(n, sizeof(*e->post));
	e->qbar = calloc(n, sizeof(*e->qbar));
	e->mass = calloc(n, sizeof(*e->mass));
	e->gain = calloc(n, sizeof(*e->gain));
	e->fc = calloc(n, sizeof(*e->fc));
	e->pc = calloc(n, sizeof(*e->pc));
	e->cnt = calloc(n, sizeof(*e->cnt));
	e->range = calloc(n, 1);
	e->s1 = calloc(n, sizeof(*e->s1));
	e->post_dirty = 1;
	if (!e->fails || !e->passes || !e->pass_reach || !e->post || !e->qbar ||
	    !e->mass || !e->gain || !e->fc || !e->pc || !e->cnt || !e->range ||
	    !e->s1)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
}

void engine_noisy_free(struct engine *e)
{
	free(e->fails);
	free(e->passes);
	free(e->pass_reach);
	free(e->post);
	free(e->qbar);
	free(e->mass);
	free(e->gain);
	free(e->fc);
	free(e->pc);
	free(e->cnt);
	free(e->range);
	free(e->s1);
}

struct mark_pass {
	int contradiction;
};

static void mark_pass(struct engine *e, uint32_t x, void *payload)
{
	struct mark_pass *m = payload;

	e->pass_reach[x] = 1;
	if (e->fails[x] || (int64_t)x == e->bad0)
		m->contradiction = 1;
}

void engine_noisy_observe(struct engine *e, uint32_t c, unsigned fails,
			  unsigned passes)
{
	/*
	 * A failure where a descendant (or the commit itself) passed, or a
	 * pass where an ancestor failed: the failure does not show on
	 * every run of a bad commit.
	 */
	if (fails && (passes || e->pass_reach[c]))
		e->noisy = 1;
	e->fails[c] += fails;
	if (passes) {
		struct mark_pass m = { 0 };

		engine_walk_ancestors(e, c, mark_pass, &m);
		e->noisy |= m.contradiction;
	}
	e->passes[c] += passes;
	e->runs += fails + passes;
	e->post_dirty = 1;
}

static double entropy(double p)
{
	if (p <= 0 || p >= 1)
		return 0;
	return -(p * log2(p) + (1 - p) * log2(1 - p));
}

static double lbeta(double a, double b)
{
	return lgamma(a) + lgamma(b) - lgamma(a + b);
}

struct add_obs {
	uint32_t f, p;
};

static void add_obs(struct engine *e, uint32_t x, void *payload)
{
	struct add_obs *o = payload;

	e->fc[x] += o->f;
	e->pc[x] += o->p;
	e->cnt[x] += o->f > 0;
}

static void in_range(struct engine *e, uint32_t x, void *payload)
{
	(void)payload;
	e->range[x] = 1;
}

struct sums {
	double m, s1, s2;
};

static void add_sums(struct engine *e, uint32_t x, void *payload)
{
	struct sums *s = payload;
	double p = e->post[x];

	s->m += p;
	s->s1 += p * e->qbar[x];
	s->s2 += p * entropy(e->qbar[x]);
}

/*
 * The posterior of every candidate and the information of every run.
 * e->gain holds the log-likelihoods first, then M2, then the gains.
 */
static int posterior(struct engine *e)
{
	double lmax = -INFINITY, total = 0, *ll = e->gain, *s1 = e->s1;
	uint32_t nfailing = 0;
	size_t i;

	if (!e->post_dirty)
		return 0;
	if (e->bad0 < 0 || engine_refresh(e))
		return -1;
	memset(e->fc, 0, e->n * sizeof(*e->fc));
	memset(e->pc, 0, e->n * sizeof(*e->pc));
	memset(e->cnt, 0, e->n * sizeof(*e->cnt));
	memset(e->range, 0, e->n);
	engine_walk_ancestors(e, (uint32_t)e->bad0, in_range, NULL);
	for (i = 0; i < e->n; i++) {
		struct add_obs o = { e->fails[i], e->passes[i] };

		if (!o.f && !o.p)
			continue;
		nfailing += o.f > 0;
		engine_walk_ancestors(e, (uint32_t)i, add_obs, &o);
	}
	for (i = 0; i < e->n; i++) {
		double det, noisy, l;

		ll[i] = -INFINITY;
		e->qbar[i] = 0;
		if (!e->range[i] || e->cnt[i] != nfailing)
			continue;
		det = e->pc[i] ? -INFINITY : log(DET_PRIOR);
		noisy = log(1 - DET_PRIOR) +
			lbeta(BETA_A + e->fc[i], BETA_B + e->pc[i]) -
			lbeta(BETA_A, BETA_B);
		l = det > noisy ? det + log1p(exp(noisy - det))
				: noisy + log1p(exp(det - noisy));
		ll[i] = l;
		/* E[q | c]: 1 under the deterministic term */
		e->qbar[i] = (det > -INFINITY ? exp(det - l) : 0) +
			     exp(noisy - l) * (BETA_A + e->fc[i]) /
				     (BETA_A + BETA_B + e->fc[i] + e->pc[i]);
		if (l > lmax)
			lmax = l;
	}
	for (i = 0; i < e->n; i++) {
		e->post[i] = ll[i] > -INFINITY ? exp(ll[i] - lmax) : 0;
		total += e->post[i];
	}
	for (i = 0; i < e->n; i++)
		e->post[i] = total > 0 ? e->post[i] / total : 0;
	/* ancestor sums, parents first; a merge walks its ancestors */
	for (i = 0; i < e->n; i++) {
		uint32_t x = e->topo[i];
		struct sums s = { 0, 0, 0 };

		if (e->npar[x] == 1) {
			uint32_t p = e->par[x][0];

			s.m = e->mass[p];
			s.s1 = s1[p];
			s.s2 = e->gain[p];
			add_sums(e, x, &s);
		} else if (e->npar[x] == 0) {
			add_sums(e, x, &s);
		} else {
			engine_walk_ancestors(e, x, add_sums, &s);
		}
		e->mass[x] = s.m;
		s1[x] = s.s1;
		e->gain[x] = s.s2; /* M2 until the pass below */
	}
	for (i = 0; i < e->n; i++)
		e->gain[i] = entropy(s1[i]) - e->gain[i];
	e->post_dirty = 0;
	return 0;
}

/* The most probable candidate, or -1. */
static int64_t best_candidate(const struct engine *e)
{
	int64_t best = -1;
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->post[i] > 0 && (best < 0 || e->post[i] > e->post[best]))
			best = (int64_t)i;
	return best;
}

static int taken(const uint32_t *a, size_t n, uint32_t c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] == c)
			return 1;
	return 0;
}

/*
 * The runs that verify culprit c, not already running (busy): c itself
 * until it failed twice, each parent until it passed once.  Returns how
 * many were written to out.
 */
static size_t verify_runs(const struct engine *e, uint32_t c,
			  const uint32_t *busy, size_t nbusy, uint32_t *out,
			  size_t want)
{
	size_t n = 0;
	uint32_t j;

	if (n < want && e->fails[c] < 2 && !taken(busy, nbusy, c))
		out[n++] = c;
	for (j = 0; j < e->npar[c] && n < want; j++) {
		uint32_t p = e->par[c][j];

		if (!e->passes[p] && !e->skipped[p] && !taken(busy, nbusy, p))
			out[n++] = p;
	}
	return n;
}

static int verified(const struct engine *e, uint32_t c)
{
	uint32_t j;

	if (e->fails[c] < 2)
		return 0;
	for (j = 0; j < e->npar[c]; j++)
		if (!e->passes[e->par[c][j]] && !e->skipped[e->par[c][j]])
			return 0;
	return 1;
}

enum engine_state engine_noisy_next(struct engine *e, uint32_t *out)
{
	int64_t best;
	uint32_t pick;

	if (posterior(e) || (best = best_candidate(e)) < 0)
		return ENGINE_NOTHING;
	if (e->post[best] >= e->confidence) {
		*out = (uint32_t)best;
		return verified(e, (uint32_t)best) ? ENGINE_FOUND
						   : ENGINE_VERIFY;
	}
	if (e->max_runs && e->runs >= e->max_runs)
		return ENGINE_AMBIGUOUS;
	if (engine_noisy_pick(e, NULL, 0, &pick, 1) == 0)
		return ENGINE_AMBIGUOUS;
	*out = pick;
	return ENGINE_TEST;
}

size_t engine_noisy_pick(struct engine *e, const uint32_t *busy, size_t nbusy,
			 uint32_t *out, size_t want)
{
	double band = 0.5 / (double)(nbusy + want + 1);
	int64_t best;
	size_t n = 0, i, k;

	if (posterior(e) || (best = best_candidate(e)) < 0)
		return 0;
	if (e->post[best] >= e->confidence)
		return verify_runs(e, (uint32_t)best, busy, nbusy, out, want);
	while (n < want) {
		int64_t pick = -1;

		for (i = 0; i < e->n; i++) {
			int near = 0;

			if (e->skipped[i] || e->gain[i] < MIN_GAIN ||
			    (pick >= 0 && e->gain[i] <= e->gain[pick]))
				continue;
			for (k = 0; k < nbusy && !near; k++)
				near = fabs(e->mass[i] - e->mass[busy[k]]) <
				       band;
			for (k = 0; k < n && !near; k++)
				near = fabs(e->mass[i] - e->mass[out[k]]) <
				       band;
			if (!near)
				pick = (int64_t)i;
		}
		if (pick < 0)
			break;
		out[n++] = (uint32_t)pick;
	}
	return n;
}

int engine_noisy_useful(struct engine *e, uint32_t c)
{
	uint32_t v[8];
	size_t n, i;
	int64_t best;

	if (posterior(e) || e->skipped[c])
		return 0;
	if (e->gain[c] >= MIN_GAIN)
		return 1;
	best = best_candidate(e);
	if (best < 0 || e->post[best] < e->confidence)
		return 0;
	n = verify_runs(e, (uint32_t)best, NULL, 0, v, 8);
	for (i = 0; i < n; i++)
		if (v[i] == c)
			return 1;
	return 0;
}

static int by_probability(const void *a, const void *b, void *payload)
{
	const double *post = payload;
	double pa = post[*(const uint32_t *)a], pb = post[*(const uint32_t *)b];

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

/*
 * The commits of the credible set (the most probable ones until they
 * hold 99% of the probability), most probable first.
 */
size_t engine_noisy_candidates(struct engine *e, uint32_t *out, size_t max)
{
	uint32_t *order = malloc(e->n * sizeof(*order));
	size_t n = 0, i, k;
	double sum = 0;

	if (!order || posterior(e)) {
		free(order);
		return 0;
	}
	for (i = 0; i < e->n; i++)
		if (e->post[i] > 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_probability, e->post);
	for (k = 0; k < n && sum < 0.99; k++) {
		sum += e->post[order[k]];
		if (out && k < max)
			out[k] = order[k];
	}
	free(order);
	return out && k > max ? max : k;
}

void engine_set_confidence(struct engine *e, double p, unsigned long max_runs)
{
	e->confidence = p;
	e->max_runs = max_runs;
	e->post_dirty = 1;
}

int engine_is_noisy(const struct engine *e)
{
	return e->noisy;
}

unsigned long engine_runs(const struct engine *e)
{
	return e->runs;
}

double engine_probability(struct engine *e, uint32_t c)
{
	if (c >= e->n || posterior(e))
		return 0;
	return e->post[c];
}

double engine_failure_rate(struct engine *e)
{
	double q = 0;
	size_t i;

	if (posterior(e))
		return 0;
	for (i = 0; i < e->n; i++)
		q += e->post[i] * e->qbar[i];
	return q;
}
