/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Archives and packages, the one place that calls libarchive: reading
 * the entries of a tarball, of the files inside a .deb (its data.tar
 * member) or an .rpm (its cpio payload), or a single compressed file;
 * and writing the cpio (newc) archive that a guest boots as initramfs.
 *
 * Reading:
 *
 *	struct arc *a;
 *	struct arc_entry e;
 *
 *	if ((rc = arc_open(&a, path, ARC_DEB)))
 *		return rc;
 *	while ((rc = arc_next(a, &e)) == 1)
 *		if (e.type == ARC_FILE && !strcmp(e.name, "x"))
 *			rc = arc_read_buf(a, &out);
 *	arc_close(a);
 *
 * Every error is set with err_set() and names the archive's path.
 */
#ifndef BISECTD_ARCHIVES_H
#define BISECTD_ARCHIVES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct buf;
struct arc;
struct arc_writer;

enum arc_format {
	ARC_TAR, /* a tarball, compressed or not */
	ARC_DEB, /* the files of a Debian package */
	ARC_RPM, /* the files of an RPM package */
	ARC_RAW, /* one file, compressed or not: a single entry */
};

enum arc_type { ARC_FILE, ARC_DIR, ARC_LINK, ARC_OTHER };

struct arc_entry {
	const char *name; /* as stored: may start with "./" */
	enum arc_type type;
	unsigned perm;	  /* the permission bits */
	uint64_t size;	  /* of a file's data */
	const char *link; /* a symlink's target, else NULL */
};

/* ERR_INPUT when path cannot be read as that format. */
int arc_open(struct arc **out, const char *path, enum arc_format format);

/*
 * The next entry into *e (its strings valid until the next call or
 * arc_close): 1 when there is one, 0 at the end, an error code when the
 * archive is damaged.
 */
int arc_next(struct arc *a, struct arc_entry *e);

/* The current entry's data, appended to out (within out's limit). */
int arc_read_buf(struct arc *a, struct buf *out);

/* The current entry's data into the file at path, replaced atomically. */
int arc_read_to_file(struct arc *a, const char *path);

void arc_close(struct arc *a);

/* A cpio (newc) archive at path, written as path.tmp until closed. */
int arc_writer_open(struct arc_writer **out, const char *path);

/*
 * One entry, owned by root, dated 0: data (len bytes) for a file, the
 * target for a symlink, the device number for a device node; mode holds
 * the type (S_IFREG, S_IFDIR, S_IFLNK, S_IFCHR) and the permission bits.
 */
int arc_writer_add(struct arc_writer *w, const char *name, mode_t mode,
		   const void *data, size_t len, dev_t rdev);

/*
 * The tree at dir, under its names relative to dir, owned by root.  Links
 * are packed as links, never followed (nor dir itself when it is one);
 * a file with more than one name (a hard link, which may be a file from
 * elsewhere) fails it: the tree may be a build's, made by someone else.
 */
int arc_writer_add_tree(struct arc_writer *w, const char *dir);

/*
 * Finish the archive and move it into place when failed is 0 and every
 * write succeeded; otherwise remove it.  Frees w.  Returns the first
 * error.
 */
int arc_writer_close(struct arc_writer *w, int failed);

#endif
