// SPDX-License-Identifier: GPL-2.0-only
/*
 * Files below a directory that unprivileged code has written.  A worker
 * that is root hands a build's output directory, or a command's
 * checkout, to an unprivileged user; whatever that user left there (a
 * link to /etc, a hard link to another user's file, a fifo) must not
 * make root read or write anything else.  No unprivileged process runs
 * while these are called (the sandbox and everything in it has ended),
 * so what is checked here stays as it is checked.
 *
 * Opening resolves each component below the trusted base with openat2
 * (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS): a link anywhere on the way
 * fails the open instead of being followed.  Writing makes a new file
 * beside the target and renames it over it.  Clearing removes what a
 * following writer (libgit2's checkout) would otherwise write through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "util.h"
#include "beneath.h"

/* path with base's prefix taken off, or NULL when it is not below it */
static const char *below(const char *base, const char *path)
{
	size_t n = strlen(base);

	while (n > 1 && base[n - 1] == '/')
		n--;
	if (strncmp(path, base, n) || path[n] != '/')
		return NULL;
	while (path[n] == '/')
		n++;
	return path[n] ? path + n : NULL;
}

static int open_base(const char *base)
{
	int fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return err_sys(ERR_INFRA, "cannot open '%s'", base);
	return fd;
}

/* openat2 below the directory dfd; -1 with errno as open(2)'s */
static int open_in(int dfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = { .flags = (unsigned)(flags | O_CLOEXEC),
				.mode = (flags & O_CREAT) ? mode : 0,
				.resolve = RESOLVE_BENEATH |
					   RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
}

static int open_fail(const char *path)
{
	if (errno == ELOOP || errno == EXDEV)
		return err_set(ERR_INPUT,
			       "'%s' leads through a link: not followed", path);
	return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_INFRA,
		       "cannot open '%s'", path);
}

int beneath_open(const char *base, const char *path, int flags, mode_t mode)
{
	const char *rel = below(base, path);
	int dfd, fd;

	if (!rel)
		return err_set(ERR_INPUT, "'%s' is not below '%s'", path, base);
	if ((dfd = open_base(base)) < 0)
		return dfd;
	fd = open_in(dfd, rel, flags, mode);
	if (fd < 0)
		fd = open_fail(path);
	close(dfd);
	return fd;
}

/* fd is a regular file with one name, else ERR_INPUT */
static int only_file(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st))
		return err_sys(ERR_INFRA, "cannot stat '%s'", path);
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		return err_set(ERR_INPUT,
			       "'%s' is not a regular file of its own: not "
			       "read",
			       path);
	return 0;
}

int beneath_read(struct buf *out, const char *base, const char *path)
{
	int fd = beneath_open(base, path, O_RDONLY | O_NONBLOCK, 0), rc;

	if (fd < 0)
		return fd;
	rc = only_file(fd, path);
	if (!rc)
		rc = buf_read_fd(out, fd, path);
	close(fd);
	return rc;
}

int beneath_copy(const char *base, const char *path, const char *to)
{
	struct buf b;
	int rc;

	buf_init(&b, 1u << 30);
	rc = beneath_read(&b, base, path);
	if (!rc)
		rc = util_write_atomic(to, b.ptr ? b.ptr : "", b.len);
	buf_release(&b);
	return rc;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int beneath_write(const char *base, const char *path, const void *data,
		  size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? util_fmt("%.*s", (int)(slash - path), path) : NULL;
	char tmp[64];
	int dfd = -1, fd = -1, rc = 0;

	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	/* the directory: base itself, or one below it reached without a
	 * link */
	dfd = strcmp(dir, base)
		      ? beneath_open(base, dir, O_PATH | O_DIRECTORY, 0)
		      : open_base(base);
	if (dfd < 0) {
		rc = dfd;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), ".bisectd-new-%d", (int)getpid());
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_sys(ERR_INFRA, "cannot write '%s'", path);
		goto out;
	}
	if (write_all(fd, data, len) || close(fd) ||
	    renameat(dfd, tmp, dfd, slash + 1)) {
		rc = err_sys(ERR_INFRA, "cannot write '%s'", path);
		unlinkat(dfd, tmp, 0);
	}
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return rc;
}

/* What a following writer must not find at a path it writes: a link
 * (but the caller's own), a hard link, a fifo or another special file.
 * rel is the path below the tree's top. */
static int unsafe(const struct stat *st, const char *rel, beneath_own_fn own,
		  void *payload)
{
	if (S_ISDIR(st->st_mode))
		return 0;
	if (S_ISLNK(st->st_mode))
		return !own || !own(rel, payload);
	return !S_ISREG(st->st_mode) || st->st_nlink != 1;
}

int beneath_clear(const char *base, const char *path, beneath_own_fn own,
		  void *payload)
{
	const char *r = below(base, path);
	char *rel = r ? strdup(r) : NULL, name[NAME_MAX + 1];
	size_t start = 0, end;
	struct stat st;
	int dfd, rc = 0;

	if (!r)
		return 0;
	if (!rel)
		return err_set(ERR_NOMEM, "out of memory");
	if ((dfd = open_base(base)) < 0) {
		free(rel);
		return dfd;
	}
	while (!rc && rel[start]) {
		int last, bad, sub;
		char save;

		end = start + strcspn(rel + start, "/");
		last = !rel[end + strspn(rel + end, "/")];
		if (end == start || end - start > NAME_MAX) {
			start = end + 1;
			continue;
		}
		memcpy(name, rel + start, end - start);
		name[end - start] = '\0';
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			rc = err_set(ERR_INPUT, "'%s' climbs out of '%s'", path,
				     base);
			break;
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT)
				rc = err_sys(ERR_INFRA, "cannot stat '%s'",
					     path);
			break; /* nothing there: nothing to follow */
		}
		/* (own sees the path up to this component) */
		save = rel[end];
		rel[end] = '\0';
		/* on the way, only a link leads elsewhere: a file there is
		 * one that the writer replaces with a directory */
		bad = last || S_ISLNK(st.st_mode)
			      ? unsafe(&st, rel, own, payload)
			      : 0;
		rel[end] = save;
		if (bad && unlinkat(dfd, name, 0))
			rc = err_sys(ERR_INFRA, "cannot remove '%s'", path);
		/* done at the end, at what was removed, and at a file or
		 * the caller's own link, which its checkout replaces */
		if (bad || last || !S_ISDIR(st.st_mode))
			break;
		sub = openat(dfd, name,
			     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			rc = err_sys(ERR_INFRA, "cannot open '%s'", path);
		close(dfd);
		dfd = sub;
		start = end + 1;
	}
	if (dfd >= 0)
		close(dfd);
	free(rel);
	return rc;
}

static struct {
	size_t top;
	beneath_own_fn own;
	void *payload;
} clear_walk;

static int clear_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)flag;
	if (ftw->level == 0 || !unsafe(st, path + clear_walk.top,
				       clear_walk.own, clear_walk.payload))
		return FTW_CONTINUE;
	return unlink(path) ? FTW_STOP : FTW_CONTINUE;
}

int beneath_clear_tree(const char *dir, beneath_own_fn own, void *payload)
{
	struct stat st;

	if (lstat(dir, &st) && errno == ENOENT)
		return 0;
	clear_walk.top = strlen(dir) + 1;
	clear_walk.own = own;
	clear_walk.payload = payload;
	if (nftw(dir, clear_one, 32, FTW_PHYS | FTW_MOUNT))
		return err_sys(ERR_INFRA, "cannot clear '%s'", dir);
	return 0;
}
