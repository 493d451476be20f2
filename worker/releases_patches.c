// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debian's own patches between two revisions of one upstream version:
 * the two source tarballs (by SHA256 from APT's index), their series
 * merged in order, and a linear history of them written on the upstream
 * tag, which the commit bisection then bisects.
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

/* The first "E: " line of log (APT's reason) into why, else fallback. */
static void apt_reason(const char *log, const char *fallback, char *why,
		       size_t size)
{
	struct buf b;
	const char *p = NULL;

	buf_init(&b, 1 << 20);
	if (!buf_read_file(&b, log))
		for (p = buf_str(&b); (p = strstr(p, "E: ")); p += 3)
			if (p == buf_str(&b) || p[-1] == '\n')
				break;
	snprintf(why, size, "%.*s", p ? (int)strcspn(p + 3, "\n") : 300,
		 p ? p + 3 : fallback);
	buf_release(&b);
}

/*
 * The Debian source package linux=version's debian.tar.* in the cache:
 * its URI, name and SHA256 from apt-get source --print-uris (deb-src
 * lines in APT's sources), fetched with apt-helper, which checks the
 * hash.  Its path into *path; 0, or why not into why.
 */
static int debian_tarball(struct rel_state *st, const char *version,
			  char **path, char *why, size_t size)
{
	char *spec = util_fmt("linux=%s", version),
	     *log = util_fmt("%s/apt-source-%s.log", st->o->out_dir, version),
	     *hlog = util_fmt("%s/apt-helper-%s.log", st->o->out_dir, version);
	const char *argv[] = { "apt-get", "source", "--print-uris",
			       "-q",	  spec,	    NULL };
	char uri[2048], name[256], sha[80];
	unsigned long long bytes;
	struct buf b;
	const char *p;
	int rc, found = 0;

	*path = NULL;
	buf_init(&b, 4u << 20);
	if (!spec || !log || !hlog) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (releases_run_tool(argv, NULL, log)) {
		apt_reason(log, err_last(), why, size);
		rc = -1;
		goto out;
	}
	rc = buf_read_file(&b, log);
	for (p = buf_str(&b); !rc && *p && !found;
	     p += strcspn(p, "\n"), p += *p == '\n')
		found = sscanf(p, "'%2047[^']' %255s %llu SHA256:%79s", uri,
			       name, &bytes, sha) == 4 &&
			strstr(name, ".debian.tar.") && !strchr(name, '/') &&
			name[0] != '.' && strlen(sha) == 64;
	if (!rc && !found) {
		snprintf(why, size,
			 "apt-get source linux=%s names no "
			 "debian.tar",
			 version);
		rc = -1;
	}
	if (rc)
		goto out;
	*path = util_fmt("%s/%s", st->dir, name);
	if (!*path) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!releases_in_cache(*path, sha)) {
		char hash[96];
		const char *get[] = { "/usr/lib/apt/apt-helper",
				      "download-file",
				      uri,
				      *path,
				      hash,
				      NULL };

		snprintf(hash, sizeof(hash), "SHA256:%s", sha);
		fprintf(stderr, "linux %s: downloading %s\n", version, name);
		unlink(*path);
		if (releases_run_tool(get, NULL, hlog)) {
			apt_reason(hlog, err_last(), why, size);
			rc = -1;
		}
	}
out:
	if (rc) {
		free(*path);
		*path = NULL;
	}
	buf_release(&b);
	free(spec);
	free(log);
	free(hlog);
	return rc;
}

/* A revision's debian/patches: the series in order, and each patch's
 * content hash and subject. */
struct patchset {
	json_t *series; /* names */
	json_t *files;	/* name -> {"sha256", "subject", "i": index} */
	/* the patches' texts, by their "i" */
	char **texts;
	size_t *lens, n;
};

static void patchset_release(struct patchset *ps)
{
	size_t i;

	json_decref(ps->series);
	json_decref(ps->files);
	for (i = 0; i < ps->n; i++)
		free(ps->texts[i]);
	free(ps->texts);
	free(ps->lens);
	memset(ps, 0, sizeof(*ps));
}

/* The text of patch name of ps (NULL when it has none), its length
 * into *len. */
static const char *patch_text(const struct patchset *ps, const char *name,
			      size_t *len)
{
	json_t *i = json_object_get(json_object_get(ps->files, name), "i");

	if (!json_is_integer(i) || (size_t)json_integer_value(i) >= ps->n)
		return NULL;
	*len = ps->lens[json_integer_value(i)];
	return ps->texts[json_integer_value(i)];
}

/* The first Subject: or Description: line of a patch, without it. */
static json_t *subject_of(const char *text)
{
	const char *p;

	for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (!strncmp(p, "Subject: ", 9))
			return json_stringn(p + 9, strcspn(p + 9, "\n"));
		if (!strncmp(p, "Description: ", 13))
			return json_stringn(p + 13, strcspn(p + 13, "\n"));
		if (!strncmp(p, "--- ", 4))
			break; /* the diff itself */
	}
	return json_string("");
}

static int read_patches(const char *tarball, struct patchset *ps)
{
	struct arc *a = NULL;
	struct arc_entry e;
	struct buf text;
	int rc;

	ps->series = json_array();
	ps->files = json_object();
	buf_init(&text, 64u << 20);
	rc = arc_open(&a, tarball, ARC_TAR);
	while (!rc && (rc = arc_next(a, &e)) == 1) {
		const char *n = e.name + (strncmp(e.name, "./", 2) ? 0 : 2);
		char hex[DIGEST_HEXSZ + 1];

		rc = 0;
		if (e.type != ARC_FILE || strncmp(n, "debian/patches/", 15))
			continue;
		buf_reset(&text);
		if ((rc = arc_read_buf(a, &text)))
			break;
		n += 15;
		if (!strcmp(n, "series")) {
			const char *p = buf_str(&text);

			for (; *p; p += strcspn(p, "\n"), p += *p == '\n') {
				size_t len = strcspn(p, " \t\n#");

				if (len)
					json_array_append_new(
						ps->series,
						json_stringn(p, len));
			}
			continue;
		}
		digest_sha256_hex(hex, text.ptr, text.len);
		{
			char **t = realloc(ps->texts, (ps->n + 1) * sizeof(*t));
			size_t *l =
				t ? realloc(ps->lens, (ps->n + 1) * sizeof(*l))
				  : NULL;

			if (t)
				ps->texts = t;
			if (l)
				ps->lens = l;
			if (!t || !l) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			ps->lens[ps->n] = text.len;
			if (!(ps->texts[ps->n] = buf_detach(&text))) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
		}
		json_object_set_new(ps->files, n,
				    json_pack("{s:s, s:o, s:I}", "sha256", hex,
					      "subject",
					      subject_of(ps->texts[ps->n]), "i",
					      (json_int_t)ps->n));
		ps->n++;
	}
	arc_close(a);
	buf_release(&text);
	return rc;
}

static int in_series(json_t *series, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(series, i,
			   v) if (!strcmp(json_string_value(v), name)) return 1;
	return 0;
}

/* { name, subject } of a patch of ps. */
static json_t *patch_entry(const struct patchset *ps, const char *name)
{
	json_t *f = json_object_get(ps->files, name);
	json_t *s = json_object_get(f, "subject");

	return json_pack("{s:s, s:s}", "name", name, "subject",
			 json_is_string(s) ? json_string_value(s) : "");
}

/* What became of a patch from the good series to the bad one. */
static const char *change_of(const struct patchset *g, const struct patchset *b,
			     const char *name)
{
	json_t *fg = json_object_get(g->files, name),
	       *fb = json_object_get(b->files, name);

	if (!in_series(b->series, name))
		return "removed";
	if (!in_series(g->series, name))
		return "added";
	return json_equal(json_object_get(fg, "sha256"),
			  json_object_get(fb, "sha256"))
		       ? "same"
		       : "changed";
}

/* names: a list of patch names, with room for cap */
struct names {
	const char **v;
	size_t n;
};

static void insert_at(struct names *l, size_t at, const char *name)
{
	memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof(*l->v));
	l->v[at] = name;
	l->n++;
}

/*
 * The order in which the patch level applies both series: the bad
 * series, with each removed patch put back after the good series' patch
 * before it that both series have (or first).
 */
static int merged_order(const struct patchset *g, const struct patchset *b,
			struct names *m)
{
	size_t ng = json_array_size(g->series), i, j, at = 0;
	json_t *v;

	m->n = 0;
	m->v = calloc(ng + json_array_size(b->series) + 1, sizeof(*m->v));
	if (!m->v)
		return err_set(ERR_NOMEM, "out of memory");
	json_array_foreach(b->series, i, v) m->v[m->n++] = json_string_value(v);
	for (i = 0; i < ng; i++) {
		const char *n = json_string_value(json_array_get(g->series, i));

		if (in_series(b->series, n)) {
			for (j = 0; j < m->n && strcmp(m->v[j], n); j++)
				;
			at = j + 1;
		} else {
			insert_at(m, at++, n);
		}
	}
	return 0;
}

/* The index of name in the differences d (the patch level's steps). */
static size_t diff_index(const struct names *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n && strcmp(d->v[i], name); i++)
		;
	return i;
}

/*
 * Step k of the patch level: the series with the first k differences
 * taken over from the bad release (patches removed, changed to their
 * new text, or added); its texts into names/texts/lens.
 */
static size_t series_at(const struct patchset *g, const struct patchset *b,
			const struct names *m, const struct names *d, size_t k,
			const char **names, const char **texts, size_t *lens)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++) {
		const char *c = change_of(g, b, m->v[i]);
		int newer = diff_index(d, m->v[i]) < k;
		const struct patchset *from = b;

		if (!strcmp(c, "removed")) {
			if (newer)
				continue;
			from = g;
		} else if (!strcmp(c, "added") && !newer) {
			continue;
		} else if (!strcmp(c, "changed") && !newer) {
			from = g;
		}
		names[n] = m->v[i];
		texts[n] = patch_text(from, m->v[i], &lens[n]);
		if (texts[n])
			n++;
	}
	return n;
}

/*
 * The patch level: with a repository that has the upstream version's
 * tag, a linear history there from the good release's series applied
 * on the tag (the first commit) to the bad release's (the last), a
 * commit per difference: the removed patches taken out, then the
 * changed and added ones taken over in the bad series' order, each
 * commit's series applied on the tag from scratch.  The commit-level
 * bisection between the first and the last names the first bad patch.
 * Into out: "bisection" (bisect's result) and "first_bad_patch", or
 * "bisection_error".  Returns bisect's exit status, or 0 when it could
 * not run (the error says why).
 */
static int patch_level(struct rel_state *st, const struct release *good,
		       const struct release *bad, const struct patchset *g,
		       const struct patchset *b, const char *recipe,
		       json_t *out)
{
	const struct releases_opts *ro = st->o;
	struct names m = { 0 }, d = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid up, *c = NULL;
	const char **names = NULL, **texts = NULL;
	size_t *lens = NULL, k, n, i;
	char tag[64], hex0[GU_HEXSZ + 1], hexn[GU_HEXSZ + 1];
	char *json = util_fmt("%s/patch-level.json", ro->out_dir),
	     *dir = util_fmt("%s/patch-level", ro->out_dir);
	int rc, status = -1;
	json_t *v;

	snprintf(tag, sizeof(tag), "refs/tags/v%s", good->upstream);
	rc = json && dir ? merged_order(g, b, &m)
			 : err_set(ERR_NOMEM, "out of memory");
	d.v = rc ? NULL : calloc(m.n + 1, sizeof(*d.v));
	names = calloc(m.n + 1, sizeof(*names));
	texts = calloc(m.n + 1, sizeof(*texts));
	lens = calloc(m.n + 1, sizeof(*lens));
	c = calloc(m.n + 1, sizeof(*c));
	if (!rc && (!d.v || !names || !texts || !lens || !c))
		rc = err_set(ERR_NOMEM, "out of memory");
	/* the differences: removed ones first, then the bad series' order */
	for (i = 0; !rc && i < json_array_size(g->series); i++) {
		const char *name =
			json_string_value(json_array_get(g->series, i));

		if (!strcmp(change_of(g, b, name), "removed"))
			d.v[d.n++] = name;
	}
	for (i = 0; !rc && i < json_array_size(b->series); i++) {
		const char *name =
			json_string_value(json_array_get(b->series, i));

		if (strcmp(change_of(g, b, name), "same"))
			d.v[d.n++] = name;
	}
	if (!rc && ro->repo_handle)
		repo = ro->repo_handle;
	else if (!rc)
		rc = gu_open(&repo, ro->repo);
	if (!rc && gu_resolve(repo, tag, &up))
		rc = err_set(ERR_INPUT, "%s has no tag v%s", ro->repo,
			     good->upstream);
	if (!rc) {
		char *msg = util_fmt("linux %s: Debian's %zu patches on v%s\n",
				     good->version, json_array_size(g->series),
				     good->upstream);

		n = 0;
		json_array_foreach(g->series, i, v)
		{
			names[n] = json_string_value(v);
			texts[n] = patch_text(g, names[n], &lens[n]);
			n += texts[n] != NULL;
		}
		rc = msg ? gu_commit_patched(&c[0], repo, &up, &up, names,
					     texts, lens, n, msg)
			 : err_set(ERR_NOMEM, "out of memory");
		free(msg);
	}
	for (k = 1; !rc && k <= d.n; k++) {
		json_t *f = json_object_get(
			json_object_get(b->files, d.v[k - 1]), "subject");
		char *msg;

		if (!f)
			f = json_object_get(
				json_object_get(g->files, d.v[k - 1]),
				"subject");
		msg = util_fmt("linux %s: %s %s\n\n%s\n", bad->version,
			       change_of(g, b, d.v[k - 1]), d.v[k - 1],
			       json_is_string(f) ? json_string_value(f) : "");
		n = series_at(g, b, &m, &d, k, names, texts, lens);
		rc = msg ? gu_commit_patched(&c[k], repo, &up, &c[k - 1], names,
					     texts, lens, n, msg)
			 : err_set(ERR_NOMEM, "out of memory");
		free(msg);
	}
	if (rc) {
		json_object_set_new(out, "bisection_error",
				    json_string(err_last()));
		printf("Debian's patches cannot be bisected: %s\n", err_last());
		goto done;
	}
	gu_oid_hex(hex0, &c[0]);
	gu_oid_hex(hexn, &c[d.n]);
	printf("bisecting Debian's %zu changes of patches from linux %s to "
	       "%s, applied on v%s in %s (commits %.12s..%.12s), with %s\n",
	       d.n, good->version, bad->version, good->upstream, ro->repo, hex0,
	       hexn, recipe);
	fflush(stdout);
	status = ro->bisect_commits(ro, hex0, hexn, recipe, json, dir);
	if (status >= 0) {
		json_t *r = json_load_file(json, 0, NULL);
		const char *fb =
			json_string_value(json_object_get(r, "first_bad"));

		for (k = 1; fb && k <= d.n; k++) {
			gu_oid_hex(hexn, &c[k]);
			if (strcmp(fb, hexn))
				continue;
			v = patch_entry(
				strcmp(change_of(g, b, d.v[k - 1]), "removed")
					? b
					: g,
				d.v[k - 1]);
			json_object_set_new(
				v, "change",
				json_string(change_of(g, b, d.v[k - 1])));
			printf("first bad patch: %s (%s)%s%s\n", d.v[k - 1],
			       change_of(g, b, d.v[k - 1]),
			       *json_string_value(json_object_get(v, "subject"))
				       ? ": "
				       : "",
			       json_string_value(
				       json_object_get(v, "subject")));
			json_object_set_new(out, "first_bad_patch", v);
		}
		json_object_set_new(out, "bisection",
				    r ? r : json_pack("{s:i}", "exit", status));
	}
done:
	if (repo != ro->repo_handle)
		gu_close(repo);
	free(m.v);
	free(d.v);
	free(names);
	free(texts);
	free(lens);
	free(c);
	free(json);
	free(dir);
	return status < 0 ? 0 : status;
}

/*
 * What Debian's patches changed from good to bad (one upstream version,
 * two Debian revisions): those added to the series, removed from it,
 * and changed, as "debian_patches" in o and on the terminal; or why
 * they cannot be had.  With a repository, they are bisected too
 * (patch_level, with recipe): its exit status, else 0.
 */
int releases_debian_patches(struct rel_state *st, const struct release *good,
			    const struct release *bad, const char *recipe,
			    json_t *o)
{
	struct patchset g = { 0 }, b = { 0 };
	char *gt = NULL, *bt = NULL, why[512] = "";
	int status = 0;
	json_t *out = json_object(), *added = json_array(),
	       *removed = json_array(), *changed = json_array(), *v;
	size_t i;

	json_object_set_new(out, "good_source",
			    json_pack("s+", "linux ", good->version));
	json_object_set_new(out, "bad_source",
			    json_pack("s+", "linux ", bad->version));
	if (debian_tarball(st, good->version, &gt, why, sizeof(why)) == 0 &&
	    debian_tarball(st, bad->version, &bt, why, sizeof(why)) == 0 &&
	    (read_patches(gt, &g) || read_patches(bt, &b)))
		snprintf(why, sizeof(why), "%s", err_last());
	if (!*why) {
		json_array_foreach(b.series, i, v)
		{
			const char *n = json_string_value(v);
			json_t *fg = json_object_get(g.files, n),
			       *fb = json_object_get(b.files, n);

			if (!in_series(g.series, n))
				json_array_append_new(added,
						      patch_entry(&b, n));
			else if (!json_equal(json_object_get(fg, "sha256"),
					     json_object_get(fb, "sha256")))
				json_array_append_new(changed,
						      patch_entry(&b, n));
		}
		json_array_foreach(g.series, i, v)
		{
			if (!in_series(b.series, json_string_value(v)))
				json_array_append_new(
					removed,
					patch_entry(&g, json_string_value(v)));
		}
		printf("Debian's patches from linux %s to %s: %zu added, "
		       "%zu removed, %zu changed (of %zu)\n",
		       good->version, bad->version, json_array_size(added),
		       json_array_size(removed), json_array_size(changed),
		       json_array_size(b.series));
		{
			json_t *const lists[] = { added, removed, changed };
			const char marks[] = "+-~";
			size_t k;

			for (k = 0; k < 3; k++)
				json_array_foreach(lists[k], i, v) printf(
					"  %c %s%s%s\n", marks[k],
					json_string_value(
						json_object_get(v, "name")),
					*json_string_value(
						json_object_get(v, "subject"))
						? ": "
						: "",
					json_string_value(
						json_object_get(v, "subject")));
		}
		json_object_set(out, "added", added);
		json_object_set(out, "removed", removed);
		json_object_set(out, "changed", changed);
		if (st->o->repo && st->o->bisect_commits && recipe &&
		    json_array_size(added) + json_array_size(removed) +
				    json_array_size(changed) >
			    0)
			status =
				patch_level(st, good, bad, &g, &b, recipe, out);
	} else {
		printf("Debian's patches from linux %s to %s cannot be had: "
		       "%s\n",
		       good->version, bad->version, why);
		json_object_set_new(out, "unavailable", json_string(why));
	}
	json_object_set_new(o, "debian_patches", out);
	json_decref(added);
	json_decref(removed);
	json_decref(changed);
	patchset_release(&g);
	patchset_release(&b);
	free(gt);
	free(bt);
	return status;
}
