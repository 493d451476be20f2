/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bisectd's HTTP/JSON API under /api/v1, over libmicrohttpd (the only
 * file that includes microhttpd.h).
 */
#ifndef BISECTD_API_H
#define BISECTD_API_H

#include <pthread.h>
#include <stddef.h>

#include "scheduler.h"
#include "store.h"

struct api;

/* What the API and the daemon's own loop share; lock guards all of it. */
struct coord {
	struct store *store;
	struct sched *sched;
	pthread_mutex_t lock;
	pthread_cond_t fetch; /* signalled when a job waits for a fetch */
	const char *state_dir;
	struct api *api; /* once it listens */
	/* a second connection for the job list and a job's view, which
	 * read committed state without waiting for the scheduler's lock */
	struct store *reader;
	pthread_mutex_t read_lock;
	/* a third for the tokens alone: the event thread looks one up for
	 * every request with a token, and must never wait behind a job list
	 * or the scheduler */
	struct store *auth;
	pthread_mutex_t auth_lock;
};

struct api_opts {
	const char *listen;  /* address, e.g. 127.0.0.1 */
	int port;	     /* 0: any free port */
	int public_read;     /* GETs without a token */
	size_t max_body;     /* JSON request bodies */
	size_t max_upload;   /* one artifact */
	double max_poll_s;   /* the longest long poll */
	const char *web_dir; /* the web pages' files */
	/* where reports link to (never a request's Host header), or NULL:
	 * http://listen:port */
	const char *public_url;
	const char *mail_from; /* reports' From, or NULL for bisectd's */
	/* NULL-ended allow-lists: repository URL prefixes and directories,
	 * webhook URL prefixes (lib/policy.h) */
	const char *const *repo_urls, *const *repo_roots, *const *hook_urls;
	unsigned per_ip;   /* connections from one address; 0: no limit */
	size_t max_bodies; /* all JSON bodies being received, together */
	int threads;	   /* event threads (0: 2) */
	int pool;	   /* threads for slow calls (0: 4, at most 16) */
	int max_conns;	   /* open connections (0: 4,000), on each listener */
	/* a request's headers, from the connection's start or the end of
	 * the request before (0: 10 s); the bytes a second that a body
	 * keeps after as long again (0: no minimum): bisectd/conns.h */
	double header_s, body_rate;
	/* a second listener for the workers, with event threads of its
	 * own, so that their polls and results do not queue in front of
	 * people reading the API and the pages: a port (0: none) and its
	 * address */
	int worker_port;
	const char *worker_listen;
	/* a submitter's (a submit token's name's) jobs fetching, queued or
	 * running, and submits in any minute; past either a submit is
	 * answered 429.  0: no limit */
	unsigned max_jobs_per_submitter, max_submits_per_minute;
};

#define API_POOL_MAX 16

struct api;

int api_start(struct api **out, struct coord *c, const struct api_opts *o);
/* The port it listens on (useful with port 0). */
int api_port(struct api *a);
void api_stop(struct api *a);
/*
 * Steps may have been queued: lease them to the long polls that wait, in
 * the order they came, and wake only those that got one.  Takes
 * c->lock: call it without.
 */
void api_dispatch(struct api *a);

/* Hash a bearer token for the tokens table. */
void api_token_hash(char out[65], const char *token);

#endif
