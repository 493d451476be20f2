// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/archives.c: a cpio written and read back entry by
 * entry; a tarball, the files of a .deb and a compressed single file
 * read; a failed write leaves nothing; damaged or wrong input is one
 * clear error naming the file.  The tarball and the .deb are made with
 * tar and dpkg-deb, as Debian makes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "archives.h"
#include "buf.h"
#include "error.h"
#include "util.h"

static char top[64];

static char *at(const char *name)
{
	static char path[8][256];
	static int next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s", top, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test-archives-XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	util_remove_tree(top);
	return 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Find name in the archive at path; its entry's data into out. */
static int find(const char *path, enum arc_format f, const char *name,
		struct arc_entry *e, struct buf *out)
{
	struct arc *a;
	int rc = arc_open(&a, path, f), found = 0;

	if (rc)
		return rc;
	while (!found && (rc = arc_next(a, e)) == 1) {
		const char *n = e->name;

		if (!strncmp(n, "./", 2))
			n += 2;
		if (!strcmp(n, name)) {
			static char link[256];

			/* the entry's strings last until arc_close */
			snprintf(link, sizeof(link), "%s",
				 e->link ? e->link : "");
			e->link = e->link ? link : NULL;
			e->name = name;
			rc = arc_read_buf(a, out);
			found = 1;
		}
	}
	arc_close(a);
	return rc == 0 && !found ? ERR_NOTFOUND : rc;
}

static void cpio_written_reads_back(void **state)
{
	struct arc_writer *w;
	struct arc_entry e;
	struct buf b;
	const char *cpio = at("initrd.cpio");

	(void)state;
	buf_init(&b, 1 << 20);
	assert_int_equal(util_mkdir_p(at("tree/lib/modules/6.1")), 0);
	assert_int_equal(
		util_write_atomic(at("tree/lib/modules/6.1/m.ko"), "module", 6),
		0);
	assert_int_equal(arc_writer_open(&w, cpio), 0);
	assert_int_equal(arc_writer_add(w, "bin", S_IFDIR | 0755, NULL, 0, 0),
			 0);
	assert_int_equal(
		arc_writer_add(w, "init", S_IFREG | 0755, "#!/bin/sh\n", 10, 0),
		0);
	assert_int_equal(
		arc_writer_add(w, "bin/sh", S_IFLNK | 0777, "busybox", 0, 0),
		0);
	assert_int_equal(arc_writer_add(w, "dev/console", S_IFCHR | 0600, NULL,
					0, makedev(5, 1)),
			 0);
	assert_int_equal(arc_writer_add_tree(w, at("tree")), 0);
	/* nothing at the path until it is closed */
	assert_int_not_equal(access(cpio, F_OK), 0);
	assert_int_equal(arc_writer_close(w, 0), 0);
	assert_int_equal(access(at("initrd.cpio.tmp"), F_OK), -1);

	assert_int_equal(find(cpio, ARC_RPM, "init", &e, &b), 0);
	assert_int_equal(e.type, ARC_FILE);
	assert_int_equal(e.perm, 0755);
	assert_int_equal(e.size, 10);
	assert_string_equal(buf_str(&b), "#!/bin/sh\n");
	assert_int_equal(find(cpio, ARC_RPM, "bin/sh", &e, &b), 0);
	assert_int_equal(e.type, ARC_LINK);
	assert_string_equal(e.link, "busybox");
	assert_int_equal(find(cpio, ARC_RPM, "dev/console", &e, &b), 0);
	assert_int_equal(e.type, ARC_OTHER);
	assert_int_equal(find(cpio, ARC_RPM, "bin", &e, &b), 0);
	assert_int_equal(e.type, ARC_DIR);
	/* the tree under its own names, the top not included */
	buf_reset(&b);
	assert_int_equal(find(cpio, ARC_RPM, "lib/modules/6.1/m.ko", &e, &b),
			 0);
	assert_string_equal(buf_str(&b), "module");
	assert_int_equal(find(cpio, ARC_RPM, "tree", &e, &b), ERR_NOTFOUND);
	buf_release(&b);
}

static void failed_write_leaves_nothing(void **state)
{
	struct arc_writer *w;

	(void)state;
	assert_int_equal(arc_writer_open(&w, at("half.cpio")), 0);
	assert_int_equal(arc_writer_add(w, "init", S_IFREG | 0755, "x", 1, 0),
			 0);
	assert_int_equal(arc_writer_add_tree(w, at("no-such-dir")), ERR_INPUT);
	assert_non_null(strstr(err_last(), "no-such-dir"));
	/* the writer remembers: closing it moves nothing into place */
	assert_int_equal(arc_writer_close(w, 0), 0);
	assert_int_equal(access(at("half.cpio"), F_OK), -1);
	assert_int_equal(access(at("half.cpio.tmp"), F_OK), -1);

	assert_int_equal(arc_writer_open(&w, at("no-dir/x.cpio")), ERR_INFRA);
	assert_non_null(strstr(err_last(), "no-dir/x.cpio.tmp"));
}

static void tarball_deb_and_raw(void **state)
{
	static const char control[] = "Package: t\nVersion: 1\n"
				      "Architecture: all\n"
				      "Maintainer: t <t@t>\nDescription: t\n";
	struct arc_entry e;
	struct arc *a;
	struct buf b;

	(void)state;
	buf_init(&b, 1 << 20);
	assert_int_equal(util_mkdir_p(at("pkg/DEBIAN")), 0);
	assert_int_equal(util_mkdir_p(at("pkg/boot")), 0);
	assert_int_equal(util_write_atomic(at("pkg/DEBIAN/control"), control,
					   strlen(control)),
			 0);
	assert_int_equal(util_write_atomic(at("pkg/boot/config-6.1"),
					   "CONFIG_X=y\n", 11),
			 0);
	assert_int_equal(sh("tar -C %s -czf %s/src.tar.gz pkg/boot", top, top),
			 0);
	assert_int_equal(
		find(at("src.tar.gz"), ARC_TAR, "pkg/boot/config-6.1", &e, &b),
		0);
	assert_string_equal(buf_str(&b), "CONFIG_X=y\n");

	assert_int_equal(sh("dpkg-deb --root-owner-group -b %s/pkg %s/t.deb "
			    ">/dev/null",
			    top, top),
			 0);
	buf_reset(&b);
	assert_int_equal(find(at("t.deb"), ARC_DEB, "boot/config-6.1", &e, &b),
			 0);
	assert_string_equal(buf_str(&b), "CONFIG_X=y\n");
	/* to a file, as the kernel source tarball comes out of its .deb */
	assert_int_equal(arc_open(&a, at("t.deb"), ARC_DEB), 0);
	while (arc_next(a, &e) == 1 && !strstr(e.name, "config-6.1"))
		;
	assert_int_equal(arc_read_to_file(a, at("out/config")), ERR_INFRA);
	assert_int_equal(util_mkdir_p(at("out")), 0);
	arc_close(a);
	assert_int_equal(arc_open(&a, at("t.deb"), ARC_DEB), 0);
	while (arc_next(a, &e) == 1 && !strstr(e.name, "config-6.1"))
		;
	assert_int_equal(arc_read_to_file(a, at("out/config")), 0);
	arc_close(a);
	buf_reset(&b);
	assert_int_equal(buf_read_file(&b, at("out/config")), 0);
	assert_string_equal(buf_str(&b), "CONFIG_X=y\n");
	assert_int_equal(access(at("out/config.part"), F_OK), -1);

	assert_int_equal(
		sh("gzip -c %s/pkg/boot/config-6.1 > %s/config.gz", top, top),
		0);
	buf_reset(&b);
	assert_int_equal(arc_open(&a, at("config.gz"), ARC_RAW), 0);
	assert_int_equal(arc_next(a, &e), 1);
	assert_int_equal(arc_read_buf(a, &b), 0);
	assert_int_equal(arc_next(a, &e), 0);
	arc_close(a);
	assert_string_equal(buf_str(&b), "CONFIG_X=y\n");
	buf_release(&b);
}

static void bad_input_is_one_error(void **state)
{
	struct arc_entry e;
	struct arc *a;
	struct buf b;

	(void)state;
	buf_init(&b, 4);
	assert_int_equal(arc_open(&a, at("missing.deb"), ARC_DEB), ERR_INPUT);
	assert_null(a);
	assert_non_null(strstr(err_last(), "missing.deb"));
	/* an ar archive without data.tar */
	assert_int_equal(util_write_atomic(at("member"), "x\n", 2), 0);
	assert_int_equal(sh("cd %s && ar qc other.a member 2>/dev/null", top),
			 0);
	assert_int_equal(arc_open(&a, at("other.a"), ARC_DEB), ERR_INPUT);
	assert_non_null(strstr(err_last(), "is not a Debian package"));
	/* a tarball cut short */
	assert_int_equal(
		sh("head -c 300 %s/src.tar.gz > %s/cut.tar.gz", top, top), 0);
	assert_int_equal(
		find(at("cut.tar.gz"), ARC_TAR, "pkg/boot/config-6.1", &e, &b),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "cut.tar.gz"));
	/* an entry larger than the buffer's limit */
	assert_int_equal(
		find(at("src.tar.gz"), ARC_TAR, "pkg/boot/config-6.1", &e, &b),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "src.tar.gz"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpio_written_reads_back),
		cmocka_unit_test(failed_write_leaves_nothing),
		cmocka_unit_test(tarball_deb_and_raw),
		cmocka_unit_test(bad_input_is_one_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
