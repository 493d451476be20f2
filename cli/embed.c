// SPDX-License-Identifier: GPL-2.0-only
/*
 * The embedded coordinator.
 *
 * Design.  One store and one scheduler behind one lock, exactly as in
 * bisectd; the workers are threads that poll the scheduler directly
 * instead of over HTTP.  Leases are long (a local worker does not
 * vanish without the whole process), and a run given an output
 * directory that already holds an unfinished job resumes it: its lost
 * leases are put back in the queue.  After every result the bisect log
 * in the output directory is rewritten, as git bisect replay takes it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "embed.h"
#include "jobview.h"
#include "error.h"
#include "job.h"
#include "report.h"
#include "store.h"
#include "util.h"
#include "worker.h"

struct embed {
	const struct embed_opts *o;
	struct store *store;
	struct sched *sched;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	long long job;
	int ended;
	unsigned nstep;
	size_t bisect_done;
	int fatal; /* a worker could not go on (out of memory) */
};

struct local_worker {
	struct embed *e;
	long long id;
	char slot[16];
	pthread_t thread;
};

static int job_ended(struct embed *e)
{
	struct store_job j;
	int ended;

	if (store_job_get(e->store, e->job, &j))
		return 1;
	ended = j.state != JOB_QUEUED && j.state != JOB_RUNNING;
	store_job_release(&j);
	return ended;
}

static void save_log(struct embed *e)
{
	struct buf log;
	char *path = util_fmt("%s/bisect.log", e->o->out_dir);

	buf_init(&log, 16u << 20);
	if (path && !sched_bisect_log(e->sched, e->job, &log))
		util_write_atomic(path, log.ptr ? log.ptr : "", log.len);
	buf_release(&log);
	free(path);
}

/* One line per step, as a person follows a bisection. */
static void progress(struct embed *e, const struct step_result *st)
{
	FILE *f = e->o->progress;
	size_t initial = 0, left = 0;

	if (!f)
		return;
	sched_progress(e->sched, e->job, &initial, &left);
	if (!strcmp(st->role, "bisect"))
		fprintf(f, "step %zu of about %zu", e->bisect_done,
			e->bisect_done +
				(left ? engine_estimate_steps(left) : 0));
	else
		fprintf(f, "%s check", st->role);
	fprintf(f, ": %.12s", st->hex);
	if (st->nvalues) {
		/* a metric's step: its values, not a verdict */
		for (size_t i = 0; i < st->nvalues && i < 8; i++)
			fprintf(f, " %g", st->values[i]);
		fprintf(f, "%s%s%s", st->nvalues > 8 ? " ..." : "",
			*st->unit ? " " : "", st->unit);
	} else {
		fprintf(f, " %s", verdict_name(st->verdict));
	}
	if (st->title && *st->title) {
		char *title = buf_shown(st->title, 0); /* from a console */

		fprintf(f, " (%s)", title ? title : "");
		free(title);
	}
	if (st->build_cached)
		fprintf(f, " [kernel from the cache, boot %.1f s]", st->boot_s);
	else if (st->build_s > 0 || st->boot_s > 0)
		fprintf(f, " [checkout %.1f s, build %.1f s, boot %.1f s]",
			st->checkout_s, st->build_s, st->boot_s);
	else
		fprintf(f, " [%.1f s]", st->seconds);
	if (!strcmp(st->role, "bisect") && left)
		fprintf(f, ", %zu candidate%s left", left,
			left == 1 ? "" : "s");
	fputc('\n', f);
	for (size_t i = 0; i < 2; i++) {
		const char *notes = i ? st->build_notes : st->config_notes;
		char *shown = notes && *notes ? buf_shown(notes, 1) : NULL;

		if (shown)
			fputs(shown, f);
		free(shown);
	}
	fflush(f);
}

static void *work(void *arg)
{
	struct local_worker *w = arg;
	struct embed *e = w->e;

	for (;;) {
		struct step_assignment a;
		struct step_result st;
		struct steprun_env env = { .cache_dir = e->o->cache_dir,
					   .recipe_path = e->o->recipe_path,
					   .slot = w->slot,
					   .live = e->o->live };
		char *assignment = NULL, *json = NULL, *dir = NULL;
		struct buf text;
		int rc;

		pthread_mutex_lock(&e->lock);
		while (!e->ended && !e->fatal) {
			rc = sched_poll(e->sched, "", w->id, &assignment);
			if (!rc)
				break;
			if (rc != ERR_NOTFOUND) {
				e->fatal = 1;
				break;
			}
			if ((e->ended = job_ended(e)))
				break;
			pthread_cond_wait(&e->wake, &e->lock);
		}
		if (e->ended || e->fatal) {
			pthread_cond_broadcast(&e->wake);
			pthread_mutex_unlock(&e->lock);
			free(assignment);
			return NULL;
		}
		rc = step_assignment_parse(&a, assignment, strlen(assignment));
		free(assignment);
		if (!rc)
			dir = util_fmt("%s/steps/%02u-%.12s", e->o->out_dir,
				       ++e->nstep, a.commit);
		pthread_mutex_unlock(&e->lock);
		if (rc || !dir) {
			e->fatal = 1;
			continue;
		}
		env.step_dir = dir;
		buf_init(&text, 1 << 20);
		rc = steprun_assignment(&st, &a, &env);
		if (!rc)
			rc = step_result_dump(&json, &text, &st);
		buf_release(&text);
		pthread_mutex_lock(&e->lock);
		if (!rc)
			rc = sched_result(e->sched, "", a.lease, json,
					  strlen(json));
		if (!rc) {
			e->bisect_done += !strcmp(st.role, "bisect");
			progress(e, &st);
			save_log(e);
		} else if (rc != ERR_NOTFOUND) {
			e->fatal = 1; /* the store failed us */
		}
		e->ended = job_ended(e);
		pthread_cond_broadcast(&e->wake);
		pthread_mutex_unlock(&e->lock);
		step_result_release(&st);
		job_spec_release(&a.spec);
		free(json);
		free(dir);
	}
}

/* An unfinished job of an earlier run in this directory, or 0. */
static long long unfinished(struct store *st)
{
	long long *ids = NULL, id = 0;
	size_t n = 0;
	int state;

	for (state = JOB_RUNNING; state >= JOB_QUEUED && !id; state--) {
		if (store_job_ids(st, state, &ids, &n) == 0 && n)
			id = ids[0];
		free(ids);
	}
	return id;
}

int embed_run(struct session *s, int *code, const struct embed_opts *o,
	      const char *spec_json, const struct sched_verdict *known,
	      size_t nknown)
{
	struct embed e = { .o = o,
			   .lock = PTHREAD_MUTEX_INITIALIZER,
			   .wake = PTHREAD_COND_INITIALIZER };
	struct sched_opts so = { .state_dir = o->out_dir,
				 .recipe_path = o->recipe_path,
				 .lease_s = 1e9,
				 .max_attempts = 3,
				 .workers = o->workers,
				 .clone_missing = 1 };
	struct local_worker *w = NULL;
	struct job_spec spec = { 0 };
	char *db = util_fmt("%s/state.db", o->out_dir);
	int rc, i, started = 0;

	*code = 0;
	if (!db)
		return err_set(ERR_NOMEM, "out of memory");
	rc = store_open(&e.store, db);
	free(db);
	if (!rc)
		rc = sched_open(&e.sched, e.store, &so);
	if (rc)
		goto out;
	if ((e.job = unfinished(e.store))) {
		long long *jobs = NULL;
		size_t nj = 0;

		/* a run that was stopped: its leases died with it */
		store_expire_leases(e.store, store_time() + 2e9, 1000, &jobs,
				    &nj);
		free(jobs);
		if (o->progress)
			fprintf(o->progress, "resuming job %lld from %s\n",
				e.job, o->out_dir);
		rc = sched_tick(e.sched, e.job);
	} else {
		rc = sched_submit(e.sched, spec_json, strlen(spec_json), known,
				  nknown, NULL, &e.job);
	}
	if (rc)
		goto out;
	{
		struct store_job j;

		if ((rc = store_job_get(e.store, e.job, &j)))
			goto out;
		rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
		store_job_release(&j);
		if (rc)
			goto out;
	}
	save_log(&e);
	w = calloc((size_t)o->workers, sizeof(*w));
	if (!w) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < o->workers; i++) {
		char caps[512];

		snprintf(caps, sizeof(caps),
			 "{\"name\":\"local-%d\",\"run\":true,\"recipes\":"
			 "[\"%s\"]}",
			 i + 1, spec.recipe ? spec.recipe : "");
		w[i].e = &e;
		snprintf(w[i].slot, sizeof(w[i].slot), i ? "-%d" : "", i + 1);
		rc = sched_register(e.sched, "", caps, strlen(caps), &w[i].id);
		if (rc)
			goto out;
	}
	for (i = 0; i < o->workers; i++) {
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			rc = err_set(ERR_INFRA, "cannot start a worker thread");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	if (!rc && e.fatal)
		rc = err_set(ERR_INFRA, "a local worker failed: %s",
			     err_last());
	if (!rc && !strcmp(spec.type, "bisect"))
		rc = jobview_session(s, code, e.store, e.sched, e.job, &spec);
out:
	free(w);
	job_spec_release(&spec);
	sched_close(e.sched);
	store_close(e.store);
	return rc;
}
