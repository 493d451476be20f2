// SPDX-License-Identifier: GPL-2.0-only
/*
 * The planning of releases jobs (scheduler.c's design): one step, the
 * whole release-level bisection, run by a worker; by hand, a step per
 * answer of the submitter's; and the commit level, a bisect job of its
 * own, made when the two releases are different upstream versions.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "recipe.h"
#include "scheduler.h"
#include "step.h"
#include "util.h"
#include "verdict.h"
#include "sched_priv.h"

/* The bisection a releases step found (its result's "releases"). */
static json_t *found_releases(const struct plan *p)
{
	size_t i;

	for (i = p->nsteps; i-- > 0;) {
		const struct store_step *st = &p->steps[i];
		json_t *r;

		if (st->state != STEP_DONE || !st->result ||
		    strcmp(st->hex, RELEASES_HEX) || strcmp(st->verdict, "bad"))
			continue;
		r = json_loads(st->result, 0, NULL);
		if (json_is_object(json_object_get(r, "releases"))) {
			json_t *rel =
				json_incref(json_object_get(r, "releases"));

			json_decref(r);
			return rel;
		}
		json_decref(r);
	}
	return NULL;
}

/*
 * The commit level after a releases job found its first bad release,
 * when the job names a repository and the two releases are different
 * upstream versions: a bisect job of its own between their tags (vX.Y.Z)
 * there, with the job's test, runs, confidence and webhook, and either
 * commit_recipe or the recipe with the last good release's config.  The
 * job's outcome gets its id ("commit_level_job") or why there is none
 * ("commit_level_error").
 */
static int commit_level(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	json_t *rel = found_releases(p), *req = NULL, *out = NULL;
	const char *lg, *gu, *bu;
	struct gu_repo *repo = NULL;
	struct job_spec f;
	char *body = NULL, *canon = NULL, *text = NULL, why[512] = "";
	char hex[2][GU_HEXSZ + 1];
	int rc = 0, k;

	lg = json_string_value(json_object_get(rel, "last_good_release"));
	gu = json_string_value(json_object_get(rel, "last_good_upstream"));
	bu = json_string_value(json_object_get(rel, "first_bad_upstream"));
	if (!lg || !gu || !bu || !strcmp(gu, bu))
		goto out; /* one upstream version: Debian's patches differ */
	if (sched_open_repo(p->s, sp->repo, &repo)) {
		snprintf(why, sizeof(why), "%s", err_last());
		goto record;
	}
	for (k = 0; k < 2; k++) {
		char tag[64];
		struct gu_oid oid;

		snprintf(tag, sizeof(tag), "refs/tags/v%s", k ? bu : gu);
		if (gu_resolve(repo, tag, &oid)) {
			snprintf(why, sizeof(why), "%s has no tag v%s",
				 sp->repo, k ? bu : gu);
			goto record;
		}
		gu_oid_hex(hex[k], &oid);
	}
	req = json_pack(
		"{s:s, s:s, s:[s], s:s, s:s, s:i, s:f, s:i, s:I}", "type",
		"bisect", "repo", sp->repo, "good", hex[0], "bad", hex[1],
		"recipe", sp->commit_recipe ? sp->commit_recipe : sp->recipe,
		"runs", sp->runs, "confidence", sp->confidence, "max_workers",
		sp->max_workers, "releases_job", (json_int_t)p->jc->id);
	if (req && !sp->commit_recipe) {
		json_object_set_new(req, "base_release", json_string(lg));
		json_object_set_new(req, "flavour", json_string(sp->flavour));
	}
	if (req && sp->test)
		json_object_set_new(req, "test", json_string(sp->test));
	if (req && sp->callback)
		json_object_set_new(req, "callback", json_string(sp->callback));
	if (req && sp->callback_secret)
		json_object_set_new(req, "callback_secret",
				    json_string(sp->callback_secret));
	body = req ? json_dumps(req, JSON_COMPACT) : NULL;
	if (!body) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (job_spec_parse(&f, body, strlen(body))) {
		snprintf(why, sizeof(why), "%s", err_last());
		goto record;
	}
	canon = job_spec_dump(&f);
	rc = canon ? store_job_insert(p->s->store, &p->follow_up, "bisect",
				      JOB_QUEUED, canon, f.callback, p->owner)
		   : err_set(ERR_NOMEM, "out of memory");
	job_spec_release(&f);
	if (rc)
		goto out;
record:
	out = *why ? json_pack("{s:s}", "commit_level_error", why)
		   : json_pack("{s:I}", "commit_level_job",
			       (json_int_t)p->follow_up);
	text = out ? json_dumps(out, JSON_COMPACT) : NULL;
	rc = text ? store_job_set_outcome(p->s->store, p->jc->id, text)
		  : err_set(ERR_NOMEM, "out of memory");
out:
	gu_close(repo);
	json_decref(rel);
	json_decref(req);
	json_decref(out);
	free(body);
	free(canon);
	free(text);
	return rc;
}

void sched_manual_at(const struct store_step *steps, size_t n,
		     struct manual_state *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		const struct store_step *st = &steps[i];

		if (!strcmp(st->role, "answer") && st->state == STEP_DONE) {
			m->answers++;
		} else if (strcmp(st->role, "releases") ||
			   st->state == STEP_CANCELLED) {
			continue;
		} else if (st->state != STEP_DONE) {
			m->pending = 1;
		} else if (!strcmp(st->verdict, "infra")) {
			char *t = job_json_string(st->result, "title");

			m->infra++;
			m->abort |= job_json_true(st->result, "abort");
			snprintf(m->title, sizeof(m->title), "%s", t ? t : "");
			free(t);
		} else {
			m->last = st;
			m->answers = m->infra = 0;
		}
	}
}

/* 1 when the job waits for its submitter's answer on m's last step. */
int sched_manual_waits(const struct manual_state *m)
{
	return !m->pending && m->last && !strcmp(m->last->verdict, "good") &&
	       !m->answers && !m->infra;
}

/*
 * A manual releases job: nothing is booted.  Each releases step names
 * the release to install next (its verdict good: waiting), the
 * submitter answers (an "answer" step, sched_answer), and the next
 * releases step takes every answer so far, until one names the first
 * bad release (bad) or finds none (skip).  A step that failed for the
 * worker's machine is tried once more.
 */
static int plan_manual(struct plan *p)
{
	struct manual_state m;
	int rc;
	long long id;

	sched_manual_at(p->steps, p->nsteps, &m);
	if (m.pending)
		return 0; /* the worker has it */
	if (m.abort || m.infra >= 2)
		return sched_end_job(p, JOB_FAILED, m.abort ? "error" : "infra",
				     NULL, m.title) < 0
			       ? ERR_INFRA
			       : 0;
	if (m.last && !strcmp(m.last->verdict, "bad"))
		return sched_end_job(p, JOB_DONE, "found", NULL, NULL) < 0
			       ? ERR_INFRA
			       : 0;
	if (m.last && !strcmp(m.last->verdict, "skip")) {
		char *t = job_json_string(m.last->result, "title");

		rc = sched_end_job(p, JOB_DONE, "ambiguous", NULL, t);
		free(t);
		return rc < 0 ? ERR_INFRA : 0;
	}
	if (sched_manual_waits(&m))
		return 0; /* for the submitter's answer */
	rc = store_step_insert(p->s->store, &id, p->jc->id, RELEASES_HEX,
			       "releases", p->round, 0, "");
	if (!rc)
		p->active++;
	return rc;
}

int sched_plan_releases(struct plan *p)
{
	struct cstat cs;
	const char *why;
	int v;

	if (p->jc->spec.manual)
		return plan_manual(p);
	sched_commit_status(p, RELEASES_HEX, &cs);
	if (cs.verdict == VERDICT_NONE && (cs.abort || cs.infra >= 2))
		return sched_end_job(p, JOB_FAILED,
				     cs.abort ? "error" : "infra", NULL,
				     cs.title) < 0
			       ? ERR_INFRA
			       : 0;
	v = sched_need(p, RELEASES_HEX, "releases");
	if (v <= 0)
		return v < 0 && !p->ended ? v : 0;
	why = sched_why_of(p, RELEASES_HEX);
	if (v == VERDICT_BAD) {
		int rc = p->jc->spec.repo ? commit_level(p) : 0;

		if (rc)
			return rc;
		return sched_end_job(p, JOB_DONE, "found", NULL, NULL) < 0
			       ? ERR_INFRA
			       : 0;
	}
	return sched_end_job(p, JOB_DONE, "ambiguous", NULL,
			     *why ? why + 2 : NULL) < 0
		       ? ERR_INFRA
		       : 0;
}
