// SPDX-License-Identifier: GPL-2.0-only
/*
 * The initramfs that every step boots, a cpio (newc) archive:
 * busybox-static and its applet links, the recipe's guest init as /init,
 * the step's test as /bisectd/test, and the kernel's modules under
 * /lib/modules when the recipe boots with modules.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "archives.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "initramfs.h"

static const char *const busybox_paths[] = {
	"/bin/busybox",
	"/usr/bin/busybox",
};

static int add_file(struct arc_writer *w, const char *name, const char *src)
{
	struct buf b;
	int rc;

	buf_init(&b, 256u << 20);
	rc = buf_read_file(&b, src);
	if (!rc)
		rc = arc_writer_add(w, name, S_IFREG | 0755, b.ptr, b.len, 0);
	buf_release(&b);
	return rc;
}

int initramfs_write(const char *path, const char *init_script,
		    const char *test_script, const char *modules_dir)
{
	static const char *const dirs[] = { "bin", "sbin", "dev", "proc",
					    "sys", "tmp",  "etc", "bisectd",
					    "lib", "root" };
	const char *busybox = NULL;
	struct arc_writer *w;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(busybox_paths) / sizeof(*busybox_paths); i++)
		if (util_is_executable(busybox_paths[i]))
			busybox = busybox_paths[i];
	if (!busybox)
		return err_set(ERR_INFRA, "busybox not found (install the "
					  "package busybox-static)");
	if ((rc = arc_writer_open(&w, path)))
		return rc;
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs) && !rc; i++)
		rc = arc_writer_add(w, dirs[i], S_IFDIR | 0755, NULL, 0, 0);
	if (!rc)
		rc = arc_writer_add(w, "dev/console", S_IFCHR | 0600, NULL, 0,
				    makedev(5, 1));
	if (!rc)
		rc = add_file(w, "bin/busybox", busybox);
	if (!rc)
		rc = arc_writer_add(w, "bin/sh", S_IFLNK | 0777, "busybox", 0,
				    0);
	if (!rc)
		rc = add_file(w, "init", init_script);
	if (!rc && test_script)
		rc = add_file(w, "bisectd/test", test_script);
	if (!rc && modules_dir)
		rc = arc_writer_add_tree(w, modules_dir);
	if (rc) {
		arc_writer_close(w, 1);
		return rc;
	}
	return arc_writer_close(w, 0);
}
