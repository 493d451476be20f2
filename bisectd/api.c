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
 * carried a valid token.  The calls themselves are api_jobs.c's,
 * api_workers.c's and api_web.c's (api_priv.h).
 */
#include "api_priv.h"

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

enum MHD_Result api_reply(struct MHD_Connection *mc, unsigned status,
			  char *body, const char *type)
{
	if (!body)
		body = strdup("{\"error\":\"out of memory\"}");
	return respond(mc, status,
		       MHD_create_response_from_buffer(strlen(body), body,
						       MHD_RESPMEM_MUST_FREE),
		       type);
}

enum MHD_Result api_json_reply(struct MHD_Connection *mc, unsigned status,
			       char *body)
{
	return api_reply(mc, status, body, "application/json");
}

enum MHD_Result api_error_reply(struct MHD_Connection *mc, unsigned status,
				const char *msg)
{
	/* a failure that set no message still gets one that says what */
	if (!msg || !*msg || !strcmp(msg, "no error"))
		msg = status >= 500 ? "internal error in bisectd (its log "
				      "may say more)"
				    : "the request was refused";
	return api_json_reply(mc, status, job_error_json(msg));
}

/* 429 with msg, and when to try again (Retry-After: seconds). */
enum MHD_Result api_too_many(struct MHD_Connection *mc, const char *msg,
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
unsigned api_status_for(int rc)
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
	/* on a connection of its own: this runs in the event thread, which
	 * must not wait while the scheduler holds the daemon's lock (a
	 * large job's planning) or a reader builds a long job list, or no
	 * other request on the thread is answered */
	pthread_mutex_lock(&a->c->auth_lock);
	rc = store_token_role(a->c->auth, hash, role, name);
	pthread_mutex_unlock(&a->c->auth_lock);
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
int api_parse_id(const char *s, long long *out)
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
const char *api_bad_name(const char *n)
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
	return api_json_reply(mc, MHD_HTTP_OK, strdup("{\"ok\":true}"));
}

static enum MHD_Result r_jobs(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const struct match *m)
{
	(void)cn, (void)m;
	return api_list_jobs(a, mc);
}

static enum MHD_Result r_submit(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	(void)m;
	return api_submit(a, mc, cn);
}

static enum MHD_Result r_job(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const struct match *m)
{
	(void)cn;
	return api_get_job(a, mc, m->id[0]);
}

static enum MHD_Result r_cancel(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return api_cancel(a, mc, m->id[0], cn->owner);
}

static enum MHD_Result r_answer(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return api_answer(a, mc, cn, m->id[0]);
}

static enum MHD_Result r_log(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const struct match *m)
{
	(void)cn;
	return api_bisect_log(a, mc, m->id[0]);
}

static enum MHD_Result r_report_txt(struct api *a, struct MHD_Connection *mc,
				    struct conn *cn, const struct match *m)
{
	(void)cn;
	return api_get_report(a, mc, m->id[0], 1);
}

static enum MHD_Result r_report_json(struct api *a, struct MHD_Connection *mc,
				     struct conn *cn, const struct match *m)
{
	(void)cn;
	return api_get_report(a, mc, m->id[0], 0);
}

static enum MHD_Result r_artifact(struct api *a, struct MHD_Connection *mc,
				  struct conn *cn, const struct match *m)
{
	(void)cn;
	return api_get_artifact(a, mc, m->id[0], m->id[1], m->word[0]);
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
		return api_error_reply(mc, api_status_for(rc), err_last());
	if (!svg) {
		doc = regstats_json(&st);
		regstats_release(&st);
		if (!doc)
			return api_error_reply(mc,
					       MHD_HTTP_INTERNAL_SERVER_ERROR,
					       "out of memory");
		return api_json_reply(mc, MHD_HTTP_OK, doc);
	}
	buf_init(&b, 16u << 20);
	rc = regstats_svg(&st, 30, &b);
	regstats_release(&st);
	if (rc) {
		buf_release(&b);
		return api_error_reply(mc, api_status_for(rc), err_last());
	}
	return api_reply(mc, MHD_HTTP_OK, buf_detach(&b), "image/svg+xml");
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
			return api_error_reply(mc, MHD_HTTP_FORBIDDEN,
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
		return api_error_reply(mc, api_status_for(rc), err_last());
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
		return api_error_reply(mc, api_status_for(rc), err_last());
	r = MHD_create_response_from_fd_at_offset64(out.size, out.fd,
						    (uint64_t)out.offset);
	if (!r) {
		close(out.fd);
		return api_error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
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
	return api_register_worker(a, mc, cn);
}

static enum MHD_Result r_poll(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const struct match *m)
{
	return api_poll_work(a, mc, cn, m->id[0]);
}

static enum MHD_Result r_heartbeat(struct api *a, struct MHD_Connection *mc,
				   struct conn *cn, const struct match *m)
{
	return api_heartbeat(a, mc, cn, m->word[0]);
}

static enum MHD_Result r_result(struct api *a, struct MHD_Connection *mc,
				struct conn *cn, const struct match *m)
{
	return api_result(a, mc, cn, m->word[0]);
}

/*
 * The API under /api/v1/: method, path pattern, the token role it needs
 * (NULL: whoever may read) and what to answer a caller without it.  In a
 * pattern "#job" is a number (else 404 "no such job"), "*" any one
 * segment.
 */
#define SLOW_GIT 2

static const struct route {
	const char *method, *pattern, *role, *denied;
	handler fn;
	/* may take long: run in the pool, not the event thread; SLOW_GIT:
	 * git http-backend, in the pool's share for it */
	int slow;
} routes[] = {
	{ "GET", "health", NULL, NULL, r_health, 0 },
	{ "GET", "jobs", NULL, NULL, r_jobs, 1 },
	{ "POST", "jobs", "submit", "submitting needs a submit token", r_submit,
	  1 },
	{ "GET", "jobs/#job", NULL, NULL, r_job, 1 },
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
	  r_git_refs, SLOW_GIT },
	{ "POST", "jobs/#job/git/git-upload-pack", "worker",
	  "a job's repository is for workers: it needs a worker token",
	  r_git_pack, SLOW_GIT },
};

/*
 * Hand a slow call to the pool: the connection is suspended until a pool
 * thread has its answer.
 */
static enum MHD_Result defer(struct api *a, struct MHD_Connection *mc,
			     struct conn *cn, const char *method,
			     const char *url, int slow)
{
	int q;

	cn->method = strdup(method);
	cn->url = strdup(url);
	if (!cn->method || !cn->url)
		return api_error_reply(mc, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory");
	cn->mc = mc;
	pthread_mutex_lock(&a->q_lock);
	if (a->stopping) {
		pthread_mutex_unlock(&a->q_lock);
		return api_error_reply(mc, MHD_HTTP_SERVICE_UNAVAILABLE,
				       "bisectd is stopping");
	}
	cn->pending = PENDING_POOL;
	MHD_suspend_connection(mc);
	cn->next = NULL;
	q = slow == SLOW_GIT ? 2 : cn->role[0] ? 0 : 1;
	if (a->q_tail[q])
		a->q_tail[q]->next = cn;
	else
		a->q_head[q] = cn;
	a->q_tail[q] = cn;
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
			    (ids == 2 || api_parse_id(seg[i], &m->id[ids]))) {
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
		return api_error_reply(mc, MHD_HTTP_UNAUTHORIZED,
				       "unknown or malformed bearer token");
	if (strncmp(url, "/api/v1/", 8) && strcmp(url, "/api/v1")) {
		if (!is_get)
			return api_error_reply(mc, MHD_HTTP_NOT_FOUND,
					       "no such page");
		if (!a->o.public_read && !*who)
			return api_error_reply(mc, MHD_HTTP_UNAUTHORIZED,
					       "reading needs a token");
		return api_web(a, mc, url);
	}
	snprintf(path, sizeof(path), "%s", url + 7);
	n = split(path, seg, 8);
	if (n > 8)
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND,
				       "no such resource");
	if (cn->too_big)
		return api_error_reply(mc, MHD_HTTP_CONTENT_TOO_LARGE,
				       "request body too large");
	if (cn->busy)
		return api_error_reply(
			mc, MHD_HTTP_SERVICE_UNAVAILABLE,
			"too many request bodies in memory at once: "
			"try again");
	if (is_get && !a->o.public_read && !*who)
		return api_error_reply(mc, MHD_HTTP_UNAUTHORIZED,
				       "reading needs a token");
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *r = &routes[i];
		int hit;

		if (strcmp(r->method, is_get ? "GET" : method))
			continue;
		if (!(hit = match_route(r->pattern, seg, n, &m, &what)))
			continue;
		if (r->role && strcmp(who, r->role))
			return api_error_reply(mc, MHD_HTTP_UNAUTHORIZED,
					       r->denied);
		if (hit < 0)
			break;
		if (r->slow && !deferring)
			return defer(a, mc, cn, method, url, r->slow);
		return r->fn(a, mc, cn, &m);
	}
	if (what) {
		char msg[32];

		snprintf(msg, sizeof(msg), "no such %s", what);
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, msg);
	}
	return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such resource");
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
		return api_poll_reply(a, mc, cn->poll_rc, assignment,
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
				api_upload_begin(a, cn, lease, name);
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
			api_upload_data(a, cn, data, *size);
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
		return api_upload_end(a, mc, cn);
	if (cn->refused)
		return api_error_reply(mc, (unsigned)cn->status, cn->error);
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

/*
 * A connection MHD turned away at the connection limit: said at most
 * once a minute, with how many there were since, so that a flood of
 * clients does not become a flood of lines.
 */
static void refused(struct api *a)
{
	long now = (long)time(NULL),
	     last = __atomic_load_n(&a->refused_said, __ATOMIC_RELAXED);
	unsigned long n;

	__atomic_add_fetch(&a->refused, 1, __ATOMIC_RELAXED);
	if (now - last < 60 ||
	    !__atomic_compare_exchange_n(&a->refused_said, &last, now, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	n = __atomic_exchange_n(&a->refused, 0, __ATOMIC_RELAXED);
	log_warnx("the connection limit was reached: %lu connection%s "
		  "turned away%s",
		  n, n == 1 ? "" : "s",
		  last ? " since the last such line" : "");
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
	if (!strncmp(fmt, "Server reached connection limit", 31)) {
		refused(a);
		return;
	}
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (!strncmp(fmt, quiet[i], strlen(quiet[i])))
			return;
	log_vwarnx(fmt, ap);
}

/* How many git calls of the worker token token run now.  q_lock held. */
static unsigned git_running(const struct api *a, const char *token)
{
	unsigned n = 0, i;

	for (i = 0; i < API_POOL_MAX; i++)
		n += !strcmp(a->git_token[i], token);
	return n;
}

/*
 * The next call a pool thread takes, unlinked from its queue *q: a git
 * call while fewer than git_max run, of the token with fewest running
 * and fewer than git_per_token (the oldest of those), so that one worker
 * token cannot hold the git share from others; else token holders' three
 * times of four while both of the others wait.  NULL for none.  q_lock
 * held.
 */
static struct conn *next_call(struct api *a, int *q)
{
	struct conn *cn, *prev = NULL, *best = NULL, *best_prev = NULL;
	unsigned fewest = a->git_per_token;

	/* stopping: the first at once (it is answered 503) */
	for (cn = a->ngit < a->git_max || a->stopping ? a->q_head[2] : NULL; cn;
	     prev = cn, cn = cn->next) {
		unsigned n = a->stopping ? 0 : git_running(a, cn->token);

		if (n < fewest) {
			fewest = n;
			best = cn;
			best_prev = prev;
		}
	}
	if (best) {
		*q = 2;
		if (best_prev)
			best_prev->next = best->next;
		else
			a->q_head[2] = best->next;
		if (a->q_tail[2] == best)
			a->q_tail[2] = best_prev;
		best->next = NULL;
		return best;
	}
	if (!a->q_head[0] && !a->q_head[1])
		return NULL;
	*q = a->q_head[0] && (!a->q_head[1] || ++a->q_turn % 4) ? 0 : 1;
	cn = a->q_head[*q];
	a->q_head[*q] = cn->next;
	if (!a->q_head[*q])
		a->q_tail[*q] = NULL;
	cn->next = NULL;
	return cn;
}

/* A pool thread: the slow calls, each queue in the order they came. */
static void *pool_main(void *arg)
{
	struct api *a = arg;

	pthread_mutex_lock(&a->q_lock);
	for (;;) {
		struct conn *cn;
		int q = -1, slot = -1;

		while (!(cn = next_call(a, &q)) && !a->stopping)
			pthread_cond_wait(&a->q_cond, &a->q_lock);
		if (!cn)
			break; /* stopping, and nothing this thread may take */
		if (q == 2 && a->stopping) {
			/* a fetch may take an hour: not now */
			pthread_mutex_unlock(&a->q_lock);
			deferring = cn;
			api_error_reply(cn->mc, MHD_HTTP_SERVICE_UNAVAILABLE,
					"bisectd is stopping");
			deferring = NULL;
			cn->pending = PENDING_DONE;
			MHD_resume_connection(cn->mc);
			pthread_mutex_lock(&a->q_lock);
			continue;
		}
		if (q == 2) {
			/* its token noted in a free place (ngit < git_max) */
			for (slot = 0; a->git_token[slot][0]; slot++)
				;
			snprintf(a->git_token[slot], sizeof(a->git_token[0]),
				 "%s", cn->token);
			a->ngit++;
		}
		pthread_mutex_unlock(&a->q_lock);
		deferring = cn;
		route(a, cn->mc, cn, cn->method, cn->url);
		deferring = NULL;
		cn->pending =
			PENDING_DONE; /* no answer (out of memory): closed */
		MHD_resume_connection(cn->mc);
		pthread_mutex_lock(&a->q_lock);
		if (slot >= 0) {
			/* a git call waiting for its share may go now */
			a->git_token[slot][0] = '\0';
			a->ngit--;
			pthread_cond_broadcast(&a->q_cond);
		}
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
	api_expire_waits(a, INFINITY);
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
	/* git serves a whole pack for minutes: it never holds more than
	 * half of the pool, whoever asks */
	a->git_max = a->o.pool > 1 ? (unsigned)a->o.pool / 2 : 1;
	a->git_per_token = a->git_max > 1 ? a->git_max / 2 : 1;
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
	    !(rc = pthread_create(&a->timer, NULL, api_timer_main, a)))
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
