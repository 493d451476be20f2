/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A job from the store as a session (session.h), for the reports.
 */
#ifndef BISECTD_JOBVIEW_H
#define BISECTD_JOBVIEW_H

#include "job.h"
#include "scheduler.h"
#include "session.h"
#include "store.h"

/*
 * Fill s (initialised, s->repo set by the caller) from the job's steps
 * and end: state and culprit or candidates, the bisect log; *code is 0,
 * ERR_INPUT or ERR_INFRA as the job ended, with s->stop_reason.
 */
int jobview_session(struct session *s, int *code, struct store *store,
		    struct sched *sched, long long job,
		    const struct job_spec *spec);

/*
 * A finished bisection job's reports: the mail (report_mail, links under
 * link_base, from mail_from or NULL for bisectd's) and the JSON report.
 * ERR_INPUT when the job is not a bisection or has not ended.  Either
 * output may be NULL.
 */
int jobview_report(struct store *store, struct sched *sched, long long job,
		   const char *link_base, const char *mail_from,
		   struct buf *mail, char **json);

#endif
