/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler: the one place that decides what to test next, for the
 * daemon and for bisectctl's embedded mode alike.
 *
 * It keeps no state of its own that matters: every decision is derived
 * from the job's request and the step results in the store, so a
 * coordinator killed at any moment and started again makes the same
 * decisions from where it stopped.  Callers serialise calls (one lock).
 */
#ifndef BISECTD_SCHEDULER_H
#define BISECTD_SCHEDULER_H

#include "buf.h"
#include "store.h"

struct sched_opts {
	const char *state_dir;	 /* repository mirrors live here */
	const char *recipe_path; /* colon-separated recipe directories */
	double lease_s;		 /* a lease lasts this long unrenewed */
	int max_attempts;	 /* leases lost before a step is infra */
	int workers;		 /* parallel steps per job; 0: live workers */
	double live_window;	 /* a worker seen this recently is live */
	/* a URL's missing mirror is cloned when a job needs it (bisectctl's
	 * own scheduler); bisectd's come from its fetch queue alone */
	int clone_missing;
};

struct sched;

int sched_open(struct sched **out, struct store *st,
	       const struct sched_opts *o);
void sched_close(struct sched *s);

/* A verdict known before the job starts (from a bisect log to resume). */
struct sched_verdict {
	char hex[41];
	const char *verdict; /* "good", "bad" or "skip" */
};

/* What one fetch of a submitted repository (or source) may take. */
struct sched_fetch_limits {
	double timeout_s;     /* all of it (and a source's import) */
	double stall_s;	      /* receiving nothing for this long; 0: no limit */
	unsigned long max_mb; /* the largest file it may write */
};

/*
 * A new job from a request body, with verdicts already known (may be
 * none); ERR_INPUT names what is wrong.
 */
/*
 * What a submission needs before the lock is taken: a build of a Debian
 * source version is imported (a minute the first time) and *out is the
 * request with its repository and commit, or NULL when it needs
 * nothing.  A repository given as a URL is cloned or fetched into its
 * mirror in the state directory (by git, killed past lim's time or
 * when it receives nothing for lim->stall_s, and when it writes a file
 * larger than lim->max_mb).  Checks the request as sched_submit() would.
 */
int sched_prepare(const char *state_dir, const struct sched_fetch_limits *lim,
		  const char *body, size_t len, char **out);
int sched_submit(struct sched *s, const char *body, size_t len,
		 const struct sched_verdict *known, size_t nknown,
		 const char *owner, long long *id);

/*
 * Whether a request needs a fetch before it can be planned (a repository
 * given as a URL, a Debian source version).  Such a job is stored as
 * fetching (sched_submit_fetching); the fetch queue runs sched_prepare()
 * outside the lock and then sched_fetched() with the prepared request or
 * the fetch's error, which plans the job or fails it with that reason.
 */
int sched_needs_fetch(const char *body, size_t len);
/*
 * What the fetch of such a request writes: its repository's URL (one
 * mirror) or "source VERSION".  Two fetches of one key must not run at
 * once.  Caller frees; NULL for a request that needs no fetch.
 */
char *sched_fetch_key(const char *body, size_t len);
int sched_submit_fetching(struct sched *s, const char *body, size_t len,
			  const char *owner, long long *id);
int sched_fetched(struct sched *s, long long id, const char *body, size_t len,
		  const char *fetch_error);

/*
 * Where a bisection stands: the candidates at its start and now (0 and
 * 0 before the checks are done).
 */
int sched_progress(struct sched *s, long long job, size_t *initial,
		   size_t *left);

/* Decide for one job, or for all unfinished jobs after expiring leases. */
int sched_tick(struct sched *s, long long job);
int sched_tick_all(struct sched *s);
/*
 * What time changes, for the daemon's loop: expire leases and decide for
 * their jobs, and when the live workers changed, for every bisection
 * (its slots follow them).  Every other change is decided where it
 * happens: a submission, a result, a cancel, a fetch.
 */
int sched_tick_due(struct sched *s);

/* ERR_NOTFOUND for an unknown job, ERR_INPUT when it already ended. */
int sched_cancel(struct sched *s, long long job);

/*
 * The submitter's answer on a release of a manual releases job: verdict
 * is good, bad or skip, release the one its last step asked about.
 * ERR_INPUT (a conflict: the job is not waiting for that answer) with
 * one line saying what it waits for.
 */
int sched_answer(struct sched *s, long long job, const char *release,
		 const char *verdict);

/*
 * Workers are who their token says.  token is the SHA-256 (hex) of the
 * worker token that calls ("" for bisectctl's own workers): a worker is
 * bound to the token that registered it, and so are the leases it is
 * given.  A poll for a worker, or a heartbeat, result or upload for a
 * lease, under another token is refused with ERR_DENIED.
 */

/* A worker registers its capabilities (JSON); *id is its number. */
int sched_register(struct sched *s, const char *token, const char *body,
		   size_t len, long long *id);

/*
 * A step for worker, as assignment JSON (caller frees); ERR_NOTFOUND
 * when there is nothing it can take, or ("unknown worker N") when
 * worker was never registered.
 */
int sched_poll(struct sched *s, const char *token, long long worker,
	       char **assignment);

/* Renew a lease; ERR_NOTFOUND when it expired or was cancelled. */
int sched_heartbeat(struct sched *s, const char *token, const char *lease);

/* The step that holds a lease, for its artifacts; ERR_NOTFOUND when the
 * lease expired or was cancelled. */
int sched_lease(struct sched *s, const char *token, const char *lease,
		long long *step);

/*
 * A worker's result for its lease; ERR_NOTFOUND for a lease that
 * expired or was cancelled (the result is discarded), ERR_INPUT for a
 * body that is not a result or that names another commit than its
 * step's (the lease holds).
 */
int sched_result(struct sched *s, const char *token, const char *lease,
		 const char *body, size_t len);

/* The job's bisect log, in `git bisect log` form. */
int sched_bisect_log(struct sched *s, long long job, struct buf *out);

/* A job's repository (a path, or the mirror of a URL). */
struct gu_repo;
int sched_open_repo(struct sched *s, const char *repo, struct gu_repo **out);
/* Where recipes are looked up. */
const char *sched_recipe_path(struct sched *s);

/* 1 when every job has ended. */
int sched_idle(struct sched *s);

#endif
