/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fetch queue: a pool of threads that fetch the repositories (or
 * import the Debian sources) of jobs waiting as fetching, without the
 * coordinator's lock, and then hand them to the scheduler.
 */
#ifndef BISECTD_FETCHQ_H
#define BISECTD_FETCHQ_H

#include <stddef.h>

#include "api.h"
#include "scheduler.h"

#define FETCHQ_MAX 64 /* threads at most */

struct fetchq_opts {
	const char *state_dir;
	struct sched_fetch_limits lim;
	int threads;	   /* fetches at once, 1 to FETCHQ_MAX */
	int per_submitter; /* of them one submitter's, 1 to threads */
};

struct fetchq;

/*
 * Start the pool on co's store and scheduler (co->lock guards the
 * queue's own table too).  co must outlive it.
 */
int fetchq_start(struct fetchq **out, struct coord *co,
		 const struct fetchq_opts *o);
/*
 * Take no more jobs and wait up to wait_s seconds for the fetches under
 * way; from now on a fetch that ends touches neither its job nor the
 * API (call it before api_stop()).  0: every thread ended and q is
 * freed; ERR_INFRA: a fetch still runs (its git dies with the process),
 * and q must be left alone.
 */
int fetchq_stop(struct fetchq *q, double wait_s);

/* A fetch under way: its job, its submitter ("" for none), its key. */
struct fetchq_running {
	long long id; /* 0: a free slot */
	const char *owner, *key;
};

/*
 * Whether the job id of owner, whose fetch writes key, may start beside
 * the fetches in run (n slots): it is not being fetched already, its
 * submitter has fewer than per_submitter under way, and no fetch writes
 * the same key (NULL: not asked yet).
 */
int fetchq_may_start(const struct fetchq_running *run, size_t n,
		     int per_submitter, long long id, const char *owner,
		     const char *key);

#endif
