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

#include "error.h"
#include "policy.h"
#include "util.h"

static const struct {
	const char *scheme;
	const char *port;
} schemes[] = { { "http", "80" }, { "https", "443" }, { "git", "9418" } };

int policy_url_normalise(const char *url, char **out)
{
	const char *p, *auth, *path, *colon, *dflt = NULL;
	size_t slen, alen, i;
	char scheme[8], host[256];
	const char *port = "";

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
		/* no "." or ".." path segment: one URL, one meaning */
		size_t n = strcspn(path, "?#");
		const char *s = path;

		while (s < path + n) {
			size_t seg;

			s++;
			seg = strcspn(s, "/?#");
			if ((seg == 1 && s[0] == '.') ||
			    (seg == 2 && s[0] == '.' && s[1] == '.'))
				return err_set(ERR_INPUT,
					       "URL '%.200s' has a '.' or '..' "
					       "segment",
					       url);
			s += seg;
		}
		*out = util_fmt("%s://%s%s%.*s%.*s", scheme, host,
				*port ? ":" : "",
				*port ? (int)strcspn(port, "/?#") : 0, port,
				(int)strcspn(path, "#"), path);
	}
	if (!*out)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
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

int policy_hook_allowed(const char *const *prefixes, const char *url)
{
	const char *auth = strstr(url, "://"), *at;
	char *bare, *n = NULL;
	int ok;

	if (!auth)
		return 0;
	auth += 3;
	at = memchr(auth, '@', strcspn(auth, "/?#"));
	bare = at ? util_fmt("%.*s%s", (int)(auth - url), url, at + 1)
		  : strdup(url);
	ok = bare && !policy_url_normalise(bare, &n) &&
	     !strncmp(n, "http", 4) && policy_url_allowed(prefixes, n);
	free(bare);
	free(n);
	return ok;
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
