/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The coordinator's state in SQLite (WAL mode), the only file that
 * includes sqlite3.h: jobs, their steps, workers and their leases, API
 * tokens (hashed), the step-result cache and uploaded artifacts.
 *
 * Every function runs one statement or one transaction; the caller
 * serialises access (bisectd holds one lock around the store and the
 * scheduler).  Times are seconds since the epoch: leases must outlive a
 * restart of the daemon.
 */
#ifndef BISECTD_STORE_H
#define BISECTD_STORE_H

#include <stddef.h>

struct store;

int store_open(struct store **out, const char *path);
void store_close(struct store *s);
/*
 * Checkpoints: SQLite copies the write-ahead log into the database on
 * the commit that fills it, which makes that commit (a worker's poll) 10
 * to 25 ms slower.  The daemon turns that off on its store and copies it
 * from a second connection once a second: the bulk outside its lock,
 * then what came since under it (a few ms), so that the copy is whole
 * and the next write starts the log again.
 */
int store_autocheckpoint_off(struct store *s);
/* SQLite's page cache for this connection (its default is 2 MiB). */
int store_cache_kib(struct store *s, int kib);
int store_checkpoint(struct store *s);

int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback(struct store *s);

double store_time(void);

/* stored as numbers: a new state goes at the end */
enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_DONE,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_FETCHING /* its repository or source is being fetched */
};
const char *job_state_name(int state);
int job_state_parse(const char *name);

struct store_job {
	long long id;
	char *type; /* "bisect" or "test" */
	int state;
	char *spec;    /* the request, JSON, revisions resolved */
	char *result;  /* "found", "ambiguous", "good", ... or NULL */
	char *culprit; /* hex or NULL */
	char *reason;  /* why it failed or stopped, or NULL */
	double created, started, finished;
	char *callback;	  /* webhook URL or NULL */
	char *hook_state; /* "none", "pending", "delivered", "failed" */
	int hook_attempts;
	double hook_next;
	char *hook_error;
	long long candidates; /* when the bisection proper began */
	char *outcome; /* a bisection's confidence and evidence, JSON, or NULL */
	char *owner;   /* the name of the submit token, or NULL (a local run) */
};

void store_job_release(struct store_job *j);

/* Record what a bisection concluded and how sure it is (JSON). */
int store_job_set_outcome(struct store *s, long long id, const char *outcome);

int store_job_insert(struct store *s, long long *id, const char *type,
		     int state, const char *spec, const char *callback,
		     const char *owner);
/* A fetching job's spec, once fetched, and its state queued; ERR_NOTFOUND
 * when it is no longer fetching (cancelled meanwhile). */
int store_job_fetched(struct store *s, long long id, const char *spec);
/* ERR_NOTFOUND for an unknown id. */
int store_job_get(struct store *s, long long id, struct store_job *out);
/*
 * Jobs newest first, at most limit, state < 0 for all; fn returns nonzero
 * to stop.
 */
int store_job_list(struct store *s, int state, long long before, int limit,
		   int (*fn)(const struct store_job *j, void *payload),
		   void *payload);
/* Jobs in state, oldest first; fn returns nonzero to stop. */
int store_job_each(struct store *s, int state,
		   int (*fn)(const struct store_job *j, void *payload),
		   void *payload);
/* How many jobs of owner (a submit token's name) are fetching, queued or
 * running. */
int store_job_count_open(struct store *s, const char *owner, long long *out);
/* The ids of jobs in state, oldest first.  Caller frees *ids. */
int store_job_ids(struct store *s, int state, long long **ids, size_t *n);
int store_job_start(struct store *s, long long id);
/* Record the candidates at the start of the bisection (once). */
int store_job_set_candidates(struct store *s, long long id, long long n);
/*
 * End a job that is queued or running: state, result, culprit, reason.
 * Returns 1 when it ended it, 0 when it had already ended (a job is never
 * finished twice).  A job with a callback gets hook_state "pending".
 */
int store_job_end(struct store *s, long long id, int state, const char *result,
		  const char *culprit, const char *reason);
/* Jobs whose webhook is pending and due; ids oldest first. */
int store_hooks_due(struct store *s, double now, long long **ids, size_t *n);
int store_hook_update(struct store *s, long long id, const char *state,
		      int attempts, double next, const char *error);

enum step_state { STEP_QUEUED, STEP_LEASED, STEP_DONE, STEP_CANCELLED };
const char *step_state_name(int state);

struct store_step {
	long long id, job;
	char hex[41];
	char role[16];
	int state;
	int round;
	long long candidates;
	long long worker;
	char lease[33];
	double lease_until;
	int attempts; /* leases that expired */
	char cache_key[65];
	int cached;
	char verdict[8]; /* "" until done */
	char *result;	 /* JSON from the worker, or NULL */
	double queued, started, finished;
};

void store_steps_release(struct store_step *st, size_t n);

int store_steps_of_job(struct store *s, long long job, struct store_step **out,
		       size_t *n);
int store_step_get(struct store *s, long long id, struct store_step *out);
int store_step_insert(struct store *s, long long *id, long long job,
		      const char *hex, const char *role, int round,
		      long long candidates, const char *cache_key);
/* Record a result: state done. */
int store_step_done(struct store *s, long long id, const char *verdict,
		    const char *result, int cached);
int store_step_cancel(struct store *s, long long id);
/* Cancel every step of a job that has not ended. */
int store_job_cancel_steps(struct store *s, long long job);

/*
 * Queued steps, oldest job first: fn decides whether the worker can take
 * it (returns 1).  The first one taken is leased to worker for lease_s
 * seconds; *out gets it.  ERR_NOTFOUND when there is none.
 */
int store_step_lease(struct store *s, long long worker, double lease_s,
		     int (*fn)(const struct store_step *st, void *payload),
		     void *payload, struct store_step *out);
/* The step that holds this lease, if the lease is still valid. */
int store_lease_find(struct store *s, const char *lease,
		     struct store_step *out);
int store_lease_extend(struct store *s, const char *lease, double lease_s);
/*
 * Put the steps whose lease ran out back in the queue (attempts + 1);
 * those that reached max_attempts end with verdict infra.  The ids of the
 * jobs affected are returned for the scheduler.
 */
int store_expire_leases(struct store *s, double now, int max_attempts,
			long long **jobs, size_t *n);

int store_cache_get(struct store *s, const char *key, char verdict[8],
		    char **result);
int store_cache_put(struct store *s, const char *key, const char *verdict,
		    const char *result);

/* token: the SHA-256 (hex) of the worker token that registers it, ""
 * for bisectctl's own workers */
int store_worker_add(struct store *s, long long *id, const char *name,
		     const char *token, const char *caps);
/* The token a worker was registered with ("" for none: a worker from
 * before they were kept); ERR_NOTFOUND for an unknown worker. */
int store_worker_token(struct store *s, long long id, char token[65]);
/* Update last_seen; ERR_NOTFOUND for an unknown worker. */
int store_worker_seen(struct store *s, long long id);
/* A worker's capabilities (JSON); ERR_NOTFOUND for an unknown id. */
int store_worker_caps(struct store *s, long long id, char **caps);
/* The capabilities of workers seen since since; fn per worker. */
int store_workers_live(struct store *s, double since,
		       int (*fn)(long long id, const char *caps, void *payload),
		       void *payload);

/* role: "submit", "worker" or "read"; hash: of the token.  ERR_INPUT
 * when a token of that name exists (revoke it first). */
int store_token_add(struct store *s, const char *hash, const char *role,
		    const char *name);
/* Each token's hash, role and name, by name; fn returns nonzero to stop. */
int store_token_list(struct store *s,
		     int (*fn)(const char *hash, const char *role,
			       const char *name, void *payload),
		     void *payload);
/* Delete the tokens named name; *count: how many there were. */
int store_token_revoke(struct store *s, const char *name, int *count);
/* The role and name of a token hash, or ERR_NOTFOUND. */
int store_token_role(struct store *s, const char *hash, char role[16],
		     char name[64]);

int store_artifact_add(struct store *s, long long step, const char *name,
		       long long size, const char *sha256);
/* Artifacts of a step; fn per artifact. */
int store_artifacts(struct store *s, long long step,
		    int (*fn)(const char *name, long long size,
			      const char *sha256, void *payload),
		    void *payload);

/*
 * Regressions per subsystem, from the culprits of verified bisections
 * (lib/regstats.h): the jobs not yet counted, oldest first; one job's
 * count (its culprit's subsystems, days from the culprit's author date
 * to the bisection's end, and the subsystems of its range's commits),
 * once (0 when another request counted it first; culprit NULL for a
 * job whose tree has no MAINTAINERS); and the table.
 */
/* What the store holds now, for /metrics. */
struct store_counts {
	long long jobs[6];  /* by enum job_state */
	long long steps[4]; /* by enum step_state */
	long long expired;  /* leases that ran out, all steps together */
	long long hooks_pending;
	long long workers;
};
int store_counts(struct store *s, struct store_counts *out);

struct regstats;
struct store_stats_row {
	const char *subsystem, *hex;
};
int store_stats_pending(struct store *s, long long **ids, size_t *n);
int store_stats_add(struct store *s, long long job, const char *repo,
		    const char *culprit, double days, const char *const *subs,
		    size_t nsubs, const struct store_stats_row *rows,
		    size_t nrows);
int store_stats_load(struct store *s, struct regstats *out);

#endif
