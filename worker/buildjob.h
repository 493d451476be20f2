/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A build job: patches on a base, built, booted, packaged, and
 * install-tested (buildjob.c).
 */
#ifndef BISECTD_WORKER_BUILDJOB_H
#define BISECTD_WORKER_BUILDJOB_H

#include "artifacts.h"
#include "gitutil.h"
#include "installtest.h"
#include "recipe.h"
#include "step.h"

/* A build job (buildjob.c): patches on a base, built, booted, packaged. */
struct buildjob_spec {
	struct gu_repo *repo;
	struct gu_oid base;
	const char *const *names, *const *texts; /* the patches, in order */
	const size_t *lens;
	size_t npatches;
	const struct recipe *recipe;
	const char *test_script;
	int runs;
	const char *work_dir; /* persistent tree and build directory */
	const char *tenant;   /* the submitter's, whose work_dir it is */
	double timeout_s;     /* each make's wall time, 0: none */
	unsigned max_procs;   /* its processes at once, 0: no limit */
	const char *out_dir;  /* logs, config, patches/, packages/ */
	int deb, rpm, dbg, sandbox, live;
	const char *sign_key, *sign_cert; /* sbsign the image, or NULL */
	int install;	       /* run the install test on the packages */
	const char *cache_dir; /* where its Debian root is kept */
	const char *distcc;    /* compile helpers, or NULL: the recipe's */
	const char *icecc;     /* or icecc's scheduler */
};

struct buildjob_result {
	char id[9]; /* in the release: -bisectd.ID */
	char base_hex[GU_HEXSZ + 1], patched_hex[GU_HEXSZ + 1];
	struct step_result smoke; /* the build and boot */
	struct package_result packages;
	char *pkgdir; /* OUT/packages, there only when built */
	int built;
	struct install_result install; /* when installed is 1 */
	int installed;
	char **applied; /* the patches as applied: a mail's by its subject */
	size_t napplied;
};

/*
 * What the machine lacks to run the build job: bubblewrap for its
 * sandbox, the install test's tools.  ERR_INPUT naming it, or 0.
 */
int buildjob_check(const struct buildjob_spec *b);

/*
 * Run the build job.  A patch that does not apply is ERR_INPUT naming
 * it, the file and the hunk; a tree that does not build or package is
 * r->built == 0 with the reason in r->smoke.title (and verdict skip,
 * or infra when the machine failed).
 */
int buildjob_run(struct buildjob_result *r, const struct buildjob_spec *b);
void buildjob_release(struct buildjob_result *r);
/* "built", "boot failed", "install failed", "build failed" or "infra". */
const char *buildjob_outcome(const struct buildjob_result *r);

#endif
