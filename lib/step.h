/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The step: the unit that the coordinator, the workers and bisectctl
 * exchange.  An assignment (which commit to test for which job, under
 * which lease) goes to a worker; a result (the verdict and its evidence)
 * comes back.  This file has their one JSON codec; both wire forms carry
 * "v": STEP_WIRE_VERSION, and a form of another version is refused with
 * ERR_INPUT naming both.
 */
#ifndef BISECTD_STEP_H
#define BISECTD_STEP_H

#include <stddef.h>

#include "buf.h"
#include "gitutil.h"
#include "job.h"
#include "verdict.h"

#define STEP_WIRE_VERSION 1

/* What a worker gets for one step. */
struct step_assignment {
	char lease[33];
	long long step, job;
	char commit[41];
	char role[16];
	struct job_spec spec; /* repo, recipe, command, test, runs */
	double lease_seconds;
	/* whose job it is, as a key (hex, from the submitter's token name;
	 * "" for a local run): a worker keeps each submitter's build trees
	 * and compiler cache apart, so that one's build cannot leave
	 * objects that another's reuses */
	char tenant[17];
};

char *step_assignment_dump(const struct step_assignment *a);
int step_assignment_parse(struct step_assignment *out, const char *body,
			  size_t len);

/*
 * What one test of one commit found, as bisection steps, reports and
 * the coordinator see it.
 */
struct step_result {
	char hex[GU_HEXSZ + 1];
	enum verdict verdict;
	char *title;   /* crash title, build error, "" */
	char *excerpt; /* evidence lines, "" */
	double seconds, checkout_s, config_s, build_s, boot_s;
	int exit_code; /* generic mode; -1 otherwise */
	int runs, runs_failed;
	char *console_log, *build_log, *log; /* paths or NULL */
	char *config_path;		     /* the .config used, or NULL */
	char *config_notes;
	char *build_notes; /* compile helpers: jobs sent, helpers down */
	const char *accel; /* "kvm", "tcg" or NULL; static */
	const char *role;  /* "bisect", "endpoint", "merge-base", "replay" */
	size_t candidates; /* candidates left before this step */
	int cached;	   /* the verdict came from the result cache */
	int abort;	   /* infra that must stop the bisection at once */
	long long id;	   /* the coordinator's step id, or 0 */
	long long worker;  /* the coordinator's worker that ran it, or 0 */
	int round;	   /* the scheduler's round it was queued in, or 0 */
	int build_cached;  /* the image came from the kernel cache */
	char image_sha256[65]; /* of the booted kernel image, or "" */
	char *run_results; /* each run's verdict and title (JSON), or NULL */
	/* a build's patches as applied, by name (a mail by its subject),
	 * as a JSON array, or NULL */
	char *patches;
	/* a releases job's bisection, as releases_bisect() writes it
	 * (JSON object), or NULL */
	char *releases;
	/* cached: the commit whose step ran last on this key ("" if none) */
	char cached_from[GU_HEXSZ + 1];
	/* a metric bisection's step: the values of the job's metric that
	 * the runs printed, in order (none: NULL, 0) */
	double *values;
	size_t nvalues;
	char unit[17]; /* of the first value ("" for none) */
};

/* Free what a step owns (its strings), not the step itself. */
void step_result_release(struct step_result *st);

/* A result as JSON (indented; the caller frees it), and as a few lines
 * of text for a person appended to text (may be NULL), where the title,
 * the excerpt and the paths are shown with their control characters
 * escaped (buf_put_shown()). */
int step_result_dump(char **json, struct buf *text,
		     const struct step_result *st);
/* Set a build's patches, by name, in the order applied. */
int step_result_set_patches(struct step_result *st, const char *const *names,
			    size_t n);
/*
 * A metric bisection's step (job_spec.metric_name): the values of name
 * in text (len bytes: the command's output, the guest's console) into
 * st->values.  A run that failed, or printed no positive value of name,
 * is a skip whose title says why (the measurement is not a verdict).
 * 0 or ERR_NOMEM.
 */
int step_result_measure(struct step_result *st, const char *text, size_t len,
			const char *name);
/* The text alone. */
void step_result_text(struct buf *text, const struct step_result *st);

/* The other way: a result from its JSON (a worker's, or a stored one). */
int step_result_parse(struct step_result *st, const char *json);

/*
 * Check a result that a worker sent: an object of this wire version with
 * a known verdict and a string title, about commit (the step's: its
 * "commit" must be there and be that one; NULL: not checked); the
 * verdict is copied out.
 */
int step_result_check(const char *body, size_t len, const char *commit,
		      char verdict[8]);

/*
 * The result cache keeps observations, not one verdict: the runs of every
 * step on one key (a tree or commit, recipe and test) add up.  Into
 * *merged (the caller frees it): new_result with the runs of old_result
 * (NULL for none) before its own, at most STEP_CACHE_RUNS of the latest;
 * "runs" and "runs_failed" count them, the verdict is bad when one run
 * failed (with the evidence of the latest bad result), and "cached_from"
 * names hex, the commit whose step ran last.  A result without runs (a
 * skip: the tree does not build) replaces what was there.  verdict gets
 * the merged one.
 */
#define STEP_CACHE_RUNS 100
int step_result_merge(char **merged, char verdict[8], const char *old_result,
		      const char *new_result, const char *hex);

/* How many runs a (merged) result holds: 0 for a skip. */
int step_result_runs(const char *result);

/* A result as a JSON object (jansson's), for a report that holds steps;
 * NULL when out of memory. */
struct json_t;
struct json_t *step_result_json(const struct step_result *st);

#endif
