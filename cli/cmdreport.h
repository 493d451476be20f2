/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reports of bisectctl's one-commit commands: verify (a fix check,
 * the same commit without and with the patches) and build (a patched
 * kernel's packages).  JSON for scripts, text for a person.
 */
#ifndef BISECTD_CMDREPORT_H
#define BISECTD_CMDREPORT_H

#include <stddef.h>

#include "artifacts.h"
#include "buf.h"
#include "step.h"
#include "worker.h"

/* A fix check: the same commit without and with the patches. */
struct metric_change;

struct verify_report {
	const char *result; /* "fixed", "not fixed" or "inconclusive" */
	const char *reason;
	const char *repo_path;
	const char *const *patches; /* as applied: a mail by its subject */
	size_t npatches;
	const char *patched_hex; /* the patched commit in the worktree */
	const struct step_result *base, *patched;
	/* verify --metric: the metric's name (or NULL), its direction and
	 * minimum change, the comparison (NULL: none, a side without
	 * values) and the unit ("" for none) */
	const char *metric;
	int higher;
	double min_change;
	const struct metric_change *change;
	const char *unit;
};

int report_verify(char **json, struct buf *text, const struct verify_report *v);

/* A package build: what was built from what, and where it is. */
struct build_report {
	const char *result; /* buildjob_outcome() */
	const char *id;
	const char *repo_path;
	const char *base_hex, *patched_hex;
	const char *const *patches; /* as applied: a mail by its subject */
	size_t npatches;
	const char *recipe;
	const struct package_result *packages; /* or NULL */
	const char *packages_dir;
	const struct step_result *smoke;      /* the build and boot step */
	const struct install_result *install; /* or NULL: not asked for */
	const char *out_dir;
};

int report_build(char **json, struct buf *text, const struct build_report *b);

#endif
