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

size_t sandbox_argv(const char **argv, const char *work_dir)
{
	static char ccache[4096];
	const char *cd = getenv("CCACHE_DIR");
	size_t n = 0, i;

	if (!cd) {
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
