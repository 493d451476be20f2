/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The step pipeline: checkout -> config -> build -> initramfs -> boot ->
 * verdict, for one commit and one recipe (pipeline.c).
 */
#ifndef BISECTD_WORKER_PIPELINE_H
#define BISECTD_WORKER_PIPELINE_H

#include "buf.h"
#include "gitutil.h"
#include "recipe.h"
#include "step.h"
#include "util.h"
#include "verdict.h"

struct step_spec {
	struct gu_repo *repo;
	struct gu_oid commit;
	const struct recipe *recipe;
	const char *test_script; /* run in the guest; NULL for none */
	int runs;		 /* boots per step, at least 1 */
	const char *work_dir;	 /* persistent: src/ and out/build/ live here */
	const char *tenant;	 /* the submitter's, whose work_dir it is */
	/* with sandbox: each make's wall time and processes (0: none) */
	double timeout_s;
	unsigned max_procs;
	const char *step_dir; /* this step's logs and config */
	int live;	      /* draw a live indicator on stderr */
	/* LOCALVERSION for make, or NULL: the kernel's own rule applies
	 * (a "+" for a commit without a tag of its own) */
	const char *localversion;
	/* KBUILD_BUILD_VERSION= for make (the #N of uname -v), or NULL */
	const char *build_version;
	/* KBUILD_BUILD_TIMESTAMP= for make (uname -v's date), or NULL */
	const char *build_timestamp;
	/* what the build makes instead of the recipe's targets (a build
	 * job's "bindeb-pkg KDEB_PKGVERSION=..."), or NULL */
	const char *build_targets;
	/* build in a sandbox (bubblewrap): no network, nothing writable but
	 * the work directory and ccache's; for untrusted patches */
	int sandbox;
	/* not from the kernel cache: the tree is built here, in the work
	 * directory, because packaging follows (a build job) */
	int uncached;
	/* compile helpers, distcc's host list (the worker's), or NULL: the
	 * recipe's, if any */
	const char *distcc;
	/* or icecc's scheduler (the worker's; compile_helpers.h) */
	const char *icecc;
};

struct pipeline_result {
	enum verdict verdict;
	char *title;   /* crash title, build error or "" */
	char *excerpt; /* console or compiler lines */
	double checkout_s, config_s, build_s, boot_s; /* boot_s: mean */
	int runs_done, runs_failed;
	char *build_log;   /* paths, owned */
	char *console_log; /* the first failing run's, or the last one's */
	char *config_path;
	char *config_notes;    /* traps handled, options olddefconfig dropped */
	char *build_notes;     /* compile helpers: jobs sent, helpers down */
	const char *accel;     /* "kvm" or "tcg", static */
	int build_cached;      /* the image came from the kernel cache */
	char image_sha256[65]; /* of the booted image, or "" */
	/* every run's own verdict and title: a JSON array of
	 * {"verdict", "title"}, or NULL before the boots */
	char *run_results;
};

void pipeline_result_release(struct pipeline_result *r);

/*
 * make in the step's tree: -C src O=build ARCH, ccache, the build user
 * and LOCALVERSION of the spec, then the words of targets (targets and
 * VAR=value assignments), appending to log; env is one more "NAME=value"
 * for the environment, or NULL.
 */
int pipeline_make(const struct step_spec *s, const char *targets,
		  const char *env, const char *log, struct proc_result *pr);

/* Run one step; a failure to run it gives VERDICT_INFRA, not an error. */
int pipeline_run(struct pipeline_result *out, const struct step_spec *spec);
/* The same, reproducible (a fixed build version and date), its result
 * moved into st: a kernel-mode step for every caller. */
int pipeline_step(struct step_result *st, const struct step_spec *spec);
/* A metric's values from every run's console of a step that passed
 * (step_dir/console-N.log), into st (step_result_measure()). */
int pipeline_measure(struct step_result *st, const char *step_dir,
		     const char *name);

#endif
