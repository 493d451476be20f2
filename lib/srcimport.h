/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel sources that come as a tarball, into git: Debian's
 * linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz, or any version of
 * the package, fetched with apt-get download), so that a build or a
 * bisection can start from a distribution's source package.
 */
#ifndef BISECTD_SRCIMPORT_H
#define BISECTD_SRCIMPORT_H

#include <stddef.h>

#include "gitutil.h"

/*
 * Import a source tarball (any compression; its first path component
 * is the top directory) into r as one commit, tagged tag (or not, for
 * NULL).  Debian's
 * .gitignore block, which ignores every top-level path, is dropped.
 * version gets the kernel version from the top Makefile ("6.1.192").
 */
int srcimport_tarball(struct gu_repo *r, const char *tarball, const char *tag,
		      const char *message, struct gu_oid *out, char *version,
		      size_t vsize);

/*
 * The commit of Debian's linux-source-6.1 at version (6.1.192-3), tag
 * debian/<version> in cache/linux.git (*repo, caller closes): imported
 * once, from /usr/src when that version is installed, else from the
 * package that apt-get download fetches into cache/debs.  ERR_INPUT for
 * a version apt does not know.
 */
int srcimport_debian(struct gu_repo **repo, struct gu_oid *out,
		     const char *cache, const char *version);

#endif
