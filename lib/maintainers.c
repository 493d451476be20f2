// SPDX-License-Identifier: GPL-2.0-only
/*
 * MAINTAINERS and .mailmap read into an index (maintindex.h), from which
 * maintanswer.c makes get_maintainer.pl's answer.
 *
 * Design.  The file is read as scripts/get_maintainer.pl reads it: a line
 * "T:<spaces>value" is an entry, blank lines and comments are dropped,
 * any other line is a section's title, and a section is a run of
 * entries.  An F: or X: value becomes a regex the same way ('.' is
 * literal, '*' is any characters, '?' one, the rest is regex syntax such
 * as [ch]); a value that names a directory of the tree gets a slash.  A
 * pattern ending in '/' matches a prefix of a path, any other a prefix
 * with as many slashes as the path.  N: and K: are Perl regexes in
 * extended syntax, run with PCRE2.  The F:/X: patterns are kept sorted by
 * their literal directory (the part before any wildcard), so a path is
 * tried only against those of its own directories.
 *
 * The answer follows get_maintainer.pl step by step: per file, the
 * sections without a matching X: whose F: or N: match, deepest pattern
 * first; then the sections of the K: keywords that the patch's changed
 * lines (or the file) match; each section's M: people and L: lists
 * (not those for subscribers only), each person once by name or address;
 * .mailmap applied; Linus Torvalds left out; and the signers of a commit
 * that a Fixes: line of the patch names.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "maintainers.h"
#include "maintindex.h"

/* --- regexes --------------------------------------------------------- */

static pcre2_code *rx(const char *pat, uint32_t opts)
{
	int e;
	PCRE2_SIZE off;

	return pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opts, &e,
			     &off, NULL);
}

static const char *const fixed_rx[RX_N] = {
	[RX_EMAIL_NAMED] = "^([^<]+)<(.+@.*)>.*$",
	[RX_EMAIL_BRACKET] = "^\\s*<(.+@\\S*)>.*$",
	[RX_EMAIL_BARE] = "^(.+@\\S*).*$",
	[RX_MAILMAP_1] = "^([^<]+)<([^>]+)>$",
	[RX_MAILMAP_2] = "^<([^>]+)>\\s*<([^>]+)>$",
	[RX_MAILMAP_3] = "^(.+)<([^>]+)>\\s*<([^>]+)>$",
	[RX_MAILMAP_4] = "^(.+)<([^>]+)>\\s*(.+)\\s*<([^>]+)>$",
	[RX_MODE] = "^ mode change [0-7]+ => [0-7]+ (\\S+)\\s*$",
	[RX_RENAME] = "^rename (?:from|to) (\\S+)\\s*$",
	[RX_DIFF] = "^diff --git a\\/(\\S+) b\\/(\\S+)\\s*$",
	[RX_FIXES] = "^Fixes:\\s+([0-9a-fA-F]{6,40})",
	[RX_PLUS] = "^\\+\\+\\+\\s+(\\S+)",
	[RX_MINUS] = "^---\\s+(\\S+)",
	[RX_HUNK] = "^@@ -(\\d+),(\\d+)",
	[RX_SIGNATURE] =
		"^[ \\t]*(Signed-off-by:|Reviewed-by:|Acked-by:).*@.*$",
	[RX_SIGNER] = "\\s*.*:\\s*(.+)\\s*",
	[RX_LIST] = "([^\\s]+)\\s+(.*)$",
	/* the script's "\xc3\x80-\xc3\xbf" (its A-grave to y-diaeresis,
	 * read as bytes) */
	[RX_FILE_EMAIL] =
		"[A-Za-z\\xc3\\x80-\\xc3\\xbf\"' ,.+-]*\\s*,*\\s*[(<{]?"
		"[A-Za-z0-9_.+-]+@[A-Za-z0-9.-]+\\.[A-Za-z0-9]+"
		"[)>}]?",
	[RX_BRACKETED] = "[(<{]?([A-Za-z0-9_.+-]+@[A-Za-z0-9.-]+)[)>}]?",
	[RX_NAME_SPLIT] = "[^A-Za-z\\xc3\\x80-\\xc3\\xbf',.+-]",
};

/* --- the index ------------------------------------------------------- */

/* Does re match s (of length len)?  The groups are in ix->md. */
int maint_found(struct maint_index *ix, const pcre2_code *re, const char *s,
		size_t len)
{
	return re &&
	       pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, ix->md, NULL) >= 0;
}

/* Group g of the last match, as a new string. */
char *maint_group(struct maint_index *ix, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ix->md);

	if (ov[2 * g] == PCRE2_UNSET)
		return strdup("");
	return strndup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

int maint_count_slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

int maint_dircmp(const struct mpat *a, const char *dir, size_t len)
{
	int c = strncmp(a->pat, dir, a->dirlen < len ? a->dirlen : len);

	if (c)
		return c;
	return a->dirlen < len ? -1 : a->dirlen > len;
}

static int glob_order(const void *x, const void *y)
{
	const struct mpat *a = *(struct mpat *const *)x,
			  *b = *(struct mpat *const *)y;
	int c = maint_dircmp(a, b->pat, b->dirlen);

	if (c)
		return c;
	return a < b ? -1 : a > b; /* stable: the file's order */
}

/* An F: or X: value as get_maintainer.pl's regex. */
static char *glob_regex(const char *v, const struct maint_tree *tree)
{
	size_t n = strlen(v), i, o = 0;
	char *r = malloc(2 * n + 3);

	if (!r)
		return NULL;
	for (i = 0; i < n; i++) {
		if (v[i] == '.') {
			r[o++] = '\\';
			r[o++] = '.';
		} else if (v[i] == '*') {
			r[o++] = '.';
			r[o++] = '*';
		} else {
			r[o++] = v[i] == '?' ? '.' : v[i];
		}
	}
	r[o] = '\0';
	if (o && r[o - 1] != '/' && tree && tree->is_dir &&
	    tree->is_dir(r, tree->ctx)) {
		r[o++] = '/';
		r[o] = '\0';
	}
	return r;
}

static int add_pattern(struct maint_index *ix, size_t order, char type,
		       const char *v)
{
	struct mpat *m = &ix->pats[ix->npats];
	const char *wild;
	char *re;

	if (!*v)
		return 0;
	m->pat = strdup(v);
	if (!m->pat)
		return err_set(ERR_NOMEM, "out of memory");
	m->section = ix->nsections;
	m->order = order;
	m->type = type;
	m->len = strlen(v);
	if (type == 'N') {
		m->re = rx(v, PCRE2_EXTENDED);
	} else {
		re = glob_regex(v, &ix->tree);
		if (!re)
			return err_set(ERR_NOMEM, "out of memory");
		m->slashes = maint_count_slashes(re);
		m->prefix = re[strlen(re) - 1] == '/';
		m->depth = m->slashes + !m->prefix;
		if (!strncmp(re, ".*", 2))
			m->depth = -1;
		{
			size_t l = strlen(re);
			char *anchored = malloc(l + 2);

			if (!anchored) {
				free(re);
				return err_set(ERR_NOMEM, "out of memory");
			}
			anchored[0] = '^';
			memcpy(anchored + 1, re, l + 1);
			m->re = rx(anchored, 0);
			free(anchored);
		}
		free(re);
	}
	if (!m->re) { /* as get_maintainer.pl: a bad regex never matches */
		free(m->pat);
		m->pat = NULL;
		return 0;
	}
	/* the part before any wildcard, up to its last slash */
	wild = m->pat + strcspn(m->pat, "*?[](){}|+^$\\");
	m->dirlen = 0;
	if (!strpbrk(m->pat, "|("))
		for (const char *q = m->pat; q < wild; q++)
			if (*q == '/')
				m->dirlen = (size_t)(q - m->pat) + 1;
	ix->npats++;
	return 0;
}

int maint_add_value(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return err_set(ERR_NOMEM, "out of memory");
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return err_set(ERR_NOMEM, "out of memory");
	(*n)++;
	return 0;
}

static int add_keyword(struct maint_index *ix, size_t tv, const char *v)
{
	struct keyword *k = &ix->keywords[ix->nkeywords];
	size_t l = strlen(v);
	char *changed = malloc(l + 8);

	if (!changed)
		return err_set(ERR_NOMEM, "out of memory");
	/* as get_maintainer.pl joins them: "^[+-].*" then the keyword */
	memcpy(changed, "^[+-].*", 7);
	memcpy(changed + 7, v, l + 1);
	k->section = ix->nsections;
	k->tv = tv;
	k->anywhere = rx(v, PCRE2_EXTENDED);
	k->changed = rx(changed, PCRE2_EXTENDED);
	free(changed);
	if (k->anywhere || k->changed)
		ix->nkeywords++;
	return 0;
}

/* "T:<spaces>value": its type, or 0 for another line. */
static char entry_type(const char *line, const char **value)
{
	if (line[0] < 'A' || line[0] > 'Z' || line[1] != ':')
		return 0;
	*value = line + 2 + strspn(line + 2, " \t\r\f\v");
	return line[0];
}

static int blank_or_comment(const char *line)
{
	line += strspn(line, " \t\r\f\v");
	return !*line || *line == '#';
}

static int read_sections(struct maint_index *ix, const char *text)
{
	const char *p = text;
	char *title = NULL, *line = NULL;
	size_t tv = 0, order = 0;
	int in = 0, rc = 0;

	while (*p && !rc) {
		size_t l = strcspn(p, "\n");
		const char *v;
		char t;

		free(line);
		line = strndup(p, l);
		p += l + (p[l] != 0);
		if (!line)
			return err_set(ERR_NOMEM, "out of memory");
		t = entry_type(line, &v);
		if (!t && blank_or_comment(line))
			continue;
		tv++;
		if (!t) { /* a title: of the section that follows, if any */
			ix->nsections += in;
			in = 0;
			free(title);
			title = line;
			line = NULL;
			continue;
		}
		if (!in) {
			ix->sections[ix->nsections].name =
				title ? title : strdup("");
			title = NULL;
			if (!ix->sections[ix->nsections].name) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			in = 1;
		}
		if (t == 'F' || t == 'X' || t == 'N')
			rc = add_pattern(ix, order++, t, v);
		else if (t == 'K')
			rc = add_keyword(ix, tv - 1, v);
		else if (t == 'M')
			rc = maint_add_value(
				&ix->sections[ix->nsections].people,
				&ix->sections[ix->nsections].npeople, v);
		else if (t == 'L')
			rc = maint_add_value(
				&ix->sections[ix->nsections].lists,
				&ix->sections[ix->nsections].nlists, v);
	}
	free(line);
	free(title);
	ix->nsections += in;
	return rc;
}

/* --- names and addresses --------------------------------------------- */

static void trim(char *s)
{
	size_t l = strlen(s), i = strspn(s, " \t\n\r\f\v");

	while (l > i && strchr(" \t\n\r\f\v", s[l - 1]))
		l--;
	memmove(s, s + i, l - i);
	s[l - i] = '\0';
}

/*
 * A display name as get_maintainer.pl writes it: trimmed, its outer
 * quotes off, and quoted again (inner quotes escaped) when it has
 * anything but letters, digits, '_', ' ' and '-'.
 */
static char *quoted_name(const char *in)
{
	char *s = strdup(in), *out;
	size_t l, i, o = 0;
	int must = 0;

	if (!s)
		return NULL;
	trim(s);
	if (s[0] == '"')
		memmove(s, s + 1, strlen(s));
	l = strlen(s);
	if (l && s[l - 1] == '"')
		s[--l] = '\0';
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_ -", s[i]))
			must = 1;
	if (!must)
		return s;
	out = malloc(2 * l + 3);
	if (out) {
		out[o++] = '"';
		for (i = 0; i < l; i++) {
			if (s[i] == '"' && (i == 0 || s[i - 1] != '\\'))
				out[o++] = '\\';
			out[o++] = s[i];
		}
		out[o++] = '"';
		out[o] = '\0';
	}
	free(s);
	return out;
}

void maint_email_free(struct email *e)
{
	free(e->name);
	free(e->address);
	e->name = e->address = NULL;
}

/* get_maintainer.pl's maint_parse_email; 0 or ERR_NOMEM. */
int maint_parse_email(struct maint_index *ix, const char *s, struct email *e)
{
	size_t l = strlen(s);
	char *name = NULL, *address;

	if (maint_found(ix, ix->fixed[RX_EMAIL_NAMED], s, l)) {
		name = maint_group(ix, s, 1);
		address = maint_group(ix, s, 2);
	} else if (maint_found(ix, ix->fixed[RX_EMAIL_BRACKET], s, l) ||
		   maint_found(ix, ix->fixed[RX_EMAIL_BARE], s, l)) {
		address = maint_group(ix, s, 1);
	} else {
		address = strdup("");
	}
	e->name = quoted_name(name ? name : "");
	free(name);
	e->address = address;
	if (!e->name || !e->address) {
		maint_email_free(e);
		return err_set(ERR_NOMEM, "out of memory");
	}
	trim(e->address);
	return 0;
}

/* "Name <address>", or the address alone. */
char *maint_format_email(const char *name, const char *address)
{
	char *n = quoted_name(name), *a = strdup(address), *out = NULL;

	if (n && a) {
		trim(a);
		out = malloc(strlen(n) + strlen(a) + 4);
		if (out && *n)
			sprintf(out, "%s <%s>", n, a);
		else if (out)
			strcpy(out, a);
	}
	free(n);
	free(a);
	return out;
}

void maint_free_mappings(struct mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].key);
		free(m[i].value);
	}
	free(m);
}

const char *maint_mapped(const struct mapping *m, size_t n, const char *key)
{
	while (n--) /* the last line for a key wins, as in a Perl hash */
		if (!strcmp(m[n].key, key))
			return m[n].value;
	return NULL;
}

int maint_add_mapping(struct mapping **m, size_t *n, const char *key,
		      const char *value)
{
	struct mapping *nm = realloc(*m, (*n + 1) * sizeof(**m));

	if (!nm)
		return err_set(ERR_NOMEM, "out of memory");
	*m = nm;
	nm[*n].key = strdup(key);
	nm[*n].value = strdup(value);
	if (!nm[*n].key || !nm[*n].value) {
		free(nm[*n].key);
		free(nm[*n].value);
		return err_set(ERR_NOMEM, "out of memory");
	}
	(*n)++;
	return 0;
}

/* maint_parse_email of "name <address>" */
static int parse_pair(struct maint_index *ix, const char *name,
		      const char *address, struct email *e)
{
	char *s = malloc(strlen(name) + strlen(address) + 4);
	char *n = strdup(name);
	int rc;

	if (!s || !n) {
		free(s);
		free(n);
		return err_set(ERR_NOMEM, "out of memory");
	}
	for (size_t l = strlen(n); l && isspace((unsigned char)n[l - 1]);)
		n[--l] = '\0';
	sprintf(s, "%s <%s>", n, address);
	rc = maint_parse_email(ix, s, e);
	free(s);
	free(n);
	return rc;
}

static int mailmap_line(struct maint_index *ix, const char *s)
{
	size_t l = strlen(s);
	char *g[5] = { 0 };
	struct email real = { 0 }, wrong = { 0 };
	int rc = 0, i, kind = 0;

	for (i = RX_MAILMAP_1; i <= RX_MAILMAP_4 && !kind; i++)
		if (maint_found(ix, ix->fixed[i], s, l))
			kind = i - RX_MAILMAP_1 + 1;
	/* groups: Name <mail> 2, <mail> <mail> 2, Name <mail> <mail> 3,
	 * Name <mail> Name <mail> 4 */
	for (i = 1; kind && i <= (kind < 3 ? 2 : kind); i++)
		if (!(g[i] = maint_group(ix, s, i)))
			rc = err_set(ERR_NOMEM, "out of memory");
	if (rc || !kind)
		goto out;
	switch (kind) {
	case 1:
		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = maint_add_mapping(&ix->names, &ix->nnames,
					       real.address, real.name);
		break;
	case 2:
		rc = maint_add_mapping(&ix->addresses, &ix->naddresses, g[2],
				       g[1]);
		break;
	case 3:
		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = maint_add_mapping(&ix->names, &ix->nnames, g[3],
					       real.name);
		if (!rc)
			rc = maint_add_mapping(&ix->addresses, &ix->naddresses,
					       g[3], real.address);
		break;
	case 4: {
		char *key;

		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = parse_pair(ix, g[3], g[4], &wrong);
		if (rc)
			break;
		key = maint_format_email(wrong.name, wrong.address);
		if (!key) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		rc = maint_add_mapping(&ix->names, &ix->nnames, key, real.name);
		if (!rc)
			rc = maint_add_mapping(&ix->addresses, &ix->naddresses,
					       key, real.address);
		free(key);
		break;
	}
	}
out:
	for (i = 0; i < 5; i++)
		free(g[i]);
	maint_email_free(&real);
	maint_email_free(&wrong);
	return rc;
}

static int read_mailmap(struct maint_index *ix, const char *text)
{
	int rc = 0;

	while (text && *text && !rc) {
		size_t l = strcspn(text, "\n");
		char *line = strndup(text, l);

		text += l + (text[l] != 0);
		if (!line)
			return err_set(ERR_NOMEM, "out of memory");
		line[strcspn(line, "#")] = '\0';
		trim(line);
		if (*line)
			rc = mailmap_line(ix, line);
		free(line);
	}
	return rc;
}

/* get_maintainer.pl's maint_mailmap_email: the address as .mailmap maps it. */
char *maint_mailmap_email(struct maint_index *ix, const char *line)
{
	struct email e;
	const char *name, *address;
	char *key, *out;

	if (maint_parse_email(ix, line, &e))
		return NULL;
	key = maint_format_email(e.name, e.address);
	if (!key) {
		maint_email_free(&e);
		return NULL;
	}
	name = e.name;
	address = e.address;
	if (maint_mapped(ix->names, ix->nnames, key) ||
	    maint_mapped(ix->addresses, ix->naddresses, key)) {
		if (maint_mapped(ix->names, ix->nnames, key))
			name = maint_mapped(ix->names, ix->nnames, key);
		if (maint_mapped(ix->addresses, ix->naddresses, key))
			address = maint_mapped(ix->addresses, ix->naddresses,
					       key);
	} else {
		if (maint_mapped(ix->names, ix->nnames, e.address))
			name = maint_mapped(ix->names, ix->nnames, e.address);
		if (maint_mapped(ix->addresses, ix->naddresses, e.address))
			address = maint_mapped(ix->addresses, ix->naddresses,
					       e.address);
	}
	out = maint_format_email(name, address);
	free(key);
	maint_email_free(&e);
	return out;
}

/* --- the index's life ------------------------------------------------ */

int maint_index_new(struct maint_index **out, const char *text,
		    const char *mailmap, const struct maint_tree *tree)
{
	struct maint_index *ix = calloc(1, sizeof(*ix));
	size_t nlines = 2, i;
	const char *p;
	int rc = 0;

	*out = NULL;
	if (!ix) {
		if (tree && tree->release)
			tree->release(tree->ctx);
		return err_set(ERR_NOMEM, "out of memory");
	}
	if (tree)
		ix->tree = *tree;
	for (p = text; *p; p++)
		nlines += *p == '\n';
	ix->pats = calloc(nlines, sizeof(*ix->pats));
	ix->sections = calloc(nlines, sizeof(*ix->sections));
	ix->keywords = calloc(nlines, sizeof(*ix->keywords));
	ix->md = pcre2_match_data_create(10, NULL);
	if (!ix->pats || !ix->sections || !ix->keywords || !ix->md)
		rc = err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < RX_N && !rc; i++)
		if (!(ix->fixed[i] = rx(fixed_rx[i], 0)))
			rc = err_set(ERR_INFRA, "regex %zu does not compile",
				     i);
	if (!rc)
		rc = read_sections(ix, text);
	if (!rc)
		rc = read_mailmap(ix, mailmap);
	if (!rc) {
		ix->globs = calloc(ix->npats + 1, sizeof(*ix->globs));
		ix->regexes = calloc(ix->npats + 1, sizeof(*ix->regexes));
		ix->best = malloc((ix->nsections + 1) * sizeof(*ix->best));
		ix->last = calloc(ix->nsections + 1, sizeof(*ix->last));
		ix->depth = calloc(ix->nsections + 1, sizeof(*ix->depth));
		ix->touch = malloc((ix->nsections + 1) * sizeof(*ix->touch));
		if (!ix->globs || !ix->regexes || !ix->best || !ix->last ||
		    !ix->depth || !ix->touch)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	for (i = 0; !rc && i < ix->npats; i++) {
		if (ix->pats[i].type == 'N')
			ix->regexes[ix->nregexes++] = &ix->pats[i];
		else
			ix->globs[ix->nglobs++] = &ix->pats[i];
	}
	for (i = 0; !rc && i < ix->nsections; i++)
		ix->best[i] = -1;
	if (rc) {
		maint_index_free(ix);
		return rc;
	}
	qsort(ix->globs, ix->nglobs, sizeof(*ix->globs), glob_order);
	*out = ix;
	return 0;
}

void maint_index_free(struct maint_index *ix)
{
	size_t i, j;

	if (!ix)
		return;
	if (ix->tree.release)
		ix->tree.release(ix->tree.ctx);
	for (i = 0; i < ix->npats; i++) {
		pcre2_code_free(ix->pats[i].re);
		free(ix->pats[i].pat);
	}
	for (i = 0; i < ix->nkeywords; i++) {
		pcre2_code_free(ix->keywords[i].anywhere);
		pcre2_code_free(ix->keywords[i].changed);
	}
	for (i = 0; ix->sections && i < ix->nsections; i++) {
		struct msection *s = &ix->sections[i];

		for (j = 0; j < s->npeople; j++)
			free(s->people[j]);
		for (j = 0; j < s->nlists; j++)
			free(s->lists[j]);
		free(s->people);
		free(s->lists);
		free(s->name);
	}
	for (i = 0; i < RX_N; i++)
		pcre2_code_free(ix->fixed[i]);
	pcre2_match_data_free(ix->md);
	maint_free_mappings(ix->names, ix->nnames);
	maint_free_mappings(ix->addresses, ix->naddresses);
	free(ix->sections);
	free(ix->pats);
	free(ix->keywords);
	free(ix->globs);
	free(ix->regexes);
	free(ix->best);
	free(ix->last);
	free(ix->depth);
	free(ix->touch);
	free(ix);
}

int maint_is_dir(const struct maint_index *ix, const char *path)
{
	return ix->tree.is_dir && ix->tree.is_dir(path, ix->tree.ctx);
}

size_t maint_index_sections(const struct maint_index *ix)
{
	return ix->nsections;
}

const char *maint_section_name(const struct maint_index *ix, size_t i)
{
	return i < ix->nsections ? ix->sections[i].name : NULL;
}
