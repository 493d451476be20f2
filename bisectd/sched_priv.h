/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler's own structures and the functions its files share:
 * scheduler.c (jobs, planning, ticks), sched_repos.c (mirrors and
 * imports), sched_releases.c (releases jobs), sched_bisect.c (checks,
 * the engine's probes, verification) and sched_leases.c (workers, their
 * polls, leases and results).  Only those files include it.
 */
#ifndef BISECTD_SCHED_PRIV_H
#define BISECTD_SCHED_PRIV_H

#include <regex.h>
#include <stddef.h>

#include "digest.h"
#include "engine.h"
#include "gitutil.h"
#include "job.h"
#include "scheduler.h"
#include "store.h"
#include "verdict.h"

/* What the scheduler keeps per job: parsed request, repository, graph. */
struct jobc {
	long long id;
	struct job_spec spec;
	char tenant[17]; /* its submitter's key, "" for none */
	struct gu_repo *repo;
	char recipe_key[DIGEST_HEXSZ + 1];
	int have_graph;
	struct gu_graph graph;
	regex_t failure; /* spec.failure, compiled */
	int have_failure;
	char (*graph_goods)[GU_HEXSZ + 1]; /* the graph's, when it has one */
	size_t ngraph_goods;
	int slots; /* of the live workers, as of slots_gen */
	unsigned long slots_gen;
	unsigned long used;		  /* s->uses when last found */
	struct jobc *next, *prev, *hnext; /* all jobs; the same bucket */
};

/* A live worker's capabilities, parsed once. */
struct livec {
	long long id;
	char *text;
	struct job_caps caps;
};

#define JOB_BUCKETS 4096
/*
 * Jobs without a graph (tests, builds, bisections before their checks
 * end) cost little to load again: those not used in the last JOBC_KEEP
 * lookups are dropped, so that memory does not grow with the queue.
 */
#define JOBC_KEEP 1000

/* Open repositories, shared by the jobs that name the same one. */
struct repoc {
	char *name;
	struct gu_repo *repo;
	int refs;
	struct repoc *next;
};

struct sched {
	struct store *store;
	struct sched_opts o;
	char *state_dir, *recipe_path;
	struct jobc *jobs, *bucket[JOB_BUCKETS];
	unsigned long uses, made; /* lookups; jobs loaded */
	struct repoc *repos;
	/* the workers seen within the live window, by id; gen changes with
	 * the set, read again at most every LIVE_REFRESH_S or after a
	 * registration */
	struct livec *live;
	size_t nlive;
	unsigned long live_gen, ticked_gen;
	double live_at;
	int live_stale;
};

#define LIVE_REFRESH_S 2.0

struct plan {
	struct sched *s;
	struct jobc *jc;
	struct store_step *steps;
	size_t nsteps;
	int slots;  /* steps this job may have running */
	int active; /* queued or leased steps */
	int round;  /* the round a step queued now belongs to */
	int ended;
	char why[256]; /* why_of()'s answer */
	/* kernel mode without spec.failure: the bad endpoint's failure,
	 * as title_key() gives it, or "" until it is known */
	char target[256];
	char *owner;	     /* the job's submitter, for a job it leads to */
	long long follow_up; /* a job made now, to be planned next */
};

struct cstat {
	enum verdict verdict;	/* the latest good/bad/skip, or NONE */
	unsigned fails, passes; /* runs of good and bad steps */
	int other;		/* a failure other than the target */
	int infra;		/* infra verdicts */
	int abort;		/* an infra verdict that must not be retried */
	int pending;		/* queued or leased steps */
	char title[256];	/* of the last infra result */
	char why[256];		/* ": title" of the verdict, or "" */
};

/*
 * A releases job: one step, the whole release-level bisection, run by a
 * worker (steprun.c); bad when it found the first bad release, skip
 * when the answer is ambiguous.  It has no commit: the step's is
 * RELEASES_HEX.
 */
#define RELEASES_HEX "0000000000000000000000000000000000000000"

/* Where a manual releases job stands, from its steps (oldest first). */
struct manual_state {
	const struct store_step *last; /* the last releases step that ran */
	size_t answers, infra;	       /* since that one */
	int pending;		       /* a releases step not done yet */
	int abort;		       /* an infra failure not to retry */
	char title[256];	       /* of the last infra failure */
};

int sched_by_id(const void *a, const void *b);
int sched_cache_key(struct plan *p, const char *hex, char *out);
int sched_check_role(const char *role);
void sched_commit_status(const struct plan *p, const char *hex,
			 struct cstat *cs);
int sched_end_failed(struct plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sched_end_infra(struct plan *p, const char *hex, const struct cstat *cs);
int sched_end_job(struct plan *p, int state, const char *result,
		  const char *culprit, const char *reason);
int sched_enqueue(struct plan *p, const char *hex, const char *role,
		  long long candidates);
struct jobc *sched_find_jobc(struct sched *s, long long id);
void sched_find_target(struct plan *p);
int sched_get_jobc(struct sched *s, long long id, const char *spec,
		   const char *owner, struct jobc **out);
int sched_import_source(struct job_spec *spec, const char *state_dir,
			double timeout, unsigned long max_mb);
struct engine *sched_make_engine(struct plan *p);
/* A metric bisection (sched_metric.c): its engine from the steps (t:
 * what they hold, or NULL), and its planning. */
struct tally;
struct engine *sched_metric_engine(struct plan *p, struct tally *t);
int sched_plan_metric(struct plan *p);
/* The bisection's graph between goods and the bad commit, and its
 * candidates stored: 0, 1 when the job ended (nothing to bisect), < 0. */
int sched_graph_ready(struct plan *p, char goods[][GU_HEXSZ + 1], size_t n);
/* Store a bisection's outcome (JSON, or NULL when out of memory: the
 * error); frees it. */
int sched_set_outcome(struct plan *p, char *outcome);
void sched_manual_at(const struct store_step *steps, size_t n,
		     struct manual_state *m);
int sched_manual_waits(const struct manual_state *m);
int sched_need(struct plan *p, const char *hex, const char *role);
int sched_plan_bisect(struct plan *p);
int sched_plan_releases(struct plan *p);
void sched_refresh_live(struct sched *s);
int sched_remember(struct plan *p, long long id);
void sched_role_status(const struct plan *p, const char *hex, const char *role,
		       struct cstat *cs);
void sched_step_runs(const struct plan *p, const struct store_step *st,
		     enum verdict v, unsigned *fails, unsigned *passes);
enum verdict sched_step_verdict(const struct plan *p,
				const struct store_step *st, int *other);
const char *sched_why_of(struct plan *p, const char *hex);

#endif
