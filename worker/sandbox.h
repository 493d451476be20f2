/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bubblewrap sandboxes of builds and of commands from the network
 * (sandbox.c).
 */
#ifndef BISECTD_WORKER_SANDBOX_H
#define BISECTD_WORKER_SANDBOX_H

#include <stddef.h>

/*
 * The sandbox's command words (bwrap and its options, ending in "--")
 * for a build that may write only in work_dir's out/ and ccache's
 * directory: put them before the command; *n gets their count, at most
 * SANDBOX_WORDS.  When the caller is root, work_dir/out and ccache's
 * directory are first given to the build's user outside the sandbox:
 * the build user (sandbox_build_user()), else root.  With
 * netns (a path for nsenter --net=), the build runs in that network
 * namespace (icecc's compile servers, compile_helpers.h) instead of one with
 * only a loopback.  Not reentrant.
 */
#define SANDBOX_WORDS 256
/* The one directory of a work directory that its build writes, and the
 * image that the worker copies out of it to boot. */
#define SANDBOX_OUT "out"
/* distcc's locks and state in a sandboxed build: the build user's */
#define SANDBOX_DISTCC SANDBOX_OUT "/distcc"
#define SANDBOX_IMAGE "image"
int sandbox_argv(const char **argv, size_t *n, const char *work_dir,
		 const char *netns);
/*
 * Make work_dir the caller's before a step uses it: the directory itself
 * and everything in it but out/ (a link, or a file of someone else's,
 * from a build of before out/ was its only place, is removed).  Under
 * the work directory's lock, with no build running.
 */
int sandbox_claim_work(const char *work_dir);
/*
 * The words that run a command in the network namespace at netns
 * (nsenter --net=NETNS --) into argv, buf (size bytes) holding the
 * option; their count, 3.
 */
size_t sandbox_netns_words(const char **argv, char *buf, size_t size,
			   const char *netns);
/*
 * Builds run from now on as this real user (never root), without a user
 * namespace: root's files stay root's to them.  For a worker that is
 * root; without it a build runs as nobody in a user namespace.
 */
void sandbox_build_user(unsigned uid, unsigned gid);
/* Who a command from the network runs as (uid 0: a worker that is not
 * root, whose sandbox user is nobody in a user namespace, its own uid
 * outside), and whether it has the network (the host's; else a loopback
 * of its own). */
struct sandbox_user {
	unsigned uid, gid;
	int network;
};
/*
 * The same for a command from the network: no ccache to write to, and an
 * environment of its own (PATH, HOME=/tmp, LANG=C.UTF-8 and each
 * "NAME=value" of env), nothing of the worker's; repo_dir (the git
 * directory whose objects the work tree borrows) and work_git (the work
 * tree's own git directory, beside it; or NULL) readable.  It runs as
 * user's real uid and gid (setpriv), without capabilities, groups or a
 * user namespace: the worker's files are not its own.
 */
size_t sandbox_command_argv(const char **argv, const char *work_dir,
			    const char *repo_dir, const char *work_git,
			    const char *const *env,
			    const struct sandbox_user *user);
/*
 * Hide dir (a signing key's, the worker's cache) from every later
 * sandbox: an empty tmpfs over it, on which what the sandbox needs from
 * inside (its work directory, ccache's, the repository) is bound back;
 * up to 4.
 */
void sandbox_hide(const char *dir);
/*
 * Hide file (the worker's token file) in every later sandbox: /dev/null,
 * which it may not open, is bound over it; up to 2.  A build without a
 * build user, nobody in a user namespace, is the worker outside it, and
 * could read it.
 */
void sandbox_hide_file(const char *path);

#endif
