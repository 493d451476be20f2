// SPDX-License-Identifier: GPL-2.0-only
/*
 * get_maintainer.pl's answer from the index (maintindex.h): the sections
 * of each file, deepest pattern first, those of the K: keywords, their
 * people and lists, .mailmap applied, each person once, and the signers
 * of the commits that Fixes: lines name (maintainers.c's design).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "maintindex.h"

/* --- building an answer ---------------------------------------------- */

struct strv {
	char **v;
	size_t n;
};

static int strv_add(struct strv *s, const char *v)
{
	return maint_add_value(&s->v, &s->n, v);
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int strv_has(const struct strv *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], v))
			return 1;
	return 0;
}

static char *lower(const char *s)
{
	char *l = strdup(s);

	for (char *p = l; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

struct answer {
	struct strv to, lists;	      /* formatted, in order */
	struct strv names, addresses; /* in use, lower case */
	struct strv seen_lists;	      /* lower case */
	struct mapping *dd_names;     /* deduplicate_email's */
	struct mapping *dd_addresses; /* key -> "name\naddress" */
	size_t ndd_names, ndd_addresses;
};

static void answer_free(struct answer *a)
{
	strv_free(&a->to);
	strv_free(&a->lists);
	strv_free(&a->names);
	strv_free(&a->addresses);
	strv_free(&a->seen_lists);
	maint_free_mappings(a->dd_names, a->ndd_names);
	maint_free_mappings(a->dd_addresses, a->ndd_addresses);
}

static int lower_has(const struct strv *s, const char *v)
{
	char *l = lower(v);
	int has = l && strv_has(s, l);

	free(l);
	return has;
}

static int lower_add(struct strv *s, const char *v)
{
	char *l = lower(v);
	int rc = l ? strv_add(s, l) : err_set(ERR_NOMEM, "out of memory");

	free(l);
	return rc;
}

/* push_email_address: a person, unless one of that name or address is in */
static int push_person(struct maint_index *ix, struct answer *a,
		       const char *line)
{
	struct email e;
	char *f;
	int rc;

	if (maint_parse_email(ix, line, &e))
		return ERR_NOMEM;
	rc = 0;
	if (*e.address && !(*e.name && lower_has(&a->names, e.name)) &&
	    !lower_has(&a->addresses, e.address)) {
		f = maint_format_email(e.name, e.address);
		rc = f ? strv_add(&a->to, f)
		       : err_set(ERR_NOMEM, "out of memory");
		free(f);
		if (!rc && *e.name)
			rc = lower_add(&a->names, e.name);
		if (!rc)
			rc = lower_add(&a->addresses, e.address);
	}
	maint_email_free(&e);
	return rc;
}

/* add_categories: a section's people and lists */
static int add_section(struct maint_index *ix, struct answer *a, size_t sec)
{
	const struct msection *s = &ix->sections[sec];
	size_t i;
	int rc = 0;

	for (i = 0; i < s->npeople && !rc; i++)
		rc = push_person(ix, a, s->people[i]);
	for (i = 0; i < s->nlists && !rc; i++) {
		const char *v = s->lists[i];
		char *address, *extra;

		if (maint_found(ix, ix->fixed[RX_LIST], v, strlen(v))) {
			address = maint_group(ix, v, 1);
			extra = maint_group(ix, v, 2);
		} else {
			address = strdup(v);
			extra = strdup("");
		}
		if (!address || !extra)
			rc = err_set(ERR_NOMEM, "out of memory");
		else if (!strstr(extra, "subscribers-only") &&
			 !lower_has(&a->seen_lists, address)) {
			rc = lower_add(&a->seen_lists, address);
			if (!rc)
				rc = strv_add(&a->lists, address);
		}
		free(address);
		free(extra);
	}
	return rc;
}

static const char *dd_find(const struct mapping *m, size_t n, const char *k)
{
	char *l = lower(k);
	const char *v = l ? maint_mapped(m, n, l) : NULL;

	free(l);
	return v;
}

/* deduplicate_email: one spelling for each name and each address */
static char *deduplicate(struct maint_index *ix, struct answer *a,
			 const char *in)
{
	struct email e;
	char *f, *m, *out = NULL;
	const char *hit;

	if (maint_parse_email(ix, in, &e))
		return NULL;
	f = maint_format_email(e.name, e.address);
	maint_email_free(&e);
	m = f ? maint_mailmap_email(ix, f) : NULL;
	free(f);
	if (!m || maint_parse_email(ix, m, &e)) {
		free(m);
		return NULL;
	}
	free(m);
	hit = *e.name ? dd_find(a->dd_names, a->ndd_names, e.name) : NULL;
	if (!hit)
		hit = dd_find(a->dd_addresses, a->ndd_addresses, e.address);
	if (hit) {
		char *nl = strchr(hit, '\n');

		free(e.name);
		free(e.address);
		e.name = strndup(hit, (size_t)(nl - hit));
		e.address = strdup(nl + 1);
	} else {
		char *pair = malloc(strlen(e.name) + strlen(e.address) + 2);
		char *ln = lower(e.name), *la = lower(e.address);

		if (pair && ln && la) {
			sprintf(pair, "%s\n%s", e.name, e.address);
			maint_add_mapping(&a->dd_names, &a->ndd_names, ln,
					  pair);
			maint_add_mapping(&a->dd_addresses, &a->ndd_addresses,
					  la, pair);
		}
		free(pair);
		free(ln);
		free(la);
	}
	if (e.name && e.address) {
		f = maint_format_email(e.name, e.address);
		out = f ? maint_mailmap_email(ix, f) : NULL;
		free(f);
	}
	maint_email_free(&e);
	return out;
}

static int deduplicate_all(struct maint_index *ix, struct answer *a,
			   struct strv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		char *d = deduplicate(ix, a, v->v[i]);

		if (!d)
			return err_set(ERR_NOMEM, "out of memory");
		free(v->v[i]);
		v->v[i] = d;
	}
	return 0;
}

static int by_text(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * The signers of the commit that a Fixes: line names (Signed-off-by,
 * Reviewed-by and Acked-by lines, Linus Torvalds left out), each once,
 * the most frequent five.
 */
static int fix_signers(struct maint_index *ix, struct answer *a,
		       const char *hex)
{
	struct buf body;
	struct strv signers = { 0 };
	const char *p;
	size_t i, j, counted = 0;
	int rc = 0;

	if (!ix->tree.commit_body)
		return 0;
	buf_init(&body, 16u << 20);
	if (ix->tree.commit_body(hex, &body, ix->tree.ctx)) {
		buf_release(&body);
		return 0; /* no such commit: no one */
	}
	for (p = buf_str(&body); *p && !rc;) {
		size_t l = strcspn(p, "\n");
		char *line = strndup(p, l), *lc, *s = NULL, *d;
		PCRE2_SIZE *ov;

		p += l + (p[l] != 0);
		if (!line) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		lc = lower(line);
		if (lc && !strstr(lc, "linus torvalds") &&
		    maint_found(ix, ix->fixed[RX_SIGNATURE], line, l) &&
		    maint_found(ix, ix->fixed[RX_SIGNER], line, l)) {
			ov = pcre2_get_ovector_pointer(ix->md);
			s = malloc(l + 1);
			if (s)
				sprintf(s, "%.*s%.*s%s", (int)ov[0], line,
					(int)(ov[3] - ov[2]), line + ov[2],
					line + ov[1]);
		}
		free(lc);
		free(line);
		if (!s)
			continue;
		/* once when read, once more when assigned */
		d = deduplicate(ix, a, s);
		free(s);
		s = d ? deduplicate(ix, a, d) : NULL;
		free(d);
		d = s ? maint_mailmap_email(ix, s) : NULL;
		free(s);
		rc = d ? strv_add(&signers, d)
		       : err_set(ERR_NOMEM, "out of memory");
		free(d);
	}
	buf_release(&body);
	qsort(signers.v, signers.n, sizeof(*signers.v), by_text);
	/* by how often each appears, most first; then in sorted order */
	for (size_t most = signers.n; most > 0 && !rc && counted < 5; most--)
		for (i = 0; i < signers.n && !rc && counted < 5; i = j) {
			for (j = i; j < signers.n &&
				    !strcmp(signers.v[i], signers.v[j]);
			     j++)
				;
			if (j - i != most)
				continue;
			counted++;
			rc = push_person(ix, a, signers.v[i]);
		}
	strv_free(&signers);
	return rc;
}

/*
 * A name of n words, as its last two, or its last three when the first
 * or the middle one of those is an initial; 1 (nothing written) for a
 * name of fewer than three.
 */
static int name_rules(char **f, size_t n, struct buf *out)
{
	const char *first, *middle, *last;

	if (n <= 2)
		return 1;
	first = f[n - 3];
	middle = f[n - 2];
	last = f[n - 1];
	if ((strlen(first) == 1 && isalpha((unsigned char)first[0])) ||
	    (strlen(first) == 2 && first[1] == '.') || strlen(middle) == 1 ||
	    (strlen(middle) == 2 && middle[1] == '.'))
		buf_printf(out, "%s %s %s", first, middle, last);
	else
		buf_printf(out, "%s %s", middle, last);
	return 0;
}

/*
 * get_maintainer.pl's clean_file_emails for one address that a file
 * names: a name cut to its last two or three words, stray commas and
 * dots off its ends.
 */
static char *clean_file_email(struct maint_index *ix, const char *raw)
{
	struct buf b, nb;
	struct email e;
	const char *p = raw;
	char *out = NULL, **f = NULL, *name;
	size_t nf = 0, l;

	buf_init(&b, 1 << 20);
	while (maint_found(ix, ix->fixed[RX_BRACKETED], p, strlen(p))) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ix->md);

		buf_put(&b, p, ov[0]); /* never empty: it holds an '@' */
		buf_printf(&b, "<%.*s>", (int)(ov[3] - ov[2]), p + ov[2]);
		p += ov[1];
	}
	buf_puts(&b, p);
	if (maint_parse_email(ix, buf_str(&b), &e)) {
		buf_release(&b);
		return NULL;
	}
	buf_release(&b);
	if (!strcmp(e.name, "\"[,\\.]\""))
		e.name[0] = '\0';
	/* split: fields between the separators, trailing empty ones dropped */
	for (p = e.name;;) {
		size_t n =
			maint_found(ix, ix->fixed[RX_NAME_SPLIT], p, strlen(p))
				? pcre2_get_ovector_pointer(ix->md)[0]
				: strlen(p);
		char **nv = realloc(f, (nf + 1) * sizeof(*f));

		if (!nv)
			break;
		f = nv;
		f[nf++] = strndup(p, n);
		if (!p[n])
			break;
		p += n + 1;
	}
	while (nf && f[nf - 1] && !*f[nf - 1])
		free(f[--nf]);
	buf_init(&nb, 1 << 20);
	if (name_rules(f, nf, &nb))
		buf_puts(&nb, e.name);
	for (size_t i = 0; i < nf; i++)
		free(f[i]);
	free(f);
	name = buf_detach(&nb);
	if (name) {
		l = strlen(name);
		if (l && strchr(",.", name[l - 1]))
			name[--l] = '\0';
		else if (l >= 2 && strchr(",.", name[l - 2]) &&
			 name[l - 1] == '"')
			name[--l - 1] = '"', name[l] = '\0';
		if (l && strchr(",.", name[0]))
			memmove(name, name + 1, l--);
		else if (l >= 2 && name[0] == '"' && strchr(",.", name[1]))
			memmove(name + 1, name + 2, l-- - 1);
		out = maint_format_email(name, e.address);
	}
	free(name);
	maint_email_free(&e);
	return out;
}

/*
 * get_maintainer.pl's maintainers_in_file: the addresses that a file of
 * devicetree bindings (.yaml) names, each once, into v.
 */
static int file_emails(struct maint_index *ix, const char *file, struct strv *v)
{
	struct buf text;
	const char *p;
	size_t l = strlen(file);
	int rc = 0;

	if (l < 5 || strcmp(file + l - 5, ".yaml") || !ix->tree.read_file)
		return 0;
	buf_init(&text, 256u << 20);
	if (ix->tree.read_file(file, &text, ix->tree.ctx)) {
		buf_release(&text);
		return 0;
	}
	for (p = buf_str(&text);
	     !rc && maint_found(ix, ix->fixed[RX_FILE_EMAIL], p, strlen(p));) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ix->md);
		char *m = strndup(p + ov[0], ov[1] - ov[0]), *c;

		p += ov[1];
		c = m ? clean_file_email(ix, m) : NULL;
		free(m);
		if (!c)
			rc = err_set(ERR_NOMEM, "out of memory");
		else if (!strv_has(v, c))
			rc = strv_add(v, c);
		free(c);
	}
	buf_release(&text);
	return rc;
}

/* The addresses that files name, as people of the answer. */
static int push_file_emails(struct maint_index *ix, struct answer *a,
			    const struct strv *files)
{
	struct strv v = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < files->n && !rc; i++)
		rc = file_emails(ix, files->v[i], &v);
	for (i = 0; i < v.n && !rc; i++) {
		char *m = maint_mailmap_email(ix, v.v[i]);
		struct email e;
		char *f = NULL;

		if (m && !maint_parse_email(ix, m, &e)) {
			f = maint_format_email(e.name, e.address);
			maint_email_free(&e);
		}
		rc = f ? push_person(ix, a, f)
		       : err_set(ERR_NOMEM, "out of memory");
		free(f);
		free(m);
	}
	strv_free(&v);
	return rc;
}

/* --- matching a path ------------------------------------------------- */

static int pattern_matches(struct maint_index *ix, const struct mpat *m,
			   const char *file)
{
	if (!maint_found(ix, m->re, file, strlen(file)))
		return 0;
	return m->type == 'N' || m->prefix ||
	       maint_count_slashes(file) == m->slashes;
}

/* Record a match of m; X: (as -2) outweighs any F: or N: of its section. */
static void note(struct maint_index *ix, const struct mpat *m, size_t *ntouch)
{
	size_t s = m->section;

	if (ix->best[s] == -1 && ix->last[s] == 0)
		ix->touch[(*ntouch)++] = s;
	if (m->type == 'X') {
		ix->best[s] = -2;
		return;
	}
	if (ix->best[s] != -2 && (long)m->len > ix->best[s])
		ix->best[s] = (long)m->len;
	if ((long)m->order + 1 > ix->last[s]) {
		ix->last[s] = (long)m->order + 1;
		ix->depth[s] = m->type == 'N' ? 0 : m->depth;
	}
}

/* Every pattern that matches file, into best[], last[] and depth[]. */
static size_t match_file(struct maint_index *ix, const char *file)
{
	size_t ntouch = 0, i, len = 0;

	/* the patterns whose literal directory is "" or one of file's */
	for (;;) {
		size_t lo = 0, hi = ix->nglobs;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (maint_dircmp(ix->globs[mid], file, len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (;
		     lo < ix->nglobs && !maint_dircmp(ix->globs[lo], file, len);
		     lo++)
			if (pattern_matches(ix, ix->globs[lo], file))
				note(ix, ix->globs[lo], &ntouch);
		if (!file[len])
			break;
		len += strcspn(file + len, "/");
		if (!file[len])
			break;
		len++;
	}
	for (i = 0; i < ix->nregexes; i++)
		if (pattern_matches(ix, ix->regexes[i], file))
			note(ix, ix->regexes[i], &ntouch);
	return ntouch;
}

static void forget(struct maint_index *ix, size_t ntouch)
{
	for (size_t i = 0; i < ntouch; i++) {
		ix->best[ix->touch[i]] = -1;
		ix->last[ix->touch[i]] = 0;
	}
}

static int size_order(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

size_t maint_file_sections(struct maint_index *ix, const char *file,
			   size_t *out, size_t max)
{
	size_t ntouch = match_file(ix, file), n = 0, i;
	long top = -1;

	for (i = 0; i < ntouch; i++)
		if (ix->best[ix->touch[i]] > top)
			top = ix->best[ix->touch[i]];
	for (i = 0; i < ntouch; i++)
		if (top >= 0 && ix->best[ix->touch[i]] == top && n < max)
			out[n++] = ix->touch[i];
	forget(ix, ntouch);
	qsort(out, n, sizeof(*out), size_order);
	return n;
}

struct ranked {
	size_t section;
	int depth;
};

static int deeper_first(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->depth != b->depth)
		return a->depth > b->depth ? -1 : 1;
	return a->section < b->section ? -1 : a->section > b->section;
}

/* The sections of one file, deepest pattern first, into a. */
static int file_sections(struct maint_index *ix, struct answer *a,
			 const char *file)
{
	size_t ntouch = match_file(ix, file), n = 0, i;
	struct ranked *r = calloc(ntouch + 1, sizeof(*r));
	int rc = 0;

	if (!r) {
		forget(ix, ntouch);
		return err_set(ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < ntouch; i++) {
		size_t s = ix->touch[i];

		if (ix->best[s] >= 0) {
			r[n].section = s;
			r[n++].depth = ix->depth[s];
		}
	}
	forget(ix, ntouch);
	qsort(r, n, sizeof(*r), deeper_first);
	for (i = 0; i < n && !rc; i++)
		rc = add_section(ix, a, r[i].section);
	free(r);
	return rc;
}

static int by_tv_text(const void *x, const void *y)
{
	char a[32], b[32];

	/* get_maintainer.pl sorts the keywords' line numbers as text */
	snprintf(a, sizeof(a), "%zu", (*(struct keyword *const *)x)->tv);
	snprintf(b, sizeof(b), "%zu", (*(struct keyword *const *)y)->tv);
	return strcmp(a, b);
}

/* merge_email: each line once, people and lists together */
static void to_buf(const struct strv *v, struct buf *out, struct strv *seen)
{
	for (size_t i = 0; i < v->n; i++) {
		if (strv_has(seen, v->v[i]))
			continue;
		strv_add(seen, v->v[i]);
		buf_puts(out, v->v[i]);
		buf_puts(out, "\n");
	}
}

/*
 * The answer for files (sorted as the caller wants them), the keywords
 * that matched (flags per keyword) and the commits of Fixes: lines.
 */
static int answer(struct maint_index *ix, const struct strv *files,
		  const char *hit, const struct strv *fixes, struct buf *people,
		  struct buf *lists)
{
	struct answer a = { 0 };
	struct keyword **ks = calloc(ix->nkeywords + 1, sizeof(*ks));
	struct strv seen = { 0 };
	size_t i, nk = 0;
	int rc = ks ? 0 : err_set(ERR_NOMEM, "out of memory");

	for (i = 0; i < files->n && !rc; i++)
		rc = file_sections(ix, &a, files->v[i]);
	for (i = 0; i < ix->nkeywords && ks; i++)
		if (hit[i])
			ks[nk++] = &ix->keywords[i];
	if (ks)
		qsort(ks, nk, sizeof(*ks), by_tv_text);
	for (i = 0; i < nk && !rc; i++)
		rc = add_section(ix, &a, ks[i]->section);
	free(ks);
	if (!rc)
		rc = deduplicate_all(ix, &a, &a.to);
	if (!rc)
		rc = deduplicate_all(ix, &a, &a.lists);
	/* the chief penguin is not Cc'd */
	for (i = 0; i < a.to.n && !rc; i++)
		if (strstr(a.to.v[i],
			   "Linus Torvalds <torvalds@linux-foundation.org>")) {
			free(a.to.v[i]);
			memmove(&a.to.v[i], &a.to.v[i + 1],
				(a.to.n - i - 1) * sizeof(*a.to.v));
			a.to.n--;
			i--;
		}
	if (!rc)
		rc = push_file_emails(ix, &a, files);
	for (i = 0; fixes && i < fixes->n && !rc; i++)
		rc = fix_signers(ix, &a, fixes->v[i]);
	if (!rc) {
		to_buf(&a.to, people, &seen);
		to_buf(&a.lists, lists, &seen);
	}
	strv_free(&seen);
	answer_free(&a);
	return rc;
}

static void sort_unique(struct strv *v)
{
	size_t i, o = 0;

	qsort(v->v, v->n, sizeof(*v->v), by_text);
	for (i = 0; i < v->n; i++) {
		if (o && !strcmp(v->v[o - 1], v->v[i])) {
			free(v->v[i]);
			continue;
		}
		v->v[o++] = v->v[i];
	}
	v->n = o;
}

static int add_group(struct maint_index *ix, struct strv *v, const char *s,
		     int g, int strip_first)
{
	char *f = maint_group(ix, s, g);
	int rc;

	if (!f)
		return err_set(ERR_NOMEM, "out of memory");
	if (strip_first) { /* "a/fs/x.c" -> "fs/x.c", "/dev/null" -> "dev/null" */
		size_t skip = strcspn(f, "/");

		if (f[skip])
			memmove(f, f + skip + 1, strlen(f + skip + 1) + 1);
	}
	rc = strv_add(v, f);
	free(f);
	return rc;
}

int maint_patch_recipients(struct maint_index *ix, const char *patch,
			   struct buf *people, struct buf *lists)
{
	struct strv files = { 0 }, fixes = { 0 };
	char *hit = calloc(ix->nkeywords + 1, 1);
	int in_diff = 0, rc = hit ? 0 : err_set(ERR_NOMEM, "out of memory");
	const char *p = patch;

	while (*p && !rc) {
		size_t l = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
		const char *s = p;
		char *line = strndup(s, l);

		p += l;
		if (!line) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		if (maint_found(ix, ix->fixed[RX_MODE], line, l) ||
		    maint_found(ix, ix->fixed[RX_RENAME], line, l)) {
			rc = add_group(ix, &files, line, 1, 0);
		} else if (maint_found(ix, ix->fixed[RX_DIFF], line, l)) {
			rc = add_group(ix, &files, line, 1, 0);
			if (!rc)
				rc = add_group(ix, &files, line, 2, 0);
		} else if (maint_found(ix, ix->fixed[RX_FIXES], line, l)) {
			char *f = maint_group(ix, line, 1);

			rc = !f ? err_set(ERR_NOMEM, "out of memory")
			     : strv_has(&fixes, f) ? 0
						   : strv_add(&fixes, f);
			free(f);
		} else if (maint_found(ix, ix->fixed[RX_PLUS], line, l) ||
			   maint_found(ix, ix->fixed[RX_MINUS], line, l)) {
			rc = add_group(ix, &files, line, 1, 1);
			in_diff = 1;
		} else if (!maint_found(ix, ix->fixed[RX_HUNK], line, l)) {
			for (size_t k = 0; k < ix->nkeywords; k++)
				if (!hit[k] &&
				    maint_found(
					    ix,
					    in_diff ? ix->keywords[k].changed
						    : ix->keywords[k].anywhere,
					    line, l))
					hit[k] = 1;
		}
		free(line);
	}
	sort_unique(&files);
	if (!rc)
		rc = answer(ix, &files, hit, &fixes, people, lists);
	strv_free(&files);
	strv_free(&fixes);
	free(hit);
	return rc;
}

int maint_file_recipients(struct maint_index *ix, const char *const *files,
			  size_t n, struct buf *people, struct buf *lists)
{
	struct strv v = { 0 };
	char *hit = calloc(ix->nkeywords + 1, 1);
	struct buf text;
	int rc = hit ? 0 : err_set(ERR_NOMEM, "out of memory");
	size_t i, k;

	buf_init(&text, 256u << 20);
	for (i = 0; i < n && !rc; i++) {
		rc = strv_add(&v, files[i]);
		buf_reset(&text);
		if (rc || !ix->tree.read_file ||
		    !strcmp(files[i], "MAINTAINERS") ||
		    ix->tree.read_file(files[i], &text, ix->tree.ctx))
			continue;
		for (k = 0; k < ix->nkeywords; k++)
			if (!hit[k] && maint_found(ix, ix->keywords[k].anywhere,
						   buf_str(&text), text.len))
				hit[k] = 1;
	}
	buf_release(&text);
	if (!rc)
		rc = answer(ix, &v, hit, NULL, people, lists);
	strv_free(&v);
	free(hit);
	return rc;
}
