// SPDX-License-Identifier: GPL-2.0-only
/*
 * A coordinator's job seen as a finished bisection: the session that
 * the reports are written from, for bisectctl's embedded mode and for
 * bisectd's report pages alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jobview.h"
#include "recipe.h"
#include "report.h"
#include "util.h"

static const char *role_name(const char *r)
{
	static const char *const roles[] = { "bisect", "endpoint", "merge-base",
					     "replay", "test",	   "verify",
					     "revert", "noop",	   "build" };
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(r, roles[i]))
			return roles[i];
	return "bisect";
}

int jobview_session(struct session *s, int *code, struct store *store,
		    struct sched *sched, long long job,
		    const struct job_spec *spec)
{
	struct store_job j;
	struct store_step *steps = NULL;
	size_t n = 0, i, initial = 0, left = 0;
	int rc;

	if ((rc = store_job_get(store, job, &j)))
		return rc;
	sched_progress(sched, job, &initial, &left);
	rc = store_steps_of_job(store, job, &steps, &n);
	if (rc)
		goto out;
	gu_oid_parse(&s->bad, spec->bad);
	s->have_bad = 1;
	s->goods = calloc(spec->ngood + 1, sizeof(*s->goods));
	s->steps = calloc(n + 1, sizeof(*s->steps));
	if (!s->goods || !s->steps) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < spec->ngood; i++)
		gu_oid_parse(&s->goods[s->ngoods++], spec->good[i]);
	for (i = 0; i < n; i++) {
		struct step_result *st;

		if (steps[i].state != STEP_DONE || !steps[i].result)
			continue;
		st = &s->steps[s->nsteps];
		if (step_result_parse(st, steps[i].result))
			continue;
		s->nsteps++;
		snprintf(st->hex, sizeof(st->hex), "%s", steps[i].hex);
		st->role = role_name(steps[i].role);
		st->candidates = (size_t)steps[i].candidates;
		st->cached = steps[i].cached;
		st->id = steps[i].id;
		st->worker = steps[i].worker;
		st->round = steps[i].round;
	}
	s->cap_steps = n + 1;
	s->initial_candidates = initial;
	s->outcome = j.outcome;
	j.outcome = NULL;
	*code = 0;
	if (j.result && !strcmp(j.result, "found")) {
		s->state = ENGINE_FOUND;
		gu_oid_parse(&s->first_bad, j.culprit);
	} else if (j.result && !strcmp(j.result, "ambiguous") && s->outcome &&
		   strstr(s->outcome, "\"rejected\":")) {
		/* a culprit that failed verification: the reason says why */
		s->state = ENGINE_AMBIGUOUS;
		s->stop_reason = strdup(j.reason ? j.reason : "not verified");
	} else if (j.result && !strcmp(j.result, "ambiguous")) {
		const char *p = j.reason ? strchr(j.reason, ':') : NULL;
		size_t cap = 16;

		s->state = ENGINE_AMBIGUOUS;
		s->candidates = calloc(cap, sizeof(*s->candidates));
		while (p && s->candidates && (p = strchr(p, ' '))) {
			char hex[GU_HEXSZ + 1];

			p++;
			if (sscanf(p, "%40[0-9a-f]", hex) != 1)
				break;
			if (s->ncandidates == cap) {
				struct gu_oid *c = realloc(
					s->candidates,
					2 * cap * sizeof(*s->candidates));

				if (!c)
					break;
				s->candidates = c;
				cap *= 2;
			}
			gu_oid_parse(&s->candidates[s->ncandidates++], hex);
		}
	} else {
		*code = j.result && !strcmp(j.result, "infra") ? ERR_INFRA
							       : ERR_INPUT;
		s->stop_reason = strdup(j.reason ? j.reason : "stopped");
		err_set(*code, "%s", s->stop_reason);
	}
	rc = sched_bisect_log(sched, job, &s->log);
out:
	store_steps_release(steps, n);
	store_job_release(&j);
	return rc;
}

/* A worker's path as the URL of the artifact it was uploaded as. */
static void link_one(char **path, const char *base, long long job,
		     long long step)
{
	const char *name;
	char *url;

	if (!*path || !step)
		return;
	name = strrchr(*path, '/') ? strrchr(*path, '/') + 1 : *path;
	url = util_fmt("%s/api/v1/jobs/%lld/steps/%lld/artifacts/%s", base, job,
		       step, name);
	if (url) {
		free(*path);
		*path = url;
	}
}

static void link_logs(struct step_result *st, const char *base, long long job)
{
	link_one(&st->console_log, base, job, st->id);
	link_one(&st->build_log, base, job, st->id);
	link_one(&st->log, base, job, st->id);
	link_one(&st->config_path, base, job, st->id);
}

int jobview_report(struct store *store, struct sched *sched, long long job,
		   const char *link_base, const char *mail_from,
		   struct buf *mail, char **json)
{
	struct report_info ri = { 0 };
	struct store_job j;
	struct job_spec spec;
	struct recipe recipe = { 0 };
	struct gu_repo *repo = NULL;
	struct session s;
	char path[4096];
	size_t i;
	int rc, code = 0, have_recipe = 0;

	if ((rc = store_job_get(store, job, &j)))
		return rc;
	if (strcmp(j.type, "bisect") ||
	    (j.state != JOB_DONE && j.state != JOB_FAILED)) {
		store_job_release(&j);
		return err_set(ERR_INPUT,
			       "job %lld is not a finished bisection", job);
	}
	rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
	store_job_release(&j);
	if (rc)
		return rc;
	session_init(&s);
	rc = sched_open_repo(sched, spec.repo, &repo);
	if (!rc) {
		s.repo = repo;
		rc = jobview_session(&s, &code, store, sched, job, &spec);
	}
	if (!rc && spec.recipe &&
	    !recipe_find(path, sizeof(path), spec.recipe,
			 sched_recipe_path(sched)) &&
	    !recipe_load(&recipe, path))
		have_recipe = 1;
	ri.mode = spec.command ? "run" : "bisect";
	ri.repo_path = spec.repo;
	ri.recipe = have_recipe ? &recipe : NULL;
	ri.command = spec.command;
	ri.runs = spec.runs;
	ri.error_code = code;
	ri.job_id = job;
	ri.mail_from = mail_from;
	session_last_config(&s, &ri.accel, &ri.config_path);
	if (!rc && link_base)
		for (i = 0; i < s.nsteps; i++)
			link_logs(&s.steps[i], link_base, job);
	if (!rc && mail)
		rc = report_mail(mail, &s, &ri, link_base);
	if (!rc && json)
		rc = report_json(json, &s, &ri);
	if (have_recipe)
		recipe_release(&recipe);
	session_release(&s);
	free(s.goods);
	gu_close(repo);
	job_spec_release(&spec);
	return rc;
}
