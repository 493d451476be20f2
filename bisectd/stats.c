// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regressions per subsystem from bisectd's own bisections.
 *
 * Design.  Counting is lazy: whoever asks for the table first counts the
 * jobs that finished since (a bisection's range is a walk over its
 * commits, a fraction of a second for a thousand), and the store keeps
 * each job's rows so that it is counted once.  Two requests may count the
 * same job at once; the store takes the first.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "stats.h"

struct rows {
	char **subs; /* the culprit's sections */
	size_t nsubs;
	struct store_stats_row *rows; /* (section, commit) of the range */
	size_t nrows, cap;
};

static void rows_release(struct rows *r)
{
	size_t i;

	for (i = 0; i < r->nsubs; i++)
		free(r->subs[i]);
	for (i = 0; i < r->nrows; i++) {
		free((char *)r->rows[i].subsystem);
		free((char *)r->rows[i].hex);
	}
	free(r->subs);
	free(r->rows);
}

static int add_row(int kind, const char *section, const struct gu_oid *commit,
		   void *payload)
{
	struct rows *r = payload;
	char hex[GU_HEXSZ + 1];

	if (kind == 'r') {
		char **s = realloc(r->subs, (r->nsubs + 1) * sizeof(*s));

		if (!s || !(s[r->nsubs] = strdup(section)))
			return err_set(ERR_NOMEM, "out of memory");
		r->subs = s;
		r->nsubs++;
		return 0;
	}
	if (r->nrows == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct store_stats_row *p = realloc(r->rows, cap * sizeof(*p));

		if (!p)
			return err_set(ERR_NOMEM, "out of memory");
		r->rows = p;
		r->cap = cap;
	}
	gu_oid_hex(hex, commit);
	r->rows[r->nrows].subsystem = strdup(section);
	r->rows[r->nrows].hex = strdup(hex);
	if (!r->rows[r->nrows].subsystem || !r->rows[r->nrows].hex) {
		free((char *)r->rows[r->nrows].subsystem);
		free((char *)r->rows[r->nrows].hex);
		return err_set(ERR_NOMEM, "out of memory");
	}
	r->nrows++;
	return 0;
}

/* One finished job's rows, read from its repository without the lock. */
static int count_job(struct store *store, struct sched *sched,
		     pthread_mutex_t *lock, long long id)
{
	struct store_job j;
	struct job_spec spec;
	struct gu_repo *repo = NULL;
	struct gu_oid bad, culprit, goods[JOB_MAX_GOODS];
	struct rows r = { 0 };
	long long authored = 0;
	double finished;
	size_t i;
	int rc, parsed;

	pthread_mutex_lock(lock);
	rc = store_job_get(store, id, &j);
	pthread_mutex_unlock(lock);
	if (rc)
		return rc;
	finished = j.finished;
	rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
	parsed = !rc;
	if (!rc &&
	    (gu_oid_parse(&culprit, j.culprit) || gu_oid_parse(&bad, spec.bad)))
		rc = err_set(ERR_INPUT, "job %lld: no commit ids", id);
	for (i = 0; !rc && i < spec.ngood; i++)
		if (gu_oid_parse(&goods[i], spec.good[i]))
			rc = err_set(ERR_INPUT, "job %lld: no commit ids", id);
	/* a mirror not fetched: tried again next time */
	if (!rc &&
	    (rc = sched_open_repo(sched, spec.repo, &repo)) == ERR_NOTFOUND)
		rc = ERR_INFRA;
	if (!rc)
		rc = gu_author_time(repo, &culprit, &authored);
	if (!rc)
		rc = regstats_bisection(repo, &bad, goods, spec.ngood, &culprit,
					add_row, &r);
	if (!rc || rc == ERR_NOTFOUND) {
		/* no MAINTAINERS: counted, in no subsystem */
		pthread_mutex_lock(lock);
		rc = store_stats_add(
			store, id, spec.repo, rc ? NULL : j.culprit,
			(finished - (double)authored) / 86400.0,
			(const char *const *)r.subs, r.nsubs, r.rows, r.nrows);
		pthread_mutex_unlock(lock);
	}
	rows_release(&r);
	gu_close(repo);
	if (parsed)
		job_spec_release(&spec);
	store_job_release(&j);
	return rc;
}

int stats_table(struct store *store, struct sched *sched, pthread_mutex_t *lock,
		struct regstats *out)
{
	long long *ids = NULL;
	size_t n = 0, i;
	int rc;

	pthread_mutex_lock(lock);
	rc = store_stats_pending(store, &ids, &n);
	pthread_mutex_unlock(lock);
	/* a job that cannot be read now (its repository gone) is tried
	 * again next time; it does not keep the others out */
	for (i = 0; !rc && i < n; i++)
		if (count_job(store, sched, lock, ids[i]) == ERR_NOMEM)
			rc = ERR_NOMEM;
	free(ids);
	if (rc)
		return rc;
	pthread_mutex_lock(lock);
	rc = store_stats_load(store, out);
	pthread_mutex_unlock(lock);
	return rc;
}
