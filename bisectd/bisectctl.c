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
		{ "replay", required_argument, NULL, 'R' }

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
	uint64_t h = 1469598103934665603ull;

	if (realpath(p, real))
		p = real;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return util_fmt("%016llx", (unsigned long long)h);
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
				       (int)getpid()) :
			      NULL;
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
		struct proc_opts o = { .cwd = c->worktree, .env = env,
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
	int opt, rc, status;

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
	if (!out || (rc = util_mkdir_p(wt))) {
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
	return status;
}

/* --- kernel mode -------------------------------------------------------- */

struct bisect_ctx {
	struct gu_repo *repo;
	const struct recipe *recipe;
	const char *test;
	int runs;
	const char *work_dir;
	const char *out_dir;
	unsigned n;
	char *last_config;
	const char *accel;
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
	struct step_spec spec = { .repo = c->repo, .commit = *commit,
				  .recipe = c->recipe, .test_script = c->test,
				  .runs = c->runs, .work_dir = c->work_dir,
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

static int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		{ "recipe", required_argument, NULL, 'c' },
		{ "test", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = "." };
	struct report_info ri = { .mode = "bisect" };
	struct bisect_ctx ctx = { .runs = 1 };
	struct recipe recipe = { 0 };
	struct session s;
	struct gu_repo *repo = NULL;
	const char *recipe_name = NULL, *test = NULL;
	char *cache = NULL, *key = NULL, *work = NULL, *out = NULL;
	char *test_abs = NULL;
	int opt, rc, status;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;

		if (common_opt(&c, opt, optarg) == 1)
			continue;
		switch (opt) {
		case 'c':
			recipe_name = optarg;
			break;
		case 't':
			test = optarg;
			break;
		case 'n':
			ctx.runs = (int)strtol(optarg, &end, 10);
			if (*end || ctx.runs < 1 || ctx.runs > 100)
				return usage_error("--runs needs a number from "
						   "1 to 100, not '%s'",
						   optarg);
			break;
		default:
			return usage_error("bad option for bisect");
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!recipe_name)
		return usage_error("bisect needs --recipe NAME");
	session_init(&s);
	rc = load_recipe(&recipe, recipe_name);
	if (!rc && test && !util_is_executable(test))
		rc = err_set(ERR_INPUT, "test script '%s' is not an "
					"executable file",
			     test);
	if (!rc && test && !(test_abs = realpath(test, NULL)))
		rc = err_sys(ERR_INPUT, "test script '%s'", test);
	if (!rc)
		rc = setup_session(&s, &c, &repo);
	if (rc)
		goto fail;
	cache = util_cache_dir();
	key = repo_key(repo);
	work = cache && key ? util_fmt("%s/work/%s-%s", cache, key,
				       recipe.name) :
			      NULL;
	if (!work) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto fail;
	}
	out = make_out_dir(c.out);
	if (!out) {
		rc = ERR_INFRA;
		goto fail;
	}
	ctx.repo = repo;
	ctx.recipe = &recipe;
	ctx.test = test_abs;
	ctx.work_dir = work;
	ctx.out_dir = out;
	s.out_dir = out;
	s.progress = stderr;
	s.check_endpoints = 1;
	s.test = bisect_test;
	s.payload = &ctx;
	fprintf(stderr, "bisectctl: recipe %s, work directory %s, output %s\n",
		recipe.name, work, out);
	rc = session_run(&s);
	ri.repo_path = c.repo_path;
	ri.recipe = &recipe;
	ri.test_script = test_abs;
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
	recipe_release(&recipe);
	gu_close(repo);
	free(ctx.last_config);
	free(test_abs);
	free(cache);
	free(key);
	free(work);
	free(out);
	return status;
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
	fprintf(stderr, "bisectctl: unknown command '%s' (see bisectctl help)\n",
		argv[1]);
	return EXIT_INPUT;
}
