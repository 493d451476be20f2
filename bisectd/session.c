/*
 * The bisection session.
 *
 * Design.  A session goes through these phases, each of which may stop it:
 *
 *   replay      verdicts from a bisect log given to resume from
 *   merge base  a good commit that is not an ancestor of bad: its merge
 *               base with bad is tested first, as git does; a bad merge
 *               base stops the session (the bug was fixed, not introduced)
 *   endpoints   (kernel mode) bad must fail and every good must pass
 *   bisect      engine_next() -> test -> engine_mark(), until the engine
 *               names the first bad commit or only skipped ones remain
 *
 * After every verdict the bisect log is rewritten (atomically) in
 * out_dir, so that a session stopped at any point can be resumed from it,
 * and `git bisect replay` accepts it.  A step whose verdict is infra is
 * retried once; a second infra verdict stops the session: a verdict is
 * never guessed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "session.h"
#include "util.h"

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->log, 16u << 20);
}

void session_release(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++)
		session_step_release(&s->steps[i]);
	free(s->steps);
	free(s->candidates);
	free(s->stop_reason);
	engine_free(s->engine);
	gu_graph_release(&s->graph);
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

static int stop(struct session *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int stop(struct session *s, int code, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	free(s->stop_reason);
	s->stop_reason = strdup(msg);
	return err_set(code, "%s", msg);
}

static void subject_of(struct session *s, const struct gu_oid *oid, char *out,
		       size_t size)
{
	struct gu_commit c;

	out[0] = '\0';
	if (gu_commit_info(&c, s->repo, oid))
		return;
	snprintf(out, size, "%s", c.subject);
	gu_commit_release(&c);
}

/* Append "# good: [sha] subject" and "git bisect good sha" to the log. */
static int log_verdict(struct session *s, const struct gu_oid *oid,
		       enum verdict v)
{
	char hex[GU_HEXSZ + 1], subj[512];
	const char *name = verdict_name(v);
	int rc;

	gu_oid_hex(hex, oid);
	subject_of(s, oid, subj, sizeof(subj));
	rc = buf_printf(&s->log, "# %s: [%s] %s\ngit bisect %s %s\n", name, hex,
			subj, name, hex);
	return rc;
}

static int save_log(struct session *s)
{
	char *path;
	int rc;

	if (!s->out_dir)
		return 0;
	path = util_fmt("%s/bisect.log", s->out_dir);
	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	rc = util_write_atomic(path, s->log.ptr, s->log.len);
	free(path);
	return rc;
}

static struct session_step *new_step(struct session *s)
{
	struct session_step *st;

	if (s->nsteps == s->cap_steps) {
		size_t cap = s->cap_steps ? s->cap_steps * 2 : 32;

		st = realloc(s->steps, cap * sizeof(*st));
		if (!st)
			return NULL;
		s->steps = st;
		s->cap_steps = cap;
	}
	st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	return st;
}

static void progress(struct session *s, const struct session_step *st)
{
	size_t done = session_bisect_steps(s);
	size_t left = s->engine ? engine_candidate_count(s->engine) : 0;
	unsigned more = left ? engine_estimate_steps(left) : 0;

	if (!s->progress)
		return;
	if (!strcmp(st->role, "bisect"))
		fprintf(s->progress, "step %zu of about %zu", done,
			done + more);
	else
		fprintf(s->progress, "%s check", st->role);
	fprintf(s->progress, ": %.12s %s", st->hex, verdict_name(st->verdict));
	if (st->title && *st->title)
		fprintf(s->progress, " (%s)", st->title);
	if (st->build_s > 0 || st->boot_s > 0)
		fprintf(s->progress,
			" [checkout %.1f s, build %.1f s, boot %.1f s]",
			st->checkout_s, st->build_s, st->boot_s);
	else
		fprintf(s->progress, " [%.1f s]", st->seconds);
	if (!strcmp(st->role, "bisect"))
		fprintf(s->progress, ", %zu candidate%s left", left,
			left == 1 ? "" : "s");
	fputc('\n', s->progress);
	if (st->config_notes && *st->config_notes)
		fprintf(s->progress, "%s", st->config_notes);
	fflush(s->progress);
}

/*
 * Test commit, retrying once on an infra verdict; the step is appended to
 * s->steps.  Returns the verdict through *out.
 */
static int test_commit(struct session *s, const struct gu_oid *commit,
		       const char *role, enum verdict *out)
{
	struct session_step *st;
	int attempt, rc;

	for (attempt = 0; attempt < 2; attempt++) {
		double t0 = util_now();

		st = new_step(s);
		if (!st)
			return err_set(ERR_NOMEM, "out of memory");
		gu_oid_hex(st->hex, commit);
		st->role = role;
		st->candidates =
			s->engine ? engine_candidate_count(s->engine) : 0;
		rc = s->test(st, commit, s->payload);
		st->seconds = util_now() - t0;
		if (!st->title)
			st->title = strdup("");
		if (!st->excerpt)
			st->excerpt = strdup("");
		if (rc) {
			st->verdict = VERDICT_INFRA;
			return stop(s, rc, "cannot test %.12s: %s", st->hex,
				    err_last());
		}
		if (st->verdict != VERDICT_INFRA)
			break;
		progress(s, st);
	}
	if (st->verdict == VERDICT_INFRA)
		return stop(s, ERR_INFRA,
			    "infrastructure failure testing %.12s twice: %s",
			    st->hex, st->title);
	*out = st->verdict;
	return 0;
}

struct replayed {
	struct gu_oid oid;
	enum verdict v;
};

/* Parse "git bisect good|bad|skip <rev>" lines of the log to resume. */
static int read_replay(struct session *s, struct replayed **out, size_t *n)
{
	struct buf text;
	const char *p;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	buf_init(&text, 16u << 20);
	rc = buf_read_file(&text, s->replay);
	if (rc) {
		buf_release(&text);
		return err_wrap(ERR_INPUT, "cannot read bisect log");
	}
	for (p = buf_str(&text); *p; p += strcspn(p, "\n"), p += !!*p) {
		char verb[16], rev[256];
		enum verdict v;

		if (sscanf(p, "git bisect %15s %255s", verb, rev) != 2)
			continue;
		v = verdict_parse(verb);
		if (v != VERDICT_GOOD && v != VERDICT_BAD && v != VERDICT_SKIP)
			continue;
		if (*n == cap) {
			struct replayed *r;

			cap = cap ? cap * 2 : 64;
			r = realloc(*out, cap * sizeof(*r));
			if (!r) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			*out = r;
		}
		rc = gu_resolve(s->repo, rev, &(*out)[*n].oid);
		if (rc) {
			rc = err_wrap(ERR_INPUT, "bisect log '%s'", s->replay);
			break;
		}
		(*out)[(*n)++].v = v;
	}
	buf_release(&text);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

static int add_good(struct session *s, const struct gu_oid *oid)
{
	struct gu_oid *g = realloc(s->goods, (s->ngoods + 1) * sizeof(*g));

	if (!g)
		return err_set(ERR_NOMEM, "out of memory");
	s->goods = g;
	s->goods[s->ngoods++] = *oid;
	return 0;
}

static int has_verdict(const struct replayed *r, size_t n,
		       const struct gu_oid *oid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (gu_oid_equal(&r[i].oid, oid))
			return 1;
	return 0;
}

/* Goods that are not ancestors of bad: test their merge bases. */
static int check_merge_bases(struct session *s, const struct replayed *rp,
			     size_t nrp)
{
	size_t i, n = s->ngoods;
	char ghex[GU_HEXSZ + 1], bhex[GU_HEXSZ + 1], mhex[GU_HEXSZ + 1];
	int rc;

	gu_oid_hex(bhex, &s->bad);
	for (i = 0; i < n; i++) {
		struct gu_oid mb;
		enum verdict v;

		rc = gu_is_ancestor(s->repo, &s->goods[i], &s->bad);
		if (rc < 0)
			return rc;
		if (rc == 1)
			continue;
		gu_oid_hex(ghex, &s->goods[i]);
		if (gu_oid_equal(&s->goods[i], &s->bad))
			return stop(s, ERR_INPUT,
				    "good and bad are the same commit %.12s",
				    ghex);
		rc = gu_merge_base(s->repo, &s->goods[i], &s->bad, &mb);
		if (rc == ERR_NOTFOUND)
			return stop(s, ERR_INPUT,
				    "good commit %.12s shares no history with "
				    "bad commit %.12s",
				    ghex, bhex);
		if (rc)
			return rc;
		gu_oid_hex(mhex, &mb);
		if (gu_oid_equal(&mb, &s->bad))
			return stop(s, ERR_INPUT,
				    "bad commit %.12s is an ancestor of good "
				    "commit %.12s: did you swap good and bad?",
				    bhex, ghex);
		if (has_verdict(rp, nrp, &mb))
			continue;
		if (s->progress)
			fprintf(s->progress,
				"good commit %.12s is not an ancestor of bad "
				"commit %.12s; testing their merge base %.12s "
				"first\n",
				ghex, bhex, mhex);
		rc = test_commit(s, &mb, "merge-base", &v);
		if (rc)
			return rc;
		progress(s, &s->steps[s->nsteps - 1]);
		if (v == VERDICT_BAD)
			return stop(s, ERR_INPUT,
				    "the merge base %.12s is bad: the "
				    "regression was fixed between %.12s and "
				    "%.12s, not introduced",
				    mhex, mhex, ghex);
		if (v == VERDICT_GOOD) {
			rc = add_good(s, &mb);
			if (!rc)
				rc = log_verdict(s, &mb, VERDICT_GOOD);
			if (rc)
				return rc;
		} else if (s->progress) {
			fprintf(s->progress,
				"warning: merge base %.12s was skipped; the "
				"first bad commit may be between it and "
				"%.12s\n",
				mhex, ghex);
		}
	}
	return 0;
}

/* Test an endpoint that the user says is want; stop if it is not. */
static int check_endpoint(struct session *s, const struct gu_oid *oid,
			  enum verdict want)
{
	char hex[GU_HEXSZ + 1];
	const char *title;
	enum verdict v;
	int rc;

	rc = test_commit(s, oid, "endpoint", &v);
	if (rc)
		return rc;
	progress(s, &s->steps[s->nsteps - 1]);
	if (v == want)
		return 0;
	gu_oid_hex(hex, oid);
	title = s->steps[s->nsteps - 1].title;
	return stop(s, ERR_INPUT, "the %s commit %.12s %s (verdict %s%s%s)",
		    verdict_name(want), hex,
		    want == VERDICT_BAD ? "does not fail: nothing to bisect"
					: "does not pass",
		    verdict_name(v), *title ? ": " : "", title);
}

static int check_endpoints(struct session *s, const struct replayed *rp,
			   size_t nrp)
{
	size_t i;
	int rc;

	if (!has_verdict(rp, nrp, &s->bad) &&
	    (rc = check_endpoint(s, &s->bad, VERDICT_BAD)))
		return rc;
	for (i = 0; i < s->ngoods; i++)
		if (!has_verdict(rp, nrp, &s->goods[i]) &&
		    (rc = check_endpoint(s, &s->goods[i], VERDICT_GOOD)))
			return rc;
	return 0;
}

static int build_engine(struct session *s)
{
	long bad;
	size_t i;
	int rc;

	rc = gu_graph_load(&s->graph, s->repo, &s->bad, s->goods, s->ngoods);
	if (rc)
		return rc;
	if (s->graph.n == 0)
		return stop(s, ERR_INPUT,
			    "the bad commit is reachable from a good commit: "
			    "nothing to bisect");
	rc = engine_new(&s->engine, s->graph.n);
	for (i = 0; i < s->graph.nedges && !rc; i++)
		rc = engine_add_parent(s->engine, s->graph.edge_child[i],
				       s->graph.edge_parent[i]);
	if (rc)
		return rc;
	bad = gu_graph_find(&s->graph, &s->bad);
	if (bad < 0)
		return err_set(ERR_GENERIC, "bad commit missing from graph");
	engine_mark(s->engine, (uint32_t)bad, VERDICT_BAD);
	s->initial_candidates = engine_candidate_count(s->engine);
	return 0;
}

/* Apply verdicts to the engine (commits outside the graph are moot). */
static void apply(struct session *s, const struct gu_oid *oid, enum verdict v)
{
	long idx = gu_graph_find(&s->graph, oid);

	if (idx >= 0)
		engine_mark(s->engine, (uint32_t)idx, v);
}

/* The log's own start: the bad commit and the good ones it began with. */
static int is_start_commit(const struct session *s, const struct replayed *r)
{
	size_t i;

	if (r->v == VERDICT_BAD)
		return gu_oid_equal(&r->oid, &s->bad);
	for (i = 0; r->v == VERDICT_GOOD && i < s->ngoods; i++)
		if (gu_oid_equal(&r->oid, &s->goods[i]))
			return 1;
	return 0;
}

static int replay_into(struct session *s, const struct replayed *rp, size_t nrp)
{
	size_t i;
	int rc;

	for (i = 0; i < nrp; i++) {
		struct session_step *st;

		if (is_start_commit(s, &rp[i]))
			continue;
		st = new_step(s);
		if (!st)
			return err_set(ERR_NOMEM, "out of memory");
		gu_oid_hex(st->hex, &rp[i].oid);
		st->verdict = rp[i].v;
		st->role = "replay";
		st->title = strdup("");
		st->excerpt = strdup("");
		apply(s, &rp[i].oid, rp[i].v);
		rc = log_verdict(s, &rp[i].oid, rp[i].v);
		if (rc)
			return rc;
	}
	return 0;
}

static int finish(struct session *s, uint32_t found)
{
	char hex[GU_HEXSZ + 1], subj[512];
	uint32_t *idx;
	size_t i, n;

	if (s->state == ENGINE_FOUND) {
		s->first_bad = s->graph.oids[found];
		gu_oid_hex(hex, &s->first_bad);
		subject_of(s, &s->first_bad, subj, sizeof(subj));
		buf_printf(&s->log, "# first bad commit: [%s] %s\n", hex, subj);
		return save_log(s);
	}
	n = engine_candidate_count(s->engine);
	idx = calloc(n ? n : 1, sizeof(*idx));
	s->candidates = calloc(n ? n : 1, sizeof(*s->candidates));
	if (!idx || !s->candidates) {
		free(idx);
		return err_set(ERR_NOMEM, "out of memory");
	}
	s->ncandidates = engine_candidates(s->engine, idx, n);
	buf_puts(&s->log, "# only skipped commits left to test\n");
	for (i = 0; i < s->ncandidates; i++) {
		s->candidates[i] = s->graph.oids[idx[i]];
		gu_oid_hex(hex, &s->candidates[i]);
		subject_of(s, &s->candidates[i], subj, sizeof(subj));
		buf_printf(&s->log, "# possible first bad commit: [%s] %s\n",
			   hex, subj);
	}
	free(idx);
	return save_log(s);
}

int session_run(struct session *s)
{
	struct replayed *rp = NULL;
	size_t nrp = 0, i;
	uint32_t pick = 0;
	int rc;

	if (s->replay && (rc = read_replay(s, &rp, &nrp)))
		return rc;
	for (i = 0; i < nrp && !s->have_bad; i++)
		if (rp[i].v == VERDICT_BAD) {
			s->bad = rp[i].oid;
			s->have_bad = 1;
		}
	for (i = 0; i < nrp && !s->ngoods; i++)
		if (rp[i].v == VERDICT_GOOD && (rc = add_good(s, &rp[i].oid)))
			goto out;
	if (!s->have_bad || !s->ngoods) {
		rc = stop(s, ERR_INPUT, "need a bad commit and a good one");
		goto out;
	}
	buf_puts(&s->log, "git bisect start\n");
	if ((rc = log_verdict(s, &s->bad, VERDICT_BAD)))
		goto out;
	for (i = 0; i < s->ngoods; i++)
		if ((rc = log_verdict(s, &s->goods[i], VERDICT_GOOD)))
			goto out;
	if ((rc = save_log(s)) || (rc = check_merge_bases(s, rp, nrp)))
		goto out;
	if (s->check_endpoints && (rc = check_endpoints(s, rp, nrp)))
		goto out;
	if ((rc = build_engine(s)) || (rc = replay_into(s, rp, nrp)))
		goto out;
	if (s->progress)
		fprintf(s->progress,
			"bisecting %zu candidates (about %u steps)\n",
			s->initial_candidates,
			engine_estimate_steps(s->initial_candidates));
	while ((s->state = engine_next(s->engine, &pick)) == ENGINE_TEST) {
		struct gu_oid c = s->graph.oids[pick];
		enum verdict v;

		rc = test_commit(s, &c, "bisect", &v);
		if (rc)
			goto out;
		apply(s, &c, v);
		rc = log_verdict(s, &c, v);
		if (!rc)
			rc = save_log(s);
		if (rc)
			goto out;
		progress(s, &s->steps[s->nsteps - 1]);
	}
	if (s->state == ENGINE_NOTHING) {
		rc = stop(s, ERR_INPUT, "no commit left to test");
		goto out;
	}
	rc = finish(s, pick);
out:
	free(rp);
	return rc;
}
