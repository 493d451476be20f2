/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which subsystems regress most: every commit with a "Fixes: <id>"
 * trailer names the commit that broke something; that commit counts as
 * one regression for each MAINTAINERS section its files belong to.
 */
#ifndef BISECTD_REGSTATS_H
#define BISECTD_REGSTATS_H

#include <stddef.h>

#include "buf.h"
#include "gitutil.h"
#include "maintainers.h"

struct regstats_subsystem {
	char *name;
	unsigned regressions;  /* culprits with a file in it */
	unsigned commits;      /* commits of the range that touched it */
	unsigned fixes;	       /* fixes of those culprits */
	unsigned stable_fixes; /* of them, marked for stable */
	double median_days;    /* culprit's author date to the first fix's
				  commit date (to the bisection's end, for
				  bisectd); -1 without regressions */
};

struct regstats {
	char *range;
	char maintainers_at[GU_HEXSZ + 1]; /* MAINTAINERS as of this commit */
	unsigned commits;	/* commits walked, merges not counted */
	unsigned fix_commits;	/* commits with a Fixes: that was found */
	unsigned fixes_unknown; /* Fixes: naming no commit of the repo */
	unsigned regressions;	/* distinct culprits */
	unsigned unassigned;	/* culprits in no section */
	struct regstats_subsystem *subs; /* with commits or regressions, */
	size_t nsubs;			 /* most regressions first */
	/* bisectd's: culprits of its verified bisections, not Fixes: */
	int from_bisections;
	unsigned bisections;
};

/*
 * Count over range ("A..B", or a revision and its ancestors).  The
 * MAINTAINERS file is the one at the range's end; ERR_INPUT when there
 * is none, or when a revision is unknown.
 */
int regstats_compute(struct regstats *out, struct gu_repo *r,
		     const char *range);
void regstats_release(struct regstats *s);

/*
 * One bisection, as bisectd counts it (MAINTAINERS at bad): fn gets
 * 'r' and each section of the culprit's files, then 'c' and each
 * section of each non-merge commit of the range (bad, not the goods),
 * with the commit.  ERR_NOTFOUND when there is no MAINTAINERS at bad.
 */
int regstats_bisection(struct gu_repo *r, const struct gu_oid *bad,
		       const struct gu_oid *goods, size_t ngoods,
		       const struct gu_oid *culprit,
		       int (*fn)(int kind, const char *section,
				 const struct gu_oid *commit, void *payload),
		       void *payload);
/* The median of n values in ascending order; -1 for none. */
double regstats_median(const double *sorted, size_t n);
/* Sort subs as regstats_compute() does: most regressions first. */
void regstats_sort(struct regstats *s);

/* The table, one subsystem per line, as a terminal shows it. */
int regstats_table(const struct regstats *s, struct buf *out);
/* JSON: the totals and one object per subsystem. */
char *regstats_json(const struct regstats *s);
/* A bar chart of the top subsystems by regressions, as an SVG file. */
int regstats_svg(const struct regstats *s, size_t top, struct buf *out);

#endif
