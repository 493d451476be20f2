// SPDX-License-Identifier: GPL-2.0-only
/*
 * Histograms with fixed buckets (from 100 us to 10 s) and counters, each
 * behind one small mutex of their own: never the coordinator's lock,
 * which is what they measure.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics.h"
#include "store.h"

static const double bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
				 0.005,	 0.01,	  0.025,  0.05,	 0.1,
				 0.25,	 0.5,	  1,	  2.5,	 10 };
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

struct hist {
	unsigned long long buckets[NBOUNDS]; /* not cumulative here */
	unsigned long long count;
	double sum;
};

struct metrics {
	pthread_mutex_t lock;
	struct hist h[HIST_COUNT];
	unsigned long long c[COUNT_COUNT];
};

static const struct {
	const char *name, *help;
} hist_names[HIST_COUNT] = {
	{ "bisectd_poll_lock_wait_seconds",
	  "A worker's poll waiting for the coordinator's lock." },
	{ "bisectd_schedule_seconds",
	  "The scheduler choosing and leasing a step for a poll." },
	{ "bisectd_poll_to_assignment_seconds",
	  "A poll's arrival to its assignment (polls that got a step)." },
};

static const struct {
	const char *name, *help;
} count_names[COUNT_COUNT] = {
	{ "bisectd_polls_total", "Worker polls answered." },
	{ "bisectd_assignments_total", "Polls answered with a step." },
	{ "bisectd_results_total", "Step results recorded." },
};

int metrics_new(struct metrics **out)
{
	struct metrics *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return err_set(ERR_NOMEM, "out of memory");
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return 0;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void metrics_observe(struct metrics *m, enum metric_hist h, double seconds)
{
	size_t i = 0;

	while (i < NBOUNDS && seconds > bounds[i])
		i++;
	pthread_mutex_lock(&m->lock);
	if (i < NBOUNDS)
		m->h[h].buckets[i]++;
	m->h[h].count++;
	m->h[h].sum += seconds;
	pthread_mutex_unlock(&m->lock);
}

void metrics_count(struct metrics *m, enum metric_counter c)
{
	pthread_mutex_lock(&m->lock);
	m->c[c]++;
	pthread_mutex_unlock(&m->lock);
}

static void gauge_states(struct buf *out, const char *name, const char *help,
			 const long long *v, size_t n,
			 const char *(*state_name)(int))
{
	size_t i;

	buf_printf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (i = 0; i < n; i++)
		buf_printf(out, "%s{state=\"%s\"} %lld\n", name,
			   state_name((int)i), v[i]);
}

int metrics_write(struct metrics *m, const struct store_counts *c,
		  struct buf *out)
{
	struct metrics snap;
	size_t h, i;

	pthread_mutex_lock(&m->lock);
	memcpy(snap.h, m->h, sizeof(snap.h));
	memcpy(snap.c, m->c, sizeof(snap.c));
	pthread_mutex_unlock(&m->lock);
	for (h = 0; h < HIST_COUNT; h++) {
		const char *name = hist_names[h].name;
		unsigned long long cum = 0;

		buf_printf(out, "# HELP %s %s\n# TYPE %s histogram\n", name,
			   hist_names[h].help, name);
		for (i = 0; i < NBOUNDS; i++) {
			cum += snap.h[h].buckets[i];
			buf_printf(out, "%s_bucket{le=\"%g\"} %llu\n", name,
				   bounds[i], cum);
		}
		buf_printf(out,
			   "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.9f\n"
			   "%s_count %llu\n",
			   name, snap.h[h].count, name, snap.h[h].sum, name,
			   snap.h[h].count);
	}
	for (i = 0; i < COUNT_COUNT; i++)
		buf_printf(out, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n",
			   count_names[i].name, count_names[i].help,
			   count_names[i].name, count_names[i].name, snap.c[i]);
	gauge_states(out, "bisectd_jobs", "Jobs by state.", c->jobs, 6,
		     job_state_name);
	gauge_states(out, "bisectd_steps", "Steps by state.", c->steps, 4,
		     step_state_name);
	return buf_printf(
		out,
		"# HELP bisectd_leases_expired Leases that ran out (all steps "
		"in the store).\n# TYPE bisectd_leases_expired gauge\n"
		"bisectd_leases_expired %lld\n"
		"# HELP bisectd_fetch_queue Jobs whose repository is being "
		"fetched.\n# TYPE bisectd_fetch_queue gauge\n"
		"bisectd_fetch_queue %lld\n"
		"# HELP bisectd_webhooks_pending Webhooks not yet delivered.\n"
		"# TYPE bisectd_webhooks_pending gauge\n"
		"bisectd_webhooks_pending %lld\n"
		"# HELP bisectd_workers Workers registered.\n"
		"# TYPE bisectd_workers gauge\nbisectd_workers %lld\n",
		c->expired, c->jobs[JOB_FETCHING], c->hooks_pending,
		c->workers);
}
