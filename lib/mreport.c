// SPDX-License-Identifier: GPL-2.0-only
/*
 * A metric bisection's report (mreport.h): the JSON from the engine and
 * the graph, and the text from the JSON.  The text is what bisectctl run
 * --metric prints and what bisectd's text and mail reports hold.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "error.h"
#include "mreport.h"

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* 1 for each commit of g that holds c (c and its descendants). */
static char *holders(const struct gu_graph *g, uint32_t c)
{
	char *in = calloc(g->n ? g->n : 1, 1);
	size_t k;
	int more = 1;

	if (!in || c >= g->n)
		return in;
	in[c] = 1;
	while (more) {
		more = 0;
		for (k = 0; k < g->nedges; k++)
			if (in[g->edge_parent[k]] && !in[g->edge_child[k]])
				in[g->edge_child[k]] = more = 1;
	}
	return in;
}

static json_t *commit_json(struct engine *e, const struct gu_graph *g,
			   struct gu_repo *repo, uint32_t idx)
{
	char hex[GU_HEXSZ + 1];
	const double *v;
	size_t n = engine_metric_values(e, idx, &v), i;
	struct gu_commit ci = { 0 };
	json_t *o, *vals = json_array();

	gu_oid_hex(hex, &g->oids[idx]);
	for (i = 0; i < n; i++)
		json_array_append_new(vals, json_real(v[i]));
	o = json_pack("{s:s, s:o, s:I, s:o}", "commit", hex, "median",
		      real_or_null(engine_metric_median(e, idx)), "values",
		      (json_int_t)n, "value_list", vals);
	if (o && repo && !gu_commit_head(&ci, repo, &g->oids[idx]) &&
	    ci.subject)
		json_object_set_new(o, "subject", json_string(ci.subject));
	gu_commit_release(&ci);
	return o;
}

/* The culprit's values against each parent's (the baseline for a root). */
static json_t *verification(struct engine *e, const struct gu_graph *g,
			    struct gu_repo *repo, uint32_t c)
{
	json_t *parents = json_array();
	size_t k;

	for (k = 0; k < g->nedges; k++)
		if (g->edge_child[k] == c)
			json_array_append_new(
				parents,
				commit_json(e, g, repo, g->edge_parent[k]));
	if (!json_array_size(parents))
		json_array_append_new(
			parents,
			json_pack("{s:s, s:o}", "commit", "good", "median",
				  real_or_null(
					  engine_metric_baseline_median(e))));
	return json_pack("{s:o, s:o}", "culprit", commit_json(e, g, repo, c),
			 "parents", parents);
}

static json_t *summary_json(const struct engine_metric_summary *s)
{
	return json_pack("{s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:I, s:I}",
			 "probability", s->probability, "null_probability",
			 s->null_probability, "median_before",
			 real_or_null(s->median_before), "median_after",
			 real_or_null(s->median_after), "change",
			 real_or_null(s->change), "change_low",
			 real_or_null(s->change_lo), "change_high",
			 real_or_null(s->change_hi), "runs_before",
			 (json_int_t)s->runs_before, "runs_after",
			 (json_int_t)s->runs_after);
}

json_t *mreport_json(struct engine *e, const struct gu_graph *g,
		     struct gu_repo *repo, const struct mreport_opts *o,
		     enum engine_state st, uint32_t pick)
{
	struct engine_metric_summary sum;
	uint32_t best = pick;
	int found = st == ENGINE_FOUND;
	json_t *r, *commits = json_array();
	char hex[GU_HEXSZ + 1], *in = NULL;
	size_t i;

	if (!found && engine_candidates(e, &best, 1) == 0)
		best = UINT32_MAX;
	r = json_pack(
		"{s:s, s:s, s:s, s:s, s:f, s:f, s:I, s:I, s:o}", "result",
		found ? "found" : "ambiguous", "metric", o->name, "direction",
		o->higher ? "higher-is-better" : "lower-is-better", "unit",
		o->unit ? o->unit : "", "min_change", o->min_change,
		"confidence", o->confidence, "runs", (json_int_t)o->runs,
		"skips", (json_int_t)o->skips, "baseline_median",
		real_or_null(engine_metric_baseline_median(e)));
	if (!r || !commits) {
		json_decref(r);
		json_decref(commits);
		return NULL;
	}
	json_object_set_new(r, "verification", json_null());
	if (best != UINT32_MAX && !engine_metric_summary(&sum, e, best)) {
		gu_oid_hex(hex, &g->oids[best]);
		json_object_set_new(r, found ? "culprit" : "most_probable",
				    json_string(hex));
		json_object_set_new(r, "summary", summary_json(&sum));
		json_object_set_new(r, "verification",
				    verification(e, g, repo, best));
		in = holders(g, best);
	}
	for (i = 0; i < g->n; i++) {
		const double *v;
		json_t *c;

		if (!engine_metric_values(e, (uint32_t)i, &v))
			continue;
		c = commit_json(e, g, repo, (uint32_t)i);
		if (c && in)
			json_object_set_new(c, "after", json_boolean(in[i]));
		json_array_append_new(commits, c);
	}
	free(in);
	json_object_set_new(r, "commits", commits);
	return r;
}

/* --- the text ------------------------------------------------------ */

static const char *pct(char *buf, size_t size, double x)
{
	snprintf(buf, size, "%+.1f%%", 100 * x);
	return buf;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void commit_line(struct buf *b, json_t *c, const char *label,
			const char *unit)
{
	const char *hex = json_string_value(json_object_get(c, "commit"));
	const char *subj = json_string_value(json_object_get(c, "subject"));
	json_int_t n = json_integer_value(json_object_get(c, "values"));

	buf_printf(b, "  %s%.12s %g%s%s (%lld value%s)  %s\n", label,
		   hex ? hex : "", num(c, "median"), *unit ? " " : "", unit,
		   (long long)n, n == 1 ? "" : "s", subj ? subj : "");
}

static void summary_text(struct buf *b, json_t *r, const char *unit)
{
	json_t *s = json_object_get(r, "summary");
	json_t *ver = json_object_get(r, "verification");
	json_t *x;
	char a[32], c[32], d[32];
	size_t i;

	buf_printf(b, "probability %.3f (no change at all: %.3f)\n",
		   num(s, "probability"), num(s, "null_probability"));
	buf_printf(b,
		   "median before %g%s%s, after %g%s%s: %s (95%% interval "
		   "%s to %s)\n",
		   num(s, "median_before"), *unit ? " " : "", unit,
		   num(s, "median_after"), *unit ? " " : "", unit,
		   pct(a, sizeof(a), num(s, "change")),
		   pct(c, sizeof(c), num(s, "change_low")),
		   pct(d, sizeof(d), num(s, "change_high")));
	buf_printf(b, "runs: %lld values before, %lld after\n",
		   (long long)json_integer_value(
			   json_object_get(s, "runs_before")),
		   (long long)json_integer_value(
			   json_object_get(s, "runs_after")));
	buf_puts(b, "verification:\n");
	commit_line(b, json_object_get(ver, "culprit"), "culprit ", unit);
	json_array_foreach(json_object_get(ver, "parents"), i, x)
	{
		const char *h = json_string_value(json_object_get(x, "commit"));

		if (h && !strcmp(h, "good"))
			buf_printf(b, "  parent  (good) %g%s%s\n",
				   num(x, "median"), *unit ? " " : "", unit);
		else
			commit_line(b, x, "parent  ", unit);
	}
}

int mreport_text(struct buf *b, json_t *r)
{
	const char *unit = json_string_value(json_object_get(r, "unit"));
	const char *name = json_string_value(json_object_get(r, "metric"));
	const char *res = json_string_value(json_object_get(r, "result"));
	int found = res && !strcmp(res, "found");
	json_t *best = json_object_get(r, found ? "culprit" : "most_probable");
	json_t *x;
	size_t i;

	unit = unit ? unit : "";
	if (found)
		buf_printf(b, "first bad commit (metric %s):\n",
			   name ? name : "");
	else
		buf_printf(b,
			   "ambiguous: no commit reached the confidence "
			   "%.2f\n",
			   num(r, "confidence"));
	if (json_is_string(best) && json_object_get(r, "summary")) {
		json_t *c = json_object_get(json_object_get(r, "verification"),
					    "culprit");

		commit_line(b, c, found ? "" : "most probable ", unit);
		summary_text(b, r, unit);
	}
	buf_printf(b, "medians per commit (%lld runs, %lld skipped):\n",
		   (long long)json_integer_value(json_object_get(r, "runs")),
		   (long long)json_integer_value(json_object_get(r, "skips")));
	buf_printf(b, "  good %g%s%s (baseline)\n", num(r, "baseline_median"),
		   *unit ? " " : "", unit);
	json_array_foreach(json_object_get(r, "commits"), i, x)
		commit_line(b, x, "", unit);
	return 0;
}
