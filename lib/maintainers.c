/*
 * MAINTAINERS matching, and get_maintainer.pl's answer.
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
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "maintainers.h"

/* --- regexes --------------------------------------------------------- */

static pcre2_code *rx(const char *pat, uint32_t opts)
{
	int e;
	PCRE2_SIZE off;

	return pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opts, &e,
			     &off, NULL);
}

/* The fixed regexes of the answer, as get_maintainer.pl writes them. */
enum {
	RX_EMAIL_NAMED,	  /* Name <address> */
	RX_EMAIL_BRACKET, /* <address> */
	RX_EMAIL_BARE,	  /* address */
	RX_MAILMAP_1,	  /* Name <mail> */
	RX_MAILMAP_2,	  /* <mail> <mail> */
	RX_MAILMAP_3,	  /* Name <mail> <mail> */
	RX_MAILMAP_4,	  /* Name <mail> Name <mail> */
	RX_MODE,
	RX_RENAME,
	RX_DIFF,
	RX_FIXES,
	RX_PLUS,
	RX_MINUS,
	RX_HUNK,
	RX_SIGNATURE,
	RX_SIGNER,
	RX_LIST,
	RX_FILE_EMAIL,
	RX_BRACKETED,
	RX_NAME_SPLIT,
	RX_N
};

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

struct mpat {
	size_t section;
	size_t order; /* its place in the file */
	char type;    /* F, X or N */
	size_t len;   /* the pattern's length: how specific it is */
	int depth;    /* get_maintainer.pl's: slashes, +1 without a last '/' */
	int slashes;  /* of the regex form */
	int prefix;   /* ends in '/': matches any path below */
	char *pat;
	size_t dirlen; /* its literal directory: pat[0..dirlen) */
	pcre2_code *re;
};

struct keyword {
	size_t section;
	size_t tv; /* its line's number among the file's kept lines */
	pcre2_code *anywhere, *changed;
};

struct mapping {
	char *key, *value;
};

struct msection {
	char *name;
	char **people; /* M: values */
	size_t npeople;
	char **lists; /* L: values */
	size_t nlists;
};

struct maint_index {
	struct msection *sections;
	size_t nsections;
	struct mpat *pats;
	size_t npats;
	struct mpat **globs; /* F: and X:, by literal directory */
	size_t nglobs;
	struct mpat **regexes; /* N: */
	size_t nregexes;
	struct keyword *keywords;
	size_t nkeywords;
	struct mapping *names, *addresses; /* .mailmap */
	size_t nnames, naddresses;
	pcre2_code *fixed[RX_N];
	pcre2_match_data *md;
	struct maint_tree tree;
	/* per section, for the file being asked about */
	long *best;    /* longest F:/N: match, -1 none, -2 excluded */
	long *last;    /* the order of the last F:/N: match + 1 */
	int *depth;    /* that match's depth */
	size_t *touch; /* the sections that the arrays hold values for */
};

/* Does re match s (of length len)?  The groups are in ix->md. */
static int found(struct maint_index *ix, const pcre2_code *re, const char *s,
		 size_t len)
{
	return re &&
	       pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, ix->md, NULL) >= 0;
}

/* Group g of the last match, as a new string. */
static char *group(struct maint_index *ix, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ix->md);

	if (ov[2 * g] == PCRE2_UNSET)
		return strdup("");
	return strndup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

static int count_slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

static int dircmp(const struct mpat *a, const char *dir, size_t len)
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
	int c = dircmp(a, b->pat, b->dirlen);

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
		m->slashes = count_slashes(re);
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

static int add_value(char ***v, size_t *n, const char *s)
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
			rc = add_value(&ix->sections[ix->nsections].people,
				       &ix->sections[ix->nsections].npeople, v);
		else if (t == 'L')
			rc = add_value(&ix->sections[ix->nsections].lists,
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

struct email {
	char *name, *address;
};

static void email_free(struct email *e)
{
	free(e->name);
	free(e->address);
	e->name = e->address = NULL;
}

/* get_maintainer.pl's parse_email; 0 or ERR_NOMEM. */
static int parse_email(struct maint_index *ix, const char *s, struct email *e)
{
	size_t l = strlen(s);
	char *name = NULL, *address;

	if (found(ix, ix->fixed[RX_EMAIL_NAMED], s, l)) {
		name = group(ix, s, 1);
		address = group(ix, s, 2);
	} else if (found(ix, ix->fixed[RX_EMAIL_BRACKET], s, l) ||
		   found(ix, ix->fixed[RX_EMAIL_BARE], s, l)) {
		address = group(ix, s, 1);
	} else {
		address = strdup("");
	}
	e->name = quoted_name(name ? name : "");
	free(name);
	e->address = address;
	if (!e->name || !e->address) {
		email_free(e);
		return err_set(ERR_NOMEM, "out of memory");
	}
	trim(e->address);
	return 0;
}

/* "Name <address>", or the address alone. */
static char *format_email(const char *name, const char *address)
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

static void free_mappings(struct mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].key);
		free(m[i].value);
	}
	free(m);
}

static const char *mapped(const struct mapping *m, size_t n, const char *key)
{
	while (n--) /* the last line for a key wins, as in a Perl hash */
		if (!strcmp(m[n].key, key))
			return m[n].value;
	return NULL;
}

static int add_mapping(struct mapping **m, size_t *n, const char *key,
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

/* parse_email of "name <address>" */
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
	rc = parse_email(ix, s, e);
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
		if (found(ix, ix->fixed[i], s, l))
			kind = i - RX_MAILMAP_1 + 1;
	/* groups: Name <mail> 2, <mail> <mail> 2, Name <mail> <mail> 3,
	 * Name <mail> Name <mail> 4 */
	for (i = 1; kind && i <= (kind < 3 ? 2 : kind); i++)
		if (!(g[i] = group(ix, s, i)))
			rc = err_set(ERR_NOMEM, "out of memory");
	if (rc || !kind)
		goto out;
	switch (kind) {
	case 1:
		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = add_mapping(&ix->names, &ix->nnames, real.address,
					 real.name);
		break;
	case 2:
		rc = add_mapping(&ix->addresses, &ix->naddresses, g[2], g[1]);
		break;
	case 3:
		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = add_mapping(&ix->names, &ix->nnames, g[3],
					 real.name);
		if (!rc)
			rc = add_mapping(&ix->addresses, &ix->naddresses, g[3],
					 real.address);
		break;
	case 4: {
		char *key;

		rc = parse_pair(ix, g[1], g[2], &real);
		if (!rc)
			rc = parse_pair(ix, g[3], g[4], &wrong);
		if (rc)
			break;
		key = format_email(wrong.name, wrong.address);
		if (!key) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		rc = add_mapping(&ix->names, &ix->nnames, key, real.name);
		if (!rc)
			rc = add_mapping(&ix->addresses, &ix->naddresses, key,
					 real.address);
		free(key);
		break;
	}
	}
out:
	for (i = 0; i < 5; i++)
		free(g[i]);
	email_free(&real);
	email_free(&wrong);
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

/* get_maintainer.pl's mailmap_email: the address as .mailmap maps it. */
static char *mailmap_email(struct maint_index *ix, const char *line)
{
	struct email e;
	const char *name, *address;
	char *key, *out;

	if (parse_email(ix, line, &e))
		return NULL;
	key = format_email(e.name, e.address);
	if (!key) {
		email_free(&e);
		return NULL;
	}
	name = e.name;
	address = e.address;
	if (mapped(ix->names, ix->nnames, key) ||
	    mapped(ix->addresses, ix->naddresses, key)) {
		if (mapped(ix->names, ix->nnames, key))
			name = mapped(ix->names, ix->nnames, key);
		if (mapped(ix->addresses, ix->naddresses, key))
			address = mapped(ix->addresses, ix->naddresses, key);
	} else {
		if (mapped(ix->names, ix->nnames, e.address))
			name = mapped(ix->names, ix->nnames, e.address);
		if (mapped(ix->addresses, ix->naddresses, e.address))
			address = mapped(ix->addresses, ix->naddresses,
					 e.address);
	}
	out = format_email(name, address);
	free(key);
	email_free(&e);
	return out;
}

/* --- building an answer ---------------------------------------------- */

struct strv {
	char **v;
	size_t n;
};

static int strv_add(struct strv *s, const char *v)
{
	return add_value(&s->v, &s->n, v);
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
	free_mappings(a->dd_names, a->ndd_names);
	free_mappings(a->dd_addresses, a->ndd_addresses);
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

	if (parse_email(ix, line, &e))
		return ERR_NOMEM;
	rc = 0;
	if (*e.address && !(*e.name && lower_has(&a->names, e.name)) &&
	    !lower_has(&a->addresses, e.address)) {
		f = format_email(e.name, e.address);
		rc = f ? strv_add(&a->to, f)
		       : err_set(ERR_NOMEM, "out of memory");
		free(f);
		if (!rc && *e.name)
			rc = lower_add(&a->names, e.name);
		if (!rc)
			rc = lower_add(&a->addresses, e.address);
	}
	email_free(&e);
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

		if (found(ix, ix->fixed[RX_LIST], v, strlen(v))) {
			address = group(ix, v, 1);
			extra = group(ix, v, 2);
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
	const char *v = l ? mapped(m, n, l) : NULL;

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

	if (parse_email(ix, in, &e))
		return NULL;
	f = format_email(e.name, e.address);
	email_free(&e);
	m = f ? mailmap_email(ix, f) : NULL;
	free(f);
	if (!m || parse_email(ix, m, &e)) {
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
			add_mapping(&a->dd_names, &a->ndd_names, ln, pair);
			add_mapping(&a->dd_addresses, &a->ndd_addresses, la,
				    pair);
		}
		free(pair);
		free(ln);
		free(la);
	}
	if (e.name && e.address) {
		f = format_email(e.name, e.address);
		out = f ? mailmap_email(ix, f) : NULL;
		free(f);
	}
	email_free(&e);
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
		    found(ix, ix->fixed[RX_SIGNATURE], line, l) &&
		    found(ix, ix->fixed[RX_SIGNER], line, l)) {
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
		d = s ? mailmap_email(ix, s) : NULL;
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
	while (found(ix, ix->fixed[RX_BRACKETED], p, strlen(p))) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ix->md);

		buf_put(&b, p, ov[0]); /* never empty: it holds an '@' */
		buf_printf(&b, "<%.*s>", (int)(ov[3] - ov[2]), p + ov[2]);
		p += ov[1];
	}
	buf_puts(&b, p);
	if (parse_email(ix, buf_str(&b), &e)) {
		buf_release(&b);
		return NULL;
	}
	buf_release(&b);
	if (!strcmp(e.name, "\"[,\\.]\""))
		e.name[0] = '\0';
	/* split: fields between the separators, trailing empty ones dropped */
	for (p = e.name;;) {
		size_t n = found(ix, ix->fixed[RX_NAME_SPLIT], p, strlen(p))
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
		out = format_email(name, e.address);
	}
	free(name);
	email_free(&e);
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
	     !rc && found(ix, ix->fixed[RX_FILE_EMAIL], p, strlen(p));) {
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
		char *m = mailmap_email(ix, v.v[i]);
		struct email e;
		char *f = NULL;

		if (m && !parse_email(ix, m, &e)) {
			f = format_email(e.name, e.address);
			email_free(&e);
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
	if (!found(ix, m->re, file, strlen(file)))
		return 0;
	return m->type == 'N' || m->prefix || count_slashes(file) == m->slashes;
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

			if (dircmp(ix->globs[mid], file, len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ix->nglobs && !dircmp(ix->globs[lo], file, len);
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
	char *f = group(ix, s, g);
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
		if (found(ix, ix->fixed[RX_MODE], line, l) ||
		    found(ix, ix->fixed[RX_RENAME], line, l)) {
			rc = add_group(ix, &files, line, 1, 0);
		} else if (found(ix, ix->fixed[RX_DIFF], line, l)) {
			rc = add_group(ix, &files, line, 1, 0);
			if (!rc)
				rc = add_group(ix, &files, line, 2, 0);
		} else if (found(ix, ix->fixed[RX_FIXES], line, l)) {
			char *f = group(ix, line, 1);

			rc = !f ? err_set(ERR_NOMEM, "out of memory")
			     : strv_has(&fixes, f) ? 0
						   : strv_add(&fixes, f);
			free(f);
		} else if (found(ix, ix->fixed[RX_PLUS], line, l) ||
			   found(ix, ix->fixed[RX_MINUS], line, l)) {
			rc = add_group(ix, &files, line, 1, 1);
			in_diff = 1;
		} else if (!found(ix, ix->fixed[RX_HUNK], line, l)) {
			for (size_t k = 0; k < ix->nkeywords; k++)
				if (!hit[k] &&
				    found(ix,
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
			if (!hit[k] && found(ix, ix->keywords[k].anywhere,
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
	free_mappings(ix->names, ix->nnames);
	free_mappings(ix->addresses, ix->naddresses);
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
