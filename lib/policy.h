/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a submitter may point the daemon at: repositories (URLs under
 * allowed prefixes, paths under allowed roots) and webhook receivers
 * (URLs under allowed prefixes).  Pure string and path checks, no I/O
 * but realpath().
 */
#ifndef BISECTD_POLICY_H
#define BISECTD_POLICY_H

/*
 * The normal form of an http, https or git URL, as RFC 3986 normalises
 * it: scheme and host in lower case, no default port, nothing after
 * '#', the percent-encodings of unreserved characters (letters, digits,
 * '-', '.', '_', '~') decoded and the others kept, in upper case.  A URL
 * with credentials (user@ or user:password@), control characters (also
 * percent-encoded), spaces, a '%' without two hex digits, or a "." or
 * ".." path segment (in any encoding, and also where an encoded '/' or
 * '\' would end one) is refused (ERR_INPUT, with the reason).  *out is
 * malloc'd.  Normal forms are their own.
 */
int policy_url_normalise(const char *url, char **out);

/*
 * Whether a normalised url is under one of the prefixes (each given in
 * any form policy_url_normalise() accepts; "https://" allows every https
 * URL).  A prefix without a path ends at the host and port: the prefix
 * "https://git.example.org" does not allow "https://git.example.org.evil"
 * or another port.
 */
int policy_url_allowed(const char *const *prefixes, const char *url);

/*
 * Whether a webhook may go to url: http or https, under one of prefixes
 * once its user and password (which the receiver may check) are set
 * aside and it is normalised.  No prefixes: no webhooks.  policy_hook()
 * says why not (ERR_INPUT), and on success gives the URL to deliver to:
 * the normal form with the user and password put back (*out,
 * malloc'd).
 */
int policy_hook(const char *const *prefixes, const char *url, char **out);
int policy_hook_allowed(const char *const *prefixes, const char *url);

/*
 * Check a list of URL prefixes (the settings repo-urls, webhook-urls):
 * each one "scheme://" alone or a URL that policy_url_normalise()
 * takes; ERR_INPUT naming the first that is not.
 */
int policy_prefixes_check(const char *const *prefixes);

/*
 * Check a submitted repository: a URL (normalised, then under one of
 * urls) or an absolute path whose real path is under one of roots.  On
 * success *out is what the daemon should use: the normal URL or the real
 * path.  Refusals are ERR_INPUT; a path outside the roots is refused
 * before anything is said about whether it exists.
 */
int policy_repo(const char *const *urls, const char *const *roots,
		const char *repo, char **out);

#endif
