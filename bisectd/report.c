// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reports.  The JSON report is the contract with scripts and trackers:
 * result, first_bad, candidates, steps[] (commit, verdict, seconds and the
 * evidence), the culprit's details, the bisect log, and the recipe and
 * config.  The text report says the same for a person reading a terminal
 * or a mail: there, what came from the repository or a console (subjects,
 * authors, file names, titles, excerpts, logs) is shown with its control
 * characters escaped (buf_put_shown()).  Only this file includes
 * jansson.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#include "engine.h"
#include "error.h"
#include "http.h"
#include "digest.h"
#include "maintrepo.h"
#include "mbox.h"
#include "mreport.h"
#include "util.h"
#include "report.h"

const char *report_result(const struct session *s, int error_code)
{
	if (error_code)
		return "error";
	return s->state == ENGINE_FOUND ? "found" : "ambiguous";
}

/* A commit's subject, author and files as a text report shows them. */
static void commit_shown(struct gu_commit *c)
{
	char **f[] = { &c->subject, &c->author };
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]) + c->nfiles; i++) {
		char **s = i < 2 ? f[i] : &c->files[i - 2];
		char *t = buf_shown(*s, 0);

		if (t) {
			free(*s);
			*s = t;
		} else {
			**s = '\0'; /* out of memory: nothing rather than raw */
		}
	}
}

/* Whether the session's bisection looked for a fix (bisectd's outcome). */
static int is_fix(const struct session *s)
{
	return s->outcome && strstr(s->outcome, "\"fix\":true");
}

/* What a maintainer asks of a fix: what it says it fixes, whether it is
 * marked for stable, and whether it applies to the older commit. */
struct fix_facts {
	json_t *fixes; /* the values of its Fixes: trailers */
	int stable;    /* a Cc: stable@... trailer */
	int pick;      /* onto the bad commit: 0 clean, 1 conflicts, -1 not
			  tried */
	char conflict[256];
};

static int fix_trailer(const char *key, const char *value, void *payload)
{
	struct fix_facts *f = payload;

	if (!strcasecmp(key, "Fixes"))
		json_array_append_new(f->fixes, json_string(value));
	else if (!strcasecmp(key, "Cc") && strstr(value, "stable@"))
		f->stable = 1;
	return 0;
}

/* f->fixes to be released with json_decref() */
static void fix_facts(struct fix_facts *f, const struct session *s,
		      const struct report_info *ri)
{
	struct buf body;

	memset(f, 0, sizeof(*f));
	f->fixes = json_array();
	f->pick = -1;
	buf_init(&body, 1 << 16);
	/* (a subject line first: git reads no trailers in a message's
	 * first paragraph) */
	if (f->fixes && !buf_puts(&body, "-\n\n") &&
	    !gu_commit_body(s->repo, &s->first_bad, &body))
		gu_trailers(buf_str(&body), fix_trailer, f);
	buf_release(&body);
	if (s->have_bad && ri->cherry_pick)
		f->pick =
			gu_cherry_pick_check(s->repo, &s->first_bad, &s->bad,
					     f->conflict, sizeof(f->conflict));
	if (f->pick < 0)
		f->pick = -1;
}

static void text_fix_facts(struct buf *b, const struct session *s,
			   const struct report_info *ri)
{
	struct fix_facts f;
	char hex[GU_HEXSZ + 1];
	json_t *v;
	size_t i;

	fix_facts(&f, s, ri);
	gu_oid_hex(hex, &s->bad);
	json_array_foreach(f.fixes, i, v)
	{
		buf_puts(b, "  Fixes:   ");
		buf_put_shown(b, json_string_value(v), 0);
		buf_puts(b, "\n");
	}
	if (f.stable)
		buf_puts(b, "  stable:  marked for the stable trees (Cc: "
			    "stable)\n");
	if (f.pick == 0)
		buf_printf(b,
			   "  cherry-picks cleanly onto the bad commit %.12s\n",
			   hex);
	else if (f.pick == 1) {
		buf_printf(b,
			   "  does not cherry-pick onto the bad commit %.12s: "
			   "conflict in ",
			   hex);
		buf_put_shown(b, f.conflict, 0);
		buf_puts(b, "\n");
	}
	json_decref(f.fixes);
}

static json_t *fix_facts_json(const struct session *s,
			      const struct report_info *ri)
{
	struct fix_facts f;
	char hex[GU_HEXSZ + 1];

	json_t *conflict;

	fix_facts(&f, s, ri);
	gu_oid_hex(hex, &s->bad);
	/* a path is any bytes: one that is not UTF-8 is named so */
	conflict = f.pick == 1 ? json_string(f.conflict) : json_null();
	if (!conflict)
		conflict = json_string("(not UTF-8)");
	return json_pack("{s:o, s:b, s:{s:s, s:o, s:o}}", "fixes",
			 f.fixes ? f.fixes : json_array(), "stable", f.stable,
			 "cherry_pick", "onto", hex, "clean",
			 f.pick < 0 ? json_null() : json_boolean(f.pick == 0),
			 "conflict", conflict);
}

static json_t *commit_json(const struct session *s, const struct gu_oid *oid)
{
	struct gu_commit c;
	json_t *o, *files;
	size_t i;

	if (gu_commit_info(&c, s->repo, oid))
		return json_null();
	files = json_array();
	for (i = 0; i < c.nfiles; i++)
		json_array_append_new(files, json_string(c.files[i]));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:i}", "commit", c.hex,
		      "subject", c.subject, "author", c.author, "date", c.date,
		      "files", files, "parents", (int)c.nparents);
	gu_commit_release(&c);
	return o;
}

/*
 * A Linux tree: its top Kconfig is the kernel's ("mainmenu "Linux/...").
 * Other projects may have a MAINTAINERS file too (QEMU does).
 */
static int is_kernel_tree(const struct session *s, const struct gu_oid *at)
{
	struct buf k;
	int yes;

	buf_init(&k, 1 << 20);
	yes = !gu_read_blob(s->repo, at, "Kconfig", &k) &&
	      strstr(buf_str(&k), "mainmenu \"Linux");
	buf_release(&k);
	return yes;
}

/*
 * Who a report goes to: in a kernel tree, the people and lists that
 * scripts/get_maintainer.pl names for the culprit's patch (MAINTAINERS
 * as of the culprit), and the regressions list on Cc; in another
 * repository, no one (the report is the tracker's).  Returns 1 for a
 * kernel tree (whose report also carries the regzbot line).
 */
static int recipients(const struct session *s, struct buf *to, struct buf *cc)
{
	const char *l;

	if (s->state != ENGINE_FOUND || !is_kernel_tree(s, &s->first_bad))
		return 0;
	maint_commit_recipients(s->repo, &s->first_bad, to, cc);
	for (l = buf_str(cc); *l; l += strcspn(l, "\n") + 1)
		if (!strncmp(l, MAINT_REGRESSIONS "\n",
			     strlen(MAINT_REGRESSIONS) + 1))
			return 1;
	buf_puts(cc, MAINT_REGRESSIONS "\n");
	return 1;
}

static json_t *lines_json(const char *text)
{
	json_t *a = json_array();

	while (*text) {
		size_t l = strcspn(text, "\n");

		json_array_append_new(a, json_stringn(text, l));
		text += l + (text[l] != 0);
	}
	return a;
}

/*
 * The scheduler's outcome of a bisection, into a report object: the
 * confidence and how it was verified, the learned failure rate, and the
 * likeliest commits with their probabilities.
 */
static void put_outcome(json_t *o, const char *outcome)
{
	static const char *const keys[] = {
		"confidence",	       "target_confidence", "failure_rate",
		"failure_rate_before", "intermittent",	    "verified",
		"verification",	       "other_failures",    "checks",
		"target_failure",      "rejected",	    "metric"
	};
	json_t *x = outcome ? json_loads(outcome, 0, NULL) : NULL;
	size_t i;

	if (!x)
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_get(x, keys[i]))
			json_object_set(o, keys[i],
					json_object_get(x, keys[i]));
	json_object_set(o, "observed_runs", json_object_get(x, "runs"));
	json_object_set(o, "probabilities", json_object_get(x, "candidates"));
	json_decref(x);
}

/* Other failures seen, a line per title: how many commits, and some. */
static void text_other_failures(struct buf *b, json_t *others)
{
	size_t i, j, n;
	json_t *c, *d;

	json_array_foreach(others, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "title"));
		int seen = 0;

		for (j = 0; j < i && !seen; j++)
			seen = !strcmp(t, json_string_value(json_object_get(
						  json_array_get(others, j),
						  "title")));
		if (seen)
			continue;
		buf_puts(b, "another failure, '");
		buf_put_shown(b, t, 0);
		buf_puts(b, "', at");
		n = 0;
		json_array_foreach(
			others, j,
			d) if (!strcmp(t,
				       json_string_value(
					       json_object_get(d, "title"))) &&
			       n++ < 3)
			buf_printf(b, " %.12s",
				   json_string_value(
					   json_object_get(d, "commit")));
		buf_printf(b, "%s (%zu commits)\n", n > 3 ? " ..." : "", n);
	}
}

/* One line: how sure the answer is and how it was checked. */
static void text_outcome(struct buf *b, const struct session *s)
{
	json_t *x = s->outcome ? json_loads(s->outcome, 0, NULL) : NULL;
	json_t *c;
	size_t i;

	if (!x)
		return;
	if (json_number_value(json_object_get(x, "target_confidence")) <= 0 &&
	    s->state == ENGINE_FOUND) {
		/* no probability to show: the model's, for an answer that
		 * was never meant to carry one, would only alarm */
		buf_puts(b, "confidence: none asked for (git's bisection: "
			    "each commit run once, the answer not re-run; "
			    "--confidence P re-runs and verifies it)\n");
	} else {
		buf_printf(b, "confidence: %.0f%%",
			   100 * json_number_value(
					 json_object_get(x, "confidence")));
		if (json_number_value(json_object_get(x, "target_confidence")) >
		    0)
			buf_printf(b, " (asked for %.0f%%)",
				   100 * json_number_value(json_object_get(
						 x, "target_confidence")));
		buf_puts(b, "; ");
		buf_put_shown(
			b,
			json_string_value(json_object_get(x, "verification")),
			0);
		buf_puts(b, "\n");
	}
	if (json_is_true(json_object_get(x, "intermittent")))
		buf_printf(b,
			   "intermittent: the failure showed on about %.0f%% "
			   "of the runs before the %s, %.0f%% after\n",
			   100 * json_number_value(json_object_get(
					 x, "failure_rate_before")),
			   json_is_true(json_object_get(x, "fix"))
				   ? "fix"
				   : "first bad commit",
			   100 * json_number_value(
					 json_object_get(x, "failure_rate")));
	if (json_is_string(json_object_get(x, "target_failure"))) {
		buf_puts(b, "target failure: ");
		buf_put_shown(
			b,
			json_string_value(json_object_get(x, "target_failure")),
			0);
		buf_puts(b, "\n");
	}
	text_other_failures(b, json_object_get(x, "other_failures"));
	if (json_is_object(json_object_get(x, "metric"))) {
		/* a performance regression: bisectctl run --metric's report */
		mreport_text(b, json_object_get(x, "metric"));
		json_decref(x);
		return;
	}
	if (s->state != ENGINE_FOUND)
		json_array_foreach(json_object_get(x, "candidates"), i, c)
			buf_printf(
				b, "  %s %5.1f%%\n",
				json_string_value(json_object_get(c, "commit")),
				100 * json_number_value(json_object_get(
					      c, "probability")));
	json_decref(x);
}

/* s as one word of sh: single-quoted unless it needs nothing. */
static void put_word(struct buf *b, const char *s)
{
	const char *p;

	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
			    "wxyz0123456789/._+:@=-") == strlen(s)) {
		buf_puts(b, s);
		return;
	}
	buf_puts(b, "'");
	for (p = s; *p; p++)
		buf_puts(b, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
	buf_puts(b, "'");
}

/*
 * What a kernel bisection's answer leads to, as the command that does
 * it: a regression's, finding its fix in a newer kernel; a fix's,
 * building it into a Debian release.  NULL when there is none; *what
 * says it in words.  The caller frees.
 */
static char *next_command(const struct session *s, const struct report_info *ri,
			  const char **what)
{
	char hex[GU_HEXSZ + 1];
	struct buf b;

	if (ri->error_code || s->state != ENGINE_FOUND || !ri->recipe)
		return NULL;
	gu_oid_hex(hex, &s->first_bad);
	buf_init(&b, 1 << 16);
	if (is_fix(s)) {
		*what = "build a Debian release with the fix";
		buf_puts(&b, "bisectctl backport --repo ");
		put_word(&b, ri->repo_path);
		buf_printf(&b, " --fix %s --release ABI --flavour FLAVOUR",
			   hex);
	} else {
		*what = "find the fix in a newer kernel (NEWER: one that "
			"passes)";
		buf_puts(&b, "bisectctl bisect --fix --repo ");
		put_word(&b, ri->repo_path);
		buf_printf(&b, " --bad %s --good NEWER --recipe ", hex);
		put_word(&b, ri->recipe->name);
	}
	if (ri->test_script) {
		buf_puts(&b, " --test ");
		put_word(&b, ri->test_script);
	}
	return buf_detach(&b);
}

int report_json(char **out, const struct session *s,
		const struct report_info *ri)
{
	json_t *o = json_object(), *steps = json_array(), *cands = json_array();
	char hex[GU_HEXSZ + 1], *next;
	const char *what = NULL;
	size_t i;

	json_object_set_new(o, "result",
			    json_string(report_result(s, ri->error_code)));
	json_object_set_new(o, "mode", json_string(ri->mode));
	if (is_fix(s))
		json_object_set_new(o, "fix", json_true());
	json_object_set_new(o, "repo", json_string(ri->repo_path));
	if (ri->error_code)
		json_object_set_new(o, "error",
				    json_string(s->stop_reason ? s->stop_reason
							       : err_last()));
	if (!ri->error_code && s->state == ENGINE_FOUND) {
		gu_oid_hex(hex, &s->first_bad);
		json_object_set_new(o, "first_bad", json_string(hex));
		json_object_set_new(o, "culprit",
				    commit_json(s, &s->first_bad));
		if (is_fix(s)) {
			json_object_set_new(o, "fixed_by", json_string(hex));
			json_object_set_new(o, "fix_facts",
					    fix_facts_json(s, ri));
		}
		if ((next = next_command(s, ri, &what))) {
			json_object_set_new(o, "next",
					    json_pack("{s:s, s:s}", "what",
						      what, "command", next));
			free(next);
		}
		json_array_append_new(cands, json_string(hex));
	} else {
		json_object_set_new(o, "first_bad", json_null());
	}
	for (i = 0; i < s->ncandidates; i++) {
		gu_oid_hex(hex, &s->candidates[i]);
		json_array_append_new(cands, json_string(hex));
	}
	json_object_set_new(o, "candidates", cands);
	put_outcome(o, s->outcome);
	if (s->have_bad) {
		gu_oid_hex(hex, &s->bad);
		json_object_set_new(o, "bad", json_string(hex));
	}
	{
		json_t *goods = json_array();

		for (i = 0; i < s->ngoods; i++) {
			gu_oid_hex(hex, &s->goods[i]);
			json_array_append_new(goods, json_string(hex));
		}
		json_object_set_new(o, "good", goods);
	}
	for (i = 0; i < s->nsteps; i++)
		json_array_append_new(steps, step_result_json(&s->steps[i]));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "bisect_steps",
			    json_integer((json_int_t)session_bisect_steps(s)));
	json_object_set_new(o, "initial_candidates",
			    json_integer((json_int_t)s->initial_candidates));
	json_object_set_new(
		o, "estimated_steps",
		json_integer(engine_estimate_steps(s->initial_candidates)));
	json_object_set_new(o, "bisect_log", json_string(buf_str(&s->log)));
	if (!ri->error_code && s->state == ENGINE_FOUND) {
		struct buf to, cc;
		int kernel;

		buf_init(&to, 1 << 20);
		buf_init(&cc, 1 << 20);
		kernel = recipients(s, &to, &cc);
		json_object_set_new(o, "recipients",
				    json_pack("{s:o, s:o}", "to",
					      lines_json(buf_str(&to)), "cc",
					      lines_json(buf_str(&cc))));
		gu_oid_hex(hex, &s->first_bad);
		if (kernel)
			json_object_set_new(
				o, "regzbot",
				json_sprintf("#regzbot %s: %.12s",
					     is_fix(s) ? "fix" : "introduced",
					     hex));
		buf_release(&to);
		buf_release(&cc);
	}
	json_object_set_new(o, "out_dir", json_pack("s?", ri->out_dir));
	if (ri->command)
		json_object_set_new(o, "command", json_string(ri->command));
	if (ri->recipe) {
		json_object_set_new(
			o, "recipe",
			json_pack("{s:s, s:s, s:s}", "name", ri->recipe->name,
				  "path",
				  ri->recipe->path ? ri->recipe->path : "",
				  "text", ri->recipe->text));
		json_object_set_new(o, "config",
				    json_pack("s?", ri->config_path));
		json_object_set_new(o, "test",
				    json_pack("s?", ri->test_script));
		json_object_set_new(o, "runs", json_integer(ri->runs));
		json_object_set_new(o, "accel", json_pack("s?", ri->accel));
	}
	*out = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return *out ? 0 : err_set(ERR_NOMEM, "out of memory");
}

static void text_culprit(struct buf *b, const struct session *s)
{
	const char *what = is_fix(s) ? "fixed by" : "first bad commit";
	struct gu_commit c;
	size_t i;

	if (gu_commit_info(&c, s->repo, &s->first_bad)) {
		buf_printf(b, "%s: %s\n", what, err_last());
		return;
	}
	commit_shown(&c);
	buf_printf(b, "%s: %s\n", what, c.hex);
	buf_printf(b, "  subject: %s\n  author:  %s\n  date:    %s\n",
		   c.subject, c.author, c.date);
	buf_puts(b, "  files:  ");
	for (i = 0; i < c.nfiles && i < 20; i++)
		buf_printf(b, " %s", c.files[i]);
	if (c.nfiles > 20)
		buf_printf(b, " (and %zu more)", c.nfiles - 20);
	buf_puts(b, "\n");
	gu_commit_release(&c);
}

static const struct step_result *culprit_step(const struct session *s)
{
	char hex[GU_HEXSZ + 1];
	size_t i;

	gu_oid_hex(hex, &s->first_bad);
	for (i = s->nsteps; i-- > 0;)
		if (!strcmp(s->steps[i].hex, hex) &&
		    s->steps[i].verdict == VERDICT_BAD)
			return &s->steps[i];
	return NULL;
}

int report_text(struct buf *b, const struct session *s,
		const struct report_info *ri)
{
	const struct step_result *cs;
	const char *what = NULL;
	char *next;
	char hex[GU_HEXSZ + 1];
	size_t i;

	buf_printf(b, "bisectd %s report for ", ri->mode);
	buf_put_shown(b, ri->repo_path, 0);
	buf_puts(b, "\n\n");
	if (ri->error_code) {
		buf_puts(b, "stopped: ");
		buf_put_shown(b, s->stop_reason ? s->stop_reason : err_last(),
			      0);
		buf_puts(b, "\n\n");
	} else if (s->state == ENGINE_FOUND) {
		text_culprit(b, s);
		if (is_fix(s))
			text_fix_facts(b, s, ri);
		cs = culprit_step(s);
		if (cs && *cs->title) {
			buf_puts(b, "  failure: ");
			buf_put_shown(b, cs->title, 0);
			buf_puts(b, "\n");
		}
		text_outcome(b, s);
		if ((next = next_command(s, ri, &what))) {
			buf_printf(b, "next: %s:\n  ", what);
			buf_put_shown(b, next, 0);
			buf_puts(b, "\n");
			free(next);
		}
	} else if (s->outcome && strstr(s->outcome, "\"rejected\":")) {
		buf_puts(b, "ambiguous: ");
		buf_put_shown(b,
			      s->stop_reason ? s->stop_reason
					     : "the culprit did not pass "
					       "verification",
			      0);
		buf_puts(b, "\n");
		text_outcome(b, s);
	} else if (s->outcome && strstr(s->outcome, "\"metric\":{")) {
		buf_puts(b, "ambiguous: no commit's values reached the "
			    "confidence\n");
		text_outcome(b, s);
	} else if (s->outcome && strstr(s->outcome, "\"intermittent\":true")) {
		buf_printf(b,
			   "ambiguous: the confidence was not reached; the "
			   "likeliest %s:\n",
			   is_fix(s) ? "fixes" : "first bad commits");
		text_outcome(b, s);
	} else {
		buf_printf(b,
			   "ambiguous: only skipped commits are left; the "
			   "%s is one of:\n",
			   is_fix(s) ? "fix" : "first bad commit");
		for (i = 0; i < s->ncandidates; i++) {
			gu_oid_hex(hex, &s->candidates[i]);
			buf_printf(b, "  %s\n", hex);
		}
	}
	buf_printf(b,
		   "\nsteps: %zu bisection steps for %zu candidates "
		   "(log2 estimate %u)\n\n",
		   session_bisect_steps(s), s->initial_candidates,
		   engine_estimate_steps(s->initial_candidates));
	if (ri->recipe)
		buf_printf(b, "%-3s %-12s %-10s %-7s %8s %8s  %s\n", "#",
			   "commit", "role", "verdict", "build s", "boot s",
			   "title");
	else
		buf_printf(b, "%-3s %-12s %-10s %-7s %8s %8s  %s\n", "#",
			   "commit", "role", "verdict", "seconds", "exit",
			   "title");
	for (i = 0; i < s->nsteps; i++) {
		const struct step_result *st = &s->steps[i];
		char from[64] = "";

		if (st->cached)
			snprintf(from, sizeof(from),
				 "%s(cached, %d run(s)%s%.12s)",
				 *st->title ? " " : "", st->runs ? st->runs : 1,
				 strcmp(st->cached_from, st->hex) &&
						 st->cached_from[0]
					 ? " on "
					 : "",
				 strcmp(st->cached_from, st->hex)
					 ? st->cached_from
					 : "");
		if (ri->recipe)
			buf_printf(b, "%-3zu %-12.12s %-10s %-7s %8.1f %8.1f  ",
				   i + 1, st->hex, st->role,
				   verdict_name(st->verdict), st->build_s,
				   st->boot_s);
		else
			buf_printf(b, "%-3zu %-12.12s %-10s %-7s %8.1f %8d  ",
				   i + 1, st->hex, st->role,
				   verdict_name(st->verdict), st->seconds,
				   st->exit_code);
		buf_put_shown(b, st->title, 0);
		buf_printf(b, "%s\n", from);
	}
	buf_puts(b, "\nlogs:\n");
	for (i = 0; i < s->nsteps; i++) {
		const struct step_result *st = &s->steps[i];
		const char *const kind[] = { "console", "build  ", "output " };
		const char *const path[] = { st->console_log, st->build_log,
					     st->log };
		size_t k;

		for (k = 0; k < 3; k++)
			if (path[k]) {
				buf_printf(b, "  %.12s %s ", st->hex, kind[k]);
				buf_put_shown(b, path[k], 0);
				buf_puts(b, "\n");
			}
	}
	if (!ri->error_code && s->state == ENGINE_FOUND &&
	    (cs = culprit_step(s)) && *cs->excerpt) {
		buf_printf(b, "\nevidence from %.12s:\n", cs->hex);
		buf_put_shown(b, cs->excerpt, 1);
	}
	buf_puts(b, "\nbisect log (git bisect replay accepts it):\n");
	buf_put_shown(b, buf_str(&s->log), 1);
	if (ri->recipe) {
		buf_printf(b, "\nrecipe %s (%s), %d run(s) per step, %s\n",
			   ri->recipe->name,
			   ri->recipe->path ? ri->recipe->path : "", ri->runs,
			   ri->accel ? ri->accel : "no boot");
		if (ri->config_path) {
			buf_puts(b, "config: ");
			buf_put_shown(b, ri->config_path, 0);
			buf_puts(b, "\n");
		}
		if (ri->test_script) {
			buf_puts(b, "guest test: ");
			buf_put_shown(b, ri->test_script, 0);
			buf_puts(b, "\n");
		}
		for (i = 0; i < s->nsteps; i++)
			if (s->steps[i].config_notes &&
			    *s->steps[i].config_notes) {
				buf_puts(b, "config notes:\n");
				buf_put_shown(b, s->steps[i].config_notes, 1);
				break;
			}
	}
	if (ri->command) {
		buf_puts(b, "\ncommand: ");
		buf_put_shown(b, ri->command, 1);
		buf_puts(b, "\n");
	}
	if (ri->out_dir)
		buf_printf(b, "output: %s\n", ri->out_dir);
	return 0;
}

/* Each line of text after pad, shown (buf_put_shown()). */
static void indented(struct buf *b, const char *text, const char *pad)
{
	while (*text) {
		size_t l = strcspn(text, "\n");
		char *line = strndup(text, l);

		buf_puts(b, pad);
		buf_put_shown(b, line ? line : "", 0);
		buf_puts(b, "\n");
		free(line);
		text += l + (text[l] != 0);
	}
}

/* Words of text in lines of at most width columns (longer words alone). */
static void wrapped(struct buf *b, const char *text, size_t width)
{
	size_t col = 0;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (col && col + 1 + w > width) {
			buf_puts(b, "\n");
			col = 0;
		} else if (col) {
			buf_puts(b, " ");
			col++;
		}
		buf_put(b, text, w);
		col += w;
		text += w;
		text += strspn(text, " ");
	}
	buf_puts(b, "\n");
}

int report_mail(struct buf *out, const struct session *s,
		const struct report_info *ri, const char *link_base)
{
	const struct step_result *cs = culprit_step(s);
	struct gu_commit c;
	struct buf to, cc, body, subject, *b = &body;
	char hex[GU_HEXSZ + 1], bad[GU_HEXSZ + 1], *next;
	const char *what = NULL;
	size_t i;
	int kernel, rc;

	if (ri->error_code || s->state != ENGINE_FOUND)
		return report_text(out, s, ri);
	if (gu_commit_info(&c, s->repo, &s->first_bad))
		return -1;
	commit_shown(&c);
	buf_init(&to, 1 << 20);
	buf_init(&cc, 1 << 20);
	buf_init(&body, 64u << 20);
	buf_init(&subject, 1 << 20);
	kernel = recipients(s, &to, &cc);
	gu_oid_hex(hex, &s->first_bad);
	gu_oid_hex(bad, &s->bad);
	buf_puts(&subject, is_fix(s) ? "[FIXED] " : "[REGRESSION] ");
	buf_put_shown(&subject, cs && *cs->title ? cs->title : c.subject, 0);
	buf_printf(&subject,
		   is_fix(s) ? " (fixed by %.12s)" : " (bisected to %.12s)",
		   hex);
	{
		struct buf para;

		buf_init(&para, 1 << 20);
		buf_puts(&para,
			 is_fix(s) ? "bisectd found the fix of a failure in "
				   : "bisectd bisected a regression in ");
		buf_put_shown(&para, ri->repo_path, 0);
		buf_puts(&para, " between ");
		for (i = 0; i < s->ngoods; i++) {
			char g[GU_HEXSZ + 1];

			gu_oid_hex(g, &s->goods[i]);
			buf_printf(&para, "%s%.12s", i ? ", " : "", g);
		}
		buf_printf(&para,
			   is_fix(s) ? " (good, newer) and %.12s (bad, older)"
				     : " (good) and %.12s (bad)",
			   bad);
		if (ri->recipe) {
			buf_printf(&para,
				   ", building with the %s recipe and booting "
				   "in QEMU%s",
				   ri->recipe->name,
				   ri->test_script ? " with " : "");
			buf_put_shown(&para, ri->test_script, 0);
			buf_puts(&para, ",");
		} else if (ri->command) {
			buf_puts(&para, ", testing with '");
			buf_put_shown(&para, ri->command, 0);
			buf_puts(&para, "',");
		}
		buf_printf(&para,
			   " in %zu steps, to:", session_bisect_steps(s));
		wrapped(b, buf_str(&para), 72);
		buf_puts(b, "\n");
		buf_release(&para);
	}
	buf_printf(b, "commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n\n", hex,
		   c.author, c.date, c.subject);
	for (i = 0; i < c.nfiles && i < 20; i++)
		buf_printf(b, " %s\n", c.files[i]);
	if (c.nfiles > 20)
		buf_printf(b, " (and %zu more files)\n", c.nfiles - 20);
	if (is_fix(s)) {
		buf_puts(b, "\n");
		text_fix_facts(b, s, ri);
	}
	if (cs && *cs->title) {
		buf_printf(b, "\nThe failure, at %.12s:\n\n  ", hex);
		buf_put_shown(b, cs->title, 0);
		buf_puts(b, "\n");
		if (*cs->excerpt) {
			buf_puts(b, "\n");
			indented(b, cs->excerpt, "  ");
		}
	}
	if (s->outcome) {
		buf_puts(b, "\n");
		text_outcome(b, s);
	}
	if ((next = next_command(s, ri, &what))) {
		buf_printf(b, "\nNext, to %s:\n\n  ", what);
		buf_put_shown(b, next, 0);
		buf_puts(b, "\n");
		free(next);
	}
	buf_printf(b, "\nSteps (%zu candidates at the start):\n\n",
		   s->initial_candidates);
	buf_printf(b, "  %-3s %-12s %-10s %-7s %s\n", "#", "commit", "role",
		   "verdict", "title");
	for (i = 0; i < s->nsteps; i++) {
		buf_printf(b, "  %-3zu %-12.12s %-10s %-7s ", i + 1,
			   s->steps[i].hex, s->steps[i].role,
			   verdict_name(s->steps[i].verdict));
		buf_put_shown(b, s->steps[i].title, 0);
		buf_puts(b, "\n");
	}
	buf_puts(b, "\ngit bisect log:\n\n");
	indented(b, buf_str(&s->log), "  ");
	if (link_base) {
		buf_printf(b, "\nLinks:\n  %s\n", link_base);
		if (s->nsteps && s->steps[0].id)
			buf_printf(b, "  job: %s/jobs/%lld\n", link_base,
				   ri->job_id);
		if (cs && cs->console_log) {
			buf_puts(b, "  console log: ");
			buf_put_shown(b, cs->console_log, 0);
			buf_puts(b, "\n");
		}
		if (ri->config_path) {
			buf_puts(b, "  kernel config: ");
			buf_put_shown(b, ri->config_path, 0);
			buf_puts(b, "\n");
		}
	}
	if (kernel)
		buf_printf(b, "\n#regzbot %s: %.12s\n",
			   is_fix(s) ? "fix" : "introduced", hex);
	{
		struct mail_out m = { .from = ri->mail_from ? ri->mail_from
							    : REPORT_MAIL_FROM,
				      .to = buf_str(&to),
				      .cc = buf_str(&cc),
				      .subject = buf_str(&subject),
				      .body = buf_str(&body),
				      .date = (long long)time(NULL) };

		rc = mail_write(out, &m);
	}
	buf_release(&subject);
	buf_release(&body);
	buf_release(&to);
	buf_release(&cc);
	gu_commit_release(&c);
	return rc;
}

/* --- jobs of the coordinator -------------------------------------------- */

static int artifact_json(const char *name, long long size, const char *sha,
			 void *payload)
{
	json_array_append_new(payload,
			      json_pack("{s:s, s:I, s:s}", "name", name, "size",
					(json_int_t)size, "sha256", sha));
	return 0;
}

static json_t *time_or_null(double t)
{
	return t > 0 ? json_real(t) : json_null();
}

static json_t *coord_step_json(struct store *st, const struct store_step *s)
{
	json_t *o = json_object(), *result = NULL, *arts = json_array();

	if (s->result)
		result = json_loads(s->result, 0, NULL);
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "commit", json_string(s->hex));
	json_object_set_new(o, "role", json_string(s->role));
	json_object_set_new(o, "state", json_string(step_state_name(s->state)));
	json_object_set_new(o, "round", json_integer(s->round));
	json_object_set_new(o, "candidates", json_integer(s->candidates));
	json_object_set_new(o, "verdict",
			    s->verdict[0] ? json_string(s->verdict)
					  : json_null());
	json_object_set_new(o, "cached", json_boolean(s->cached));
	json_object_set_new(o, "worker",
			    s->worker ? json_integer(s->worker) : json_null());
	json_object_set_new(o, "lease_losses", json_integer(s->attempts));
	json_object_set_new(o, "queued", time_or_null(s->queued));
	json_object_set_new(o, "started", time_or_null(s->started));
	json_object_set_new(o, "finished", time_or_null(s->finished));
	json_object_set_new(o, "result", result ? result : json_null());
	if (st)
		store_artifacts(st, s->id, artifact_json, arts);
	json_object_set_new(o, "artifacts", arts);
	return o;
}

/* A callback as a job's view shows it: its user, password and key out. */
static void redact_callback(json_t *spec)
{
	const char *u = json_string_value(json_object_get(spec, "callback"));
	char shown[2048];

	json_object_del(spec, "callback_secret");
	if (!u)
		return;
	http_url_shown(shown, sizeof(shown), u);
	json_object_set_new(spec, "callback", json_string(shown));
}

/*
 * A releases job's commit level, from its outcome: the bisect job that
 * goes on from it ({job, state, result, first_bad, reason}), or why
 * there is none ({error}); NULL when it has none.
 */
static json_t *commit_level_of(struct store *st, const char *outcome)
{
	json_t *x = outcome ? json_loads(outcome, 0, NULL) : NULL, *out = NULL;
	json_t *id = json_object_get(x, "commit_level_job");
	struct store_job c;

	if (json_is_string(json_object_get(x, "commit_level_error")))
		out = json_pack("{s:O}", "error",
				json_object_get(x, "commit_level_error"));
	else if (json_is_integer(id) &&
		 !store_job_get(st, json_integer_value(id), &c)) {
		out = json_pack("{s:I, s:s, s:s?, s:s?, s:s?}", "job",
				(json_int_t)c.id, "state",
				job_state_name(c.state), "result", c.result,
				"first_bad", c.culprit, "reason", c.reason);
		store_job_release(&c);
	}
	json_decref(x);
	return out;
}

/*
 * A releases job's "releases": the release-level bisection as the worker
 * of its last step wrote it (last_good_release, first_bad_release, their
 * versions, the probes, the changelog), with its commit level; and by
 * hand, while no answer came after that step, the release to install
 * next as "waiting_for".
 */
static void put_releases(json_t *o, struct store *st, const struct store_job *j,
			 const struct store_step *steps, size_t n)
{
	json_t *rel, *cl;
	int answered = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *r = steps[i].state == STEP_DONE && steps[i].result
				    ? json_loads(steps[i].result, 0, NULL)
				    : NULL;

		rel = json_object_get(r, "releases");
		if (!strcmp(steps[i].role, "answer"))
			answered = 1;
		if (json_is_object(rel)) {
			json_object_set(o, "releases", rel);
			answered = 0;
		}
		json_decref(r);
	}
	rel = json_object_get(o, "releases");
	if (!rel)
		return;
	if ((cl = commit_level_of(st, j->outcome)))
		json_object_set_new(rel, "commit_level", cl);
	if (j->state == JOB_RUNNING && !answered &&
	    json_is_string(json_object_get(rel, "next_release")))
		json_object_set_new(
			o, "waiting_for",
			json_pack("{s:O, s:O?, s:O?}", "release",
				  json_object_get(rel, "next_release"),
				  "version",
				  json_object_get(rel, "next_version"),
				  "install", json_object_get(rel, "install")));
}

char *report_job(struct store *st, const struct store_job *j,
		 const struct store_step *steps, size_t n, int full)
{
	json_t *o = json_object(), *spec = json_loads(j->spec, 0, NULL);
	json_t *arr, *hook;
	int rounds = 0;
	size_t i;
	char *s;

	json_object_set_new(o, "id", json_integer(j->id));
	json_object_set_new(o, "type", json_string(j->type));
	json_object_set_new(o, "state", json_string(job_state_name(j->state)));
	json_object_set_new(o, "result", json_pack("s?", j->result));
	json_object_set_new(o, "culprit", json_pack("s?", j->culprit));
	json_object_set_new(o, "reason", json_pack("s?", j->reason));
	json_object_set_new(o, "initial_candidates",
			    json_integer(j->candidates));
	put_outcome(o, j->outcome);
	json_object_set_new(o, "created", time_or_null(j->created));
	json_object_set_new(o, "started", time_or_null(j->started));
	json_object_set_new(o, "finished", time_or_null(j->finished));
	if (spec)
		redact_callback(spec);
	json_object_set_new(o, "spec", spec ? spec : json_null());
	hook = json_pack("{s:s, s:i, s:o}", "state",
			 j->hook_state ? j->hook_state : "none", "attempts",
			 j->hook_attempts, "error",
			 json_pack("s?", j->hook_error));
	json_object_set_new(o, "webhook", hook);
	if (full) {
		arr = json_array();
		for (i = 0; i < n; i++) {
			json_array_append_new(arr,
					      coord_step_json(st, &steps[i]));
			if (steps[i].state == STEP_DONE && !steps[i].cached &&
			    steps[i].round > rounds)
				rounds = steps[i].round;
		}
		json_object_set_new(o, "steps", arr);
		json_object_set_new(o, "rounds", json_integer(rounds));
	}
	if (full && !strcmp(j->type, "releases"))
		put_releases(o, st, j, steps, n);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}
