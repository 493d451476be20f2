/* SPDX-License-Identifier: GPL-2.0-only */
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
	const char *mail_from;	 /* the mail's From, or NULL for bisectd's */
	/* a fix's report says whether it cherry-picks onto the bad commit:
	 * only where the repository is the user's own (bisectctl run), as
	 * a merge costs what the repository makes it cost */
	int cherry_pick;
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
 * mailing-list bisection report, written with GMime (RFC 5322 headers,
 * encoded words where a name or the subject needs them): Subject, To
 * and Cc (in a kernel tree, the people and the lists that
 * get_maintainer.pl names for the culprit's patch, and regressions@),
 * the culprit, the failure, the steps, the bisect log, links under
 * link_base (may be NULL) and a "#regzbot introduced:" line.  A job that
 * did not find a culprit gets report_text() instead.
 */
#define REPORT_MAIL_FROM "bisectd <bisectd@localhost>"
int report_mail(struct buf *out, const struct session *s,
		const struct report_info *ri, const char *link_base);

/*
 * A coordinator's job as the API serves it: the request, state, result,
 * webhook delivery and, when full, every step with its result, the
 * artifacts uploaded for it, and the number of rounds.  Caller frees.
 */
char *report_job(struct store *st, const struct store_job *j,
		 const struct store_step *steps, size_t n, int full);

#endif
