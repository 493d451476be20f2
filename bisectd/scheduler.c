// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler.
 *
 * Design.  sched_tick() replans a job from scratch: it reads the job's
 * request and all its steps from the store and walks the phases that
 * session.c describes for one machine, in parallel where they allow it:
 *
 *   checks     the merge base of each good commit that is not an
 *              ancestor of bad (as git does), and in kernel mode the
 *              endpoints (bad must fail, every good must pass); all of
 *              these may run at once
 *   bisect     the engine, rebuilt from the graph and every verdict so
 *              far; probes that are no longer candidates are cancelled,
 *              and idle slots get engine_next_more() picks that split
 *              what the running probes leave
 *
 * Without a confidence a commit is never tested twice for the same
 * question: any step's verdict on a commit counts for every role, and
 * before a commit's first step is queued the result cache is asked,
 * keyed in kernel mode by the commit's tree, the recipe (its file and the
 * fragments and base config it names), the test and the runs, and in
 * generic mode by the commit and the command.  With a confidence the
 * engine may want more runs of a commit (the bad endpoint until it
 * failed 3 times, noisy probes, verification): each is a step of its
 * own, every step's runs are observations, and the job's outcome says
 * how sure its answer is.  An infra verdict is retried once; a second
 * one fails the job, as a verdict is never guessed.
 *
 * Because every decision comes from the store, the daemon can die at any
 * point and the next tick decides the same; a job is ended by a
 * conditional update, so it is never finished twice.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
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

/* What the scheduler keeps per job: parsed request, repository, graph. */
struct jobc {
	long long id;
	struct job_spec spec;
	char tenant[17]; /* its submitter's key, "" for none */
	struct gu_repo *repo;
	char recipe_key[DIGEST_HEXSZ + 1];
	int have_graph;
	struct gu_graph graph;
	regex_t failure; /* spec.failure, compiled */
	int have_failure;
	char (*graph_goods)[GU_HEXSZ + 1]; /* the graph's, when it has one */
	size_t ngraph_goods;
	int slots; /* of the live workers, as of slots_gen */
	unsigned long slots_gen;
	unsigned long used;		  /* s->uses when last found */
	struct jobc *next, *prev, *hnext; /* all jobs; the same bucket */
};

/* A live worker's capabilities, parsed once. */
struct livec {
	long long id;
	char *text;
	struct job_caps caps;
};

#define JOB_BUCKETS 4096
/*
 * Jobs without a graph (tests, builds, bisections before their checks
 * end) cost little to load again: those not used in the last JOBC_KEEP
 * lookups are dropped, so that memory does not grow with the queue.
 */
#define JOBC_KEEP 1000

static void live_release(struct livec *l, size_t n);

/* Open repositories, shared by the jobs that name the same one. */
struct repoc {
	char *name;
	struct gu_repo *repo;
	int refs;
	struct repoc *next;
};

struct sched {
	struct store *store;
	struct sched_opts o;
	char *state_dir, *recipe_path;
	struct jobc *jobs, *bucket[JOB_BUCKETS];
	unsigned long uses, made; /* lookups; jobs loaded */
	struct repoc *repos;
	/* the workers seen within the live window, by id; gen changes with
	 * the set, read again at most every LIVE_REFRESH_S or after a
	 * registration */
	struct livec *live;
	size_t nlive;
	unsigned long live_gen, ticked_gen;
	double live_at;
	int live_stale;
};

#define LIVE_REFRESH_S 2.0

int sched_open(struct sched **out, struct store *st, const struct sched_opts *o)
{
	struct sched *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return err_set(ERR_NOMEM, "out of memory");
	s->store = st;
	s->o = *o;
	s->state_dir = strdup(o->state_dir);
	s->recipe_path = strdup(o->recipe_path ? o->recipe_path : "");
	if (!s->state_dir || !s->recipe_path) {
		sched_close(s);
		return err_set(ERR_NOMEM, "out of memory");
	}
	if (s->o.lease_s <= 0)
		s->o.lease_s = 60;
	if (s->o.max_attempts <= 0)
		s->o.max_attempts = 3;
	if (s->o.live_window <= 0)
		s->o.live_window = 90;
	*out = s;
	return 0;
}

static void repo_put(struct sched *s, struct gu_repo *repo)
{
	struct repoc **p;

	for (p = &s->repos; *p; p = &(*p)->next)
		if ((*p)->repo == repo) {
			struct repoc *dead = *p;

			if (--dead->refs > 0)
				return;
			*p = dead->next;
			gu_close(dead->repo);
			free(dead->name);
			free(dead);
			return;
		}
}

static void jobc_free(struct sched *s, struct jobc *j)
{
	if (j->have_failure)
		regfree(&j->failure);
	job_spec_release(&j->spec);
	if (j->repo)
		repo_put(s, j->repo);
	gu_graph_release(&j->graph);
	free(j->graph_goods);
	free(j);
}

void sched_close(struct sched *s)
{
	if (!s)
		return;
	while (s->jobs) {
		struct jobc *n = s->jobs->next;

		jobc_free(s, s->jobs);
		s->jobs = n;
	}
	live_release(s->live, s->nlive);
	free(s->state_dir);
	free(s->recipe_path);
	free(s);
}

/* Open a job's repository: a path, or a URL mirrored in the state dir. */
/* Where a repository given as a URL is mirrored. */
static char *mirror_dir(const char *state_dir, const char *url)
{
	char hex[DIGEST_HEXSZ + 1];

	digest_sha256_hex(hex, url, strlen(url));
	return util_fmt("%s/repos/%.16s.git", state_dir, hex);
}

/*
 * A URL's mirror, once it exists, is opened as it is: sched_prepare()
 * fetched it before the lock was taken.  Without one (bisectctl's own
 * scheduler, which has no prepare step), libgit2 clones it.
 */
static int open_repo(struct sched *s, const char *repo, struct gu_repo **out)
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
	 * gives up after lowSpeedTime s below 1 byte/s (0: never) */
	const char *env[] = { "GIT_TERMINAL_PROMPT=0",
			      "GIT_ASKPASS=/bin/true",
			      "GIT_ALLOW_PROTOCOL=https:http:git",
			      "GIT_CONFIG_COUNT=2",
			      "GIT_CONFIG_KEY_0=http.lowSpeedLimit",
			      "GIT_CONFIG_VALUE_0=1",
			      "GIT_CONFIG_KEY_1=http.lowSpeedTime",
			      slow,
			      NULL };
	struct proc_opts o = { .env = env,
			       .timeout_s = lim->timeout_s,
			       .stall_s = lim->stall_s,
			       .max_file_mb = lim->max_mb };
	struct proc_result pr;
	int fresh, rc;

	snprintf(slow, sizeof(slow), "GIT_CONFIG_VALUE_1=%.0f",
		 lim->stall_s > 0 ? ceil(lim->stall_s) : 0);
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

int sched_open_repo(struct sched *s, const char *repo, struct gu_repo **out)
{
	return open_repo(s, repo, out);
}

const char *sched_recipe_path(struct sched *s)
{
	return s->recipe_path;
}

/* Hash the recipe and every file it reads its config from. */
static int recipe_key(struct sched *s, const char *name, char *out)
{
	char path[4096];
	struct recipe r;
	struct digest *d;
	size_t i;
	int rc;

	rc = recipe_find(path, sizeof(path), name, s->recipe_path);
	if (!rc)
		rc = recipe_load(&r, path);
	if (rc)
		return err_wrap(ERR_INPUT, "recipe '%s'", name);
	d = digest_new();
	if (!d) {
		recipe_release(&r);
		return err_set(ERR_NOMEM, "out of memory");
	}
	digest_update(d, r.text, strlen(r.text));
	for (i = 0; i < r.nfragments; i++) {
		char fh[DIGEST_HEXSZ + 1];

		if (digest_file_hex(fh, r.fragments[i]) == 0)
			digest_update(d, fh, strlen(fh));
	}
	if (strchr(r.base, '/')) {
		char bh[DIGEST_HEXSZ + 1];

		if (digest_file_hex(bh, r.base) == 0)
			digest_update(d, bh, strlen(bh));
	}
	digest_finish(d, out);
	recipe_release(&r);
	return 0;
}

/* The open repository for a job's "repo", shared by reference. */
static int repo_get(struct sched *s, const char *name, struct gu_repo **out)
{
	struct repoc *r;
	int rc;

	for (r = s->repos; r; r = r->next)
		if (!strcmp(r->name, name)) {
			r->refs++;
			*out = r->repo;
			return 0;
		}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(name))) {
		free(r);
		return err_set(ERR_NOMEM, "out of memory");
	}
	rc = open_repo(s, name, &r->repo);
	if (rc) {
		free(r->name);
		free(r);
		return rc;
	}
	r->refs = 1;
	r->next = s->repos;
	s->repos = r;
	*out = r->repo;
	return 0;
}

static struct jobc **bucket_of(struct sched *s, long long id)
{
	return &s->bucket[(unsigned long long)id % JOB_BUCKETS];
}

static struct jobc *find_jobc(struct sched *s, long long id)
{
	struct jobc *j;

	for (j = *bucket_of(s, id); j; j = j->hnext)
		if (j->id == id) {
			j->used = ++s->uses;
			return j;
		}
	return NULL;
}

/* Take a job off both lists and free it. */
static void forget_jobc(struct sched *s, struct jobc *j)
{
	struct jobc **b;

	for (b = bucket_of(s, j->id); *b != j; b = &(*b)->hnext)
		;
	*b = j->hnext;
	if (j->prev)
		j->prev->next = j->next;
	else
		s->jobs = j->next;
	if (j->next)
		j->next->prev = j->prev;
	jobc_free(s, j);
}

static void drop_jobc(struct sched *s, long long id)
{
	struct jobc *j;

	for (j = *bucket_of(s, id); j; j = j->hnext)
		if (j->id == id) {
			forget_jobc(s, j);
			return;
		}
}

/* Drop the jobs without a graph that were not used lately. */
static void forget_unused(struct sched *s)
{
	struct jobc *j, *next;

	for (j = s->jobs; j; j = next) {
		next = j->next;
		if (!j->have_graph && j->used + JOBC_KEEP < s->uses)
			forget_jobc(s, j);
	}
}

/* The scheduler's view of a job, loaded from the store on first use. */
static int get_jobc(struct sched *s, long long id, const char *spec,
		    const char *owner, struct jobc **out)
{
	struct jobc *j = find_jobc(s, id);
	int rc;

	if (j) {
		*out = j;
		return 0;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return err_set(ERR_NOMEM, "out of memory");
	j->id = id;
	if (owner) {
		char hex[DIGEST_HEXSZ + 1];

		digest_sha256_hex(hex, owner, strlen(owner));
		snprintf(j->tenant, sizeof(j->tenant), "%.16s", hex);
	}
	rc = job_spec_parse(&j->spec, spec, strlen(spec));
	/* (a releases job has no repository: Debian's archive instead) */
	if (!rc && strcmp(j->spec.type, "releases"))
		rc = repo_get(s, j->spec.repo, &j->repo);
	if (!rc && j->spec.recipe)
		rc = recipe_key(s, j->spec.recipe, j->recipe_key);
	if (!rc && j->spec.failure) {
		if (regcomp(&j->failure, j->spec.failure,
			    REG_EXTENDED | REG_NOSUB))
			rc = err_set(ERR_INPUT, "bad 'failure' expression");
		else
			j->have_failure = 1;
	}
	if (rc) {
		jobc_free(s, j);
		return rc;
	}
	if (++s->made % JOBC_KEEP == 0)
		forget_unused(s);
	j->next = s->jobs;
	if (s->jobs)
		s->jobs->prev = j;
	s->jobs = j;
	j->hnext = *bucket_of(s, id);
	*bucket_of(s, id) = j;
	j->used = ++s->uses;
	*out = j;
	return 0;
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
static int import_source(struct job_spec *spec, const char *state_dir,
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
	    (rc = import_source(&spec, state_dir, lim->timeout_s,
				lim->max_mb)) == 0 &&
	    !(*out = job_spec_dump(&spec)))
		rc = err_set(ERR_NOMEM, "out of memory");
	job_spec_release(&spec);
	return rc;
}

/*
 * The job as it is kept: revisions resolved to commit ids (the job means
 * what they meant now), the recipe known.  *canon: the spec to store.
 */
static int resolve_spec(struct sched *s, struct job_spec *spec, char **canon)
{
	struct gu_repo *repo = NULL;
	char hex[GU_HEXSZ + 1], key[DIGEST_HEXSZ + 1];
	struct gu_oid oid;
	size_t i;
	int rc = 0;

	*canon = NULL;
	/* (bisectd imports in its fetch queue, before this) */
	if (spec->source && !spec->commit)
		rc = import_source(spec, s->state_dir, 3600, 0);
	if (!rc && !strcmp(spec->type, "releases")) {
		/* releases, which the worker's APT knows of; the tags of
		 * the commit level are looked up once the releases are */
		if (spec->repo)
			rc = open_repo(s, spec->repo, &repo);
		if (!rc && spec->commit_recipe)
			rc = recipe_key(s, spec->commit_recipe, key);
		if (rc)
			goto out;
		goto known;
	}
	if (!rc && !spec->repo)
		rc = err_set(ERR_INPUT, "the job names no repository");
	if (!rc)
		rc = open_repo(s, spec->repo, &repo);
	if (rc)
		goto out;
#define RESOLVE(field)                                                         \
	do {                                                                   \
		if ((rc = gu_resolve(repo, field, &oid)))                      \
			goto out;                                              \
		gu_oid_hex(hex, &oid);                                         \
		free(field);                                                   \
		if (!(field = strdup(hex))) {                                  \
			rc = err_set(ERR_NOMEM, "out of memory");              \
			goto out;                                              \
		}                                                              \
	} while (0)
	if (spec->bad)
		RESOLVE(spec->bad);
	if (spec->commit)
		RESOLVE(spec->commit);
	for (i = 0; i < spec->ngood; i++)
		RESOLVE(spec->good[i]);
#undef RESOLVE
known:
	if (spec->recipe && (rc = recipe_key(s, spec->recipe, key)))
		goto out;
	if (!(*canon = job_spec_dump(spec)))
		rc = err_set(ERR_NOMEM, "out of memory");
out:
	gu_close(repo);
	return rc;
}

/* What only bisectd sets is not taken from a request. */
static int requested(const struct job_spec *spec)
{
	if (spec->releases_job || spec->answers)
		return err_set(ERR_INPUT, "'%s' is set by bisectd only",
			       spec->answers ? "answers" : "releases_job");
	return 0;
}

int sched_submit(struct sched *s, const char *body, size_t len,
		 const struct sched_verdict *known, size_t nknown,
		 const char *owner, long long *id)
{
	struct job_spec spec;
	char *canon = NULL;
	size_t i;
	int rc;

	rc = job_spec_parse(&spec, body, len);
	if (rc)
		return rc;
	rc = requested(&spec);
	if (rc || (rc = resolve_spec(s, &spec, &canon)))
		goto out;
	if ((rc = store_begin(s->store)))
		goto out;
	rc = store_job_insert(s->store, id, spec.type, JOB_QUEUED, canon,
			      spec.callback, owner);
	for (i = 0; i < nknown && !rc; i++) {
		char *res = util_fmt("{\"verdict\":\"%s\",\"title\":\"\","
				     "\"role\":\"replay\"}",
				     known[i].verdict);
		long long sid;

		rc = res ? store_step_insert(s->store, &sid, *id, known[i].hex,
					     "replay", 0, 0, NULL)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = store_step_done(s->store, sid, known[i].verdict,
					     res, 0);
		free(res);
	}
	if (rc) {
		store_rollback(s->store);
		goto out;
	}
	rc = store_commit(s->store);
	if (!rc)
		rc = sched_tick(s, *id);
out:
	free(canon);
	job_spec_release(&spec);
	return rc;
}

int sched_needs_fetch(const char *body, size_t len)
{
	struct job_spec spec;
	int yes;

	if (job_spec_parse(&spec, body, len))
		return 0;
	yes = (spec.repo && strstr(spec.repo, "://")) ||
	      (spec.source && !spec.commit);
	job_spec_release(&spec);
	return yes;
}

char *sched_fetch_key(const char *body, size_t len)
{
	struct job_spec spec;
	char *key = NULL;

	if (job_spec_parse(&spec, body, len))
		return NULL;
	if (spec.repo && strstr(spec.repo, "://"))
		key = strdup(spec.repo);
	else if (spec.source)
		key = util_fmt("source %s", spec.source);
	job_spec_release(&spec);
	return key;
}

int sched_submit_fetching(struct sched *s, const char *body, size_t len,
			  const char *owner, long long *id)
{
	struct job_spec spec;
	char *canon;
	int rc = job_spec_parse(&spec, body, len);

	if (rc)
		return rc;
	if ((rc = requested(&spec))) {
		job_spec_release(&spec);
		return rc;
	}
	canon = job_spec_dump(&spec);
	rc = canon ? store_job_insert(s->store, id, spec.type, JOB_FETCHING,
				      canon, spec.callback, owner)
		   : err_set(ERR_NOMEM, "out of memory");
	free(canon);
	job_spec_release(&spec);
	return rc;
}

int sched_fetched(struct sched *s, long long id, const char *body, size_t len,
		  const char *fetch_error)
{
	struct job_spec spec;
	char *canon = NULL, why[1024];
	int rc;

	if (fetch_error)
		snprintf(why, sizeof(why), "%s", fetch_error);
	else if ((rc = job_spec_parse(&spec, body, len)) == 0) {
		rc = resolve_spec(s, &spec, &canon);
		job_spec_release(&spec);
		if (!rc) {
			rc = store_job_fetched(s->store, id, canon);
			free(canon);
			if (rc == ERR_NOTFOUND)
				return 0; /* cancelled while it was fetched */
			return rc ? rc : sched_tick(s, id);
		}
		snprintf(why, sizeof(why), "%s", err_last());
	} else
		snprintf(why, sizeof(why), "%s", err_last());
	/* no repository, no such revision: the job cannot start */
	rc = store_job_end(s->store, id, JOB_FAILED, "error", NULL, why);
	return rc < 0 ? rc : 0;
}

/* --- planning ------------------------------------------------------------ */

struct plan {
	struct sched *s;
	struct jobc *jc;
	struct store_step *steps;
	size_t nsteps;
	int slots;  /* steps this job may have running */
	int active; /* queued or leased steps */
	int round;  /* the round a step queued now belongs to */
	int ended;
	char why[256]; /* why_of()'s answer */
	/* kernel mode without spec.failure: the bad endpoint's failure,
	 * as title_key() gives it, or "" until it is known */
	char target[256];
	char *owner;	     /* the job's submitter, for a job it leads to */
	long long follow_up; /* a job made now, to be planned next */
};

struct cstat {
	enum verdict verdict;	/* the latest good/bad/skip, or NONE */
	unsigned fails, passes; /* runs of good and bad steps */
	int other;		/* a failure other than the target */
	int infra;		/* infra verdicts */
	int abort;		/* an infra verdict that must not be retried */
	int pending;		/* queued or leased steps */
	char title[256];	/* of the last infra result */
	char why[256];		/* ": title" of the verdict, or "" */
};

/*
 * What stays the same when a failure repeats in another build: its kind
 * and function, without addresses and offsets (every 0x... number).
 */
static void title_key(char *out, size_t size, const char *title)
{
	size_t k = 0;

	while (*title && k + 1 < size) {
		if (title[0] == '0' && title[1] == 'x') {
			for (title += 2; isxdigit((unsigned char)*title);)
				title++;
			continue;
		}
		out[k++] = *title++;
	}
	out[k] = '\0';
}

/* The target failure of a kernel bisection: the bad endpoint's. */
static void find_target(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	size_t i;

	p->target[0] = '\0';
	if (!sp->recipe || p->jc->have_failure || !sp->bad)
		return;
	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		char *t;

		if (st->state != STEP_DONE || strcmp(st->hex, sp->bad) ||
		    strcmp(st->role, "endpoint") || strcmp(st->verdict, "bad"))
			continue;
		t = st->result ? job_json_string(st->result, "title") : NULL;
		if (t && *t)
			title_key(p->target, sizeof(p->target), t);
		free(t);
		if (p->target[0])
			return;
	}
}

/*
 * A step's verdict as the bisection takes it: a failure other than the
 * target (spec.failure, or in kernel mode the bad endpoint's failure) is
 * another bug, evidence of neither (it may hide the target), and counts
 * as a skip.  *other is set for those.
 */
/* 1 when a failure's title is the target failure (or there is none). */
static int is_target(const struct plan *p, const char *title)
{
	char key[256];

	if (p->jc->have_failure)
		return !regexec(&p->jc->failure, title, 0, NULL, 0);
	if (!p->target[0])
		return 1;
	title_key(key, sizeof(key), title);
	return !strcmp(key, p->target);
}

/* At most this many runs of one step are read from its result. */
#define MAX_STEP_RUNS 100

static enum verdict step_verdict(const struct plan *p,
				 const struct store_step *st, int *other)
{
	enum verdict v = verdict_parse(st->verdict);
	struct job_run runs[MAX_STEP_RUNS];
	size_t n, i;
	char *title;
	int match = 0;

	*other = 0;
	if (v != VERDICT_BAD || (!p->jc->have_failure && !p->target[0]) ||
	    !strcmp(st->role, "replay"))
		return v; /* a replayed "bad" is the user's word: the target */
	/* each run has its own title: bad when one of them is the target */
	n = st->result ? job_json_runs(st->result, runs, MAX_STEP_RUNS) : 0;
	for (i = 0; i < n && !match; i++)
		match = !strcmp(runs[i].verdict, "bad") &&
			is_target(p, runs[i].title);
	if (n == 0) {
		title = st->result ? job_json_string(st->result, "title")
				   : NULL;
		match = is_target(p, title ? title : "");
		free(title);
	}
	if (match)
		return v;
	*other = 1;
	return VERDICT_SKIP;
}

/*
 * The runs of a done step: a kernel step's result lists every run, and
 * a run that failed otherwise than the target is neither a failure nor
 * a pass; older results count them (a bad step failed runs_failed of
 * its runs); a command is one run.
 */
static void step_runs(const struct plan *p, const struct store_step *st,
		      enum verdict v, unsigned *fails, unsigned *passes)
{
	struct job_run r[MAX_STEP_RUNS];
	size_t n = st->result ? job_json_runs(st->result, r, MAX_STEP_RUNS) : 0;
	long long runs = st->result ? job_json_int(st->result, "runs", 1) : 1;
	long long failed = v == VERDICT_BAD ? 1 : 0;

	if (n > 0) {
		size_t i;

		*fails = *passes = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(r[i].verdict, "good"))
				(*passes)++;
			else if (!strcmp(r[i].verdict, "bad") &&
				 is_target(p, r[i].title))
				(*fails)++;
		return;
	}
	if (v == VERDICT_BAD && st->result)
		failed = job_json_int(st->result, "runs_failed", 1);
	if (runs < 1 || failed < 0 || failed > runs)
		runs = 1, failed = v == VERDICT_BAD;
	*fails = (unsigned)failed;
	*passes = (unsigned)(runs - failed);
}

/*
 * The culprit's checks (verification): "revert" runs the bad commit with
 * the culprit reverted, "noop" builds a parent to compare its image with
 * the culprit's.  Their steps name a commit but are not evidence about
 * it: the engine and the cache never see them.
 */
static int check_role(const char *role)
{
	return !strcmp(role, "revert") || !strcmp(role, "noop");
}

/*
 * What the steps on hex say: those of the bisection (role NULL) or of one
 * of the checks.
 */
static void role_status(const struct plan *p, const char *hex, const char *role,
			struct cstat *cs)
{
	size_t i;

	memset(cs, 0, sizeof(*cs));
	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		enum verdict v;
		int other;

		if (strcmp(st->hex, hex) ||
		    (role ? strcmp(st->role, role) != 0 : check_role(st->role)))
			continue;
		if (st->state == STEP_QUEUED || st->state == STEP_LEASED) {
			cs->pending++;
			continue;
		}
		if (st->state != STEP_DONE)
			continue;
		v = step_verdict(p, st, &other);
		cs->other |= other;
		if (v == VERDICT_INFRA) {
			char *t = st->result
					  ? job_json_string(st->result, "title")
					  : NULL;

			cs->infra++;
			cs->abort |= st->result &&
				     job_json_true(st->result, "abort");
			snprintf(cs->title, sizeof(cs->title), "%s",
				 t ? t : "");
			free(t);
		} else if (v != VERDICT_NONE) {
			char *t = st->result
					  ? job_json_string(st->result, "title")
					  : NULL;
			unsigned f = 0, ps = 0;

			if (v == VERDICT_GOOD || v == VERDICT_BAD)
				step_runs(p, st, v, &f, &ps);
			cs->fails += f;
			cs->passes += ps;
			cs->verdict = v;
			snprintf(cs->why, sizeof(cs->why), "%s%s",
				 t && *t ? ": " : "", t ? t : "");
			free(t);
		}
	}
}

static void commit_status(const struct plan *p, const char *hex,
			  struct cstat *cs)
{
	role_status(p, hex, NULL, cs);
}

static int end_job(struct plan *p, int state, const char *result,
		   const char *culprit, const char *reason)
{
	int rc = store_job_end(p->s->store, p->jc->id, state, result, culprit,
			       reason);

	if (rc < 0)
		return rc;
	p->ended = 1;
	return store_job_cancel_steps(p->s->store, p->jc->id);
}

static int end_failed(struct plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int end_failed(struct plan *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return end_job(p, JOB_FAILED, "error", NULL, msg);
}

/* The job cannot go on for want of a verdict: the machine failed. */
static int end_infra(struct plan *p, const char *hex, const struct cstat *cs)
{
	char msg[1024];

	if (cs->abort)
		snprintf(msg, sizeof(msg), "%.12s: %s", hex, cs->title);
	else
		snprintf(msg, sizeof(msg),
			 "infrastructure failure testing %.12s twice%s%s", hex,
			 cs->title[0] ? ": " : "", cs->title);
	return end_job(p, JOB_FAILED, "infra", NULL, msg);
}

/*
 * The result cache's key.  A kernel is a function of its tree, recipe and
 * test, so a kernel step's result serves any commit with the same tree.
 * A command may look at the commit itself (BISECT_COMMIT, git log), as
 * git bisect run lets it: its results are keyed by the commit.
 */
static int cache_key(struct plan *p, const char *hex, char *out)
{
	const struct job_spec *sp = &p->jc->spec;
	char tree[GU_HEXSZ + 1];
	struct gu_oid oid;
	char *text;
	int rc;

	if (!strcmp(sp->type, "releases")) {
		/* not cached: Debian's archive changes under the same words */
		*out = '\0';
		return 0;
	}
	if (sp->command)
		snprintf(tree, sizeof(tree), "%s", hex);
	else if ((rc = gu_oid_parse(&oid, hex)) ||
		 (rc = gu_tree_hex(p->jc->repo, &oid, tree)))
		return rc;
	/* not the runs: what is kept is every run, and they add up */
	/* (another config: a key of its own; keys without one as before) */
	text = util_fmt("bisectd-step-3\n%s\n%s\n%s\n%s\n%s\n%s%s%s%s",
			sp->command ? "command" : "kernel", tree,
			p->jc->recipe_key, sp->command ? sp->command : "",
			sp->test ? sp->test : "",
			sp->base_release ? "base_release " : "",
			sp->base_release ? sp->base_release : "",
			sp->base_release ? "-" : "",
			sp->base_release ? sp->flavour : "");
	if (!text)
		return err_set(ERR_NOMEM, "out of memory");
	if (sp->npatches) {
		/* the tree that is built is the patched one */
		struct digest *d = digest_new();
		size_t i;

		if (!d) {
			free(text);
			return err_set(ERR_NOMEM, "out of memory");
		}
		digest_update(d, text, strlen(text));
		for (i = 0; i < sp->npatches; i++) {
			digest_update(d, "\napply\n", 7);
			digest_update(d, sp->patch_texts[i],
				      strlen(sp->patch_texts[i]));
		}
		digest_finish(d, out);
	} else {
		digest_sha256_hex(out, text, strlen(text));
	}
	free(text);
	return 0;
}

/* Append a step to the plan's copy, so that later decisions see it. */
static int remember(struct plan *p, long long id)
{
	struct store_step *n =
		realloc(p->steps, (p->nsteps + 1) * sizeof(*p->steps));

	if (!n)
		return err_set(ERR_NOMEM, "out of memory");
	p->steps = n;
	return store_step_get(p->s->store, id, &p->steps[p->nsteps++]);
}

/*
 * Queue a step for hex, or answer it from the cache.  Returns the cached
 * verdict (> 0), 0 when queued, < 0 on error.
 */
static int enqueue(struct plan *p, const char *hex, const char *role,
		   long long candidates)
{
	char key[DIGEST_HEXSZ + 1], verdict[8], *result = NULL;
	struct cstat cs;
	long long id;
	int rc;

	if ((rc = cache_key(p, hex, key)))
		return rc;
	/* a commit run again in this job wants a new run, not the cache's */
	commit_status(p, hex, &cs);
	rc = cs.verdict == VERDICT_NONE
		     ? store_cache_get(p->s->store, key, verdict, &result)
		     : ERR_NOTFOUND;
	if (rc && rc != ERR_NOTFOUND)
		return rc;
	if (result) {
		/* fewer runs than this job asks for: run it, and add them */
		int n = step_result_runs(result);

		if (n > 0 && n < p->jc->spec.runs) {
			free(result);
			result = NULL;
		}
	}
	rc = store_step_insert(p->s->store, &id, p->jc->id, hex, role, p->round,
			       candidates, key);
	if (!rc && result)
		rc = store_step_done(p->s->store, id, verdict, result, 1);
	free(result);
	if (!rc)
		rc = remember(p, id);
	if (rc)
		return rc;
	if (!p->steps[p->nsteps - 1].verdict[0]) {
		p->active++;
		return 0;
	}
	return (int)verdict_parse(verdict);
}

/*
 * The verdict on hex for a check, queueing a step when there is none and
 * a slot is free.  VERDICT_NONE while waiting; < 0 when the job ended.
 */
static int need(struct plan *p, const char *hex, const char *role)
{
	struct cstat cs;

	commit_status(p, hex, &cs);
	if (cs.verdict != VERDICT_NONE)
		return cs.verdict;
	if (cs.infra >= 2 || cs.abort) {
		end_infra(p, hex, &cs);
		return -1;
	}
	if (cs.pending || p->active >= p->slots)
		return VERDICT_NONE;
	return enqueue(p, hex, role, 0);
}

static const char *why_of(struct plan *p, const char *hex);

/* A test or build job: one step, whose verdict ends the job. */
static int plan_test(struct plan *p)
{
	int build = !strcmp(p->jc->spec.type, "build");
	int v = need(p, p->jc->spec.commit, build ? "build" : "test");
	const char *result, *why;

	if (v <= 0)
		return v < 0 && !p->ended ? v : 0;
	result = verdict_name((enum verdict)v);
	if (build && v == VERDICT_SKIP) {
		/* the patched tree did not build or package */
		why = why_of(p, p->jc->spec.commit);
		return end_job(p, JOB_FAILED, "build failed", NULL,
			       *why ? why + 2
				    : "the patched tree did not "
				      "build") < 0
			       ? ERR_INFRA
			       : 0;
	}
	if (build) /* good: built and booted; bad: the boot failed */
		result = v == VERDICT_GOOD ? "built" : "boot failed";
	return end_job(p, JOB_DONE, result, NULL, NULL) < 0 ? ERR_INFRA : 0;
}

/*
 * A releases job: one step, the whole release-level bisection, run by a
 * worker (steprun.c); bad when it found the first bad release, skip
 * when the answer is ambiguous.  It has no commit: the step's is
 * RELEASES_HEX.
 */
#define RELEASES_HEX "0000000000000000000000000000000000000000"

/* The bisection a releases step found (its result's "releases"). */
static json_t *found_releases(const struct plan *p)
{
	size_t i;

	for (i = p->nsteps; i-- > 0;) {
		const struct store_step *st = &p->steps[i];
		json_t *r;

		if (st->state != STEP_DONE || !st->result ||
		    strcmp(st->hex, RELEASES_HEX) || strcmp(st->verdict, "bad"))
			continue;
		r = json_loads(st->result, 0, NULL);
		if (json_is_object(json_object_get(r, "releases"))) {
			json_t *rel =
				json_incref(json_object_get(r, "releases"));

			json_decref(r);
			return rel;
		}
		json_decref(r);
	}
	return NULL;
}

/*
 * The commit level after a releases job found its first bad release,
 * when the job names a repository and the two releases are different
 * upstream versions: a bisect job of its own between their tags (vX.Y.Z)
 * there, with the job's test, runs, confidence and webhook, and either
 * commit_recipe or the recipe with the last good release's config.  The
 * job's outcome gets its id ("commit_level_job") or why there is none
 * ("commit_level_error").
 */
static int commit_level(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	json_t *rel = found_releases(p), *req = NULL, *out = NULL;
	const char *lg, *gu, *bu;
	struct gu_repo *repo = NULL;
	struct job_spec f;
	char *body = NULL, *canon = NULL, *text = NULL, why[512] = "";
	char hex[2][GU_HEXSZ + 1];
	int rc = 0, k;

	lg = json_string_value(json_object_get(rel, "last_good_release"));
	gu = json_string_value(json_object_get(rel, "last_good_upstream"));
	bu = json_string_value(json_object_get(rel, "first_bad_upstream"));
	if (!lg || !gu || !bu || !strcmp(gu, bu))
		goto out; /* one upstream version: Debian's patches differ */
	if (open_repo(p->s, sp->repo, &repo)) {
		snprintf(why, sizeof(why), "%s", err_last());
		goto record;
	}
	for (k = 0; k < 2; k++) {
		char tag[64];
		struct gu_oid oid;

		snprintf(tag, sizeof(tag), "refs/tags/v%s", k ? bu : gu);
		if (gu_resolve(repo, tag, &oid)) {
			snprintf(why, sizeof(why), "%s has no tag v%s",
				 sp->repo, k ? bu : gu);
			goto record;
		}
		gu_oid_hex(hex[k], &oid);
	}
	req = json_pack(
		"{s:s, s:s, s:[s], s:s, s:s, s:i, s:f, s:i, s:I}", "type",
		"bisect", "repo", sp->repo, "good", hex[0], "bad", hex[1],
		"recipe", sp->commit_recipe ? sp->commit_recipe : sp->recipe,
		"runs", sp->runs, "confidence", sp->confidence, "max_workers",
		sp->max_workers, "releases_job", (json_int_t)p->jc->id);
	if (req && !sp->commit_recipe) {
		json_object_set_new(req, "base_release", json_string(lg));
		json_object_set_new(req, "flavour", json_string(sp->flavour));
	}
	if (req && sp->test)
		json_object_set_new(req, "test", json_string(sp->test));
	if (req && sp->callback)
		json_object_set_new(req, "callback", json_string(sp->callback));
	if (req && sp->callback_secret)
		json_object_set_new(req, "callback_secret",
				    json_string(sp->callback_secret));
	body = req ? json_dumps(req, JSON_COMPACT) : NULL;
	if (!body) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (job_spec_parse(&f, body, strlen(body))) {
		snprintf(why, sizeof(why), "%s", err_last());
		goto record;
	}
	canon = job_spec_dump(&f);
	rc = canon ? store_job_insert(p->s->store, &p->follow_up, "bisect",
				      JOB_QUEUED, canon, f.callback, p->owner)
		   : err_set(ERR_NOMEM, "out of memory");
	job_spec_release(&f);
	if (rc)
		goto out;
record:
	out = *why ? json_pack("{s:s}", "commit_level_error", why)
		   : json_pack("{s:I}", "commit_level_job",
			       (json_int_t)p->follow_up);
	text = out ? json_dumps(out, JSON_COMPACT) : NULL;
	rc = text ? store_job_set_outcome(p->s->store, p->jc->id, text)
		  : err_set(ERR_NOMEM, "out of memory");
out:
	gu_close(repo);
	json_decref(rel);
	json_decref(req);
	json_decref(out);
	free(body);
	free(canon);
	free(text);
	return rc;
}

/* Where a manual releases job stands, from its steps (oldest first). */
struct manual_at {
	const struct store_step *last; /* the last releases step that ran */
	size_t answers, infra;	       /* since that one */
	int pending;		       /* a releases step not done yet */
	int abort;		       /* an infra failure not to retry */
	char title[256];	       /* of the last infra failure */
};

static void manual_at(const struct store_step *steps, size_t n,
		      struct manual_at *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		const struct store_step *st = &steps[i];

		if (!strcmp(st->role, "answer") && st->state == STEP_DONE) {
			m->answers++;
		} else if (strcmp(st->role, "releases") ||
			   st->state == STEP_CANCELLED) {
			continue;
		} else if (st->state != STEP_DONE) {
			m->pending = 1;
		} else if (!strcmp(st->verdict, "infra")) {
			char *t = job_json_string(st->result, "title");

			m->infra++;
			m->abort |= job_json_true(st->result, "abort");
			snprintf(m->title, sizeof(m->title), "%s", t ? t : "");
			free(t);
		} else {
			m->last = st;
			m->answers = m->infra = 0;
		}
	}
}

/* 1 when the job waits for its submitter's answer on m's last step. */
static int manual_waits(const struct manual_at *m)
{
	return !m->pending && m->last && !strcmp(m->last->verdict, "good") &&
	       !m->answers && !m->infra;
}

/*
 * A manual releases job: nothing is booted.  Each releases step names
 * the release to install next (its verdict good: waiting), the
 * submitter answers (an "answer" step, sched_answer), and the next
 * releases step takes every answer so far, until one names the first
 * bad release (bad) or finds none (skip).  A step that failed for the
 * worker's machine is tried once more.
 */
static int plan_manual(struct plan *p)
{
	struct manual_at m;
	int rc;
	long long id;

	manual_at(p->steps, p->nsteps, &m);
	if (m.pending)
		return 0; /* the worker has it */
	if (m.abort || m.infra >= 2)
		return end_job(p, JOB_FAILED, m.abort ? "error" : "infra", NULL,
			       m.title) < 0
			       ? ERR_INFRA
			       : 0;
	if (m.last && !strcmp(m.last->verdict, "bad"))
		return end_job(p, JOB_DONE, "found", NULL, NULL) < 0 ? ERR_INFRA
								     : 0;
	if (m.last && !strcmp(m.last->verdict, "skip")) {
		char *t = job_json_string(m.last->result, "title");

		rc = end_job(p, JOB_DONE, "ambiguous", NULL, t);
		free(t);
		return rc < 0 ? ERR_INFRA : 0;
	}
	if (manual_waits(&m))
		return 0; /* for the submitter's answer */
	rc = store_step_insert(p->s->store, &id, p->jc->id, RELEASES_HEX,
			       "releases", p->round, 0, "");
	if (!rc)
		p->active++;
	return rc;
}

static int plan_releases(struct plan *p)
{
	struct cstat cs;
	const char *why;
	int v;

	if (p->jc->spec.manual)
		return plan_manual(p);
	commit_status(p, RELEASES_HEX, &cs);
	if (cs.verdict == VERDICT_NONE && (cs.abort || cs.infra >= 2))
		return end_job(p, JOB_FAILED, cs.abort ? "error" : "infra",
			       NULL, cs.title) < 0
			       ? ERR_INFRA
			       : 0;
	v = need(p, RELEASES_HEX, "releases");
	if (v <= 0)
		return v < 0 && !p->ended ? v : 0;
	why = why_of(p, RELEASES_HEX);
	if (v == VERDICT_BAD) {
		int rc = p->jc->spec.repo ? commit_level(p) : 0;

		if (rc)
			return rc;
		return end_job(p, JOB_DONE, "found", NULL, NULL) < 0 ? ERR_INFRA
								     : 0;
	}
	return end_job(p, JOB_DONE, "ambiguous", NULL, *why ? why + 2 : NULL) <
			       0
		       ? ERR_INFRA
		       : 0;
}

/*
 * The checks before bisecting: merge bases and endpoints.  Fills goods
 * with the good commits to bisect from; returns 1 when all checks have
 * verdicts, 0 while waiting, < 0 when the job ended or failed.
 */
/* ": title" of the verdict on hex, for messages. */
static const char *why_of(struct plan *p, const char *hex)
{
	struct cstat cs;

	commit_status(p, hex, &cs);
	memcpy(p->why, cs.why, sizeof(p->why));
	return p->why;
}

/*
 * The bad endpoint when bisecting to a confidence: run until it failed 3
 * times or ran endpoint_runs times, so that the engine learns how often
 * the failure shows.  Its verdict (bad when it failed at all), NONE while
 * waiting, < 0 when the job ended.
 */
static int other_failure(const struct plan *p, const char *hex)
{
	struct cstat cs;

	commit_status(p, hex, &cs);
	return cs.other;
}

static int need_bad_endpoint(struct plan *p)
{
	const struct job_spec *sp = &p->jc->spec;
	struct cstat cs;
	int rc;

	for (;;) {
		commit_status(p, sp->bad, &cs);
		if (cs.fails >= 3 ||
		    cs.fails + cs.passes >= (unsigned)sp->endpoint_runs)
			return cs.fails ? VERDICT_BAD : VERDICT_GOOD;
		if (cs.verdict == VERDICT_SKIP)
			return VERDICT_SKIP;
		if (cs.infra >= 2 || cs.abort) {
			end_infra(p, sp->bad, &cs);
			return -1;
		}
		if (cs.pending || p->active >= p->slots)
			return VERDICT_NONE;
		rc = enqueue(p, sp->bad, "endpoint", 0);
		if (rc <= 0)
			return rc;
		/* answered from the cache: count again */
	}
}

static int plan_checks(struct plan *p, char goods[][GU_HEXSZ + 1],
		       size_t *ngoods)
{
	const struct job_spec *sp = &p->jc->spec;
	struct gu_oid bad, g, mb;
	char mhex[GU_HEXSZ + 1];
	int waiting = 0, v, rc;
	size_t i;

	*ngoods = 0;
	gu_oid_parse(&bad, sp->bad);
	if (sp->check_endpoints) {
		v = sp->confidence > 0 ? need_bad_endpoint(p)
				       : need(p, sp->bad, "endpoint");
		if (v < 0)
			return v;
		if (v == VERDICT_SKIP && other_failure(p, sp->bad))
			return end_failed(p,
					  "the bad commit %.12s fails, but not "
					  "with the failure '%s'%s",
					  sp->bad, sp->failure,
					  why_of(p, sp->bad));
		if (v == 0)
			waiting = 1;
		else if (v != VERDICT_BAD && sp->confidence > 0 &&
			 v == VERDICT_GOOD)
			return end_failed(p,
					  "the bad commit %.12s does not fail "
					  "in %d runs: nothing to bisect",
					  sp->bad, sp->endpoint_runs);
		else if (v != VERDICT_BAD)
			return end_failed(p,
					  "the bad commit %.12s does not fail: "
					  "nothing to bisect (verdict %s%s)",
					  sp->bad,
					  verdict_name((enum verdict)v),
					  why_of(p, sp->bad));
	}
	for (i = 0; i < sp->ngood; i++) {
		gu_oid_parse(&g, sp->good[i]);
		if (gu_oid_equal(&g, &bad))
			return end_failed(p,
					  "good and bad are the same commit "
					  "%.12s",
					  sp->bad);
		if (sp->check_endpoints) {
			v = need(p, sp->good[i], "endpoint");
			if (v < 0)
				return v;
			if (v == 0)
				waiting = 1;
			else if (v != VERDICT_GOOD)
				return end_failed(
					p,
					"the good commit %.12s does not pass "
					"(verdict %s%s)",
					sp->good[i],
					verdict_name((enum verdict)v),
					why_of(p, sp->good[i]));
		}
		rc = gu_is_ancestor(p->jc->repo, &g, &bad);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			snprintf(goods[(*ngoods)++], GU_HEXSZ + 1, "%s",
				 sp->good[i]);
			continue;
		}
		rc = gu_merge_base(p->jc->repo, &g, &bad, &mb);
		if (rc == ERR_NOTFOUND)
			return end_failed(p,
					  "good commit %.12s shares no history "
					  "with bad commit %.12s",
					  sp->good[i], sp->bad);
		if (rc)
			return rc;
		if (gu_oid_equal(&mb, &bad))
			return end_failed(
				p,
				"bad commit %.12s is an ancestor of "
				"good commit %.12s: did you swap good "
				"and bad?",
				sp->bad, sp->good[i]);
		gu_oid_hex(mhex, &mb);
		v = need(p, mhex, "merge-base");
		if (v < 0)
			return v;
		if (v == 0)
			waiting = 1;
		else if (v == VERDICT_BAD)
			return end_failed(p,
					  "the merge base %.12s is bad: the "
					  "regression was fixed between %.12s "
					  "and %.12s, not introduced",
					  mhex, mhex, sp->good[i]);
		else if (v == VERDICT_GOOD)
			snprintf(goods[(*ngoods)++], GU_HEXSZ + 1, "%s", mhex);
		/* a skipped merge base adds no good commit, as in git */
	}
	return !waiting;
}

static int load_graph(struct plan *p, char goods[][GU_HEXSZ + 1], size_t n)
{
	struct jobc *jc = p->jc;
	struct gu_oid bad, g[JOB_MAX_GOODS * 2];
	size_t i;
	int same = jc->have_graph && jc->ngraph_goods == n;

	for (i = 0; same && i < n; i++)
		same = !strcmp(jc->graph_goods[i], goods[i]);
	if (same)
		return 0;
	gu_graph_release(&jc->graph);
	jc->have_graph = 0;
	if (!jc->graph_goods &&
	    !(jc->graph_goods =
		      calloc(JOB_MAX_GOODS * 2, sizeof(*jc->graph_goods))))
		return -1;
	gu_oid_parse(&bad, jc->spec.bad);
	for (i = 0; i < n; i++) {
		gu_oid_parse(&g[i], goods[i]);
		memcpy(jc->graph_goods[i], goods[i], GU_HEXSZ + 1);
	}
	jc->ngraph_goods = n;
	if (gu_graph_load(&jc->graph, jc->repo, &bad, g, n))
		return -1;
	jc->have_graph = 1;
	return 0;
}

static struct engine *make_engine(struct plan *p)
{
	const struct gu_graph *g = &p->jc->graph;
	struct engine *e;
	struct gu_oid bad;
	size_t i;
	long idx;

	if (engine_new(&e, g->n))
		return NULL;
	for (i = 0; i < g->nedges; i++)
		engine_add_parent(e, g->edge_child[i], g->edge_parent[i]);
	gu_oid_parse(&bad, p->jc->spec.bad);
	engine_set_bad(e, (uint32_t)gu_graph_find(g, &bad));
	engine_set_confidence(e, p->jc->spec.confidence,
			      (unsigned long)p->jc->spec.max_runs);
	/* without the endpoint's runs, the user's word that it fails */
	if (!p->jc->spec.check_endpoints)
		engine_mark(e, (uint32_t)gu_graph_find(g, &bad), VERDICT_BAD);
	for (i = 0; i < p->nsteps; i++) {
		struct gu_oid oid;
		int other;
		enum verdict v = step_verdict(p, &p->steps[i], &other);
		unsigned f, ps;

		if (p->steps[i].state != STEP_DONE || v == VERDICT_INFRA ||
		    v == VERDICT_NONE || check_role(p->steps[i].role))
			continue;
		gu_oid_parse(&oid, p->steps[i].hex);
		idx = gu_graph_find(g, &oid);
		if (idx < 0)
			continue;
		if (v == VERDICT_GOOD || v == VERDICT_BAD) {
			step_runs(p, &p->steps[i], v, &f, &ps);
			engine_observe(e, (uint32_t)idx, f, ps);
		} else {
			engine_mark(e, (uint32_t)idx, v);
		}
	}
	return e;
}

/*
 * The checks of a culprit that the engine found (kernel mode, with a
 * confidence), after its own re-runs of the culprit and its parents:
 *
 *   noop    the culprit's kernel image against each parent's (a "noop"
 *           step builds a parent whose image no step has reported; the
 *           kernel cache makes that cheap).  Builds are reproducible, so
 *           an identical image means the culprit changes nothing that
 *           runs, and the answer is most likely wrong.
 *   revert  the bad commit with the culprit reverted ("revert" steps),
 *           run until it passed as often as the learned failure rate
 *           needs to show a failure at the confidence asked for; one
 *           target failure rejects the culprit.  A revert that does not
 *           apply, build or boot cleanly proves nothing either way.
 */
struct verification {
	int noop;	  /* 1: the image equals a parent's */
	int noop_checked; /* every parent's image compared */
	char noop_parent[GU_HEXSZ + 1];
	int parent_fails; /* a parent's noop build failed too */
	char failing_parent[GU_HEXSZ + 1];
	int revert;	      /* 1 passed, -1 failed, 0 not shown */
	unsigned revert_runs; /* passing runs of the revert */
	char revert_why[256]; /* why it proves nothing */
};

/* The image SHA-256 of a done step on hex (role NULL: any but revert). */
static int image_of(const struct plan *p, const char *hex,
		    char out[DIGEST_HEXSZ + 1])
{
	size_t i;

	for (i = 0; i < p->nsteps; i++) {
		const struct store_step *st = &p->steps[i];
		char *h;

		if (strcmp(st->hex, hex) || st->state != STEP_DONE ||
		    !st->result || !strcmp(st->role, "revert"))
			continue;
		h = job_json_string(st->result, "image_sha256");
		if (h && strlen(h) == DIGEST_HEXSZ) {
			memcpy(out, h, DIGEST_HEXSZ + 1);
			free(h);
			return 1;
		}
		free(h);
	}
	return 0;
}

/* Queue a check's step: never from the cache, never into it. */
static int enqueue_check(struct plan *p, const char *hex, const char *role)
{
	long long id;
	int rc;

	if (p->active >= p->slots)
		return 0;
	rc = store_step_insert(p->s->store, &id, p->jc->id, hex, role, p->round,
			       1, "");
	if (!rc)
		rc = remember(p, id);
	if (!rc)
		p->active++;
	return rc;
}

/* 1 when the checks are done (v filled), 0 while they run, < 0 error. */
static int verify_culprit(struct plan *p, struct engine *e, uint32_t pick,
			  struct verification *v)
{
	const struct job_spec *sp = &p->jc->spec;
	char hex[GU_HEXSZ + 1], img[DIGEST_HEXSZ + 1];
	struct gu_oid c, par[8];
	double q = engine_failure_rate(e), conf = sp->confidence;
	unsigned need_runs = 1;
	int n, i, waiting = 0, rc, have_img;
	struct cstat cs;

	memset(v, 0, sizeof(*v));
	if (!sp->recipe || sp->confidence <= 0)
		return 1;
	gu_oid_hex(hex, &p->jc->graph.oids[pick]);
	c = p->jc->graph.oids[pick];
	have_img = image_of(p, hex, img);
	n = gu_parents(p->jc->repo, &c, par, 8);
	if (n < 0)
		return n;
	v->noop_checked = have_img;
	for (i = 0; i < n; i++) {
		char phex[GU_HEXSZ + 1], pimg[DIGEST_HEXSZ + 1];

		gu_oid_hex(phex, &par[i]);
		role_status(p, phex, "noop", &cs);
		if (cs.verdict == VERDICT_BAD && !v->parent_fails) {
			v->parent_fails = 1;
			memcpy(v->failing_parent, phex, sizeof(phex));
		}
		if (image_of(p, phex, pimg)) {
			if (have_img && !strcmp(img, pimg) && !v->noop) {
				v->noop = 1;
				memcpy(v->noop_parent, phex, sizeof(phex));
			}
			continue;
		}
		if (cs.pending) {
			waiting = 1;
		} else if (cs.verdict == VERDICT_NONE && !cs.infra) {
			if ((rc = enqueue_check(p, phex, "noop")) < 0)
				return rc;
			waiting = 1;
		} else {
			v->noop_checked = 0; /* the parent built no image */
		}
	}
	/* passes that a commit failing at rate q would fail at least once */
	if (q < 0.999) {
		double miss = q > 0.05 ? 1 - q : 0.95;

		while (need_runs < 10 && 1 - pow(miss, need_runs) < conf)
			need_runs++;
	}
	role_status(p, hex, "revert", &cs);
	v->revert_runs = cs.passes;
	if (cs.fails) {
		v->revert = -1;
	} else if (cs.verdict == VERDICT_SKIP || cs.infra >= 2) {
		snprintf(v->revert_why, sizeof(v->revert_why), "%s",
			 cs.infra >= 2 ? cs.title
			 : cs.why[0]   ? cs.why + 2
				       : "skipped");
	} else if (cs.passes >= need_runs) {
		v->revert = 1;
	} else if (cs.pending) {
		waiting = 1;
	} else {
		if ((rc = enqueue_check(p, hex, "revert")) < 0)
			return rc;
		waiting = 1;
	}
	return !waiting;
}

/* One sentence on the verification, for the reports. */
static void verification_text(struct buf *b, const struct job_spec *sp,
			      enum engine_state st,
			      const struct verification *v)
{
	if (st != ENGINE_FOUND) {
		buf_puts(b, "no culprit to verify");
		return;
	}
	if (sp->confidence <= 0) {
		buf_puts(b, "not verified: git's bisection (no confidence "
			    "asked for)");
		return;
	}
	if (v->noop)
		buf_printf(b,
			   "the culprit does not change the built kernel (its "
			   "image is the same as its parent %.12s's), so the "
			   "result is most likely wrong",
			   v->noop_parent);
	else if (v->revert < 0)
		buf_puts(b, "the bad commit with the culprit reverted still "
			    "fails: the culprit is not what brought the "
			    "failure in");
	else if (v->parent_fails)
		buf_printf(b,
			   "its parent %.12s fails too: the failure came in "
			   "earlier",
			   v->failing_parent);
	else
		buf_puts(b, "the culprit failed again and its parents passed");
	if (v->noop || v->revert < 0 || v->parent_fails || !sp->recipe)
		return;
	if (v->revert > 0)
		buf_printf(b,
			   "; the bad commit with it reverted passed %u "
			   "run%s",
			   v->revert_runs, v->revert_runs == 1 ? "" : "s");
	else
		buf_printf(b, "; not shown by a revert (%s)", v->revert_why);
	if (!v->noop_checked)
		buf_puts(b, "; its image was not compared with its parents'");
}

static int verification_failed(const struct verification *v)
{
	return v->noop || v->revert < 0 || v->parent_fails;
}

/*
 * What the bisection concluded and how sure it is, as JSON for the job's
 * outcome: the probability of the answer under the engine's model of an
 * intermittent failure (computed for git's bisection too), the learned
 * failure rate, whether the culprit was verified, and the likeliest
 * candidates.  NULL when out of memory; the caller frees.
 */
struct likely {
	uint32_t c;
	double p;
};

static int more_likely(const void *a, const void *b)
{
	double pa = ((const struct likely *)a)->p,
	       pb = ((const struct likely *)b)->p;

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

static char *outcome_json(struct plan *p, struct engine *e,
			  enum engine_state st, uint32_t pick,
			  const struct verification *v)
{
	const struct gu_graph *g = &p->jc->graph;
	const struct job_spec *sp = &p->jc->spec;
	struct likely *top = calloc(g->n ? g->n : 1, sizeof(*top));
	size_t ntop = 0, i, k;
	char hex[GU_HEXSZ + 1];
	struct buf b;
	char *out;

	if (!top)
		return NULL;
	/* the ten likeliest commits, most probable first */
	for (i = 0; i < g->n; i++) {
		top[ntop].c = (uint32_t)i;
		top[ntop].p = engine_probability(e, (uint32_t)i);
		ntop += top[ntop].p >= 0.001;
	}
	qsort(top, ntop, sizeof(*top), more_likely);
	if (ntop > 10)
		ntop = 10;
	buf_init(&b, 1 << 16);
	buf_printf(&b, "{\"confidence\":%.4f,\"target_confidence\":%.4f,",
		   st == ENGINE_FOUND ? engine_probability(e, pick)
		   : ntop	      ? top[0].p
				      : 0.0,
		   sp->confidence);
	buf_printf(&b,
		   "\"failure_rate\":%.4f,\"failure_rate_before\":%.4f,"
		   "\"intermittent\":%s,\"runs\":%lu,",
		   engine_failure_rate(e), engine_failure_rate_before(e),
		   engine_is_noisy(e) ? "true" : "false", engine_runs(e));
	{
		struct buf t;
		char *q;

		buf_init(&t, 4096);
		verification_text(&t, sp, st, v);
		q = json_quote(p->jc->have_failure ? sp->failure : p->target);
		if (q && (p->jc->have_failure || p->target[0]))
			buf_printf(&b, "\"target_failure\":%s,", q);
		free(q);
		q = json_quote(buf_str(&t));
		buf_printf(&b, "\"verified\":%s,\"verification\":%s,",
			   st == ENGINE_FOUND && sp->confidence > 0 &&
					   !verification_failed(v)
				   ? "true"
				   : "false",
			   q ? q : "\"\"");
		if (st == ENGINE_FOUND && verification_failed(v)) {
			gu_oid_hex(hex, &p->jc->graph.oids[pick]);
			buf_printf(&b, "\"rejected\":\"%s\",", hex);
		}
		if (st == ENGINE_FOUND && sp->recipe && sp->confidence > 0)
			buf_printf(&b,
				   "\"checks\":{\"noop\":%s,\"revert\":\"%s\","
				   "\"revert_runs\":%u},",
				   !v->noop_checked ? "null"
				   : v->noop	    ? "true"
						    : "false",
				   v->revert > 0   ? "passed"
				   : v->revert < 0 ? "failed"
						   : "not shown",
				   v->revert_runs);
		free(q);
		buf_release(&t);
	}
	buf_puts(&b, "\"other_failures\":[");
	for (i = 0, k = 0; i < p->nsteps; i++) {
		int other;
		char *t;

		if (p->steps[i].state != STEP_DONE ||
		    check_role(p->steps[i].role))
			continue;
		step_verdict(p, &p->steps[i], &other);
		t = other ? job_json_string(p->steps[i].result, "title") : NULL;
		if (t) {
			char *q = json_quote(t);

			buf_printf(&b, "%s{\"commit\":\"%s\",\"title\":%s}",
				   k++ ? "," : "", p->steps[i].hex,
				   q ? q : "\"\"");
			free(q);
		}
		free(t);
	}
	buf_puts(&b, "],\"candidates\":[");
	for (i = 0; i < ntop; i++) {
		gu_oid_hex(hex, &g->oids[top[i].c]);
		buf_printf(&b, "%s{\"commit\":\"%s\",\"probability\":%.4f}",
			   i ? "," : "", hex, top[i].p);
	}
	free(top);
	out = buf_puts(&b, "]}") ? NULL : strdup(buf_str(&b));
	buf_release(&b);
	return out;
}

static int finish_bisect(struct plan *p, struct engine *e, enum engine_state st,
			 uint32_t pick, const struct verification *v)
{
	const struct gu_graph *g = &p->jc->graph;
	char hex[GU_HEXSZ + 1], *outcome;
	struct buf why;
	uint32_t *idx;
	size_t n, i;
	int rc;

	if (st == ENGINE_NOTHING)
		return end_failed(p, "no commit left to test");
	outcome = outcome_json(p, e, st, pick, v);
	rc = outcome ? store_job_set_outcome(p->s->store, p->jc->id, outcome)
		     : err_set(ERR_NOMEM, "out of memory");
	free(outcome);
	if (rc)
		return rc;
	if (st == ENGINE_FOUND && verification_failed(v)) {
		/* not reported as found: the evidence says why */
		gu_oid_hex(hex, &g->oids[pick]);
		buf_init(&why, 1 << 16);
		buf_printf(&why,
			   "the culprit %s did not pass verification: ", hex);
		verification_text(&why, &p->jc->spec, st, v);
		rc = end_job(p, JOB_DONE, "ambiguous", NULL, buf_str(&why));
		buf_release(&why);
		return rc;
	}
	if (st == ENGINE_FOUND) {
		gu_oid_hex(hex, &g->oids[pick]);
		return end_job(p, JOB_DONE, "found", hex, NULL);
	}
	n = engine_candidate_count(e);
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!idx)
		return err_set(ERR_NOMEM, "out of memory");
	n = engine_candidates(e, idx, n);
	buf_init(&why, 1 << 20);
	if (p->jc->spec.confidence > 0 && engine_is_noisy(e))
		buf_printf(&why,
			   "the confidence %.2f was not reached in %lu runs "
			   "(the failure shows on about %.0f%% of the runs "
			   "before the first bad commit, %.0f%% after); the "
			   "first bad commit is one of:",
			   p->jc->spec.confidence, engine_runs(e),
			   100 * engine_failure_rate_before(e),
			   100 * engine_failure_rate(e));
	else
		buf_puts(&why, "only skipped commits left; the first bad "
			       "commit is one of:");
	for (i = 0; i < n; i++) {
		gu_oid_hex(hex, &g->oids[idx[i]]);
		buf_printf(&why, " %s", hex);
	}
	free(idx);
	rc = end_job(p, JOB_DONE, "ambiguous", NULL, buf_str(&why));
	buf_release(&why);
	return rc;
}

/* Running probes that the engine no longer needs are cancelled; the
 * others are busy[] (up to 256). */
static void keep_useful_probes(struct plan *p, struct engine *e, uint32_t *busy,
			       size_t *nbusy)
{
	size_t i;

	for (i = 0; i < p->nsteps; i++) {
		struct store_step *sp = &p->steps[i];
		struct gu_oid oid;
		long idx;

		if ((sp->state != STEP_QUEUED && sp->state != STEP_LEASED) ||
		    check_role(sp->role))
			continue;
		gu_oid_parse(&oid, sp->hex);
		idx = gu_graph_find(&p->jc->graph, &oid);
		if (idx < 0 || !engine_is_candidate(e, (uint32_t)idx) ||
		    *nbusy == 256) {
			store_step_cancel(p->s->store, sp->id);
			sp->state = STEP_CANCELLED;
			p->active--;
			continue;
		}
		busy[(*nbusy)++] = (uint32_t)idx;
	}
}

/*
 * A candidate with one infra verdict is tested again (and is busy); a
 * second one, or one that must abort, ends the job.  1 when it ended,
 * 0, or an error.
 */
static int retry_infra(struct plan *p, struct engine *e, uint32_t *busy,
		       size_t *nbusy)
{
	size_t i;
	int rc;

	for (i = 0; i < p->jc->graph.n; i++) {
		char hex[GU_HEXSZ + 1];
		struct cstat cs;

		if (!engine_is_candidate(e, (uint32_t)i))
			continue;
		gu_oid_hex(hex, &p->jc->graph.oids[i]);
		commit_status(p, hex, &cs);
		if (cs.verdict != VERDICT_NONE || !cs.infra)
			continue;
		if (cs.infra >= 2 || cs.abort) {
			rc = end_infra(p, hex, &cs);
			return rc < 0 ? rc : 1;
		}
		if (!cs.pending && p->active < p->slots && *nbusy < 256) {
			rc = enqueue(p, hex, "bisect",
				     (long long)engine_candidate_count(e));
			if (rc < 0)
				return rc;
			busy[(*nbusy)++] = (uint32_t)i;
		}
	}
	return 0;
}

/*
 * The engine's next probes for the free slots, chosen with the busy ones.
 * 1 when a verdict came from the cache (the candidates changed: plan
 * again), 0, or an error.
 */
static int enqueue_more(struct plan *p, struct engine *e, enum engine_state st,
			const uint32_t *busy, size_t nbusy)
{
	uint32_t more[256];
	size_t k, i,
		free_slots = p->slots > p->active
				     ? (size_t)(p->slots - p->active)
				     : 0;
	int rc, hit = 0;

	if (free_slots > 256 - nbusy)
		free_slots = 256 - nbusy;
	k = engine_next_more(e, busy, nbusy, more, free_slots);
	for (i = 0; i < k; i++) {
		char hex[GU_HEXSZ + 1];

		gu_oid_hex(hex, &p->jc->graph.oids[more[i]]);
		rc = enqueue(p, hex, st == ENGINE_VERIFY ? "verify" : "bisect",
			     (long long)engine_candidate_count(e));
		if (rc < 0)
			return rc;
		hit |= rc > 0;
	}
	return hit;
}

/* One decision: the job ends (verified, or not), or probes are queued.
 * 1 to decide again (a cached verdict came in), 0, or an error. */
static int plan_round(struct plan *p)
{
	struct engine *e = make_engine(p);
	uint32_t pick = 0, busy[256];
	size_t nbusy = 0;
	enum engine_state st;
	int rc;

	if (!e)
		return ERR_NOMEM;
	st = engine_next(e, &pick);
	if (st != ENGINE_TEST && st != ENGINE_VERIFY) {
		struct verification v;

		rc = st == ENGINE_FOUND ? verify_culprit(p, e, pick, &v)
					: (memset(&v, 0, sizeof(v)), 1);
		if (rc > 0)
			rc = finish_bisect(p, e, st, pick, &v);
		engine_free(e);
		return rc < 0 ? rc : 0;
	}
	keep_useful_probes(p, e, busy, &nbusy);
	rc = retry_infra(p, e, busy, &nbusy);
	if (rc == 0)
		rc = enqueue_more(p, e, st, busy, nbusy);
	else if (rc > 0)
		rc = 0; /* the job ended */
	engine_free(e);
	return rc;
}

static int plan_bisect(struct plan *p)
{
	char goods[JOB_MAX_GOODS * 2][GU_HEXSZ + 1];
	size_t ngoods;
	int rc;

	find_target(p);
	rc = plan_checks(p, goods, &ngoods);
	find_target(p); /* the bad endpoint may have just been answered */
	if (rc <= 0 || p->ended)
		return rc < 0 && !p->ended ? rc : 0;
	if (ngoods == 0)
		return end_failed(p, "no good commit left after the merge "
				     "base checks");
	if (load_graph(p, goods, ngoods))
		return ERR_INFRA;
	if (p->jc->graph.n == 0)
		return end_failed(p, "the bad commit is reachable from a good "
				     "commit: nothing to bisect");
	if ((rc = store_job_set_candidates(p->s->store, p->jc->id,
					   (long long)p->jc->graph.n)))
		return rc;
	while ((rc = plan_round(p)) > 0)
		; /* a cached verdict changed the candidates: decide again */
	return rc;
}

static void live_release(struct livec *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(l[i].text);
		job_caps_release(&l[i].caps);
	}
	free(l);
}

struct live_read {
	struct livec *l;
	size_t n, alloc;
	int failed;
};

static int read_live(long long id, const char *caps, void *payload)
{
	struct live_read *r = payload;
	struct livec *c;

	if (!caps)
		return 0;
	if (r->n == r->alloc) {
		size_t alloc = r->alloc ? r->alloc * 2 : 64;
		struct livec *l = realloc(r->l, alloc * sizeof(*l));

		if (!l)
			return r->failed = 1;
		r->l = l;
		r->alloc = alloc;
	}
	c = &r->l[r->n];
	if (job_caps_parse(&c->caps, caps, strlen(caps)))
		return 0; /* a row that is no longer valid: not live */
	if (!(c->text = strdup(caps))) {
		job_caps_release(&c->caps);
		return r->failed = 1;
	}
	c->id = id;
	r->n++;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct livec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Read the live workers again when due; live_gen changes with the set. */
static void refresh_live(struct sched *s)
{
	struct live_read r = { 0 };
	double now = util_now();
	size_t i;
	int same;

	if (!s->live_stale && s->live && now - s->live_at < LIVE_REFRESH_S)
		return;
	if (store_workers_live(s->store, store_time() - s->o.live_window,
			       read_live, &r) ||
	    r.failed) {
		live_release(r.l, r.n);
		return; /* the set read before stays */
	}
	qsort(r.l, r.n, sizeof(*r.l), by_id);
	same = s->live && r.n == s->nlive;
	for (i = 0; same && i < r.n; i++)
		same = r.l[i].id == s->live[i].id &&
		       !strcmp(r.l[i].text, s->live[i].text);
	live_release(s->live, s->nlive);
	if (!r.l)
		r.l = calloc(1, sizeof(*r.l)); /* none live: still read */
	s->live = r.l;
	s->nlive = r.l ? r.n : 0;
	s->live_at = now;
	s->live_stale = 0;
	if (!same)
		s->live_gen++;
}

static int job_slots(struct sched *s, struct jobc *jc)
{
	const struct job_spec *spec = &jc->spec;
	int n = s->o.workers;
	size_t i;

	if (n <= 0) {
		refresh_live(s);
		if (jc->slots_gen != s->live_gen || !jc->slots) {
			for (i = 0, n = 0; i < s->nlive; i++)
				n += job_caps_accept(&s->live[i].caps, spec);
			jc->slots = n > 0 ? n : 1;
			jc->slots_gen = s->live_gen;
		}
		n = jc->slots;
	}
	if (spec->max_workers > 0 && n > spec->max_workers)
		n = spec->max_workers;
	return n > 0 ? n : 1;
}

int sched_tick(struct sched *s, long long id)
{
	struct store_job job;
	struct plan p = { .s = s };
	size_t i;
	int rc;

	rc = store_job_get(s->store, id, &job);
	if (rc)
		return rc;
	if (job.state != JOB_QUEUED && job.state != JOB_RUNNING) {
		store_job_release(&job);
		drop_jobc(s, id);
		return 0;
	}
	rc = get_jobc(s, id, job.spec, job.owner, &p.jc);
	if (rc) {
		/* the repository or recipe went away: the job cannot go on */
		char why[1024];

		snprintf(why, sizeof(why), "%s", err_last());
		store_job_release(&job);
		store_job_end(s->store, id, JOB_FAILED, "error", NULL, why);
		return 0;
	}
	p.owner = job.owner ? strdup(job.owner) : NULL;
	rc = job.owner && !p.owner ? err_set(ERR_NOMEM, "out of memory") : 0;
	store_job_release(&job);
	if (rc || (rc = store_begin(s->store))) {
		free(p.owner);
		return rc;
	}
	rc = store_job_start(s->store, id);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &p.steps, &p.nsteps);
	if (rc) {
		store_rollback(s->store);
		free(p.owner);
		return rc;
	}
	p.slots = job_slots(s, p.jc);
	for (i = 0; i < p.nsteps; i++) {
		if (p.steps[i].state == STEP_QUEUED ||
		    p.steps[i].state == STEP_LEASED)
			p.active++;
		if (p.steps[i].state == STEP_DONE &&
		    p.steps[i].round >= p.round)
			p.round = p.steps[i].round;
	}
	p.round++;
	rc = !strcmp(p.jc->spec.type, "bisect")	    ? plan_bisect(&p)
	     : !strcmp(p.jc->spec.type, "releases") ? plan_releases(&p)
						    : plan_test(&p);
	store_steps_release(p.steps, p.nsteps);
	free(p.owner);
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	rc = store_commit(s->store);
	if (p.ended)
		drop_jobc(s, id);
	if (!rc && p.follow_up)
		rc = sched_tick(s, p.follow_up);
	return rc;
}

int sched_tick_all(struct sched *s)
{
	long long *ids = NULL;
	size_t n = 0, i;
	int rc, state;

	rc = store_expire_leases(s->store, store_time(), s->o.max_attempts,
				 &ids, &n);
	free(ids);
	if (rc)
		return rc;
	for (state = JOB_QUEUED; state <= JOB_RUNNING; state++) {
		rc = store_job_ids(s->store, state, &ids, &n);
		if (rc)
			return rc;
		for (i = 0; i < n; i++)
			if (sched_tick(s, ids[i]) == ERR_NOMEM)
				rc = ERR_NOMEM;
		free(ids);
		if (rc)
			return rc;
	}
	return 0;
}

int sched_tick_due(struct sched *s)
{
	long long *ids = NULL;
	size_t n = 0, i;
	struct jobc *j;
	int rc;

	rc = store_expire_leases(s->store, store_time(), s->o.max_attempts,
				 &ids, &n);
	for (i = 0; i < n && !rc; i++)
		if (sched_tick(s, ids[i]) == ERR_NOMEM)
			rc = ERR_NOMEM;
	free(ids);
	if (rc)
		return rc;
	refresh_live(s);
	if (s->ticked_gen == s->live_gen)
		return 0;
	/* workers came or went: parallel bisections may take more probes,
	 * or must wait for fewer */
	for (n = 0, j = s->jobs; j; j = j->next)
		n += !strcmp(j->spec.type, "bisect");
	if (n && !(ids = calloc(n, sizeof(*ids))))
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0, j = s->jobs; j; j = j->next)
		if (!strcmp(j->spec.type, "bisect"))
			ids[i++] = j->id;
	for (i = 0; i < n && !rc; i++)
		if (sched_tick(s, ids[i]) == ERR_NOMEM)
			rc = ERR_NOMEM;
	free(ids);
	if (!rc)
		s->ticked_gen = s->live_gen;
	return rc;
}

int sched_cancel(struct sched *s, long long id)
{
	struct store_job job;
	int rc = store_job_get(s->store, id, &job);

	if (rc)
		return rc;
	store_job_release(&job);
	if ((rc = store_begin(s->store)))
		return rc;
	rc = store_job_end(s->store, id, JOB_CANCELLED, "cancelled", NULL,
			   "cancelled by request");
	if (rc == 1)
		rc = store_job_cancel_steps(s->store, id);
	else if (rc == 0)
		rc = err_set(ERR_INPUT, "job %lld has already ended", id);
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	drop_jobc(s, id);
	return store_commit(s->store);
}

int sched_register(struct sched *s, const char *token, const char *body,
		   size_t len, long long *id)
{
	struct job_caps c;
	char *canon;
	int rc = job_caps_parse(&c, body, len);

	if (rc)
		return rc;
	canon = job_caps_dump(&c);
	rc = canon ? store_worker_add(s->store, id, c.name, token, canon)
		   : err_set(ERR_NOMEM, "out of memory");
	s->live_stale = 1;
	free(canon);
	job_caps_release(&c);
	return rc;
}

/*
 * Whether worker was registered with token: ERR_NOTFOUND for a worker
 * never registered, ERR_DENIED for another token's.
 */
static int worker_of(struct sched *s, const char *token, long long worker)
{
	char had[65];
	int rc = store_worker_token(s->store, worker, had);

	if (rc)
		return rc;
	if (strcmp(had, token))
		return err_set(ERR_DENIED,
			       "worker %lld was registered with another "
			       "worker token",
			       worker);
	return 0;
}

/*
 * The step that holds lease, into *out, when the worker it was given to
 * was registered with token: ERR_NOTFOUND for a lease that expired or was
 * never given, ERR_DENIED for another token's.
 */
static int lease_of(struct sched *s, const char *token, const char *lease,
		    struct store_step *out)
{
	int rc = store_lease_find(s->store, lease, out);

	if (rc)
		return rc;
	rc = worker_of(s, token, out->worker);
	if (rc == ERR_NOTFOUND || rc == ERR_DENIED)
		rc = err_set(ERR_DENIED, "this lease was given to a worker of "
					 "another worker token");
	if (rc) {
		free(out->result);
		out->result = NULL;
	}
	return rc;
}

struct take {
	struct sched *s;
	const struct job_caps *caps;
};

static int can_take(const struct store_step *st, void *payload)
{
	struct take *t = payload;
	struct jobc *jc = find_jobc(t->s, st->job);

	if (!jc) {
		struct store_job job;

		if (store_job_get(t->s->store, st->job, &job))
			return 0;
		get_jobc(t->s, st->job, job.spec, job.owner, &jc);
		store_job_release(&job);
		if (!jc)
			return 0;
	}
	return job_caps_accept(t->caps, &jc->spec);
}

/* A manual releases job's answers so far, "ABI:verdict ...", into
 * *out (NULL when there are none). */
static int answers_of(struct sched *s, long long job, char **out)
{
	struct store_step *steps = NULL;
	size_t n = 0, i;
	struct buf b;
	int rc = store_steps_of_job(s->store, job, &steps, &n);

	*out = NULL;
	buf_init(&b, 1 << 20);
	for (i = 0; !rc && i < n; i++) {
		char *rel;

		if (strcmp(steps[i].role, "answer") ||
		    steps[i].state != STEP_DONE)
			continue;
		rel = job_json_string(steps[i].result, "release");
		if (rel)
			rc = buf_printf(&b, "%s%s:%s", b.len ? " " : "", rel,
					steps[i].verdict);
		free(rel);
	}
	if (!rc && b.len && !(*out = buf_detach(&b)))
		rc = err_set(ERR_NOMEM, "out of memory");
	buf_release(&b);
	store_steps_release(steps, n);
	return rc;
}

int sched_poll(struct sched *s, const char *token, long long worker,
	       char **assignment)
{
	struct take t = { .s = s };
	struct store_step st;
	struct step_assignment a;
	struct livec key = { .id = worker }, *live;
	struct job_caps parsed;
	struct jobc *jc;
	char *caps;
	int rc;

	*assignment = NULL;
	rc = worker_of(s, token, worker);
	if (!rc)
		rc = store_worker_seen(s->store, worker);
	if (rc)
		return rc;
	refresh_live(s);
	live = s->nlive ? bsearch(&key, s->live, s->nlive, sizeof(key), by_id)
			: NULL;
	if (live) {
		t.caps = &live->caps;
	} else {
		/* not live when the set was read: from its row */
		if ((rc = store_worker_caps(s->store, worker, &caps)))
			return rc;
		rc = job_caps_parse(&parsed, caps, strlen(caps));
		free(caps);
		if (rc)
			return rc;
		t.caps = &parsed;
	}
	rc = store_step_lease(s->store, worker, s->o.lease_s, can_take, &t,
			      &st);
	if (!live)
		job_caps_release(&parsed);
	if (rc)
		return rc;
	jc = find_jobc(s, st.job);
	memset(&a, 0, sizeof(a));
	snprintf(a.lease, sizeof(a.lease), "%s", st.lease);
	snprintf(a.commit, sizeof(a.commit), "%s", st.hex);
	snprintf(a.role, sizeof(a.role), "%s", st.role);
	a.step = st.id;
	a.job = st.job;
	a.lease_seconds = s->o.lease_s;
	snprintf(a.tenant, sizeof(a.tenant), "%s", jc->tenant);
	a.spec = jc->spec; /* borrowed for the dump */
	rc = jc->spec.manual ? answers_of(s, st.job, &a.spec.answers) : 0;
	*assignment = rc ? NULL : step_assignment_dump(&a);
	free(a.spec.answers);
	free(st.result);
	if (rc)
		return rc;
	return *assignment ? 0 : err_set(ERR_NOMEM, "out of memory");
}

int sched_answer(struct sched *s, long long id, const char *release,
		 const char *verdict)
{
	struct store_step *steps = NULL;
	struct manual_at m = { 0 };
	struct store_job job;
	json_t *r = NULL;
	const char *next = NULL;
	char *result = NULL;
	size_t n = 0;
	long long sid;
	int rc = store_job_get(s->store, id, &job);

	if (rc)
		return rc;
	rc = job.state == JOB_QUEUED || job.state == JOB_RUNNING
		     ? 0
		     : err_set(ERR_INPUT, "job %lld has ended", id);
	if (!rc && !job_json_true(job.spec, "manual"))
		rc = err_set(ERR_INPUT,
			     "job %lld is not a manual releases "
			     "job",
			     id);
	store_job_release(&job);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &steps, &n);
	if (!rc)
		manual_at(steps, n, &m);
	if (!rc && manual_waits(&m) && m.last->result)
		r = json_loads(m.last->result, 0, NULL);
	next = json_string_value(json_object_get(json_object_get(r, "releases"),
						 "next_release"));
	if (!rc && !next)
		rc = err_set(ERR_INPUT,
			     "job %lld is not waiting for an answer "
			     "now",
			     id);
	else if (!rc && strcmp(next, release))
		rc = err_set(ERR_INPUT,
			     "job %lld is waiting for an answer on release "
			     "%s, not %s",
			     id, next, release);
	if (!rc && !(result = util_fmt("{\"verdict\":\"%s\",\"title\":"
				       "\"answered %s\",\"role\":\"answer\","
				       "\"release\":\"%s\"}",
				       verdict, verdict, release)))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc && !(rc = store_begin(s->store))) {
		rc = store_step_insert(s->store, &sid, id, RELEASES_HEX,
				       "answer", m.last->round, 0, "");
		if (!rc)
			rc = store_step_done(s->store, sid, verdict, result, 0);
		if (rc)
			store_rollback(s->store);
		else
			rc = store_commit(s->store);
	}
	json_decref(r);
	free(result);
	store_steps_release(steps, n);
	return rc ? rc : sched_tick(s, id);
}

int sched_heartbeat(struct sched *s, const char *token, const char *lease)
{
	struct store_step st;
	int rc = lease_of(s, token, lease, &st);

	if (rc == ERR_NOTFOUND)
		return err_set(ERR_NOTFOUND, "lease expired or cancelled");
	if (rc)
		return rc;
	free(st.result);
	return store_lease_extend(s->store, lease, s->o.lease_s);
}

int sched_lease(struct sched *s, const char *token, const char *lease,
		long long *step)
{
	struct store_step st;
	int rc = lease_of(s, token, lease, &st);

	*step = 0;
	if (rc == ERR_NOTFOUND)
		return err_set(ERR_NOTFOUND, "lease expired or step cancelled");
	if (rc)
		return rc;
	free(st.result);
	*step = st.id;
	return 0;
}

/*
 * Add a step's runs to what the result cache holds for its key: later
 * jobs are answered with every run so far, from whichever commit of the
 * same key they were made on.
 */
static int cache_add(struct store *store, const char *key, const char *hex,
		     const char *result)
{
	char old_verdict[8], verdict[8], *old = NULL, *merged = NULL;
	int rc = store_cache_get(store, key, old_verdict, &old);

	if (rc && rc != ERR_NOTFOUND)
		return rc;
	rc = step_result_merge(&merged, verdict, old, result, hex);
	if (!rc)
		rc = store_cache_put(store, key, verdict, merged);
	free(old);
	free(merged);
	return rc;
}

int sched_result(struct sched *s, const char *token, const char *lease,
		 const char *body, size_t len)
{
	struct store_step st;
	char verdict[8];
	int rc;

	if ((rc = store_begin(s->store)))
		return rc;
	rc = lease_of(s, token, lease, &st);
	if (rc) {
		store_rollback(s->store);
		return rc == ERR_NOTFOUND
			       ? err_set(ERR_NOTFOUND,
					 "lease expired or step cancelled: "
					 "result discarded")
			       : rc;
	}
	free(st.result);
	/* about the step leased, and no other commit */
	if ((rc = step_result_check(body, len, st.hex, verdict))) {
		store_rollback(s->store);
		return rc;
	}
	{
		char *canon = strndup(body, len);

		rc = canon ? store_step_done(s->store, st.id, verdict, canon, 0)
			   : err_set(ERR_NOMEM, "out of memory");
		if (!rc && strcmp(verdict, "infra") && st.cache_key[0])
			rc = cache_add(s->store, st.cache_key, st.hex, canon);
		free(canon);
	}
	if (rc) {
		store_rollback(s->store);
		return rc;
	}
	if ((rc = store_commit(s->store)))
		return rc;
	return sched_tick(s, st.job);
}

int sched_bisect_log(struct sched *s, long long id, struct buf *out)
{
	struct store_job job;
	struct store_step *steps = NULL;
	struct job_spec spec;
	struct gu_repo *repo = NULL;
	size_t n = 0, i;
	int rc;

	rc = store_job_get(s->store, id, &job);
	if (rc)
		return rc;
	rc = job_spec_parse(&spec, job.spec, strlen(job.spec));
	if (!rc && strcmp(spec.type, "bisect"))
		rc = err_set(ERR_NOTFOUND, "job %lld is not a bisection", id);
	if (!rc)
		rc = store_steps_of_job(s->store, id, &steps, &n);
	if (!rc)
		open_repo(s, spec.repo, &repo); /* subjects are optional */
#define LOGLINE(verb, hex)                                                     \
	do {                                                                   \
		struct gu_commit c;                                            \
		struct gu_oid o;                                               \
		int known = repo && !gu_oid_parse(&o, hex) &&                  \
			    !gu_commit_head(&c, repo, &o);                     \
		buf_printf(out, "# %s: [%s] ", verb, hex);                     \
		if (known) /* a subject's control characters escaped */        \
			buf_put_shown(out, c.subject, 0);                      \
		buf_printf(out, "\ngit bisect %s %s\n", verb, hex);            \
		if (known)                                                     \
			gu_commit_release(&c);                                 \
	} while (0)
	if (!rc) {
		/* the verdicts as the bisection took them: another failure
		 * than the target was a skip */
		struct jobc tmp = { .spec = spec };
		struct plan p = {
			.s = s, .jc = &tmp, .steps = steps, .nsteps = n
		};

		tmp.have_failure =
			spec.failure && !regcomp(&tmp.failure, spec.failure,
						 REG_EXTENDED | REG_NOSUB);
		find_target(&p);
		buf_puts(out, "git bisect start\n");
		LOGLINE("bad", spec.bad);
		for (i = 0; i < spec.ngood; i++)
			LOGLINE("good", spec.good[i]);
		for (i = 0; i < n; i++) {
			int other;
			const char *v = verdict_name(
				step_verdict(&p, &steps[i], &other));

			if (steps[i].state != STEP_DONE ||
			    (strcmp(v, "good") && strcmp(v, "bad") &&
			     strcmp(v, "skip")))
				continue;
			if (!strcmp(steps[i].role, "endpoint") ||
			    check_role(steps[i].role))
				continue; /* given, or not about the commit */
			LOGLINE(v, steps[i].hex);
		}
		if (tmp.have_failure)
			regfree(&tmp.failure);
		if (job.culprit) {
			struct gu_commit c;
			struct gu_oid o;
			int known = repo && !gu_oid_parse(&o, job.culprit) &&
				    !gu_commit_head(&c, repo, &o);

			buf_printf(out, "# first bad commit: [%s] ",
				   job.culprit);
			if (known) {
				buf_put_shown(out, c.subject, 0);
				gu_commit_release(&c);
			}
			buf_puts(out, "\n");
		}
	}
#undef LOGLINE
	gu_close(repo);
	store_steps_release(steps, n);
	job_spec_release(&spec);
	store_job_release(&job);
	return rc;
}

int sched_progress(struct sched *s, long long id, size_t *initial, size_t *left)
{
	struct jobc *jc = find_jobc(s, id);
	struct plan p = { .s = s, .jc = jc };
	struct store_job job;
	struct engine *e;
	int rc;

	*initial = *left = 0;
	if ((rc = store_job_get(s->store, id, &job)))
		return rc;
	*initial = (size_t)job.candidates;
	store_job_release(&job);
	if (!jc || !jc->have_graph)
		return 0;
	rc = store_steps_of_job(s->store, id, &p.steps, &p.nsteps);
	if (rc)
		return rc;
	find_target(&p);
	e = make_engine(&p);
	if (e)
		*left = engine_candidate_count(e);
	engine_free(e);
	store_steps_release(p.steps, p.nsteps);
	return e ? 0 : ERR_NOMEM;
}

int sched_idle(struct sched *s)
{
	long long *ids;
	size_t n = 0, m = 0;

	if (store_job_ids(s->store, JOB_QUEUED, &ids, &n))
		return 0;
	free(ids);
	if (store_job_ids(s->store, JOB_RUNNING, &ids, &m))
		return 0;
	free(ids);
	return n + m == 0;
}
