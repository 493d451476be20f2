/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How often each submitter may submit: at most per_minute jobs in any
 * 60 seconds.  Not thread-safe: the caller holds its lock around every
 * call.
 */
#ifndef BISECTD_QUOTA_H
#define BISECTD_QUOTA_H

#define QUOTA_PER_MINUTE_MAX 10000

struct quota;

/* per_minute: 1 to QUOTA_PER_MINUTE_MAX. */
int quota_new(struct quota **out, unsigned per_minute);
void quota_free(struct quota *q);
/*
 * 0 when owner may submit at now (seconds); else how many whole seconds
 * until it may, at least 1.
 */
int quota_wait(struct quota *q, const char *owner, double now);
/* Count a submit of owner at now. */
int quota_count(struct quota *q, const char *owner, double now);

#endif
