// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submits per submitter per minute.  Each submitter that submitted in
 * the last minute has the times of its last per_minute submits, a ring:
 * while the oldest of them is less than a minute old, the next submit
 * waits until it is.  A submitter quiet for a minute is forgotten, so
 * that what is kept follows the submitters active now.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "quota.h"

#define WINDOW_S 60.0

struct submitter {
	char *owner;
	double *times; /* per_minute of them; the oldest at head once full */
	unsigned head, n;
	struct submitter *next;
};

struct quota {
	unsigned per_minute;
	struct submitter *list;
};

int quota_new(struct quota **out, unsigned per_minute)
{
	*out = NULL;
	if (per_minute < 1 || per_minute > QUOTA_PER_MINUTE_MAX)
		return err_set(ERR_INPUT, "submits per minute must be 1 to %d",
			       QUOTA_PER_MINUTE_MAX);
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return err_set(ERR_NOMEM, "out of memory");
	(*out)->per_minute = per_minute;
	return 0;
}

static void submitter_free(struct submitter *s)
{
	free(s->owner);
	free(s->times);
	free(s);
}

void quota_free(struct quota *q)
{
	struct submitter *s, *next;

	if (!q)
		return;
	for (s = q->list; s; s = next) {
		next = s->next;
		submitter_free(s);
	}
	free(q);
}

/* The newest of s's submits. */
static double newest(const struct quota *q, const struct submitter *s)
{
	return s->times[(s->head + s->n - 1) % q->per_minute];
}

/* owner's entry (NULL: none); those quiet for a minute are dropped. */
static struct submitter *find(struct quota *q, const char *owner, double now)
{
	struct submitter **p = &q->list, *s, *found = NULL;

	while ((s = *p)) {
		if (now - newest(q, s) >= WINDOW_S) {
			*p = s->next;
			submitter_free(s);
			continue;
		}
		if (!strcmp(s->owner, owner))
			found = s;
		p = &s->next;
	}
	return found;
}

int quota_wait(struct quota *q, const char *owner, double now)
{
	struct submitter *s = find(q, owner, now);
	double left;

	if (!s || s->n < q->per_minute)
		return 0;
	left = s->times[s->head] + WINDOW_S - now;
	return left > 0 ? (int)ceil(left) : 0;
}

int quota_count(struct quota *q, const char *owner, double now)
{
	struct submitter *s = find(q, owner, now);

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || !(s->owner = strdup(owner)) ||
		    !(s->times = calloc(q->per_minute, sizeof(*s->times)))) {
			if (s)
				submitter_free(s);
			return err_set(ERR_NOMEM, "out of memory");
		}
		s->next = q->list;
		q->list = s;
	}
	if (s->n < q->per_minute) {
		s->times[(s->head + s->n) % q->per_minute] = now;
		s->n++;
	} else {
		s->times[s->head] = now; /* the oldest makes way */
		s->head = (s->head + 1) % q->per_minute;
	}
	return 0;
}
