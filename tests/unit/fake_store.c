// SPDX-License-Identifier: GPL-2.0-only
/*
 * A store in plain memory for the scheduler's unit tests: the calls of
 * store.h that the scheduler makes, with the same meaning as
 * bisectd/store.c's and no SQLite, and a clock the test moves
 * (fake_store_now) instead of the wall clock.  A test program links it
 * in place of store.o.  Transactions are not undone: the tests drive no
 * failing write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fake_store.h"
#include "store.h"

double fake_store_now = 1e9;

struct worker {
	long long id;
	char token[65];
	char *caps;
	double last_seen;
};

struct cached {
	char key[65], verdict[8];
	char *result;
};

struct store {
	struct store_job *jobs;
	size_t njobs;
	struct store_step *steps;
	size_t nsteps;
	struct worker *workers;
	size_t nworkers;
	struct cached *cache;
	size_t ncache;
	unsigned leases; /* handed out, for unique lease strings */
};

/* Grow *arr (of n items of size) by one zeroed item; NULL when out of
 * memory. */
static void *grow(void *arr, size_t *n, size_t size)
{
	void **p = arr;
	char *q = realloc(*p, (*n + 1) * size);

	if (!q)
		return NULL;
	*p = q;
	memset(q + *n * size, 0, size);
	return q + (*n)++ * size;
}

static char *dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void set(char **field, const char *value)
{
	free(*field);
	*field = dup(value);
}

double store_time(void)
{
	return fake_store_now;
}

int store_open(struct store **out, const char *path)
{
	(void)path;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : err_set(ERR_NOMEM, "out of memory");
}

void store_close(struct store *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->njobs; i++)
		store_job_release(&s->jobs[i]);
	store_steps_release(s->steps, s->nsteps);
	for (i = 0; i < s->nworkers; i++)
		free(s->workers[i].caps);
	for (i = 0; i < s->ncache; i++)
		free(s->cache[i].result);
	free(s->jobs);
	free(s->workers);
	free(s->cache);
	free(s);
}

int store_begin(struct store *s)
{
	(void)s;
	return 0;
}

int store_commit(struct store *s)
{
	(void)s;
	return 0;
}

void store_rollback(struct store *s)
{
	(void)s;
}

static struct store_job *job(struct store *s, long long id)
{
	return id >= 1 && (size_t)id <= s->njobs ? &s->jobs[id - 1] : NULL;
}

static struct store_step *step(struct store *s, long long id)
{
	return id >= 1 && (size_t)id <= s->nsteps ? &s->steps[id - 1] : NULL;
}

int store_job_insert(struct store *s, long long *id, const char *type,
		     int state, const char *spec, const char *callback,
		     const char *owner)
{
	struct store_job *j = grow(&s->jobs, &s->njobs, sizeof(*j));

	if (!j)
		return err_set(ERR_NOMEM, "out of memory");
	j->id = *id = (long long)s->njobs;
	j->type = dup(type);
	j->state = state;
	j->spec = dup(spec);
	j->callback = dup(callback);
	j->owner = dup(owner);
	j->hook_state = dup("none");
	j->created = store_time();
	return 0;
}

int store_job_fetched(struct store *s, long long id, const char *spec)
{
	struct store_job *j = job(s, id);

	if (!j || j->state != JOB_FETCHING)
		return err_set(ERR_NOTFOUND, "job %lld is not fetching", id);
	set(&j->spec, spec);
	j->state = JOB_QUEUED;
	return 0;
}

int store_job_get(struct store *s, long long id, struct store_job *out)
{
	const struct store_job *j = job(s, id);

	if (!j)
		return err_set(ERR_NOTFOUND, "no job %lld", id);
	*out = *j;
	out->type = dup(j->type);
	out->spec = dup(j->spec);
	out->result = dup(j->result);
	out->culprit = dup(j->culprit);
	out->reason = dup(j->reason);
	out->callback = dup(j->callback);
	out->hook_state = dup(j->hook_state);
	out->hook_error = dup(j->hook_error);
	out->outcome = dup(j->outcome);
	out->owner = dup(j->owner);
	return 0;
}

int store_job_ids(struct store *s, int state, long long **ids, size_t *n)
{
	size_t i;

	*n = 0;
	*ids = calloc(s->njobs + 1, sizeof(**ids));
	if (!*ids)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == state)
			(*ids)[(*n)++] = s->jobs[i].id;
	return 0;
}

int store_job_start(struct store *s, long long id)
{
	struct store_job *j = job(s, id);

	if (j && j->state == JOB_QUEUED) {
		j->state = JOB_RUNNING;
		j->started = store_time();
	}
	return 0;
}

int store_job_set_candidates(struct store *s, long long id, long long n)
{
	struct store_job *j = job(s, id);

	if (j && !j->candidates)
		j->candidates = n;
	return 0;
}

int store_job_set_outcome(struct store *s, long long id, const char *outcome)
{
	struct store_job *j = job(s, id);

	if (j)
		set(&j->outcome, outcome);
	return 0;
}

int store_job_end(struct store *s, long long id, int state, const char *result,
		  const char *culprit, const char *reason)
{
	struct store_job *j = job(s, id);

	if (!j || (j->state != JOB_QUEUED && j->state != JOB_RUNNING &&
		   j->state != JOB_FETCHING))
		return 0;
	j->state = state;
	set(&j->result, result);
	set(&j->culprit, culprit);
	set(&j->reason, reason);
	j->finished = j->hook_next = store_time();
	set(&j->hook_state, j->callback ? "pending" : "none");
	return 1;
}

static void copy_step(struct store_step *out, const struct store_step *st)
{
	*out = *st;
	out->result = dup(st->result);
}

int store_steps_of_job(struct store *s, long long job_id,
		       struct store_step **out, size_t *n)
{
	size_t i;

	*n = 0;
	*out = calloc(s->nsteps + 1, sizeof(**out));
	if (!*out)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].job == job_id)
			copy_step(&(*out)[(*n)++], &s->steps[i]);
	return 0;
}

int store_step_get(struct store *s, long long id, struct store_step *out)
{
	const struct store_step *st = step(s, id);

	if (!st)
		return err_set(ERR_NOTFOUND, "no step %lld", id);
	copy_step(out, st);
	return 0;
}

int store_step_insert(struct store *s, long long *id, long long job_id,
		      const char *hex, const char *role, int round,
		      long long candidates, const char *cache_key)
{
	struct store_step *st = grow(&s->steps, &s->nsteps, sizeof(*st));

	if (!st)
		return err_set(ERR_NOMEM, "out of memory");
	st->id = (long long)s->nsteps;
	st->job = job_id;
	snprintf(st->hex, sizeof(st->hex), "%s", hex);
	snprintf(st->role, sizeof(st->role), "%s", role);
	st->state = STEP_QUEUED;
	st->round = round;
	st->candidates = candidates;
	snprintf(st->cache_key, sizeof(st->cache_key), "%s",
		 cache_key ? cache_key : "");
	st->queued = store_time();
	if (id)
		*id = st->id;
	return 0;
}

int store_step_done(struct store *s, long long id, const char *verdict,
		    const char *result, int cached)
{
	struct store_step *st = step(s, id);

	if (!st)
		return 0;
	st->state = STEP_DONE;
	snprintf(st->verdict, sizeof(st->verdict), "%s", verdict);
	set(&st->result, result);
	st->cached = cached;
	st->finished = store_time();
	st->lease[0] = '\0';
	return 0;
}

static void cancel(struct store_step *st)
{
	if (st->state != STEP_QUEUED && st->state != STEP_LEASED)
		return;
	st->state = STEP_CANCELLED;
	st->finished = store_time();
	st->lease[0] = '\0';
}

int store_step_cancel(struct store *s, long long id)
{
	struct store_step *st = step(s, id);

	if (st)
		cancel(st);
	return 0;
}

int store_job_cancel_steps(struct store *s, long long job_id)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].job == job_id)
			cancel(&s->steps[i]);
	return 0;
}

int store_step_lease(struct store *s, long long worker, double lease_s,
		     int (*fn)(const struct store_step *st, void *payload),
		     void *payload, struct store_step *out)
{
	size_t j, i;

	/* oldest job first, then the job's steps in order */
	for (j = 1; j <= s->njobs; j++)
		for (i = 0; i < s->nsteps; i++) {
			struct store_step *st = &s->steps[i];

			if (st->job != (long long)j || st->state != STEP_QUEUED)
				continue;
			copy_step(out, st);
			if (fn(out, payload) != 1) {
				free(out->result);
				out->result = NULL;
				continue;
			}
			st->state = STEP_LEASED;
			st->worker = worker;
			st->started = store_time();
			st->lease_until = st->started + lease_s;
			snprintf(st->lease, sizeof(st->lease), "lease%027u",
				 ++s->leases);
			free(out->result);
			copy_step(out, st);
			return 0;
		}
	return err_set(ERR_NOTFOUND, "no step to take");
}

static struct store_step *live_lease(struct store *s, const char *lease)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].state == STEP_LEASED &&
		    !strcmp(s->steps[i].lease, lease) &&
		    s->steps[i].lease_until >= store_time())
			return &s->steps[i];
	return NULL;
}

int store_lease_find(struct store *s, const char *lease, struct store_step *out)
{
	const struct store_step *st = live_lease(s, lease);

	if (!st)
		return err_set(ERR_NOTFOUND, "no such lease");
	copy_step(out, st);
	return 0;
}

int store_lease_extend(struct store *s, const char *lease, double lease_s)
{
	struct store_step *st = live_lease(s, lease);

	if (!st)
		return err_set(ERR_NOTFOUND, "lease expired or cancelled");
	st->lease_until = store_time() + lease_s;
	return 0;
}

int store_expire_leases(struct store *s, double now, int max_attempts,
			long long **jobs, size_t *n)
{
	size_t i, k;

	*n = 0;
	*jobs = calloc(s->nsteps + 1, sizeof(**jobs));
	if (!*jobs)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < s->nsteps; i++) {
		struct store_step *st = &s->steps[i];

		if (st->state != STEP_LEASED || st->lease_until >= now)
			continue;
		for (k = 0; k < *n && (*jobs)[k] != st->job; k++)
			;
		if (k == *n)
			(*jobs)[(*n)++] = st->job;
		st->attempts++;
		st->lease[0] = '\0';
		st->worker = 0;
		st->state = STEP_QUEUED;
		if (st->attempts >= max_attempts) {
			st->state = STEP_DONE;
			snprintf(st->verdict, sizeof(st->verdict), "infra");
			set(&st->result, "{\"verdict\":\"infra\",\"title\":"
					 "\"worker lost (lease expired)\"}");
		}
	}
	return 0;
}

int store_cache_get(struct store *s, const char *key, char verdict[8],
		    char **result)
{
	size_t i;

	*result = NULL;
	for (i = 0; i < s->ncache; i++)
		if (!strcmp(s->cache[i].key, key)) {
			snprintf(verdict, 8, "%s", s->cache[i].verdict);
			*result = dup(s->cache[i].result);
			return 0;
		}
	return ERR_NOTFOUND;
}

int store_cache_put(struct store *s, const char *key, const char *verdict,
		    const char *result)
{
	struct cached *c = NULL;
	size_t i;

	for (i = 0; i < s->ncache && !c; i++)
		if (!strcmp(s->cache[i].key, key))
			c = &s->cache[i];
	if (!c && !(c = grow(&s->cache, &s->ncache, sizeof(*c))))
		return err_set(ERR_NOMEM, "out of memory");
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->verdict, sizeof(c->verdict), "%s", verdict);
	set(&c->result, result);
	return 0;
}

int store_worker_add(struct store *s, long long *id, const char *name,
		     const char *token, const char *caps)
{
	struct worker *w = grow(&s->workers, &s->nworkers, sizeof(*w));

	(void)name;
	if (!w)
		return err_set(ERR_NOMEM, "out of memory");
	w->id = *id = (long long)s->nworkers;
	snprintf(w->token, sizeof(w->token), "%s", token ? token : "");
	w->caps = dup(caps);
	w->last_seen = store_time();
	return 0;
}

int store_worker_seen(struct store *s, long long id)
{
	if (id < 1 || (size_t)id > s->nworkers)
		return err_set(ERR_NOTFOUND, "unknown worker %lld", id);
	s->workers[id - 1].last_seen = store_time();
	return 0;
}

int store_worker_token(struct store *s, long long id, char token[65])
{
	token[0] = '\0';
	if (id < 1 || (size_t)id > s->nworkers)
		return err_set(ERR_NOTFOUND, "unknown worker %lld", id);
	snprintf(token, 65, "%s", s->workers[id - 1].token);
	return 0;
}

int store_worker_caps(struct store *s, long long id, char **caps)
{
	*caps = NULL;
	if (id < 1 || (size_t)id > s->nworkers)
		return err_set(ERR_NOTFOUND, "unknown worker %lld", id);
	*caps = dup(s->workers[id - 1].caps);
	return *caps ? 0 : err_set(ERR_NOMEM, "out of memory");
}

int store_workers_live(struct store *s, double since,
		       int (*fn)(long long id, const char *caps, void *payload),
		       void *payload)
{
	size_t i;

	for (i = 0; i < s->nworkers; i++)
		if (s->workers[i].last_seen >= since &&
		    fn(s->workers[i].id, s->workers[i].caps, payload))
			break;
	return 0;
}
