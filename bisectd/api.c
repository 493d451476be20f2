// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP API.
 *
 * Design.  libmicrohttpd runs a few threads, each with its own epoll set
 * of connections, and none of them ever waits: a worker's long poll that
 * finds no step is suspended (MHD_suspend_connection) on a list of
 * waiters, and whoever may have queued steps (a submission, a result,
 * the daemon's tick, a finished fetch) calls api_dispatch(), which
 * leases steps to the waiters in the order they came and resumes only
 * those that got one; a timer thread answers the ones whose wait ended
 * with 204.  Calls that may take long (a submission or a result, which
 * replan a job; reports, logs, stats) are handed, suspended, to a small
 * pool of threads whose answer is queued when the connection resumes.
 * Every request is routed by method and path segments; bodies are collected up to a
 * limit (413 beyond it) except artifact uploads, which stream into a
 * temporary file in the state directory while their SHA-256 is computed,
 * and are renamed into place only when the size and the checksum the
 * worker announced both hold.  Every error is a JSON object with one
 * "error" line; nothing a client sends can stop the daemon.  Each
 * listener's connections are followed by conns.c from their start,
 * which closes those whose headers or body come too slowly and makes
 * room when all are taken, never at the cost of one whose request
 * carried a valid token.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api.h"
#include "buf.h"
#include "conns.h"
#include "digest.h"
#include "error.h"
#include "gitserve.h"
#include "job.h"
#include "log.h"
#include "jobview.h"
#include "policy.h"
#include "quota.h"
#include "recipe.h"
#include "report.h"
#include "metrics.h"
#include "stats.h"
#include "util.h"
#include "artifacts.h"

struct conn;

struct api {
	struct MHD_Daemon *d;
	struct MHD_Daemon *dw;	/* the workers' listener, or NULL */
	struct conns *cs, *csw; /* the connections each holds */
	int listening;		/* both listeners are up: MHD's log is shown */
	struct coord *c;
	struct api_opts o;
	size_t body_bytes; /* held by all requests' bodies (atomic) */
	struct metrics *m;
	struct quota *submits; /* per submitter; c->lock guards it */
	/* suspended long polls, oldest first; c->lock guards them */
	struct conn *wait_head, *wait_tail;
	size_t nwaiting;
	int closing; /* no more waits: the daemon stops */
	/* calls handed to the pool: q_lock guards the queue and stopping */
	pthread_mutex_t q_lock;
	pthread_cond_t q_cond;
	struct conn *q_head, *q_tail;
	int stopping;
	pthread_t pool[API_POOL_MAX], timer;
	int npool, have_timer;
};

/* What a suspended connection is waiting for. */
enum pending {
	PENDING_NONE,
	PENDING_POLL,	/* a long poll on the waiters' list */
	PENDING_POOL,	/* a slow call queued for or running in the pool */
	PENDING_POLLED, /* resumed: the poll's answer is set */
	PENDING_DONE	/* resumed: the pool call's answer is ready */
};

/* One request in progress. */
struct conn {
	struct buf body;
	int too_big;
	int busy;	/* the total body budget was spent: 503 */
	size_t counted; /* of a->body_bytes */
	/* artifact upload */
	int upload;
	int fd;
	char *tmp, *dest;
	struct digest *dg;
	size_t size;
	long long step;
	char name[130];
	int status; /* an error decided before the body arrived */
	char *error;
	int refused; /* no token or an unknown one: the body is dropped */
	/* the role of the request's token: "" for none, NULL for a bad
	 * one (else it points to role); owner: the token's name; token:
	 * its SHA-256 (hex), "" for none: a worker's key */
	const char *who;
	char role[16], owner[64], token[65];
	/* suspended: a long poll or a call in the pool */
	struct MHD_Connection *mc;
	enum pending pending;
	struct conn *next, *prev; /* on the waiters' list or the queue */
	long long worker;	  /* a long poll's */
	char *caps;		  /* its worker's capabilities */
	double start, deadline;
	int poll_rc; /* 0: assignment holds the step */
	char *assignment, *poll_error;
	char *method, *url;	   /* a pool call's */
	struct MHD_Response *resp; /* its answer */
	unsigned resp_status;
};

/* The pool call this thread runs: its reply is kept, not queued. */
static __thread struct conn *deferring;

void api_token_hash(char out[65], const char *token)
{
	digest_sha256_hex(out, token, strlen(token));
}

/* r with its type, queued (or kept for the pool call); r is taken. */
static enum MHD_Result respond(struct MHD_Connection *mc, unsigned status,
			       struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (deferring) {
		if (deferring->resp)
			MHD_destroy_response(deferring->resp);
		deferring->resp = r;
		deferring->resp_status = status;
		return MHD_YES;
	}
	ret = MHD_queue_response(mc, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply(struct MHD_Connection *mc, unsigned status,
			     char *body, const char *type)
{
	if (!body)
		body = strdup("{\"error\":\"out of memory\"}");
	return respond(mc, status,
		       MHD_create_response_from_buffer(strlen(body), body,
						       MHD_RESPMEM_MUST_FREE),
		       type);
}

static enum MHD_Result json_reply(struct MHD_Connection *mc, unsigned status,
				  char *body)
{
	return reply(mc, status, body, "application/json");
}

static enum MHD_Result error_reply(struct MHD_Connection *mc, unsigned status,
				   const char *msg)
{
	/* a failure that set no message still gets one that says what */
	if (!msg || !*msg || !strcmp(msg, "no error"))
		msg = status >= 500 ? "internal error in bisectd (its log "
				      "may say more)"
				    : "the request was refused";
	return json_reply(mc, status, job_error_json(msg));
}

/* 429 with msg, and when to try again (Retry-After: seconds). */
static enum MHD_Result too_many(struct MHD_Connection *mc, const char *msg,
				int retry_after)
{
	char *body = job_error_json(msg), secs[16];
	struct MHD_Response *r;

	if (!body)
		body = strdup("{\"error\":\"out of memory\"}");
	r = MHD_create_response_from_buffer(strlen(body), body,
					    MHD_RESPMEM_MUST_FREE);
	snprintf(secs, sizeof(secs), "%d", retry_after);
	MHD_add_response_header(r, "Retry-After", secs);
	return respond(mc, MHD_HTTP_TOO_MANY_REQUESTS, r, "application/json");
}

/* The HTTP status for an error code from the store or the scheduler. */
static unsigned status_for(int rc)
{
	switch (rc) {
	case ERR_INPUT:
		return MHD_HTTP_UNPROCESSABLE_CONTENT;
	case ERR_NOTFOUND:
		return MHD_HTTP_NOT_FOUND;
	case ERR_DENIED:
		return MHD_HTTP_FORBIDDEN;
	default:
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
}

/*
 * The role of the request's bearer token: "" for none, NULL for a bad
 * one.  name gets the token's name and hash its SHA-256 in hex (both ""
 * for none).
 */
static const char *token_role(struct api *a, struct MHD_Connection *mc,
			      char role[16], char name[64], char hash[65])
{
	const char *h = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						    "Authorization");
	int rc;

	role[0] = name[0] = hash[0] = '\0';
	if (!h)
		return role;
	if (strncmp(h, "Bearer ", 7) || strlen(h + 7) == 0 ||
	    strlen(h + 7) > 256)
		return NULL;
	api_token_hash(hash, h + 7);
	pthread_mutex_lock(&a->c->lock);
	rc = store_token_role(a->c->store, hash, role, name);
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		hash[0] = '\0';
	return rc ? NULL : role;
}

/* Split the path after /api/v1/ into at most 8 segments. */
static size_t split(char *path, char **seg, size_t max)
{
	size_t n = 0;
	char *save = NULL, *p;

	for (p = strtok_r(path, "/", &save); p && n < max;
	     p = strtok_r(NULL, "/", &save))
		seg[n++] = p;
	return p ? max + 1 : n;
}

/* An id in a path: a positive whole number (a 404 when not). */
static int parse_id(const char *s, long long *out)
{
	return job_query_id("id", s, out);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* p is "%XX" for a control character (NUL among them): its byte, or -1 */
static int control_escape(const char *p)
{
	int hi, lo, c;

	if (p[0] != '%' || (hi = hex_digit(p[1])) < 0 ||
	    (lo = hex_digit(p[2])) < 0)
		return -1;
	c = hi * 16 + lo;
	return c < 0x20 || c == 0x7f ? c : -1;
}

/*
 * The HTTP server's decoding of a path's and a query's %XX escapes, but
 * for those of control characters, which are left as they came: the
 * handlers get C strings, and "%00" decoded would cut a name short
 * (x%00.html would be x), where left alone its '%' is refused.
 */
static size_t unescape(void *cls, struct MHD_Connection *mc, char *s)
{
	char *r = s, *w = s;

	(void)cls, (void)mc;
	while (*r) {
		if (r[0] == '%' && hex_digit(r[1]) >= 0 &&
		    hex_digit(r[2]) >= 0 && control_escape(r) < 0) {
			*w++ = (char)(hex_digit(r[1]) * 16 + hex_digit(r[2]));
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* Why an artifact's name is refused (a one-line message), or NULL. */
static const char *bad_name(const char *n)
{
	size_t len = strlen(n), i;

	for (i = 0; i < len; i++)
		if ((unsigned char)n[i] < 0x20 || n[i] == 0x7f ||
		    control_escape(n + i) >= 0)
			return "artifact names have no control characters "
			       "(such as %00)";
	if (len > 0 && len <= 128 && n[0] != '.' &&
	    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-~+") == len)
		return NULL;
	return "artifact names are [A-Za-z0-9._~+-], not starting with a dot";
}

/* --- handlers -------------------------------------------------------------- */

static enum MHD_Result get_job(struct api *a, struct MHD_Connection *mc,
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
		return error_reply(mc, status_for(rc), err_last());
	return json_reply(mc, MHD_HTTP_OK, doc);
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

static enum MHD_Result list_jobs(struct api *a, struct MHD_Connection *mc)
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
		return error_reply(mc, MHD_HTTP_BAD_REQUEST,
				   "unknown state: fetching, queued, running, "
				   "done, failed or cancelled");
	if (lim && (job_query_id("limit", lim, &limit) || limit > 1000))
		return error_reply(mc, MHD_HTTP_BAD_REQUEST,
				   "'limit' must be a whole number from 1 to "
				   "1000");
	if (bef && job_query_id("before", bef, &before))
		return error_reply(mc, MHD_HTTP_BAD_REQUEST, err_last());
	buf_init(&l.out, 64u << 20);
	buf_puts(&l.out, "{\"jobs\":[");
	pthread_mutex_lock(&a->c->read_lock);
	rc = store_job_list(a->c->reader, state, before, (int)limit, list_one,
			    &l);
	pthread_mutex_unlock(&a->c->read_lock);
	buf_puts(&l.out, "]}");
	if (rc) {
		buf_release(&l.out);
		return error_reply(mc, status_for(rc), err_last());
	}
	return json_reply(mc, MHD_HTTP_OK, buf_detach(&l.out));
}

/*
 * What a submitter may name: a recipe by name, never a path; a
 * repository under the allowed URL prefixes or roots (lib/policy.h), in
 * its normal form; a webhook under the allowed prefixes, in its normal
 * form too.  *out: the request as the scheduler gets it.
 */
static int submit_check(struct api *a, const char *body, size_t len, char **out)
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
static enum MHD_Result submit(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn)
{
	long long id = 0;
	char *checked = NULL, *doc, why[512];
	int rc, fetching, wait;
	double now = util_now();

	if ((rc = submit_check(a, buf_str(&cn->body), cn->body.len, &checked)))
		return error_reply(mc, status_for(rc), err_last());
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
		return too_many(mc, why, wait);
	if (!rc && !fetching)
		api_dispatch(a);
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	doc = util_fmt("{\"id\":%lld,\"state\":\"%s\"}", id,
		       fetching ? "fetching" : "queued");
	return json_reply(mc, MHD_HTTP_CREATED, doc);
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
		return error_reply(mc, MHD_HTTP_FORBIDDEN, msg);
	}
	if (rc == ERR_INPUT)
		return error_reply(mc, MHD_HTTP_CONFLICT, err_last());
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	if (wake) /* the steps it queued go to waiting workers */
		api_dispatch(a);
	return get_job(a, mc, id);
}

static int act_cancel(struct sched *s, long long id, const void *arg)
{
	(void)arg;
	return sched_cancel(s, id);
}

static enum MHD_Result cancel(struct api *a, struct MHD_Connection *mc,
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
static enum MHD_Result answer(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, long long id)
{
	struct answer an;
	int rc = job_answer_parse(buf_str(&cn->body), cn->body.len, an.release,
				  an.verdict);

	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	return by_submitter(a, mc, id, cn->owner, "answer", act_answer, &an, 1);
}

static enum MHD_Result bisect_log(struct api *a, struct MHD_Connection *mc,
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
		return error_reply(mc, status_for(rc), err_last());
	}
	return reply(mc, MHD_HTTP_OK, buf_detach(&out),
		     "text/plain; charset=utf-8");
}

static enum MHD_Result get_report(struct api *a, struct MHD_Connection *mc,
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
		return error_reply(mc,
				   rc == ERR_INPUT ? MHD_HTTP_CONFLICT
						   : status_for(rc),
				   err_last());
	}
	if (!mail)
		return json_reply(mc, MHD_HTTP_OK, json);
	return reply(mc, MHD_HTTP_OK, buf_detach(&out),
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

static enum MHD_Result get_artifact(struct api *a, struct MHD_Connection *mc,
				    long long job, long long step,
				    const char *name)
{
	struct store_step st;
	struct MHD_Response *r;
	struct stat sb;
	enum MHD_Result ret;
	char *path;
	int rc, fd, attachment;

	if (bad_name(name))
		return error_reply(mc, MHD_HTTP_BAD_REQUEST, bad_name(name));
	pthread_mutex_lock(&a->c->lock);
	rc = store_step_get(a->c->store, step, &st);
	pthread_mutex_unlock(&a->c->lock);
	if (rc || st.job != job) {
		if (!rc)
			free(st.result);
		return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such step");
	}
	free(st.result);
	path = util_fmt("%s/artifacts/%lld/%s", a->c->state_dir, step, name);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such artifact");
	}
	r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
	if (!r) {
		close(fd);
		return error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
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

static enum MHD_Result register_worker(struct api *a, struct MHD_Connection *mc,
				       struct conn *cn)
{
	long long id = 0;
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = sched_register(a->c->sched, cn->token, buf_str(&cn->body),
			    cn->body.len, &id);
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	return json_reply(mc, MHD_HTTP_CREATED, util_fmt("{\"id\":%lld}", id));
}

/* The answer to a poll: its step, 204 when there was none, or an error. */
static enum MHD_Result poll_reply(struct api *a, struct MHD_Connection *mc,
				  int rc, char *assignment, const char *error,
				  double start)
{
	metrics_count(a->m, COUNT_POLLS);
	if (!rc) {
		metrics_count(a->m, COUNT_ASSIGNMENTS);
		metrics_observe(a->m, HIST_POLL_ASSIGN, util_now() - start);
		return json_reply(mc, MHD_HTTP_OK, assignment);
	}
	free(assignment);
	if (rc == ERR_NOTFOUND && error && strstr(error, "unknown worker"))
		return error_reply(mc, MHD_HTTP_NOT_FOUND, error);
	if (rc == ERR_NOTFOUND)
		return reply(mc, MHD_HTTP_NO_CONTENT, strdup(""),
			     "application/json");
	return error_reply(mc, status_for(rc), error);
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
static enum MHD_Result poll_work(struct api *a, struct MHD_Connection *mc,
				 struct conn *cn, long long worker)
{
	const char *w =
		MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "wait");
	char *assignment = NULL;
	double wait = 0, start = util_now(), t;
	int rc;

	/* a number of seconds, finite: "nan" or "inf" would never end */
	if (w && job_query_number("wait", w, 0, a->o.max_poll_s, &wait))
		return error_reply(mc, MHD_HTTP_BAD_REQUEST, err_last());
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
	return poll_reply(a, mc, rc, assignment, err_last(), start);
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
static void expire_waits(struct api *a, double now)
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

static void *timer_main(void *arg)
{
	struct api *a = arg;

	while (!__atomic_load_n(&a->stopping, __ATOMIC_SEQ_CST)) {
		struct timespec ts = { 0, 50000000 };

		nanosleep(&ts, NULL);
		expire_waits(a, util_now());
		conns_tick(a->cs, util_now());
		conns_tick(a->csw, util_now());
	}
	return NULL;
}

static enum MHD_Result heartbeat(struct api *a, struct MHD_Connection *mc,
				 struct conn *cn, const char *lease)
{
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = sched_heartbeat(a->c->sched, cn->token, lease);
	pthread_mutex_unlock(&a->c->lock);
	if (rc == ERR_NOTFOUND)
		return error_reply(mc, MHD_HTTP_GONE, err_last());
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	return json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

static enum MHD_Result result(struct api *a, struct MHD_Connection *mc,
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
		return error_reply(mc, MHD_HTTP_CONFLICT, err_last());
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	return json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

/* First call of an artifact upload: check the lease, open a temp file. */
static void upload_begin(struct api *a, struct conn *cn, const char *lease,
			 const char *name)
{
	char *dir;
	int rc;

	cn->upload = 1;
	cn->fd = -1;
	if (bad_name(name)) {
		cn->status = MHD_HTTP_BAD_REQUEST;
		cn->error = strdup(bad_name(name));
		return;
	}
	pthread_mutex_lock(&a->c->lock);
	rc = sched_lease(a->c->sched, cn->token, lease, &cn->step);
	pthread_mutex_unlock(&a->c->lock);
	if (rc) {
		cn->status =
			rc == ERR_NOTFOUND ? MHD_HTTP_CONFLICT : status_for(rc);
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

static void upload_data(struct api *a, struct conn *cn, const char *data,
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

static enum MHD_Result upload_end(struct api *a, struct MHD_Connection *mc,
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
		return error_reply(mc, cn->status, cn->error ? cn->error : "");
	digest_finish(cn->dg, got);
	cn->dg = NULL;
	if (strcmp(got, want))
		return error_reply(mc, MHD_HTTP_BAD_REQUEST,
				   "SHA-256 does not match the content");
	if (fsync(cn->fd) || close(cn->fd)) {
		cn->fd = -1;
		return error_reply(mc, MHD_HTTP_INSUFFICIENT_STORAGE,
				   "cannot store the artifact");
	}
	cn->fd = -1;
	if (rename(cn->tmp, cn->dest))
		return error_reply(mc, MHD_HTTP_INSUFFICIENT_STORAGE,
				   "cannot store the artifact");
	free(cn->tmp);
	cn->tmp = NULL; /* nothing to clean up now */
	pthread_mutex_lock(&a->c->lock);
	rc = store_artifact_add(a->c->store, cn->step, cn->name,
				(long long)cn->size, got);
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	return json_reply(mc, MHD_HTTP_CREATED,
			  util_fmt("{\"name\":\"%s\",\"size\":%zu,"
				   "\"sha256\":\"%s\"}",
				   cn->name, cn->size, got));
}

/* --- web pages --------------------------------------------------------------- */

/* A file of the web directory: only these names, nothing else. */
static enum MHD_Result web_file(struct api *a, struct MHD_Connection *mc,
				const char *name)
{
	static const struct {
		const char *name, *type;
	} files[] = {
		{ "jobs.html", "text/html; charset=utf-8" },
		{ "job.html", "text/html; charset=utf-8" },
		{ "stats.html", "text/html; charset=utf-8" },
		{ "common.js", "text/javascript; charset=utf-8" },
		{ "style.css", "text/css; charset=utf-8" },
	};
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct stat sb;
	size_t i;
	char *path;
	int fd;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(files[i].name, name))
			break;
	if (i == sizeof(files) / sizeof(files[0]))
		return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such page");
	path = util_fmt("%s/%s", a->o.web_dir, name);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return error_reply(mc, MHD_HTTP_NOT_FOUND,
				   "web pages are not installed");
	}
	r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
	MHD_add_response_header(r, "Content-Type", files[i].type);
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(mc, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

struct pkg_list {
	struct package_result *r;
};

static int list_packages(const char *name, long long size, const char *sha,
			 void *payload)
{
	struct package_result *r = payload;
	size_t l = strlen(name);
	char **f;

	(void)size;
	(void)sha;
	if (l < 5 ||
	    (strcmp(name + l - 4, ".deb") && strcmp(name + l - 4, ".rpm")))
		return 0;
	f = realloc(r->files, (r->nfiles + 1) * sizeof(*f));
	if (!f)
		return 1;
	r->files = f;
	if ((f[r->nfiles] = strdup(name)))
		r->nfiles++;
	return 0;
}

/*
 * A build job's download page: its packages (the artifacts its worker
 * uploaded), install and uninstall commands, Secure Boot.
 */
static enum MHD_Result download_page(struct api *a, struct MHD_Connection *mc,
				     long long id)
{
	struct package_result r = { 0 };
	struct store_step *steps = NULL, *st = NULL;
	struct store_job j;
	struct job_spec spec = { 0 };
	struct buf page, rel;
	size_t n = 0, i;
	char what[512], prefix[128], *path = NULL, *title = NULL;
	const char *mark;
	int rc;

	buf_init(&page, 1 << 20);
	buf_init(&rel, 4096);
	pthread_mutex_lock(&a->c->lock);
	rc = store_job_get(a->c->store, id, &j);
	if (!rc) {
		rc = strcmp(j.type, "build") ? ERR_NOTFOUND : 0;
		if (!rc)
			rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
		if (!rc)
			rc = store_steps_of_job(a->c->store, id, &steps, &n);
		for (i = 0; !rc && i < n; i++)
			if (steps[i].state == STEP_DONE &&
			    !strcmp(steps[i].role, "build"))
				st = &steps[i];
		if (st)
			store_artifacts(a->c->store, st->id, list_packages, &r);
		store_job_release(&j);
	}
	pthread_mutex_unlock(&a->c->lock);
	if (!rc && (!st || !r.nfiles))
		rc = err_set(ERR_NOTFOUND, "job %lld has no packages", id);
	if (!rc) {
		path = util_fmt("%s/artifacts/%lld/kernel.release",
				a->c->state_dir, st->id);
		if (path && !buf_read_file(&rel, path))
			r.release = strndup(buf_str(&rel),
					    strcspn(buf_str(&rel), "\n"));
		mark = r.release ? strstr(r.release, "-bisectd.") : NULL;
		if (mark) {
			r.rpm_version =
				util_fmt("%.*s~%s", (int)(mark - r.release),
					 r.release, mark + 1);
			r.deb_version = util_fmt("%s-1", r.rpm_version);
		}
		title = st->result ? job_json_string(st->result, "title")
				   : NULL;
		if (spec.source)
			snprintf(what, sizeof(what),
				 "Built from Debian's linux-source-6.1 %s "
				 "with %zu patch(es) applied, configured by "
				 "the %s recipe.",
				 spec.source, spec.npatches, spec.recipe);
		else
			snprintf(what, sizeof(what),
				 "Built from %.12s of %s with %zu patch(es) "
				 "applied, configured by the %s recipe.",
				 spec.commit, spec.repo, spec.npatches,
				 spec.recipe);
		snprintf(prefix, sizeof(prefix),
			 "/api/v1/jobs/%lld/steps/%lld/artifacts/", id, st->id);
		{
			struct download_info d = {
				.packages = &r,
				.what = what,
				.recipe = spec.recipe,
				.smoke =
					!strcmp(st->verdict, "good")
						? "good"
						: (title ? title : st->verdict),
				.link_prefix = prefix,
				/* the step's title tells how it went */
				.install = spec.install_test ? title : NULL,
			};

			artifacts_page(&page, &d);
		}
	}
	free(path);
	free(title);
	buf_release(&rel);
	store_steps_release(steps, n);
	job_spec_release(&spec);
	package_result_release(&r);
	if (rc) {
		buf_release(&page);
		return error_reply(mc, status_for(rc), err_last());
	}
	return reply(mc, MHD_HTTP_OK, buf_detach(&page),
		     "text/html; charset=utf-8");
}

/* The connections both listeners hold, and those closed (conns.h). */
static void conns_metrics(struct api *a, struct buf *b)
{
	static const char *const why[CONNS_NWHY] = {
		[CONNS_HEADERS] = "headers",
		[CONNS_BODY] = "body",
		[CONNS_EVICTED] = "evicted",
		[CONNS_FULL] = "full",
	};
	struct conns_stats st = { 0 };
	int i;

	conns_stats(a->cs, &st);
	conns_stats(a->csw, &st);
	buf_printf(b,
		   "# HELP bisectd_connections Connections held: without "
		   "a valid token, new (waiting for a first request), idle "
		   "(waiting for another) or busy (with a request under "
		   "way); or with one.\n"
		   "# TYPE bisectd_connections gauge\n"
		   "bisectd_connections{state=\"new\"} %u\n"
		   "bisectd_connections{state=\"idle\"} %u\n"
		   "bisectd_connections{state=\"busy\"} %u\n"
		   "bisectd_connections{state=\"trusted\"} %u\n"
		   "# HELP bisectd_connections_closed_total Connections "
		   "closed by bisectd: headers or body too slow, evicted "
		   "for a new one, or new with no room.\n"
		   "# TYPE bisectd_connections_closed_total counter\n",
		   st.fresh, st.idle, st.busy, st.trusted);
	for (i = 0; i < CONNS_NWHY; i++)
		buf_printf(b,
			   "bisectd_connections_closed_total{reason=\"%s\"} "
			   "%llu\n",
			   why[i], st.closed[i]);
}

/* The daemon's counters and histograms, in Prometheus' text format. */
static enum MHD_Result get_metrics(struct api *a, struct MHD_Connection *mc)
{
	struct store_counts c;
	struct buf b;
	size_t waiting, queued = 0;
	struct conn *cn;
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = store_counts(a->c->store, &c);
	waiting = a->nwaiting;
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	pthread_mutex_lock(&a->q_lock);
	for (cn = a->q_head; cn; cn = cn->next)
		queued++;
	pthread_mutex_unlock(&a->q_lock);
	buf_init(&b, 1u << 20);
	rc = metrics_write(a->m, &c, &b);
	buf_printf(&b,
		   "# HELP bisectd_polls_waiting Long polls waiting for a "
		   "step.\n"
		   "# TYPE bisectd_polls_waiting gauge\n"
		   "bisectd_polls_waiting %zu\n"
		   "# HELP bisectd_pool_queue Slow calls waiting for a pool "
		   "thread.\n"
		   "# TYPE bisectd_pool_queue gauge\n"
		   "bisectd_pool_queue %zu\n",
		   waiting, queued);
	conns_metrics(a, &b);
	if (rc) {
		buf_release(&b);
		return error_reply(mc, status_for(rc), err_last());
	}
	return reply(mc, MHD_HTTP_OK, buf_detach(&b),
		     "text/plain; version=0.0.4; charset=utf-8");
}

static enum MHD_Result web(struct api *a, struct MHD_Connection *mc,
			   const char *url)
{
	long long id;
	char tail[16];

	if (!strcmp(url, "/") || !strcmp(url, "/jobs") ||
	    !strcmp(url, "/jobs/"))
		return web_file(a, mc, "jobs.html");
	if (!strncmp(url, "/jobs/", 6) && !parse_id(url + 6, &id))
		return web_file(a, mc, "job.html");
	if (!strncmp(url, "/jobs/", 6) &&
	    sscanf(url + 6, "%lld/%15s", &id, tail) == 2 && id > 0 &&
	    !strcmp(tail, "download"))
		return download_page(a, mc, id);
	if (!strcmp(url, "/stats"))
		return web_file(a, mc, "stats.html");
	if (!strcmp(url, "/metrics"))
		return get_metrics(a, mc);
	if (!strncmp(url, "/static/", 8))
		return web_file(a, mc, url + 8);
	return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such page");
}

/* --- routing --------------------------------------------------------------- */

/* What a route's pattern took from the path: its numbers and words. */
struct match {
	long long id[2];
	const char *word[2];
};

typedef enum MHD_Result (*handler)(struct api *a, struct MHD_Connection *mc,
				   struct conn *cn, const struct match *m);

static enum MHD_Result r_health(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	(void)a, (void)cn, (void)m;
	return json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

static enum MHD_Result r_jobs(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const struct match *m)
{
	(void)cn, (void)m;
	return list_jobs(a, mc);
}

static enum MHD_Result r_submit(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	(void)m;
	return submit(a, mc, cn);
}

static enum MHD_Result r_job(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const struct match *m)
{
	(void)cn;
	return get_job(a, mc, m->id[0]);
}

static enum MHD_Result r_cancel(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return cancel(a, mc, m->id[0], cn->owner);
}

static enum MHD_Result r_answer(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return answer(a, mc, cn, m->id[0]);
}

static enum MHD_Result r_log(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const struct match *m)
{
	(void)cn;
	return bisect_log(a, mc, m->id[0]);
}

static enum MHD_Result r_report_txt(struct api *a, struct MHD_Connection *mc,
				    struct conn *cn, const struct match *m)
{
	(void)cn;
	return get_report(a, mc, m->id[0], 1);
}

static enum MHD_Result r_report_json(struct api *a, struct MHD_Connection *mc,
				     struct conn *cn, const struct match *m)
{
	(void)cn;
	return get_report(a, mc, m->id[0], 0);
}

static enum MHD_Result r_artifact(struct api *a, struct MHD_Connection *mc,
				  struct conn *cn, const struct match *m)
{
	(void)cn;
	return get_artifact(a, mc, m->id[0], m->id[1], m->word[0]);
}

/* Regressions per subsystem from the verified bisections: JSON or a chart. */
static enum MHD_Result get_stats(struct api *a, struct MHD_Connection *mc,
				 int svg)
{
	struct regstats st;
	struct buf b;
	char *doc = NULL;
	int rc = stats_table(a->c->store, a->c->sched, &a->c->lock, &st);

	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	if (!svg) {
		doc = regstats_json(&st);
		regstats_release(&st);
		if (!doc)
			return error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
					   "out of memory");
		return json_reply(mc, MHD_HTTP_OK, doc);
	}
	buf_init(&b, 16u << 20);
	rc = regstats_svg(&st, 30, &b);
	regstats_release(&st);
	if (rc) {
		buf_release(&b);
		return error_reply(mc, status_for(rc), err_last());
	}
	return reply(mc, MHD_HTTP_OK, buf_detach(&b), "image/svg+xml");
}

static enum MHD_Result r_stats(struct api *a, struct MHD_Connection *mc,
			       struct conn *cn, const struct match *m)
{
	(void)cn, (void)m;
	return get_stats(a, mc, 0);
}

/*
 * A job's repository for workers, git's smart HTTP (upload-pack only):
 * GET .../git/info/refs?service=git-upload-pack, POST
 * .../git/git-upload-pack.  The job's repository must be a path here; a
 * URL's workers fetch themselves, Debian's source they import.
 */
static enum MHD_Result serve_git(struct api *a, struct MHD_Connection *mc,
				 struct conn *cn, long long id,
				 const char *method, const char *service)
{
	struct gitserve_request rq = { .method = method,
				       .service = service,
				       .query = "",
				       .tmpdir = a->c->state_dir,
				       .timeout_s = 3600 };
	struct gitserve_reply out;
	struct job_spec spec;
	struct store_job j;
	struct MHD_Response *r;
	int rc;

	if (!strcmp(service, "info/refs")) {
		const char *s = MHD_lookup_connection_value(
			mc, MHD_GET_ARGUMENT_KIND, "service");

		if (!s || strcmp(s, "git-upload-pack"))
			return error_reply(mc, MHD_HTTP_FORBIDDEN,
					   "workers may only fetch "
					   "(service=git-upload-pack)");
		rq.query = "service=git-upload-pack";
	}
	memset(&spec, 0, sizeof(spec));
	pthread_mutex_lock(&a->c->read_lock);
	rc = store_job_get(a->c->reader, id, &j);
	pthread_mutex_unlock(&a->c->read_lock);
	if (!rc) {
		rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
		store_job_release(&j);
	}
	if (!rc && (spec.source || !spec.repo))
		rc = err_set(ERR_NOTFOUND,
			     "job %lld's tree is Debian's linux-source: "
			     "workers import it themselves",
			     id);
	else if (!rc && strstr(spec.repo, "://"))
		rc = err_set(ERR_NOTFOUND,
			     "job %lld's repository is a URL: workers fetch "
			     "it themselves",
			     id);
	if (rc) {
		job_spec_release(&spec);
		return error_reply(mc, status_for(rc), err_last());
	}
	rq.repo = spec.repo;
	rq.content_type = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						      "Content-Type");
	rq.content_encoding = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
							  "Content-Encoding");
	rq.protocol = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						  "Git-Protocol");
	rq.body = cn->body.ptr;
	rq.len = cn->body.len;
	rc = gitserve(&out, &rq);
	job_spec_release(&spec);
	if (rc)
		return error_reply(mc, status_for(rc), err_last());
	r = MHD_create_response_from_fd_at_offset64(out.size, out.fd,
						    (uint64_t)out.offset);
	if (!r) {
		close(out.fd);
		return error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "out of memory");
	}
	return respond(mc, out.status, r, out.type);
}

static enum MHD_Result r_git_refs(struct api *a, struct MHD_Connection *mc,
				  struct conn *cn, const struct match *m)
{
	return serve_git(a, mc, cn, m->id[0], "GET", "info/refs");
}

static enum MHD_Result r_git_pack(struct api *a, struct MHD_Connection *mc,
				  struct conn *cn, const struct match *m)
{
	return serve_git(a, mc, cn, m->id[0], "POST", "git-upload-pack");
}

static enum MHD_Result r_stats_svg(struct api *a, struct MHD_Connection *mc,
				   struct conn *cn, const struct match *m)
{
	(void)cn, (void)m;
	return get_stats(a, mc, 1);
}

static enum MHD_Result r_register(struct api *a, struct MHD_Connection *mc,
				  struct conn *cn, const struct match *m)
{
	(void)m;
	return register_worker(a, mc, cn);
}

static enum MHD_Result r_poll(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const struct match *m)
{
	return poll_work(a, mc, cn, m->id[0]);
}

static enum MHD_Result r_heartbeat(struct api *a, struct MHD_Connection *mc,
				   struct conn *cn, const struct match *m)
{
	return heartbeat(a, mc, cn, m->word[0]);
}

static enum MHD_Result r_result(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return result(a, mc, cn, m->word[0]);
}

/*
 * The API under /api/v1/: method, path pattern, the token role it needs
 * (NULL: whoever may read) and what to answer a caller without it.  In a
 * pattern "#job" is a number (else 404 "no such job"), "*" any one
 * segment.
 */
static const struct route {
	const char *method, *pattern, *role, *denied;
	handler fn;
	int slow; /* may take long: run in the pool, not the event thread */
} routes[] = {
	{ "GET", "health", NULL, NULL, r_health, 0 },
	{ "GET", "jobs", NULL, NULL, r_jobs, 0 },
	{ "POST", "jobs", "submit", "submitting needs a submit token", r_submit,
	  1 },
	{ "GET", "jobs/#job", NULL, NULL, r_job, 0 },
	{ "POST", "jobs/#job/cancel", "submit",
	  "cancelling needs a submit token", r_cancel, 1 },
	{ "POST", "jobs/#job/answer", "submit",
	  "answering needs a submit token", r_answer, 1 },
	{ "GET", "jobs/#job/bisect.log", NULL, NULL, r_log, 1 },
	{ "GET", "jobs/#job/report.txt", NULL, NULL, r_report_txt, 1 },
	{ "GET", "jobs/#job/report.json", NULL, NULL, r_report_json, 1 },
	{ "GET", "jobs/#job/steps/#step/artifacts/*", NULL, NULL, r_artifact,
	  0 },
	{ "GET", "stats", NULL, NULL, r_stats, 1 },
	{ "GET", "stats.svg", NULL, NULL, r_stats_svg, 1 },
	{ "POST", "workers", "worker", "worker calls need a worker token",
	  r_register, 0 },
	{ "POST", "workers/#worker/poll", "worker",
	  "worker calls need a worker token", r_poll, 0 },
	{ "POST", "leases/*/heartbeat", "worker",
	  "worker calls need a worker token", r_heartbeat, 0 },
	{ "POST", "leases/*/result", "worker",
	  "worker calls need a worker token", r_result, 1 },
	{ "GET", "jobs/#job/git/info/refs", "worker",
	  "a job's repository is for workers: it needs a worker token",
	  r_git_refs, 1 },
	{ "POST", "jobs/#job/git/git-upload-pack", "worker",
	  "a job's repository is for workers: it needs a worker token",
	  r_git_pack, 1 },
};

/*
 * Hand a slow call to the pool: the connection is suspended until a pool
 * thread has its answer.
 */
static enum MHD_Result defer(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const char *method,
			     const char *url)
{
	cn->method = strdup(method);
	cn->url = strdup(url);
	if (!cn->method || !cn->url)
		return error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "out of memory");
	cn->mc = mc;
	pthread_mutex_lock(&a->q_lock);
	if (a->stopping) {
		pthread_mutex_unlock(&a->q_lock);
		return error_reply(mc, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "bisectd is stopping");
	}
	cn->pending = PENDING_POOL;
	MHD_suspend_connection(mc);
	cn->next = NULL;
	if (a->q_tail)
		a->q_tail->next = cn;
	else
		a->q_head = cn;
	a->q_tail = cn;
	pthread_cond_signal(&a->q_cond);
	pthread_mutex_unlock(&a->q_lock);
	return MHD_YES;
}

/*
 * Whether the n segments match pattern: 1 yes (m filled), 0 no; -1 when
 * they match but for a "#name" that is not a number, with *what naming
 * it ("job").
 */
static int match_route(const char *pattern, char **seg, size_t n,
		       struct match *m, const char **what)
{
	char pat[128], *p[9];
	size_t k, i, ids = 0, words = 0;
	int bad = 0;

	snprintf(pat, sizeof(pat), "%s", pattern);
	k = split(pat, p, 8);
	if (k != n)
		return 0;
	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		if (p[i][0] == '#') {
			if (!bad &&
			    (ids == 2 || parse_id(seg[i], &m->id[ids]))) {
				static char name[16];

				snprintf(name, sizeof(name), "%s", p[i] + 1);
				*what = name;
				bad = 1;
			}
			ids++;
		} else if (!strcmp(p[i], "*")) {
			if (words < 2)
				m->word[words++] = seg[i];
		} else if (strcmp(p[i], seg[i])) {
			return 0;
		}
	}
	return bad ? -1 : 1;
}

static enum MHD_Result route(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const char *method,
			     const char *url)
{
	char path[1024], *seg[9];
	const char *who = cn->who, *what = NULL;
	int is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	struct match m;
	size_t n, i;

	if (!who)
		return error_reply(mc, MHD_HTTP_UNAUTHORIZED,
				   "unknown or malformed bearer token");
	if (strncmp(url, "/api/v1/", 8) && strcmp(url, "/api/v1")) {
		if (!is_get)
			return error_reply(mc, MHD_HTTP_NOT_FOUND,
					   "no such page");
		if (!a->o.public_read && !*who)
			return error_reply(mc, MHD_HTTP_UNAUTHORIZED,
					   "reading needs a token");
		return web(a, mc, url);
	}
	snprintf(path, sizeof(path), "%s", url + 7);
	n = split(path, seg, 8);
	if (n > 8)
		return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such resource");
	if (cn->too_big)
		return error_reply(mc, MHD_HTTP_CONTENT_TOO_LARGE,
				   "request body too large");
	if (cn->busy)
		return error_reply(mc, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "too many request bodies in memory at once: "
				   "try again");
	if (is_get && !a->o.public_read && !*who)
		return error_reply(mc, MHD_HTTP_UNAUTHORIZED,
				   "reading needs a token");
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *r = &routes[i];
		int hit;

		if (strcmp(r->method, is_get ? "GET" : method))
			continue;
		if (!(hit = match_route(r->pattern, seg, n, &m, &what)))
			continue;
		if (r->role && strcmp(who, r->role))
			return error_reply(mc, MHD_HTTP_UNAUTHORIZED,
					   r->denied);
		if (hit < 0)
			break;
		if (r->slow && !deferring)
			return defer(a, mc, cn, method, url);
		return r->fn(a, mc, cn, &m);
	}
	if (what) {
		char msg[32];

		snprintf(msg, sizeof(msg), "no such %s", what);
		return error_reply(mc, MHD_HTTP_NOT_FOUND, msg);
	}
	return error_reply(mc, MHD_HTTP_NOT_FOUND, "no such resource");
}

/* An artifact upload: PUT /api/v1/leases/L/artifacts/NAME. */
static int upload_target(const char *method, const char *url, char *lease,
			 char *name)
{
	const char *p = url + strlen("/api/v1/leases/");
	const char *slash;

	if (strcmp(method, "PUT") || strncmp(url, "/api/v1/leases/", 15))
		return 0;
	slash = strchr(p, '/');
	if (!slash || slash - p >= 64 || strncmp(slash, "/artifacts/", 11) ||
	    strlen(slash + 11) >= 129)
		return 0;
	memcpy(lease, p, (size_t)(slash - p));
	lease[slash - p] = '\0';
	strcpy(name, slash + 11);
	return 1;
}

/* The connection's entry in its listener's conns (NULL: none). */
static struct conns_entry *entry_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* A connection opens or closes: its listener's conns (cls) keep count. */
static void on_connection(void *cls, struct MHD_Connection *mc,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *fd, *peer;
	struct conns_entry *e = NULL;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		conns_closed(*socket_context);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	peer = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (fd)
		conns_opened(cls, &e, fd->connect_fd,
			     peer ? peer->client_addr : NULL, util_now());
	*socket_context = e;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	struct api *a = cls;
	struct conn *cn = *con_cls;
	char lease[64], name[130];

	(void)version;
	if (cn && cn->pending == PENDING_POLLED) {
		char *assignment = cn->assignment;

		cn->pending = PENDING_NONE;
		cn->assignment = NULL;
		return poll_reply(a, mc, cn->poll_rc, assignment,
				  cn->poll_error, cn->start);
	}
	if (cn && cn->pending == PENDING_DONE) {
		enum MHD_Result ret = MHD_NO;

		cn->pending = PENDING_NONE;
		if (cn->resp) {
			ret = MHD_queue_response(mc, cn->resp_status, cn->resp);
			MHD_destroy_response(cn->resp);
			cn->resp = NULL;
		}
		return ret;
	}
	if (!cn) {
		cn = calloc(1, sizeof(*cn));
		if (!cn)
			return MHD_NO;
		cn->fd = -1;
		buf_init(&cn->body, a->o.max_body);
		*con_cls = cn;
		cn->who = token_role(a, mc, cn->role, cn->owner, cn->token);
		/* a valid token: never closed to make room for another */
		conns_headers(entry_of(mc), cn->who && *cn->who, util_now());
		if (upload_target(method, url, lease, name)) {
			if (!cn->who || strcmp(cn->who, "worker")) {
				cn->upload = 1;
				cn->status = MHD_HTTP_UNAUTHORIZED;
				cn->error = strdup("uploads need a worker "
						   "token");
			} else {
				upload_begin(a, cn, lease, name);
			}
		} else if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
			/* every call with a body needs a token: without
			 * one, the body is not kept (it costs no memory) */
			if (!cn->who || !*cn->who) {
				cn->refused = 1;
				cn->status = MHD_HTTP_UNAUTHORIZED;
				cn->error = strdup(
					cn->who ? "this call needs a token"
						: "unknown token");
			}
		}
		return MHD_YES;
	}
	if (*size) {
		conns_body(entry_of(mc), *size);
		if (cn->refused)
			; /* dropped */
		else if (cn->upload)
			upload_data(a, cn, data, *size);
		else if (cn->too_big || cn->busy)
			; /* dropped, answered when it ends */
		else if (__atomic_add_fetch(&a->body_bytes, *size,
					    __ATOMIC_SEQ_CST) >
			 a->o.max_bodies) {
			/* give back all it held, so that the others finish */
			__atomic_sub_fetch(&a->body_bytes, *size + cn->counted,
					   __ATOMIC_SEQ_CST);
			cn->counted = 0;
			buf_release(&cn->body);
			cn->busy = 1;
		} else {
			cn->counted += *size;
			if (buf_put(&cn->body, data, *size))
				cn->too_big = 1;
		}
		*size = 0;
		return MHD_YES;
	}
	conns_received(entry_of(mc));
	if (cn->upload)
		return upload_end(a, mc, cn);
	if (cn->refused)
		return error_reply(mc, (unsigned)cn->status, cn->error);
	return route(a, mc, cn, method, url);
}

static void on_done(void *cls, struct MHD_Connection *mc, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct conn *cn = *con_cls;
	struct api *a = cls;

	(void)toe;
	conns_answered(entry_of(mc), util_now());
	if (!cn)
		return;
	__atomic_sub_fetch(&a->body_bytes, cn->counted, __ATOMIC_SEQ_CST);
	if (cn->fd >= 0)
		close(cn->fd);
	if (cn->tmp)
		unlink(cn->tmp); /* a partial or refused upload leaves nothing */
	if (cn->dg) {
		char sink[DIGEST_HEXSZ + 1];

		digest_finish(cn->dg, sink);
	}
	free(cn->tmp);
	free(cn->dest);
	free(cn->error);
	free(cn->caps);
	free(cn->assignment);
	free(cn->poll_error);
	free(cn->method);
	free(cn->url);
	if (cn->resp)
		MHD_destroy_response(cn->resp);
	buf_release(&cn->body);
	free(cn);
	*con_cls = NULL;
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	/* a client that went away mid-request, or that conns.c closed: no
	 * failure of the daemon's, and under a flood of slow clients the
	 * log would be nothing else */
	static const char *const quiet[] = {
		"Connection was closed by remote side",
		"Socket has been disconnected",
		"Connection socket is closed when reading",
		"Failed to send",
	};
	struct api *a = cls;
	size_t i;

	/* a listener that cannot start is said once, by api_start's error */
	if (!a->listening)
		return;
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (!strncmp(fmt, quiet[i], strlen(quiet[i])))
			return;
	log_vwarnx(fmt, ap);
}

/* A pool thread: the slow calls, in the order they came. */
static void *pool_main(void *arg)
{
	struct api *a = arg;

	pthread_mutex_lock(&a->q_lock);
	for (;;) {
		struct conn *cn;

		while (!a->q_head && !a->stopping)
			pthread_cond_wait(&a->q_cond, &a->q_lock);
		if (!(cn = a->q_head))
			break; /* stopping, and nothing left */
		a->q_head = cn->next;
		if (!a->q_head)
			a->q_tail = NULL;
		cn->next = NULL;
		pthread_mutex_unlock(&a->q_lock);
		deferring = cn;
		route(a, cn->mc, cn, cn->method, cn->url);
		deferring = NULL;
		cn->pending =
			PENDING_DONE; /* no answer (out of memory): closed */
		MHD_resume_connection(cn->mc);
		pthread_mutex_lock(&a->q_lock);
	}
	pthread_mutex_unlock(&a->q_lock);
	return NULL;
}

/* Stop the pool and the timer; every suspended connection is resumed. */
static void stop_threads(struct api *a)
{
	int i;

	pthread_mutex_lock(&a->q_lock);
	a->stopping = 1;
	pthread_cond_broadcast(&a->q_cond);
	pthread_mutex_unlock(&a->q_lock);
	for (i = 0; i < a->npool; i++)
		pthread_join(a->pool[i], NULL);
	a->npool = 0;
	if (a->have_timer)
		pthread_join(a->timer, NULL);
	a->have_timer = 0;
	pthread_mutex_lock(&a->c->lock);
	a->closing = 1;
	pthread_mutex_unlock(&a->c->lock);
	expire_waits(a, INFINITY);
}

static void api_free(struct api *a)
{
	conns_free(a->cs);
	conns_free(a->csw);
	metrics_free(a->m);
	quota_free(a->submits);
	pthread_mutex_destroy(&a->q_lock);
	pthread_cond_destroy(&a->q_cond);
	free(a);
}

/* Raise the open files' limit to its hard limit: a connection each. */
static void more_files(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * A listener on listen:port with its own event threads, serving the
 * whole API, into *out, and the connections it holds, into *cs.
 */
static int listener(struct api *a, const char *listen, int port,
		    struct MHD_Daemon **out, struct conns **cs)
{
	struct conns_opts co = { .max = (unsigned)a->o.max_conns,
				 .header_s = a->o.header_s,
				 .body_rate = a->o.body_rate };
	/* conns holds max_conns and makes room for more; the HTTP server's
	 * own limit, which it divides among its event threads, must never
	 * turn one away first: in each thread, room for all that conns
	 * holds (they may all be one thread's) and as many again that
	 * conns has shut down and the thread has yet to close */
	unsigned limit = (2 * co.max + 64) * (unsigned)a->o.threads;
	struct sockaddr_in sa;
	struct sockaddr_in6 sa6;
	const struct sockaddr *addr = (const struct sockaddr *)&sa;
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct MHD_Daemon *d;

	memset(&sa, 0, sizeof(sa));
	memset(&sa6, 0, sizeof(sa6));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa6.sin6_family = AF_INET6;
	sa6.sin6_port = htons((uint16_t)port);
	if (inet_pton(AF_INET6, listen, &sa6.sin6_addr) == 1) {
		addr = (const struct sockaddr *)&sa6;
		/* "::" takes IPv4 too, as 0.0.0.0 would */
		flags |= IN6_IS_ADDR_UNSPECIFIED(&sa6.sin6_addr)
				 ? MHD_USE_DUAL_STACK
				 : MHD_USE_IPv6;
	} else if (inet_pton(AF_INET, listen, &sa.sin_addr) != 1) {
		return err_set(ERR_INPUT,
			       "listen address '%s' is not an IPv4 or IPv6 "
			       "address",
			       listen);
	}
	if (conns_new(cs, &co))
		return ERR_NOMEM;
	*out = d = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, a, MHD_OPTION_EXTERNAL_LOGGER,
		on_log, a, MHD_OPTION_SOCK_ADDR, addr,
		MHD_OPTION_NOTIFY_COMPLETED, on_done, a,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, *cs,
		MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
		MHD_OPTION_CONNECTION_LIMIT, limit,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)a->o.per_ip,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)a->o.threads,
		/* headers only: bodies are ours */
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)4096,
		MHD_OPTION_END);
	return d ? 0
		 : err_sys(ERR_INFRA, "cannot listen on %s:%d", listen, port);
}

int api_start(struct api **out, struct coord *c, const struct api_opts *o)
{
	struct api *a = calloc(1, sizeof(*a));
	int i, rc = 0;

	*out = NULL;
	if (!a)
		return err_set(ERR_NOMEM, "out of memory");
	a->c = c;
	a->o = *o;
	if (a->o.threads <= 0)
		a->o.threads = 2;
	if (a->o.pool <= 0)
		a->o.pool = 4;
	if (a->o.pool > API_POOL_MAX)
		a->o.pool = API_POOL_MAX;
	if (a->o.max_conns <= 0)
		a->o.max_conns = 4000;
	if (!(a->o.header_s > 0))
		a->o.header_s = 10;
	pthread_mutex_init(&a->q_lock, NULL);
	pthread_cond_init(&a->q_cond, NULL);
	if (metrics_new(&a->m)) {
		api_free(a);
		return ERR_NOMEM;
	}
	if (o->max_submits_per_minute &&
	    (rc = quota_new(&a->submits, o->max_submits_per_minute))) {
		api_free(a);
		return rc;
	}
	more_files();
	rc = listener(a, o->listen, o->port, &a->d, &a->cs);
	if (!rc && o->worker_port > 0)
		rc = listener(a, o->worker_listen, o->worker_port, &a->dw,
			      &a->csw);
	if (rc) {
		if (a->d)
			MHD_stop_daemon(a->d);
		api_free(a);
		return rc;
	}
	a->listening = 1;
	for (i = 0; i < a->o.pool; i++) {
		if ((rc = pthread_create(&a->pool[i], NULL, pool_main, a)))
			break;
		a->npool++;
	}
	if (a->npool == a->o.pool &&
	    !(rc = pthread_create(&a->timer, NULL, timer_main, a)))
		a->have_timer = 1;
	if (!a->have_timer) {
		stop_threads(a);
		if (a->dw)
			MHD_stop_daemon(a->dw);
		MHD_stop_daemon(a->d);
		api_free(a);
		errno = rc;
		return err_sys(ERR_INFRA, "cannot start the API's threads");
	}
	*out = a;
	return 0;
}

int api_port(struct api *a)
{
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(a->d, MHD_DAEMON_INFO_BIND_PORT);

	return i ? (int)i->port : -1;
}

void api_stop(struct api *a)
{
	if (!a)
		return;
	stop_threads(a);
	if (a->dw)
		MHD_stop_daemon(a->dw);
	MHD_stop_daemon(a->d);
	api_free(a);
}
