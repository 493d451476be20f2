/*
 * The end-of-bisection report, as JSON (the same fields the API will
 * serve) and as plain text for people.
 */
#ifndef BISECTD_REPORT_H
#define BISECTD_REPORT_H

#include "buf.h"
#include "recipe.h"
#include "session.h"
#include "store.h"

struct report_info {
	const char *mode; /* "run" or "bisect" */
	const char *repo_path;
	const struct recipe *recipe; /* NULL in generic mode */
	const char *test_script;     /* or NULL */
	int runs;
	const char *command; /* generic mode: the command, joined */
	const char *out_dir;
	const char *config_path; /* the last step's .config, or NULL */
	const char *accel;	 /* "kvm", "tcg" or NULL */
	int error_code;		 /* 0, or the session's error */
	long long job_id;	 /* bisectd's job, or 0 */
};

/* "found", "ambiguous" or "error". */
const char *report_result(const struct session *s, int error_code);

/* Serialize; the caller owns *out and frees it. */
int report_json(char **out, const struct session *s,
		const struct report_info *ri);
int report_text(struct buf *out, const struct session *s,
		const struct report_info *ri);

/*
 * The report as a mail to the culprit's maintainers, in the style of a
 * mailing-list bisection report: Subject, To (M: of MAINTAINERS at the
 * culprit for its files), Cc (their lists and regressions@), the
 * culprit, the failure, the steps, the bisect log, links under
 * link_base (may be NULL) and a "#regzbot introduced:" line.  A job that
 * did not find a culprit gets report_text() instead.
 */
int report_mail(struct buf *out, const struct session *s,
		const struct report_info *ri, const char *link_base);

/* One step alone (bisectctl test): JSON and a few lines of text. */
int report_step(char **json, struct buf *text, const struct session_step *st);

/* The other way: a step from its JSON (a worker's result). */
int report_step_parse(struct session_step *st, const char *json);

/* A fix check: the same commit without and with the patches. */
struct verify_report {
	const char *result; /* "fixed", "not fixed" or "inconclusive" */
	const char *reason;
	const char *repo_path;
	const char *const *patches;
	size_t npatches;
	const char *patched_hex; /* the patched commit in the worktree */
	const struct session_step *base, *patched;
};

int report_verify(char **json, struct buf *text, const struct verify_report *v);

/*
 * A coordinator's job as the API serves it: the request, state, result,
 * webhook delivery and, when full, every step with its result, the
 * artifacts uploaded for it, and the number of rounds.  Caller frees.
 */
char *report_job(struct store *st, const struct store_job *j,
		 const struct store_step *steps, size_t n, int full);

/* A package build: what was built from what, and where it is. */
struct build_report {
	const char *result; /* buildjob_outcome() */
	const char *id;
	const char *repo_path;
	const char *base_hex, *patched_hex;
	const char *const *patches;
	size_t npatches;
	const char *recipe;
	const struct package_result *packages; /* or NULL */
	const char *packages_dir;
	const struct session_step *smoke;     /* the build and boot step */
	const struct install_result *install; /* or NULL: not asked for */
	const char *out_dir;
};

int report_build(char **json, struct buf *text, const struct build_report *b);

#endif
