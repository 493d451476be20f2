/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One step for every caller: an assignment run in its work directory,
 * in kernel mode through the pipeline, in generic mode as a command
 * (steprun.c).
 */
#ifndef BISECTD_WORKER_STEPRUN_H
#define BISECTD_WORKER_STEPRUN_H

#include "gitutil.h"
#include "step.h"

/*
 * Generic mode: check commit out into worktree and run command there
 * with sh -c (BISECT_COMMIT set), its output in log.  The exit status
 * decides as in git bisect run: 0 good, 125 skip, 1-127 bad; 128 and
 * above, or a signal, is an infra verdict.
 */
struct steprun_env;
int steprun_command(struct step_result *st, struct gu_repo *repo,
		    const char *worktree, const struct gu_oid *commit,
		    const char *command, int network, const char *log,
		    const struct steprun_env *env);

/* A stable directory name for a repository: a hash of its git dir. */
char *steprun_repo_key(struct gu_repo *repo);

struct step_assignment;

/* Where a worker keeps its checkouts, builds and step logs. */
struct steprun_env {
	const char *cache_dir;	 /* mirrors and work directories */
	const char *recipe_path; /* colon-separated recipe directories */
	const char *slot;	 /* work directory suffix, "" for the first */
	const char *step_dir;	 /* this step's logs */
	int live;		 /* live indicator on stderr */
	const char *sign_key, *sign_cert; /* for build jobs, or NULL */
	/* a step comes from the network (bisect-worker): a generic job's
	 * command runs in the sandbox as the command user, without network
	 * or the worker's environment, within these limits; a kernel tree
	 * (its Makefiles, the patches of "apply") is built in the build
	 * sandbox.  0 for the user's own (bisectctl) */
	int sandbox_commands;
	double command_timeout_s;
	long command_memory_mb;
	unsigned command_procs;		 /* processes at once */
	unsigned long command_output_mb; /* the largest file it writes */
	double build_timeout_s; /* each make of a kernel step's sandbox */
	/* whom it runs as; 0: nobody in a user namespace (not root) */
	unsigned command_uid, command_gid;
	int command_network; /* it may have the network when it asks */
	const char *distcc;  /* compile helpers for builds, or NULL */
	const char *icecc;   /* or icecc's scheduler */
	/* the coordinator and the worker's token: a repository that is a
	 * path there and not here is fetched from it; NULL for bisectctl */
	const char *server, *token;
};

/*
 * Run one assignment from the coordinator: open the repository (a path,
 * or a URL mirrored under the cache), find the recipe, lock the work
 * directory, run the step.  Problems with the step itself (an unknown
 * recipe, a missing commit) become an infra verdict with the reason as
 * its title; the return value is nonzero only when out of memory.
 */
int steprun_assignment(struct step_result *st, const struct step_assignment *a,
		       const struct steprun_env *env);

#endif
