// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workers' side of the scheduler: a worker registers (bound to its
 * token), polls for a step and gets it with a lease, beats while it runs
 * it, and sends its result, which must be about the leased step; a
 * manual releases job's answers come in as steps too.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "recipe.h"
#include "scheduler.h"
#include "step.h"
#include "util.h"
#include "verdict.h"
#include "sched_priv.h"

int sched_register(struct sched *s, const char *token, const char *body,
		   size_t len, long long *id)
{
	struct job_caps c;
	char *canon;
	int rc = job_caps_parse(&c, body, len);

	if (rc)
		return rc;
	canon = job_caps_dump(&c);
	rc = canon ? store_worker_add(s->store, id, c.name, token, canon)
		   : err_set(ERR_NOMEM, "out of memory");
	s->live_stale = 1;
	free(canon);
	job_caps_release(&c);
	return rc;
}

/*
 * Whether worker was registered with token: ERR_NOTFOUND for a worker
 * never registered, ERR_DENIED for another token's.
 */
static int worker_of(struct sched *s, const char *token, long long worker)
{
	char had[65];
	int rc = store_worker_token(s->store, worker, had);

	if (rc)
		return rc;
	if (strcmp(had, token))
		return err_set(ERR_DENIED,
			       "worker %lld was registered with another "
			       "worker token",
			       worker);
	return 0;
}

/*
 * The step that holds lease, into *out, when the worker it was given to
 * was registered with token: ERR_NOTFOUND for a lease that expired or was
 * never given, ERR_DENIED for another token's.
 */
static int lease_of(struct sched *s, const char *token, const char *lease,
		    struct store_step *out)
{
	int rc = store_lease_find(s->store, lease, out);

	if (rc)
		return rc;
	rc = worker_of(s, token, out->worker);
	if (rc == ERR_NOTFOUND || rc == ERR_DENIED)
		rc = err_set(ERR_DENIED, "this lease was given to a worker of "
					 "another worker token");
	if (rc) {
		free(out->result);
		out->result = NULL;
	}
	return rc;
}

struct take {
	struct sched *s;
	const struct job_caps *caps;
};

static int can_take(const struct store_step *st, void *payload)
{
	struct take *t = payload;
	struct jobc *jc = sched_find_jobc(t->s, st->job);

	if (!jc) {
		struct store_job job;

		if (store_job_get(t->s->store, st->job, &job))
			return 0;
		sched_get_jobc(t->s, st->job, job.spec, job.owner, &jc);
		store_job_release(&job);
		if (!jc)
			return 0;
	}
	return job_caps_accept(t->caps, &jc->spec);
}

/* A manual releases job's answers so far, "ABI:verdict ...", into
 * *out (NULL when there are none). */
static int answers_of(struct sched *s, long long job, char **out)
{
	struct store_step *steps = NULL;
	size_t n = 0, i;
	struct buf b;
	int rc = store_steps_of_job(s->store, job, &steps, &n);

	*out = NULL;
	buf_init(&b, 1 << 20);
	for (i = 0; !rc && i < n; i++) {
		char *rel;

		if (strcmp(steps[i].role, "answer") ||
		    steps[i].state != STEP_DONE)
			continue;
		rel = job_json_string(steps[i].result, "release");
		if (rel)
			rc = buf_printf(&b, "%s%s:%s", b.len ? " " : "", rel,
					steps[i].verdict);
		free(rel);
	}
	if (!rc && b.len && !(*out = buf_detach(&b)))
		rc = err_set(ERR_NOMEM, "out of memory");
	buf_release(&b);
	store_steps_release(steps, n);
	return rc;
}

int sched_poll(struct sched *s, const char *token, long long worker,
	       char **assignment)
{
	struct take t = { .s = s };
	struct store_step st;
	struct step_assignment a;
	struct livec key = { .id = worker }, *live;
	struct job_caps parsed;
	struct jobc *jc;
	char *caps;
	int rc;

	*assignment = NULL;
	rc = worker_of(s, token, worker);
	if (!rc)
		rc = store_worker_seen(s->store, worker);
	if (rc)
		return rc;
	sched_refresh_live(s);
	live = s->nlive ? bsearch(&key, s->live, s->nlive, sizeof(key),
				  sched_by_id)
			: NULL;
	if (live) {
		t.caps = &live->caps;
	} else {
		/* not live when the set was read: from its row */
		if ((rc = store_worker_caps(s->store, worker, &caps)))
			return rc;
		rc = job_caps_parse(&parsed, caps, strlen(caps));
		free(caps);
		if (rc)
			return rc;
		t.caps = &parsed;
	}
	rc = store_step_lease(s->store, worker, s->o.lease_s, can_take, &t,
			      &st);
	if (!live)
		job_caps_release(&parsed);
	if (rc)
		return rc;
	jc = sched_find_jobc(s, st.job);
	memset(&a, 0, sizeof(a));
	snprintf(a.lease, sizeof(a.lease), "%s", st.lease);
	snprintf(a.commit, sizeof(a.commit), "%s", st.hex);
	snprintf(a.role, sizeof(a.role), "%s", st.role);
	a.step = st.id;
	a.job = st.job;
	a.lease_seconds = s->o.lease_s;
	snprintf(a.tenant, sizeof(a.tenant), "%s", jc->tenant);
	a.spec = jc->spec; /* borrowed for the dump */
	rc = jc->spec.manual ? answers_of(s, st.job, &a.spec.answers) : 0;
	*assignment = rc ? NULL : step_assignment_dump(&a);
	free(a.spec.answers);
	free(st.result);
	if (rc)
		return rc;
	return *assignment ? 0 : err_set(ERR_NOMEM, "out of memory");
}

int sched_answer(struct sched *s, long long id, const char *release,
		 const char *verdict)
{
	struct store_step *steps = NULL;
	struct manual_state m = { 0 };
	struct store_job job;
	json_t *r = NULL;
	const char *next = NULL;
	char *result = NULL;
	size_t n = 0;
	long long sid;
	int rc = store_job_get(s->store, id, &job);

	if (rc)
		return rc;
	rc = job.state == JOB_QUEUED || job.state == JOB_RUNNING
		     ? 0
		     : err_set(ERR_INPUT, "job %lld has ended", id);
	if (!rc && !job_json_true(job.spec, "manual"))
		rc = err_set(ERR_INPUT,
			     "job %lld is not a manual releases "
			     "job",
			     id);
	store_job_release(&job);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &steps, &n);
	if (!rc)
		sched_manual_at(steps, n, &m);
	if (!rc && sched_manual_waits(&m) && m.last->result)
		r = json_loads(m.last->result, 0, NULL);
	next = json_string_value(json_object_get(json_object_get(r, "releases"),
						 "next_release"));
	if (!rc && !next)
		rc = err_set(ERR_INPUT,
			     "job %lld is not waiting for an answer "
			     "now",
			     id);
	else if (!rc && strcmp(next, release))
		rc = err_set(ERR_INPUT,
			     "job %lld is waiting for an answer on release "
			     "%s, not %s",
			     id, next, release);
	if (!rc && !(result = util_fmt("{\"verdict\":\"%s\",\"title\":"
				       "\"answered %s\",\"role\":\"answer\","
				       "\"release\":\"%s\"}",
				       verdict, verdict, release)))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc && !(rc = store_begin(s->store))) {
		rc = store_step_insert(s->store, &sid, id, RELEASES_HEX,
				       "answer", m.last->round, 0, "");
		if (!rc)
			rc = store_step_done(s->store, sid, verdict, result, 0);
		if (rc)
			store_rollback(s->store);
		else
			rc = store_commit(s->store);
	}
	json_decref(r);
	free(result);
	store_steps_release(steps, n);
	return rc ? rc : sched_tick(s, id);
}

int sched_heartbeat(struct sched *s, const char *token, const char *lease)
{
	struct store_step st;
	int rc = lease_of(s, token, lease, &st);

	if (rc == ERR_NOTFOUND)
		return err_set(ERR_NOTFOUND, "lease expired or cancelled");
	if (rc)
		return rc;
	free(st.result);
	return store_lease_extend(s->store, lease, s->o.lease_s);
}

int sched_lease(struct sched *s, const char *token, const char *lease,
		long long *step)
{
	struct store_step st;
	int rc = lease_of(s, token, lease, &st);

	*step = 0;
	if (rc == ERR_NOTFOUND)
		return err_set(ERR_NOTFOUND, "lease expired or step cancelled");
	if (rc)
		return rc;
	free(st.result);
	*step = st.id;
	return 0;
}

/*
 * Add a step's runs to what the result cache holds for its key: later
 * jobs are answered with every run so far, from whichever commit of the
 * same key they were made on.
 */
static int cache_add(struct store *store, const char *key, const char *hex,
		     const char *result)
{
	char old_verdict[8], verdict[8], *old = NULL, *merged = NULL;
	int rc = store_cache_get(store, key, old_verdict, &old);

	if (rc && rc != ERR_NOTFOUND)
		return rc;
	rc = step_result_merge(&merged, verdict, old, result, hex);
	if (!rc)
		rc = store_cache_put(store, key, verdict, merged);
	free(old);
	free(merged);
	return rc;
}

int sched_result(struct sched *s, const char *token, const char *lease,
		 const char *body, size_t len)
{
	struct store_step st;
	char verdict[8];
	int rc;

	if ((rc = store_begin(s->store)))
		return rc;
	rc = lease_of(s, token, lease, &st);
	if (rc) {
		store_rollback(s->store);
		return rc == ERR_NOTFOUND
			       ? err_set(ERR_NOTFOUND,
					 "lease expired or step cancelled: "
					 "result discarded")
			       : rc;
	}
	free(st.result);
	/* about the step leased, and no other commit */
	if ((rc = step_result_check(body, len, st.hex, verdict))) {
		store_rollback(s->store);
		return rc;
	}
	{
		char *canon = strndup(body, len);

		rc = canon ? store_step_done(s->store, st.id, verdict, canon, 0)
			   : err_set(ERR_NOMEM, "out of memory");
		if (!rc && strcmp(verdict, "infra") && st.cache_key[0])
			rc = cache_add(s->store, st.cache_key, st.hex, canon);
		free(canon);
	}
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	if ((rc = store_commit(s->store)))
		return rc;
	return sched_tick(s, st.job);
}
