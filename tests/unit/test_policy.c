// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of what a submitter may point the daemon at: URL normal
 * forms, prefix allow-lists and repository roots.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "policy.h"
#include "util.h"

static void normal(const char *url, const char *want)
{
	char *out = NULL;

	if (policy_url_normalise(url, &out))
		fail_msg("'%s' refused: %s", url, err_last());
	assert_string_equal(out, want);
	free(out);
}

static void refused(const char *url, const char *why)
{
	char *out = NULL;

	assert_int_equal(policy_url_normalise(url, &out), ERR_INPUT);
	assert_null(out);
	if (!strstr(err_last(), why))
		fail_msg("'%s': '%s' does not say '%s'", url, err_last(), why);
}

static void test_policy__normal_form(void **state)
{
	(void)state;
	normal("HTTPS://Git.Kernel.ORG:443/pub/scm/linux.git",
	       "https://git.kernel.org/pub/scm/linux.git");
	normal("http://127.0.0.1:8080/x?y=1#frag",
	       "http://127.0.0.1:8080/x?y=1");
	normal("git://[::1]:9418/r.git", "git://[::1]/r.git");
	normal("git://[::1]:9419/r.git", "git://[::1]:9419/r.git");
	normal("https://example.org", "https://example.org");
}

static void test_policy__refusals(void **state)
{
	(void)state;
	refused("https://user:secret@example.org/r.git", "credentials");
	refused("https://token@example.org/r.git", "credentials");
	refused("file:///etc/passwd", "scheme 'file'");
	refused("ext::sh -c id", "space");
	refused("https://example.org:{z{:::443/linux.git", "bad host");
	refused("https://ex_ample.org/r.git", "bad host");
	refused("https://[fe80::1%eth0]/r.git", "bad host");
	refused("ext::sh", "not a URL");
	refused("https://example.org/a/../../etc", "'..' segment");
	refused("https://example.org/a/./b", "segment");
	refused("https://example.org:99999/r", "bad port");
	refused("https://example.org:/r", "bad port");
	refused("https://:80/r", "no host");
	refused("https://example.org/a b", "space");
	refused("https://example.org/a\nb", "control");
}

/*
 * Percent-encodings as RFC 3986 normalises them: unreserved characters
 * decoded, the others kept in upper case; "." and ".." segments refused
 * in any encoding, encoded controls and broken encodings too.
 */
static void test_policy__percent_encodings(void **state)
{
	(void)state;
	normal("https://Host/%7euser/%61b%2dc%5F.git",
	       "https://host/~user/ab-c_.git");
	normal("https://host/a%2fb%3f?q=%2e%2e&r=%7E#%41",
	       "https://host/a%2Fb%3F?q=..&r=~");
	normal("https://host/caf%c3%a9/x%25y", "https://host/caf%C3%A9/x%25y");
	/* a normal form is its own */
	normal("https://host/a%2Fb%3F?q=..&r=~",
	       "https://host/a%2Fb%3F?q=..&r=~");
	normal("https://host/a..b/.c/d.", "https://host/a..b/.c/d.");
	refused("https://host/a/%2e%2e/x.git", "'..' segment");
	refused("http://127.0.0.1:8080/hooks/%2e%2e/admin", "'..' segment");
	refused("https://host/a/%2E%2E", "'..' segment");
	refused("https://host/a/.%2e/x", "'..' segment");
	refused("https://host/a/%2e/x", "'.' or '..' segment");
	refused("https://host/a/%2e%2e%2fetc", "'..' segment");
	refused("https://host/a/..%5Cx", "'..' segment");
	refused("https://host/a/%2e%2e?x", "'..' segment");
	refused("https://host/a%00b", "encoded control character (%00)");
	refused("https://host/a%0d%0aX-Evil:%201", "encoded control");
	refused("https://host/a%1F", "encoded control");
	refused("https://host/a%7f", "encoded control");
	refused("https://host/a?q=%0a", "encoded control");
	refused("https://host/a#%0a", "encoded control");
	refused("https://host/a%zz", "two hex digits");
	refused("https://host/a%4", "two hex digits");
	refused("https://host/a%", "two hex digits");
}

static int allowed(const char *prefix, const char *url)
{
	const char *const p[] = { prefix, NULL };
	char *n = NULL;
	int ok;

	assert_int_equal(policy_url_normalise(url, &n), 0);
	ok = policy_url_allowed(p, n);
	free(n);
	return ok;
}

static void test_policy__prefixes(void **state)
{
	(void)state;
	assert_true(allowed("https://", "https://any.example/x"));
	assert_false(allowed("https://", "http://any.example/x"));
	assert_true(allowed("https://git.example.org",
			    "https://git.example.org/r.git"));
	assert_true(
		allowed("https://git.example.org", "https://GIT.example.org"));
	assert_false(allowed("https://git.example.org",
			     "https://git.example.org.evil.example/r.git"));
	assert_false(allowed("https://git.example.org",
			     "https://git.example.org:8443/r.git"));
	assert_true(allowed("https://git.example.org:443/",
			    "https://git.example.org/r.git"));
	assert_true(allowed("http://127.0.0.1:8080/hooks/",
			    "http://127.0.0.1:8080/hooks/a"));
	assert_false(allowed("http://127.0.0.1:8080/hooks/",
			     "http://127.0.0.1:8080/hooksx"));
	assert_false(allowed("http://127.0.0.1:8080/hooks",
			     "http://127.0.0.1:8080/hooksx"));
	assert_true(allowed("http://127.0.0.1:8080/hooks",
			    "http://127.0.0.1:8080/hooks?job=1"));
	{
		const char *const none[] = { NULL };

		assert_false(policy_url_allowed(none, "https://x.example/"));
	}
	/* prefixes and URLs compare in their normal forms */
	assert_true(allowed("http://127.0.0.1:8080/hooks/",
			    "http://127.0.0.1:8080/hooks/%61"));
	assert_true(allowed("https://h.example/%7Euser/",
			    "https://h.example/~user/r.git"));
	assert_false(
		allowed("https://h.example/pub/", "https://h.example/pub%2Fx"));
	assert_false(
		allowed("https://h.example/pub", "https://h.example/pub%2Fx"));
}

static void test_policy__webhooks(void **state)
{
	const char *const hooks[] = { "http://127.0.0.1:8080/hooks/", NULL };
	char *out = NULL;

	(void)state;
	assert_true(
		policy_hook_allowed(hooks, "http://127.0.0.1:8080/hooks/a"));
	assert_false(policy_hook_allowed(
		hooks, "http://127.0.0.1:8080/hooks/%2e%2e/admin"));
	assert_int_equal(policy_hook(hooks,
				     "http://127.0.0.1:8080/hooks/%2e%2e/admin",
				     &out),
			 ERR_INPUT);
	assert_null(out);
	assert_non_null(strstr(err_last(), "'..' segment"));
	assert_int_equal(
		policy_hook(hooks, "http://127.0.0.1:8080/admin", &out),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "setting webhook-urls"));
	assert_int_equal(
		policy_hook(hooks, "git://127.0.0.1:8080/hooks/a", &out),
		ERR_INPUT);
	/* delivered to the normal form, its user and password kept */
	assert_int_equal(policy_hook(hooks,
				     "HTTP://u:p%40ss@127.0.0.1:8080/hooks/"
				     "%61#x",
				     &out),
			 0);
	assert_string_equal(out, "http://u:p%40ss@127.0.0.1:8080/hooks/a");
	free(out);
	/* whose encoded controls are refused too, never repeated */
	assert_int_equal(
		policy_hook(hooks, "http://u:se%0acret@127.0.0.1:8080/hooks/a",
			    &out),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "encoded control"));
	assert_null(strstr(err_last(), "cret"));
}

static void test_policy__prefix_settings(void **state)
{
	const char *const good[] = { "https://", "git://",
				     "http://127.0.0.1:8080/hooks/",
				     "https://h.example/%7Euser/", NULL };
	const char *const dots[] = { "https://", "http://h.example/%2e%2e/",
				     NULL };
	const char *const scheme[] = { "ftp://", NULL };

	(void)state;
	assert_int_equal(policy_prefixes_check(good), 0);
	assert_int_equal(policy_prefixes_check(dots), ERR_INPUT);
	assert_non_null(strstr(err_last(), "'..' segment"));
	assert_int_equal(policy_prefixes_check(scheme), ERR_INPUT);
	assert_non_null(strstr(err_last(), "scheme 'ftp'"));
}

static void test_policy__roots(void **state)
{
	char dir[] = "/tmp/policy-test.XXXXXX", *root, *inside, *out = NULL,
	     *link, *outside;
	const char *roots[2] = { NULL, NULL };
	const char *urls[] = { "https://", NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	root = util_fmt("%s/root", dir);
	inside = util_fmt("%s/root/repo.git", dir);
	outside = util_fmt("%s/secret", dir);
	link = util_fmt("%s/root/escape", dir);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(mkdir(inside, 0700), 0);
	assert_int_equal(mkdir(outside, 0700), 0);
	assert_int_equal(symlink(outside, link), 0);
	roots[0] = root;

	assert_int_equal(policy_repo(urls, roots, inside, &out), 0);
	assert_string_equal(out, inside);
	free(out);

	/* a path written to climb out, a link that leads out, a sibling
	 * whose name starts like the root, a relative path, no roots */
	{
		char *climb = util_fmt("%s/../secret", root),
		     *sibling = util_fmt("%s/rootx", dir);

		assert_int_equal(policy_repo(urls, roots, climb, &out),
				 ERR_INPUT);
		assert_non_null(strstr(err_last(), "not under"));
		assert_int_equal(policy_repo(urls, roots, link, &out),
				 ERR_INPUT);
		assert_non_null(strstr(err_last(), "leads out"));
		assert_int_equal(policy_repo(urls, roots, sibling, &out),
				 ERR_INPUT);
		assert_int_equal(policy_repo(urls, roots, "repo.git", &out),
				 ERR_INPUT);
		free(climb);
		free(sibling);
	}
	/* outside the roots, existence is not told */
	assert_int_equal(policy_repo(urls, roots, "/etc/no-such-file", &out),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "not under"));
	assert_int_equal(policy_repo(urls, roots, "/etc", &out), ERR_INPUT);
	assert_non_null(strstr(err_last(), "not under"));
	{
		const char *const none[] = { NULL };

		assert_int_equal(policy_repo(urls, none, inside, &out),
				 ERR_INPUT);
		assert_non_null(strstr(err_last(), "URLs only"));
	}
	/* URLs: normalised, then the prefixes */
	assert_int_equal(
		policy_repo(urls, roots, "HTTPS://Example.org/r", &out), 0);
	assert_string_equal(out, "https://example.org/r");
	free(out);
	assert_int_equal(policy_repo(urls, roots,
				     "https://example.org/a/%2e%2e/x.git",
				     &out),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "'..' segment"));
	assert_null(out);
	assert_int_equal(policy_repo(urls, roots, "git://example.org/r", &out),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "repo-urls"));
	assert_null(out);

	util_remove_tree(dir);
	free(root);
	free(inside);
	free(outside);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy__normal_form),
		cmocka_unit_test(test_policy__refusals),
		cmocka_unit_test(test_policy__percent_encodings),
		cmocka_unit_test(test_policy__prefixes),
		cmocka_unit_test(test_policy__webhooks),
		cmocka_unit_test(test_policy__prefix_settings),
		cmocka_unit_test(test_policy__roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
