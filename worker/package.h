/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packages of a tree that a step built: bindeb-pkg, binrpm-pkg
 * (package.c).
 */
#ifndef BISECTD_WORKER_PACKAGE_H
#define BISECTD_WORKER_PACKAGE_H

#include "artifacts.h"
#include "gitutil.h"
#include "pipeline.h"

/* Packages of a tree that a step built (package.c). */
struct package_spec {
	const struct step_spec *step; /* the tree: work_dir, recipe */
	const char *id;		      /* marks release and version */
	const char *out_dir;	      /* the packages go here */
	const char *log;	      /* make's output is appended here */
	int deb, rpm;
	int deb_built; /* the build made the debs already: collect them */
	int dbg;       /* keep a -dbg package when the config makes one */
	/* sign the image with sbsign before it is packaged (or NULL) */
	const char *sign_key, *sign_cert;
};

/*
 * make bindeb-pkg and/or binrpm-pkg with the id in the release and the
 * version (see package.c).  ERR_GENERIC when make failed on the tree,
 * ERR_INFRA when it could not run or made nothing.
 */
int package_build(struct package_result *out, const struct package_spec *p);
/* "VERSION.PATCHLEVEL.SUBLEVEL EXTRAVERSION" of commit's top Makefile. */
char *package_kernel_version(struct gu_repo *repo, const struct gu_oid *commit);
/* Remove packages and what bindeb-pkg leaves beside them from the work
 * directory work_dir (its out/). */
void package_clean(const char *work_dir);
/*
 * Move every file of dir ending in suffix to out (-dbg ones are removed
 * unless dbg), adding their names to r.  dir is written by the build's
 * sandbox: it is opened below base (the caller's) without following a
 * link, and a package that is not a regular file of its own (a link or
 * a hard link to a file of this machine) fails it, and is removed.
 */
int package_collect(struct package_result *r, const char *base, const char *dir,
		    const char *suffix, const char *out, int dbg);

#endif
