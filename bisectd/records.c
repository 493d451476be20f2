// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store's records without the store: the names of job and step
 * states, and the release of records read from it.  Kept apart from the
 * SQLite store (store.c) so that the scheduler's unit tests, which link
 * a store of their own, share them.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"

static const char *const job_states[] = { "queued", "running",	 "done",
					  "failed", "cancelled", "fetching" };

const char *job_state_name(int state)
{
	if (state < 0 || state > JOB_FETCHING)
		return "unknown";
	return job_states[state];
}

int job_state_parse(const char *name)
{
	int i;

	for (i = 0; i <= JOB_FETCHING; i++)
		if (!strcmp(name, job_states[i]))
			return i;
	return -1;
}

static const char *const step_states[] = { "queued", "running", "done",
					   "cancelled" };

const char *step_state_name(int state)
{
	if (state < 0 || state > STEP_CANCELLED)
		return "unknown";
	return step_states[state];
}

void store_job_release(struct store_job *j)
{
	free(j->type);
	free(j->spec);
	free(j->result);
	free(j->culprit);
	free(j->reason);
	free(j->callback);
	free(j->hook_state);
	free(j->hook_error);
	free(j->outcome);
	free(j->owner);
	memset(j, 0, sizeof(*j));
}

void store_steps_release(struct store_step *st, size_t n)
{
	size_t i;

	for (i = 0; st && i < n; i++)
		free(st[i].result);
	free(st);
}
