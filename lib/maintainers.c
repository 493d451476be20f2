/*
 * MAINTAINERS matching.
 *
 * Design.  A section is a run of "T:\tvalue" lines between blank lines.
 * An F: or X: pattern is a glob: * and ? match any characters (slashes
 * too, as in get_maintainer.pl's regex), and it must match a prefix of
 * the file.  A pattern ending in '/' takes everything below it, and so
 * does one that looks like a directory (no wildcard, no dot in its last
 * part); any other pattern matches only at the same depth (the same
 * number of slashes).  N: is an extended regex on the whole path.  K:
 * (keywords in the file's content) is not used.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "maintainers.h"

/* Does glob p match a prefix of s?  Returns the prefix length or -1. */
static long glob_prefix(const char *p, const char *s)
{
	if (!*p)
		return 0;
	if (*p == '*') {
		long i, r;

		for (i = (long)strlen(s); i >= 0; i--)
			if ((r = glob_prefix(p + 1, s + i)) >= 0)
				return i + r;
		return -1;
	}
	if (!*s)
		return -1;
	if (*p != '?' && *p != *s)
		return -1;
	{
		long r = glob_prefix(p + 1, s + 1);

		return r < 0 ? -1 : r + 1;
	}
}

static int slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

int maint_pattern_match(const char *pattern, const char *file)
{
	size_t len = strlen(pattern);
	long m = glob_prefix(pattern, file);

	if (m < 0)
		return 0;
	const char *last = strrchr(pattern, '/');

	if (len && pattern[len - 1] == '/')
		return 1;
	/*
	 * No wildcard and no dot in the last part: a directory named
	 * without its slash (get_maintainer.pl looks in the tree; there is
	 * no tree here), so what is below it and nothing else.
	 */
	if (!strpbrk(pattern, "*?") && !strchr(last ? last : pattern, '.'))
		return file[m] == '/' || file[m] == '\0';
	return slashes(pattern) == slashes(file);
}

/* Append line to b unless it is already there. */
static void add_once(struct buf *b, const char *v, size_t len)
{
	const char *p = buf_str(b);

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l == len && !strncmp(p, v, len))
			return;
		p += l + (nl != NULL);
	}
	buf_put(b, v, len);
	buf_puts(b, "\n");
}

struct section {
	const char *start, *end; /* its lines */
	int rest;		 /* "THE REST": its list, not its maintainer, as
		     get_maintainer.pl */
};

static int section_matches(const struct section *sec, const char *file)
{
	const char *p;
	int hit = 0;
	char pat[1024];

	for (p = sec->start; p < sec->end; p = strchr(p, '\n') + 1) {
		const char *v = p + 2, *nl = strchr(p, '\n');
		size_t l;

		v += strspn(v, " \t");
		l = (size_t)(nl - v);
		if (l >= sizeof(pat) ||
		    (p[0] != 'F' && p[0] != 'X' && p[0] != 'N'))
			continue;
		memcpy(pat, v, l);
		while (l && (pat[l - 1] == ' ' || pat[l - 1] == '\t'))
			l--;
		pat[l] = '\0';
		if (p[0] == 'X' && maint_pattern_match(pat, file))
			return 0;
		if (p[0] == 'F' && maint_pattern_match(pat, file))
			hit = 1;
		if (p[0] == 'N') {
			regex_t re;

			if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0) {
				hit |= regexec(&re, file, 0, NULL, 0) == 0;
				regfree(&re);
			}
		}
	}
	return hit;
}

static void collect(const struct section *sec, struct buf *m, struct buf *l,
		    int want_m)
{
	const char *p;

	for (p = sec->start; p < sec->end; p = strchr(p, '\n') + 1) {
		const char *v = p + 2, *nl = strchr(p, '\n'), *e;

		if ((p[0] != 'M' || !want_m) && p[0] != 'L')
			continue;
		v += strspn(v, " \t");
		e = nl;
		/* "list@example.org (moderated for non-subscribers)" */
		if (p[0] == 'L' && strchr(v, ' ') && strchr(v, ' ') < nl)
			e = strchr(v, ' ');
		while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > v)
			add_once(p[0] == 'M' ? m : l, v, (size_t)(e - v));
	}
}

static int is_entry(const char *p)
{
	return p[0] >= 'A' && p[0] <= 'Z' && p[1] == ':' &&
	       (p[2] == '\t' || p[2] == ' ');
}

/*
 * The next section at *pp: its title and its entry lines; 0 at the end.
 * Text between sections (the file's preamble) is passed over.
 */
static int next_section(const char **pp, struct section *sec,
			const char **title)
{
	const char *p = *pp;

	while (*p) {
		*title = p;
		/* a section: its title, then consecutive entry lines */
		while (*p && !is_entry(p)) {
			const char *nl = strchr(p, '\n');

			if (*p != '\n')
				*title = p;
			p = nl ? nl + 1 : p + strlen(p);
		}
		sec->rest = !strncmp(*title, "THE REST\n", 9);
		sec->start = p;
		while (*p && is_entry(p) && strchr(p, '\n'))
			p = strchr(p, '\n') + 1;
		sec->end = p;
		if (sec->start != sec->end) {
			*pp = p;
			return 1;
		}
		if (*p)
			p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0);
	}
	*pp = p;
	return 0;
}

int maint_recipients(const char *text, const char *const *files, size_t n,
		     struct buf *maintainers, struct buf *lists)
{
	const char *p = text, *title;
	struct section sec;

	while (next_section(&p, &sec, &title)) {
		size_t i;

		for (i = 0; i < n; i++)
			if (section_matches(&sec, files[i])) {
				collect(&sec, maintainers, lists, !sec.rest);
				break;
			}
	}
	add_once(lists, MAINT_REGRESSIONS, strlen(MAINT_REGRESSIONS));
	return 0;
}

/* --- an index of the patterns, for many files ---------------------------- */

struct mpat {
	size_t section;
	char type;  /* F, X or N */
	size_t len; /* the pattern's length: how specific it is */
	char *pat;
	size_t dirlen; /* its literal directory: pat[0..dirlen) */
	regex_t re;    /* N: */
};

struct maint_index {
	char **names;
	size_t nsections;
	struct mpat *pats;
	size_t npats;
	struct mpat **globs; /* F: and X:, by literal directory */
	size_t nglobs;
	struct mpat **regexes; /* N: */
	size_t nregexes;
	long *best;    /* per section: longest match for the file, or -1 */
	size_t *touch; /* the sections that best[] holds a value for */
};

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

static int add_pattern(struct maint_index *ix, size_t section, char type,
		       const char *v, size_t l)
{
	struct mpat *m = &ix->pats[ix->npats];
	const char *wild;

	while (l && (v[l - 1] == ' ' || v[l - 1] == '\t'))
		l--;
	if (!l)
		return 0;
	m->pat = strndup(v, l);
	if (!m->pat)
		return err_set(ERR_NOMEM, "out of memory");
	m->section = section;
	m->type = type;
	m->len = l;
	if (type == 'N' &&
	    regcomp(&m->re, m->pat, REG_EXTENDED | REG_NOSUB) != 0) {
		free(m->pat); /* as get_maintainer.pl: a bad N: never matches */
		return 0;
	}
	/* the part before any wildcard, up to its last slash */
	wild = m->pat + strcspn(m->pat, "*?");
	m->dirlen = 0;
	for (const char *q = m->pat; q < wild; q++)
		if (*q == '/')
			m->dirlen = (size_t)(q - m->pat) + 1;
	ix->npats++;
	return 0;
}

int maint_index_new(struct maint_index **out, const char *text)
{
	struct maint_index *ix = calloc(1, sizeof(*ix));
	const char *p = text, *title;
	struct section sec;
	size_t nlines = 1, i;
	int rc = 0;

	*out = NULL;
	if (!ix)
		return err_set(ERR_NOMEM, "out of memory");
	for (p = text; *p; p++)
		nlines += *p == '\n';
	ix->pats = calloc(nlines, sizeof(*ix->pats));
	ix->names = calloc(nlines, sizeof(*ix->names));
	if (!ix->pats || !ix->names)
		rc = err_set(ERR_NOMEM, "out of memory");
	p = text;
	while (!rc && next_section(&p, &sec, &title)) {
		const char *q;

		ix->names[ix->nsections] = strndup(title, strcspn(title, "\n"));
		if (!ix->names[ix->nsections]) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		for (q = sec.start; !rc && q < sec.end;
		     q = strchr(q, '\n') + 1) {
			const char *v = q + 2 + strspn(q + 2, " \t");

			if (q[0] == 'F' || q[0] == 'X' || q[0] == 'N')
				rc = add_pattern(ix, ix->nsections, q[0], v,
						 (size_t)(strchr(q, '\n') - v));
		}
		ix->nsections++;
	}
	if (!rc) {
		ix->globs = calloc(ix->npats + 1, sizeof(*ix->globs));
		ix->regexes = calloc(ix->npats + 1, sizeof(*ix->regexes));
		ix->best = malloc((ix->nsections + 1) * sizeof(*ix->best));
		ix->touch = malloc((ix->nsections + 1) * sizeof(*ix->touch));
		if (!ix->globs || !ix->regexes || !ix->best || !ix->touch)
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
	size_t i;

	if (!ix)
		return;
	for (i = 0; i < ix->npats; i++) {
		if (ix->pats[i].type == 'N')
			regfree(&ix->pats[i].re);
		free(ix->pats[i].pat);
	}
	for (i = 0; i < ix->nsections; i++)
		free(ix->names[i]);
	free(ix->names);
	free(ix->pats);
	free(ix->globs);
	free(ix->regexes);
	free(ix->best);
	free(ix->touch);
	free(ix);
}

size_t maint_index_sections(const struct maint_index *ix)
{
	return ix->nsections;
}

const char *maint_section_name(const struct maint_index *ix, size_t i)
{
	return i < ix->nsections ? ix->names[i] : NULL;
}

/* Record a match of m; X: (as -2) outweighs any F: or N: of its section. */
static void note(struct maint_index *ix, const struct mpat *m, size_t *ntouch)
{
	long *b = &ix->best[m->section];

	if (*b == -1)
		ix->touch[(*ntouch)++] = m->section;
	if (m->type == 'X')
		*b = -2;
	else if (*b != -2 && (long)m->len > *b)
		*b = (long)m->len;
}

static int size_order(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

size_t maint_file_sections(struct maint_index *ix, const char *file,
			   size_t *out, size_t max)
{
	size_t ntouch = 0, n = 0, i, len = 0;
	long top = -1;

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
			if (maint_pattern_match(ix->globs[lo]->pat, file))
				note(ix, ix->globs[lo], &ntouch);
		if (!file[len])
			break;
		len += strcspn(file + len, "/");
		if (!file[len])
			break;
		len++;
	}
	for (i = 0; i < ix->nregexes; i++)
		if (regexec(&ix->regexes[i]->re, file, 0, NULL, 0) == 0)
			note(ix, ix->regexes[i], &ntouch);
	for (i = 0; i < ntouch; i++)
		if (ix->best[ix->touch[i]] > top)
			top = ix->best[ix->touch[i]];
	for (i = 0; i < ntouch; i++) {
		if (top >= 0 && ix->best[ix->touch[i]] == top && n < max)
			out[n++] = ix->touch[i];
		ix->best[ix->touch[i]] = -1;
	}
	qsort(out, n, sizeof(*out), size_order);
	return n;
}
