// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workers' calls of the HTTP API: registration, the long poll for a
 * step (suspended until api_dispatch() leases one, or the wait ends),
 * heartbeats, results, and artifact uploads streamed to disk.
 */
#include "api_priv.h"

enum MHD_Result api_register_worker(struct api *a, struct MHD_Connection *mc,
				    struct conn *cn)
{
	long long id = 0;
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = sched_register(a->c->sched, cn->token, buf_str(&cn->body),
			    cn->body.len, &id);
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return api_json_reply(mc, MHD_HTTP_CREATED,
			      util_fmt("{\"id\":%lld}", id));
}

/* The answer to a poll: its step, 204 when there was none, or an error. */
enum MHD_Result api_poll_reply(struct api *a, struct MHD_Connection *mc, int rc,
			       char *assignment, const char *error,
			       double start)
{
	metrics_count(a->m, COUNT_POLLS);
	if (!rc) {
		metrics_count(a->m, COUNT_ASSIGNMENTS);
		metrics_observe(a->m, HIST_POLL_ASSIGN, util_now() - start);
		return api_json_reply(mc, MHD_HTTP_OK, assignment);
	}
	free(assignment);
	if (rc == ERR_NOTFOUND && error && strstr(error, "unknown worker"))
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, error);
	if (rc == ERR_NOTFOUND)
		return api_reply(mc, MHD_HTTP_NO_CONTENT, strdup(""),
				 "application/json");
	return api_error_reply(mc, api_status_for(rc), error);
}

static int no_step(int rc)
{
	return rc == ERR_NOTFOUND && strstr(err_last(), "no step");
}

static void unlink_waiter(struct api *a, struct conn *cn)
{
	if (cn->prev)
		cn->prev->next = cn->next;
	else
		a->wait_head = cn->next;
	if (cn->next)
		cn->next->prev = cn->prev;
	else
		a->wait_tail = cn->prev;
	cn->next = cn->prev = NULL;
	a->nwaiting--;
}

/*
 * A worker's poll: a step at once when one is queued that it can take;
 * else, with ?wait=SECONDS, the connection is suspended on the waiters'
 * list until api_dispatch() leases it one or the timer ends its wait.
 */
enum MHD_Result api_poll_work(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, long long worker)
{
	const char *w =
		MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "wait");
	char *assignment = NULL;
	double wait = 0, start = util_now(), t;
	int rc;

	/* a number of seconds, finite: "nan" or "inf" would never end */
	if (w && job_query_number("wait", w, 0, a->o.max_poll_s, &wait))
		return api_error_reply(mc, MHD_HTTP_BAD_REQUEST, err_last());
	pthread_mutex_lock(&a->c->lock);
	metrics_observe(a->m, HIST_LOCK_WAIT, util_now() - start);
	t = util_now();
	rc = sched_poll(a->c->sched, cn->token, worker, &assignment);
	metrics_observe(a->m, HIST_SCHEDULE, util_now() - t);
	if (no_step(rc) && wait > 0 && !a->closing &&
	    !store_worker_caps(a->c->store, worker, &cn->caps)) {
		cn->mc = mc;
		cn->worker = worker;
		cn->start = start;
		cn->deadline = start + wait;
		cn->pending = PENDING_POLL;
		cn->prev = a->wait_tail;
		cn->next = NULL;
		if (a->wait_tail)
			a->wait_tail->next = cn;
		else
			a->wait_head = cn;
		a->wait_tail = cn;
		a->nwaiting++;
		/* under the lock: no dispatch can resume it before this */
		MHD_suspend_connection(mc);
		pthread_mutex_unlock(&a->c->lock);
		return MHD_YES;
	}
	pthread_mutex_unlock(&a->c->lock);
	return api_poll_reply(a, mc, rc, assignment, err_last(), start);
}

/* Resume the connections on a list made with ->next (each one's answer
 * is set): after this, any of them may be freed at once. */
static void resume_all(struct conn *cn)
{
	while (cn) {
		struct conn *next = cn->next;

		cn->next = NULL;
		MHD_resume_connection(cn->mc);
		cn = next;
	}
}

void api_dispatch(struct api *a)
{
	struct conn *cn, *next, *ready = NULL;
	/* capabilities for which no step was found: a worker with the same
	 * ones would find none either, and is not asked */
	const char *dry[16];
	size_t ndry = 0, i;

	if (!a)
		return;
	pthread_mutex_lock(&a->c->lock);
	for (cn = a->wait_head; cn; cn = next) {
		double t;
		int rc;

		next = cn->next;
		for (i = 0; i < ndry && strcmp(dry[i], cn->caps); i++)
			;
		if (i < ndry)
			continue;
		t = util_now();
		rc = sched_poll(a->c->sched, cn->token, cn->worker,
				&cn->assignment);
		metrics_observe(a->m, HIST_SCHEDULE, util_now() - t);
		if (no_step(rc)) {
			if (ndry < sizeof(dry) / sizeof(dry[0]))
				dry[ndry++] = cn->caps;
			continue;
		}
		cn->poll_rc = rc;
		if (rc)
			cn->poll_error = strdup(err_last());
		unlink_waiter(a, cn);
		cn->pending = PENDING_POLLED;
		cn->next = ready;
		ready = cn;
	}
	pthread_mutex_unlock(&a->c->lock);
	resume_all(ready);
}

/* End the waits that are due by now: they are answered 204. */
void api_expire_waits(struct api *a, double now)
{
	struct conn *cn, *next, *ready = NULL;

	pthread_mutex_lock(&a->c->lock);
	for (cn = a->wait_head; cn; cn = next) {
		next = cn->next;
		if (cn->deadline > now)
			continue;
		unlink_waiter(a, cn);
		cn->poll_rc = ERR_NOTFOUND;
		cn->pending = PENDING_POLLED;
		cn->next = ready;
		ready = cn;
	}
	pthread_mutex_unlock(&a->c->lock);
	resume_all(ready);
}

void *api_timer_main(void *arg)
{
	struct api *a = arg;

	while (!__atomic_load_n(&a->stopping, __ATOMIC_SEQ_CST)) {
		struct timespec ts = { 0, 50000000 };

		nanosleep(&ts, NULL);
		api_expire_waits(a, util_now());
		conns_tick(a->cs, util_now());
		conns_tick(a->csw, util_now());
	}
	return NULL;
}

enum MHD_Result api_heartbeat(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const char *lease)
{
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = sched_heartbeat(a->c->sched, cn->token, lease);
	pthread_mutex_unlock(&a->c->lock);
	if (rc == ERR_NOTFOUND)
		return api_error_reply(mc, MHD_HTTP_GONE, err_last());
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return api_json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

enum MHD_Result api_result(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn, const char *lease)
{
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = sched_result(a->c->sched, cn->token, lease, buf_str(&cn->body),
			  cn->body.len);
	if (!rc)
		metrics_count(a->m, COUNT_RESULTS);
	pthread_mutex_unlock(&a->c->lock);
	if (!rc)
		api_dispatch(a);
	if (rc == ERR_NOTFOUND)
		return api_error_reply(mc, MHD_HTTP_CONFLICT, err_last());
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return api_json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

/* First call of an artifact upload: check the lease, open a temp file. */
void api_upload_begin(struct api *a, struct conn *cn, const char *lease,
		      const char *name)
{
	char *dir;
	int rc;

	cn->upload = 1;
	cn->fd = -1;
	if (api_bad_name(name)) {
		cn->status = MHD_HTTP_BAD_REQUEST;
		cn->error = strdup(api_bad_name(name));
		return;
	}
	pthread_mutex_lock(&a->c->lock);
	rc = sched_lease(a->c->sched, cn->token, lease, &cn->step);
	pthread_mutex_unlock(&a->c->lock);
	if (rc) {
		cn->status = rc == ERR_NOTFOUND ? MHD_HTTP_CONFLICT
						: api_status_for(rc);
		cn->error = strdup(err_last());
		return;
	}
	snprintf(cn->name, sizeof(cn->name), "%s", name);
	dir = util_fmt("%s/artifacts/%lld", a->c->state_dir, cn->step);
	cn->dest = util_fmt("%s/%s", dir ? dir : "", name);
	cn->tmp = util_fmt("%s/.%s.upload", dir ? dir : "", name);
	if (!dir || !cn->dest || !cn->tmp || util_mkdir_p(dir) ||
	    (cn->fd = open(cn->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644)) < 0 ||
	    !(cn->dg = digest_new())) {
		cn->status = MHD_HTTP_INSUFFICIENT_STORAGE;
		cn->error = util_fmt("cannot store the artifact: %s",
				     strerror(errno));
	}
	free(dir);
}

void api_upload_data(struct api *a, struct conn *cn, const char *data,
		     size_t len)
{
	if (cn->status)
		return;
	if (cn->size + len > a->o.max_upload) {
		cn->status = MHD_HTTP_CONTENT_TOO_LARGE;
		cn->error = util_fmt("artifact larger than %zu bytes",
				     a->o.max_upload);
		return;
	}
	digest_update(cn->dg, data, len);
	cn->size += len;
	while (len > 0) {
		ssize_t w = write(cn->fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			cn->status = MHD_HTTP_INSUFFICIENT_STORAGE;
			cn->error = util_fmt("cannot store the artifact: %s",
					     strerror(errno));
			return;
		}
		data += w;
		len -= (size_t)w;
	}
}

enum MHD_Result api_upload_end(struct api *a, struct MHD_Connection *mc,
			       struct conn *cn)
{
	const char *want = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						       "X-Content-SHA256");
	char got[DIGEST_HEXSZ + 1];
	int rc;

	if (!cn->status && !want) {
		cn->status = MHD_HTTP_BAD_REQUEST;
		cn->error = strdup("X-Content-SHA256 header is required");
	}
	if (cn->status)
		return api_error_reply(mc, cn->status,
				       cn->error ? cn->error : "");
	digest_finish(cn->dg, got);
	cn->dg = NULL;
	if (strcmp(got, want))
		return api_error_reply(mc, MHD_HTTP_BAD_REQUEST,
				       "SHA-256 does not match the content");
	if (fsync(cn->fd) || close(cn->fd)) {
		cn->fd = -1;
		return api_error_reply(mc, MHD_HTTP_INSUFFICIENT_STORAGE,
				       "cannot store the artifact");
	}
	cn->fd = -1;
	if (rename(cn->tmp, cn->dest))
		return api_error_reply(mc, MHD_HTTP_INSUFFICIENT_STORAGE,
				       "cannot store the artifact");
	free(cn->tmp);
	cn->tmp = NULL; /* nothing to clean up now */
	pthread_mutex_lock(&a->c->lock);
	rc = store_artifact_add(a->c->store, cn->step, cn->name,
				(long long)cn->size, got);
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return api_json_reply(mc, MHD_HTTP_CREATED,
			      util_fmt("{\"name\":\"%s\",\"size\":%zu,"
				       "\"sha256\":\"%s\"}",
				       cn->name, cn->size, got));
}
