// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bisection when the failure does not show on every run, and may show on
 * good commits too.
 *
 * Design.  The first bad commit c* is one of the candidates: the commits
 * of the graph that are ancestors of the range's bad commit.  A commit x
 * "contains" c when c is x or one of its ancestors.  A run of x shows the
 * target failure with probability p1 when x contains c*, and p0 < p1
 * otherwise (a test that was already flaky, a boot that hits an
 * unrelated hiccup now and then: a change point in a Bernoulli rate, on
 * the graph).  Neither rate is known; their prior is a mixture of three:
 *
 *   deterministic  p0 = 0, p1 = 1                  weight DET_PRIOR
 *   clean          p0 = 0, p1 ~ Beta(A, B)          weight CLEAN_PRIOR
 *   background     p0 ~ Beta(A0, B0), p1 ~ Beta(A, B), p1 > p0
 *                                                   the rest
 *
 * For each candidate c, with F_c failures and P_c passes seen on the
 * commits that contain it and G_c, Q_c on those that do not, each rate is
 * integrated out:
 *
 *   L_det(c)   = [P_c = 0 and G_c = 0]
 *   L_clean(c) = [G_c = 0] B(A + F_c, B + P_c) / B(A, B)
 *   L_bg(c)    = B(A0 + G_c, B0 + Q_c) / B(A0, B0)
 *                B(A + F_c, B + P_c) / B(A, B)  Pr(p1 > p0 | data) / Pr(p1 > p0)
 *
 * (the order's probability under the two Beta posteriors by a normal
 * approximation), and L(c) is their sum under the weights.  A failure on
 * a commit that does not contain c no longer rules c out: it lowers its
 * probability by how likely such a failure is under p0.  The posterior
 * is L normalised over the candidates (a uniform prior), and E[p1 | c],
 * E[p0 | c] follow from the same terms.
 *
 * The next run goes where its outcome tells most about c*: a run of x
 * fails with probability s(x) = sum over c of P(c) E[rate of x | c]
 * (p1's for the candidates x contains, p0's for the others), and the
 * expected information of one run is H(s(x)) - sum of P(c) H(E[rate of
 * x | c]) bits (H the binary entropy), so a commit may be run again when
 * that is worth most; the good endpoint too, which tells p0 alone.  W
 * probes at once are the W best by that measure whose contained mass
 * differs by at least 1 / 2(W + 1).
 *
 * A culprit is concluded when its probability reaches the confidence and
 * it is verified by the same runs: it failed at least twice (it was
 * tested again) and each of its parents in the graph passed at least
 * once.  A culprit whose rate cannot be told apart from its parents'
 * never reaches the confidence: the bisection ends ambiguous.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_priv.h"
#include "error.h"

/*
 * The prior of a regression: a failure is deterministic with probability
 * det, else its rate from the culprit on is p1 ~ Beta(1, 2).  Chosen
 * with tests/sim/bisect-sim: a det of 0.5 made a lucky run of failures
 * at rate 0.5 look deterministic too often (93% right at 0.95
 * confidence), 0.2 keeps the answers calibrated at every rate down to
 * 0.3 for one more run at rate 1.  Of the rest, the clean share never
 * fails before the culprit, and the remaining 0.7 fails before it at a
 * background rate p0 ~ Beta(1, 6) (a mean of 14%: a prior that expects
 * a few percent made the answers overconfident where the rates are
 * close, 91.7% right of those found at 0.95 with p0 = 0.1 and p1 = 0.3;
 * a clean weight of 0.5 did the same at p0 = 0.1 and p1 = 0.5).  p1's
 * prior leans low (a mean of 1/3, where a uniform one's is 1/2): a
 * uniform one pulled a rate of 0.3, seen in few runs, up toward 0.5, so
 * that each pass looked like more evidence than it is (at p0 = 0.1 and
 * p1 = 0.3, 92.5% right of 1,462 found, and 93.3% of 877 with Beta(1,
 * 2); with the margin of conclude_at() below, 94.5% of 582 and 96.2% of
 * 582).
 */
struct rate_prior {
	double det, clean; /* the weights of two of the three */
	double a1, b1;	   /* the rate from the culprit on: Beta(a1, b1) */
	double a0, b0;	   /* the rate before it (background) */
	/* the clean component: the rate before is 0 and the rate after
	 * Beta(a1, b1); or, clean_after, the rate after is 1 and the rate
	 * before Beta(ca, cb) */
	int clean_after;
	double ca, cb;
};

static const struct rate_prior regression = {
	.det = 0.2, .clean = 0.1, .a1 = 1, .b1 = 2, .a0 = 1, .b0 = 6
};

/*
 * A fix bisection (engine_set_fix()): the engine's "failure" is a run
 * without the target failure, which commits holding the fix show on
 * every run (or nearly: a fix may only make a failure rarer), and
 * commits before it as often as the failure did not show there, any
 * rate: the mirror of the above.  Clean: the fix's commits never show
 * the failure, the rate before is uniform; background: the rate with
 * the fix Beta(6, 1) (a mean of 86%), before it uniform.
 */
static const struct rate_prior fixing = { .det = 0.2,
					  .clean = 0.4,
					  .a1 = 6,
					  .b1 = 1,
					  .a0 = 1,
					  .b0 = 1,
					  .clean_after = 1,
					  .ca = 1,
					  .cb = 1 };
/* below this, a run tells nothing worth its cost: ambiguous */
#define MIN_GAIN 1e-4

/*
 * A culprit is concluded at a probability of 1 - ERROR_SHARE times the
 * error the confidence allows (0.97 for 0.95).  The posterior is right
 * on average over the prior's rates, not at each pair of them: where the
 * two rates are close it is overconfident (92.6% right of those found at
 * 0.95 with p0 = 0.1 and p1 = 0.3; a fix bisection with rates 0.3 and
 * 0.05, 89%).  The bisection then runs on until its answer also holds
 * there, and reports the probability it reached.
 */
#define ERROR_SHARE 0.6

static double conclude_at(const struct engine *e)
{
	return 1 - (1 - e->confidence) * ERROR_SHARE;
}

int engine_noisy_alloc(struct engine *e)
{
	size_t n = e->n;

	e->fails = calloc(n, sizeof(*e->fails));
	e->passes = calloc(n, sizeof(*e->passes));
	e->pass_reach = calloc(n, 1);
	e->post = calloc(n, sizeof(*e->post));
	e->qbar = calloc(n, sizeof(*e->qbar));
	e->q0bar = calloc(n, sizeof(*e->q0bar));
	e->mass = calloc(n, sizeof(*e->mass));
	e->gain = calloc(n, sizeof(*e->gain));
	e->fc = calloc(n, sizeof(*e->fc));
	e->pc = calloc(n, sizeof(*e->pc));
	e->range = calloc(n, 1);
	e->s1 = calloc(n, sizeof(*e->s1));
	e->s0 = calloc(n, sizeof(*e->s0));
	e->h0 = calloc(n, sizeof(*e->h0));
	e->post_dirty = 1;
	if (!e->fails || !e->passes || !e->pass_reach || !e->post || !e->qbar ||
	    !e->q0bar || !e->mass || !e->gain || !e->fc || !e->pc ||
	    !e->range || !e->s1 || !e->s0 || !e->h0)
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
	free(e->q0bar);
	free(e->mass);
	free(e->gain);
	free(e->fc);
	free(e->pc);
	free(e->range);
	free(e->s1);
	free(e->s0);
	free(e->h0);
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
}

static void in_range(struct engine *e, uint32_t x, void *payload)
{
	(void)payload;
	e->range[x] = 1;
}

/* log(e^a + e^b), either may be -INFINITY */
static double log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* Pr(p1 > p0) for p1 ~ Beta(a1, b1) and p0 ~ Beta(a0, b0), by a normal
 * approximation of the difference */
static double order_prob(double a1, double b1, double a0, double b0)
{
	double m1 = a1 / (a1 + b1), m0 = a0 / (a0 + b0);
	double v1 = a1 * b1 / ((a1 + b1) * (a1 + b1) * (a1 + b1 + 1));
	double v0 = a0 * b0 / ((a0 + b0) * (a0 + b0) * (a0 + b0 + 1));

	return 0.5 * erfc(-(m1 - m0) / sqrt(2 * (v1 + v0)));
}

/*
 * The log-likelihood of candidate c under the three priors of pr (see
 * the design above), and the expected rates after (*q1) and before
 * (*q0).  f, p: failures and passes of the commits that contain c; g, q:
 * of the others.
 */
static double likelihood(const struct rate_prior *pr, uint32_t f, uint32_t p,
			 uint32_t g, uint32_t q, double *q1, double *q0)
{
	double after = lbeta(pr->a1 + f, pr->b1 + p) - lbeta(pr->a1, pr->b1);
	double det = p || g ? -INFINITY : log(pr->det);
	double rate1 = (pr->a1 + f) / (pr->a1 + pr->b1 + f + p);
	double rate0 = (pr->a0 + g) / (pr->a0 + pr->b0 + g + q);
	double clean, clean1, clean0, bg, l;

	if (pr->clean_after) {
		clean = p ? -INFINITY
			  : log(pr->clean) + lbeta(pr->ca + g, pr->cb + q) -
					lbeta(pr->ca, pr->cb);
		clean1 = 1;
		clean0 = (pr->ca + g) / (pr->ca + pr->cb + g + q);
	} else {
		clean = g ? -INFINITY : log(pr->clean) + after;
		clean1 = rate1;
		clean0 = 0;
	}
	bg = log(1 - pr->det - pr->clean) + after +
	     lbeta(pr->a0 + g, pr->b0 + q) - lbeta(pr->a0, pr->b0) +
	     log(order_prob(pr->a1 + f, pr->b1 + p, pr->a0 + g, pr->b0 + q)) -
	     log(order_prob(pr->a1, pr->b1, pr->a0, pr->b0));
	l = log_add(log_add(det, clean), bg);
	*q1 = exp(det - l) + exp(clean - l) * clean1 + exp(bg - l) * rate1;
	*q0 = exp(clean - l) * clean0 + exp(bg - l) * rate0;
	return l;
}

struct sums {
	double m, s1, s2, s0, h0;
};

static void add_sums(struct engine *e, uint32_t x, void *payload)
{
	struct sums *s = payload;
	double p = e->post[x];

	s->m += p;
	s->s1 += p * e->qbar[x];
	s->s2 += p * entropy(e->qbar[x]);
	s->s0 += p * e->q0bar[x];
	s->h0 += p * entropy(e->q0bar[x]);
}

/* The observations of every commit added to those of its ancestors. */
static void count_observations(struct engine *e, uint32_t *f, uint32_t *p)
{
	size_t i;

	*f = *p = 0;
	memset(e->fc, 0, e->n * sizeof(*e->fc));
	memset(e->pc, 0, e->n * sizeof(*e->pc));
	for (i = 0; i < e->n; i++) {
		struct add_obs o = { e->fails[i], e->passes[i] };

		if (!o.f && !o.p)
			continue;
		*f += o.f;
		*p += o.p;
		engine_walk_ancestors(e, (uint32_t)i, add_obs, &o);
	}
}

/*
 * The posterior of every candidate and the information of every run.
 * e->gain holds the log-likelihoods first, then M2, then the gains.
 */
static int posterior(struct engine *e)
{
	double lmax = -INFINITY, total = 0, *ll = e->gain, *s1 = e->s1;
	double t0 = 0, th0 = 0;
	uint32_t f, p;
	size_t i;

	if (!e->post_dirty)
		return 0;
	if (e->bad0 < 0 || engine_refresh(e))
		return -1;
	memset(e->range, 0, e->n);
	engine_walk_ancestors(e, (uint32_t)e->bad0, in_range, NULL);
	count_observations(e, &f, &p);
	/* a good commit holds no candidate: its runs are p0's alone */
	f += e->good_fails;
	p += e->good_passes;
	for (i = 0; i < e->n; i++) {
		ll[i] = -INFINITY;
		e->qbar[i] = e->q0bar[i] = 0;
		if (!e->range[i])
			continue;
		ll[i] = likelihood(e->fix ? &fixing : &regression, e->fc[i],
				   e->pc[i], f - e->fc[i], p - e->pc[i],
				   &e->qbar[i], &e->q0bar[i]);
		if (ll[i] > lmax)
			lmax = ll[i];
	}
	for (i = 0; i < e->n; i++) {
		e->post[i] = ll[i] > -INFINITY ? exp(ll[i] - lmax) : 0;
		total += e->post[i];
	}
	for (i = 0; i < e->n; i++) {
		e->post[i] = total > 0 ? e->post[i] / total : 0;
		t0 += e->post[i] * e->q0bar[i];
		th0 += e->post[i] * entropy(e->q0bar[i]);
	}
	/* ancestor sums, parents first; a merge walks its ancestors */
	for (i = 0; i < e->n; i++) {
		uint32_t x = e->topo[i];
		struct sums s = { 0, 0, 0, 0, 0 };

		if (e->npar[x] == 1) {
			uint32_t par = e->par[x][0];

			s.m = e->mass[par];
			s.s1 = s1[par];
			s.s2 = e->gain[par];
			s.s0 = e->s0[par];
			s.h0 = e->h0[par];
			add_sums(e, x, &s);
		} else if (e->npar[x] == 0) {
			add_sums(e, x, &s);
		} else {
			engine_walk_ancestors(e, x, add_sums, &s);
		}
		e->mass[x] = s.m;
		s1[x] = s.s1;
		e->gain[x] = s.s2; /* M2 until the pass below */
		e->s0[x] = s.s0;
		e->h0[x] = s.h0;
	}
	/* a run of x: p1 for the candidates it contains, p0 for the rest */
	for (i = 0; i < e->n; i++)
		e->gain[i] = entropy(s1[i] + t0 - e->s0[i]) -
			     (e->gain[i] + th0 - e->h0[i]);
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
	if (e->post[best] >= conclude_at(e)) {
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
	int64_t best;

	if (posterior(e) || (best = best_candidate(e)) < 0)
		return 0;
	if (e->post[best] >= conclude_at(e))
		return verify_runs(e, (uint32_t)best, busy, nbusy, out, want);
	return engine_pick_spread(e, e->gain, e->mass, NULL, MIN_GAIN, busy,
				  nbusy, out, want);
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
	if (best < 0 || e->post[best] < conclude_at(e))
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

void engine_set_fix(struct engine *e)
{
	e->fix = 1;
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

int engine_observe_good(struct engine *e, unsigned fails, unsigned passes)
{
	if (fails)
		e->noisy = 1;
	e->good_fails += fails;
	e->good_passes += passes;
	e->runs += fails + passes;
	e->post_dirty = 1;
	return 0;
}

unsigned long engine_failures_before(struct engine *e, uint32_t c)
{
	unsigned long f = e->good_fails;
	size_t i;

	if (c >= e->n || posterior(e))
		return f;
	for (i = 0; i < e->n; i++)
		f += e->fails[i];
	return f - e->fc[c];
}

double engine_probability(struct engine *e, uint32_t c)
{
	if (e->metric)
		return engine_metric_probability(e, c);
	if (c >= e->n || posterior(e))
		return 0;
	return e->post[c];
}

/* The posterior's mean of rates[c]. */
static double mean_rate(struct engine *e, const double *rates)
{
	double q = 0;
	size_t i;

	if (posterior(e))
		return 0;
	for (i = 0; i < e->n; i++)
		q += e->post[i] * rates[i];
	return q;
}

double engine_failure_rate(struct engine *e)
{
	return mean_rate(e, e->qbar);
}

double engine_failure_rate_before(struct engine *e)
{
	return mean_rate(e, e->q0bar);
}
