/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The embedded coordinator: bisectctl without --server runs the same
 * scheduler in-process, with its SQLite store in the run's output
 * directory and N local workers (threads) that run steps through the
 * same step runner as bisect-worker.
 */
#ifndef BISECTD_EMBED_H
#define BISECTD_EMBED_H

#include <stdio.h>

#include "scheduler.h"
#include "session.h"

struct embed_opts {
	const char *out_dir;	 /* state.db, bisect.log, steps/ */
	const char *recipe_path; /* colon-separated recipe directories */
	const char *cache_dir;	 /* worktrees, work directories */
	int workers;		 /* local workers, at least 1 */
	FILE *progress;		 /* one line per step, or NULL */
	int live;		 /* live build/boot indicator */
};

/*
 * Run the job that spec (request JSON) describes to its end, with the
 * known verdicts first.  On return s is the finished bisection as the
 * reports see it (steps, culprit or candidates, bisect log) and *code
 * is 0, ERR_INPUT (the input did not make sense) or ERR_INFRA (no
 * verdict could be had); s->stop_reason says why.  The return value is
 * nonzero when the job could not be run at all (bad request).
 */
int embed_run(struct session *s, int *code, const struct embed_opts *o,
	      const char *spec, const struct sched_verdict *known,
	      size_t nknown);

#endif
