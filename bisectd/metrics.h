/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bisectd's own measurements, for GET /metrics in Prometheus' text
 * format: how long a worker's poll waits for the coordinator's lock, how
 * long the scheduler takes to choose its step, and the poll's whole time
 * to an assignment; counters of polls, assignments and results; and,
 * read from the store when asked, jobs and steps by state, expired
 * leases, the fetch queue and the webhook queue.
 */
#ifndef BISECTD_METRICS_H
#define BISECTD_METRICS_H

#include "buf.h"
#include "store.h"

enum metric_hist {
	HIST_LOCK_WAIT,	  /* a poll's wait for the coordinator's lock */
	HIST_SCHEDULE,	  /* the scheduler choosing and leasing a step */
	HIST_POLL_ASSIGN, /* a poll's arrival to its assignment */
	HIST_COUNT
};

enum metric_counter {
	COUNT_POLLS,	   /* polls answered */
	COUNT_ASSIGNMENTS, /* of them with a step */
	COUNT_RESULTS,	   /* step results recorded */
	COUNT_COUNT
};

struct metrics;

int metrics_new(struct metrics **out);
void metrics_free(struct metrics *m);
/* Thread-safe: any request's thread may record. */
void metrics_observe(struct metrics *m, enum metric_hist h, double seconds);
void metrics_count(struct metrics *m, enum metric_counter c);
/* The exposition text, with c read from the store. */
int metrics_write(struct metrics *m, const struct store_counts *c,
		  struct buf *out);

#endif
