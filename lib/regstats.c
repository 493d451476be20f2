// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regression counts per subsystem.
 *
 * Design.  One walk over the range: each commit's files (against its
 * first parent; merges are not counted) go through the MAINTAINERS index
 * once, and its trailers are read for "Fixes:" lines, each resolved to a
 * commit by its abbreviated id.  Then the fixes, sorted by culprit, give
 * one regression per culprit; the culprit's own files, wherever it is in
 * the history, decide its subsystems.  A section's counters live in
 * arrays indexed by its number in the file.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "maintrepo.h"
#include "regstats.h"

struct fix {
	struct gu_oid culprit;
	long long when; /* the fix's commit time */
	int stable;
};

/*
 * Each MAINTAINERS section of a commit's files, once per commit, to fn:
 * stamp[] holds, per section, the serial of the last commit that gave it.
 */
struct sections_walk {
	struct maint_index *ix;
	unsigned *stamp;
	unsigned serial;
	int (*fn)(size_t section, void *payload);
	void *payload;
};

static int sections_file(const char *path, void *payload)
{
	struct sections_walk *w = payload;
	size_t secs[64], n = maint_file_sections(w->ix, path, secs, 64), i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (w->stamp[secs[i]] == w->serial)
			continue;
		w->stamp[secs[i]] = w->serial;
		rc = w->fn(secs[i], w->payload);
	}
	return rc;
}

static int commit_sections(struct gu_repo *r, struct sections_walk *w,
			   const struct gu_oid *commit,
			   int (*fn)(size_t section, void *payload),
			   void *payload)
{
	w->serial++;
	w->fn = fn;
	w->payload = payload;
	return gu_commit_paths(r, commit, sections_file, w);
}

struct acc {
	struct gu_repo *repo;
	size_t nsec;
	unsigned *commits, *regressions, *fixes, *stable;
	double **days;
	size_t *ndays;
	struct sections_walk sw;
	/* the culprit being counted: its fixes, those for stable, the days
	 * to the first, and how many sections it had */
	unsigned cur_fixes, cur_stable, cur_sections;
	double cur_days;
	struct fix *fx;
	size_t nfx, capfx;
	/* the trailers of the commit being read */
	struct gu_oid found[16];
	size_t nfound;
	int stable_now;
	struct regstats *out;
};

static unsigned *counter(size_t n)
{
	return calloc(n ? n : 1, sizeof(unsigned));
}

static int count_commit(size_t section, void *payload)
{
	((struct acc *)payload)->commits[section]++;
	return 0;
}

static int is_stable_cc(const char *value)
{
	return strstr(value, "stable@vger.kernel.org") ||
	       strstr(value, "stable@kernel.org");
}

static int each_trailer(const char *key, const char *value, void *payload)
{
	struct acc *a = payload;
	char hex[GU_HEXSZ + 1];
	struct gu_oid oid;
	size_t len, i;
	int rc;

	if (!strcasecmp(key, "Cc") && is_stable_cc(value))
		a->stable_now = 1;
	if (strcasecmp(key, "Fixes"))
		return 0;
	len = strspn(value, "0123456789abcdefABCDEF");
	if (len < 4 || len > GU_HEXSZ) {
		a->out->fixes_unknown++;
		return 0;
	}
	memcpy(hex, value, len);
	hex[len] = '\0';
	rc = gu_lookup_prefix(a->repo, hex, &oid);
	if (rc == ERR_NOTFOUND || rc == ERR_INPUT) {
		a->out->fixes_unknown++;
		return 0;
	}
	if (rc)
		return rc;
	for (i = 0; i < a->nfound; i++)
		if (gu_oid_equal(&a->found[i], &oid))
			return 0;
	if (a->nfound < sizeof(a->found) / sizeof(a->found[0]))
		a->found[a->nfound++] = oid;
	return 0;
}

static int each_commit(const struct gu_walk_commit *c, void *payload)
{
	struct acc *a = payload;
	size_t i;
	int rc;

	if (c->nparents <= 1) {
		a->out->commits++;
		rc = commit_sections(a->repo, &a->sw, &c->oid, count_commit, a);
		if (rc)
			return rc;
	}
	a->nfound = 0;
	a->stable_now = 0;
	rc = gu_trailers(c->message, each_trailer, a);
	if (rc)
		return rc;
	if (a->nfound)
		a->out->fix_commits++;
	for (i = 0; i < a->nfound; i++) {
		if (a->nfx == a->capfx) {
			size_t cap = a->capfx ? 2 * a->capfx : 256;
			struct fix *f = realloc(a->fx, cap * sizeof(*f));

			if (!f)
				return err_set(ERR_NOMEM, "out of memory");
			a->fx = f;
			a->capfx = cap;
		}
		a->fx[a->nfx].culprit = a->found[i];
		a->fx[a->nfx].when = c->commit_time;
		a->fx[a->nfx].stable = a->stable_now;
		a->nfx++;
	}
	return 0;
}

static int fix_order(const void *x, const void *y)
{
	const struct fix *a = x, *b = y;
	int c = memcmp(a->culprit.id, b->culprit.id, sizeof(a->culprit.id));

	if (c)
		return c;
	return a->when < b->when ? -1 : a->when > b->when;
}

/* The current culprit, a regression of one of its sections. */
static int count_regression(size_t s, void *payload)
{
	struct acc *a = payload;
	double *d = realloc(a->days[s], (a->ndays[s] + 1) * sizeof(*d));

	if (!d)
		return err_set(ERR_NOMEM, "out of memory");
	d[a->ndays[s]++] = a->cur_days;
	a->days[s] = d;
	a->regressions[s]++;
	a->fixes[s] += a->cur_fixes;
	a->stable[s] += a->cur_stable;
	a->cur_sections++;
	return 0;
}

/* One culprit and its fixes fx[0..n): a regression of its sections. */
static int count_culprit(struct acc *a, const struct fix *fx, size_t n)
{
	long long authored;
	size_t i;
	int rc;

	a->cur_fixes = (unsigned)n;
	a->cur_stable = 0;
	a->cur_sections = 0;
	for (i = 0; i < n; i++)
		a->cur_stable += fx[i].stable != 0;
	rc = gu_author_time(a->repo, &fx[0].culprit, &authored);
	if (rc)
		return rc;
	a->cur_days = (double)(fx[0].when - authored) / 86400.0;
	rc = commit_sections(a->repo, &a->sw, &fx[0].culprit, count_regression,
			     a);
	if (rc)
		return rc;
	a->out->regressions++;
	a->out->unassigned += !a->cur_sections;
	return 0;
}

static int double_order(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static int sub_order(const void *x, const void *y)
{
	const struct regstats_subsystem *a = x, *b = y;

	if (a->regressions != b->regressions)
		return a->regressions > b->regressions ? -1 : 1;
	if (a->commits != b->commits)
		return a->commits > b->commits ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int collect_subs(struct acc *a)
{
	struct regstats *out = a->out;
	size_t s;

	out->subs = calloc(a->nsec ? a->nsec : 1, sizeof(*out->subs));
	if (!out->subs)
		return err_set(ERR_NOMEM, "out of memory");
	for (s = 0; s < a->nsec; s++) {
		struct regstats_subsystem *sub = &out->subs[out->nsubs];
		size_t n = a->ndays[s];

		if (!a->commits[s] && !a->regressions[s])
			continue;
		sub->name = strdup(maint_section_name(a->sw.ix, s));
		if (!sub->name)
			return err_set(ERR_NOMEM, "out of memory");
		sub->regressions = a->regressions[s];
		sub->commits = a->commits[s];
		sub->fixes = a->fixes[s];
		sub->stable_fixes = a->stable[s];
		sub->median_days = -1;
		if (n) {
			qsort(a->days[s], n, sizeof(double), double_order);
			sub->median_days = regstats_median(a->days[s], n);
		}
		out->nsubs++;
	}
	regstats_sort(out);
	return 0;
}

double regstats_median(const double *sorted, size_t n)
{
	if (!n)
		return -1;
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void regstats_sort(struct regstats *s)
{
	qsort(s->subs, s->nsubs, sizeof(*s->subs), sub_order);
}

/* A bisection's commit: its sections, by name, to the caller's fn. */
struct bisection_walk {
	struct sections_walk sw;
	const struct gu_oid *commit;
	int kind;
	int (*fn)(int kind, const char *section, const struct gu_oid *commit,
		  void *payload);
	void *payload;
};

static int bisection_section(size_t section, void *payload)
{
	struct bisection_walk *w = payload;

	return w->fn(w->kind, maint_section_name(w->sw.ix, section), w->commit,
		     w->payload);
}

static int bisection_commit(struct gu_repo *r, struct bisection_walk *w,
			    const struct gu_oid *commit, int kind)
{
	w->commit = commit;
	w->kind = kind;
	return commit_sections(r, &w->sw, commit, bisection_section, w);
}

int regstats_bisection(struct gu_repo *r, const struct gu_oid *bad,
		       const struct gu_oid *goods, size_t ngoods,
		       const struct gu_oid *culprit,
		       int (*fn)(int kind, const char *section,
				 const struct gu_oid *commit, void *payload),
		       void *payload)
{
	struct bisection_walk w = { .fn = fn, .payload = payload };
	struct gu_graph g = { 0 };
	size_t i;
	int rc = maint_index_at(r, bad, &w.sw.ix);

	if (rc)
		return rc;
	w.sw.stamp = counter(maint_index_sections(w.sw.ix));
	if (!w.sw.stamp)
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = bisection_commit(r, &w, culprit, 'r');
	if (!rc)
		rc = gu_graph_load(&g, r, bad, goods, ngoods);
	for (i = 0; !rc && i < g.n; i++) {
		struct gu_oid parents[2];
		int np = gu_parents(r, &g.oids[i], parents, 2);

		if (np < 0)
			rc = np;
		else if (np < 2)
			rc = bisection_commit(r, &w, &g.oids[i], 'c');
	}
	gu_graph_release(&g);
	free(w.sw.stamp);
	maint_index_free(w.sw.ix);
	return rc;
}

/* MAINTAINERS at the end of range, indexed. */
static int load_maintainers(struct acc *a, const char *range)
{
	const char *dots = strstr(range, "..");
	const char *end = dots ? (dots[2] ? dots + 2 : "HEAD") : range;
	struct gu_oid oid;
	int rc;

	if (dots && dots[2] == '.')
		return err_set(
			ERR_INPUT,
			"'%s': only A..B ranges are supported, not A...B",
			range);
	/* either end unknown is said as such, before MAINTAINERS is read */
	if (dots && dots > range) {
		char *start = strndup(range, (size_t)(dots - range));

		rc = start ? gu_resolve(a->repo, start, &oid)
			   : err_set(ERR_NOMEM, "out of memory");
		free(start);
		if (rc)
			return rc;
	}
	rc = gu_resolve(a->repo, end, &oid);
	if (rc)
		return rc;
	gu_oid_hex(a->out->maintainers_at, &oid);
	rc = maint_index_at(a->repo, &oid, &a->sw.ix);
	if (rc == ERR_NOTFOUND)
		rc = err_set(ERR_INPUT, "there is no MAINTAINERS file at %s",
			     end);
	return rc;
}

int regstats_compute(struct regstats *out, struct gu_repo *r, const char *range)
{
	struct acc a;
	size_t i, j, s;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.repo = r;
	a.out = out;
	out->range = strdup(range);
	if (!out->range)
		return err_set(ERR_NOMEM, "out of memory");
	rc = load_maintainers(&a, range);
	if (!rc) {
		a.nsec = maint_index_sections(a.sw.ix);
		a.commits = counter(a.nsec);
		a.regressions = counter(a.nsec);
		a.fixes = counter(a.nsec);
		a.stable = counter(a.nsec);
		a.sw.stamp = counter(a.nsec);
		a.days = calloc(a.nsec ? a.nsec : 1, sizeof(*a.days));
		a.ndays = calloc(a.nsec ? a.nsec : 1, sizeof(*a.ndays));
		if (!a.commits || !a.regressions || !a.fixes || !a.stable ||
		    !a.sw.stamp || !a.days || !a.ndays)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc)
		rc = gu_walk(r, range, each_commit, &a);
	if (!rc)
		qsort(a.fx, a.nfx, sizeof(*a.fx), fix_order);
	for (i = 0; !rc && i < a.nfx; i = j) {
		for (j = i + 1; j < a.nfx && gu_oid_equal(&a.fx[j].culprit,
							  &a.fx[i].culprit);
		     j++)
			;
		rc = count_culprit(&a, &a.fx[i], j - i);
	}
	if (!rc)
		rc = collect_subs(&a);
	for (s = 0; s < a.nsec; s++)
		free(a.days ? a.days[s] : NULL);
	free(a.days);
	free(a.ndays);
	free(a.commits);
	free(a.regressions);
	free(a.fixes);
	free(a.stable);
	free(a.sw.stamp);
	free(a.fx);
	maint_index_free(a.sw.ix);
	if (rc)
		regstats_release(out);
	return rc;
}

void regstats_release(struct regstats *s)
{
	size_t i;

	for (i = 0; i < s->nsubs; i++)
		free(s->subs[i].name);
	free(s->subs);
	free(s->range);
	memset(s, 0, sizeof(*s));
}

static double per100(const struct regstats_subsystem *sub)
{
	return sub->commits ? 100.0 * sub->regressions / sub->commits : 0;
}

int regstats_table(const struct regstats *s, struct buf *out)
{
	size_t i;
	int rc;

	rc = buf_printf(out,
			"%s: %u commits, %u with a Fixes: trailer; %u "
			"regressions (%u Fixes: name no commit here)\n"
			"subsystems from MAINTAINERS at %.12s\n\n"
			"%-44s %11s %8s %8s %11s %7s\n",
			s->range, s->commits, s->fix_commits, s->regressions,
			s->fixes_unknown, s->maintainers_at, "subsystem",
			"regressions", "commits", "per 100", "median days",
			"stable");
	for (i = 0; !rc && i < s->nsubs; i++) {
		const struct regstats_subsystem *sub = &s->subs[i];
		char per[16] = "-", days[16] = "-", stable[16] = "-";

		if (sub->commits)
			snprintf(per, sizeof(per), "%.1f", per100(sub));
		if (sub->median_days >= 0 || sub->regressions)
			snprintf(days, sizeof(days), "%.1f", sub->median_days);
		if (sub->fixes)
			snprintf(stable, sizeof(stable), "%.0f%%",
				 100.0 * sub->stable_fixes / sub->fixes);
		rc = buf_printf(out, "%-44.44s %11u %8u %8s %11s %7s\n",
				sub->name, sub->regressions, sub->commits, per,
				days, stable);
	}
	return rc;
}

/* The totals: Fixes: over a range, or bisectd's bisections. */
static void json_totals(json_t *o, const struct regstats *s)
{
	if (s->from_bisections) {
		json_object_set_new(o, "bisections",
				    json_integer(s->bisections));
	} else {
		json_object_set_new(o, "range", json_string(s->range));
		json_object_set_new(o, "maintainers_at",
				    json_string(s->maintainers_at));
		json_object_set_new(o, "fix_commits",
				    json_integer(s->fix_commits));
		json_object_set_new(o, "fixes_unknown",
				    json_integer(s->fixes_unknown));
	}
	json_object_set_new(o, "commits", json_integer(s->commits));
	json_object_set_new(o, "regressions", json_integer(s->regressions));
	json_object_set_new(o, "unassigned", json_integer(s->unassigned));
}

static json_t *json_number_or_null(int have, double v)
{
	return have ? json_real(v) : json_null();
}

char *regstats_json(const struct regstats *s)
{
	json_t *o = json_object(), *arr = json_array();
	char *text;
	size_t i;

	if (!o || !arr) {
		json_decref(o);
		json_decref(arr);
		return NULL;
	}
	json_totals(o, s);
	for (i = 0; i < s->nsubs; i++) {
		const struct regstats_subsystem *sub = &s->subs[i];
		json_t *j =
			json_pack("{s:s, s:I, s:I}", "name", sub->name,
				  "regressions", (json_int_t)sub->regressions,
				  "commits", (json_int_t)sub->commits);

		if (!j)
			continue;
		json_object_set_new(
			j, "regressions_per_100_commits",
			json_number_or_null(sub->commits != 0, per100(sub)));
		json_object_set_new(j,
				    s->from_bisections
					    ? "median_days_to_bisection"
					    : "median_days_to_fix",
				    json_number_or_null(sub->regressions != 0,
							sub->median_days));
		if (!s->from_bisections) {
			json_object_set_new(j, "fixes",
					    json_integer(sub->fixes));
			json_object_set_new(j, "stable_fixes",
					    json_integer(sub->stable_fixes));
			json_object_set_new(
				j, "stable_share",
				json_number_or_null(sub->fixes != 0,
						    (double)sub->stable_fixes /
							    sub->fixes));
		}
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "subsystems", arr);
	text = json_dumps(o, JSON_INDENT(2));
	json_decref(o);
	return text;
}

int regstats_svg(const struct regstats *s, size_t top, struct buf *out)
{
	const unsigned label_w = 330, bar_w = 420, row = 22, head = 46;
	unsigned max = 1;
	size_t n = 0, i;
	int rc;

	while (n < s->nsubs && n < top && s->subs[n].regressions)
		n++;
	if (n)
		max = s->subs[0].regressions;
	rc = buf_printf(out,
			"<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%u\" height=\"%zu\" font-family=\"sans-serif\""
			" font-size=\"12\">\n"
			"<rect width=\"100%%\" height=\"100%%\" "
			"fill=\"white\"/>\n"
			"<text x=\"8\" y=\"20\" font-size=\"15\">Regressions "
			"per subsystem: ",
			label_w + bar_w + 60, head + n * row + 10);
	if (!rc)
		rc = buf_put_escaped(out, s->range);
	if (!rc)
		rc = buf_printf(out,
				"</text>\n<text x=\"8\" y=\"36\" fill=\"#555\">"
				"%u regressions, %u commits; %s</text>\n",
				s->regressions, s->commits,
				s->from_bisections
					? "culprits of verified bisections"
					: "fixed commits counted by their "
					  "Fixes: trailers");
	for (i = 0; !rc && i < n; i++) {
		const struct regstats_subsystem *sub = &s->subs[i];
		unsigned y = head + (unsigned)i * row;
		unsigned w = (unsigned)((double)bar_w * sub->regressions / max);
		char label[48];

		rc = buf_printf(out, "<g><title>");
		if (!rc)
			rc = buf_put_escaped(out, sub->name);
		if (!rc)
			rc = buf_printf(out,
					": %u regressions in %u commits"
					"</title>\n<text x=\"%u\" y=\"%u\" "
					"text-anchor=\"end\">",
					sub->regressions, sub->commits,
					label_w - 8, y + 15);
		/* the label fits its column; the tooltip has the whole name */
		snprintf(label, sizeof(label), "%s", sub->name);
		if (strlen(sub->name) >= sizeof(label))
			memcpy(label + sizeof(label) - 4, "...", 4);
		if (!rc)
			rc = buf_put_escaped(out, label);
		if (!rc)
			rc = buf_printf(
				out,
				"</text>\n<rect x=\"%u\" y=\"%u\" width=\"%u\" "
				"height=\"%u\" fill=\"#c0392b\"/>\n"
				"<text x=\"%u\" y=\"%u\">%u</text></g>\n",
				label_w, y + 3, w ? w : 1, row - 6,
				label_w + (w ? w : 1) + 6, y + 15,
				sub->regressions);
	}
	if (!rc)
		rc = buf_puts(out, "</svg>\n");
	return rc;
}
