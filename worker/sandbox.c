/*
 * The sandbox for builds of untrusted patches: bubblewrap (bwrap), with
 * every namespace new (no network: only a loopback that is down), the
 * nobody user, the whole file system read-only but for the work
 * directory (the tree, O=, where the packages are made) and ccache's
 * directory, a private /tmp and /var/tmp, and empty /root, /home and
 * directories of keys (sandbox_hide()).  Whatever a patched
 * Makefile or Kconfig script runs can write to nothing else and reach
 * nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "worker.h"

/* Directories the sandbox hides (a signing key's), beyond the homes. */
static char hidden[4][4096];
static size_t nhidden;

void sandbox_hide(const char *dir)
{
	if (nhidden < sizeof(hidden) / sizeof(hidden[0]))
		snprintf(hidden[nhidden++], sizeof(hidden[0]), "%s", dir);
}

static size_t sandbox_words(const char **argv, const char *work_dir,
			    int with_ccache, const char *ro_dir,
			    const char *const *env)
{
	static char ccache[4096];
	const char *cd = with_ccache ? getenv("CCACHE_DIR") : NULL;
	size_t n = 0, i;

	if (!cd && with_ccache) {
		char *cache = util_cache_dir();

		if (cache)
			snprintf(ccache, sizeof(ccache), "%s/ccache", cache);
		free(cache);
		cd = cache ? ccache : NULL;
	}
	argv[n++] = "bwrap";
	argv[n++] = "--unshare-all";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--new-session";
	if (env) {
		argv[n++] = "--clearenv";
		argv[n++] = "--setenv";
		argv[n++] = "PATH";
		argv[n++] = "/usr/local/bin:/usr/bin:/bin";
		argv[n++] = "--setenv";
		argv[n++] = "HOME";
		argv[n++] = "/tmp";
		argv[n++] = "--setenv";
		argv[n++] = "LANG";
		argv[n++] = "C.UTF-8";
		for (i = 0; env[i] && i < 2; i++) {
			static char names[2][64];
			const char *eq = strchr(env[i], '=');
			size_t len = eq ? (size_t)(eq - env[i]) : 0;

			if (!eq || len >= sizeof(names[0]))
				continue;
			memcpy(names[i], env[i], len);
			names[i][len] = '\0';
			argv[n++] = "--setenv";
			argv[n++] = names[i];
			argv[n++] = eq + 1;
		}
	}
	argv[n++] = "--uid";
	argv[n++] = "65534";
	argv[n++] = "--gid";
	argv[n++] = "65534";
	argv[n++] = "--ro-bind";
	argv[n++] = "/";
	argv[n++] = "/";
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	argv[n++] = "--tmpfs";
	argv[n++] = "/tmp";
	argv[n++] = "--tmpfs";
	argv[n++] = "/var/tmp";
	/* nothing private to read: homes, and keys (before the binds, which
	 * may lie below them) */
	argv[n++] = "--tmpfs";
	argv[n++] = "/root";
	argv[n++] = "--tmpfs";
	argv[n++] = "/home";
	for (i = 0; i < nhidden; i++) {
		argv[n++] = "--tmpfs";
		argv[n++] = hidden[i];
	}
	if (ro_dir) {
		argv[n++] = "--ro-bind";
		argv[n++] = ro_dir;
		argv[n++] = ro_dir;
	}
	argv[n++] = "--bind";
	argv[n++] = work_dir;
	argv[n++] = work_dir;
	if (cd && util_mkdir_p(cd) == 0) {
		argv[n++] = "--bind";
		argv[n++] = cd;
		argv[n++] = cd;
	}
	argv[n++] = "--";
	return n;
}

size_t sandbox_argv(const char **argv, const char *work_dir)
{
	return sandbox_words(argv, work_dir, 1, NULL, NULL);
}

size_t sandbox_command_argv(const char **argv, const char *work_dir,
			    const char *repo_dir, const char *const *env)
{
	static const char *const none[] = { NULL };

	return sandbox_words(argv, work_dir, 0, repo_dir, env ? env : none);
}
