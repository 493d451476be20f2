// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler.
 *
 * Design.  sched_tick() replans a job from scratch: it reads the job's
 * request and all its steps from the store and walks the phases that
 * session.c describes for one machine, in parallel where they allow it:
 *
 *   checks     the merge base of each good commit that is not an
 *              ancestor of bad (as git does), and in kernel mode the
 *              endpoints (bad must fail, every good must pass); all of
 *              these may run at once
 *   bisect     the engine, rebuilt from the graph and every verdict so
 *              far; probes that are no longer candidates are cancelled,
 *              and idle slots get engine_next_more() picks that split
 *              what the running probes leave
 *
 * Without a confidence a commit is never tested twice for the same
 * question: any step's verdict on a commit counts for every role, and
 * before a commit's first step is queued the result cache is asked,
 * keyed in kernel mode by the commit's tree, the recipe (its file and the
 * fragments and base config it names), the test and the runs, and in
 * generic mode by the commit and the command.  With a confidence the
 * engine may want more runs of a commit (the bad endpoint until it
 * failed 3 times, noisy probes, verification): each is a step of its
 * own, every step's runs are observations, and the job's outcome says
 * how sure its answer is.  An infra verdict is retried once; a second
 * one fails the job, as a verdict is never guessed.
 *
 * Because every decision comes from the store, the daemon can die at any
 * point and the next tick decides the same; a job is ended by a
 * conditional update, so it is never finished twice.
 *
 * This file holds the jobs, the planning shared by every kind and the
 * ticks; sched_bisect.c plans bisections, sched_releases.c releases
 * jobs, sched_repos.c opens and fetches repositories, and
 * sched_leases.c is the workers' side (sched_priv.h).
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

static void live_release(struct livec *l, size_t n);

int sched_open(struct sched **out, struct store *st, const struct sched_opts *o)
{
	struct sched *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return err_set(ERR_NOMEM, "out of memory");
	s->store = st;
	s->o = *o;
	s->state_dir = strdup(o->state_dir);
	s->recipe_path = strdup(o->recipe_path ? o->recipe_path : "");
	if (!s->state_dir || !s->recipe_path) {
		sched_close(s);
		return err_set(ERR_NOMEM, "out of memory");
	}
	if (s->o.lease_s <= 0)
		s->o.lease_s = 60;
	if (s->o.max_attempts <= 0)
		s->o.max_attempts = 3;
	if (s->o.live_window <= 0)
		s->o.live_window = 90;
	*out = s;
	return 0;
}

static void repo_put(struct sched *s, struct gu_repo *repo)
{
	struct repoc **p;

	for (p = &s->repos; *p; p = &(*p)->next)
		if ((*p)->repo == repo) {
			struct repoc *dead = *p;

			if (--dead->refs > 0)
				return;
			*p = dead->next;
			gu_close(dead->repo);
			free(dead->name);
			free(dead);
			return;
		}
}

static void jobc_free(struct sched *s, struct jobc *j)
{
	if (j->have_failure)
		regfree(&j->failure);
	job_spec_release(&j->spec);
	if (j->repo)
		repo_put(s, j->repo);
	gu_graph_release(&j->graph);
	free(j->graph_goods);
	free(j);
}

void sched_close(struct sched *s)
{
	if (!s)
		return;
	while (s->jobs) {
		struct jobc *n = s->jobs->next;

		jobc_free(s, s->jobs);
		s->jobs = n;
	}
	live_release(s->live, s->nlive);
	free(s->state_dir);
	free(s->recipe_path);
	free(s);
}

const char *sched_recipe_path(struct sched *s)
{
	return s->recipe_path;
}

/* Hash the recipe and every file it reads its config from. */
static int recipe_key(struct sched *s, const char *name, char *out)
{
	char path[4096];
	struct recipe r;
	struct digest *d;
	size_t i;
	int rc;

	rc = recipe_find(path, sizeof(path), name, s->recipe_path);
	if (!rc)
		rc = recipe_load(&r, path);
	if (rc)
		return err_wrap(ERR_INPUT, "recipe '%s'", name);
	d = digest_new();
	if (!d) {
		recipe_release(&r);
		return err_set(ERR_NOMEM, "out of memory");
	}
	digest_update(d, r.text, strlen(r.text));
	for (i = 0; i < r.nfragments; i++) {
		char fh[DIGEST_HEXSZ + 1];

		if (digest_file_hex(fh, r.fragments[i]) == 0)
			digest_update(d, fh, strlen(fh));
	}
	if (strchr(r.base, '/')) {
		char bh[DIGEST_HEXSZ + 1];

		if (digest_file_hex(bh, r.base) == 0)
			digest_update(d, bh, strlen(bh));
	}
	digest_finish(d, out);
	recipe_release(&r);
	return 0;
}

/* The open repository for a job's "repo", shared by reference. */
static int repo_get(struct sched *s, const char *name, struct gu_repo **out)
{
	struct repoc *r;
	int rc;

	for (r = s->repos; r; r = r->next)
		if (!strcmp(r->name, name)) {
			r->refs++;
			*out = r->repo;
			return 0;
		}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(name))) {
		free(r);
		return err_set(ERR_NOMEM, "out of memory");
	}
	rc = sched_open_repo(s, name, &r->repo);
	if (rc) {
		free(r->name);
		free(r);
		return rc;
	}
	r->refs = 1;
	r->next = s->repos;
	s->repos = r;
	*out = r->repo;
	return 0;
}

static struct jobc **bucket_of(struct sched *s, long long id)
{
	return &s->bucket[(unsigned long long)id % JOB_BUCKETS];
}

struct jobc *sched_find_jobc(struct sched *s, long long id)
{
	struct jobc *j;

	for (j = *bucket_of(s, id); j; j = j->hnext)
		if (j->id == id) {
			j->used = ++s->uses;
			return j;
		}
	return NULL;
}

/* Take a job off both lists and free it. */
static void forget_jobc(struct sched *s, struct jobc *j)
{
	struct jobc **b;

	for (b = bucket_of(s, j->id); *b != j; b = &(*b)->hnext)
		;
	*b = j->hnext;
	if (j->prev)
		j->prev->next = j->next;
	else
		s->jobs = j->next;
	if (j->next)
		j->next->prev = j->prev;
	jobc_free(s, j);
}

static void drop_jobc(struct sched *s, long long id)
{
	struct jobc *j;

	for (j = *bucket_of(s, id); j; j = j->hnext)
		if (j->id == id) {
			forget_jobc(s, j);
			return;
		}
}

/* Drop the jobs without a graph that were not used lately. */
static void forget_unused(struct sched *s)
{
	struct jobc *j, *next;

	for (j = s->jobs; j; j = next) {
		next = j->next;
		if (!j->have_graph && j->used + JOBC_KEEP < s->uses)
			forget_jobc(s, j);
	}
}

/* The scheduler's view of a job, loaded from the store on first use. */
int sched_get_jobc(struct sched *s, long long id, const char *spec,
		   const char *owner, struct jobc **out)
{
	struct jobc *j = sched_find_jobc(s, id);
	int rc;

	if (j) {
		*out = j;
		return 0;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return err_set(ERR_NOMEM, "out of memory");
	j->id = id;
	if (owner) {
		char hex[DIGEST_HEXSZ + 1];

		digest_sha256_hex(hex, owner, strlen(owner));
		snprintf(j->tenant, sizeof(j->tenant), "%.16s", hex);
	}
	rc = job_spec_parse(&j->spec, spec, strlen(spec));
	if (!rc && j->spec.fix) {
		/* a fix is bisected as the first "new" commit of the range:
		 * its top is the newer commit, which passes (good[0]), its
		 * old end the failing one, and each step's verdict is turned
		 * around (sched_step_verdict()) */
		char *t = j->spec.bad;

		j->spec.bad = j->spec.good[0];
		j->spec.good[0] = t;
	}
	/* (a releases job has no repository: Debian's archive instead) */
	if (!rc && strcmp(j->spec.type, "releases"))
		rc = repo_get(s, j->spec.repo, &j->repo);
	if (!rc && j->spec.recipe)
		rc = recipe_key(s, j->spec.recipe, j->recipe_key);
	if (!rc && j->spec.failure) {
		if (regcomp(&j->failure, j->spec.failure,
			    REG_EXTENDED | REG_NOSUB))
			rc = err_set(ERR_INPUT, "bad 'failure' expression");
		else
			j->have_failure = 1;
	}
	if (rc) {
		jobc_free(s, j);
		return rc;
	}
	if (++s->made % JOBC_KEEP == 0)
		forget_unused(s);
	j->next = s->jobs;
	if (s->jobs)
		s->jobs->prev = j;
	s->jobs = j;
	j->hnext = *bucket_of(s, id);
	*bucket_of(s, id) = j;
	j->used = ++s->uses;
	*out = j;
	return 0;
}

/*
 * The job as it is kept: revisions resolved to commit ids (the job means
 * what they meant now), the recipe known.  *canon: the spec to store.
 */
static int resolve_spec(struct sched *s, struct job_spec *spec, char **canon)
{
	struct gu_repo *repo = NULL;
	char hex[GU_HEXSZ + 1], key[DIGEST_HEXSZ + 1];
	struct gu_oid oid;
	size_t i;
	int rc = 0;

	*canon = NULL;
	/* (bisectd imports in its fetch queue, before this) */
	if (spec->source && !spec->commit)
		rc = sched_import_source(spec, s->state_dir, 3600, 0);
	if (!rc && !strcmp(spec->type, "releases")) {
		/* releases, which the worker's APT knows of; the tags of
		 * the commit level are looked up once the releases are */
		if (spec->repo)
			rc = sched_open_repo(s, spec->repo, &repo);
		if (!rc && spec->commit_recipe)
			rc = recipe_key(s, spec->commit_recipe, key);
		if (rc)
			goto out;
		goto known;
	}
	if (!rc && !spec->repo)
		rc = err_set(ERR_INPUT, "the job names no repository");
	if (!rc)
		rc = sched_open_repo(s, spec->repo, &repo);
	if (rc)
		goto out;
#define RESOLVE(field)                                                         \
	do {                                                                   \
		if ((rc = gu_resolve(repo, field, &oid)))                      \
			goto out;                                              \
		gu_oid_hex(hex, &oid);                                         \
		free(field);                                                   \
		if (!(field = strdup(hex))) {                                  \
			rc = err_set(ERR_NOMEM, "out of memory");              \
			goto out;                                              \
		}                                                              \
	} while (0)
	if (spec->bad)
		RESOLVE(spec->bad);
	if (spec->commit)
		RESOLVE(spec->commit);
	for (i = 0; i < spec->ngood; i++)
		RESOLVE(spec->good[i]);
#undef RESOLVE
	/* what bisectctl refuses before it starts, so does the API */
	if (!strcmp(spec->type, "bisect") && spec->bad &&
	    (rc = gu_endpoints_check(repo, spec->bad, spec->good, spec->ngood,
				     spec->fix)))
		goto out;
known:
	if (spec->recipe && (rc = recipe_key(s, spec->recipe, key)))
		goto out;
	if (!(*canon = job_spec_dump(spec)))
		rc = err_set(ERR_NOMEM, "out of memory");
out:
	gu_close(repo);
	return rc;
}

/* What only bisectd sets is not taken from a request. */
static int requested(const struct job_spec *spec)
{
	if (spec->releases_job || spec->answers)
		return err_set(ERR_INPUT, "'%s' is set by bisectd only",
			       spec->answers ? "answers" : "releases_job");
	return 0;
}

int sched_submit(struct sched *s, const char *body, size_t len,
		 const struct sched_verdict *known, size_t nknown,
		 const char *owner, long long *id)
{
	struct job_spec spec;
	char *canon = NULL;
	size_t i;
	int rc;

	rc = job_spec_parse(&spec, body, len);
	if (rc)
		return rc;
	rc = requested(&spec);
	if (rc || (rc = resolve_spec(s, &spec, &canon)))
		goto out;
	if ((rc = store_begin(s->store)))
		goto out;
	rc = store_job_insert(s->store, id, spec.type, JOB_QUEUED, canon,
			      spec.callback, owner);
	for (i = 0; i < nknown && !rc; i++) {
		char *res = util_fmt("{\"verdict\":\"%s\",\"title\":\"\","
				     "\"role\":\"replay\"}",
				     known[i].verdict);
		long long sid;

		rc = res ? store_step_insert(s->store, &sid, *id, known[i].hex,
					     "replay", 0, 0, NULL)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = store_step_done(s->store, sid, known[i].verdict,
					     res, 0);
		free(res);
	}
	if (rc) {
		store_rollback(s->store);
		goto out;
	}
	rc = store_commit(s->store);
	if (!rc)
		rc = sched_tick(s, *id);
out:
	free(canon);
	job_spec_release(&spec);
	return rc;
}

int sched_needs_fetch(const char *body, size_t len)
{
	struct job_spec spec;
	int yes;

	if (job_spec_parse(&spec, body, len))
		return 0;
	yes = (spec.repo && strstr(spec.repo, "://")) ||
	      (spec.source && !spec.commit);
	job_spec_release(&spec);
	return yes;
}

char *sched_fetch_key(const char *body, size_t len)
{
	struct job_spec spec;
	char *key = NULL;

	if (job_spec_parse(&spec, body, len))
		return NULL;
	if (spec.repo && strstr(spec.repo, "://"))
		key = strdup(spec.repo);
	else if (spec.source)
		key = util_fmt("source %s", spec.source);
	job_spec_release(&spec);
	return key;
}

int sched_submit_fetching(struct sched *s, const char *body, size_t len,
			  const char *owner, long long *id)
{
	struct job_spec spec;
	char *canon;
	int rc = job_spec_parse(&spec, body, len);

	if (rc)
		return rc;
	if ((rc = requested(&spec))) {
		job_spec_release(&spec);
		return rc;
	}
	canon = job_spec_dump(&spec);
	rc = canon ? store_job_insert(s->store, id, spec.type, JOB_FETCHING,
				      canon, spec.callback, owner)
		   : err_set(ERR_NOMEM, "out of memory");
	free(canon);
	job_spec_release(&spec);
	return rc;
}

int sched_fetched(struct sched *s, long long id, const char *body, size_t len,
		  const char *fetch_error)
{
	struct job_spec spec;
	char *canon = NULL, why[1024];
	int rc;

	if (fetch_error)
		snprintf(why, sizeof(why), "%s", fetch_error);
	else if ((rc = job_spec_parse(&spec, body, len)) == 0) {
		rc = resolve_spec(s, &spec, &canon);
		job_spec_release(&spec);
		if (!rc) {
			rc = store_job_fetched(s->store, id, canon);
			free(canon);
			if (rc == ERR_NOTFOUND)
				return 0; /* cancelled while it was fetched */
			return rc ? rc : sched_tick(s, id);
		}
		snprintf(why, sizeof(why), "%s", err_last());
	} else
		snprintf(why, sizeof(why), "%s", err_last());
	/* no repository, no such revision: the job cannot start */
	rc = store_job_end(s->store, id, JOB_FAILED, "error", NULL, why);
	return rc < 0 ? rc : 0;
}

/* --- planning ------------------------------------------------------------ */

/*
 * What stays the same when a failure repeats in another build: its kind
 * and function, without addresses and offsets (every 0x... number).
 */
static void title_key(char *out, size_t size, const char *title)
{
	size_t k = 0;

	while (*title && k + 1 < size) {
		if (title[0] == '0' && title[1] == 'x') {
			for (title += 2; isxdigit((unsigned char)*title);)
				title++;
			continue;
		}
		out[k++] = *title++;
	}
	out[k] = '\0';
}

/*
 * The target failure of a kernel bisection: the failing endpoint's (the
 * bad commit; a fix's older commit, its range's good end).
 */
void sched_find_target(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	const char *failing = sp->fix ? sp->good[0] : sp->bad;
	size_t i;

	p->target[0] = '\0';
	if (!sp->recipe || p->jc->have_failure || !failing)
		return;
	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		char *t;

		if (st->state != STEP_DONE || strcmp(st->hex, failing) ||
		    strcmp(st->role, "endpoint") || strcmp(st->verdict, "bad"))
			continue;
		t = st->result ? job_json_string(st->result, "title") : NULL;
		if (t && *t)
			title_key(p->target, sizeof(p->target), t);
		free(t);
		if (p->target[0])
			return;
	}
}

/*
 * A step's verdict as the bisection takes it: a failure other than the
 * target (spec.failure, or in kernel mode the bad endpoint's failure) is
 * another bug, evidence of neither (it may hide the target), and counts
 * as a skip.  *other is set for those.
 */
/* 1 when a failure's title is the target failure (or there is none). */
static int is_target(const struct plan *p, const char *title)
{
	char key[256];

	if (p->jc->have_failure)
		return !regexec(&p->jc->failure, title, 0, NULL, 0);
	if (!p->target[0])
		return 1;
	title_key(key, sizeof(key), title);
	return !strcmp(key, p->target);
}

/* At most this many runs of one step are read from its result. */
#define MAX_STEP_RUNS 100

static enum verdict step_verdict(const struct plan *p,
				 const struct store_step *st, int *other)
{
	enum verdict v = verdict_parse(st->verdict);
	struct job_run runs[MAX_STEP_RUNS];
	size_t n, i;
	char *title;
	int match = 0;

	*other = 0;
	if (v != VERDICT_BAD || (!p->jc->have_failure && !p->target[0]) ||
	    !strcmp(st->role, "replay"))
		return v; /* a replayed "bad" is the user's word: the target */
	/* each run has its own title: bad when one of them is the target */
	n = st->result ? job_json_runs(st->result, runs, MAX_STEP_RUNS) : 0;
	for (i = 0; i < n && !match; i++)
		match = !strcmp(runs[i].verdict, "bad") &&
			is_target(p, runs[i].title);
	if (n == 0) {
		title = st->result ? job_json_string(st->result, "title")
				   : NULL;
		match = is_target(p, title ? title : "");
		free(title);
	}
	if (match)
		return v;
	*other = 1;
	return VERDICT_SKIP;
}

/* In a fix bisection, a commit without the failure is a "new" one. */
static enum verdict turned(const struct plan *p, enum verdict v)
{
	if (!p->jc->spec.fix)
		return v;
	return v == VERDICT_GOOD  ? VERDICT_BAD
	       : v == VERDICT_BAD ? VERDICT_GOOD
				  : v;
}

enum verdict sched_step_verdict(const struct plan *p,
				const struct store_step *st, int *other)
{
	return turned(p, step_verdict(p, st, other));
}

/*
 * The runs of a done step: a kernel step's result lists every run, and
 * a run that failed otherwise than the target is neither a failure nor
 * a pass; older results count them (a bad step failed runs_failed of
 * its runs); a command is one run.
 */
static void step_runs(const struct plan *p, const struct store_step *st,
		      enum verdict v, unsigned *fails, unsigned *passes)
{
	struct job_run r[MAX_STEP_RUNS];
	size_t n = st->result ? job_json_runs(st->result, r, MAX_STEP_RUNS) : 0;
	long long runs = st->result ? job_json_int(st->result, "runs", 1) : 1;
	long long failed = v == VERDICT_BAD ? 1 : 0;

	if (n > 0) {
		size_t i;

		*fails = *passes = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(r[i].verdict, "good"))
				(*passes)++;
			else if (!strcmp(r[i].verdict, "bad") &&
				 is_target(p, r[i].title))
				(*fails)++;
		return;
	}
	if (v == VERDICT_BAD && st->result)
		failed = job_json_int(st->result, "runs_failed", 1);
	if (runs < 1 || failed < 0 || failed > runs)
		runs = 1, failed = v == VERDICT_BAD;
	*fails = (unsigned)failed;
	*passes = (unsigned)(runs - failed);
}

void sched_step_runs(const struct plan *p, const struct store_step *st,
		     enum verdict v, unsigned *fails, unsigned *passes)
{
	/* v as the bisection takes it: a fix's runs are turned around */
	step_runs(p, st, turned(p, v), p->jc->spec.fix ? passes : fails,
		  p->jc->spec.fix ? fails : passes);
}

/*
 * The culprit's checks (verification): "revert" runs the bad commit with
 * the culprit reverted, "noop" builds a parent to compare its image with
 * the culprit's.  Their steps name a commit but are not evidence about
 * it: the engine and the cache never see them.
 */
int sched_check_role(const char *role)
{
	return !strcmp(role, "revert") || !strcmp(role, "noop");
}

/*
 * What the steps on hex say: those of the bisection (role NULL) or of one
 * of the checks.
 */
void sched_role_status(const struct plan *p, const char *hex, const char *role,
		       struct cstat *cs)
{
	size_t i;

	memset(cs, 0, sizeof(*cs));
	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		enum verdict v;
		int other;

		if (strcmp(st->hex, hex) || (role ? strcmp(st->role, role) != 0
						  : sched_check_role(st->role)))
			continue;
		if (st->state == STEP_QUEUED || st->state == STEP_LEASED) {
			cs->pending++;
			continue;
		}
		if (st->state != STEP_DONE)
			continue;
		v = sched_step_verdict(p, st, &other);
		cs->other |= other;
		if (v == VERDICT_INFRA) {
			char *t = st->result
					  ? job_json_string(st->result, "title")
					  : NULL;

			cs->infra++;
			cs->abort |= st->result &&
				     job_json_true(st->result, "abort");
			snprintf(cs->title, sizeof(cs->title), "%s",
				 t ? t : "");
			free(t);
		} else if (v != VERDICT_NONE) {
			char *t = st->result
					  ? job_json_string(st->result, "title")
					  : NULL;
			unsigned f = 0, ps = 0;

			if (v == VERDICT_GOOD || v == VERDICT_BAD)
				sched_step_runs(p, st, v, &f, &ps);
			cs->fails += f;
			cs->passes += ps;
			cs->verdict = v;
			snprintf(cs->why, sizeof(cs->why), "%s%s",
				 t && *t ? ": " : "", t ? t : "");
			free(t);
		}
	}
}

void sched_commit_status(const struct plan *p, const char *hex,
			 struct cstat *cs)
{
	sched_role_status(p, hex, NULL, cs);
}

int sched_end_job(struct plan *p, int state, const char *result,
		  const char *culprit, const char *reason)
{
	int rc = store_job_end(p->s->store, p->jc->id, state, result, culprit,
			       reason);

	if (rc < 0)
		return rc;
	p->ended = 1;
	return store_job_cancel_steps(p->s->store, p->jc->id);
}

int sched_end_failed(struct plan *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sched_end_job(p, JOB_FAILED, "error", NULL, msg);
}

/* The job cannot go on for want of a verdict: the machine failed. */
int sched_end_infra(struct plan *p, const char *hex, const struct cstat *cs)
{
	char msg[1024];

	if (cs->abort)
		snprintf(msg, sizeof(msg), "%.12s: %s", hex, cs->title);
	else
		snprintf(msg, sizeof(msg),
			 "infrastructure failure testing %.12s twice%s%s", hex,
			 cs->title[0] ? ": " : "", cs->title);
	return sched_end_job(p, JOB_FAILED, "infra", NULL, msg);
}

/*
 * The result cache's key.  A kernel is a function of its tree, recipe and
 * test, so a kernel step's result serves any commit with the same tree.
 * A command may look at the commit itself (BISECT_COMMIT, git log), as
 * git bisect run lets it: its results are keyed by the commit.
 */
int sched_cache_key(struct plan *p, const char *hex, char *out)
{
	const struct job_spec *sp = &p->jc->spec;
	char tree[GU_HEXSZ + 1];
	struct gu_oid oid;
	char *text;
	int rc;

	if (!strcmp(sp->type, "releases")) {
		/* not cached: Debian's archive changes under the same words */
		*out = '\0';
		return 0;
	}
	if (sp->command)
		snprintf(tree, sizeof(tree), "%s", hex);
	else if ((rc = gu_oid_parse(&oid, hex)) ||
		 (rc = gu_tree_hex(p->jc->repo, &oid, tree)))
		return rc;
	/* not the runs: what is kept is every run, and they add up; the
	 * submitter's: a verdict made in one submitter's build directory
	 * (which its earlier builds may have spoiled) is never another's */
	/* (another config: a key of its own; keys without one as before) */
	text = util_fmt(
		"bisectd-step-4\ntenant %s\n%s\n%s\n%s\n%s\n%s\n%s%s%s%s",
		p->jc->tenant, sp->command ? "command" : "kernel", tree,
		p->jc->recipe_key, sp->command ? sp->command : "",
		sp->test ? sp->test : "",
		sp->base_release ? "base_release " : "",
		sp->base_release ? sp->base_release : "",
		sp->base_release ? "-" : "",
		sp->base_release ? sp->flavour : "");
	if (!text)
		return err_set(ERR_NOMEM, "out of memory");
	if (sp->npatches) {
		/* the tree that is built is the patched one */
		struct digest *d = digest_new();
		size_t i;

		if (!d) {
			free(text);
			return err_set(ERR_NOMEM, "out of memory");
		}
		digest_update(d, text, strlen(text));
		for (i = 0; i < sp->npatches; i++) {
			digest_update(d, "\napply\n", 7);
			digest_update(d, sp->patch_texts[i],
				      strlen(sp->patch_texts[i]));
		}
		digest_finish(d, out);
	} else {
		digest_sha256_hex(out, text, strlen(text));
	}
	free(text);
	return 0;
}

/* Append a step to the plan's copy, so that later decisions see it. */
int sched_remember(struct plan *p, long long id)
{
	struct store_step *n =
		realloc(p->steps, (p->nsteps + 1) * sizeof(*p->steps));

	if (!n)
		return err_set(ERR_NOMEM, "out of memory");
	p->steps = n;
	return store_step_get(p->s->store, id, &p->steps[p->nsteps++]);
}

/*
 * Queue a step for hex, or answer it from the cache.  Returns the cached
 * verdict (> 0), 0 when queued, < 0 on error.
 */
int sched_enqueue(struct plan *p, const char *hex, const char *role,
		  long long candidates)
{
	char key[DIGEST_HEXSZ + 1], verdict[8], *result = NULL;
	struct cstat cs;
	long long id;
	int rc;

	if ((rc = sched_cache_key(p, hex, key)))
		return rc;
	/* a commit run again in this job wants a new run, not the cache's */
	sched_commit_status(p, hex, &cs);
	rc = cs.verdict == VERDICT_NONE
		     ? store_cache_get(p->s->store, key, verdict, &result)
		     : ERR_NOTFOUND;
	if (rc && rc != ERR_NOTFOUND)
		return rc;
	if (result) {
		/* fewer runs than this job asks for: run it, and add them */
		int n = step_result_runs(result);

		if (n > 0 && n < p->jc->spec.runs) {
			free(result);
			result = NULL;
		}
	}
	rc = store_step_insert(p->s->store, &id, p->jc->id, hex, role, p->round,
			       candidates, key);
	if (!rc && result)
		rc = store_step_done(p->s->store, id, verdict, result, 1);
	free(result);
	if (!rc)
		rc = sched_remember(p, id);
	if (rc)
		return rc;
	if (!p->steps[p->nsteps - 1].verdict[0]) {
		p->active++;
		return 0;
	}
	return (int)turned(p, verdict_parse(verdict));
}

/*
 * The verdict on hex for a check, queueing a step when there is none and
 * a slot is free.  VERDICT_NONE while waiting; < 0 when the job ended.
 */
int sched_need(struct plan *p, const char *hex, const char *role)
{
	struct cstat cs;

	sched_commit_status(p, hex, &cs);
	if (cs.verdict != VERDICT_NONE)
		return cs.verdict;
	if (cs.infra >= 2 || cs.abort) {
		sched_end_infra(p, hex, &cs);
		return -1;
	}
	if (cs.pending || p->active >= p->slots)
		return VERDICT_NONE;
	return sched_enqueue(p, hex, role, 0);
}

/* ": title" of the verdict on hex, for messages. */
const char *sched_why_of(struct plan *p, const char *hex)
{
	struct cstat cs;

	sched_commit_status(p, hex, &cs);
	memcpy(p->why, cs.why, sizeof(p->why));
	return p->why;
}

/* A test or build job: one step, whose verdict ends the job. */
static int plan_test(struct plan *p)
{
	int build = !strcmp(p->jc->spec.type, "build");
	int v = sched_need(p, p->jc->spec.commit, build ? "build" : "test");
	const char *result, *why;

	if (v <= 0)
		return v < 0 && !p->ended ? v : 0;
	result = verdict_name((enum verdict)v);
	if (build && v == VERDICT_SKIP) {
		/* the patched tree did not build or package */
		why = sched_why_of(p, p->jc->spec.commit);
		return sched_end_job(p, JOB_FAILED, "build failed", NULL,
				     *why ? why + 2
					  : "the patched tree did not "
					    "build") < 0
			       ? ERR_INFRA
			       : 0;
	}
	if (build) /* good: built and booted; bad: the boot failed */
		result = v == VERDICT_GOOD ? "built" : "boot failed";
	return sched_end_job(p, JOB_DONE, result, NULL, NULL) < 0 ? ERR_INFRA
								  : 0;
}

static void live_release(struct livec *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(l[i].text);
		job_caps_release(&l[i].caps);
	}
	free(l);
}

struct live_read {
	struct livec *l;
	size_t n, alloc;
	int failed;
};

static int read_live(long long id, const char *caps, void *payload)
{
	struct live_read *r = payload;
	struct livec *c;

	if (!caps)
		return 0;
	if (r->n == r->alloc) {
		size_t alloc = r->alloc ? r->alloc * 2 : 64;
		struct livec *l = realloc(r->l, alloc * sizeof(*l));

		if (!l)
			return r->failed = 1;
		r->l = l;
		r->alloc = alloc;
	}
	c = &r->l[r->n];
	if (job_caps_parse(&c->caps, caps, strlen(caps)))
		return 0; /* a row that is no longer valid: not live */
	if (!(c->text = strdup(caps))) {
		job_caps_release(&c->caps);
		return r->failed = 1;
	}
	c->id = id;
	r->n++;
	return 0;
}

int sched_by_id(const void *a, const void *b)
{
	const struct livec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Read the live workers again when due; live_gen changes with the set. */
void sched_refresh_live(struct sched *s)
{
	struct live_read r = { 0 };
	double now = util_now();
	size_t i;
	int same;

	if (!s->live_stale && s->live && now - s->live_at < LIVE_REFRESH_S)
		return;
	if (store_workers_live(s->store, store_time() - s->o.live_window,
			       read_live, &r) ||
	    r.failed) {
		live_release(r.l, r.n);
		return; /* the set read before stays */
	}
	qsort(r.l, r.n, sizeof(*r.l), sched_by_id);
	same = s->live && r.n == s->nlive;
	for (i = 0; same && i < r.n; i++)
		same = r.l[i].id == s->live[i].id &&
		       !strcmp(r.l[i].text, s->live[i].text);
	live_release(s->live, s->nlive);
	if (!r.l)
		r.l = calloc(1, sizeof(*r.l)); /* none live: still read */
	s->live = r.l;
	s->nlive = r.l ? r.n : 0;
	s->live_at = now;
	s->live_stale = 0;
	if (!same)
		s->live_gen++;
}

static int job_slots(struct sched *s, struct jobc *jc)
{
	const struct job_spec *spec = &jc->spec;
	int n = s->o.workers;
	size_t i;

	if (n <= 0) {
		sched_refresh_live(s);
		if (jc->slots_gen != s->live_gen || !jc->slots) {
			for (i = 0, n = 0; i < s->nlive; i++)
				n += job_caps_accept(&s->live[i].caps, spec);
			jc->slots = n > 0 ? n : 1;
			jc->slots_gen = s->live_gen;
		}
		n = jc->slots;
	}
	if (spec->max_workers > 0 && n > spec->max_workers)
		n = spec->max_workers;
	return n > 0 ? n : 1;
}

int sched_tick(struct sched *s, long long id)
{
	struct store_job job;
	struct plan p = { .s = s };
	size_t i;
	int rc;

	rc = store_job_get(s->store, id, &job);
	if (rc)
		return rc;
	if (job.state != JOB_QUEUED && job.state != JOB_RUNNING) {
		store_job_release(&job);
		drop_jobc(s, id);
		return 0;
	}
	rc = sched_get_jobc(s, id, job.spec, job.owner, &p.jc);
	if (rc) {
		/* the repository or recipe went away: the job cannot go on */
		char why[1024];

		snprintf(why, sizeof(why), "%s", err_last());
		store_job_release(&job);
		store_job_end(s->store, id, JOB_FAILED, "error", NULL, why);
		return 0;
	}
	p.owner = job.owner ? strdup(job.owner) : NULL;
	rc = job.owner && !p.owner ? err_set(ERR_NOMEM, "out of memory") : 0;
	store_job_release(&job);
	if (rc || (rc = store_begin(s->store))) {
		free(p.owner);
		return rc;
	}
	rc = store_job_start(s->store, id);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &p.steps, &p.nsteps);
	if (rc) {
		store_rollback(s->store);
		free(p.owner);
		return rc;
	}
	p.slots = job_slots(s, p.jc);
	for (i = 0; i < p.nsteps; i++) {
		if (p.steps[i].state == STEP_QUEUED ||
		    p.steps[i].state == STEP_LEASED)
			p.active++;
		if (p.steps[i].state == STEP_DONE &&
		    p.steps[i].round >= p.round)
			p.round = p.steps[i].round;
	}
	p.round++;
	rc = !strcmp(p.jc->spec.type, "bisect")	    ? sched_plan_bisect(&p)
	     : !strcmp(p.jc->spec.type, "releases") ? sched_plan_releases(&p)
						    : plan_test(&p);
	store_steps_release(p.steps, p.nsteps);
	free(p.owner);
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	rc = store_commit(s->store);
	if (p.ended)
		drop_jobc(s, id);
	if (!rc && p.follow_up)
		rc = sched_tick(s, p.follow_up);
	return rc;
}

int sched_tick_all(struct sched *s)
{
	long long *ids = NULL;
	size_t n = 0, i;
	int rc, state;

	rc = store_expire_leases(s->store, store_time(), s->o.max_attempts,
				 &ids, &n);
	free(ids);
	if (rc)
		return rc;
	for (state = JOB_QUEUED; state <= JOB_RUNNING; state++) {
		rc = store_job_ids(s->store, state, &ids, &n);
		if (rc)
			return rc;
		for (i = 0; i < n; i++)
			if (sched_tick(s, ids[i]) == ERR_NOMEM)
				rc = ERR_NOMEM;
		free(ids);
		if (rc)
			return rc;
	}
	return 0;
}

int sched_tick_due(struct sched *s)
{
	long long *ids = NULL;
	size_t n = 0, i;
	struct jobc *j;
	int rc;

	rc = store_expire_leases(s->store, store_time(), s->o.max_attempts,
				 &ids, &n);
	for (i = 0; i < n && !rc; i++)
		if (sched_tick(s, ids[i]) == ERR_NOMEM)
			rc = ERR_NOMEM;
	free(ids);
	if (rc)
		return rc;
	sched_refresh_live(s);
	if (s->ticked_gen == s->live_gen)
		return 0;
	/* workers came or went: parallel bisections may take more probes,
	 * or must wait for fewer */
	for (n = 0, j = s->jobs; j; j = j->next)
		n += !strcmp(j->spec.type, "bisect");
	if (n && !(ids = calloc(n, sizeof(*ids))))
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0, j = s->jobs; j; j = j->next)
		if (!strcmp(j->spec.type, "bisect"))
			ids[i++] = j->id;
	for (i = 0; i < n && !rc; i++)
		if (sched_tick(s, ids[i]) == ERR_NOMEM)
			rc = ERR_NOMEM;
	free(ids);
	if (!rc)
		s->ticked_gen = s->live_gen;
	return rc;
}

int sched_cancel(struct sched *s, long long id)
{
	struct store_job job;
	int rc = store_job_get(s->store, id, &job);

	if (rc)
		return rc;
	store_job_release(&job);
	if ((rc = store_begin(s->store)))
		return rc;
	rc = store_job_end(s->store, id, JOB_CANCELLED, "cancelled", NULL,
			   "cancelled by request");
	if (rc == 1)
		rc = store_job_cancel_steps(s->store, id);
	else if (rc == 0)
		rc = err_set(ERR_INPUT, "job %lld has already ended", id);
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	drop_jobc(s, id);
	return store_commit(s->store);
}

int sched_bisect_log(struct sched *s, long long id, struct buf *out)
{
	struct store_job job;
	struct store_step *steps = NULL;
	struct job_spec spec;
	struct gu_repo *repo = NULL;
	size_t n = 0, i;
	int rc;

	rc = store_job_get(s->store, id, &job);
	if (rc)
		return rc;
	rc = job_spec_parse(&spec, job.spec, strlen(job.spec));
	if (!rc && strcmp(spec.type, "bisect"))
		rc = err_set(ERR_NOTFOUND, "job %lld is not a bisection", id);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &steps, &n);
	if (!rc)
		sched_open_repo(s, spec.repo,
				&repo); /* subjects are optional */
#define LOGLINE(verb, hex)                                                     \
	do {                                                                   \
		struct gu_commit c;                                            \
		struct gu_oid o;                                               \
		int known = repo && !gu_oid_parse(&o, hex) &&                  \
			    !gu_commit_head(&c, repo, &o);                     \
		buf_printf(out, "# %s: [%s] ", verb, hex);                     \
		if (known) /* a subject's control characters escaped */        \
			buf_put_shown(out, c.subject, 0);                      \
		buf_printf(out, "\ngit bisect %s %s\n", verb, hex);            \
		if (known)                                                     \
			gu_commit_release(&c);                                 \
	} while (0)
	if (!rc) {
		/* the verdicts as the bisection took them: another failure
		 * than the target was a skip */
		struct jobc tmp = { .spec = spec };
		struct plan p = {
			.s = s, .jc = &tmp, .steps = steps, .nsteps = n
		};
		/* a fix's log in git's terms for one: a commit without the
		 * failure is "fixed", one with it "broken" */
		const char *new_term = spec.fix ? "fixed" : "bad",
			   *old_term = spec.fix ? "broken" : "good";

		tmp.have_failure =
			spec.failure && !regcomp(&tmp.failure, spec.failure,
						 REG_EXTENDED | REG_NOSUB);
		sched_find_target(&p);
		/* (quoted as git bisect log quotes them: replay reads
		 * them so) */
		buf_puts(out, spec.fix ? "git bisect start '--term-old=broken' "
					 "'--term-new=fixed'\n"
				       : "git bisect start\n");
		LOGLINE(spec.fix ? old_term : new_term, spec.bad);
		for (i = 0; i < spec.ngood; i++)
			LOGLINE(spec.fix ? new_term : old_term, spec.good[i]);
		for (i = 0; i < n; i++) {
			int other;
			const char *v = verdict_name(
				sched_step_verdict(&p, &steps[i], &other));

			if (steps[i].state != STEP_DONE ||
			    (strcmp(v, "good") && strcmp(v, "bad") &&
			     strcmp(v, "skip")))
				continue;
			if (!strcmp(steps[i].role, "endpoint") ||
			    sched_check_role(steps[i].role))
				continue; /* given, or not about the commit */
			LOGLINE(!strcmp(v, "bad")    ? new_term
				: !strcmp(v, "good") ? old_term
						     : v,
				steps[i].hex);
		}
		if (tmp.have_failure)
			regfree(&tmp.failure);
		if (job.culprit) {
			struct gu_commit c;
			struct gu_oid o;
			int known = repo && !gu_oid_parse(&o, job.culprit) &&
				    !gu_commit_head(&c, repo, &o);

			buf_printf(out, "# first %s commit: [%s] ",
				   spec.fix ? "fixed" : "bad", job.culprit);
			if (known) {
				buf_put_shown(out, c.subject, 0);
				gu_commit_release(&c);
			}
			buf_puts(out, "\n");
		}
	}
#undef LOGLINE
	gu_close(repo);
	store_steps_release(steps, n);
	job_spec_release(&spec);
	store_job_release(&job);
	return rc;
}

int sched_progress(struct sched *s, long long id, size_t *initial, size_t *left)
{
	struct jobc *jc = sched_find_jobc(s, id);
	struct plan p = { .s = s, .jc = jc };
	struct store_job job;
	struct engine *e;
	int rc;

	*initial = *left = 0;
	if ((rc = store_job_get(s->store, id, &job)))
		return rc;
	*initial = (size_t)job.candidates;
	store_job_release(&job);
	if (!jc || !jc->have_graph)
		return 0;
	rc = store_steps_of_job(s->store, id, &p.steps, &p.nsteps);
	if (rc)
		return rc;
	sched_find_target(&p);
	e = sched_make_engine(&p);
	if (e)
		*left = engine_candidate_count(e);
	engine_free(e);
	store_steps_release(p.steps, p.nsteps);
	return e ? 0 : ERR_NOMEM;
}

int sched_idle(struct sched *s)
{
	long long *ids;
	size_t n = 0, m = 0;

	if (store_job_ids(s->store, JOB_QUEUED, &ids, &n))
		return 0;
	free(ids);
	if (store_job_ids(s->store, JOB_RUNNING, &ids, &m))
		return 0;
	free(ids);
	return n + m == 0;
}
