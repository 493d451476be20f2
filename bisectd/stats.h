/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bisectd's regressions per subsystem: each verified bisection's culprit
 * counted for its MAINTAINERS sections, as bisectctl stats counts
 * Fixes: trailers (lib/regstats.h).
 */
#ifndef BISECTD_STATS_H
#define BISECTD_STATS_H

#include <pthread.h>

#include "regstats.h"
#include "scheduler.h"
#include "store.h"

/*
 * Count the bisections that finished since the last call, then the whole
 * table into out.  The repositories are read without lock held; the
 * store only with it.
 */
int stats_table(struct store *store, struct sched *sched, pthread_mutex_t *lock,
		struct regstats *out);

#endif
