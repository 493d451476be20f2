/*
 * bisectctl: the command-line client.  Each subcommand is one function in
 * the table at the bottom.  With no --server it runs the coordinator's
 * session in-process (embedded mode).
 *
 * Exit status, for every subcommand that bisects: 0 culprit found,
 * 1 ambiguous (only skipped commits left), 2 bad input or usage,
 * 3 infrastructure failure.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "gitutil.h"
#include "recipe.h"
#include "report.h"
#include "session.h"
#include "util.h"
#include "worker.h"

#ifndef DATADIR
#define DATADIR "/usr/local/share/bisectd"
#endif

enum { EXIT_FOUND = 0, EXIT_AMBIGUOUS = 1, EXIT_INPUT = 2, EXIT_INFRA = 3 };

static int exit_for(int rc)
{
	if (rc == ERR_INPUT || rc == ERR_NOTFOUND)
		return EXIT_INPUT;
	return EXIT_INFRA;
}

static int fail(int rc)
{
	fprintf(stderr, "bisectctl: %s\n", err_last());
	return exit_for(rc);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bisectctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see bisectctl help)\n");
	return EXIT_INPUT;
}

/* Options common to run and bisect. */
struct common {
	const char *repo_path;
	const char *bad;
	const char *goods[64];
	size_t ngoods;
	const char *json;
	const char *out;
	const char *replay;
};

/* Parse one common option; 1 if it was one, 0 if not, -1 on error. */
static int common_opt(struct common *c, int opt, const char *arg)
{
	switch (opt) {
	case 'r':
		c->repo_path = arg;
		return 1;
	case 'g':
		if (c->ngoods == sizeof(c->goods) / sizeof(c->goods[0]))
			return -1;
		c->goods[c->ngoods++] = arg;
		return 1;
	case 'b':
		if (c->bad)
			return -1;
		c->bad = arg;
		return 1;
	case 'j':
		c->json = arg;
		return 1;
	case 'o':
		c->out = arg;
		return 1;
	case 'R':
		c->replay = arg;
		return 1;
	}
	return 0;
}

#define COMMON_LONGOPTS                                                        \
	{ "repo", required_argument, NULL, 'r' },                              \
		{ "good", required_argument, NULL, 'g' },                      \
		{ "bad", required_argument, NULL, 'b' },                       \
		{ "json", required_argument, NULL, 'j' },                      \
		{ "out", required_argument, NULL, 'o' },                       \
	{                                                                      \
		"replay", required_argument, NULL, 'R'                         \
	}

/* Open the repository and resolve the revisions into s. */
static int setup_session(struct session *s, const struct common *c,
			 struct gu_repo **repo)
{
	size_t i;
	int rc;

	if (!c->replay && (!c->bad || !c->ngoods))
		return err_set(ERR_INPUT, "need --bad and at least one --good");
	if (c->replay && access(c->replay, R_OK))
		return err_sys(ERR_INPUT, "cannot read bisect log '%s'",
			       c->replay);
	rc = gu_open(repo, c->repo_path);
	if (rc)
		return rc;
	s->repo = *repo;
	s->replay = c->replay;
	if (c->bad) {
		rc = gu_resolve(*repo, c->bad, &s->bad);
		if (rc)
			return rc;
		s->have_bad = 1;
	}
	s->goods = calloc(c->ngoods + 1, sizeof(*s->goods));
	if (!s->goods)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < c->ngoods; i++) {
		rc = gu_resolve(*repo, c->goods[i], &s->goods[i]);
		if (rc)
			return rc;
		s->ngoods++;
	}
	return 0;
}

/* A stable directory name for a repository: a hash of its git dir. */
static char *repo_key(struct gu_repo *repo)
{
	char real[PATH_MAX];
	const char *p = gu_gitdir(repo);

	if (realpath(p, real))
		p = real;
	return util_fmt("%016llx", util_hash(p, strlen(p)));
}

static char *make_out_dir(const char *given)
{
	char stamp[32];
	char *cache, *dir;
	time_t now = time(NULL);
	struct tm tm;

	if (given)
		dir = strdup(given);
	else {
		cache = util_cache_dir();
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		dir = cache ? util_fmt("%s/runs/%s-%d", cache, stamp,
				       (int)getpid())
			    : NULL;
		free(cache);
	}
	if (!dir) {
		err_set(ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (util_mkdir_p(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * One bisectctl at a time per worktree: lock "DIR.lock" beside it for as
 * long as the command runs.  Returns the lock's descriptor or <0.
 */
static int lock_dir(const char *dir)
{
	char *path = util_fmt("%s.lock", dir);
	int fd;

	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	fd = util_lock(path);
	free(path);
	return fd;
}

/* Write the reports, print the text one; returns the exit status. */
static int finish(struct session *s, struct report_info *ri,
		  const char *json_path, int rc)
{
	struct buf text;
	char *json = NULL, *path;

	ri->error_code = rc;
	buf_init(&text, 64u << 20);
	if (report_json(&json, s, ri) || report_text(&text, s, ri)) {
		fprintf(stderr, "bisectctl: cannot write report: %s\n",
			err_last());
		free(json);
		buf_release(&text);
		return EXIT_INFRA;
	}
	path = util_fmt("%s/report.json", ri->out_dir);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	path = util_fmt("%s/report.txt", ri->out_dir);
	if (path)
		util_write_atomic(path, text.ptr, text.len);
	free(path);
	if (json_path && util_write_atomic(json_path, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	fputs(buf_str(&text), stdout);
	fflush(stdout);
	free(json);
	buf_release(&text);
	if (rc) {
		fprintf(stderr, "bisectctl: %s\n",
			s->stop_reason ? s->stop_reason : err_last());
		return exit_for(rc);
	}
	return s->state == ENGINE_FOUND ? EXIT_FOUND : EXIT_AMBIGUOUS;
}

/* --- generic mode ------------------------------------------------------ */

struct run_ctx {
	struct gu_repo *repo;
	const char *worktree;
	const char *out_dir;
	char *const *cmd;
	unsigned n;
};

static int run_test(struct session_step *st, const struct gu_oid *commit,
		    void *payload)
{
	struct run_ctx *c = payload;
	char hex[GU_HEXSZ + 1], *env_commit, *log;
	struct proc_result pr;
	int rc;

	gu_oid_hex(hex, commit);
	rc = gu_checkout(c->repo, c->worktree, commit);
	if (rc)
		return rc;
	env_commit = util_fmt("BISECT_COMMIT=%s", hex);
	log = util_fmt("%s/steps/%02u-%.12s.log", c->out_dir, ++c->n, hex);
	if (!env_commit || !log) {
		free(env_commit);
		free(log);
		return err_set(ERR_NOMEM, "out of memory");
	}
	{
		const char *env[] = { env_commit, NULL };
		struct proc_opts o = { .cwd = c->worktree,
				       .env = env,
				       .log_path = log };

		rc = proc_run(&pr, (const char *const *)c->cmd, &o);
	}
	free(env_commit);
	st->log = log;
	if (rc)
		return rc;
	if (pr.exec_failed)
		return ERR_INPUT; /* proc_run said which command and why */
	if (!pr.exited)
		return err_set(ERR_INFRA,
			       "command was killed by signal %d: bisect run "
			       "aborted",
			       pr.signal);
	st->exit_code = pr.status;
	if (pr.status == 0)
		st->verdict = VERDICT_GOOD;
	else if (pr.status == 125)
		st->verdict = VERDICT_SKIP;
	else if (pr.status < 128)
		st->verdict = VERDICT_BAD;
	else
		return err_set(ERR_INFRA,
			       "command exited with status %d (>= 128): "
			       "bisect run aborted",
			       pr.status);
	if (st->verdict != VERDICT_GOOD)
		st->title = util_fmt("exit status %d", pr.status);
	return 0;
}

static char *join_args(char *const *argv)
{
	struct buf b;

	buf_init(&b, 1 << 20);
	for (; *argv; argv++)
		buf_printf(&b, "%s%s", b.len ? " " : "", *argv);
	return buf_detach(&b);
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = { COMMON_LONGOPTS,
					      { NULL, 0, NULL, 0 } };
	struct common c = { .repo_path = "." };
	struct report_info ri = { .mode = "run" };
	struct run_ctx ctx = { 0 };
	struct session s;
	struct gu_repo *repo = NULL;
	char *cache = NULL, *key = NULL, *wt = NULL, *out = NULL, *cmdline;
	int opt, rc, status, lock = -1;

	while ((opt = getopt_long(argc, argv, "+", opts, NULL)) != -1)
		if (common_opt(&c, opt, optarg) != 1)
			return usage_error("bad option for run");
	if (optind >= argc)
		return usage_error("run needs a command after --");
	session_init(&s);
	rc = setup_session(&s, &c, &repo);
	if (rc)
		goto fail;
	cache = util_cache_dir();
	key = repo_key(repo);
	wt = cache && key ? util_fmt("%s/worktrees/%s-run", cache, key) : NULL;
	if (!wt) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto fail;
	}
	out = make_out_dir(c.out);
	if (!out || (rc = util_mkdir_p(wt)) || (lock = lock_dir(wt)) < 0) {
		rc = ERR_INFRA;
		goto fail;
	}
	{
		char *steps = util_fmt("%s/steps", out);

		rc = steps ? util_mkdir_p(steps) : ERR_NOMEM;
		free(steps);
		if (rc)
			goto fail;
	}
	ctx.repo = repo;
	ctx.worktree = wt;
	ctx.out_dir = out;
	ctx.cmd = argv + optind;
	s.out_dir = out;
	s.progress = stderr;
	s.test = run_test;
	s.payload = &ctx;
	cmdline = join_args(argv + optind);
	ri.repo_path = c.repo_path;
	ri.command = cmdline;
	ri.out_dir = out;
	rc = session_run(&s);
	status = finish(&s, &ri, c.json, rc);
	free(cmdline);
	goto out;
fail:
	status = fail(rc);
out:
	session_release(&s);
	free(s.goods);
	gu_close(repo);
	free(cache);
	free(key);
	free(wt);
	free(out);
	if (lock >= 0)
		close(lock);
	return status;
}

/* --- kernel mode -------------------------------------------------------- */

struct bisect_ctx {
	struct gu_repo *repo;
	const struct recipe *recipe;
	const char *test;
	char *test_abs;
	int runs;
	char *work_dir;
	const char *out_dir;
	unsigned n;
	char *last_config;
	const char *accel;
	int lock; /* holds the work directory's lock, or -1 */
};

static char *take(char **p)
{
	char *s = *p;

	*p = NULL;
	return s;
}

static int bisect_test(struct session_step *st, const struct gu_oid *commit,
		       void *payload)
{
	struct bisect_ctx *c = payload;
	struct step_spec spec = { .repo = c->repo,
				  .commit = *commit,
				  .recipe = c->recipe,
				  .test_script = c->test,
				  .runs = c->runs,
				  .work_dir = c->work_dir,
				  .live = isatty(2) };
	struct step_result r;
	char hex[GU_HEXSZ + 1], *dir;
	int rc;

	gu_oid_hex(hex, commit);
	dir = util_fmt("%s/steps/%02u-%.12s", c->out_dir, ++c->n, hex);
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	spec.step_dir = dir;
	rc = pipeline_run(&r, &spec);
	free(dir);
	if (rc) {
		step_result_release(&r);
		return rc;
	}
	st->verdict = r.verdict;
	st->title = take(&r.title);
	st->excerpt = take(&r.excerpt);
	st->checkout_s = r.checkout_s;
	st->config_s = r.config_s;
	st->build_s = r.build_s;
	st->boot_s = r.boot_s;
	st->runs = r.runs_done ? r.runs_done : c->runs;
	st->runs_failed = r.runs_failed;
	st->console_log = take(&r.console_log);
	st->build_log = take(&r.build_log);
	st->config_notes = take(&r.config_notes);
	if (r.accel)
		c->accel = r.accel;
	if (r.verdict != VERDICT_INFRA) {
		free(c->last_config);
		c->last_config = take(&r.config_path);
	}
	step_result_release(&r);
	return 0;
}

static char *recipe_search_path(void)
{
	char exe[PATH_MAX], *slash;
	const char *env = getenv("BISECTD_RECIPES");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		n = 0;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	return util_fmt("%s%s%s/../recipes:%s/recipes", env ? env : "",
			env ? ":" : "", exe, DATADIR);
}

static int load_recipe(struct recipe *r, const char *name)
{
	char path[PATH_MAX], *search = recipe_search_path();
	int rc;

	if (!search)
		return err_set(ERR_NOMEM, "out of memory");
	rc = recipe_find(path, sizeof(path), name, search);
	free(search);
	if (!rc)
		rc = recipe_load(r, path);
	return rc;
}

/* Options of the kernel-mode commands. */
struct kernel_opts {
	const char *recipe;
	const char *test;
	int runs;
};

/* Parse one kernel option; 1 if it was one, 0 if not, -1 on error. */
static int kernel_opt(struct kernel_opts *k, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 'c':
		k->recipe = arg;
		return 1;
	case 't':
		k->test = arg;
		return 1;
	case 'n':
		k->runs = (int)strtol(arg, &end, 10);
		if (*end || k->runs < 1 || k->runs > 100) {
			err_set(ERR_INPUT,
				"--runs needs a number from 1 to 100, not '%s'",
				arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

#define KERNEL_LONGOPTS                                                        \
	{ "recipe", required_argument, NULL, 'c' },                            \
		{ "test", required_argument, NULL, 't' },                      \
	{                                                                      \
		"runs", required_argument, NULL, 'n'                           \
	}

/*
 * Check the kernel options and fill ctx: the recipe (into *recipe), the
 * test script's absolute path and the work directory.  Nothing is
 * written anywhere before all of it checks out.
 */
static int kernel_setup(struct bisect_ctx *ctx, struct recipe *recipe,
			const struct kernel_opts *k, struct gu_repo *repo)
{
	char *cache, *key;
	int rc;

	if (!k->recipe)
		return err_set(ERR_INPUT, "--recipe NAME is required");
	rc = load_recipe(recipe, k->recipe);
	if (rc)
		return rc;
	if (k->test && !util_is_executable(k->test))
		return err_set(ERR_INPUT,
			       "test script '%s' is not an executable file",
			       k->test);
	if (k->test && !(ctx->test_abs = realpath(k->test, NULL)))
		return err_sys(ERR_INPUT, "test script '%s'", k->test);
	ctx->test = ctx->test_abs;
	ctx->repo = repo;
	ctx->recipe = recipe;
	ctx->runs = k->runs;
	cache = util_cache_dir();
	key = repo_key(repo);
	ctx->work_dir = cache && key ? util_fmt("%s/work/%s-%s", cache, key,
						recipe->name)
				     : NULL;
	free(cache);
	free(key);
	return ctx->work_dir ? 0 : err_set(ERR_NOMEM, "out of memory");
}

static void kernel_release(struct bisect_ctx *ctx, struct recipe *recipe)
{
	if (ctx->lock >= 0)
		close(ctx->lock);
	recipe_release(recipe);
	free(ctx->last_config);
	free(ctx->test_abs);
	free(ctx->work_dir);
}

/* Take the work directory for this command: create it and lock it. */
static int lock_work_dir(struct bisect_ctx *ctx)
{
	int rc = util_mkdir_p(ctx->work_dir);

	if (!rc && (ctx->lock = lock_dir(ctx->work_dir)) < 0)
		rc = ctx->lock;
	return rc;
}

/* The repository and revision of a one-commit command, and its setup. */
static int setup_one_commit(struct bisect_ctx *ctx, struct recipe *recipe,
			    const struct kernel_opts *k, const char *repo_path,
			    const char *rev, struct gu_repo **repo,
			    struct gu_oid *oid)
{
	int rc = gu_open(repo, repo_path);

	if (!rc)
		rc = gu_resolve(*repo, rev, oid);
	if (!rc)
		rc = kernel_setup(ctx, recipe, k, *repo);
	if (!rc)
		rc = lock_work_dir(ctx);
	return rc;
}

/*
 * The option loop of the kernel commands: common and kernel options, then
 * extra (for the command's own, may be NULL).  0, or the exit status.
 */
static int parse_kernel_args(int argc, char **argv, const struct option *opts,
			     struct common *c, struct kernel_opts *k,
			     int (*extra)(int opt, const char *arg,
					  void *payload),
			     void *payload, const char *name)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int r = common_opt(c, opt, optarg);

		if (!r)
			r = kernel_opt(k, opt, optarg);
		if (!r && extra)
			r = extra(opt, optarg, payload);
		if (r < 0)
			return fail(ERR_INPUT);
		if (!r)
			return usage_error("bad option for %s", name);
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = "." };
	struct kernel_opts k = { .runs = 1 };
	struct report_info ri = { .mode = "bisect" };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct session s;
	struct gu_repo *repo = NULL;
	char *out = NULL;
	int rc = 0, status;

	status = parse_kernel_args(argc, argv, opts, &c, &k, NULL, NULL,
				   "bisect");
	if (status)
		return status;
	session_init(&s);
	rc = setup_session(&s, &c, &repo);
	if (!rc)
		rc = kernel_setup(&ctx, &recipe, &k, repo);
	if (rc)
		goto fail;
	if ((rc = lock_work_dir(&ctx)))
		goto fail;
	out = make_out_dir(c.out);
	if (!out) {
		rc = ERR_INFRA;
		goto fail;
	}
	ctx.out_dir = out;
	s.out_dir = out;
	s.progress = stderr;
	s.check_endpoints = 1;
	s.test = bisect_test;
	s.payload = &ctx;
	fprintf(stderr, "bisectctl: recipe %s, work directory %s, output %s\n",
		recipe.name, ctx.work_dir, out);
	rc = session_run(&s);
	ri.repo_path = c.repo_path;
	ri.recipe = &recipe;
	ri.test_script = ctx.test;
	ri.runs = ctx.runs;
	ri.out_dir = out;
	ri.config_path = ctx.last_config;
	ri.accel = ctx.accel;
	status = finish(&s, &ri, c.json, rc);
	goto out;
fail:
	status = fail(rc);
out:
	session_release(&s);
	free(s.goods);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	return status;
}

/* Print and save one step's result; the exit status for its verdict. */
static int print_step(const struct session_step *st, const char *json_path,
		      const char *out_dir)
{
	struct buf text;
	char *json = NULL, *path;
	int status;

	buf_init(&text, 1 << 20);
	if (report_step(&json, &text, st)) {
		buf_release(&text);
		return fail(ERR_NOMEM);
	}
	path = util_fmt("%s/step.json", out_dir);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	if (json_path && util_write_atomic(json_path, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	fputs(buf_str(&text), stdout);
	switch (st->verdict) {
	case VERDICT_GOOD:
		status = 0;
		break;
	case VERDICT_BAD:
		status = 1;
		break;
	case VERDICT_SKIP:
		status = 125;
		break;
	default:
		fprintf(stderr, "bisectctl: infrastructure failure: %s\n",
			st->title);
		status = EXIT_INFRA;
	}
	free(json);
	buf_release(&text);
	return status;
}

/*
 * test: build and boot one commit.  Exit status as a bisect run command:
 * 0 good, 1 bad, 125 skip (does not build), 2 bad input, 3 infra.
 */
/* test's own option: --commit REV. */
static int commit_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'C')
		return 0;
	*(const char **)payload = arg;
	return 1;
}

static int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = "." };
	const char *rev = NULL;
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct session_step st = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	char *out = NULL;
	int rc, status;

	status = parse_kernel_args(argc, argv, opts, &c, &k, commit_opt, &rev,
				   "test");
	if (status)
		return status;
	if (!rev)
		return usage_error("test needs --commit REV");
	rc = setup_one_commit(&ctx, &recipe, &k, c.repo_path, rev, &repo, &oid);
	if (rc)
		goto fail;
	out = make_out_dir(c.out);
	if (!out) {
		rc = ERR_INFRA;
		goto fail;
	}
	ctx.out_dir = out;
	st.exit_code = -1;
	st.role = "test";
	gu_oid_hex(st.hex, &oid);
	rc = bisect_test(&st, &oid, &ctx);
	if (rc)
		goto fail;
	if (st.config_notes && *st.config_notes)
		fprintf(stderr, "%s", st.config_notes);
	status = print_step(&st, c.json, out);
	goto out;
fail:
	status = fail(rc);
out:
	session_step_release(&st);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	return status;
}

#define MAX_PATCHES 16

struct patches {
	const char *names[MAX_PATCHES];
	char *texts[MAX_PATCHES];
	size_t lens[MAX_PATCHES];
	size_t n;
};

/* Read a patch file: it must be text and hold something. */
static int read_patch(struct patches *p, const char *path)
{
	struct buf b;
	int rc;

	if (p->n == MAX_PATCHES)
		return err_set(ERR_INPUT, "more than %d patches", MAX_PATCHES);
	buf_init(&b, 64u << 20);
	rc = buf_read_file(&b, path);
	if (rc) {
		buf_release(&b);
		return err_wrap(ERR_INPUT, "patch");
	}
	if (b.len == 0)
		rc = err_set(ERR_INPUT, "patch '%s' is empty", path);
	else if (memchr(b.ptr, '\0', b.len))
		rc = err_set(ERR_INPUT, "patch '%s' is binary, not a diff",
			     path);
	if (rc) {
		buf_release(&b);
		return rc;
	}
	p->names[p->n] = path;
	p->lens[p->n] = b.len;
	p->texts[p->n++] = buf_detach(&b);
	return 0;
}

/* verify's own option: --patch FILE, read at once. */
static int patch_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'p')
		return 0;
	return read_patch(payload, arg) ? -1 : 1;
}

static void release_patches(struct patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->texts[i]);
	p->n = 0;
}

/* The answer of a fix check, and its exit status. */
static int verify_verdict(char *reason, size_t size,
			  const struct session_step *b,
			  const struct session_step *p, const char **result)
{
	if (b->verdict == VERDICT_INFRA || p->verdict == VERDICT_INFRA) {
		*result = "inconclusive";
		snprintf(reason, size, "infrastructure failure: %s",
			 b->verdict == VERDICT_INFRA ? b->title : p->title);
		return EXIT_INFRA;
	}
	if (b->verdict != VERDICT_BAD) {
		*result = "inconclusive";
		snprintf(reason, size,
			 "the failure does not reproduce without the patches "
			 "(%s%s%s)",
			 verdict_name(b->verdict), *b->title ? ": " : "",
			 b->title);
		return 4;
	}
	if (p->verdict == VERDICT_SKIP) {
		*result = "inconclusive";
		snprintf(reason, size, "the patched tree does not build: %s",
			 p->title);
		return 4;
	}
	if (p->verdict == VERDICT_GOOD) {
		*result = "fixed";
		snprintf(reason, size,
			 "all %d run(s) pass with the patches; without them "
			 "%d of %d failed (%s)",
			 p->runs, b->runs_failed, b->runs, b->title);
		return 0;
	}
	*result = "not fixed";
	snprintf(reason, size,
		 "%d of %d run(s) still fail with the patches (%s)",
		 p->runs_failed, p->runs, p->title);
	return 1;
}

/*
 * verify: does a patch fix the failure at a commit?  The commit is built
 * and booted without and with the patches, --runs times each.  Exit
 * status 0 fixed, 1 not fixed, 2 bad input, 3 infra, 4 inconclusive.
 */
static int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "bad", required_argument, NULL, 'b' },
		{ "patch", required_argument, NULL, 'p' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = "." };
	const char *result = "";
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct session_step base = { 0 }, patched = { 0 };
	struct patches p = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid, poid;
	struct verify_report vr = { 0 };
	struct buf text;
	char reason[2048], phex[GU_HEXSZ + 1], *out = NULL, *src = NULL;
	char *json = NULL;
	int rc = 0, status;

	status = parse_kernel_args(argc, argv, opts, &c, &k, patch_opt, &p,
				   "verify");
	if (status) {
		release_patches(&p);
		return status;
	}
	buf_init(&text, 1 << 20);
	if (!c.bad || !p.n)
		rc = err_set(ERR_INPUT,
			     "verify needs --bad REV and --patch FILE");
	if (!rc)
		rc = setup_one_commit(&ctx, &recipe, &k, c.repo_path, c.bad,
				      &repo, &oid);
	if (!rc && !(src = util_fmt("%s/src", ctx.work_dir)))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = util_mkdir_p(src);
	if (!rc)
		rc = gu_apply_patches(&poid, repo, src, &oid, p.names,
				      (const char *const *)p.texts, p.lens,
				      p.n);
	if (!rc && !(out = make_out_dir(c.out)))
		rc = ERR_INFRA;
	if (rc)
		goto fail;
	ctx.out_dir = out;
	base.exit_code = patched.exit_code = -1;
	base.role = "base";
	patched.role = "patched";
	gu_oid_hex(base.hex, &oid);
	gu_oid_hex(patched.hex, &poid);
	gu_oid_hex(phex, &poid);
	if ((rc = bisect_test(&base, &oid, &ctx)) ||
	    (rc = bisect_test(&patched, &poid, &ctx)))
		goto fail;
	status = verify_verdict(reason, sizeof(reason), &base, &patched,
				&result);
	vr.result = result;
	vr.reason = reason;
	vr.repo_path = c.repo_path;
	vr.patches = p.names;
	vr.npatches = p.n;
	vr.patched_hex = phex;
	vr.base = &base;
	vr.patched = &patched;
	if (report_verify(&json, &text, &vr)) {
		status = fail(ERR_NOMEM);
		goto out;
	}
	fputs(buf_str(&text), stdout);
	{
		char *path = util_fmt("%s/verify.json", out);

		if (path)
			util_write_atomic(path, json, strlen(json));
		free(path);
	}
	if (c.json && util_write_atomic(c.json, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	goto out;
fail:
	status = fail(rc);
out:
	release_patches(&p);
	session_step_release(&base);
	session_step_release(&patched);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	buf_release(&text);
	free(json);
	free(src);
	free(out);
	return status;
}

/* config FILE: print the kernel config in a file or a kernel package. */
static int cmd_config(int argc, char **argv)
{
	struct buf b;
	int rc;

	if (argc != 2)
		return usage_error("config needs exactly one FILE");
	buf_init(&b, 64u << 20);
	rc = kconfig_read(&b, argv[1]);
	if (!rc)
		fwrite(b.ptr, 1, b.len, stdout);
	buf_release(&b);
	return rc ? fail(rc) : 0;
}

/* --- the table ---------------------------------------------------------- */

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "run", cmd_run,
	  "run [--repo DIR] --good REV [--good REV]... --bad REV\n"
	  "      [--json FILE] [--out DIR] [--replay LOG] -- CMD [ARG]...\n"
	  "      Bisect any git repository with CMD, as git bisect run does:\n"
	  "      exit 0 good, 125 skip, 1-127 bad, anything else aborts." },
	{ "bisect", cmd_bisect,
	  "bisect [--repo DIR] --good REV [--good REV]... --bad REV\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      [--out DIR] [--replay LOG]\n"
	  "      Bisect a kernel: build and boot each step in QEMU." },
	{ "test", cmd_test,
	  "test [--repo DIR] --commit REV --recipe NAME [--test SCRIPT]\n"
	  "      [--runs N] [--json FILE] [--out DIR]\n"
	  "      Build and boot one commit; exit 0 good, 1 bad, 125 skip." },
	{ "verify", cmd_verify,
	  "verify [--repo DIR] --bad REV --patch FILE [--patch FILE]...\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      Does the patch fix the failure at REV?  Tests REV without\n"
	  "      and with the patches (diffs or git format-patch mails),\n"
	  "      N runs each; exit 0 fixed, 1 not fixed, 4 inconclusive." },
	{ "config", cmd_config,
	  "config FILE\n"
	  "      Print the kernel config in FILE: a config (plain or\n"
	  "      compressed), a linux-image .deb or a kernel-core .rpm,\n"
	  "      read without installing anything.  A recipe's base can be\n"
	  "      any of these too." },
	{ "help", cmd_help, "help\n      Show this text." },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: bisectctl <command> [options]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  bisectctl %s\n\n", commands[i].usage);
	printf("exit status: 0 first bad commit found, 1 ambiguous (only "
	       "skipped commits left),\n2 bad input, 3 infrastructure "
	       "failure.\n");
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int status;

	if (argc < 2)
		return cmd_help(argc, argv), EXIT_INPUT;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (gu_init())
			return fail(ERR_INFRA);
		status = commands[i].fn(argc - 1, argv + 1);
		gu_shutdown();
		return status;
	}
	fprintf(stderr,
		"bisectctl: unknown command '%s' (see bisectctl help)\n",
		argv[1]);
	return EXIT_INPUT;
}
