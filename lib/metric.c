// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bisection of a performance regression: each run of a commit gives
 * measurements (a time, a throughput) instead of a pass or a failure.
 * (These are a benchmark's values; the coordinator's Prometheus /metrics
 * is another thing, in bisectd/metrics.c.)
 *
 * Design.  The first bad commit c* is one of the candidates: the
 * ancestors of the range's bad commit (itself included).  A value v of a
 * run is seen as y = s log v, with s = 1 when lower is better and -1 when
 * higher is, so that a regression always raises y and a relative change
 * is a shift of location.  On the commits that do not contain c* (and on
 * the good endpoint, the baseline, which is outside the graph) y is
 * drawn from a Student-t distribution with NU degrees of freedom,
 * location m0 and scale sigma; on those that contain it from the same
 * with location m1 = m0 + d, where d >= log(1 + min_change) is the
 * regression.  Student-t and not a normal: one value in a hundred that is
 * three times too large (a page-cache miss, a noisy neighbour) would
 * otherwise drag a group's mean and shrink the evidence of every split.
 *
 * For each candidate c the locations and the scale are integrated out by
 * Laplace's approximation around the maximum (found by iteratively
 * reweighted least squares, the t's EM): flat priors on m0 and log sigma,
 * d uniform on [log(1 + min_change), D_MAX], so that
 *
 *   log L(c) = l(m0^, m1^, sigma^) + 3/2 log 2 pi - 1/2 log det I
 *              + log Pr(d in range | data) - log(D_MAX - log(1 + min))
 *
 * with I the t's Fisher information (for a normal this is exact up to a
 * constant that does not depend on c).  A hypothesis "no change" (one
 * location for every value) has the prior NULL_PRIOR and the candidates
 * share the rest uniformly; the posterior is L normalised.  A split is
 * the set of tested commits that contain c: candidates with the same
 * split share one fit, so a posterior costs a fit per tested commit.
 *
 * The next run goes where it tells most: a run of x lands on the after
 * side with probability m(x), the posterior mass of the candidates that
 * x contains, and one value is on the wrong side of the midpoint between
 * the two locations with probability eps = T(-d / 2 sigma); the run's
 * expected information is H(m(1 - eps) + (1 - m) eps) - H(eps) bits, so
 * the best probe splits the mass in halves, and a commit may be run again
 * (noise: the posterior, not a verdict, moves).
 *
 * The two locations are only as good as the values known to be on their
 * side: at first the baseline's and the bad endpoint's 3.  Before
 * probing, a run goes to an anchor when one side has fewer values than
 * its location needs to be known within a quarter of d (see ANCHOR_SE):
 * the bad endpoint or a commit surely after, a commit surely before or a
 * root.  And the regression a probe expects is the posterior mean of d
 * restricted to [log(1 + min_change), D_MAX], never 0.
 *
 * A culprit is concluded when its probability reaches the confidence and
 * it is verified: it and each of its parents (the baseline for a root)
 * have at least VERIFY_MIN values (the baseline 3), more when d is small
 * against sigma, and the culprit's median is worse than each parent's.
 * Until then those runs are asked for; when they reach VERIFY_MAX values
 * and the medians still disagree, or at max runs, the bisection ends
 * ambiguous.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_priv.h"
#include "error.h"

/* degrees of freedom: heavy enough tails for outliers at 3x */
#define NU 8.0
/* the largest regression expected, in log: 10x */
#define D_MAX 2.302585092994046
#define NULL_PRIOR 0.1
#define SIGMA_MIN 1e-4
/* 3 let wrong culprits through where the shift is the noise: 49 right of
 * 55 found at 5% and 5% (bisect-sim, 1000 commits), 63 of 65 with 5 */
#define VERIFY_MIN 5
#define VERIFY_MAX 12
/* and (VERIFY_SE sigma / d)^2 values where that is more (up to
 * VERIFY_MAX - 2): once the anchors let the bisections at 5% shift and 5%
 * noise conclude, 11 of 199 found were wrong with VERIFY_MIN alone, 10 of
 * 196 with 2.5, 7 of 192 with 3 (bisect-sim, 200 on 1000 commits); it
 * is VERIFY_MIN wherever d > 1.34 sigma */
#define VERIFY_SE 3.0
/* the bad endpoint's values before any other probe, and the baseline's
 * for a root culprit's verification */
#define ENDPOINT_MIN 3
#define MIN_GAIN 1e-4
/* the probes' discount of a commit's values already there: 0.1 left 4 in
 * 40 bisections of a 10% shift at 5% noise at 500 runs, 0.3 and 1 one;
 * at 5% and 5% 0.3 found 25 of 30, 0.1 20 and 1 19 (bisect-sim, 200
 * commits) */
#define REPEAT_DISCOUNT 0.3
/*
 * Anchors: the two locations are pinned by the values whose side is
 * known, at first only the baseline's 3 and the bad endpoint's 3; with
 * noise near the shift their means are often off by half of it, the
 * values of good commits then look after (or those of bad ones before),
 * the posterior drifts to the end of the range where nothing is tested
 * and the probes walk there one new commit, one value, at a time: 51 of
 * 200 bisections at 5% shift and 5% noise stopped so at 500 runs, 16 at
 * 5% and 3%.  So each side is kept at k = (ANCHOR_SE sigma / d)^2 values
 * at least (its location's standard error at most d / ANCHOR_SE), up to
 * ANCHOR_MAX, counting the commits whose side is surer than
 * 1 - ANCHOR_SURE: 23 stops of 1000 at 5% and 5%, 3 of 1000 at 5% and 3%
 * (bisect-sim, 1000 commits), half of those a culprit within 25 commits
 * of an end of the range: next to a root only the baseline's values are
 * surely before, and the baseline is the caller's to run.  ANCHOR_SE and
 * ANCHOR_MAX were set so (a quarter of d; 20 values at most on a side,
 * 16 at 5% and 5%), not tuned.
 */
#define ANCHOR_SE 4.0
#define ANCHOR_MAX 20.0
#define ANCHOR_SURE 0.01
#define FIT_ITERS 12
/* below this probability a candidate is ruled out for good */
#define PRUNE 0.0

struct vals {
	double *v; /* raw values, as given */
	double *y; /* their logs */
	uint32_t n, cap;
};

struct metric {
	int sign; /* 1: lower is better, -1: higher is better */
	double min_change, dmin;
	struct vals *c; /* per commit */
	struct vals base;
	unsigned long runs;
	int dirty;
	double *post, *mass, *gain, null_post;
	uint8_t *cand; /* a candidate: an ancestor of bad0 */
	uint64_t *sig; /* the split of each candidate */
	uint32_t *tested, ntested;
	uint8_t *contains; /* ntested x n: tested commit k contains x */
	double *y0, *y1;   /* scratch: the two groups of a split */
	double eps;	   /* a value's error rate at the best split */
	double dbest;	   /* the regression expected at the best split */
	double sigma;	   /* the scale of the last best fit: a start */
	int have_post;	   /* post holds a previous posterior */
};

struct fit {
	double m0, m1, sigma, ll, logml, d, se;
	size_t n0, n1;
};

/* --- values --------------------------------------------------------- */

static int vals_add(struct vals *a, const double *v, size_t n)
{
	size_t i;

	if (a->n + n > a->cap) {
		uint32_t cap = a->cap ? a->cap : 4;
		double *p;

		while (cap < a->n + n)
			cap *= 2;
		p = realloc(a->v, cap * sizeof(*p));
		if (!p)
			return err_set(ERR_NOMEM, "out of memory");
		a->v = p;
		p = realloc(a->y, cap * sizeof(*p));
		if (!p)
			return err_set(ERR_NOMEM, "out of memory");
		a->y = p;
		a->cap = cap;
	}
	if (n)
		memcpy(a->v + a->n, v, n * sizeof(*v));
	for (i = 0; i < n; i++)
		a->y[a->n + i] = log(v[i]);
	a->n += (uint32_t)n;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[n] (reordered), NAN for none. */
static double median_of(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double median_copy(const double *v, size_t n)
{
	double *t, m;

	if (n == 0)
		return NAN; /* (v may be NULL then) */
	if (!(t = malloc(n * sizeof(*t))))
		return NAN;
	memcpy(t, v, n * sizeof(*v));
	m = median_of(t, n);
	free(t);
	return m;
}

/* --- the Student-t fit ---------------------------------------------- */

static double t_logpdf(double r, double sigma)
{
	static double k;

	if (k == 0)
		k = lgamma((NU + 1) / 2) - lgamma(NU / 2) -
		    0.5 * log(NU * M_PI);
	return k - log(sigma) -
	       (NU + 1) / 2 * log1p(r * r / (NU * sigma * sigma));
}

/* One step of the location: the weighted mean of y[n] about m. */
static double t_location(const double *y, size_t n, double m, double sigma)
{
	double sw = 0, swy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double r = (y[i] - m) / sigma;
		double w = (NU + 1) / (NU + r * r);

		sw += w;
		swy += w * y[i];
	}
	return sw > 0 ? swy / sw : m;
}

static double t_scale_sum(const double *y, size_t n, double m, double sigma)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double r = (y[i] - m) / sigma;

		s += (NU + 1) / (NU + r * r) * (y[i] - m) * (y[i] - m);
	}
	return s;
}

static double t_ll(const double *y, size_t n, double m, double sigma)
{
	double l = 0;
	size_t i;

	for (i = 0; i < n; i++)
		l += t_logpdf(y[i] - m, sigma);
	return l;
}

/* Pr(X <= x) for X normal: the approximate posterior of d */
static double norm_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2));
}

/*
 * Fit one location (y1 NULL or n1 0: the null) or two, and the log of
 * the marginal likelihood (see the design above).
 */
static void fit(struct fit *f, const struct metric *m, double *y0, size_t n0,
		double *y1, size_t n1)
{
	size_t n = n0 + n1, it;
	double info = (NU + 1) / (NU + 3), s;
	int two = n1 > 0;

	memset(f, 0, sizeof(*f));
	f->n0 = n0;
	f->n1 = n1;
	f->m0 = median_copy(y0, n0);
	f->m1 = two ? median_copy(y1, n1) : f->m0;
	f->sigma = m->sigma > SIGMA_MIN ? m->sigma : 0.05;
	for (it = 0; it < FIT_ITERS; it++) {
		s = t_scale_sum(y0, n0, f->m0, f->sigma) +
		    (two ? t_scale_sum(y1, n1, f->m1, f->sigma) : 0);
		f->sigma = sqrt(s / (double)n);
		if (f->sigma < SIGMA_MIN)
			f->sigma = SIGMA_MIN;
		f->m0 = t_location(y0, n0, f->m0, f->sigma);
		if (two)
			f->m1 = t_location(y1, n1, f->m1, f->sigma);
	}
	f->ll = t_ll(y0, n0, f->m0, f->sigma) +
		(two ? t_ll(y1, n1, f->m1, f->sigma) : 0);
	/* Fisher information: n_g info / sigma^2 per location, 2 n nu /
	 * (nu + 3) for log sigma */
	f->logml = f->ll + 0.5 * log(2 * M_PI) -
		   0.5 * log((double)n0 * info / (f->sigma * f->sigma)) -
		   0.5 * log(2.0 * (double)n * NU / (NU + 3)) +
		   0.5 * log(2 * M_PI);
	if (!two)
		return;
	f->logml += 0.5 * log(2 * M_PI) -
		    0.5 * log((double)n1 * info / (f->sigma * f->sigma));
	f->d = f->m1 - f->m0;
	f->se = f->sigma / sqrt(info) * sqrt(1.0 / n0 + 1.0 / n1);
	f->logml += log(fmax(norm_cdf((D_MAX - f->d) / f->se) -
				     norm_cdf((m->dmin - f->d) / f->se),
			     1e-300)) -
		    log(D_MAX - m->dmin);
}

/* --- the posterior -------------------------------------------------- */

static double norm_pdf(double x)
{
	return exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

/*
 * E d: the mean of the fit's normal posterior of d truncated to [dmin,
 * D_MAX], what the probes expect of a value.  Not d^ clipped at dmin:
 * when the bad endpoint's first values happen to be no worse than the
 * baseline's, d^ <= 0 made eps 1/2 and every probe worthless, and the
 * bisection ended ambiguous after 6 runs (23 of 200 at 5% shift and 5%
 * noise, 3 of 200 at 10% and 5%).
 */
static double expected_d(const struct metric *m, const struct fit *f)
{
	double a, b, z;

	if (!(f->se > 0))
		return fmax(f->d, m->dmin);
	a = (m->dmin - f->d) / f->se;
	b = (D_MAX - f->d) / f->se;
	z = norm_cdf(b) - norm_cdf(a);
	if (z < 1e-12) /* far outside: the nearest bound */
		return f->d < m->dmin ? m->dmin + f->se / fmax(-a, 1) : D_MAX;
	return f->d + f->se * (norm_pdf(a) - norm_pdf(b)) / z;
}

int engine_metric_alloc(struct engine *e)
{
	struct metric *m = calloc(1, sizeof(*m));
	size_t n = e->n;

	if (!m)
		return err_set(ERR_NOMEM, "out of memory");
	e->metric = m;
	m->sign = 1;
	m->dirty = 1;
	m->c = calloc(n, sizeof(*m->c));
	m->post = calloc(n, sizeof(*m->post));
	m->mass = calloc(n, sizeof(*m->mass));
	m->gain = calloc(n, sizeof(*m->gain));
	m->cand = calloc(n, 1);
	m->sig = calloc(n, sizeof(*m->sig));
	m->tested = calloc(n, sizeof(*m->tested));
	if (!m->c || !m->post || !m->mass || !m->gain || !m->cand || !m->sig ||
	    !m->tested)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
}

void engine_metric_free(struct engine *e)
{
	struct metric *m = e->metric;
	size_t i;

	if (!m)
		return;
	if (m->c)
		for (i = 0; i < e->n; i++)
			free(m->c[i].v), free(m->c[i].y);
	free(m->c);
	free(m->base.v);
	free(m->base.y);
	free(m->post);
	free(m->mass);
	free(m->gain);
	free(m->cand);
	free(m->sig);
	free(m->tested);
	free(m->contains);
	free(m->y0);
	free(m->y1);
	free(m);
	e->metric = NULL;
}

int engine_set_metric(struct engine *e, int higher_is_better, double min_change)
{
	if (!(min_change >= 0 && min_change < 1))
		return err_set(ERR_INPUT,
			       "bad minimum change %g: not in [0, 1)",
			       min_change);
	if (e->runs || (e->metric && e->metric->runs))
		return err_set(ERR_GENERIC, "the engine has runs already");
	if (!e->metric && engine_metric_alloc(e)) {
		engine_metric_free(e);
		return -1;
	}
	e->metric->sign = higher_is_better ? -1 : 1;
	e->metric->min_change = min_change;
	e->metric->dmin = log1p(min_change);
	e->metric->dirty = 1;
	return 0;
}

int engine_is_metric(const struct engine *e)
{
	return e->metric != NULL;
}

static int check_values(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] <= 0)
			return err_set(ERR_INPUT,
				       "bad value %g: a measurement must be a "
				       "positive number",
				       v[i]);
	return 0;
}

int engine_observe_values(struct engine *e, uint32_t commit, const double *v,
			  size_t n)
{
	struct metric *m = e->metric;
	int rc;

	if (!m)
		return err_set(ERR_GENERIC, "the engine is not in metric mode");
	if (commit >= e->n)
		return err_set(ERR_INPUT, "no commit %u in the graph", commit);
	if ((rc = check_values(v, n)) || (rc = vals_add(&m->c[commit], v, n)))
		return rc;
	m->runs++;
	m->dirty = 1;
	return 0;
}

int engine_observe_baseline(struct engine *e, const double *v, size_t n)
{
	struct metric *m = e->metric;
	int rc;

	if (!m)
		return err_set(ERR_GENERIC, "the engine is not in metric mode");
	if ((rc = check_values(v, n)) || (rc = vals_add(&m->base, v, n)))
		return rc;
	m->runs++;
	m->dirty = 1;
	return 0;
}

struct mark {
	uint8_t *row;
	uint64_t key, *sig;
};

/* row[x] = 1 for an ancestor x of the walk's start, and its key in sig */
static void mark(struct engine *e, uint32_t x, void *payload)
{
	struct mark *k = payload;

	(void)e;
	k->row[x] = 1;
	if (k->sig)
		k->sig[x] ^= k->key;
}

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static size_t total_values(const struct engine *e)
{
	const struct metric *m = e->metric;
	size_t t = m->base.n, i;

	for (i = 0; i < m->ntested; i++)
		t += m->c[m->tested[i]].n;
	return t;
}

/* The split of candidate c: log values of the commits that do not
 * contain it (and the baseline) in y0, of those that do in y1. */
static void split(const struct engine *e, uint32_t c, size_t *n0, size_t *n1)
{
	const struct metric *m = e->metric;
	size_t i, j;

	*n0 = *n1 = 0;
	for (j = 0; j < m->base.n; j++)
		m->y0[(*n0)++] = m->sign * m->base.y[j];
	for (i = 0; i < m->ntested; i++) {
		const struct vals *a = &m->c[m->tested[i]];
		int after = m->contains[i * e->n + c];

		for (j = 0; j < a->n; j++) {
			double y = m->sign * a->y[j];

			if (after)
				m->y1[(*n1)++] = y;
			else
				m->y0[(*n0)++] = y;
		}
	}
}

static int fit_candidate(struct engine *e, uint32_t c, struct fit *f)
{
	size_t n0, n1;

	split(e, c, &n0, &n1);
	if (n0 == 0 || n1 == 0 || n0 + n1 < 3)
		return -1;
	fit(f, e->metric, e->metric->y0, n0, e->metric->y1, n1);
	return 0;
}

/* The tested commits, their ancestor rows and every candidate's split. */
static int prepare(struct engine *e)
{
	struct metric *m = e->metric;
	struct mark mk = { NULL, 0, NULL };
	size_t i, k, tot;

	m->ntested = 0;
	for (i = 0; i < e->n; i++)
		if (m->c[i].n)
			m->tested[m->ntested++] = (uint32_t)i;
	free(m->contains);
	free(m->y0);
	free(m->y1);
	tot = total_values(e) + 1;
	m->contains = calloc((m->ntested ? m->ntested : 1) * e->n, 1);
	m->y0 = malloc(tot * sizeof(*m->y0));
	m->y1 = malloc(tot * sizeof(*m->y1));
	if (!m->contains || !m->y0 || !m->y1)
		return err_set(ERR_NOMEM, "out of memory");
	memset(m->cand, 0, e->n);
	memset(m->sig, 0, e->n * sizeof(*m->sig));
	mk.row = m->cand;
	engine_walk_ancestors(e, (uint32_t)e->bad0, mark, &mk);
	for (k = 0; k < m->ntested; k++) {
		mk.row = m->contains + k * e->n;
		mk.key = mix(m->tested[k] + 1);
		mk.sig = m->sig;
		engine_walk_ancestors(e, m->tested[k], mark, &mk);
	}
	return 0;
}

static int by_sig(const void *a, const void *b, void *payload)
{
	const uint64_t *sig = payload;
	uint64_t x = sig[*(const uint32_t *)a], y = sig[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* log L for every candidate (in m->gain for now), one fit per split */
static int likelihoods(struct engine *e, double *lnull, double *lmax,
		       size_t *ncand)
{
	struct metric *m = e->metric;
	uint32_t *order = malloc(e->n * sizeof(*order));
	size_t i, k = 0;
	struct fit f;
	double l = -INFINITY, ybest_eps = 0.3, best = -INFINITY;

	if (!order)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < e->n; i++) {
		m->gain[i] = -INFINITY;
		if (m->cand[i])
			order[k++] = (uint32_t)i;
	}
	*ncand = k;
	qsort_r(order, k, sizeof(*order), by_sig, m->sig);
	for (i = 0; i < k; i++) {
		uint32_t c = order[i];

		if (i == 0 || m->sig[c] != m->sig[order[i - 1]]) {
			size_t j;
			int alive = !m->have_post;

			/* a split whose candidates are all ruled out stays so */
			for (j = i;
			     j < k && !alive && m->sig[order[j]] == m->sig[c];
			     j++)
				alive = m->post[order[j]] >= PRUNE;
			l = !alive || fit_candidate(e, c, &f) ? -INFINITY
							      : f.logml;
			if (l > best) {
				best = l;
				m->sigma = f.sigma;
				m->dbest = expected_d(m, &f);
				ybest_eps = norm_cdf(-m->dbest / (2 * f.sigma));
			}
		}
		m->gain[c] = l;
	}
	free(order);
	*lmax = best;
	m->eps = ybest_eps;
	split(e, (uint32_t)e->bad0, &i, &k);
	/* y0 holds the baseline and the commits outside bad0: add y1 */
	memcpy(m->y0 + i, m->y1, k * sizeof(*m->y1));
	fit(&f, m, m->y0, i + k, NULL, 0);
	*lnull = f.logml;
	return 0;
}

static double entropy(double p)
{
	if (p <= 0 || p >= 1)
		return 0;
	return -(p * log2(p) + (1 - p) * log2(1 - p));
}

static void add_post(struct engine *e, uint32_t x, void *payload)
{
	*(double *)payload += e->metric->post[x];
}

static int posterior(struct engine *e)
{
	struct metric *m = e->metric;
	double lnull = 0, lmax = 0, total, lc;
	size_t ncand = 0, i;
	int fitted;

	if (!m->dirty)
		return 0;
	if (e->bad0 < 0)
		return err_set(ERR_GENERIC, "no bad commit");
	if (engine_refresh(e) || prepare(e) ||
	    likelihoods(e, &lnull, &lmax, &ncand))
		return -1;
	fitted = isfinite(lmax);
	lc = log((1 - NULL_PRIOR) / (double)ncand);
	lnull += log(NULL_PRIOR);
	if (lnull > lmax + lc)
		lmax = lnull - lc;
	total = exp(lnull - lmax - lc);
	m->null_post = total;
	for (i = 0; i < e->n; i++) {
		m->post[i] =
			m->gain[i] > -INFINITY ? exp(m->gain[i] - lmax) : 0;
		total += m->post[i];
	}
	for (i = 0; i < e->n; i++)
		m->post[i] /= total;
	m->null_post /= total;
	for (i = 0; i < e->n; i++) {
		uint32_t x = e->topo[i];
		double s = 0;

		if (e->npar[x] == 1)
			s = m->mass[e->par[x][0]] + m->post[x];
		else if (e->npar[x] == 0)
			s = m->post[x];
		else
			engine_walk_ancestors(e, x, add_post, &s);
		m->mass[x] = s;
	}
	for (i = 0; i < e->n; i++) {
		/* where the candidates are told apart: the null aside */
		double p =
			m->null_post < 1 ? m->mass[i] / (1 - m->null_post) : 0;

		/* a commit with many values already says less per run: what
		 * it says of its own side is known, it is the neighbours'
		 * that is not (a discount, not the exact information) */
		m->gain[i] = entropy(p * (1 - m->eps) + (1 - p) * m->eps) -
			     entropy(m->eps);
		/* the bad endpoint tells the null from every candidate: its
		 * value is after with probability 1 - null.  Without this a
		 * culprit that is the endpoint itself stayed below the
		 * confidence, the null keeping the rest, while the probes
		 * went on among commits already known to be before */
		if (i == (size_t)e->bad0)
			m->gain[i] =
				fmax(m->gain[i],
				     entropy((1 - m->null_post) * (1 - m->eps) +
					     m->null_post * m->eps) -
					     entropy(m->eps));
		m->gain[i] /= 1 + REPEAT_DISCOUNT * m->c[i].n;
	}
	m->dirty = 0;
	m->have_post = fitted;
	return 0;
}

/* --- choosing runs -------------------------------------------------- */

static int64_t best_candidate(const struct engine *e)
{
	const struct metric *m = e->metric;
	int64_t best = -1;
	size_t i;

	for (i = 0; i < e->n; i++)
		if (m->post[i] > 0 && (best < 0 || m->post[i] > m->post[best]))
			best = (int64_t)i;
	return best;
}

static double worse_by(const struct metric *m, double after, double before)
{
	return m->sign * (log(after) - log(before));
}

/* the values the culprit and its parents need: VERIFY_MIN, more where the
 * shift is small against the noise (see VERIFY_SE) */
static uint32_t verify_min(const struct metric *m)
{
	double r = VERIFY_SE * m->sigma / fmax(m->dbest, 1e-6), k;

	k = ceil(r * r);
	if (k > VERIFY_MAX - 2)
		k = VERIFY_MAX - 2;
	return k > VERIFY_MIN ? (uint32_t)k : VERIFY_MIN;
}

/*
 * The state of culprit c's verification: 1 verified, 0 not yet (the
 * runs it needs in out, up to want, the commit with fewest values
 * first), -1 it cannot be (the medians disagree at VERIFY_MAX).
 */
static int verify(const struct engine *e, uint32_t c, const uint32_t *busy,
		  size_t nbusy, uint32_t *out, size_t want, size_t *nout)
{
	const struct metric *m = e->metric;
	double mc = median_copy(m->c[c].v, m->c[c].n);
	uint32_t vmin = verify_min(m), need = vmin, j, k;
	int ok = 1, room = m->c[c].n < VERIFY_MAX;
	size_t n = 0;

	for (j = 0; j < e->npar[c] || (j == 0 && !e->npar[c]); j++) {
		const struct vals *p =
			e->npar[c] ? &m->c[e->par[c][j]] : &m->base;

		if (e->npar[c] && e->skipped[e->par[c][j]])
			continue;
		/* the baseline is the caller's: its 3 runs do */
		if (p->n < (e->npar[c] ? vmin : ENDPOINT_MIN) ||
		    m->c[c].n < vmin)
			ok = 0;
		else if (!(worse_by(m, mc, median_copy(p->v, p->n)) > 0))
			ok = 0, need = VERIFY_MAX;
		room |= e->npar[c] && p->n < VERIFY_MAX;
	}
	if (ok)
		return 1;
	if (!room)
		return -1;
	if (m->c[c].n < need)
		for (k = 0; k < nbusy && busy[k] != c; k++)
			;
	if (m->c[c].n < need && k == nbusy && n < want)
		out[n++] = c;
	for (j = 0; j < e->npar[c] && n < want; j++) {
		uint32_t p = e->par[c][j];

		for (k = 0; k < nbusy && busy[k] != p; k++)
			;
		if (!e->skipped[p] && m->c[p].n < need && k == nbusy)
			out[n++] = p;
	}
	*nout = n;
	return 0;
}

static int is_busy(const uint32_t *busy, size_t nbusy, uint32_t c)
{
	size_t k;

	for (k = 0; k < nbusy; k++)
		if (busy[k] == c)
			return 1;
	return 0;
}

/*
 * A run that pins a location (see the design above): the bad endpoint
 * or a commit already after with probability > 1 - ANCHOR_SURE while the
 * after side has fewer than k values, else one before (p < ANCHOR_SURE,
 * else the candidate least likely after: a root) while that side has
 * fewer than k, the baseline counting; -1 for none.  Among the commits
 * of a side, the one with most values, so that they pile up where the
 * side is surest.
 */
static int64_t anchor(const struct engine *e, const uint32_t *busy,
		      size_t nbusy)
{
	const struct metric *m = e->metric;
	size_t n0 = m->base.n, n1 = 0, i;
	int64_t b0 = -1, b1 = -1, low = -1;
	double r, k;

	if (!(m->null_post < 1))
		return -1;
	r = ANCHOR_SE * m->sigma / fmax(m->dbest, 1e-6);
	k = fmin(r * r, ANCHOR_MAX);
	for (i = 0; i < e->n; i++) {
		double p = m->mass[i] / (1 - m->null_post);
		uint32_t n = m->c[i].n;
		int idle = !is_busy(busy, nbusy, (uint32_t)i);

		if (!m->cand[i] || e->skipped[i])
			continue;
		if (idle && (low < 0 || m->mass[i] < m->mass[low]))
			low = (int64_t)i;
		if (p < ANCHOR_SURE) {
			n0 += n;
			if (idle &&
			    (b0 < 0 || n > m->c[b0].n ||
			     (n == m->c[b0].n && m->mass[i] < m->mass[b0])))
				b0 = (int64_t)i;
		} else if (p > 1 - ANCHOR_SURE) {
			n1 += n;
			if (idle &&
			    (b1 < 0 || n > m->c[b1].n ||
			     (n == m->c[b1].n && m->mass[i] > m->mass[b1])))
				b1 = (int64_t)i;
		}
	}
	if (n1 < k && b1 >= 0 && (n1 <= n0 || b0 < 0 || n0 >= k))
		return b1;
	if (n0 < k && b0 >= 0)
		return b0;
	if (n0 < k && b0 < 0 && low >= 0 && m->c[low].n < k)
		return low;
	return -1;
}

size_t engine_metric_pick(struct engine *e, const uint32_t *busy, size_t nbusy,
			  uint32_t *out, size_t want)
{
	struct metric *m = e->metric;
	size_t n = 0;
	int64_t best, a;

	if (posterior(e))
		return 0;
	if (m->c[e->bad0].n < ENDPOINT_MIN) {
		out[0] = (uint32_t)e->bad0;
		return want ? 1 : 0;
	}
	best = best_candidate(e);
	if (best >= 0 && m->post[best] >= e->confidence) {
		if (verify(e, (uint32_t)best, busy, nbusy, out, want, &n) == 0)
			return n;
		return 0;
	}
	if (want && (a = anchor(e, busy, nbusy)) >= 0) {
		/* the anchor, and probes for the other workers */
		uint32_t *b = malloc((nbusy + 1) * sizeof(*b));

		out[0] = (uint32_t)a;
		if (!b || want == 1) {
			free(b);
			return 1;
		}
		if (nbusy)
			memcpy(b, busy, nbusy * sizeof(*b));
		b[nbusy] = (uint32_t)a;
		n = engine_pick_spread(e, m->gain, m->mass, m->cand, MIN_GAIN,
				       b, nbusy + 1, out + 1, want - 1);
		free(b);
		return n + 1;
	}
	return engine_pick_spread(e, m->gain, m->mass, m->cand, MIN_GAIN, busy,
				  nbusy, out, want);
}

enum engine_state engine_metric_next(struct engine *e, uint32_t *out)
{
	struct metric *m = e->metric;
	uint32_t pick;
	int64_t best;
	size_t n = 0;
	int v;

	if (e->bad0 < 0 || posterior(e))
		return ENGINE_NOTHING;
	if (m->c[e->bad0].n < ENDPOINT_MIN) {
		*out = (uint32_t)e->bad0;
		return ENGINE_TEST;
	}
	if (m->base.n == 0 || (best = best_candidate(e)) < 0)
		return ENGINE_NOTHING;
	if (m->post[best] >= e->confidence) {
		*out = (uint32_t)best;
		v = verify(e, (uint32_t)best, NULL, 0, &pick, 1, &n);
		if (v > 0)
			return ENGINE_FOUND;
		if (v < 0 || (e->max_runs && m->runs >= e->max_runs))
			return ENGINE_AMBIGUOUS;
		if (n == 0) /* the baseline is the caller's to run */
			return ENGINE_AMBIGUOUS;
		*out = pick;
		return ENGINE_VERIFY;
	}
	if (e->max_runs && m->runs >= e->max_runs)
		return ENGINE_AMBIGUOUS;
	if (engine_metric_pick(e, NULL, 0, &pick, 1) == 0)
		return ENGINE_AMBIGUOUS;
	*out = pick;
	return ENGINE_TEST;
}

/* --- for the report ------------------------------------------------- */

double engine_metric_probability(struct engine *e, uint32_t c)
{
	if (c >= e->n || posterior(e))
		return 0;
	return e->metric->post[c];
}

double engine_metric_null_probability(struct engine *e)
{
	if (posterior(e))
		return 0;
	return e->metric->null_post;
}

unsigned long engine_metric_runs(const struct engine *e)
{
	return e->metric ? e->metric->runs : 0;
}

size_t engine_metric_values(const struct engine *e, uint32_t c,
			    const double **out)
{
	const struct vals *a;

	if (!e->metric || c >= e->n) {
		*out = NULL;
		return 0;
	}
	a = &e->metric->c[c];
	*out = a->v;
	return a->n;
}

double engine_metric_median(const struct engine *e, uint32_t c)
{
	if (!e->metric || c >= e->n)
		return NAN;
	return median_copy(e->metric->c[c].v, e->metric->c[c].n);
}

double engine_metric_baseline_median(const struct engine *e)
{
	if (!e->metric)
		return NAN;
	return median_copy(e->metric->base.v, e->metric->base.n);
}

/* the 97.5% quantile of Student's t with k degrees of freedom */
static double t975(size_t k)
{
	static const double q[] = { 12.71, 4.303, 3.182, 2.776, 2.571,
				    2.447, 2.365, 2.306, 2.262, 2.228,
				    2.201, 2.179, 2.160, 2.145, 2.131,
				    2.120, 2.110, 2.101, 2.093, 2.086 };

	if (k == 0)
		return INFINITY;
	if (k <= 20)
		return q[k - 1];
	return 1.96 + 2.5 / (double)k;
}

static void raw_split(const struct engine *e, uint32_t c, double *r0,
		      size_t *n0, double *r1, size_t *n1)
{
	const struct metric *m = e->metric;
	size_t i, j;

	*n0 = *n1 = 0;
	if (m->base.n)
		memcpy(r0, m->base.v, m->base.n * sizeof(*r0));
	*n0 = m->base.n;
	for (i = 0; i < m->ntested; i++) {
		const struct vals *a = &m->c[m->tested[i]];
		int after = m->contains[i * e->n + c];

		for (j = 0; j < a->n; j++)
			if (after)
				r1[(*n1)++] = a->v[j];
			else
				r0[(*n0)++] = a->v[j];
	}
}

int engine_metric_summary(struct engine_metric_summary *out, struct engine *e,
			  uint32_t c)
{
	struct metric *m = e->metric;
	double *r0 = NULL, *r1 = NULL, lo, hi;
	size_t n0, n1;
	struct fit f;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!m)
		return err_set(ERR_GENERIC, "the engine is not in metric mode");
	if (c >= e->n)
		return err_set(ERR_INPUT, "no commit %u in the graph", c);
	if (posterior(e))
		return -1;
	r0 = malloc((total_values(e) + 1) * sizeof(*r0));
	r1 = malloc((total_values(e) + 1) * sizeof(*r1));
	if (!r0 || !r1) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	raw_split(e, c, r0, &n0, r1, &n1);
	out->runs_before = n0;
	out->runs_after = n1;
	out->median_before = median_of(r0, n0);
	out->median_after = median_of(r1, n1);
	out->probability = m->post[c];
	out->null_probability = m->null_post;
	if (fit_candidate(e, c, &f)) {
		out->change = out->change_lo = out->change_hi = NAN;
		goto out;
	}
	lo = f.d - t975(n0 + n1 - 2) * f.se;
	hi = f.d + t975(n0 + n1 - 2) * f.se;
	out->change = expm1(m->sign * f.d);
	out->change_lo = expm1(m->sign > 0 ? lo : -hi);
	out->change_hi = expm1(m->sign > 0 ? hi : -lo);
out:
	free(r0);
	free(r1);
	return rc;
}

static int by_post(const void *a, const void *b, void *payload)
{
	const double *post = payload;
	double x = post[*(const uint32_t *)a], y = post[*(const uint32_t *)b];

	return x > y ? -1 : x < y;
}

size_t engine_metric_candidates(struct engine *e, uint32_t *out, size_t max)
{
	struct metric *m = e->metric;
	uint32_t *order;
	double sum = 0;
	size_t k = 0, n = 0, i;

	if (posterior(e) || !(order = malloc(e->n * sizeof(*order))))
		return 0;
	for (i = 0; i < e->n; i++)
		if (m->post[i] > 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_post, m->post);
	/* most probable first, until 99% of the mass */
	for (k = 0; k < n && sum < 0.99 * (1 - m->null_post); k++) {
		sum += m->post[order[k]];
		if (out && k < max)
			out[k] = order[k];
	}
	free(order);
	return out && k > max ? max : k;
}

int engine_metric_useful(struct engine *e, uint32_t c)
{
	uint32_t v[8];
	size_t n, i;

	if (c >= e->n || posterior(e) || e->skipped[c])
		return 0;
	n = engine_metric_pick(e, NULL, 0, v, 8);
	for (i = 0; i < n; i++)
		if (v[i] == c)
			return 1;
	return e->metric->cand[c] && e->metric->gain[c] >= MIN_GAIN;
}

/* --- two samples: a patch's effect ---------------------------------- */

int metric_compare(struct metric_change *out, const double *v0, size_t n0,
		   const double *v1, size_t n1, int higher_is_better,
		   double min_change)
{
	struct metric m = { .sign = 1, .dmin = -D_MAX };
	double *y = NULL, lo, hi, t, k;
	struct fit f;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n0 || !n1)
		return err_set(ERR_INPUT, "no value %s",
			       n0 ? "with" : "without");
	if (check_values(v0, n0) || check_values(v1, n1))
		return ERR_INPUT;
	if (!(min_change >= 0) || min_change >= 1)
		return err_set(ERR_INPUT, "min_change %g is not in [0, 1)",
			       min_change);
	if (!(y = malloc((n0 + n1) * sizeof(*y))))
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < n0; i++)
		y[i] = log(v0[i]);
	for (i = 0; i < n1; i++)
		y[n0 + i] = log(v1[i]);
	fit(&f, &m, y, n0, y + n0, n1);
	free(y);
	out->n0 = n0;
	out->n1 = n1;
	out->median0 = median_copy(v0, n0);
	out->median1 = median_copy(v1, n1);
	/* the fit's scale is a maximum likelihood one (over n, not n - 2):
	 * widened for the two locations it spent, or 5 runs a side hold
	 * the true change in 92% of 95% intervals */
	k = n0 + n1 > 2 ? t975(n0 + n1 - 2) * sqrt((double)(n0 + n1) /
						   (double)(n0 + n1 - 2))
			: INFINITY;
	lo = f.d - k * f.se;
	hi = f.d + k * f.se;
	out->change = expm1(f.d);
	out->change_lo = expm1(lo);
	out->change_hi = expm1(hi);
	/* in the metric's "worse" direction, on the log scale: a gain of
	 * min_change or more is below -t */
	t = log1p(min_change);
	if (higher_is_better) {
		double w = lo;

		lo = -hi;
		hi = -w;
	}
	if (!isfinite(lo) || !isfinite(hi))
		out->verdict = METRIC_UNCLEAR;
	else if (hi < -t)
		out->verdict = METRIC_BETTER;
	else if (lo > -t)
		out->verdict = METRIC_NOT_BETTER;
	else
		out->verdict = METRIC_UNCLEAR;
	return 0;
}
