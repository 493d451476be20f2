/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A step's config: the recipe's base, Debian's traps, the fragments
 * (kconfig.c).
 */
#ifndef BISECTD_WORKER_KCONFIG_H
#define BISECTD_WORKER_KCONFIG_H

#include "buf.h"
#include "recipe.h"

/*
 * Config: the recipe's base, the Debian traps, the fragments, then
 * olddefconfig, in build_dir/.config.  notes gets one line per trap that
 * was handled and per fragment option that olddefconfig dropped.
 * ERR_GENERIC when make failed on this tree's Kconfig files, ERR_INFRA
 * when it could not run, ERR_INPUT when the recipe's files are missing.
 * build_dir lies below work_dir, which is the caller's: what the build
 * wrote there is read and written without following its links
 * (beneath.h).  With sandbox_timeout >= 0, make runs in the sandbox of
 * work_dir, killed after that many seconds (0: never), with max_procs
 * processes at most in a cgroup of its own (0: none), so that nothing
 * it started outlives it.
 */
int kconfig_prepare(const struct recipe *r, const char *src_dir,
		    const char *build_dir, const char *log_path,
		    struct buf *notes, const char *work_dir,
		    double sandbox_timeout, unsigned max_procs);

/*
 * Read a config into out: a config file (plain, xz, gzip, ...), or the one
 * inside a kernel package, read without installing it: a Debian or Ubuntu
 * linux-image .deb (boot/config-*) or a Fedora kernel-core .rpm
 * (lib/modules/VERSION/config).
 */
int kconfig_read(struct buf *out, const char *path);

/* Apply the traps to config text in place; one note line per change. */
int kconfig_fix_traps(struct buf *config, const char *src_dir, int have_pahole,
		      struct buf *notes);

#endif
