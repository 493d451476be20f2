/*
 * The initramfs that every step boots, written with libarchive as a cpio
 * (newc) archive: busybox-static and its applet links, the recipe's guest
 * init as /init, the step's test as /bisectd/test, and the kernel's
 * modules under /lib/modules when the recipe boots with modules.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "buf.h"
#include "error.h"
#include "util.h"
#include "initramfs.h"

static const char *const busybox_paths[] = {
	"/bin/busybox",
	"/usr/bin/busybox",
};

static int add_entry(struct archive *a, const char *path, mode_t type,
		     mode_t perm, const void *data, size_t len,
		     const char *symlink, dev_t rdev)
{
	struct archive_entry *e = archive_entry_new();
	int rc = 0;

	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, 0, 0);
	if (symlink)
		archive_entry_set_symlink(e, symlink);
	if (rdev)
		archive_entry_set_rdev(e, rdev);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(a, data, len) != (la_ssize_t)len))
		rc = err_set(ERR_INFRA, "cannot write initramfs: %s",
			     archive_error_string(a));
	archive_entry_free(e);
	return rc;
}

static int add_file(struct archive *a, const char *name, const char *src,
		    mode_t perm)
{
	struct buf b;
	int rc;

	buf_init(&b, 256u << 20);
	rc = buf_read_file(&b, src);
	if (!rc)
		rc = add_entry(a, name, AE_IFREG, perm, b.ptr, b.len, NULL, 0);
	buf_release(&b);
	return rc;
}

/* Add the tree at dir (a modules_install root) under its own names. */
static int add_tree(struct archive *a, const char *dir)
{
	struct archive *disk = archive_read_disk_new();
	struct archive_entry *e;
	size_t skip = strlen(dir);
	int rc = 0, r;

	archive_read_disk_set_standard_lookup(disk);
	if (archive_read_disk_open(disk, dir) != ARCHIVE_OK) {
		rc = err_set(ERR_INFRA, "cannot read '%s': %s", dir,
			     archive_error_string(disk));
		goto out;
	}
	for (;;) {
		const char *path;
		char buf[65536];
		la_ssize_t n;

		e = archive_entry_new();
		r = archive_read_next_header2(disk, e);
		if (r == ARCHIVE_EOF) {
			archive_entry_free(e);
			break;
		}
		if (r != ARCHIVE_OK) {
			rc = err_set(ERR_INFRA, "cannot read '%s': %s", dir,
				     archive_error_string(disk));
			archive_entry_free(e);
			break;
		}
		archive_read_disk_descend(disk);
		path = archive_entry_pathname(e);
		if (strlen(path) <= skip) {
			archive_entry_free(e);
			continue;
		}
		archive_entry_set_pathname(e, path + skip + 1);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		if (archive_write_header(a, e) != ARCHIVE_OK) {
			rc = err_set(ERR_INFRA, "cannot write initramfs: %s",
				     archive_error_string(a));
			archive_entry_free(e);
			break;
		}
		while ((n = archive_read_data(disk, buf, sizeof(buf))) > 0)
			archive_write_data(a, buf, (size_t)n);
		archive_entry_free(e);
	}
out:
	archive_read_free(disk);
	return rc;
}

int initramfs_write(const char *path, const char *init_script,
		    const char *test_script, const char *modules_dir)
{
	static const char *const dirs[] = { "bin", "sbin", "dev", "proc",
					    "sys", "tmp",  "etc", "bisectd",
					    "lib", "root" };
	const char *busybox = NULL;
	struct archive *a;
	char *tmp = util_fmt("%s.tmp", path);
	size_t i;
	int rc = 0;

	if (!tmp)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < sizeof(busybox_paths) / sizeof(*busybox_paths); i++)
		if (util_is_executable(busybox_paths[i]))
			busybox = busybox_paths[i];
	if (!busybox) {
		free(tmp);
		return err_set(ERR_INFRA, "busybox not found (install the "
					  "package busybox-static)");
	}
	a = archive_write_new();
	archive_write_set_format_cpio_newc(a);
	if (archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
		rc = err_set(ERR_INFRA, "cannot write '%s': %s", tmp,
			     archive_error_string(a));
		goto out;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs) && !rc; i++)
		rc = add_entry(a, dirs[i], AE_IFDIR, 0755, NULL, 0, NULL, 0);
	if (!rc)
		rc = add_entry(a, "dev/console", AE_IFCHR, 0600, NULL, 0, NULL,
			       makedev(5, 1));
	if (!rc)
		rc = add_file(a, "bin/busybox", busybox, 0755);
	if (!rc)
		rc = add_entry(a, "bin/sh", AE_IFLNK, 0777, NULL, 0, "busybox",
			       0);
	if (!rc)
		rc = add_file(a, "init", init_script, 0755);
	if (!rc && test_script)
		rc = add_file(a, "bisectd/test", test_script, 0755);
	if (!rc && modules_dir)
		rc = add_tree(a, modules_dir);
	if (archive_write_close(a) != ARCHIVE_OK && !rc)
		rc = err_set(ERR_INFRA, "cannot write '%s': %s", tmp,
			     archive_error_string(a));
out:
	archive_write_free(a);
	if (!rc && rename(tmp, path))
		rc = err_sys(ERR_INFRA, "cannot write '%s'", path);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}
