// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sandbox for builds of untrusted patches: bubblewrap (bwrap), with
 * every namespace new (no network: only a loopback of its own, which
 * bubblewrap brings up and which reaches nothing else), the
 * whole file system read-only but for the work directory (the tree, O=,
 * where the packages are made) and ccache's directory, a private /tmp
 * and /var/tmp, and empty /root, /home and hidden directories
 * (sandbox_hide(): keys, the worker's cache with every other job's
 * trees, of which only what the step needs is bound back).  Whatever a
 * patched Makefile or Kconfig script runs can write to nothing else and
 * reach nothing.
 *
 * What it writes: the work directory's out/ (make's O= directory is
 * out/build, bindeb-pkg's packages land in out/, binrpm-pkg's under
 * out/rpmbuild, modules_install's in out/modroot), and nothing else of
 * the work directory, which stays the worker's: the checkout src/, its
 * git directory src.git, and the files the worker makes (the config
 * stamp, the initramfs, the copy of the image it boots) cannot be
 * replaced by the build.  What the worker takes from out/ it reads
 * without following links (beneath.h).
 *
 * Who it runs as: a worker that is root gives its builds a real user of
 * their own (sandbox_build_user(); setpriv, no user namespace), as it
 * does commands: root's files stay root's.  Without one (bisectctl, a
 * worker that is not root) a build runs as nobody in a user namespace,
 * which outside it is the caller.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "util.h"
#include "sandbox.h"

/* Directories the sandbox hides (a signing key's), beyond the homes,
 * and files (the worker's token file) */
static char hidden[4][4096], hidden_files[2][4096];
static size_t nhidden, nhidden_files;
/* builds' real user, when there is one */
static struct sandbox_user builder;

void sandbox_build_user(unsigned uid, unsigned gid)
{
	builder.uid = uid;
	builder.gid = gid;
	builder.network = 0;
}

void sandbox_hide(const char *dir)
{
	if (nhidden < sizeof(hidden) / sizeof(hidden[0]))
		snprintf(hidden[nhidden++], sizeof(hidden[0]), "%s", dir);
}

void sandbox_hide_file(const char *path)
{
	if (nhidden_files < sizeof(hidden_files) / sizeof(hidden_files[0]))
		snprintf(hidden_files[nhidden_files++], sizeof(hidden_files[0]),
			 "%s", path);
}

size_t sandbox_netns_words(const char **argv, char *buf, size_t size,
			   const char *netns)
{
	snprintf(buf, size, "--net=%s", netns);
	argv[0] = "nsenter";
	argv[1] = buf;
	argv[2] = "--";
	return 3;
}

/* What differs between a build's sandbox and a command's. */
struct words {
	const char *work_dir;
	int build; /* a build's: ccache's directory, and only out/ writable */
	const char *ro_dir;	/* also readable (a command's git objects) */
	const char *ro_dir2;	/* and its checkout's git directory */
	const char *const *env; /* NULL: the build's environment, kept */
	const struct sandbox_user *user; /* NULL: a build's */
	const char *netns; /* a network namespace to run in, or NULL */
};

/*
 * Directories that lead to path, made traversable (0755) where they are
 * made anew (below a tmpfs such as /tmp or a hidden directory; bwrap
 * would make them 0700, which only root may cross).  Up to 12 per path,
 * four paths.
 */
static size_t ancestors(const char **argv, const char *path, int which)
{
	static char dirs[4][12][4096];
	const char *p = path;
	size_t n = 0, k = 0;

	while (k < 12 && (p = strchr(p + 1, '/'))) {
		snprintf(dirs[which][k], sizeof(dirs[0][0]), "%.*s",
			 (int)(p - path), path);
		argv[n++] = "--perms";
		argv[n++] = "0755";
		argv[n++] = "--dir";
		argv[n++] = dirs[which][k++];
	}
	return n;
}

/* ccache's directory, as the build uses it (util_ccache_dir()), in a
 * buffer that lasts until the sandbox's words are used.  NULL when out
 * of memory. */
static const char *ccache_dir(void)
{
	static char dir[4096];
	char *cd = util_ccache_dir();

	if (!cd)
		return NULL;
	snprintf(dir, sizeof(dir), "%s", cd);
	free(cd);
	return dir;
}

static size_t sandbox_words(const char **argv, const struct words *w)
{
	static char ids[2][32];
	const char *cd = w->build ? ccache_dir() : NULL;
	/* a real user, or nobody in a user namespace (root outside it) */
	int real = w->user && w->user->uid;
	size_t n = 0, i;

	if (w->netns) {
		/* the build's own namespace: compile servers only */
		static char net[4200];

		n += sandbox_netns_words(argv + n, net, sizeof(net), w->netns);
	}
	argv[n++] = "bwrap";
	if (real) {
		/* no user namespace: the command's user is a real one, so
		 * that files of root's stay root's (in a user namespace
		 * root's files would be the sandbox user's own) */
		argv[n++] = "--unshare-ipc";
		argv[n++] = "--unshare-pid";
		argv[n++] = "--unshare-uts";
		argv[n++] = "--unshare-cgroup-try";
		if (!w->user->network && !w->netns)
			argv[n++] = "--unshare-net";
	} else {
		argv[n++] = "--unshare-all";
		if ((w->user && w->user->network) || w->netns)
			argv[n++] = "--share-net";
	}
	argv[n++] = "--die-with-parent";
	argv[n++] = "--new-session";
	if (w->env) {
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
		for (i = 0; w->env[i] && i < 2; i++) {
			static char names[2][64];
			const char *eq = strchr(w->env[i], '=');
			size_t len = eq ? (size_t)(eq - w->env[i]) : 0;

			if (!eq || len >= sizeof(names[0]))
				continue;
			memcpy(names[i], w->env[i], len);
			names[i][len] = '\0';
			argv[n++] = "--setenv";
			argv[n++] = names[i];
			argv[n++] = eq + 1;
		}
	}
	if (real) {
		/* git in the checkout, which belongs to the worker: the
		 * command's git must not refuse it as "dubious ownership" */
		argv[n++] = "--setenv";
		argv[n++] = "GIT_CONFIG_COUNT";
		argv[n++] = "1";
		argv[n++] = "--setenv";
		argv[n++] = "GIT_CONFIG_KEY_0";
		argv[n++] = "safe.directory";
		argv[n++] = "--setenv";
		argv[n++] = "GIT_CONFIG_VALUE_0";
		argv[n++] = "*";
	} else {
		argv[n++] = "--uid";
		argv[n++] = "65534";
		argv[n++] = "--gid";
		argv[n++] = "65534";
	}
	argv[n++] = "--ro-bind";
	argv[n++] = "/";
	argv[n++] = "/";
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	argv[n++] = "--perms";
	argv[n++] = "01777";
	argv[n++] = "--tmpfs";
	argv[n++] = "/tmp";
	argv[n++] = "--perms";
	argv[n++] = "01777";
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
	if (w->ro_dir)
		n += ancestors(argv + n, w->ro_dir, 0);
	if (w->ro_dir2)
		n += ancestors(argv + n, w->ro_dir2, 3);
	n += ancestors(argv + n, w->work_dir, 1);
	if (cd)
		n += ancestors(argv + n, cd, 2);
	if (w->ro_dir) {
		argv[n++] = "--ro-bind";
		argv[n++] = w->ro_dir;
		argv[n++] = w->ro_dir;
	}
	if (w->ro_dir2) {
		argv[n++] = "--ro-bind";
		argv[n++] = w->ro_dir2;
		argv[n++] = w->ro_dir2;
	}
	if (w->build) {
		/* a build: its work directory read-only but for out/ */
		static char out[4200];

		snprintf(out, sizeof(out), "%s/" SANDBOX_OUT, w->work_dir);
		argv[n++] = "--ro-bind";
		argv[n++] = w->work_dir;
		argv[n++] = w->work_dir;
		argv[n++] = "--bind";
		argv[n++] = out;
		argv[n++] = out;
	} else {
		argv[n++] = "--bind";
		argv[n++] = w->work_dir;
		argv[n++] = w->work_dir;
	}
	if (cd && util_mkdir_p(cd) == 0) {
		argv[n++] = "--bind";
		argv[n++] = cd;
		argv[n++] = cd;
	}
	/* (after the binds, which may hold them) */
	for (i = 0; i < nhidden_files; i++) {
		argv[n++] = "--ro-bind";
		argv[n++] = "/dev/null";
		argv[n++] = hidden_files[i];
	}
	argv[n++] = "--";
	if (real) {
		/* the user, every capability and privilege gone */
		snprintf(ids[0], sizeof(ids[0]), "--reuid=%u", w->user->uid);
		snprintf(ids[1], sizeof(ids[1]), "--regid=%u", w->user->gid);
		argv[n++] = "setpriv";
		argv[n++] = ids[0];
		argv[n++] = ids[1];
		argv[n++] = "--clear-groups";
		argv[n++] = "--no-new-privs";
		argv[n++] = "--inh-caps=-all";
		argv[n++] = "--bounding-set=-all";
		argv[n++] = "--";
	}
	return n;
}

int sandbox_argv(const char **argv, size_t *n, const char *work_dir,
		 const char *netns)
{
	const struct words w = { .work_dir = work_dir,
				 .build = 1,
				 .user = builder.uid ? &builder : NULL,
				 .netns = netns };
	char *out = util_fmt("%s/" SANDBOX_OUT, work_dir),
	     *dd = util_fmt("%s/" SANDBOX_DISTCC, work_dir);
	/* out/distcc: distcc's locks and state (pipeline.c), which distcc
	 * does not make itself */
	int rc = out && dd ? util_mkdir_p(dd)
			   : err_set(ERR_NOMEM, "out of memory");

	if (!rc && (builder.uid || geteuid() == 0)) {
		/* the build's user (outside any user namespace: a real one,
		 * or root for nobody in a user namespace) writes the work
		 * directory's out/ and ccache's directory, which an earlier
		 * build of the other kind may have left as its own; the
		 * work directory itself and the rest of it (the checkout)
		 * stay the caller's, and a worker's per-submitter caches
		 * (tenant/) are left to their builds */
		uid_t uid = builder.uid ? builder.uid : geteuid();
		gid_t gid = builder.uid ? builder.gid : getegid();
		const char *cd = ccache_dir();

		rc = cd ? util_mkdir_p(cd)
			: err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = util_chown_tree(out, NULL, uid, gid);
		if (!rc)
			rc = util_chown_tree(cd, "tenant", uid, gid);
	}
	free(out);
	free(dd);
	if (!rc)
		*n = sandbox_words(argv, &w);
	return rc;
}

/* What a work directory holds besides its build's out/: the caller's. */
static int own_entry(const char *name)
{
	static const char *const names[] = { "src",	     "src.git",
					     "config.stamp", "initramfs.cpio",
					     SANDBOX_IMAGE,  "helpers" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

int sandbox_claim_work(const char *work_dir)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (lstat(work_dir, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		rc = util_remove_tree(work_dir);
	if (!rc)
		rc = util_mkdir_p(work_dir);
	if (!rc && chmod(work_dir, 0755))
		rc = err_sys(ERR_INFRA, "chmod '%s'", work_dir);
	if (rc)
		return rc;
	if (!(d = opendir(work_dir)))
		return err_sys(ERR_INFRA, "cannot read '%s'", work_dir);
	while (!rc && (e = readdir(d))) {
		int keep;
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			rc = err_sys(ERR_INFRA, "cannot stat '%s/%s'", work_dir,
				     e->d_name);
			break;
		}
		keep = !strcmp(e->d_name, SANDBOX_OUT)
			       ? S_ISDIR(st.st_mode)
			       : own_entry(e->d_name) && !S_ISLNK(st.st_mode) &&
					 st.st_uid == geteuid();
		if (keep)
			continue;
		p = util_fmt("%s/%s", work_dir, e->d_name);
		rc = p ? util_remove_tree(p)
		       : err_set(ERR_NOMEM, "out of memory");
		free(p);
	}
	closedir(d);
	return rc;
}

size_t sandbox_command_argv(const char **argv, const char *work_dir,
			    const char *repo_dir, const char *work_git,
			    const char *const *env,
			    const struct sandbox_user *user)
{
	static const char *const none[] = { NULL };
	const struct words w = { .work_dir = work_dir,
				 .ro_dir = repo_dir,
				 .ro_dir2 = work_git,
				 .env = env ? env : none,
				 .user = user };

	return sandbox_words(argv, &w);
}
