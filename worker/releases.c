// SPDX-License-Identifier: GPL-2.0-only
/*
 * Release bisection.
 *
 * Design.  The releases are the ABIs of linux-image-<abi>-<flavour> that
 * APT knows of (apt-cache pkgnames), in version order; those after the
 * good one up to the bad one are a linear history for the engine, the
 * newest first, as commits are.  A probe fetches its package with
 * apt-get download (APT checks it against its signed index; the SHA256
 * is checked again here, and the file is kept in the cache by its name),
 * takes the kernel out of it with libarchive, and boots it in QEMU with
 * the recipe's boot settings and the same initramfs (with the modules
 * the boot needs when the recipe has modules) and classifier as a
 * commit-level step.  The result names both releases with their Debian
 * and upstream versions, the changelog entries in between, and the next
 * step: a commit-level bisection between the upstream versions with the
 * last good release's own config.
 *
 * Debian's packages (listed, fetched, unpacked, booted) are
 * releases_apt.c's, Debian's own patches releases_patches.c's
 * (releases_priv.h between them).
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archives.h"
#include "boot.h"
#include "buf.h"
#include "classify.h"
#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "initramfs.h"
#include "job.h"
#include "releases.h"
#include "util.h"

#include "releases_priv.h"

/*
 * The flavour and the releases that become APT's arguments: words of
 * job.h's rule (never starting with '-'), whoever called.
 */
static int words_ok(const char *flavour, const char *const *rels, size_t n)
{
	size_t i;

	if (!job_flavour_ok(flavour))
		return err_set(ERR_INPUT,
			       "'%.40s' is not a flavour such as cloud-amd64 "
			       "([a-z0-9-], from a letter or digit)",
			       flavour ? flavour : "");
	for (i = 0; i < n; i++)
		if (!job_release_ok(rels[i]))
			return err_set(ERR_INPUT,
				       "'%.40s' is not a release such as "
				       "6.1.0-47 ([0-9.-], from a digit)",
				       rels[i] ? rels[i] : "");
	return 0;
}

/*
 * The changelog entries of first_bad's package down to (not including)
 * last good's version: each entry's source and version and its lines.
 */
json_t *releases_changes(const struct release *bad, const struct release *good)
{
	struct arc *a = NULL;
	struct arc_entry e;
	struct buf text;
	json_t *out = json_array(), *entry = NULL;
	const char *p;
	int rc;

	buf_init(&text, 64u << 20);
	rc = bad->changelog ? arc_open(&a, bad->changelog, ARC_RAW)
			    : ERR_NOTFOUND;
	if (!rc && arc_next(a, &e) == 1)
		rc = arc_read_buf(a, &text);
	arc_close(a);
	for (p = buf_str(&text); !rc && *p;) {
		size_t len = strcspn(p, "\n");
		char src[64], ver[64];

		if (*p != ' ' && len &&
		    sscanf(p, "%63s (%63[^)])", src, ver) == 2) {
			if (!strcmp(src, "linux") &&
			    !strcmp(ver, good->version))
				break;
			entry = json_pack("{s:s, s:s, s:[]}", "source", src,
					  "version", ver, "lines");
			json_array_append_new(out, entry);
		} else if (entry && len > 2 && !strncmp(p, "  ", 2) &&
			   strncmp(p, " -- ", 4)) {
			json_array_append_new(json_object_get(entry, "lines"),
					      json_stringn(p + 2, len - 2));
		}
		p += len + (p[len] != 0);
	}
	buf_release(&text);
	return out;
}

/*
 * A recipe with the last good release's own config (its package is the
 * base) and the boot recipe's settings, for the commit-level step.
 */
static char *next_recipe(const struct rel_state *st, const struct release *g)
{
	const struct recipe *r = st->o->recipe;
	char *path = util_fmt("%s/last-good-release.recipe", st->o->out_dir);
	char *init;
	struct buf b;
	const char *p;
	size_t i;
	int rc;

	if (!path)
		return NULL;
	buf_init(&b, 1 << 20);
	buf_printf(&b,
		   "# The config of linux-image-%s-%s %s, the last good "
		   "release,\n# with the boot settings of recipe %s.\n"
		   "description = config of linux-image-%s-%s %s\n"
		   "base = %s\n",
		   g->abi, st->o->flavour, g->version, r->name, g->abi,
		   st->o->flavour, g->version, g->deb);
	for (i = 0; i < r->nfragments; i++)
		buf_printf(&b, "fragment = %s\n", r->fragments[i]);
	/* the boot recipe's init, by its absolute path: the default is
	 * found beside the recipe file, which this one is not */
	init = realpath(r->init, NULL);
	if (init)
		buf_printf(&b, "init = %s\n", init);
	free(init);
	for (p = r->text; *p;) {
		size_t len = strcspn(p, "\n");

		if (*p != '#' && strncmp(p, "description", 11) &&
		    strncmp(p, "base", 4) && strncmp(p, "fragment", 8) &&
		    strncmp(p, "init", 4))
			buf_printf(&b, "%.*s\n", (int)len, p);
		p += len + (p[len] != 0);
	}
	rc = util_write_atomic(path, b.ptr, b.len);
	buf_release(&b);
	if (rc) {
		free(path);
		return NULL;
	}
	return path;
}

/* A changelog entry on the terminal: its first lines. */
static void print_entry(json_t *e)
{
	json_t *lines = json_object_get(e, "lines"), *l;
	size_t n = json_array_size(lines), i;

	printf("  %s (%s):\n", json_string_value(json_object_get(e, "source")),
	       json_string_value(json_object_get(e, "version")));
	json_array_foreach(lines, i, l)
	{
		if (i == 20) {
			printf("    ... %zu more lines (in the JSON)\n", n - i);
			break;
		}
		printf("    %s\n", json_string_value(l));
	}
}

/* PREFIX_release, PREFIX_version and PREFIX_upstream of r into o. */
static void put_release(json_t *o, const char *prefix, const struct release *r)
{
	const char *const what[] = { "release", "version", "upstream" };
	const char *const value[] = { r->abi, r->version, r->upstream };
	char key[64];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "%s_%s", prefix, what[i]);
		json_object_set_new(o, key, json_string(value[i]));
	}
}

/*
 * The commit-level bisection between the two upstream tags, by the
 * bisect command; its result goes into o as "commit_level".  Returns
 * bisect's exit status, or -1 when it could not run.
 */
static int commit_level(struct rel_state *st, const struct release *good,
			const struct release *bad, const char *recipe,
			json_t *o)
{
	const struct releases_opts *ro = st->o;
	char *g = util_fmt("v%s", good->upstream),
	     *b = util_fmt("v%s", bad->upstream),
	     *json = util_fmt("%s/commit-level.json", ro->out_dir),
	     *out = util_fmt("%s/commit-level", ro->out_dir);
	int status = -1;

	if (g && b && json && out) {
		printf("bisecting the commits from %s to %s in %s with %s\n", g,
		       b, ro->repo, recipe);
		fflush(stdout);
		status = ro->bisect_commits(ro, g, b, recipe, json, out);
	}
	if (status >= 0) {
		json_t *r = json_load_file(json, 0, NULL);

		json_object_set_new(o, "commit_level",
				    r ? r : json_pack("{s:i}", "exit", status));
	}
	free(g);
	free(b);
	free(json);
	free(out);
	return status;
}

void releases_print_answer(const json_t *o)
{
	const char *f = json_string_value(json_object_get(o, "flavour"));

#define S(k) json_string_value(json_object_get(o, k))
	if (S("first_bad_release"))
		printf("first bad release: %s, linux-image-%s-%s %s "
		       "(upstream %s)\n"
		       "last good release: %s, linux-image-%s-%s %s "
		       "(upstream %s)\n",
		       S("first_bad_release"), S("first_bad_release"), f,
		       S("first_bad_version"), S("first_bad_upstream"),
		       S("last_good_release"), S("last_good_release"), f,
		       S("last_good_version"), S("last_good_upstream"));
	else if (S("reason"))
		printf("no first bad release: %s\n", S("reason"));
#undef S
}

/* The result on the terminal and as JSON. */
static int releases_report(struct rel_state *st, const struct release *bad,
			   const struct release *good, int *found,
			   double confidence, const char *why)
{
	json_t *o = json_object(), *ch = NULL;
	char *recipe = NULL, *next = NULL;
	int rc = 0, status = 0;

	json_object_set_new(o, "flavour", json_string(st->o->flavour));
	json_object_set_new(o, "result",
			    json_string(*found ? "found" : "ambiguous"));
	json_object_set_new(o, "probes", json_incref(st->probes));
	if (st->marks) /* by hand: the answers stand for probes */
		json_object_set_new(o, "answers", json_incref(st->marks));
	if (!*found) {
		json_object_set_new(o, "reason", json_string(why));
		releases_print_answer(o);
	} else {
		put_release(o, "first_bad", bad);
		put_release(o, "last_good", good);
		releases_print_answer(o);
		if (confidence > 0)
			printf("confidence %.2f\n", confidence);
		json_object_set_new(o, "confidence", json_real(confidence));
		ch = releases_changes(bad, good);
		if (ch) {
			size_t i;
			json_t *e;

			printf("changes since %s (the first bad release's "
			       "changelog):\n",
			       good->version);
			json_array_foreach(ch, i, e) print_entry(e);
			json_object_set_new(o, "changelog", ch);
		}
		recipe = good->deb ? next_recipe(st, good) : NULL;
		if (strcmp(bad->upstream, good->upstream) && recipe)
			next = util_fmt("bisectctl bisect --repo LINUX-STABLE "
					"--good v%s --bad v%s --recipe %s "
					"--base-release %s --flavour %s%s%s",
					good->upstream, bad->upstream,
					st->o->recipe->name, good->abi,
					st->o->flavour,
					st->o->test ? " --test " : "",
					st->o->test ? st->o->test : "");
		if (next && st->o->repo && st->o->bisect_commits &&
		    !st->o->patches_only) {
			status = commit_level(st, good, bad,
					      st->o->commit_recipe
						      ? st->o->commit_recipe
						      : recipe,
					      o);
		} else if (next) {
			printf("next: bisect the commits between the two "
			       "upstream versions in a linux-stable clone, "
			       "with the last good release's config:\n  %s\n",
			       next);
			json_object_set_new(o, "next_step", json_string(next));
		} else if (!strcmp(bad->upstream, good->upstream)) {
			printf("both are upstream %s: the difference is "
			       "Debian's own patches (the changelog entries "
			       "above; apt-get source linux=%s and "
			       "linux=%s have them as debian/patches)\n",
			       bad->upstream, good->version, bad->version);
			status = releases_debian_patches(
				st, good, bad,
				st->o->commit_recipe ? st->o->commit_recipe
						     : recipe,
				o);
			if (!st->o->repo) {
				next = util_fmt(
					"bisectctl releases --flavour %s "
					"--good %s --bad %s --repo "
					"LINUX-STABLE%s%s",
					st->o->flavour, good->abi, bad->abi,
					st->o->test ? " --test " : "",
					st->o->test ? st->o->test : "");
				printf("next: bisect Debian's patches, "
				       "applied on tag v%s of a linux-stable "
				       "clone:\n  %s\n",
				       bad->upstream, next ? next : "");
				json_object_set_new(
					o, "next_step",
					json_string(next ? next : ""));
			}
		}
	}
	if (st->o->json) {
		char *text = json_dumps(o, JSON_INDENT(2));

		rc = text ? util_write_atomic(st->o->json, text, strlen(text))
			  : err_set(ERR_NOMEM, "out of memory");
		free(text);
	}
	json_decref(o);
	free(recipe);
	free(next);
	/* the commit level decides: ambiguous there is ambiguous */
	if (!rc && status == 1)
		*found = 0;
	else if (!rc && (status < 0 || status > 1))
		rc = err_set(status == 2 ? ERR_INPUT : ERR_INFRA,
			     "the commit-level bisection failed (see above)");
	return rc;
}

/* The good release must pass, as a commit-level bisection's good does. */
static int check_good(struct rel_state *st, struct release *good)
{
	unsigned f, p, s;
	int rc = releases_probe(st, good, st->o->runs, &f, &p, &s);

	if (!rc && s)
		rc = err_set(ERR_INPUT, "the good release %s does not boot: %s",
			     good->abi, good->title);
	else if (!rc && f)
		rc = err_set(ERR_INPUT,
			     "the good release %s does not pass (verdict "
			     "bad: %s)",
			     good->abi, good->title);
	return rc;
}

/* A manual bisection that waits for the user: the JSON says which. */
static int report_waiting(struct rel_state *st, const struct release *r)
{
	json_t *o;
	char *text;
	int rc = 0;

	if (!st->o->json)
		return 0;
	o = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s+++++}", "flavour",
		      st->o->flavour, "result", "waiting", "next_release",
		      r->abi, "next_version", r->version, "answers", st->marks,
		      "install", "apt-get install linux-image-", r->abi, "-",
		      st->o->flavour, "=", r->version);
	text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
	rc = text ? util_write_atomic(st->o->json, text, strlen(text))
		  : err_set(ERR_NOMEM, "out of memory");
	free(text);
	json_decref(o);
	return rc;
}

/* An engine over n releases, newest first, each the child of the next. */
static int linear_engine(struct engine **e, size_t n)
{
	size_t i;
	int rc = engine_new(e, n);

	for (i = 0; !rc && i + 1 < n; i++)
		rc = engine_add_parent(*e, (uint32_t)i, (uint32_t)i + 1);
	if (!rc)
		rc = engine_set_bad(*e, 0);
	return rc;
}

int releases_linear(struct linear_probe *lp, long *culprit, double *confidence)
{
	struct engine *e = NULL;
	unsigned f = 0, p = 0, s = 0, tries = 0, total = 0;
	int runs = lp->confidence > 0 ? 1 : lp->runs;
	uint32_t pick;
	int rc = linear_engine(&e, lp->n);

	*culprit = -1;
	lp->why[0] = '\0';
	if (rc) {
		engine_free(e);
		return rc;
	}
	engine_set_confidence(e, lp->confidence, 0);
	/* the bad one, until it failed 3 times (or once without a
	 * confidence, as git would) */
	while (!rc && total < (lp->confidence > 0 ? 3u : 1u) && tries < 10) {
		rc = lp->probe(lp->ctx, 0, runs, &f, &p, &s);
		if (!rc && s)
			rc = err_set(ERR_INPUT,
				     "the bad %s %s does not boot: %s",
				     lp->what, lp->name(lp->ctx, 0),
				     lp->title(lp->ctx, 0));
		if (!rc)
			rc = engine_observe(e, 0, f, p);
		total += f;
		tries++;
	}
	if (!rc && !s && !total)
		rc = err_set(ERR_INPUT,
			     "the bad %s %s does not fail in %u boots: "
			     "nothing to bisect",
			     lp->what, lp->name(lp->ctx, 0),
			     tries * (unsigned)runs);
	/* (a bad one that does not boot has ended it above) */
	while (!rc && total) {
		enum engine_state es = engine_next(e, &pick);

		if (es == ENGINE_FOUND) {
			*culprit = pick;
			*confidence = lp->confidence > 0
					      ? engine_probability(e, pick)
					      : 0;
			break;
		}
		if (es != ENGINE_TEST && es != ENGINE_VERIFY) {
			snprintf(
				lp->why, sizeof(lp->why),
				es == ENGINE_NOTHING
					? "no %s between good and bad"
					: "only %ss that do not boot are left, "
					  "or no run can decide",
				lp->what);
			break;
		}
		rc = lp->probe(lp->ctx, pick, runs, &f, &p, &s);
		if (!rc && s)
			rc = engine_mark(e, pick, VERDICT_SKIP);
		else if (!rc && lp->confidence > 0)
			rc = engine_observe(e, pick, f, p);
		else if (!rc)
			rc = engine_mark(e, pick,
					 f ? VERDICT_BAD : VERDICT_GOOD);
	}
	engine_free(e);
	return rc;
}

/* The releases cand[0..n) (newest first) as a linear history. */
struct rel_probe {
	struct rel_state *st;
	struct release **cand;
};

static int rel_probe(void *ctx, size_t i, int runs, unsigned *fails,
		     unsigned *passes, unsigned *skips)
{
	struct rel_probe *rp = ctx;

	return releases_probe(rp->st, rp->cand[i], runs, fails, passes, skips);
}

static const char *rel_name(void *ctx, size_t i)
{
	return ((struct rel_probe *)ctx)->cand[i]->abi;
}

static const char *rel_title(void *ctx, size_t i)
{
	const char *t = ((struct rel_probe *)ctx)->cand[i]->title;

	return t ? t : "";
}

/* The engine over the candidates cand[0..n) (newest first). */
static int run_engine(struct rel_state *st, struct release **cand, size_t n,
		      long *culprit, double *confidence, const char **why)
{
	struct rel_probe rp = { st, cand };
	struct linear_probe lp;
	int rc;

	memset(&lp, 0, sizeof(lp));
	lp.n = n;
	lp.confidence = st->o->confidence;
	lp.runs = st->o->runs;
	lp.what = "release";
	lp.probe = rel_probe;
	lp.name = rel_name;
	lp.title = rel_title;
	lp.ctx = &rp;
	rc = releases_linear(&lp, culprit, confidence);
	if (lp.why[0]) {
		snprintf(st->why, sizeof(st->why), "%s", lp.why);
		*why = st->why;
	}
	return rc;
}

/* --- manual: the user installs each release and answers ------------------ */

static char *state_path(const struct rel_state *st)
{
	return util_fmt("%s/manual-state.json", st->dir);
}

/*
 * A --continue: the saved bisection's options into *o, its answers into
 * st->marks.  ERR_INPUT when there is none.
 */
static int load_state(struct rel_state *st, struct releases_opts *o)
{
	char *path = state_path(st);
	json_error_t je;
	json_t *s;

	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	s = json_load_file(path, 0, &je);
	free(path);
	if (!s)
		return err_set(ERR_INPUT, "no manual release bisection is in "
					  "progress (start one with --manual)");
	if (json_unpack(s, "{s:s, s:s, s:s, s:o, s:s}", "flavour", &o->flavour,
			"good", &o->good, "bad", &o->bad, "marks", &st->marks,
			"pending", &st->pending)) {
		json_decref(s);
		return err_set(ERR_INPUT, "the saved manual bisection is "
					  "damaged: start again with --manual");
	}
	st->saved = s;
	json_incref(st->marks);
	return 0;
}

/* bisectd's answers ("ABI:good ABI:bad ...") as marks. */
static int parse_answers(json_t *marks, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, " "), c = strcspn(p, ":");
		char abi[32], v[8];

		if (c >= len || c >= sizeof(abi) || len - c - 1 >= sizeof(v))
			return err_set(ERR_INPUT, "bad answers '%.40s'", p);
		snprintf(abi, sizeof(abi), "%.*s", (int)c, p);
		snprintf(v, sizeof(v), "%.*s", (int)(len - c - 1), p + c + 1);
		if (strcmp(v, "good") && strcmp(v, "bad") && strcmp(v, "skip"))
			return err_set(ERR_INPUT, "bad answer '%s'", v);
		json_array_append_new(marks, json_pack("{s:s, s:s}", "release",
						       abi, "verdict", v));
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

static int save_state(struct rel_state *st, const char *pending)
{
	char *path = state_path(st), *text;
	json_t *s =
		json_pack("{s:s, s:s, s:s, s:O, s:s}", "flavour",
			  st->o->flavour, "good", st->o->good, "bad",
			  st->o->bad, "marks", st->marks, "pending", pending);
	int rc;

	text = s ? json_dumps(s, JSON_INDENT(2)) : NULL;
	rc = path && text ? util_write_atomic(path, text, strlen(text))
			  : err_set(ERR_NOMEM, "out of memory");
	free(text);
	free(path);
	json_decref(s);
	return rc;
}

static void drop_state(struct rel_state *st)
{
	char *path = st->o->stateless ? NULL : state_path(st);

	if (path)
		unlink(path);
	free(path);
}

static long candidate_index(struct release **cand, size_t n, const char *abi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(cand[i]->abi, abi))
			return (long)i;
	return -1;
}

/*
 * The user's answers so far, replayed into git's bisection; then either
 * the next release to install (saved, and said how) or the end.
 */
static int run_manual(struct rel_state *st, struct release **cand, size_t n,
		      long *culprit, const char **why)
{
	const char *v = st->o->continue_verdict;
	struct engine *e = NULL;
	json_t *m;
	uint32_t pick;
	size_t i;
	int rc = linear_engine(&e, n);

	*culprit = -1;
	if (!rc && v)
		json_array_append_new(st->marks,
				      json_pack("{s:s, s:s}", "release",
						st->pending, "verdict", v));
	json_array_foreach(st->marks, i, m)
	{
		const char *abi =
			json_string_value(json_object_get(m, "release"));
		const char *mv =
			json_string_value(json_object_get(m, "verdict"));
		long k = abi && mv ? candidate_index(cand, n, abi) : -1;

		if (rc || k < 0)
			continue;
		rc = engine_mark(e, (uint32_t)k,
				 !strcmp(mv, "good")  ? VERDICT_GOOD
				 : !strcmp(mv, "bad") ? VERDICT_BAD
						      : VERDICT_SKIP);
	}
	if (!rc) {
		enum engine_state es = engine_next(e, &pick);

		if (es == ENGINE_TEST) {
			struct release *r = cand[pick];

			rc = releases_describe(st, r);
			if (!rc && !st->o->stateless)
				rc = save_state(st, r->abi);
			if (!rc && st->o->stateless) {
				printf("next: install release %s and boot it:\n"
				       "  apt-get install "
				       "linux-image-%s-%s=%s\n"
				       "(%zu releases left to tell apart)\n",
				       r->abi, r->abi, st->o->flavour,
				       r->version, engine_candidate_count(e));
				st->waiting = r;
			} else if (!rc) {
				printf("next: install release %s and boot it:\n"
				       "  apt-get install "
				       "linux-image-%s-%s=%s\n"
				       "then, once you know whether it works:\n"
				       "  bisectctl releases --continue "
				       "good|bad|skip\n"
				       "(%zu releases left to tell apart; the "
				       "state is kept in "
				       "%s/manual-state.json)\n",
				       r->abi, r->abi, st->o->flavour,
				       r->version, engine_candidate_count(e),
				       st->dir);
				st->waiting = r;
			}
		} else if (es == ENGINE_FOUND) {
			*culprit = pick;
			drop_state(st);
		} else {
			*why = "only skipped releases are left";
			drop_state(st);
		}
	}
	engine_free(e);
	return rc;
}

static void free_releases(struct rel_state *st)
{
	size_t i;

	for (i = 0; i < st->nrels; i++) {
		free(st->rels[i].deb);
		free(st->rels[i].vmlinuz);
		free(st->rels[i].changelog);
		free(st->rels[i].modules);
		free(st->rels[i].initrd);
		free(st->rels[i].title);
	}
	free(st->rels);
}

int releases_package(const char *cache, const char *flavour, const char *abi,
		     const char *out_dir, char **deb)
{
	struct releases_opts o = { .flavour = flavour,
				   .cache = cache,
				   .out_dir = out_dir };
	struct rel_state st = { .o = &o };
	long i = -1;
	int rc;

	*deb = NULL;
	if ((rc = words_ok(flavour, &abi, 1)))
		return rc;
	st.dir = util_fmt("%s/releases", cache);
	rc = st.dir ? util_mkdir_p(st.dir)
		    : err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = util_mkdir_p(out_dir);
	if (!rc)
		rc = releases_list(&st);
	if (!rc && (i = releases_find(&st, abi)) < 0)
		rc = releases_unknown(&st, abi);
	if (!rc)
		rc = releases_fetch(&st, &st.rels[i]);
	if (!rc && !(*deb = strdup(st.rels[i].deb)))
		rc = err_set(ERR_NOMEM, "out of memory");
	free_releases(&st);
	free(st.dir);
	return rc;
}

int releases_bisect(const struct releases_opts *o_in, int *found)
{
	struct releases_opts o_copy = *o_in, *o = &o_copy;
	struct rel_state st = { .o = o };
	struct release **cand = NULL;
	long gi, bi, culprit = -1;
	double confidence = 0;
	const char *why = "";
	size_t n = 0, i;
	int rc;

	*found = 0;
	st.dir = util_fmt("%s/releases", o->cache);
	st.probes = json_array();
	if (!st.dir || !st.probes)
		rc = err_set(ERR_NOMEM, "out of memory");
	else
		rc = util_mkdir_p(st.dir);
	if (!rc && o->continue_verdict) {
		rc = load_state(&st, o);
		o->manual = 1;
	} else if (!rc && o->manual) {
		st.marks = json_array();
		if (!st.marks)
			rc = err_set(ERR_NOMEM, "out of memory");
		else if (o->answers)
			rc = parse_answers(st.marks, o->answers);
	}
	if (!rc) {
		/* as given, or as a --continue's state file says */
		const char *rels[] = { o->good, o->bad };

		rc = words_ok(o->flavour, rels, 2);
	}
	if (!rc)
		rc = releases_list(&st);
	gi = rc ? -1 : releases_find(&st, o->good);
	bi = rc ? -1 : releases_find(&st, o->bad);
	if (!rc && gi < 0)
		rc = releases_unknown(&st, o->good);
	else if (!rc && bi < 0)
		rc = releases_unknown(&st, o->bad);
	else if (!rc && gi >= bi)
		rc = err_set(ERR_INPUT,
			     "the good release %s is not older than the bad "
			     "release %s",
			     o->good, o->bad);
	if (!rc) {
		n = (size_t)(bi - gi);
		cand = calloc(n, sizeof(*cand));
		if (!cand)
			rc = err_set(ERR_NOMEM, "out of memory");
		for (i = 0; !rc && i < n; i++)
			cand[i] = &st.rels[bi - (long)i];
	}
	if (!rc)
		fprintf(stderr,
			"bisecting %zu releases of linux-image-*-%s after %s "
			"up to %s%s\n",
			n, o->flavour, o->good, o->bad,
			o->manual ? ", by hand" : "");
	if (!rc && o->manual) {
		rc = run_manual(&st, cand, n, &culprit, &why);
	} else if (!rc) {
		/* QEMU itself must be there: a kernel it cannot start is then
		 * the release's fault (a skip), not the machine's */
		if (!util_in_path(o->recipe->qemu))
			rc = err_set(ERR_INFRA, "%s is not installed",
				     o->recipe->qemu);
		if (!rc)
			rc = check_good(&st, &st.rels[gi]);
		if (!rc)
			rc = run_engine(&st, cand, n, &culprit, &confidence,
					&why);
	}
	if (!rc && st.waiting) {
		rc = report_waiting(&st, st.waiting);
		*found = !rc;
	} else if (!rc && culprit >= 0) {
		struct release *good = &st.rels[bi - culprit - 1];

		/* both packages: for their versions, the last good one's
		 * config and the changelog (a manual bisection fetched
		 * neither) */
		rc = releases_fetch(&st, good);
		if (!rc)
			rc = releases_fetch(&st, cand[culprit]);
		*found = 1;
		if (!rc)
			rc = releases_report(&st, cand[culprit], good, found,
					     confidence, why);
		if (rc)
			*found = 0;
	} else if (!rc) {
		rc = releases_report(&st, NULL, NULL, found, 0, why);
	}
	free_releases(&st);
	free(cand);
	free(st.dir);
	json_decref(st.probes);
	json_decref(st.marks);
	json_decref(st.saved);
	return rc;
}
