/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The HTTP API's own structures and the functions its files share:
 * api.c (connections, routing, threads), api_jobs.c (the jobs' calls),
 * api_workers.c (the workers' calls, long polls, uploads) and api_web.c
 * (pages, downloads, metrics).  Only those files include it.
 */
#ifndef BISECTD_API_PRIV_H
#define BISECTD_API_PRIV_H

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
	/* connections MHD turned away at its limit, and when that was
	 * last said in the log (atomic) */
	unsigned long refused;
	long refused_said;
	struct metrics *m;
	struct quota *submits; /* per submitter; c->lock guards it */
	/* suspended long polls, oldest first; c->lock guards them */
	struct conn *wait_head, *wait_tail;
	size_t nwaiting;
	int closing; /* no more waits: the daemon stops */
	/* calls handed to the pool: q_lock guards the queues and stopping.
	 * Queue 0 holds the calls of token holders, queue 1 those without
	 * a token: while both wait, three picks of four are queue 0's, so
	 * that readers without a token do not hold up a submit behind their
	 * own calls and a token's holder does not starve them.  Queue 2
	 * holds git http-backend's calls (workers' fetches), of which
	 * git_max run at once, ngit now, git_per_token of one worker token
	 * (git_token: the tokens of those running, "" for a free place): a
	 * fetch of a whole tree may take minutes, and the rest of the pool
	 * stays for the others */
	pthread_mutex_t q_lock;
	pthread_cond_t q_cond;
	struct conn *q_head[3], *q_tail[3];
	unsigned ngit, git_max, git_per_token;
	char git_token[API_POOL_MAX][65];
	unsigned q_turn; /* every QUEUE_SHARE-th pick is queue 1's */
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

enum MHD_Result api_answer(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn, long long id);
const char *api_bad_name(const char *n);
enum MHD_Result api_bisect_log(struct api *a, struct MHD_Connection *mc,
			       long long id);
enum MHD_Result api_cancel(struct api *a, struct MHD_Connection *mc,
			   long long id, const char *owner);
enum MHD_Result api_error_reply(struct MHD_Connection *mc, unsigned status,
				const char *msg);
void api_expire_waits(struct api *a, double now);
enum MHD_Result api_get_artifact(struct api *a, struct MHD_Connection *mc,
				 long long job, long long step,
				 const char *name);
enum MHD_Result api_get_job(struct api *a, struct MHD_Connection *mc,
			    long long id);
enum MHD_Result api_get_report(struct api *a, struct MHD_Connection *mc,
			       long long id, int mail);
enum MHD_Result api_heartbeat(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, const char *lease);
enum MHD_Result api_json_reply(struct MHD_Connection *mc, unsigned status,
			       char *body);
enum MHD_Result api_list_jobs(struct api *a, struct MHD_Connection *mc);
int api_parse_id(const char *s, long long *out);
enum MHD_Result api_poll_reply(struct api *a, struct MHD_Connection *mc, int rc,
			       char *assignment, const char *error,
			       double start);
enum MHD_Result api_poll_work(struct api *a, struct MHD_Connection *mc,
			      struct conn *cn, long long worker);
enum MHD_Result api_register_worker(struct api *a, struct MHD_Connection *mc,
				    struct conn *cn);
enum MHD_Result api_reply(struct MHD_Connection *mc, unsigned status,
			  char *body, const char *type);
enum MHD_Result api_result(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn, const char *lease);
unsigned api_status_for(int rc);
enum MHD_Result api_submit(struct api *a, struct MHD_Connection *mc,
			   struct conn *cn);
void *api_timer_main(void *arg);
enum MHD_Result api_too_many(struct MHD_Connection *mc, const char *msg,
			     int retry_after);
void api_upload_begin(struct api *a, struct conn *cn, const char *lease,
		      const char *name);
void api_upload_data(struct api *a, struct conn *cn, const char *data,
		     size_t len);
enum MHD_Result api_upload_end(struct api *a, struct MHD_Connection *mc,
			       struct conn *cn);
enum MHD_Result api_web(struct api *a, struct MHD_Connection *mc,
			const char *url);

#endif
