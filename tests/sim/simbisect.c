// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated bisections (see simbisect.h): the engine driven as the
 * scheduler drives it, against an oracle instead of builds and boots.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "simbisect.h"

uint64_t sim_rand(uint64_t *rng)
{
	/* xorshift64* */
	uint64_t x = *rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

double sim_uniform(uint64_t *rng)
{
	return (double)(sim_rand(rng) >> 11) / 9007199254740992.0;
}

int sim_dag_new(struct sim_dag *d, size_t n, uint64_t *rng)
{
	size_t o = 0, k;
	uint32_t tip = 0;

	memset(d, 0, sizeof(*d));
	d->par = calloc(n, sizeof(*d->par));
	d->npar = calloc(n, 1);
	if (!d->par || !d->npar) {
		sim_dag_free(d);
		return err_set(ERR_NOMEM, "out of memory");
	}
	d->n = n;
	/* built oldest first (index o), stored newest first (n - 1 - o) */
#define ADD(p1, p2, np)                                                        \
	do {                                                                   \
		d->par[n - 1 - o][0] = (uint32_t)(n - 1 - (p1));               \
		d->par[n - 1 - o][1] = (uint32_t)(n - 1 - (p2));               \
		d->npar[n - 1 - o] = (np);                                     \
		o++;                                                           \
	} while (0)
	o = 1; /* the root: its parent is the good endpoint, outside */
	while (o < n) {
		if (sim_uniform(rng) < 0.08 && o + 14 < n) {
			size_t len = 1 + sim_rand(rng) % 8, more;
			uint32_t side = tip;

			for (k = 0; k < len; k++) {
				ADD(side, 0, 1);
				side = (uint32_t)(o - 1);
			}
			more = sim_rand(rng) % 4;
			for (k = 0; k < more; k++) {
				ADD(tip, 0, 1);
				tip = (uint32_t)(o - 1);
			}
			ADD(tip, side, 2);
		} else {
			ADD(tip, 0, 1);
		}
		tip = (uint32_t)(o - 1);
	}
#undef ADD
	return 0;
}

void sim_dag_free(struct sim_dag *d)
{
	free(d->par);
	free(d->npar);
	memset(d, 0, sizeof(*d));
}

/* bad[x]: x contains the culprit (parents have larger indices) */
static uint8_t *oracle(const struct sim_dag *d, uint32_t culprit)
{
	uint8_t *bad = calloc(d->n, 1);
	size_t i;

	if (!bad)
		return NULL;
	for (i = d->n; i-- > 0;) {
		uint32_t j;

		bad[i] = i == culprit;
		for (j = 0; j < d->npar[i]; j++)
			bad[i] |= bad[d->par[i][j]];
	}
	return bad;
}

/* runs of c, failing at rate q when c is bad and p0 when not; returns
 * how many showed the failure */
static unsigned run(const uint8_t *bad, uint32_t c, unsigned runs, double q,
		    double p0, uint64_t *rng)
{
	unsigned f = 0, i;

	for (i = 0; i < runs; i++)
		f += sim_uniform(rng) < (bad[c] ? q : p0);
	return f;
}

/*
 * The engine's next runs, w at most (16), in picks; 0 when it ended, with
 * its answer in out.
 */
static size_t next_picks(struct engine *e, struct sim_result *out,
			 uint32_t *picks, size_t w)
{
	uint32_t pick = 0;
	enum engine_state st = engine_next(e, &pick);
	size_t np;

	if (st != ENGINE_TEST && st != ENGINE_VERIFY) {
		out->found = st == ENGINE_FOUND;
		out->culprit = pick;
		return 0;
	}
	np = engine_next_many(e, picks, w < 16 ? w : 16);
	if (np == 0) {
		picks[0] = pick;
		np = 1;
	}
	return np;
}

int sim_bisect(struct sim_result *out, const struct sim_dag *d,
	       uint32_t culprit, double q, double p0, size_t w,
	       double confidence, unsigned runs, uint64_t *rng)
{
	return sim_bisect_mode(out, d, culprit, q, p0, w, confidence, runs, 0,
			       rng);
}

int sim_bisect_fix(struct sim_result *out, const struct sim_dag *d,
		   uint32_t fix, double before, double after, size_t w,
		   double confidence, uint64_t *rng)
{
	/* the engine's "failure" is a run without the failure */
	return sim_bisect_mode(out, d, fix, 1 - after, 1 - before, w,
			       confidence, 1, 1, rng);
}

int sim_bisect_mode(struct sim_result *out, const struct sim_dag *d,
		    uint32_t culprit, double q, double p0, size_t w,
		    double confidence, unsigned runs, int fix, uint64_t *rng)
{
	uint8_t *bad = oracle(d, culprit);
	struct engine *e = NULL;
	uint32_t picks[16];
	unsigned f = 0, k;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!bad || (rc = engine_new(&e, d->n)))
		goto fail;
	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->npar[i]; k++)
			engine_add_parent(e, (uint32_t)i, d->par[i][k]);
	engine_set_bad(e, 0);
	engine_set_confidence(e, confidence, 0);
	if (fix)
		engine_set_fix(e);
	if (confidence > 0) {
		unsigned tries = 0;

		while (f < 3 && tries < 10) {
			unsigned x = run(bad, 0, 1, q, p0, rng);

			engine_observe(e, 0, x, 1 - x);
			f += x;
			tries++;
		}
		out->endpoint_runs = tries;
		/* a fix bisection's old endpoint, as bisectd runs it: until
		 * it showed the failure 3 times or ran 10 times (its runs
		 * with the failure are the engine's passes) */
		for (tries = 0, k = 0; fix && k < 3 && tries < 10; tries++) {
			unsigned x = sim_uniform(rng) < p0;

			engine_observe_good(e, x, 1 - x);
			k += 1 - x;
		}
		out->endpoint_runs += fix ? tries : 0;
	} else {
		f = run(bad, 0, runs, q, p0, rng);
		out->endpoint_runs = runs;
	}
	out->runs = out->endpoint_runs;
	if (!f) {
		out->not_reproduced = 1;
		goto out;
	}
	for (;;) {
		size_t np = next_picks(e, out, picks, w);

		if (np == 0)
			break;
		for (i = 0; i < np; i++) {
			unsigned n = confidence > 0 ? 1 : runs;
			unsigned x = run(bad, picks[i], n, q, p0, rng);

			out->runs += n;
			if (confidence > 0)
				engine_observe(e, picks[i], x, n - x);
			else
				engine_mark(e, picks[i],
					    x ? VERDICT_BAD : VERDICT_GOOD);
		}
		if (out->runs > 100000)
			break;
	}
	out->noisy = engine_is_noisy(e);
	if (confidence > 0)
		out->confidence =
			out->found ? engine_probability(e, out->culprit) : 0;
out:
	engine_free(e);
	free(bad);
	return 0;
fail:
	engine_free(e);
	free(bad);
	return err_set(ERR_NOMEM, "out of memory");
}

double sim_normal(uint64_t *rng)
{
	double u = sim_uniform(rng), v = sim_uniform(rng);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static double metric_value(const uint8_t *bad, int64_t c,
			   const struct sim_metric *p, uint64_t *rng)
{
	double s = sqrt(log1p(p->cv * p->cv));
	double v = exp(s * sim_normal(rng) - s * s / 2);

	if (c >= 0 && bad[c])
		v *= 1 + p->shift;
	if (sim_uniform(rng) < p->outliers)
		v *= 3;
	return v;
}

int sim_metric_bisect(struct sim_result *out, const struct sim_dag *d,
		      uint32_t culprit, const struct sim_metric *p,
		      uint64_t *rng)
{
	uint8_t *bad = oracle(d, culprit);
	struct engine *e = NULL;
	uint32_t picks[16];
	size_t i, k;
	double v;

	memset(out, 0, sizeof(*out));
	if (!bad || engine_new(&e, d->n))
		goto fail;
	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->npar[i]; k++)
			engine_add_parent(e, (uint32_t)i, d->par[i][k]);
	if (engine_set_metric(e, 0, p->min_change))
		goto fail;
	engine_set_bad(e, 0);
	engine_set_confidence(e, p->confidence, p->max_runs);
	for (i = 0; i < 3; i++) {
		v = metric_value(bad, -1, p, rng);
		engine_observe_baseline(e, &v, 1);
	}
	out->endpoint_runs = 3;
	out->runs = 3;
	for (;;) {
		size_t np = next_picks(e, out, picks, p->w);

		if (np == 0)
			break;
		for (i = 0; i < np; i++) {
			v = metric_value(bad, picks[i], p, rng);
			engine_observe_values(e, picks[i], &v, 1);
			out->runs++;
		}
		if (out->runs > 100000)
			break;
	}
	out->confidence = out->found ? engine_probability(e, out->culprit) : 0;
	engine_free(e);
	free(bad);
	return 0;
fail:
	engine_free(e);
	free(bad);
	return err_set(ERR_NOMEM, "out of memory");
}
