// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fetch queue.
 *
 * Design.  A job whose repository is a URL (or whose base is a Debian
 * source version) is stored as fetching and answered at once.  A pool
 * of threads fetches such jobs, each thread one at a time: under the
 * coordinator's lock it takes the oldest fetching job that no thread
 * has, whose submitter has fewer than per_submitter fetches under way,
 * and whose key (the mirror the fetch writes, sched_fetch_key()) no
 * other fetch writes; it notes the fetch in the table of those under
 * way, lets the lock go while git (or the import) runs in a child
 * process, and takes it again to hand the result to the scheduler
 * (sched_fetched(): the job is planned, or fails with the fetch's
 * reason) and to clear its entry.
 *
 * So a submitter whose URLs never answer holds at most per_submitter
 * threads, each until its fetch has received nothing for the stall
 * limit (or, trickling, until the whole fetch's timeout); the others
 * go on with the other submitters' jobs, and its own later jobs wait
 * behind its own, passed over without holding up those after them.
 * The API and the scheduler never wait for a fetch.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "error.h"
#include "log.h"
#include "fetchq.h"
#include "scheduler.h"
#include "store.h"

struct fetchq;

/* One thread of the pool; its fetch is run[slot]. */
struct fetcher {
	struct fetchq *q;
	int slot;
	pthread_t thread;
};

struct fetchq {
	struct coord *co;
	struct fetchq_opts o;
	/* co->lock guards the table, ended and stopping */
	struct fetchq_running run[FETCHQ_MAX];
	char owners[FETCHQ_MAX][64]; /* run[i].owner's text */
	struct fetcher threads[FETCHQ_MAX];
	int started, ended, stopping;
};

int fetchq_may_start(const struct fetchq_running *run, size_t n,
		     int per_submitter, long long id, const char *owner,
		     const char *key)
{
	int theirs = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!run[i].id)
			continue;
		if (run[i].id == id)
			return 0;
		if (!strcmp(run[i].owner, owner) && ++theirs >= per_submitter)
			return 0;
		if (key && !strcmp(run[i].key, key))
			return 0;
	}
	return 1;
}

/* The job a thread takes: its id, request and key, owned by it. */
struct take {
	struct fetchq *q;
	long long id;
	char *spec, *key;
	char owner[64];
};

static int consider(const struct store_job *j, void *payload)
{
	struct take *t = payload;
	struct fetchq *q = t->q;
	const char *owner = j->owner ? j->owner : "";
	char *key;
	size_t n = (size_t)q->o.threads;

	/* the cheap test first: a submitter at its cap is passed over */
	if (!fetchq_may_start(q->run, n, q->o.per_submitter, j->id, owner,
			      NULL))
		return 0;
	key = sched_fetch_key(j->spec, strlen(j->spec));
	if (!key)
		key = strdup(""); /* (fetches nothing: sched_prepare says so) */
	if (!key)
		return 0;
	if (!fetchq_may_start(q->run, n, q->o.per_submitter, j->id, owner,
			      key) ||
	    !(t->spec = strdup(j->spec))) {
		free(key);
		return 0;
	}
	t->id = j->id;
	t->key = key;
	snprintf(t->owner, sizeof(t->owner), "%s", owner);
	return 1;
}

/*
 * Under co->lock: the next job this thread may fetch, noted as under
 * way in its slot; 0 when there is none now.
 */
static int take_job(struct fetcher *f, struct take *t)
{
	struct fetchq *q = f->q;
	struct fetchq_running *r = &q->run[f->slot];

	memset(t, 0, sizeof(*t));
	t->q = q;
	if (store_job_each(q->co->store, JOB_FETCHING, consider, t)) {
		log_info("fetch queue: %s", err_last());
		return 0;
	}
	if (!t->id)
		return 0;
	snprintf(q->owners[f->slot], sizeof(q->owners[f->slot]), "%s",
		 t->owner);
	r->owner = q->owners[f->slot];
	r->key = t->key;
	r->id = t->id;
	return 1;
}

/*
 * Fetch t's job without the lock; then, under it, plan or fail it.
 * Called, and returns, with co->lock held; t's memory is released.
 */
static void fetch_job(struct fetcher *f, struct take *t)
{
	struct fetchq *q = f->q;
	struct coord *co = q->co;
	char *prepared = NULL, why[1024] = "";
	const char *body;
	int rc, stopping;

	pthread_mutex_unlock(&co->lock);
	rc = sched_prepare(q->o.state_dir, &q->o.lim, t->spec, strlen(t->spec),
			   &prepared);
	if (rc)
		snprintf(why, sizeof(why), "%s", err_last());
	body = prepared ? prepared : t->spec;
	pthread_mutex_lock(&co->lock);
	stopping = q->stopping;
	if (!stopping && sched_fetched(co->sched, t->id, body, strlen(body),
				       rc ? why : NULL))
		log_info("job %lld: %s", t->id, err_last());
	/* its slot is free: a job that waited on it may start */
	memset(&q->run[f->slot], 0, sizeof(q->run[f->slot]));
	pthread_cond_broadcast(&co->fetch);
	pthread_mutex_unlock(&co->lock);
	if (!stopping) {
		api_dispatch(co->api);
		if (rc)
			log_info("job %lld: fetch failed: %s", t->id, why);
	}
	free(prepared);
	free(t->spec);
	free(t->key);
	pthread_mutex_lock(&co->lock);
}

static void *fetch_thread(void *arg)
{
	struct fetcher *f = arg;
	struct coord *co = f->q->co;

	pthread_mutex_lock(&co->lock);
	while (!f->q->stopping) {
		struct take t;
		struct timespec ts;

		if (take_job(f, &t)) {
			fetch_job(f, &t);
			continue;
		}
		/* woken by a submission or a fetch that ended; and once a
		 * second (a cancelled job, a fetch of another key) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&co->fetch, &co->lock, &ts);
	}
	f->q->ended++;
	pthread_mutex_unlock(&co->lock);
	return NULL;
}

int fetchq_start(struct fetchq **out, struct coord *co,
		 const struct fetchq_opts *o)
{
	struct fetchq *q;
	int i, rc;

	*out = NULL;
	if (o->threads < 1 || o->threads > FETCHQ_MAX || o->per_submitter < 1 ||
	    o->per_submitter > o->threads)
		return err_set(ERR_INPUT,
			       "fetch queue: 1 to %d threads, and "
			       "1 to as many per submitter",
			       FETCHQ_MAX);
	q = calloc(1, sizeof(*q));
	if (!q)
		return err_set(ERR_NOMEM, "out of memory");
	q->co = co;
	q->o = *o;
	for (i = 0; i < o->threads; i++) {
		struct fetcher *f = &q->threads[i];

		f->q = q;
		f->slot = i;
		if ((rc = pthread_create(&f->thread, NULL, fetch_thread, f))) {
			fetchq_stop(q, 30);
			return err_set(ERR_INFRA,
				       "cannot start a fetch thread: %s",
				       strerror(rc));
		}
		q->started++;
	}
	*out = q;
	return 0;
}

int fetchq_stop(struct fetchq *q, double wait_s)
{
	struct coord *co;
	int i, ended;

	if (!q)
		return 0;
	co = q->co;
	pthread_mutex_lock(&co->lock);
	q->stopping = 1;
	pthread_cond_broadcast(&co->fetch);
	pthread_mutex_unlock(&co->lock);
	for (i = 0;; i++) {
		struct timespec ts = { 0, 100000000 };

		pthread_mutex_lock(&co->lock);
		ended = q->ended;
		pthread_mutex_unlock(&co->lock);
		if (ended == q->started || i >= wait_s * 10)
			break;
		nanosleep(&ts, NULL);
	}
	if (ended != q->started)
		return err_set(ERR_INFRA, "a fetch is still under way");
	for (i = 0; i < q->started; i++)
		pthread_join(q->threads[i].thread, NULL);
	free(q);
	return 0;
}
