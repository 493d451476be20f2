// SPDX-License-Identifier: GPL-2.0-only
/*
 * A finished bisection as the reports see it.  The scheduler decides;
 * embed.c fills a session from the store when a job ends.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->log, 16u << 20);
}

void session_release(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++)
		step_result_release(&s->steps[i]);
	free(s->steps);
	free(s->candidates);
	free(s->stop_reason);
	free(s->outcome);
	buf_release(&s->log);
}

size_t session_bisect_steps(const struct session *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nsteps; i++)
		if (!strcmp(s->steps[i].role, "bisect"))
			n++;
	return n;
}

void session_last_config(const struct session *s, const char **accel,
			 const char **config)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++) {
		if (s->steps[i].accel)
			*accel = s->steps[i].accel;
		if (s->steps[i].config_path &&
		    s->steps[i].verdict != VERDICT_INFRA)
			*config = s->steps[i].config_path;
	}
}
