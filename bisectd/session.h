/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bisection's outcome as the reports see it: the commits it started
 * from, every step with its evidence, the culprit or the candidates
 * left, and the bisect log.  The scheduler (scheduler.c) makes the
 * decisions; embed.c fills a session from the store when a job ends.
 */
#ifndef BISECTD_SESSION_H
#define BISECTD_SESSION_H

#include "buf.h"
#include "engine.h"
#include "gitutil.h"
#include "verdict.h"
#include "step.h"

struct session {
	struct gu_repo *repo; /* borrowed: commit details for reports */
	int have_bad;
	struct gu_oid bad;
	struct gu_oid *goods; /* owned by the caller */
	size_t ngoods;

	struct step_result *steps;
	size_t nsteps, cap_steps;
	size_t initial_candidates;
	enum engine_state state; /* ENGINE_FOUND or ENGINE_AMBIGUOUS */
	struct gu_oid first_bad;
	struct gu_oid *candidates; /* when ambiguous */
	size_t ncandidates;
	struct buf log;	   /* the bisect log */
	char *stop_reason; /* why the job stopped early, or NULL */
	char *outcome;	   /* the scheduler's confidence and evidence (JSON) */
};

void session_init(struct session *s);
void session_release(struct session *s);

/* The number of bisection steps (endpoint and merge-base checks aside). */
size_t session_bisect_steps(const struct session *s);

/*
 * The accelerator of the last boot and the .config of the last step that
 * was not an infrastructure failure (both left alone when there is none).
 */
void session_last_config(const struct session *s, const char **accel,
			 const char **config);

#endif
