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

int maint_recipients(const char *text, const char *const *files, size_t n,
		     struct buf *maintainers, struct buf *lists)
{
	const char *p = text;

	while (*p) {
		struct section sec = { NULL, NULL, 0 };
		const char *title = p;
		size_t i;

		/* a section: its title, then consecutive entry lines */
		while (*p && !is_entry(p)) {
			const char *nl = strchr(p, '\n');

			if (*p != '\n')
				title = p;
			p = nl ? nl + 1 : p + strlen(p);
		}
		sec.rest = !strncmp(title, "THE REST\n", 9);
		sec.start = p;
		while (*p && is_entry(p) && strchr(p, '\n'))
			p = strchr(p, '\n') + 1;
		sec.end = p;
		if (sec.start == sec.end) {
			if (*p)
				p += strcspn(p, "\n") +
				     (p[strcspn(p, "\n")] != 0);
			continue;
		}
		for (i = 0; i < n; i++)
			if (section_matches(&sec, files[i])) {
				collect(&sec, maintainers, lists, !sec.rest);
				break;
			}
	}
	add_once(lists, MAINT_REGRESSIONS, strlen(MAINT_REGRESSIONS));
	return 0;
}
