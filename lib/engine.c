// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection engine.
 *
 * Design.  The graph is fixed when the engine is made: the commits that
 * were candidates at the start (ancestors of the first bad commit that no
 * good commit reaches) and the parent edges among them.  Everything else is
 * derived from three pieces of state:
 *
 *   good_reach[c]  c is a good commit or an ancestor of one;
 *   skipped[c]     c was skipped;
 *   bad            the most recent bad commit.
 *
 * The candidates are the ancestors of bad (itself included) that are not
 * good_reach; since every ancestor of a good commit outside the graph is
 * already excluded, this is exactly git's candidate set.
 *
 * The weight of a candidate is the number of candidates among its
 * ancestors, itself included.  Walking the graph parents-first, a commit
 * with one candidate parent weighs its parent's weight plus one; a merge is
 * counted by a walk over its ancestors, as git's count_distance() does.
 * The best commit to test maximises min(weight, N - weight); ties go to
 * the earliest in rev-list order.  Skipped commits stay candidates (they
 * count in weights) but are never chosen.  Untestable commits come in
 * stretches (a build broken for a while, a second failure that masks a
 * range): near a skipped commit, the next one is not its neighbour but
 * the best one outside the stretch that the skipped commits around it
 * make, widened by its span and 2 on each side, so that the distance
 * grows with each skip and a stretch of L commits costs about log(L)
 * probes, not L (skip_away()).  When only the bad commit and
 * skipped commits remain, the result is ambiguous and all of them are the
 * answer, as `git bisect` reports it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_priv.h"
#include "error.h"

int engine_new(struct engine **out, size_t n)
{
	struct engine *e;

	*out = NULL;
	if (n == 0 || n > UINT32_MAX / 2)
		return err_set(ERR_INPUT, "bad graph size %zu", n);
	e = calloc(1, sizeof(*e));
	if (!e)
		return err_set(ERR_NOMEM, "out of memory");
	e->n = n;
	e->par = calloc(n, sizeof(*e->par));
	e->npar = calloc(n, sizeof(*e->npar));
	e->cappar = calloc(n, sizeof(*e->cappar));
	e->good_reach = calloc(n, 1);
	e->skipped = calloc(n, 1);
	e->in_c = calloc(n, 1);
	e->weight = calloc(n, sizeof(*e->weight));
	e->seen = calloc(n, sizeof(*e->seen));
	e->stack = calloc(n, sizeof(*e->stack));
	e->bad = -1;
	e->bad0 = -1;
	e->dirty = 1;
	e->det_found = -1;
	if (!e->par || !e->npar || !e->cappar || !e->good_reach ||
	    !e->skipped || !e->in_c || !e->weight || !e->seen || !e->stack ||
	    engine_noisy_alloc(e)) {
		engine_free(e);
		return err_set(ERR_NOMEM, "out of memory");
	}
	*out = e;
	return 0;
}

void engine_free(struct engine *e)
{
	size_t i;

	if (!e)
		return;
	if (e->par)
		for (i = 0; i < e->n; i++)
			free(e->par[i]);
	free(e->par);
	free(e->npar);
	free(e->cappar);
	free(e->topo);
	free(e->good_reach);
	free(e->skipped);
	free(e->in_c);
	free(e->weight);
	free(e->seen);
	free(e->stack);
	engine_noisy_free(e);
	engine_metric_free(e);
	free(e);
}

int engine_add_parent(struct engine *e, uint32_t child, uint32_t parent)
{
	uint32_t *p;

	if (child >= e->n || parent >= e->n || child == parent)
		return err_set(ERR_INPUT, "bad edge %u -> %u", child, parent);
	if (e->topo)
		return err_set(ERR_GENERIC, "graph is already in use");
	if (e->npar[child] == e->cappar[child]) {
		uint32_t cap = e->cappar[child] ? e->cappar[child] * 2 : 2;

		p = realloc(e->par[child], cap * sizeof(*p));
		if (!p)
			return err_set(ERR_NOMEM, "out of memory");
		e->par[child] = p;
		e->cappar[child] = cap;
	}
	e->par[child][e->npar[child]++] = parent;
	return 0;
}

/* Parents-first order by an iterative depth-first post-order walk. */
static int build_topo(struct engine *e)
{
	uint32_t *next = calloc(e->n, sizeof(*next));
	uint8_t *state = calloc(e->n, 1); /* 0 new, 1 on stack, 2 done */
	size_t i, k = 0, sp;

	e->topo = malloc(e->n * sizeof(*e->topo));
	if (!next || !state || !e->topo) {
		free(next);
		free(state);
		free(e->topo);
		e->topo = NULL;
		return err_set(ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < e->n; i++) {
		if (state[i])
			continue;
		sp = 0;
		e->stack[sp++] = (uint32_t)i;
		state[i] = 1;
		while (sp) {
			uint32_t c = e->stack[sp - 1];

			if (next[c] < e->npar[c]) {
				uint32_t p = e->par[c][next[c]++];

				if (!state[p]) {
					state[p] = 1;
					e->stack[sp++] = p;
				}
				continue;
			}
			state[c] = 2;
			e->topo[k++] = c;
			sp--;
		}
	}
	free(next);
	free(state);
	return 0;
}

uint32_t engine_next_stamp(struct engine *e)
{
	if (++e->stamp == 0) {
		memset(e->seen, 0, e->n * sizeof(*e->seen));
		e->stamp = 1;
	}
	return e->stamp;
}

/* Count the candidates among the ancestors of c, c included. */
static uint32_t count_ancestors(struct engine *e, uint32_t c)
{
	uint32_t stamp = engine_next_stamp(e), count = 0;
	size_t sp = 0;

	e->seen[c] = stamp;
	e->stack[sp++] = c;
	while (sp) {
		uint32_t x = e->stack[--sp], j;

		count++;
		for (j = 0; j < e->npar[x]; j++) {
			uint32_t p = e->par[x][j];

			if (e->in_c[p] && e->seen[p] != stamp) {
				e->seen[p] = stamp;
				e->stack[sp++] = p;
			}
		}
	}
	return count;
}

static void recompute(struct engine *e)
{
	size_t i, sp = 0;

	memset(e->in_c, 0, e->n);
	e->nc = 0;
	if (e->bad >= 0 && !e->good_reach[e->bad]) {
		e->in_c[e->bad] = 1;
		e->stack[sp++] = (uint32_t)e->bad;
	}
	while (sp) {
		uint32_t x = e->stack[--sp], j;

		e->nc++;
		for (j = 0; j < e->npar[x]; j++) {
			uint32_t p = e->par[x][j];

			if (!e->in_c[p] && !e->good_reach[p]) {
				e->in_c[p] = 1;
				e->stack[sp++] = p;
			}
		}
	}
	for (i = 0; i < e->n; i++) {
		uint32_t c = e->topo[i], j, nin = 0, last = 0;

		if (!e->in_c[c])
			continue;
		for (j = 0; j < e->npar[c]; j++)
			if (e->in_c[e->par[c][j]]) {
				nin++;
				last = e->par[c][j];
			}
		if (nin == 0)
			e->weight[c] = 1;
		else if (nin == 1)
			e->weight[c] = e->weight[last] + 1;
		else
			e->weight[c] = count_ancestors(e, c);
	}
	e->dirty = 0;
}

void engine_walk_ancestors(struct engine *e, uint32_t c,
			   void (*fn)(struct engine *e, uint32_t x,
				      void *payload),
			   void *payload)
{
	uint32_t stamp = engine_next_stamp(e);
	size_t sp = 0;

	e->seen[c] = stamp;
	e->stack[sp++] = c;
	while (sp) {
		uint32_t x = e->stack[--sp], j;

		fn(e, x, payload);
		for (j = 0; j < e->npar[x]; j++) {
			uint32_t p = e->par[x][j];

			if (e->seen[p] != stamp) {
				e->seen[p] = stamp;
				e->stack[sp++] = p;
			}
		}
	}
}

size_t engine_pick_spread(struct engine *e, const double *gain,
			  const double *mass, const uint8_t *allowed,
			  double min_gain, const uint32_t *busy, size_t nbusy,
			  uint32_t *out, size_t want)
{
	double band = 0.5 / (double)(nbusy + want + 1);
	size_t n = 0, i, k;

	while (n < want) {
		int64_t pick = -1;

		for (i = 0; i < e->n; i++) {
			int near = 0;

			if (e->skipped[i] || (allowed && !allowed[i]) ||
			    gain[i] < min_gain ||
			    (pick >= 0 && gain[i] <= gain[pick]))
				continue;
			for (k = 0; k < nbusy && !near; k++)
				near = fabs(mass[i] - mass[busy[k]]) < band;
			for (k = 0; k < n && !near; k++)
				near = fabs(mass[i] - mass[out[k]]) < band;
			if (!near)
				pick = (int64_t)i;
		}
		if (pick < 0)
			break;
		out[n++] = (uint32_t)pick;
	}
	return n;
}

int engine_refresh(struct engine *e)
{
	if (!e->topo && build_topo(e))
		return -1;
	if (e->dirty)
		recompute(e);
	return 0;
}

/* git's bisection: move bad, exclude a good commit's ancestors, skip. */
static int det_mark(struct engine *e, uint32_t commit, enum verdict v)
{
	size_t sp = 0;
	/*
	 * A verdict on a commit that is no longer a candidate says nothing
	 * new (a probe overtaken by another one's result): ignore it, rather
	 * than move the bad commit back out of the range.
	 */
	if ((v == VERDICT_GOOD || v == VERDICT_BAD) && e->bad >= 0) {
		if (engine_refresh(e))
			return ERR_NOMEM;
		if (!e->in_c[commit])
			return 0;
	}
	switch (v) {
	case VERDICT_BAD:
		e->bad = commit;
		break;
	case VERDICT_SKIP:
		e->skipped[commit] = 1;
		break;
	case VERDICT_GOOD:
		if (e->good_reach[commit])
			break;
		e->good_reach[commit] = 1;
		e->stack[sp++] = commit;
		while (sp) {
			uint32_t x = e->stack[--sp], j;

			for (j = 0; j < e->npar[x]; j++) {
				uint32_t p = e->par[x][j];

				if (!e->good_reach[p]) {
					e->good_reach[p] = 1;
					e->stack[sp++] = p;
				}
			}
		}
		break;
	default:
		return 0;
	}
	e->dirty = 1;
	e->det_found = -1;
	return 0;
}

int engine_set_bad(struct engine *e, uint32_t commit)
{
	if (commit >= e->n)
		return err_set(ERR_INPUT, "no commit %u in the graph", commit);
	if (e->bad0 < 0)
		e->bad0 = commit;
	e->post_dirty = 1;
	return det_mark(e, commit, VERDICT_BAD);
}

int engine_observe(struct engine *e, uint32_t commit, unsigned fails,
		   unsigned passes)
{
	if (commit >= e->n)
		return err_set(ERR_INPUT, "no commit %u in the graph", commit);
	if (e->metric)
		return err_set(ERR_GENERIC, "the engine is in metric mode");
	if (!fails && !passes)
		return 0;
	if (fails && e->bad0 < 0)
		e->bad0 = commit;
	engine_noisy_observe(e, commit, fails, passes);
	/* a pass of the range's bad commit makes it noisy, not good */
	if (!fails && (int64_t)commit == e->bad0)
		return 0;
	return det_mark(e, commit, fails ? VERDICT_BAD : VERDICT_GOOD);
}

int engine_mark(struct engine *e, uint32_t commit, enum verdict v)
{
	if (commit >= e->n)
		return err_set(ERR_INPUT, "no commit %u in the graph", commit);
	switch (v) {
	case VERDICT_BAD:
		return engine_observe(e, commit, 1, 0);
	case VERDICT_GOOD:
		return engine_observe(e, commit, 0, 1);
	case VERDICT_SKIP:
		e->post_dirty = 1;
		return det_mark(e, commit, v);
	default:
		return 0;
	}
}

static size_t distance(const struct engine *e, uint32_t c)
{
	size_t w = e->weight[c];

	return w < e->nc - w ? w : e->nc - w;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Away from skipped commits, which come in stretches: by weight (the
 * candidates below a commit, its place in the range), the skipped
 * candidates around skip (each within half the span so far,
 * plus 2, of the next) are taken as one stretch, which likely goes on
 * past its ends by its span and 2: the testable candidate whose split
 * is best, counted by how far it is from the stretch up to that margin
 * (its chance to be testable at all).
 */
static int64_t skip_away(struct engine *e, uint32_t skip)
{
	uint32_t *w = malloc(e->n * sizeof(*w)), lo, hi, m;
	size_t n = 0, i, at = 0, first, last, best_d = 0, best_score = 0, score;
	int64_t best = -1;

	if (!w)
		return -1;
	for (i = 0; i < e->n; i++)
		if (e->in_c[i] && e->skipped[i] && (int64_t)i != e->bad)
			w[n++] = e->weight[i];
	qsort(w, n, sizeof(*w), by_value);
	while (at < n && w[at] != e->weight[skip])
		at++;
	if (at == n) {
		free(w);
		return -1;
	}
	lo = hi = e->weight[skip];
	for (first = last = at;;) {
		m = hi - lo + 2;
		if (first > 0 && w[first - 1] + m >= lo)
			lo = w[--first];
		else if (last + 1 < n && w[last + 1] <= hi + m)
			hi = w[++last];
		else
			break;
	}
	free(w);
	for (i = 0; i < e->n; i++) {
		uint32_t wi = e->weight[i];
		/* how far outside the stretch, up to its margin */
		size_t gap = wi < lo ? lo - wi : wi > hi ? wi - hi : 0, d;

		if (!e->in_c[i] || e->skipped[i] || (int64_t)i == e->bad)
			continue;
		/* its split, by the chance that it is testable at all; in
		 * the stretch, its split alone */
		d = distance(e, (uint32_t)i);
		score = d * (gap > m ? m : gap);
		if (best < 0 || score > best_score ||
		    (score == best_score && d > best_d)) {
			best = (int64_t)i;
			best_score = score;
			best_d = d;
		}
	}
	return best;
}

static enum engine_state det_next(struct engine *e, uint32_t *out)
{
	size_t i, best_d = 0, skip_d = 0;
	int64_t best = -1, skip = -1;

	if (e->bad < 0 || engine_refresh(e))
		return ENGINE_NOTHING;
	if (e->nc == 0)
		return ENGINE_NOTHING;
	for (i = 0; i < e->n; i++) {
		size_t d;

		if (!e->in_c[i] || (int64_t)i == e->bad)
			continue;
		d = distance(e, (uint32_t)i);
		if (e->skipped[i]) {
			if (skip < 0 || d > skip_d) {
				skip = (int64_t)i;
				skip_d = d;
			}
		} else if (best < 0 || d > best_d) {
			best = (int64_t)i;
			best_d = d;
		}
	}
	if (best >= 0 && skip >= 0) {
		/* away from the stretch of the best skipped commit */
		int64_t away = skip_away(e, (uint32_t)skip);

		best = away >= 0 ? away : best;
	}
	if (best >= 0) {
		*out = (uint32_t)best;
		return ENGINE_TEST;
	}
	if (e->nc == 1) {
		*out = (uint32_t)e->bad;
		return ENGINE_FOUND;
	}
	return ENGINE_AMBIGUOUS;
}

/*
 * Whether git's bisection chooses the next probes: always without a
 * confidence; with one, until a pass and a failure disagree and while
 * more than one candidate is left (a culprit is then concluded, and
 * verified, by the probabilities).
 */
static int det_drives(struct engine *e)
{
	uint32_t x;

	if (e->confidence <= 0)
		return 1;
	if (e->det_found < 0) /* git's answer changes only with a verdict */
		e->det_found = det_next(e, &x) == ENGINE_FOUND;
	return !e->noisy && !e->det_found;
}

enum engine_state engine_next(struct engine *e, uint32_t *out)
{
	if (e->metric)
		return engine_metric_next(e, out);
	if (det_drives(e))
		return det_next(e, out);
	return engine_noisy_next(e, out);
}

/*
 * The untested candidate whose weight is nearest target, leaving out the
 * commits in a[na] and b[nb]; -1 when there is none.
 */
static int64_t nearest(const struct engine *e, size_t target, const uint32_t *a,
		       size_t na, const uint32_t *b, size_t nb)
{
	size_t best_gap = SIZE_MAX, i, k;
	int64_t best = -1;

	for (i = 0; i < e->n; i++) {
		size_t w = e->weight[i], gap;
		int taken = 0;

		if (!e->in_c[i] || e->skipped[i] || (int64_t)i == e->bad)
			continue;
		for (k = 0; k < na; k++)
			taken |= a[k] == i;
		for (k = 0; k < nb; k++)
			taken |= b[k] == i;
		if (taken)
			continue;
		gap = w > target ? w - target : target - w;
		if (gap < best_gap) {
			best = (int64_t)i;
			best_gap = gap;
		}
	}
	return best;
}

size_t engine_next_many(struct engine *e, uint32_t *out, size_t want)
{
	uint32_t first;
	size_t k, n = 0;

	if (e->metric)
		return engine_metric_pick(e, NULL, 0, out, want);
	if (want > 0 && !det_drives(e))
		return engine_noisy_pick(e, NULL, 0, out, want);
	if (want == 0 || engine_next(e, &first) != ENGINE_TEST)
		return 0;
	if (want == 1) {
		out[0] = first;
		return 1;
	}
	for (k = 1; k <= want; k++) {
		/* the target weight of the k-th cut, rounded */
		size_t target = (k * e->nc + (want + 1) / 2) / (want + 1);
		int64_t best = nearest(e, target, out, n, NULL, 0);

		if (best < 0)
			break;
		out[n++] = (uint32_t)best;
	}
	return n;
}

/* Insert v into the sorted array a of n values. */
static void insert_sorted(size_t *a, size_t n, size_t v)
{
	size_t i = n;

	while (i > 0 && a[i - 1] > v) {
		a[i] = a[i - 1];
		i--;
	}
	a[i] = v;
}

size_t engine_next_more(struct engine *e, const uint32_t *busy, size_t nbusy,
			uint32_t *out, size_t want)
{
	size_t *cut, ncut = 0, n = 0, i, j;
	uint32_t first;

	if (e->metric)
		return engine_metric_pick(e, busy, nbusy, out, want);
	if (want > 0 && !det_drives(e))
		return engine_noisy_pick(e, busy, nbusy, out, want);
	if (want == 0 || engine_next(e, &first) != ENGINE_TEST)
		return 0;
	for (i = 0; i < nbusy; i++)
		ncut += engine_is_candidate(e, busy[i]);
	if (ncut == 0)
		return engine_next_many(e, out, want);
	cut = calloc(ncut + want + 2, sizeof(*cut));
	if (!cut)
		return 0;
	/* the weights already probed split [0, N]; fill the widest gaps */
	cut[0] = 0;
	ncut = 1;
	for (i = 0; i < nbusy; i++)
		if (engine_is_candidate(e, busy[i]))
			insert_sorted(cut, ncut++, e->weight[busy[i]]);
	insert_sorted(cut, ncut++, e->nc);
	while (n < want) {
		size_t widest = 0, target;
		int64_t best;

		for (j = 1; j < ncut; j++)
			if (cut[j] - cut[j - 1] > cut[widest + 1] - cut[widest])
				widest = j - 1;
		if (cut[widest + 1] - cut[widest] < 2)
			break;
		target = (cut[widest] + cut[widest + 1]) / 2;
		best = nearest(e, target, busy, nbusy, out, n);
		if (best < 0)
			break;
		out[n++] = (uint32_t)best;
		insert_sorted(cut, ncut++, e->weight[best]);
	}
	free(cut);
	return n;
}

size_t engine_candidates(struct engine *e, uint32_t *out, size_t max)
{
	size_t i, k = 0;

	if (e->metric)
		return engine_metric_candidates(e, out, max);
	if (e->noisy && e->confidence > 0)
		return engine_noisy_candidates(e, out, max);
	if (engine_refresh(e))
		return 0;
	for (i = 0; i < e->n && k < max; i++)
		if (e->in_c[i])
			out[k++] = (uint32_t)i;
	return k;
}

size_t engine_candidate_count(struct engine *e)
{
	if (e->metric)
		return engine_metric_candidates(e, NULL, 0);
	if (e->noisy && e->confidence > 0)
		return engine_noisy_candidates(e, NULL, 0);
	if (engine_refresh(e))
		return 0;
	return e->nc;
}

int engine_is_candidate(struct engine *e, uint32_t commit)
{
	if (commit >= e->n)
		return 0;
	if (e->metric)
		return engine_metric_useful(e, commit);
	if (!det_drives(e))
		return engine_noisy_useful(e, commit);
	if (engine_refresh(e))
		return 0;
	return e->in_c[commit] && !e->skipped[commit] &&
	       (int64_t)commit != e->bad;
}

size_t engine_weight(struct engine *e, uint32_t commit)
{
	if (commit >= e->n || engine_refresh(e) || !e->in_c[commit])
		return 0;
	return e->weight[commit];
}

unsigned engine_estimate_steps(size_t n)
{
	unsigned k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k;
}
