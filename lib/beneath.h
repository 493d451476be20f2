/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files below a directory that unprivileged code has written (a build's
 * output, a command's checkout), used by a process that may be root:
 * never through a link or a hard link that code left there (beneath.c).
 */
#ifndef BISECTD_BENEATH_H
#define BISECTD_BENEATH_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/*
 * Open path, which lies below base: base itself is trusted (its path
 * and every directory up to it belong to the caller), every component
 * after it is resolved without following a link and without leaving
 * base (openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS).  flags and
 * mode as open(2)'s.  The descriptor, or <0 (ERR_INFRA; ERR_INPUT for a
 * link or a path outside base) with the reason in err_last().
 */
int beneath_open(const char *base, const char *path, int flags, mode_t mode);

/* Read the regular file path below base (one link to it, not a hard
 * link that may be another file's) into out, within out's cap. */
int beneath_read(struct buf *out, const char *base, const char *path);

/* Copy the regular file path below base to to (a file of the caller's,
 * written atomically). */
int beneath_copy(const char *base, const char *path, const char *to);

/*
 * Write data to path below base as a new file (mode 0644): written
 * beside it under a fresh name and renamed over it, so that neither a
 * link nor a hard link that was there is written through.
 */
int beneath_write(const char *base, const char *path, const void *data,
		  size_t len);

/*
 * Whether the link at rel (below base) is the caller's own, as it made
 * it: a link that the commit checked out holds, which its checkout
 * handles as a link.  Such a link is kept.
 */
typedef int (*beneath_own_fn)(const char *rel, void *payload);

/*
 * Make path below base safe for a privileged writer that follows what
 * it finds (libgit2's checkout): a link (not own's) where a directory
 * leading to path is, is removed, and so is path itself when it is a
 * link (not own's), a hard link, or not a regular file or a directory.
 * What is missing stays missing.  own may be NULL.
 */
int beneath_clear(const char *base, const char *path, beneath_own_fn own,
		  void *payload);

/*
 * The same for every path of the tree below dir: every link (but own's),
 * hard link and special file in it is removed.  Not thread-safe.
 */
int beneath_clear_tree(const char *dir, beneath_own_fn own, void *payload);

#endif
