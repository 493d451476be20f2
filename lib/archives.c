// SPDX-License-Identifier: GPL-2.0-only
/*
 * Archives and packages with libarchive.  A .deb is an ar archive whose
 * data.tar.* member holds the files: that member is fed to a second
 * reader through a read callback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "archives.h"
#include "buf.h"
#include "error.h"
#include "util.h"

struct arc {
	struct archive *outer; /* the .deb's ar archive, else NULL */
	struct archive *a;     /* the entries */
	char *path;
	char member[65536]; /* the .deb's data.tar, chunk by chunk */
};

struct arc_writer {
	struct archive *a;
	char *path, *tmp;
	int failed;
};

static int fail(struct archive *a, const char *what, const char *path)
{
	const char *why = a ? archive_error_string(a) : NULL;

	return err_set(ERR_INPUT, "%s '%s': %s", what, path,
		       why ? why : "unknown error");
}

static la_ssize_t member_read(struct archive *a, void *payload,
			      const void **out)
{
	struct arc *r = payload;

	(void)a;
	*out = r->member;
	return archive_read_data(r->outer, r->member, sizeof(r->member));
}

/* Point r->a at the data.tar member of the ar archive r->outer. */
static int open_deb_data(struct arc *r)
{
	struct archive_entry *e;
	int ar;

	while ((ar = archive_read_next_header(r->outer, &e)) == ARCHIVE_OK) {
		if (strncmp(archive_entry_pathname(e), "data.tar", 8))
			continue;
		r->a = archive_read_new();
		if (!r->a)
			return err_set(ERR_NOMEM, "out of memory");
		archive_read_support_filter_all(r->a);
		archive_read_support_format_tar(r->a);
		if (archive_read_open(r->a, r, NULL, member_read, NULL) !=
		    ARCHIVE_OK)
			return fail(r->a, "cannot read package", r->path);
		return 0;
	}
	if (ar != ARCHIVE_EOF)
		return fail(r->outer, "cannot read package", r->path);
	return err_set(ERR_INPUT, "'%s' is not a Debian package (no data.tar)",
		       r->path);
}

int arc_open(struct arc **out, const char *path, enum arc_format format)
{
	struct arc *r = calloc(1, sizeof(*r));
	struct archive *a = archive_read_new();
	int rc = 0;

	*out = NULL;
	if (!r || !a || !(r->path = strdup(path))) {
		free(r);
		archive_read_free(a);
		return err_set(ERR_NOMEM, "out of memory");
	}
	archive_read_support_filter_all(a);
	switch (format) {
	case ARC_TAR:
		archive_read_support_format_tar(a);
		break;
	case ARC_DEB:
		archive_read_support_format_ar(a);
		break;
	case ARC_RPM:
		archive_read_support_format_cpio(a);
		break;
	case ARC_RAW:
		archive_read_support_format_raw(a);
		break;
	}
	if (format == ARC_DEB)
		r->outer = a;
	else
		r->a = a;
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK)
		rc = fail(a, "cannot read", path);
	else if (format == ARC_DEB)
		rc = open_deb_data(r);
	if (rc) {
		arc_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int arc_next(struct arc *r, struct arc_entry *e)
{
	struct archive_entry *ent;
	int ar = archive_read_next_header(r->a, &ent);

	if (ar == ARCHIVE_EOF)
		return 0;
	if (ar != ARCHIVE_OK && ar != ARCHIVE_WARN)
		return fail(r->a, "cannot read", r->path);
	e->name = archive_entry_pathname(ent);
	if (!e->name)
		e->name = "";
	switch (archive_entry_filetype(ent)) {
	case AE_IFREG:
		e->type = ARC_FILE;
		break;
	case AE_IFDIR:
		e->type = ARC_DIR;
		break;
	case AE_IFLNK:
		e->type = ARC_LINK;
		break;
	default:
		e->type = ARC_OTHER;
	}
	e->perm = (unsigned)archive_entry_perm(ent);
	e->size = archive_entry_size_is_set(ent)
			  ? (uint64_t)archive_entry_size(ent)
			  : 0;
	e->link = e->type == ARC_LINK ? archive_entry_symlink(ent) : NULL;
	if (e->type == ARC_LINK && !e->link)
		e->link = "";
	return 1;
}

int arc_read_buf(struct arc *r, struct buf *out)
{
	char chunk[65536];
	la_ssize_t n;
	int rc;

	while ((n = archive_read_data(r->a, chunk, sizeof(chunk))) > 0)
		if ((rc = buf_put(out, chunk, (size_t)n)))
			return err_wrap(rc, "'%s'", r->path);
	return n < 0 ? fail(r->a, "cannot read", r->path) : 0;
}

int arc_read_to_file(struct arc *r, const char *path)
{
	char chunk[65536], *tmp = util_fmt("%s.part", path);
	FILE *f = tmp ? fopen(tmp, "wb") : NULL;
	la_ssize_t n = 0;
	int rc = 0;

	if (!tmp)
		return err_set(ERR_NOMEM, "out of memory");
	if (!f) {
		rc = err_sys(ERR_INFRA, "cannot write '%s'", tmp);
		free(tmp);
		return rc;
	}
	while (!rc && (n = archive_read_data(r->a, chunk, sizeof(chunk))) > 0)
		if (fwrite(chunk, 1, (size_t)n, f) != (size_t)n)
			rc = err_sys(ERR_INFRA, "cannot write '%s'", tmp);
	if (!rc && n < 0)
		rc = fail(r->a, "cannot read", r->path);
	if (fclose(f) && !rc)
		rc = err_sys(ERR_INFRA, "cannot write '%s'", tmp);
	if (!rc && rename(tmp, path))
		rc = err_sys(ERR_INFRA, "cannot rename '%s'", tmp);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

void arc_close(struct arc *r)
{
	if (!r)
		return;
	archive_read_free(r->a);
	archive_read_free(r->outer);
	free(r->path);
	free(r);
}

static int write_fail(struct arc_writer *w)
{
	w->failed = 1;
	return err_set(ERR_INFRA, "cannot write '%s': %s", w->tmp,
		       archive_error_string(w->a) ? archive_error_string(w->a)
						  : "unknown error");
}

int arc_writer_open(struct arc_writer **out, const char *path)
{
	struct arc_writer *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w || !(w->path = strdup(path)) ||
	    !(w->tmp = util_fmt("%s.tmp", path)) ||
	    !(w->a = archive_write_new())) {
		if (w) {
			free(w->path);
			free(w->tmp);
		}
		free(w);
		return err_set(ERR_NOMEM, "out of memory");
	}
	archive_write_set_format_cpio_newc(w->a);
	if (archive_write_open_filename(w->a, w->tmp) != ARCHIVE_OK) {
		rc = write_fail(w);
		arc_writer_close(w, 1);
		return rc;
	}
	*out = w;
	return 0;
}

int arc_writer_add(struct arc_writer *w, const char *name, mode_t mode,
		   const void *data, size_t len, dev_t rdev)
{
	struct archive_entry *e = archive_entry_new();
	int rc = 0;

	if (!e)
		return err_set(ERR_NOMEM, "out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, mode & S_IFMT);
	archive_entry_set_perm(e, mode & 07777);
	archive_entry_set_mtime(e, 0, 0);
	if (S_ISLNK(mode)) {
		archive_entry_set_symlink(e, data);
		len = 0;
	}
	archive_entry_set_size(e, (la_int64_t)len);
	if (rdev)
		archive_entry_set_rdev(e, rdev);
	if (archive_write_header(w->a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(w->a, data, len) != (la_ssize_t)len))
		rc = write_fail(w);
	archive_entry_free(e);
	return rc;
}

/* Copy the data of the entry that disk has just read into w. */
static int copy_data(struct arc_writer *w, struct archive *disk,
		     const char *dir)
{
	char chunk[65536];
	la_ssize_t n;

	while ((n = archive_read_data(disk, chunk, sizeof(chunk))) > 0)
		if (archive_write_data(w->a, chunk, (size_t)n) != n)
			return write_fail(w);
	if (n < 0) {
		w->failed = 1;
		return fail(disk, "cannot read", dir);
	}
	return 0;
}

int arc_writer_add_tree(struct arc_writer *w, const char *dir)
{
	struct archive *disk = archive_read_disk_new();
	size_t skip = strlen(dir);
	struct stat st;
	int rc = 0, r;

	if (!disk)
		return err_set(ERR_NOMEM, "out of memory");
	archive_read_disk_set_standard_lookup(disk);
	archive_read_disk_set_symlink_physical(disk);
	if (!lstat(dir, &st) && !S_ISDIR(st.st_mode)) {
		archive_read_free(disk);
		w->failed = 1;
		return err_set(ERR_INPUT, "'%s' is not a directory", dir);
	}
	if (archive_read_disk_open(disk, dir) != ARCHIVE_OK) {
		rc = fail(disk, "cannot read", dir);
		w->failed = 1;
	}
	while (!rc) {
		struct archive_entry *e = archive_entry_new();
		const char *name;

		if (!e) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		r = archive_read_next_header2(disk, e);
		if (r == ARCHIVE_EOF) {
			archive_entry_free(e);
			break;
		}
		if (r != ARCHIVE_OK) {
			rc = fail(disk, "cannot read", dir);
			w->failed = 1;
			archive_entry_free(e);
			break;
		}
		archive_read_disk_descend(disk);
		name = archive_entry_pathname(e);
		if (archive_entry_filetype(e) == AE_IFREG &&
		    archive_entry_nlink(e) > 1) {
			rc = err_set(ERR_INFRA,
				     "'%s' has more than one name: not packed",
				     name);
			w->failed = 1;
		} else if (strlen(name) > skip) {
			archive_entry_set_pathname(e, name + skip + 1);
			archive_entry_set_uid(e, 0);
			archive_entry_set_gid(e, 0);
			if (archive_write_header(w->a, e) != ARCHIVE_OK)
				rc = write_fail(w);
			else
				rc = copy_data(w, disk, dir);
		}
		archive_entry_free(e);
	}
	archive_read_free(disk);
	return rc;
}

int arc_writer_close(struct arc_writer *w, int failed)
{
	int rc = 0;

	if (!w)
		return 0;
	if (archive_write_close(w->a) != ARCHIVE_OK && !failed && !w->failed)
		rc = write_fail(w);
	archive_write_free(w->a);
	if (!rc && !failed && !w->failed && rename(w->tmp, w->path))
		rc = err_sys(ERR_INFRA, "cannot write '%s'", w->path);
	if (rc || failed || w->failed)
		unlink(w->tmp);
	free(w->path);
	free(w->tmp);
	free(w);
	return rc;
}
