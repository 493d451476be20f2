// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a submitter may point the daemon at: allow-lists of URL prefixes
 * and of directories.  See policy.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "policy.h"
#include "util.h"

static const struct {
	const char *scheme;
	const char *port;
} schemes[] = { { "http", "80" }, { "https", "443" }, { "git", "9418" } };

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Every '%' of the n bytes at s begins two hex digits, and none encodes
 * a control character: ERR_INPUT naming what (a quoted URL) otherwise.
 */
static int escapes_ok(const char *s, size_t n, const char *what)
{
	const char *p, *end = s + n;

	for (p = memchr(s, '%', n); p;
	     p = memchr(p + 3, '%', (size_t)(end - p - 3))) {
		int hi = end - p > 1 ? hexval(p[1]) : -1,
		    lo = hi >= 0 && end - p > 2 ? hexval(p[2]) : -1;

		if (hi < 0 || lo < 0)
			return err_set(ERR_INPUT,
				       "%s has a '%%' that is not followed by "
				       "two hex digits",
				       what);
		if (hi * 16 + lo < 0x20 || hi * 16 + lo == 0x7f)
			return err_set(ERR_INPUT,
				       "%s has an encoded control character "
				       "(%%%c%c)",
				       what, p[1], p[2]);
	}
	return 0;
}

/*
 * Path and query (s up to '#') as RFC 3986 normalises them, appended to
 * b: the percent-encodings of unreserved characters decoded, the others
 * kept in upper case (escapes_ok() checked them).
 */
static int put_normal(struct buf *b, const char *s)
{
	static const char unreserved[] = "abcdefghijklmnopqrstuvwxyz"
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789-._~";
	int rc = 0;

	for (; !rc && *s && *s != '#'; s++) {
		char c = *s;

		if (c != '%') {
			rc = buf_put(b, &c, 1);
			continue;
		}
		c = (char)(hexval(s[1]) * 16 + hexval(s[2]));
		rc = c && strchr(unreserved, c)
			     ? buf_put(b, &c, 1)
			     : buf_printf(b, "%%%02X", (unsigned char)c);
		s += 2;
	}
	return rc;
}

/*
 * Whether a normal path has a "." or ".." segment; an encoded '/' or
 * '\' (which a server may take as one) also ends a segment here.
 */
static int dot_segment(const char *path)
{
	const char *s = path, *end = path + strcspn(path, "?");

	while (s < end) {
		size_t seg = 0;

		if (*s == '/')
			s++;
		else if (!strncmp(s, "%2F", 3) || !strncmp(s, "%5C", 3))
			s += 3;
		while (s + seg < end && s[seg] != '/' &&
		       strncmp(s + seg, "%2F", 3) && strncmp(s + seg, "%5C", 3))
			seg++;
		if ((seg == 1 && s[0] == '.') ||
		    (seg == 2 && s[0] == '.' && s[1] == '.'))
			return 1;
		s += seg;
	}
	return 0;
}

int policy_url_normalise(const char *url, char **out)
{
	const char *p, *auth, *path, *colon, *dflt = NULL;
	size_t slen, alen, i;
	char scheme[8], host[256];
	const char *port = "";
	struct buf b;
	int rc;

	*out = NULL;
	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\\')
			return err_set(ERR_INPUT,
				       "URL '%.200s' has a space, a "
				       "backslash or a control "
				       "character",
				       url);
	p = strstr(url, "://");
	slen = p ? (size_t)(p - url) : 0;
	if (!p || !slen || slen >= sizeof(scheme))
		return err_set(ERR_INPUT, "'%.200s' is not a URL", url);
	for (i = 0; i < slen; i++)
		scheme[i] = (char)tolower((unsigned char)url[i]);
	scheme[slen] = '\0';
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (!strcmp(scheme, schemes[i].scheme))
			dflt = schemes[i].port;
	if (!dflt)
		return err_set(ERR_INPUT, "URL scheme '%s' is not allowed",
			       scheme);
	auth = p + 3;
	alen = strcspn(auth, "/?#");
	path = auth + alen;
	if (memchr(auth, '@', alen))
		return err_set(ERR_INPUT, "credentials in a URL are refused: "
					  "give the URL without user@");
	/* the port: after the last ':' that is not inside [v6] brackets */
	colon = NULL;
	for (i = 0; i < alen; i++)
		if (auth[i] == ':')
			colon = auth + i;
		else if (auth[i] == ']')
			colon = NULL;
	if (colon) {
		size_t plen = alen - (size_t)(colon + 1 - auth);
		char *end;
		long n = strtol(colon + 1, &end, 10);

		if (plen == 0 || plen > 5 || end != colon + 1 + plen || n < 1 ||
		    n > 65535 || !isdigit((unsigned char)colon[1]))
			return err_set(ERR_INPUT, "URL '%.200s' has a bad port",
				       url);
		port = colon + 1;
		if (plen == strlen(dflt) && !strncmp(port, dflt, plen))
			port = "";
		alen = (size_t)(colon - auth);
	}
	if (!alen || alen >= sizeof(host))
		return err_set(ERR_INPUT, "URL '%.200s' has no host", url);
	for (i = 0; i < alen; i++)
		host[i] = (char)tolower((unsigned char)auth[i]);
	host[alen] = '\0';
	/* a name or an IPv4 address, or an IPv6 address in brackets */
	if (host[0] == '['
		    ? alen < 3 || host[alen - 1] != ']' ||
			      strspn(host + 1, "0123456789abcdef:.") != alen - 2
		    : strspn(host, "abcdefghijklmnopqrstuvwxyz0123456789.-") !=
			      alen)
		return err_set(ERR_INPUT, "URL '%.200s' has a bad host name",
			       url);
	{
		/* (the host has no '%': it was refused above) */
		char *what = util_fmt("URL '%.200s'", url);

		rc = what ? escapes_ok(path, strlen(path), what)
			  : err_set(ERR_NOMEM, "out of memory");
		free(what);
		if (rc)
			return rc;
	}
	buf_init(&b, strlen(url) + 64);
	rc = buf_printf(&b, "%s://%s%s%.*s", scheme, host, *port ? ":" : "",
			*port ? (int)strcspn(port, "/?#") : 0, port);
	i = b.len; /* where the path begins */
	if (!rc)
		rc = put_normal(&b, path);
	/* no "." or ".." path segment, in any encoding: one URL, one
	 * meaning */
	if (!rc && dot_segment(buf_str(&b) + i))
		rc = err_set(ERR_INPUT,
			     "URL '%.200s' has a '.' or '..' segment", url);
	if (!rc && !(*out = buf_detach(&b)))
		rc = err_set(ERR_NOMEM, "out of memory");
	buf_release(&b);
	return rc;
}

int policy_url_allowed(const char *const *prefixes, const char *url)
{
	size_t i;

	for (i = 0; prefixes && prefixes[i]; i++) {
		char *pre = NULL;
		size_t n;
		int ok;

		/* "scheme://" alone allows the whole scheme */
		if (strstr(prefixes[i], "://") &&
		    !strstr(prefixes[i], "://")[3]) {
			n = strlen(prefixes[i]);
			if (!strncasecmp(url, prefixes[i], n))
				return 1;
			continue;
		}
		if (policy_url_normalise(prefixes[i], &pre))
			continue;
		n = strlen(pre);
		ok = !strncmp(url, pre, n) &&
		     (!url[n] || pre[n - 1] == '/' || strchr("/?#", url[n]));
		free(pre);
		if (ok)
			return 1;
	}
	return 0;
}

int policy_hook(const char *const *prefixes, const char *url, char **out)
{
	const char *auth = strstr(url, "://"), *at;
	char *bare, *n = NULL;
	size_t ulen;
	int rc;

	*out = NULL;
	if (!auth)
		return err_set(ERR_INPUT, "'%.200s' is not a URL", url);
	auth += 3;
	at = memchr(auth, '@', strcspn(auth, "/?#"));
	ulen = at ? (size_t)(at - auth) : 0;
	/* the user and password are the receiver's to check: set aside,
	 * and never repeated in a message */
	bare = at ? util_fmt("%.*s%s", (int)(auth - url), url, at + 1)
		  : strdup(url);
	if (!bare)
		return err_set(ERR_NOMEM, "out of memory");
	rc = escapes_ok(auth, ulen, "the user and password of the URL");
	if (!rc)
		rc = policy_url_normalise(bare, &n);
	if (!rc && strncmp(n, "http://", 7) && strncmp(n, "https://", 8))
		rc = err_set(ERR_INPUT, "a webhook URL is http or https");
	else if (!rc && !policy_url_allowed(prefixes, n))
		rc = err_set(ERR_INPUT, "webhooks to this destination are not "
					"allowed here (setting webhook-urls)");
	if (!rc) {
		size_t sl = (size_t)(strstr(n, "://") + 3 - n);

		*out = at ? util_fmt("%.*s%.*s@%s", (int)sl, n, (int)ulen, auth,
				     n + sl)
			  : strdup(n);
		if (!*out)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	free(bare);
	free(n);
	return rc;
}

int policy_hook_allowed(const char *const *prefixes, const char *url)
{
	char *n = NULL;
	int ok = !policy_hook(prefixes, url, &n);

	free(n);
	return ok;
}

int policy_prefixes_check(const char *const *prefixes)
{
	size_t i;

	for (i = 0; prefixes && prefixes[i]; i++) {
		const char *sep = strstr(prefixes[i], "://");
		char *n = NULL;
		int rc;

		/* "scheme://" alone: a whole scheme, which must be one */
		if (sep && !sep[3]) {
			char *probe = util_fmt("%sx", prefixes[i]);

			rc = probe ? policy_url_normalise(probe, &n)
				   : err_set(ERR_NOMEM, "out of memory");
			free(probe);
		} else {
			rc = policy_url_normalise(prefixes[i], &n);
		}
		free(n);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * path without "." and ".." and repeated slashes, as written (no links
 * followed); NULL for a relative path.
 */
static char *lexical(const char *path)
{
	char *out, *o;
	const char *s = path;

	if (path[0] != '/' || !(out = malloc(strlen(path) + 2)))
		return NULL;
	o = out;
	while (*s) {
		size_t seg;

		while (*s == '/')
			s++;
		seg = strcspn(s, "/");
		if (!seg || (seg == 1 && s[0] == '.')) {
		} else if (seg == 2 && s[0] == '.' && s[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, s, seg);
			o += seg;
		}
		s += seg;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

/* Whether path is root or inside it (both in the same form). */
static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n > 1 && root[n - 1] == '/')
		n--;
	return !strncmp(path, root, n) &&
	       (path[n] == '\0' || path[n] == '/' || n == 1);
}

static int path_allowed(const char *const *roots, const char *path, int real)
{
	size_t i;

	for (i = 0; roots && roots[i]; i++) {
		char *r = real ? realpath(roots[i], NULL) : lexical(roots[i]);
		int ok = r && under(path, r);

		free(r);
		if (ok)
			return 1;
	}
	return 0;
}

int policy_repo(const char *const *urls, const char *const *roots,
		const char *repo, char **out)
{
	char *lex, *real;
	int rc;

	*out = NULL;
	if (strstr(repo, "://")) {
		if ((rc = policy_url_normalise(repo, out)))
			return rc;
		if (!policy_url_allowed(urls, *out)) {
			rc = err_set(ERR_INPUT,
				     "repository URL '%.200s' is not allowed "
				     "here (setting repo-urls)",
				     *out);
			free(*out);
			*out = NULL;
		}
		return rc;
	}
	if (!roots || !roots[0])
		return err_set(ERR_INPUT, "this server takes repositories as "
					  "URLs only (no repo-roots are set)");
	lex = lexical(repo);
	if (!lex || !path_allowed(roots, lex, 0)) {
		free(lex);
		return err_set(ERR_INPUT,
			       "repository '%.200s' is not under "
			       "the allowed roots (setting "
			       "repo-roots)",
			       repo);
	}
	free(lex);
	if (!(real = realpath(repo, NULL)))
		return err_set(ERR_INPUT, "no repository at '%.200s'", repo);
	if (!path_allowed(roots, real, 1)) {
		free(real);
		return err_set(ERR_INPUT,
			       "repository '%.200s' leads out of "
			       "the allowed roots (setting "
			       "repo-roots)",
			       repo);
	}
	*out = real;
	return 0;
}
