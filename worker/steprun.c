// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running one step, for every caller: bisectctl's embedded workers and
 * bisect-worker alike.  A step is a commit, and either a command
 * (generic mode) or a recipe (kernel mode).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "mbox.h"
#include "recipe.h"
#include "srcimport.h"
#include "log.h"
#include "util.h"
#include "buildjob.h"
#include "pipeline.h"
#include "releases.h"
#include "sandbox.h"
#include "steprun.h"

char *steprun_repo_key(struct gu_repo *repo)
{
	char real[PATH_MAX];
	const char *p = gu_gitdir(repo);

	if (realpath(p, real))
		p = real;
	return util_fmt("%016llx", util_hash(p, strlen(p)));
}

/*
 * The words that run command: sh -c command, or for a command from the
 * network (env->sandbox_commands) the same under prlimit (its memory,
 * and its processes where no pids cgroup counts them) and in the
 * sandbox, as the command user, without network unless it asked for it
 * and this worker gives it, with BISECT_COMMIT as all of its
 * environment from here.  owned gets the strings that the words point
 * to, which the caller frees.  NULL when out of memory.
 */
static const char **command_argv(const char *command, const char *worktree,
				 const char *gitdir, const char *env_commit,
				 const struct steprun_env *env, int network,
				 char *owned[3])
{
	const char **argv = calloc(SANDBOX_WORDS + 8, sizeof(*argv));
	const char *const senv[] = { env_commit, NULL };
	size_t n = 0;

	owned[0] = owned[1] = owned[2] = NULL;
	if (!argv)
		return NULL;
	if (env && env->sandbox_commands) {
		struct sandbox_user user = { env->command_uid, env->command_gid,
					     network };

		/* the checkout's own git directory, beside it (gitutil.c) */
		owned[2] = util_fmt("%s.git", worktree);
		owned[0] = util_fmt("--as=%lld",
				    (long long)(env->command_memory_mb > 0
							? env->command_memory_mb
							: 4096)
					    << 20);
		if (env->command_procs && !proc_pids_root())
			owned[1] = util_fmt("--nproc=%u", env->command_procs);
		if (!owned[0] || !owned[2] ||
		    (env->command_procs && !proc_pids_root() && !owned[1])) {
			free(argv);
			return NULL;
		}
		argv[n++] = "prlimit";
		argv[n++] = owned[0];
		if (owned[1])
			argv[n++] = owned[1];
		argv[n++] = "--";
		n += sandbox_command_argv(argv + n, worktree, gitdir, owned[2],
					  senv, &user);
	}
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = command;
	argv[n] = NULL;
	return argv;
}

int steprun_command(struct step_result *st, struct gu_repo *repo,
		    const char *worktree, const struct gu_oid *commit,
		    const char *command, int network, const char *log,
		    const struct steprun_env *senv)
{
	char hex[GU_HEXSZ + 1], *env_commit, *owned[3], *gitdir = NULL;
	int sandboxed = senv && senv->sandbox_commands;
	int lend = sandboxed && senv->command_uid; /* the checkout */
	const char **argv;
	struct proc_result pr;
	int rc;

	gu_oid_hex(hex, commit);
	/* (a worker killed while a command ran left the tree lent out) */
	rc = lend ? util_chown_tree(worktree, NULL, geteuid(), getegid()) : 0;
	/* what the command left that a checkout would follow or block on */
	if (!rc && lend && (gitdir = util_fmt("%s.git", worktree)) &&
	    access(gitdir, F_OK) == 0)
		rc = gu_clear_worktree(worktree);
	free(gitdir);
	if (!rc)
		rc = gu_checkout(repo, worktree, commit);
	if (rc == ERR_INPUT) {
		/* a tree that no checkout may write: untestable */
		st->verdict = VERDICT_SKIP;
		st->title =
			util_fmt("cannot check out %s: %s", hex, err_last());
		return st->title ? 0 : err_set(ERR_NOMEM, "out of memory");
	}
	if (rc)
		return rc;
	env_commit = util_fmt("BISECT_COMMIT=%s", hex);
	st->log = log ? strdup(log) : NULL;
	if (!env_commit || (log && !st->log)) {
		free(env_commit);
		return err_set(ERR_NOMEM, "out of memory");
	}
	argv = command_argv(command, worktree, gu_gitdir(repo), env_commit,
			    senv, network, owned);
	if (!argv) {
		free(env_commit);
		return err_set(ERR_NOMEM, "out of memory");
	}
	/* the checkout is the command user's while it runs (not its .git),
	 * then the worker's again */
	if (lend)
		rc = util_chown_tree(worktree, NULL, senv->command_uid,
				     senv->command_gid);
	if (!rc) {
		const char *env[] = { env_commit, NULL };
		struct proc_opts o = {
			.cwd = worktree,
			.env = env,
			.log_path = log,
			.timeout_s = sandboxed ? senv->command_timeout_s : 0,
			.max_procs = sandboxed ? senv->command_procs : 0,
			.max_file_mb = sandboxed ? senv->command_output_mb : 0
		};

		rc = proc_run(&pr, argv, &o);
	}
	if (lend) {
		int back =
			util_chown_tree(worktree, NULL, geteuid(), getegid());

		rc = rc ? rc : back;
	}
	free(env_commit);
	free(argv);
	free(owned[0]);
	free(owned[1]);
	free(owned[2]);
	if (rc)
		return rc;
	if (pr.exec_failed)
		return ERR_INPUT; /* proc_run said which command and why */
	if (pr.timed_out) {
		st->verdict = VERDICT_INFRA;
		st->title = util_fmt("command timed out after %.0f s",
				     senv->command_timeout_s);
		return 0;
	}
	if (!pr.exited) {
		st->verdict = VERDICT_INFRA;
		st->title =
			util_fmt("command was killed by signal %d", pr.signal);
		return 0;
	}
	st->exit_code = pr.status;
	if (pr.status == 0)
		st->verdict = VERDICT_GOOD;
	else if (pr.status == 125)
		st->verdict = VERDICT_SKIP;
	else if (pr.status < 128)
		st->verdict = VERDICT_BAD;
	else
		st->verdict = VERDICT_INFRA;
	if (st->verdict == VERDICT_INFRA) {
		st->abort = 1;
		st->title = util_fmt("command exited with status %d (>= 128): "
				     "bisect run aborted",
				     pr.status);
	} else if (st->verdict != VERDICT_GOOD) {
		st->title = util_fmt("exit status %d", pr.status);
	}
	return 0;
}

/* The bare mirror under the cache for key (a URL, or server and path). */
static char *mirror_dir(const char *cache, const char *key)
{
	char hex[DIGEST_HEXSZ + 1];

	digest_sha256_hex(hex, key, strlen(key));
	return util_fmt("%s/mirrors/%.16s.git", cache, hex);
}

/* What a worker's fetch of a job's URL may take: bisectd's defaults
 * for its own (fetch-timeout, fetch-stall-timeout) */
#define URL_FETCH_S 600
#define URL_STALL_S 60

/*
 * Fetch url into the bare mirror dir with git, in a child process: as
 * bisectd's fetch queue does, without prompts, redirects or other than
 * network protocols, given up after URL_FETCH_S or when curl received
 * nothing for URL_STALL_S.  The job's submitter chose the server, which
 * may answer bisectd and then not this worker, or send it elsewhere.
 */
static int fetch_url(const char *url, const char *dir)
{
	const char *env[GU_FETCH_ENV];
	const char *init[] = { "git", "init", "-q", "--bare", dir, NULL };
	const char *fetch[] = { "git",
				"-C",
				dir,
				"fetch",
				"-q",
				"--prune",
				"--",
				url,
				"+refs/heads/*:refs/heads/*",
				"+refs/tags/*:refs/tags/*",
				NULL };
	char slow[64], *log = util_fmt("%s.log", dir);
	struct proc_opts o = { .env = env, .timeout_s = URL_FETCH_S };
	struct proc_result pr;
	int rc;

	if (!log)
		return err_set(ERR_NOMEM, "out of memory");
	gu_fetch_env(env, slow, sizeof(slow), URL_STALL_S);
	o.log_path = log;
	rc = proc_run(&pr, init, &o);
	if (!rc && (pr.exec_failed || !pr.exited || pr.status))
		rc = err_set(ERR_INFRA, "cannot make the mirror '%s' (see %s)",
			     dir, log);
	if (!rc)
		rc = proc_run(&pr, fetch, &o);
	if (!rc && pr.timed_out)
		rc = err_set(ERR_INPUT,
			     "cannot fetch '%s': no answer within %d s", url,
			     URL_FETCH_S);
	else if (!rc && (pr.exec_failed || !pr.exited || pr.status)) {
		/* git's own reason: its last "fatal:" line */
		struct buf b;
		const char *p, *why = NULL;

		buf_init(&b, 1 << 16);
		buf_read_file(&b, log);
		for (p = buf_str(&b); (p = strstr(p, "fatal: ")); p++)
			why = p;
		rc = err_set(ERR_INPUT, "cannot fetch '%s': %.*s", url,
			     why ? (int)strcspn(why, "\r\n") : 10,
			     why ? why : "git failed");
		buf_release(&b);
	}
	free(log);
	return rc;
}

/* Open a path, or mirror a URL under the cache. */
static int open_repo(struct gu_repo **out, const char *repo, const char *cache)
{
	char *dir;
	int rc, fd = -1;

	if (!strstr(repo, "://"))
		return gu_open(out, repo);
	dir = mirror_dir(cache, repo);
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	rc = util_mkdir_p(dir);
	/* (slots of one machine share the mirror) */
	if (!rc && (fd = util_lock_dir(dir)) < 0)
		rc = fd;
	if (!rc)
		rc = fetch_url(repo, dir);
	if (!rc)
		rc = gu_open(out, dir);
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/*
 * A repository that is a path on the coordinator and not on this machine:
 * fetched from the coordinator (git's smart HTTP, with the worker's
 * token) into a mirror per coordinator and path, so that every job on it
 * shares one object store and a fetch brings only what is new.
 */
static int open_served(struct gu_repo **out, const struct step_assignment *a,
		       const struct steprun_env *env)
{
	size_t n = strlen(env->server);
	char *key = util_fmt("%s\n%s", env->server, a->spec.repo), *dir = NULL,
	     *url = NULL, *header = NULL;
	int rc = 0, fd = -1;

	while (n && env->server[n - 1] == '/')
		n--;
	if (key) {
		dir = mirror_dir(env->cache_dir, key);
		url = util_fmt("%.*s/api/v1/jobs/%lld/git", (int)n, env->server,
			       a->job);
		header = util_fmt("Authorization: Bearer %s", env->token);
	}
	if (!key || !dir || !url || !header)
		rc = err_set(ERR_NOMEM, "out of memory");
	/* (slots of one machine share the mirror) */
	if (!rc && (rc = util_mkdir_p(dir)) == 0 &&
	    (fd = util_lock_dir(dir)) < 0)
		rc = ERR_INFRA;
	if (!rc) {
		log_info("%s is not on this machine: fetching it from the "
			 "coordinator into %s",
			 a->spec.repo, dir);
		rc = gu_open_served(out, url, dir, header);
	}
	if (fd >= 0)
		close(fd);
	if (header)
		memset(header, 0, strlen(header));
	free(header);
	free(url);
	free(dir);
	free(key);
	return rc;
}

/*
 * A build job's step: the patches come with the request; the packages
 * end up in the step directory's packages/, which the worker uploads.
 * The verdict: good (built, booted), bad (built, the boot failed), skip
 * (did not build or package), infra.
 */
static int run_build(struct step_result *st, const struct job_spec *sp,
		     const struct steprun_env *env, struct gu_repo *repo,
		     const struct gu_oid *oid, const struct recipe *recipe,
		     const char *work, const char *test, const char *tenant)
{
	struct buildjob_result r;
	size_t lens[JOB_MAX_PATCHES], i;
	struct buildjob_spec bs = {
		.repo = repo,
		.base = *oid,
		.names = (const char *const *)sp->patch_names,
		.texts = (const char *const *)sp->patch_texts,
		.lens = lens,
		.npatches = sp->npatches,
		.recipe = recipe,
		.test_script = test,
		.runs = sp->runs,
		.work_dir = work,
		.tenant = tenant,
		.timeout_s = env->build_timeout_s,
		.max_procs = env->command_procs,
		.out_dir = env->step_dir,
		.deb = sp->deb,
		.rpm = sp->rpm,
		.dbg = sp->dbg,
		.sandbox = 1,
		.live = env->live,
		.sign_key = env->sign_key,
		.sign_cert = env->sign_cert,
		.install = sp->install_test,
		.cache_dir = env->cache_dir,
		.distcc = env->distcc,
		.icecc = env->icecc,
	};
	int rc;

	if (buildjob_check(&bs))
		return err_set(ERR_INFRA, "%s on this worker", err_last());
	for (i = 0; i < sp->npatches; i++)
		lens[i] = strlen(sp->patch_texts[i]);
	rc = buildjob_run(&r, &bs);
	if (rc == ERR_INPUT) {
		/* a patch that does not apply (a hunk, a path no tree may
		 * hold) is the submitter's: the job fails saying so, as a
		 * tree that does not build does, and is not tried again */
		buildjob_release(&r);
		st->verdict = VERDICT_SKIP;
		st->title = strdup(err_last());
		return st->title ? 0 : err_set(ERR_NOMEM, "out of memory");
	}
	if (rc) {
		buildjob_release(&r);
		return rc;
	}
	*st = r.smoke;
	memset(&r.smoke, 0, sizeof(r.smoke));
	if (r.napplied &&
	    step_result_set_patches(st, (const char *const *)r.applied,
				    r.napplied)) {
		buildjob_release(&r);
		return ERR_NOMEM;
	}
	if (r.built)
		st->verdict = st->verdict == VERDICT_GOOD ? VERDICT_GOOD
							  : VERDICT_BAD;
	else if (st->verdict != VERDICT_INFRA)
		st->verdict = VERDICT_SKIP;
	if (r.built && st->verdict == VERDICT_GOOD && r.installed &&
	    r.install.verdict != VERDICT_GOOD) {
		/* the packages did not install or boot */
		st->verdict = r.install.verdict;
		free(st->title);
		st->title = util_fmt("install test: %s", r.install.title);
	} else if (r.built && st->verdict == VERDICT_GOOD) {
		free(st->title);
		st->title = r.installed
				    ? util_fmt("built %s, installed and booted "
					       "from a Debian 12 disk",
					       r.packages.release)
				    : util_fmt("built %s", r.packages.release);
	}
	buildjob_release(&r);
	return 0;
}

/*
 * The commit a kernel step builds: the assignment's commit; for the role
 * "revert" (the culprit's check), the job's bad commit with the culprit
 * reverted; then a bisect or test job's "apply" patches on top.  Reverts
 * and patches are commits of the work directory's own repository (the
 * step keeps the commit it names).  A revert or a patch that does not
 * apply makes the step a skip that says so: 0 then, with st->verdict set.
 */
static int step_commit(struct gu_oid *out, struct step_result *st,
		       const struct step_assignment *a, struct gu_repo *repo,
		       const struct gu_oid *oid, const char *work)
{
	const struct job_spec *sp = &a->spec;
	char *src = util_fmt("%s/src", work);
	size_t lens[JOB_MAX_PATCHES], i;
	struct gu_oid base = *oid, bad;
	int rc;

	for (i = 0; i < sp->npatches; i++)
		lens[i] = strlen(sp->patch_texts[i]);
	rc = src ? util_mkdir_p(src) : err_set(ERR_NOMEM, "out of memory");
	if (!rc && !strcmp(a->role, "revert")) {
		rc = sp->bad ? gu_resolve(repo, sp->bad, &bad)
			     : err_set(ERR_INFRA, "a revert step without a "
						  "bad commit");
		if (!rc)
			rc = gu_revert_onto(&base, repo, src, &bad, oid);
	}
	if (!rc && sp->npatches)
		rc = mbox_apply_patches(&base, repo, src, &base,
					(const char *const *)sp->patch_names,
					(const char *const *)sp->patch_texts,
					lens, sp->npatches, NULL, NULL);
	free(src);
	*out = base;
	if (rc == ERR_INPUT) {
		st->verdict = VERDICT_SKIP;
		st->title = util_fmt("%s", err_last());
		return st->title ? 0 : err_set(ERR_NOMEM, "out of memory");
	}
	return rc;
}

/*
 * The compiler cache of one submitter on one slot: tenant/KEY-SLOT below
 * the worker's (CCACHE_DIR, else the cache's ccache/), for this step's
 * process.  Each slot has its own: the build user of a slot is given
 * its directory before each make, which must never be another slot's,
 * where a build of the same submitter may be running.
 */
static int tenant_ccache(const char *tenant, const char *slot)
{
	/* the worker's own, read before the first step set CCACHE_DIR */
	static char *base;
	char *dir;
	int rc;

	if (!base)
		base = util_ccache_dir();
	dir = base ? util_fmt("%s/tenant/%s%s", base, tenant, slot) : NULL;
	rc = dir ? 0 : err_set(ERR_NOMEM, "out of memory");
	if (!rc && setenv("CCACHE_DIR", dir, 1))
		rc = err_sys(ERR_INFRA, "setenv CCACHE_DIR");
	free(dir);
	return rc;
}

/*
 * The job's repository: a path on the coordinator's machine that is not
 * on this one is fetched from bisectd; a URL is mirrored here.
 */
static int open_job_repo(struct gu_repo **out, const struct step_assignment *a,
			 const struct steprun_env *env)
{
	const char *repo = a->spec.repo;

	if (env->server && env->token && !strstr(repo, "://") &&
	    access(repo, F_OK))
		return open_served(out, a, env);
	return open_repo(out, repo, env->cache_dir);
}

/* The job's recipe, by name, from the worker's recipe directories. */
static int step_recipe(struct recipe *out, const char *name,
		       const struct steprun_env *env)
{
	char path[PATH_MAX];
	int rc = recipe_find(path, sizeof(path), name, env->recipe_path);

	return rc ? rc : recipe_load(out, path);
}

/* The job's guest test script as the step directory's test.sh, whose
 * path goes to *path (the caller frees it). */
static int write_test(const struct steprun_env *env, const char *text,
		      char **path)
{
	int rc;

	*path = util_fmt("%s/test.sh", env->step_dir);
	rc = *path ? util_write_atomic(*path, text, strlen(text))
		   : err_set(ERR_NOMEM, "out of memory");
	if (!rc && chmod(*path, 0755))
		rc = err_sys(ERR_INFRA, "chmod '%s'", *path);
	return rc;
}

/*
 * A metric bisection's step: the values of the job's metric in what the
 * run printed (the command's output, the guest's console), into st.
 */
static int measure_step(struct step_result *st, const char *name,
			const char *path)
{
	struct buf b;
	int rc = 0;

	buf_init(&b, 64 << 20);
	if (path && st->verdict == VERDICT_GOOD &&
	    (rc = buf_read_file(&b, path))) {
		buf_release(&b);
		return rc;
	}
	rc = step_result_measure(st, b.ptr ? b.ptr : "", b.len, name);
	buf_release(&b);
	return rc;
}

static int run_assignment(struct step_result *st,
			  const struct step_assignment *a,
			  const struct steprun_env *env, struct gu_repo *repo,
			  const struct gu_oid *oid)
{
	const struct job_spec *sp = &a->spec;
	char *key = steprun_repo_key(repo), *work = NULL, *path = NULL;
	char tenant[20];
	struct gu_oid poid;
	struct recipe recipe;
	int rc, lock = -1;

	if (!key)
		return err_set(ERR_NOMEM, "out of memory");
	/* each submitter's trees and compiler cache apart from the others' */
	snprintf(tenant, sizeof(tenant), "%s%s", a->tenant[0] ? "-" : "",
		 a->tenant);
	if (env->sandbox_commands &&
	    (rc = tenant_ccache(a->tenant[0] ? a->tenant : "none",
				env->slot ? env->slot : "")))
		goto out;
	if (env->sandbox_commands && !util_in_path("bwrap")) {
		rc = err_set(ERR_INFRA,
			     "bubblewrap (bwrap) is not installed on "
			     "this worker: steps from the network "
			     "run in its sandbox");
		goto out;
	}
	if (sp->command) {
		if (sp->network && env->sandbox_commands &&
		    !env->command_network) {
			rc = err_set(ERR_INFRA,
				     "this worker gives commands no network "
				     "(bisect-worker --allow-network)");
			goto out;
		}

		work = util_fmt("%s/worktrees/%s-run%s%s", env->cache_dir, key,
				tenant, env->slot);
		path = util_fmt("%s/command.log", env->step_dir);
		rc = work && path ? 0 : err_set(ERR_NOMEM, "out of memory");
		if (!rc && (rc = util_mkdir_p(work)) == 0 &&
		    (lock = util_lock_dir(work)) < 0)
			rc = lock;
		if (!rc)
			rc = steprun_command(st, repo, work, oid, sp->command,
					     sp->network, path, env);
		if (!rc && sp->metric_name)
			rc = measure_step(st, sp->metric_name, path);
		goto out;
	}
	if ((rc = step_recipe(&recipe, sp->recipe, env)))
		goto out;
	if (sp->base_release) {
		/* the config of a Debian release (its package) as the base,
		 * in a build directory of its own */
		char *deb;

		rc = releases_package(env->cache_dir, sp->flavour,
				      sp->base_release, env->step_dir, &deb);
		if (!rc) {
			free(recipe.base);
			recipe.base = deb;
		}
	}
	if (!rc && sp->test)
		rc = write_test(env, sp->test, &path);
	work = util_fmt("%s/work/%s-%s%s%s%s%s", env->cache_dir, key,
			recipe.name, sp->base_release ? "-" : "",
			sp->base_release ? sp->base_release : "", tenant,
			env->slot);
	if (!rc && !work)
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc && (rc = util_mkdir_p(work)) == 0 &&
	    (lock = util_lock_dir(work)) < 0)
		rc = lock;
	if (!rc)
		rc = sandbox_claim_work(work);
	if (!rc && !strcmp(sp->type, "build"))
		rc = run_build(st, sp, env, repo, oid, &recipe, work, path,
			       a->tenant);
	else if (!rc &&
		 (rc = step_commit(&poid, st, a, repo, oid, work)) == 0 &&
		 st->verdict == VERDICT_SKIP) {
		/* a revert or a patch does not apply here: it says so */
	} else if (!rc) {
		/* a tree from the network (its Makefiles, the patches of
		 * "apply") is built in the sandbox, as a build job is */
		struct step_spec spec = { .repo = repo,
					  .commit = poid,
					  .recipe = &recipe,
					  .test_script = path,
					  .runs = sp->runs,
					  .work_dir = work,
					  .tenant = a->tenant,
					  .timeout_s = env->build_timeout_s,
					  .max_procs = env->command_procs,
					  .step_dir = env->step_dir,
					  .live = env->live,
					  .sandbox = env->sandbox_commands,
					  .distcc = env->distcc,
					  .icecc = env->icecc };

		rc = pipeline_step(st, &spec);
		if (!rc && sp->metric_name)
			rc = pipeline_measure(st, env->step_dir,
					      sp->metric_name);
	}
	recipe_release(&recipe);
out:
	if (lock >= 0)
		close(lock);
	free(key);
	free(work);
	free(path);
	return rc;
}

/*
 * Debian's patches of a releases step, bisected here: the linear
 * history that releases.c wrote into the job's repository, each commit
 * built and booted as a test step of it is.
 */
struct here {
	const struct step_assignment *a;
	const struct steprun_env *env;
	struct gu_repo *repo;
	const char *recipe, *out_dir;
	struct gu_oid *commits; /* newest first */
	char (*hex)[GU_HEXSZ + 1];
	json_t *steps;
	unsigned nstep;
	char title[256];
};

static int here_probe(void *ctx, size_t i, int runs, unsigned *fails,
		      unsigned *passes, unsigned *skips)
{
	struct here *h = ctx;
	struct step_assignment a = *h->a; /* its spec borrowed */
	struct steprun_env env = *h->env;
	struct step_result st;
	char *dir = util_fmt("%s/step-%u", h->out_dir, ++h->nstep);
	int rc;

	*fails = *passes = *skips = 0;
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	snprintf(a.spec.type, sizeof(a.spec.type), "test");
	a.spec.recipe = (char *)h->recipe;
	a.spec.runs = runs;
	a.spec.manual = 0;
	a.spec.answers = NULL;
	env.step_dir = dir;
	memset(&st, 0, sizeof(st));
	rc = util_mkdir_p(dir);
	if (!rc)
		rc = run_assignment(&st, &a, &env, h->repo, &h->commits[i]);
	if (!rc) {
		*fails = st.verdict == VERDICT_BAD;
		*passes = st.verdict == VERDICT_GOOD;
		*skips = !*fails && !*passes;
		snprintf(h->title, sizeof(h->title), "%s",
			 st.title ? st.title : "");
		printf("patch level: %.12s %s%s%s\n", h->hex[i],
		       verdict_name(st.verdict), *h->title ? ": " : "",
		       h->title);
		fflush(stdout);
		json_array_append_new(h->steps,
				      json_pack("{s:s, s:s, s:s}", "commit",
						h->hex[i], "verdict",
						verdict_name(st.verdict),
						"title", h->title));
	}
	step_result_release(&st);
	free(dir);
	return rc;
}

static const char *here_name(void *ctx, size_t i)
{
	return ((struct here *)ctx)->hex[i];
}

static const char *here_title(void *ctx, size_t i)
{
	(void)i;
	return ((struct here *)ctx)->title;
}

/* releases_opts.bisect_commits for a worker: bad's first parents down
 * to good, bisected here; bisectctl bisect's exit status. */
static int commits_here(const struct releases_opts *o, const char *good,
			const char *bad, const char *recipe, const char *json,
			const char *out_dir)
{
	struct here *h = o->ctx;
	struct linear_probe lp = { .confidence = o->confidence,
				   .runs = o->runs,
				   .what = "commit",
				   .probe = here_probe,
				   .name = here_name,
				   .title = here_title,
				   .ctx = h };
	struct gu_oid g, cur;
	double confidence = 0;
	long culprit = -1;
	json_t *out;
	int rc;

	h->recipe = recipe;
	h->out_dir = out_dir;
	h->steps = json_array();
	rc = gu_oid_parse(&g, good) || gu_oid_parse(&cur, bad)
		     ? err_set(ERR_INPUT, "bad commit ids")
		     : util_mkdir_p(out_dir);
	while (!rc && !gu_oid_equal(&cur, &g)) {
		struct gu_oid *c = realloc(h->commits, (lp.n + 1) * sizeof(*c));
		char(*x)[GU_HEXSZ + 1] =
			c ? realloc(h->hex, (lp.n + 1) * sizeof(*x)) : NULL;

		if (c)
			h->commits = c;
		if (x)
			h->hex = x;
		if (!c || !x) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		h->commits[lp.n] = cur;
		gu_oid_hex(h->hex[lp.n++], &cur);
		if (gu_parents(h->repo, &h->commits[lp.n - 1], &cur, 1) != 1)
			rc = err_set(ERR_INFRA, "%.12s has no parent",
				     h->hex[lp.n - 1]);
	}
	if (!rc)
		rc = releases_linear(&lp, &culprit, &confidence);
	if (rc)
		log_warnx("patch level: %s", err_last());
	out = json_pack("{s:s, s:s?, s:s, s:[s], s:f, s:s, s:O}", "result",
			rc	       ? "error"
			: culprit >= 0 ? "found"
				       : "ambiguous",
			"first_bad", culprit >= 0 ? h->hex[culprit] : NULL,
			"bad", bad, "good", good, "confidence", confidence,
			"reason", rc ? err_last() : lp.why, "steps", h->steps);
	if (!out || json_dump_file(out, json, JSON_INDENT(2)))
		rc = rc ? rc : err_set(ERR_INFRA, "cannot write %s", json);
	json_decref(out);
	json_decref(h->steps);
	h->steps = NULL;
	return rc == ERR_INPUT ? 2 : rc ? 3 : culprit >= 0 ? 0 : 1;
}

/*
 * A releases job: the whole release-level bisection is this one step,
 * as bisectctl releases runs it.  Its JSON goes into the result; the
 * verdict is bad when a first bad release was found, skip when the
 * answer is ambiguous (the title says why).
 */
static int run_releases(struct step_result *st, const struct step_assignment *a,
			const struct steprun_env *env)
{
	const struct job_spec *sp = &a->spec;
	struct releases_opts ro = { .flavour = sp->flavour,
				    .good = sp->good[0],
				    .bad = sp->bad,
				    .runs = sp->runs,
				    .confidence = sp->confidence,
				    .out_dir = env->step_dir,
				    .cache = env->cache_dir,
				    .manual = sp->manual,
				    .stateless = sp->manual,
				    .answers = sp->answers };
	char *test = NULL, *json = NULL, *name = NULL, *result = NULL;
	struct recipe recipe;
	struct buf text;
	struct here h = { .a = a, .env = env };
	int rc = step_recipe(&recipe, sp->recipe, env), found = 0;

	if (rc)
		return rc;
	if (sp->repo) {
		/* Debian's patches are bisected here, on the repository's
		 * tag; the commits between two upstream versions are
		 * bisectd's bisect job of their own */
		rc = open_job_repo(&h.repo, a, env);
		if (rc && rc != ERR_NOMEM) {
			/* needed only for Debian's patches, which then
			 * say why they were not bisected */
			log_warnx("%s", err_last());
			h.repo = NULL;
			rc = 0;
		}
		ro.repo = sp->repo;
		ro.repo_handle = h.repo;
		ro.commit_recipe = sp->commit_recipe;
		ro.bisect_commits = commits_here;
		ro.ctx = &h;
		ro.patches_only = 1;
	}
	buf_init(&text, 64u << 20);
	json = util_fmt("%s/releases.json", env->step_dir);
	if (!json)
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc && sp->test)
		rc = write_test(env, sp->test, &test);
	ro.test = test;
	ro.json = json;
	ro.recipe = &recipe;
	if (!rc)
		rc = releases_bisect(&ro, &found);
	if (!rc)
		rc = buf_read_file(&text, json);
	if (!rc && !(st->releases = buf_detach(&text)))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		result = job_json_string(st->releases, "result");
	if (!rc && result && !strcmp(result, "waiting")) {
		/* by hand: the submitter's answer on this release is next */
		name = job_json_string(st->releases, "next_release");
		st->verdict = VERDICT_GOOD;
		st->title = util_fmt("waiting for an answer on release %s",
				     name ? name : "?");
		if (!st->title)
			rc = err_set(ERR_NOMEM, "out of memory");
	} else if (!rc) {
		name = job_json_string(st->releases,
				       found ? "first_bad_release" : "reason");
		st->verdict = found ? VERDICT_BAD : VERDICT_SKIP;
		st->title = found ? util_fmt("first bad release %s",
					     name ? name : "?")
				  : strdup(name ? name : "ambiguous");
		if (!st->title)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	/* a release APT does not know of, a good one that fails: asking
	 * again will not help */
	st->abort = rc == ERR_INPUT;
	recipe_release(&recipe);
	buf_release(&text);
	free(test);
	free(json);
	free(name);
	free(result);
	gu_close(h.repo);
	free(h.commits);
	free(h.hex);
	return rc;
}

int steprun_assignment(struct step_result *st, const struct step_assignment *a,
		       const struct steprun_env *env)
{
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	double t0 = util_now();
	int rc;

	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	st->role = a->role;
	snprintf(st->hex, sizeof(st->hex), "%s", a->commit);
	rc = util_mkdir_p(env->step_dir);
	if (!rc && !strcmp(a->spec.type, "releases")) {
		rc = run_releases(st, a, env);
		goto done;
	}
	if (!rc && a->spec.source && access(a->spec.repo, F_OK)) {
		/* a worker on another machine imports the Debian source
		 * itself: the import is reproducible, the same commit */
		log_info("%s is not on this machine: using Debian's "
			 "linux-source-6.1 %s from %s/linux.git",
			 a->spec.repo, a->spec.source, env->cache_dir);
		rc = srcimport_debian(&repo, &oid, env->cache_dir,
				      a->spec.source);
	} else if (!rc) {
		rc = open_job_repo(&repo, a, env);
	}
	if (!rc && (rc = gu_oid_parse(&oid, a->commit)) == 0)
		rc = run_assignment(st, a, env, repo, &oid);
	gu_close(repo);
done:
	/* the result names the step's commit, as bisectd checks (a build's
	 * patched commit is one of its work directory's own) */
	snprintf(st->hex, sizeof(st->hex), "%s", a->commit);
	st->seconds = util_now() - t0;
	if (rc == ERR_NOMEM)
		return rc;
	if (rc) {
		/* the step could not run here: not a verdict on the commit */
		step_result_release(st);
		st->verdict = VERDICT_INFRA;
		st->title = strdup(err_last());
	}
	if (!st->title)
		st->title = strdup("");
	if (!st->excerpt)
		st->excerpt = strdup("");
	return st->title && st->excerpt ? 0
					: err_set(ERR_NOMEM, "out of memory");
}
