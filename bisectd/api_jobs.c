// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jobs' calls of the HTTP API: a job's view, the list, a submission
 * (within the submitter's quotas), a cancel or an answer by the job's
 * submitter, the bisect log, the reports and the artifacts.
 */
#include "api_priv.h"
#include "repo.h"

enum MHD_Result api_get_job(struct api *a, struct MHD_Connection *mc,
			    long long id)
{
	struct store_job j;
	struct store_step *steps = NULL;
	size_t n = 0;
	char *doc = NULL;
	int rc;

	pthread_mutex_lock(&a->c->read_lock);
	rc = store_job_get(a->c->reader, id, &j);
	if (!rc) {
		rc = store_steps_of_job(a->c->reader, id, &steps, &n);
		if (!rc)
			doc = report_job(a->c->reader, &j, steps, n, 1);
		store_steps_release(steps, n);
		store_job_release(&j);
	}
	pthread_mutex_unlock(&a->c->read_lock);
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return api_json_reply(mc, MHD_HTTP_OK, doc);
}

struct listing {
	struct store *store;
	struct buf out;
	int n;
};

static int list_one(const struct store_job *j, void *payload)
{
	struct listing *l = payload;
	char *doc = report_job(l->store, j, NULL, 0, 0);

	if (doc)
		buf_printf(&l->out, "%s%s", l->n++ ? "," : "", doc);
	free(doc);
	return 0;
}

enum MHD_Result api_list_jobs(struct api *a, struct MHD_Connection *mc)
{
	const char *st =
		MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "state");
	const char *lim =
		MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "limit");
	const char *bef = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND,
						      "before");
	struct listing l = { .store = a->c->reader };
	long long limit = 100, before = 0;
	int state = -1, rc;

	if (st && (state = job_state_parse(st)) < 0)
		return api_error_reply(
			mc, MHD_HTTP_BAD_REQUEST,
			"unknown state: fetching, queued, running, "
			"done, failed or cancelled");
	if (lim && (job_query_id("limit", lim, &limit) || limit > 1000))
		return api_error_reply(
			mc, MHD_HTTP_BAD_REQUEST,
			"'limit' must be a whole number from 1 to "
			"1000");
	if (bef && job_query_id("before", bef, &before))
		return api_error_reply(mc, MHD_HTTP_BAD_REQUEST, err_last());
	buf_init(&l.out, 64u << 20);
	buf_puts(&l.out, "{\"jobs\":[");
	pthread_mutex_lock(&a->c->read_lock);
	rc = store_job_list(a->c->reader, state, before, (int)limit, list_one,
			    &l);
	pthread_mutex_unlock(&a->c->read_lock);
	buf_puts(&l.out, "]}");
	if (rc) {
		buf_release(&l.out);
		return api_error_reply(mc, api_status_for(rc), err_last());
	}
	return api_json_reply(mc, MHD_HTTP_OK, buf_detach(&l.out));
}

/*
 * What a submitter may name: a recipe by name, never a path; a
 * repository under the allowed URL prefixes or roots (lib/policy.h), in
 * its normal form; a webhook under the allowed prefixes, in its normal
 * form too.  *out: the request as the scheduler gets it.
 */
static int submit_check(struct api *a, const char *body, size_t len,
			const char *owner, char **out)
{
	struct job_spec spec;
	char *repo = NULL, *hook = NULL;
	int rc;

	*out = NULL;
	if ((rc = job_spec_parse(&spec, body, len)))
		return rc;
	if (spec.source && (spec.repo || spec.commit))
		rc = err_set(ERR_INPUT, "'source' is the base of the build: "
					"no 'repo' or 'commit' with it");
	else if (spec.recipe && !recipe_name_ok(spec.recipe))
		rc = err_set(ERR_INPUT, "field 'recipe' must be a recipe name "
					"(letters, digits, '.', '_', '-'), "
					"not a path");
	else if (spec.repo && (rc = policy_repo(a->o.repo_urls, a->o.repo_roots,
						spec.repo, &repo)))
		;
	else if (spec.callback &&
		 (rc = policy_hook(a->o.hook_urls, spec.callback, &hook)))
		rc = rc == ERR_INPUT ? err_wrap(ERR_INPUT, "field 'callback'")
				     : rc;
	else if (spec.channel)
		rc = repo_channel_free(a->c->state_dir, spec.channel, owner);
	if (!rc && repo) {
		free(spec.repo);
		spec.repo = repo;
		repo = NULL;
	}
	if (!rc && hook) {
		free(spec.callback);
		spec.callback = hook;
		hook = NULL;
	}
	if (!rc && !(*out = job_spec_dump(&spec)))
		rc = err_set(ERR_NOMEM, "out of memory");
	free(repo);
	free(hook);
	job_spec_release(&spec);
	return rc;
}

/*
 * Under c->lock: 0 when owner may submit now; else the seconds it should
 * wait (Retry-After), and err_last() says which limit it met.  A job
 * that ends makes room: when is not known, so a minute is suggested.
 */
static int submit_wait(struct api *a, const char *owner, double now)
{
	long long open = 0;
	int wait;

	if (a->o.max_jobs_per_submitter &&
	    !store_job_count_open(a->c->store, owner, &open) &&
	    open >= a->o.max_jobs_per_submitter) {
		err_set(ERR_INPUT,
			"'%s' has %lld jobs fetching, queued or running: at "
			"most %u (setting max-jobs-per-submitter)",
			owner, open, a->o.max_jobs_per_submitter);
		return 60;
	}
	if (a->submits && (wait = quota_wait(a->submits, owner, now))) {
		err_set(ERR_INPUT,
			"'%s' submitted %u jobs in the last minute: at most "
			"%u (setting max-submits-per-minute)",
			owner, a->o.max_submits_per_minute,
			a->o.max_submits_per_minute);
		return wait;
	}
	return 0;
}

/*
 * A job whose repository is a URL (or a Debian source version) is stored
 * as fetching and answered at once; the fetch queue (fetchq.c) fetches
 * it outside the lock and then plans or fails it.  Any other job is
 * planned here.  A submitter past its quota is answered 429.
 */
enum MHD_Result api_submit(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn)
{
	long long id = 0;
	char *checked = NULL, *doc, why[512];
	int rc, fetching, wait;
	double now = util_now();

	if ((rc = submit_check(a, buf_str(&cn->body), cn->body.len, cn->owner,
			       &checked)))
		return api_error_reply(mc, api_status_for(rc), err_last());
	fetching = sched_needs_fetch(checked, strlen(checked));
	pthread_mutex_lock(&a->c->lock);
	wait = submit_wait(a, cn->owner, now);
	if (wait)
		snprintf(why, sizeof(why), "%s", err_last());
	else if (fetching)
		rc = sched_submit_fetching(a->c->sched, checked,
					   strlen(checked), cn->owner, &id);
	else
		rc = sched_submit(a->c->sched, checked, strlen(checked), NULL,
				  0, cn->owner, &id);
	if (!wait && !rc && a->submits)
		quota_count(a->submits, cn->owner, now);
	if (fetching && !wait)
		pthread_cond_broadcast(&a->c->fetch);
	pthread_mutex_unlock(&a->c->lock);
	free(checked);
	if (wait)
		return api_too_many(mc, why, wait);
	if (!rc && !fetching)
		api_dispatch(a);
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	doc = util_fmt("{\"id\":%lld,\"state\":\"%s\"}", id,
		       fetching ? "fetching" : "queued");
	return api_json_reply(mc, MHD_HTTP_CREATED, doc);
}

/*
 * What only a job's submitter may do to it: a submit token of the same
 * name as the one that submitted it (a job from before owners were
 * kept, by any submit token).  act runs under the coordinator's lock;
 * ERR_INPUT from it is a conflict with the job's state (409); wake: it
 * may queue steps for waiting workers.  The answer is the job as it now
 * is.
 */
static enum MHD_Result
by_submitter(struct api *a, struct MHD_Connection *mc, long long id,
	     const char *owner, const char *verb,
	     int (*act)(struct sched *s, long long id, const void *arg),
	     const void *arg, int wake)
{
	struct store_job j;
	int rc, theirs = 0;

	pthread_mutex_lock(&a->c->lock);
	rc = store_job_get(a->c->store, id, &j);
	if (!rc) {
		theirs = j.owner && strcmp(j.owner, owner);
		store_job_release(&j);
	}
	if (!rc && !theirs)
		rc = act(a->c->sched, id, arg);
	pthread_mutex_unlock(&a->c->lock);
	if (theirs) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "this job was submitted with another token: only "
			 "its submitter may %s",
			 verb);
		return api_error_reply(mc, MHD_HTTP_FORBIDDEN, msg);
	}
	if (rc == ERR_INPUT)
		return api_error_reply(mc, MHD_HTTP_CONFLICT, err_last());
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	if (wake) /* the steps it queued go to waiting workers */
		api_dispatch(a);
	return api_get_job(a, mc, id);
}

static int act_cancel(struct sched *s, long long id, const void *arg)
{
	(void)arg;
	return sched_cancel(s, id);
}

enum MHD_Result api_cancel(struct api *a, struct MHD_Connection *mc,
			   long long id, const char *owner)
{
	return by_submitter(a, mc, id, owner, "cancel it", act_cancel, NULL, 0);
}

/* {"release", "verdict"} of a manual releases job's answer */
struct answer {
	char release[25], verdict[5];
};

static int act_answer(struct sched *s, long long id, const void *arg)
{
	const struct answer *an = arg;

	return sched_answer(s, id, an->release, an->verdict);
}

/* The submitter's answer on the release a manual releases job waits for. */
enum MHD_Result api_answer(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn, long long id)
{
	struct answer an;
	int rc = job_answer_parse(buf_str(&cn->body), cn->body.len, an.release,
				  an.verdict);

	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	return by_submitter(a, mc, id, cn->owner, "answer", act_answer, &an, 1);
}

enum MHD_Result api_bisect_log(struct api *a, struct MHD_Connection *mc,
			       long long id)
{
	struct buf out;
	int rc;

	buf_init(&out, 16u << 20);
	pthread_mutex_lock(&a->c->lock);
	rc = sched_bisect_log(a->c->sched, id, &out);
	pthread_mutex_unlock(&a->c->lock);
	if (rc) {
		buf_release(&out);
		return api_error_reply(mc, api_status_for(rc), err_last());
	}
	return api_reply(mc, MHD_HTTP_OK, buf_detach(&out),
			 "text/plain; charset=utf-8");
}

enum MHD_Result api_get_report(struct api *a, struct MHD_Connection *mc,
			       long long id, int mail)
{
	/* not the request's Host header: a client would choose the links
	 * that the report sends to others */
	char *base = a->o.public_url ? strdup(a->o.public_url)
				     : util_fmt(strchr(a->o.listen, ':')
							? "http://[%s]:%d"
							: "http://%s:%d",
						a->o.listen, api_port(a));
	struct buf out;
	char *json = NULL;
	int rc;

	buf_init(&out, 64u << 20);
	pthread_mutex_lock(&a->c->lock);
	rc = jobview_report(a->c->store, a->c->sched, id, base, a->o.mail_from,
			    mail ? &out : NULL, mail ? NULL : &json);
	pthread_mutex_unlock(&a->c->lock);
	free(base);
	if (rc) {
		buf_release(&out);
		return api_error_reply(mc,
				       rc == ERR_INPUT ? MHD_HTTP_CONFLICT
						       : api_status_for(rc),
				       err_last());
	}
	if (!mail)
		return api_json_reply(mc, MHD_HTTP_OK, json);
	return api_reply(mc, MHD_HTTP_OK, buf_detach(&out),
			 "text/plain; charset=utf-8");
}

/*
 * An artifact's type: plain text (logs, a config) is shown as text;
 * anything else, a page, an image, XML or a package, is given as bytes
 * to save (Content-Disposition: attachment), so that nothing a build
 * wrote is ever rendered as a page of bisectd's.
 */
static const char *artifact_type(const char *name, int *attachment)
{
	static const char *const ends[] = { ".log", ".txt", ".release",
					    ".patch", ".diff" };
	static const char *const names[] = { "config", "SHA256SUMS" };
	size_t n = strlen(name), i;

	*attachment = 0;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (n > strlen(ends[i]) &&
		    !strcmp(name + n - strlen(ends[i]), ends[i]))
			return "text/plain; charset=utf-8";
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return "text/plain; charset=utf-8";
	*attachment = 1;
	return "application/octet-stream";
}

enum MHD_Result api_get_artifact(struct api *a, struct MHD_Connection *mc,
				 long long job, long long step,
				 const char *name)
{
	struct store_step st;
	struct MHD_Response *r;
	struct stat sb;
	enum MHD_Result ret;
	char *path;
	int rc, fd, attachment;

	if (api_bad_name(name))
		return api_error_reply(mc, MHD_HTTP_BAD_REQUEST,
				       api_bad_name(name));
	pthread_mutex_lock(&a->c->lock);
	rc = store_step_get(a->c->store, step, &st);
	pthread_mutex_unlock(&a->c->lock);
	if (rc || st.job != job) {
		if (!rc)
			free(st.result);
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such step");
	}
	free(st.result);
	path = util_fmt("%s/artifacts/%lld/%s", a->c->state_dir, step, name);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND,
				       "no such artifact");
	}
	r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
	if (!r) {
		close(fd);
		return api_error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory");
	}
	MHD_add_response_header(r, "Content-Type",
				artifact_type(name, &attachment));
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (attachment) {
		/* the name is of [A-Za-z0-9._~+-]: nothing to quote */
		char *disp = util_fmt("attachment; filename=\"%s\"", name);

		if (disp)
			MHD_add_response_header(r, "Content-Disposition", disp);
		free(disp);
	}
	ret = MHD_queue_response(mc, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}
