// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler's repositories: a job's repository opened (a path, or a
 * URL mirrored in the state directory by a git child process within the
 * fetch's limits), and a Debian source version imported, for the fetch
 * queue (fetchq.c) to run outside every lock.
 */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "job.h"
#include "recipe.h"
#include "scheduler.h"
#include "step.h"
#include "util.h"
#include "verdict.h"
#include "sched_priv.h"

/* Open a job's repository: a path, or a URL mirrored in the state dir. */
/* Where a repository given as a URL is mirrored. */
static char *mirror_dir(const char *state_dir, const char *url)
{
	char hex[DIGEST_HEXSZ + 1];

	digest_sha256_hex(hex, url, strlen(url));
	return util_fmt("%s/repos/%.16s.git", state_dir, hex);
}

/*
 * A URL's mirror, once it exists, is opened as it is: bisectd's fetch
 * queue fetched it, with its limits, before the lock was taken.  Without
 * one, bisectd has nothing to open (a fetch under way or failed: never a
 * clone under the lock, of a server that may never answer or may
 * redirect anywhere); bisectctl's own scheduler, which has no fetch
 * queue, has libgit2 clone it.
 */
int sched_open_repo(struct sched *s, const char *repo, struct gu_repo **out)
{
	char *dir;
	int rc;

	if (!strstr(repo, "://"))
		return gu_open(out, repo);
	dir = mirror_dir(s->state_dir, repo);
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	if (access(dir, F_OK) == 0)
		rc = gu_open(out, dir);
	else if (!s->o.clone_missing)
		rc = err_set(ERR_NOTFOUND,
			     "repository '%s' is not fetched (its fetch is "
			     "under way, or failed)",
			     repo);
	else if (!(rc = util_mkdir_p(s->state_dir)))
		rc = gu_open_url(out, repo, dir);
	free(dir);
	return rc;
}

/* The last size bytes of a file (its end says why a program failed). */
static void read_tail(struct buf *b, const char *path, off_t size)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size > size)
		lseek(fd, st.st_size - size, SEEK_SET);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 &&
	       !buf_put(b, chunk, (size_t)n))
		;
	close(fd);
}

/*
 * Why git failed, from its log: the first "fatal:" or "error:" line
 * (progress lines end in \r), else the last line, else "git failed".
 */
static void git_reason(char *out, size_t size, const char *log)
{
	const char *p = log, *last = NULL;
	size_t n, lastn = 0;

	for (; *p; p += n + (p[n] != '\0')) {
		n = strcspn(p, "\r\n");
		if (!n)
			continue;
		if (!strncmp(p, "fatal: ", 7) || !strncmp(p, "error: ", 7)) {
			last = p;
			lastn = n;
			break;
		}
		last = p;
		lastn = n;
	}
	if (last)
		snprintf(out, size, "%.*s", (int)lastn, last);
	else
		snprintf(out, size, "git failed");
}

/*
 * Clone or update the mirror of url with git, in a child process that
 * is killed after lim->timeout_s seconds, or when it has received
 * nothing for lim->stall_s: git reports its progress (the server's and
 * the bytes received) into its log, and a log that stops growing is a
 * fetch that stopped; for http(s), curl's own low-speed limit says the
 * same.  A server that never answers costs this fetch its time, nothing
 * else.  git asks for no password.
 */
static int fetch_mirror(const char *state_dir, const char *url,
			const struct sched_fetch_limits *lim)
{
	char *dir = mirror_dir(state_dir, url), *tmp = NULL, *log = NULL,
	     *repos = util_fmt("%s/repos", state_dir), slow[64];
	/* no password prompts, and only network protocols: not file://
	 * (any repository on this machine) or ext:: (any command); curl
	 * gives up after lowSpeedTime s below 1 byte/s (0: never); no
	 * redirect is followed, so the URL that --repo-urls allowed is the
	 * only one fetched (git follows the first request's by default) */
	const char *env[GU_FETCH_ENV];
	struct proc_opts o = { .env = env,
			       .timeout_s = lim->timeout_s,
			       .stall_s = lim->stall_s,
			       .max_file_mb = lim->max_mb };
	struct proc_result pr;
	int fresh, rc;

	gu_fetch_env(env, slow, sizeof(slow), lim->stall_s);
	if (dir)
		tmp = util_fmt("%s.new-%d-%lx", dir, (int)getpid(),
			       (unsigned long)pthread_self());
	if (repos && tmp)
		log = util_fmt("%s.log", tmp);
	if (!log) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = util_mkdir_p(repos)))
		goto out;
	o.log_path = log;
	fresh = access(dir, F_OK) != 0;
	{
		/* (--progress: what git receives shows in its log) */
		const char *clone[] = { "git",	      "clone", "--mirror",
					"--progress", "--",    url,
					tmp,	      NULL };
		const char *fetch[] = { "git",	  "-C",		dir,
					"fetch",  "--progress", "--prune",
					"origin", NULL };

		rc = proc_run(&pr, fresh ? clone : fetch, &o);
	}
	if (!rc && pr.timed_out)
		rc = err_set(ERR_INPUT,
			     "cannot fetch '%s': no answer within %.0f s", url,
			     lim->timeout_s);
	else if (!rc && (!pr.exited || pr.status != 0)) {
		struct buf b;
		const char *text;
		char why[512];

		buf_init(&b, 1 << 17);
		read_tail(&b, log, 1 << 16);
		text = buf_str(&b);
		git_reason(why, sizeof(why), text);
		if (pr.stalled || strstr(text, "Operation too slow"))
			rc = err_set(ERR_INPUT,
				     "cannot fetch '%s': received nothing for "
				     "%.0f s (setting fetch-stall-timeout)",
				     url, lim->stall_s);
		else if (lim->max_mb && strstr(text, "File too large"))
			rc = err_set(ERR_INPUT,
				     "cannot fetch '%s': larger than %lu MB "
				     "(setting fetch-max-mb)",
				     url, lim->max_mb);
		else
			rc = err_set(ERR_INPUT, "cannot fetch '%s': %s", url,
				     why);
		buf_release(&b);
	}
	if (!rc && fresh && rename(tmp, dir) && access(dir, F_OK))
		rc = err_sys(ERR_INFRA, "cannot rename '%s'", tmp);
out:
	if (tmp)
		util_remove_tree(tmp); /* a failure, or another's was first */
	if (log)
		unlink(log);
	free(dir);
	free(tmp);
	free(log);
	free(repos);
	return rc;
}

/*
 * A build of a Debian source version: import it (once) into the cache
 * directory's linux.git as the tag debian/VERSION, where bisectctl build
 * --source puts it too, and make that the job's repository and commit.
 * Workers on this machine open the same repository.  The import (apt-get
 * download, the archives unpacked, a tree committed) is a child process,
 * bisect-worker --import-source, within the fetch's time and size
 * limits: its failures and its memory are not the daemon's.
 */
int sched_import_source(struct job_spec *spec, const char *state_dir,
			double timeout, unsigned long max_mb)
{
	char *prog = util_exe_sibling("bisect-worker"),
	     *log = util_fmt("%s/import-%d-%lx.log", state_dir, (int)getpid(),
			     (unsigned long)pthread_self());
	const char *argv[] = { prog, "--import-source", spec->source, NULL };
	struct proc_opts o = { .log_path = log,
			       .timeout_s = timeout,
			       .max_file_mb = max_mb };
	struct proc_result pr;
	struct buf b;
	const char *last;
	char hex[GU_HEXSZ + 1], path[4096];
	int rc;

	if (spec->repo || spec->commit)
		rc = err_set(ERR_INPUT, "'source' is the base of the build: "
					"no 'repo' or 'commit' with it");
	else if (!prog || !log)
		rc = err_set(ERR_NOMEM, "out of memory");
	else
		rc = proc_run(&pr, argv, &o);
	buf_init(&b, 1 << 16);
	if (!rc)
		buf_read_file(&b, log);
	/* the last line: "HEX PATH", or the reason it failed */
	while (b.len && b.ptr[b.len - 1] == '\n')
		b.ptr[--b.len] = '\0';
	last = b.len ? strrchr(buf_str(&b), '\n') : NULL;
	last = last ? last + 1 : buf_str(&b);
	if (!strncmp(last, "bisect-worker: ", 15))
		last += 15;
	if (rc)
		;
	else if (pr.exec_failed)
		rc = err_set(ERR_INFRA, "cannot import Debian's %s: %s",
			     spec->source, last);
	else if (pr.timed_out)
		rc = err_set(ERR_INPUT,
			     "cannot import Debian's %s: not done within "
			     "%.0f s",
			     spec->source, timeout);
	else if (!pr.exited || pr.status != 0)
		rc = err_set(pr.exited && pr.status == 2 ? ERR_INPUT
							 : ERR_INFRA,
			     "%s", *last ? last : "the import failed");
	else if (sscanf(last, "%40[0-9a-f] %4095[^\n]", hex, path) != 2)
		rc = err_set(ERR_INFRA, "the import of %s said '%.200s'",
			     spec->source, last);
	else if (!(spec->repo = strdup(path)) || !(spec->commit = strdup(hex)))
		rc = err_set(ERR_NOMEM, "out of memory");
	buf_release(&b);
	if (log)
		unlink(log);
	free(log);
	free(prog);
	return rc;
}

int sched_prepare(const char *state_dir, const struct sched_fetch_limits *lim,
		  const char *body, size_t len, char **out)
{
	struct job_spec spec;
	int rc;

	*out = NULL;
	if ((rc = job_spec_parse(&spec, body, len)))
		return rc;
	if (spec.repo && strstr(spec.repo, "://") &&
	    (rc = fetch_mirror(state_dir, spec.repo, lim))) {
		job_spec_release(&spec);
		return rc;
	}
	if (spec.source &&
	    (rc = sched_import_source(&spec, state_dir, lim->timeout_s,
				      lim->max_mb)) == 0 &&
	    !(*out = job_spec_dump(&spec)))
		rc = err_set(ERR_NOMEM, "out of memory");
	job_spec_release(&spec);
	return rc;
}
