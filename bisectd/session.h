/*
 * A bisection session: the loop between the engine and a tester, shared
 * by generic mode (a command per step) and kernel mode (the step
 * pipeline).  It owns the graph, the steps taken, and the bisect log.
 */
#ifndef BISECTD_SESSION_H
#define BISECTD_SESSION_H

#include <stdio.h>

#include "buf.h"
#include "engine.h"
#include "gitutil.h"
#include "verdict.h"
#include "worker.h"

typedef int (*session_test_fn)(struct session_step *out,
			       const struct gu_oid *commit, void *payload);

struct session {
	struct gu_repo *repo;
	int have_bad; /* bad is set; otherwise it comes from the replay */
	struct gu_oid bad;
	struct gu_oid *goods;
	size_t ngoods;
	int check_endpoints;
	const char *out_dir; /* bisect.log is kept up to date here */
	const char *replay;  /* a bisect log to resume from, or NULL */
	FILE *progress;	     /* progress lines, or NULL */
	session_test_fn test;
	void *payload;

	/* results */
	struct gu_graph graph;
	struct engine *engine;
	struct session_step *steps;
	size_t nsteps, cap_steps;
	size_t initial_candidates;
	enum engine_state state;
	struct gu_oid first_bad;
	struct gu_oid *candidates; /* when ambiguous */
	size_t ncandidates;
	struct buf log;	   /* the bisect log */
	char *stop_reason; /* why the session stopped early, or NULL */
};

void session_init(struct session *s);
void session_release(struct session *s);

/*
 * Run the bisection.  0 when it ended with a culprit or an ambiguous set
 * (see s->state); ERR_INPUT when the input does not make sense (a bad
 * commit that does not fail, a merge base that is bad, ...); ERR_INFRA
 * when a step could not be run.  s->stop_reason says why, in one line.
 */
int session_run(struct session *s);

/* The number of bisection steps (endpoint and merge-base checks aside). */
size_t session_bisect_steps(const struct session *s);

#endif
