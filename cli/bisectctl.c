// SPDX-License-Identifier: GPL-2.0-only
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
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "classify.h"
#include "error.h"
#include "gitutil.h"
#include "mbox.h"
#include "recipe.h"
#include "regstats.h"
#include "releases.h"
#include "http.h"
#include "remote.h"
#include "cmdreport.h"
#include "report.h"
#include "digest.h"
#include "embed.h"
#include "job.h"
#include "log.h"
#include "maintrepo.h"
#include "session.h"
#include "srcimport.h"
#include "util.h"
#include "worker.h"

#ifndef DATADIR
#define DATADIR "/usr/local/share/bisectd"
#endif

enum { EXIT_FOUND = 0, EXIT_AMBIGUOUS = 1, EXIT_INPUT = 2, EXIT_INFRA = 3 };

/* bisectctl --server URL [--token T]: jobs go to that bisectd. */
static const char *server, *token;

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

/* long options without a letter of their own */
enum { OPT_BASE_RELEASE = 1001, OPT_FLAVOUR };

/* Options of the kernel-mode commands. */
struct kernel_opts {
	const char *recipe;
	const char *test;
	int runs;
	/* the config of Debian's linux-image-BASE_RELEASE-FLAVOUR as the
	 * recipe's base (a job's base_release) */
	const char *base_release, *flavour;
};

/* Options common to run and bisect. */
struct common {
	const char *repo_path;
	const char *bad;
	const char *goods[64];
	size_t ngoods;
	const char *json;
	const char *out;
	const char *replay;
	int workers;
	double confidence;   /* 0: git's bisection; -1: not given */
	const char *failure; /* the target failure, an ERE, or NULL */
	int max_runs, endpoint_runs;
	const char *mail_from; /* report.mail's From, or NULL */
};

/* Long options without a letter (the letters are the commands' own). */
enum {
	OPT_CONFIDENCE = 256,
	OPT_FAILURE,
	OPT_MAX_RUNS,
	OPT_ENDPOINT_RUNS,
	OPT_APPLY,
	OPT_NETWORK,
	OPT_MAIL_FROM,
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
	case OPT_MAIL_FROM:
		if (mail_address_check(arg)) {
			err_wrap(ERR_INPUT, "--mail-from");
			return -1;
		}
		c->mail_from = arg;
		return 1;
	case OPT_CONFIDENCE: {
		char *end;

		c->confidence = strtod(arg, &end);
		if (*end || end == arg ||
		    !(c->confidence == 0 ||
		      (c->confidence >= 0.5 && c->confidence < 1))) {
			err_set(ERR_INPUT,
				"--confidence needs 0 (git's bisection) or a "
				"probability from 0.5 to below 1, not '%s'",
				arg);
			return -1;
		}
		return 1;
	}
	case OPT_FAILURE: {
		regex_t re;

		if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB)) {
			err_set(ERR_INPUT,
				"--failure needs an extended regular "
				"expression, not '%s'",
				arg);
			return -1;
		}
		regfree(&re);
		c->failure = arg;
		return 1;
	}
	case OPT_MAX_RUNS:
	case OPT_ENDPOINT_RUNS: {
		char *end;
		long n = strtol(arg, &end, 10);

		if (*end || n < 1 || n > (opt == OPT_MAX_RUNS ? 100000 : 100)) {
			err_set(ERR_INPUT,
				"--%s needs a number from 1 to %d, "
				"not '%s'",
				opt == OPT_MAX_RUNS ? "max-runs"
						    : "endpoint-runs",
				opt == OPT_MAX_RUNS ? 100000 : 100, arg);
			return -1;
		}
		*(opt == OPT_MAX_RUNS ? &c->max_runs : &c->endpoint_runs) =
			(int)n;
		return 1;
	}
	case 'W': {
		char *end;

		c->workers = (int)strtol(arg, &end, 10);
		if (*end || c->workers < 1 || c->workers > 64) {
			err_set(ERR_INPUT,
				"--workers needs a number from 1 to 64, not "
				"'%s'",
				arg);
			return -1;
		}
		return 1;
	}
	}
	return 0;
}

#define COMMON_LONGOPTS                                                        \
	{ "repo", required_argument, NULL, 'r' },                              \
		{ "good", required_argument, NULL, 'g' },                      \
		{ "bad", required_argument, NULL, 'b' },                       \
		{ "json", required_argument, NULL, 'j' },                      \
		{ "out", required_argument, NULL, 'o' },                       \
		{ "replay", required_argument, NULL, 'R' },                    \
		{ "confidence", required_argument, NULL, OPT_CONFIDENCE },     \
		{ "failure", required_argument, NULL, OPT_FAILURE },           \
		{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },         \
		{ "endpoint-runs", required_argument, NULL,                    \
		  OPT_ENDPOINT_RUNS },                                         \
		{ "mail-from", required_argument, NULL, OPT_MAIL_FROM },       \
	{                                                                      \
		"workers", required_argument, NULL, 'W'                        \
	}

/*
 * Verdicts from a bisect log to resume from: every "git bisect
 * good|bad|skip REV" line.  When --bad or --good was not given, the
 * log's first bad and its good commits stand in.  The log's own start
 * (its bad and good commits) is not a verdict to replay.
 */
static int read_replay(const struct common *c, struct gu_repo *repo,
		       struct job_spec *spec, struct sched_verdict **out,
		       size_t *n)
{
	struct buf text;
	const char *p;
	size_t cap = 0, i;
	int rc, had_good = spec->ngood > 0;

	*out = NULL;
	*n = 0;
	buf_init(&text, 16u << 20);
	if (buf_read_file(&text, c->replay)) {
		buf_release(&text);
		return err_wrap(ERR_INPUT, "cannot read bisect log");
	}
	rc = 0;
	for (p = buf_str(&text); *p && !rc; p += strcspn(p, "\n"), p += !!*p) {
		char verb[16], rev[256], hex[GU_HEXSZ + 1];
		struct gu_oid oid;
		enum verdict v;
		int start = 0;

		if (sscanf(p, "git bisect %15s %255s", verb, rev) != 2)
			continue;
		v = verdict_parse(verb);
		if (v != VERDICT_GOOD && v != VERDICT_BAD && v != VERDICT_SKIP)
			continue;
		if ((rc = gu_resolve(repo, rev, &oid))) {
			rc = err_wrap(ERR_INPUT, "bisect log '%s'", c->replay);
			break;
		}
		gu_oid_hex(hex, &oid);
		if (v == VERDICT_BAD && !spec->bad) {
			spec->bad = strdup(hex);
			start = 1;
		} else if (v == VERDICT_BAD && !strcmp(spec->bad, hex)) {
			start = 1;
		} else if (v == VERDICT_GOOD && !had_good && !spec->ngood) {
			spec->good[spec->ngood++] = strdup(hex);
			start = 1;
		}
		for (i = 0; v == VERDICT_GOOD && i < spec->ngood; i++)
			start |= !strcmp(spec->good[i], hex);
		if (start)
			continue;
		if (*n == cap) {
			struct sched_verdict *r;

			cap = cap ? cap * 2 : 64;
			r = realloc(*out, cap * sizeof(*r));
			if (!r) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			*out = r;
		}
		snprintf((*out)[*n].hex, sizeof((*out)[*n].hex), "%s", hex);
		(*out)[(*n)++].verdict = verdict_name(v);
	}
	buf_release(&text);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/*
 * The confidence options; with a confidence the endpoints are run.  A
 * kernel bisection is made to JOB_KERNEL_CONFIDENCE unless told otherwise
 * (--confidence 0 is git's bisection); a command's is git's unless given
 * a confidence.
 */
static void confidence_spec(struct job_spec *spec, const struct common *c,
			    int kernel)
{
	spec->confidence = c->confidence >= 0 ? c->confidence
			   : kernel	      ? JOB_KERNEL_CONFIDENCE
					      : 0;
	spec->failure = c->failure ? strdup(c->failure) : NULL;
	spec->max_runs = c->max_runs;
	spec->endpoint_runs = c->endpoint_runs ? c->endpoint_runs : 10;
	spec->check_endpoints = spec->confidence > 0 || c->failure;
}

/*
 * The request for a bisection from the command line: the repository,
 * the revisions resolved, and the verdicts of a log to resume from.
 */
static int bisect_spec(struct job_spec *spec, const struct common *c,
		       int kernel, struct gu_repo **repo,
		       struct sched_verdict **known, size_t *nknown)
{
	char real[PATH_MAX], hex[GU_HEXSZ + 1];
	struct gu_oid oid;
	size_t i;
	int rc;

	memset(spec, 0, sizeof(*spec));
	*known = NULL;
	*nknown = 0;
	snprintf(spec->type, sizeof(spec->type), "bisect");
	spec->runs = 1;
	confidence_spec(spec, c, kernel);
	if (!c->replay && (!c->bad || !c->ngoods))
		return err_set(ERR_INPUT, "need --bad and at least one --good");
	if (c->replay && access(c->replay, R_OK))
		return err_sys(ERR_INPUT, "cannot read bisect log '%s'",
			       c->replay);
	rc = gu_open(repo, c->repo_path);
	if (rc)
		return rc;
	spec->repo = strdup(realpath(c->repo_path, real) ? real : c->repo_path);
	if (c->bad) {
		if ((rc = gu_resolve(*repo, c->bad, &oid)))
			return rc;
		gu_oid_hex(hex, &oid);
		spec->bad = strdup(hex);
	}
	for (i = 0; i < c->ngoods; i++) {
		if ((rc = gu_resolve(*repo, c->goods[i], &oid)))
			return rc;
		gu_oid_hex(hex, &oid);
		spec->good[spec->ngood++] = strdup(hex);
	}
	if (c->replay && (rc = read_replay(c, *repo, spec, known, nknown)))
		return rc;
	if (!spec->bad || !spec->ngood)
		return err_set(ERR_INPUT, "need a bad commit and a good one");
	for (i = 0; i < spec->ngood; i++) {
		struct gu_oid bad, good, mb;

		gu_oid_parse(&bad, spec->bad);
		gu_oid_parse(&good, spec->good[i]);
		if (gu_is_ancestor(*repo, &good, &bad) == 0 &&
		    gu_merge_base(*repo, &good, &bad, &mb) == 0 &&
		    !gu_oid_equal(&mb, &bad)) {
			gu_oid_hex(hex, &mb);
			fprintf(stderr,
				"good commit %.12s is not an ancestor of bad "
				"commit %.12s; testing their merge base %.12s "
				"first\n",
				spec->good[i], spec->bad, hex);
		}
	}
	return 0;
}

/* A release given with option opt and --flavour: both or neither, each
 * a word of its kind. */
static int release_words_ok(const char *release, const char *flavour,
			    const char *opt)
{
	if (!release != !flavour)
		return err_set(ERR_INPUT, "%s and --flavour go together", opt);
	if (release && (!job_release_ok(release) || !job_flavour_ok(flavour)))
		return err_set(ERR_INPUT,
			       "%s takes a release such as 6.1.0-47 and "
			       "--flavour one such as cloud-amd64 (each from "
			       "a letter or digit)",
			       opt);
	return 0;
}

static int base_release_ok(const struct kernel_opts *k)
{
	return release_words_ok(k->base_release, k->flavour, "--base-release");
}

/* Debian's linux-image-ABI-FLAVOUR, fetched with APT into the cache
 * (APT's logs beside it): its path into *deb. */
static int release_deb(const char *flavour, const char *abi, char **deb)
{
	char *cache = util_cache_dir();
	char *dir = cache ? util_fmt("%s/releases", cache) : NULL;
	int rc = dir ? releases_package(cache, flavour, abi, dir, deb)
		     : err_set(ERR_INFRA, "no cache directory");

	free(cache);
	free(dir);
	return rc;
}

/*
 * The request for bisectd: the repository as bisectd will see it (a URL,
 * or this machine's absolute path), revisions as given (bisectd resolves
 * them), the test script's text.
 */
static int remote_spec(struct job_spec *spec, const char *type,
		       const struct common *c, const struct kernel_opts *k)
{
	char real[PATH_MAX];
	size_t i;

	memset(spec, 0, sizeof(*spec));
	snprintf(spec->type, sizeof(spec->type), "%s", type);
	spec->runs = k ? k->runs : 1;
	if (c->replay)
		return err_set(ERR_INPUT,
			       "--replay works without --server only");
	spec->repo = strdup(strstr(c->repo_path, "://") ||
					    !realpath(c->repo_path, real)
				    ? c->repo_path
				    : real);
	spec->bad = c->bad ? strdup(c->bad) : NULL;
	for (i = 0; i < c->ngoods; i++)
		spec->good[spec->ngood++] = strdup(c->goods[i]);
	spec->max_workers = c->workers;
	if (k && k->recipe)
		spec->recipe = strdup(k->recipe);
	if (k && base_release_ok(k))
		return ERR_INPUT;
	if (k && k->base_release) {
		spec->base_release = strdup(k->base_release);
		spec->flavour = strdup(k->flavour);
	}
	if (k && k->test) {
		struct buf t;

		buf_init(&t, 1 << 20);
		if (buf_read_file(&t, k->test)) {
			buf_release(&t);
			return err_wrap(ERR_INPUT, "test script");
		}
		spec->test = buf_detach(&t);
	}
	confidence_spec(spec, c, k && !strcmp(type, "bisect"));
	spec->check_endpoints |= k != NULL;
	return 0;
}

/* Run the job in-process and fill s for the reports. */
static int run_embedded(struct session *s, int *code, const struct common *c,
			const struct job_spec *spec,
			const struct sched_verdict *known, size_t nknown,
			const char *out, const char *recipe_path)
{
	struct embed_opts eo = { .out_dir = out,
				 .recipe_path = recipe_path,
				 .workers = c->workers ? c->workers : 1,
				 .progress = stderr,
				 .live = isatty(2) };
	char *json = job_spec_dump(spec), *cache = util_cache_dir();
	int rc;

	eo.cache_dir = cache;
	rc = json && cache ? embed_run(s, code, &eo, json, known, nknown)
			   : err_set(ERR_NOMEM, "out of memory");
	free(json);
	free(cache);
	return rc;
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
	{
		/* absolute: steps run in other directories */
		char *abs = realpath(dir, NULL);

		free(dir);
		if (!abs)
			err_sys(ERR_INFRA, "output directory");
		return abs;
	}
}

/* Write the reports, print the text one; returns the exit status. */
static int finish(struct session *s, struct report_info *ri,
		  const char *json_path, int rc)
{
	struct buf text;
	char *json = NULL, *path, ident[512];

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
	if (!rc && s->state == ENGINE_FOUND) {
		struct report_info mi = *ri; /* ident lives only here */
		struct buf mail;

		/* from whoever bisects, as git send-email's mail would be,
		 * unless --mail-from says otherwise */
		if (!mi.mail_from &&
		    !gu_user_ident(s->repo, ident, sizeof(ident)) &&
		    !mail_address_check(ident))
			mi.mail_from = ident;
		buf_init(&mail, 64u << 20);
		path = util_fmt("%s/report.mail", ri->out_dir);
		if (path && !report_mail(&mail, s, &mi, ri->out_dir))
			util_write_atomic(path, mail.ptr, mail.len);
		free(path);
		buf_release(&mail);
	}
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

/* The command line as one shell command, each argument quoted. */
static char *shell_join(char *const *argv)
{
	struct buf b;
	const char *p;

	buf_init(&b, 1 << 20);
	for (; *argv; argv++) {
		buf_puts(&b, b.len ? " '" : "'");
		for (p = *argv; *p; p++)
			if (*p == '\'')
				buf_puts(&b, "'\\''");
			else
				buf_put(&b, p, 1);
		buf_puts(&b, "'");
	}
	return buf_detach(&b);
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
					      { "network", no_argument, NULL,
						OPT_NETWORK },
					      { NULL, 0, NULL, 0 } };
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct report_info ri = { .mode = "run" };
	int network = 0;
	struct job_spec spec;
	struct sched_verdict *known = NULL;
	size_t nknown = 0;
	struct session s;
	struct gu_repo *repo = NULL;
	char *out = NULL, *cmdline = NULL;
	int opt, rc, status, code = 0;

	while ((opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		int r = opt == OPT_NETWORK ? (network = 1)
					   : common_opt(&c, opt, optarg);

		if (r < 0)
			return fail(ERR_INPUT);
		if (r != 1)
			return usage_error("bad option for run");
	}
	if (optind >= argc)
		return usage_error("run needs a command after --");
	if (network && !server)
		return usage_error("--network is for a bisectd's workers "
				   "(--server); here CMD runs as you, with "
				   "your network");
	if (strchr(argv[optind], '/') ? !util_is_executable(argv[optind])
				      : !util_in_path(argv[optind])) {
		fprintf(stderr,
			"bisectctl: cannot run '%s': no such "
			"executable\n",
			argv[optind]);
		return EXIT_INPUT;
	}
	if (server) {
		rc = remote_spec(&spec, "bisect", &c, NULL);
		spec.command = shell_join(argv + optind);
		spec.network = network;
		status = rc ? fail(rc)
			    : remote_run(server, token, &spec, c.json, stderr);
		job_spec_release(&spec);
		return status;
	}
	session_init(&s);
	rc = bisect_spec(&spec, &c, 0, &repo, &known, &nknown);
	if (rc)
		goto fail;
	spec.command = shell_join(argv + optind);
	out = make_out_dir(c.out);
	if (!out || !spec.command) {
		rc = ERR_INFRA;
		goto fail;
	}
	s.repo = repo;
	rc = run_embedded(&s, &code, &c, &spec, known, nknown, out, "");
	if (rc)
		goto fail;
	cmdline = join_args(argv + optind);
	ri.repo_path = c.repo_path;
	ri.command = cmdline;
	ri.out_dir = out;
	ri.mail_from = c.mail_from;
	status = finish(&s, &ri, c.json, code);
	goto out;
fail:
	status = fail(rc);
out:
	session_release(&s);
	free(s.goods);
	job_spec_release(&spec);
	free(known);
	gu_close(repo);
	free(cmdline);
	free(out);
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
	int lock;    /* holds the work directory's lock, or -1 */
	int sandbox; /* build in the sandbox (untrusted patches) */
};

/* One kernel step of test or verify, in the command's output directory. */
static int bisect_test(struct step_result *st, const struct gu_oid *commit,
		       void *payload)
{
	struct bisect_ctx *c = payload;
	struct step_spec spec = { .repo = c->repo,
				  .commit = *commit,
				  .recipe = c->recipe,
				  .test_script = c->test,
				  .runs = c->runs,
				  .work_dir = c->work_dir,
				  .live = isatty(2),
				  .sandbox = c->sandbox };
	char hex[GU_HEXSZ + 1], *dir;
	int rc;

	gu_oid_hex(hex, commit);
	dir = util_fmt("%s/steps/%02u-%.12s", c->out_dir, ++c->n, hex);
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	spec.step_dir = dir;
	rc = pipeline_step(st, &spec);
	free(dir);
	if (rc)
		return rc;
	if (st->accel)
		c->accel = st->accel;
	if (st->verdict != VERDICT_INFRA && st->config_path) {
		free(c->last_config);
		c->last_config = strdup(st->config_path);
	}
	return 0;
}

static char *recipe_search_path(void)
{
	return recipe_default_path(DATADIR);
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

/* bisect's own option: --apply FILE, read at once. */
static int apply_opt(int opt, const char *arg, void *payload)
{
	if (opt != OPT_APPLY)
		return 0;
	return read_patch(payload, arg) ? -1 : 1;
}

/* The --apply patches into the request, by their file names. */
static int apply_spec(struct job_spec *spec, const struct patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const char *base = strrchr(p->names[i], '/');

		spec->patch_names[i] = strdup(base ? base + 1 : p->names[i]);
		spec->patch_texts[i] = strndup(p->texts[i], p->lens[i]);
		spec->npatches = i + 1;
		if (!spec->patch_names[i] || !spec->patch_texts[i])
			return err_set(ERR_NOMEM, "out of memory");
	}
	return 0;
}

static void release_patches(struct patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->texts[i]);
	p->n = 0;
}

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
	case OPT_BASE_RELEASE:
		k->base_release = arg;
		return 1;
	case OPT_FLAVOUR:
		k->flavour = arg;
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
		{ "base-release", required_argument, NULL, OPT_BASE_RELEASE }, \
		{ "flavour", required_argument, NULL, OPT_FLAVOUR },           \
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
	if ((rc = base_release_ok(k)))
		return rc;
	rc = load_recipe(recipe, k->recipe);
	if (rc)
		return rc;
	if (k->base_release) {
		/* that release's package: its config is the base */
		char *deb = NULL;

		if ((rc = release_deb(k->flavour, k->base_release, &deb)))
			return rc;
		free(recipe->base);
		recipe->base = deb;
	}
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
	key = steprun_repo_key(repo);
	ctx->work_dir =
		cache && key
			? util_fmt("%s/work/%s-%s%s%s", cache, key,
				   recipe->name, k->base_release ? "-" : "",
				   k->base_release ? k->base_release : "")
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

/* Take the work directory for this command: create it, lock it, and
 * make it this process's (sandbox_claim_work()). */
static int lock_work_dir(struct bisect_ctx *ctx)
{
	int rc = util_mkdir_p(ctx->work_dir);

	if (!rc && (ctx->lock = util_lock_dir(ctx->work_dir)) < 0)
		rc = ctx->lock;
	if (!rc)
		rc = sandbox_claim_work(ctx->work_dir);
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
		{ "apply", required_argument, NULL, OPT_APPLY },
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct kernel_opts k = { .runs = 1 };
	struct patches apply = { 0 };
	struct report_info ri = { .mode = "bisect" };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct job_spec spec = { 0 };
	struct sched_verdict *known = NULL;
	size_t nknown = 0;
	struct session s;
	struct gu_repo *repo = NULL;
	struct buf test;
	char *out = NULL, *search = NULL;
	int rc = 0, status, code = 0;

	status = parse_kernel_args(argc, argv, opts, &c, &k, apply_opt, &apply,
				   "bisect");
	if (status) {
		release_patches(&apply);
		return status;
	}
	if (server) {
		if (!k.recipe) {
			release_patches(&apply);
			return usage_error("bisect needs --recipe NAME");
		}
		rc = remote_spec(&spec, "bisect", &c, &k);
		if (!rc)
			rc = apply_spec(&spec, &apply);
		status = rc ? fail(rc)
			    : remote_run(server, token, &spec, c.json, stderr);
		job_spec_release(&spec);
		release_patches(&apply);
		return status;
	}
	session_init(&s);
	buf_init(&test, 1 << 20);
	rc = bisect_spec(&spec, &c, 1, &repo, &known, &nknown);
	if (!rc)
		rc = kernel_setup(&ctx, &recipe, &k, repo);
	if (!rc && ctx.test && buf_read_file(&test, ctx.test))
		rc = err_wrap(ERR_INPUT, "test script");
	if (rc)
		goto fail;
	spec.recipe = strdup(k.recipe);
	spec.base_release = k.base_release ? strdup(k.base_release) : NULL;
	spec.flavour = k.flavour ? strdup(k.flavour) : NULL;
	spec.test = ctx.test ? strdup(buf_str(&test)) : NULL;
	spec.runs = k.runs;
	spec.check_endpoints = 1;
	if ((rc = apply_spec(&spec, &apply)))
		goto fail;
	out = make_out_dir(c.out);
	search = recipe_search_path();
	if (!out || !search || !spec.recipe) {
		rc = out ? err_set(ERR_NOMEM, "out of memory") : ERR_INFRA;
		goto fail;
	}
	fprintf(stderr, "bisectctl: recipe %s, work directory %s, output %s\n",
		recipe.name, ctx.work_dir, out);
	s.repo = repo;
	rc = run_embedded(&s, &code, &c, &spec, known, nknown, out, search);
	if (rc)
		goto fail;
	session_last_config(&s, &ri.accel, &ri.config_path);
	ri.repo_path = c.repo_path;
	ri.recipe = &recipe;
	ri.test_script = ctx.test;
	ri.runs = ctx.runs;
	ri.out_dir = out;
	ri.mail_from = c.mail_from;
	status = finish(&s, &ri, c.json, code);
	goto out;
fail:
	status = fail(rc);
out:
	session_release(&s);
	free(s.goods);
	job_spec_release(&spec);
	free(known);
	buf_release(&test);
	release_patches(&apply);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	free(search);
	return status;
}

/* Print and save one step's result; the exit status for its verdict. */
static int print_step(const struct step_result *st, const char *json_path,
		      const char *out_dir)
{
	struct buf text;
	char *json = NULL, *path;
	int status;

	buf_init(&text, 1 << 20);
	if (step_result_dump(&json, &text, st)) {
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
	struct common c = { .repo_path = ".", .confidence = -1 };
	const char *rev = NULL;
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct step_result st = { 0 };
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
	if (server) {
		struct job_spec spec;

		if (!k.recipe)
			return usage_error("test needs --recipe NAME");
		rc = remote_spec(&spec, "test", &c, &k);
		spec.commit = strdup(rev);
		status = rc ? fail(rc)
			    : remote_run(server, token, &spec, c.json, stderr);
		job_spec_release(&spec);
		return status;
	}
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
	if (st.build_notes && *st.build_notes)
		fprintf(stderr, "%s", st.build_notes);
	status = print_step(&st, c.json, out);
	goto out;
fail:
	status = fail(rc);
out:
	step_result_release(&st);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	return status;
}

/* verify's own option: --patch FILE, read at once. */
static int patch_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'p')
		return 0;
	return read_patch(payload, arg) ? -1 : 1;
}

/* The answer of a fix check, and its exit status. */
static int verify_verdict(char *reason, size_t size,
			  const struct step_result *b,
			  const struct step_result *p, const char **result)
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
	struct common c = { .repo_path = ".", .confidence = -1 };
	const char *result = "";
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct step_result base = { 0 }, patched = { 0 };
	struct patches p = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid, poid;
	struct verify_report vr = { 0 };
	char **applied = NULL; /* the patches by subject, as applied */
	size_t napplied = 0;
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
		rc = mbox_apply_patches(&poid, repo, src, &oid, p.names,
					(const char *const *)p.texts, p.lens,
					p.n, &applied, &napplied);
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
	if ((rc = bisect_test(&base, &oid, &ctx)))
		goto fail;
	ctx.sandbox = util_in_path("bwrap"); /* the patches are not ours */
	if (!ctx.sandbox)
		fprintf(stderr,
			"bisectctl: warning: bubblewrap (bwrap) is "
			"not installed: the patched tree builds without "
			"a sandbox\n");
	if ((rc = bisect_test(&patched, &poid, &ctx)))
		goto fail;
	status = verify_verdict(reason, sizeof(reason), &base, &patched,
				&result);
	vr.result = result;
	vr.reason = reason;
	vr.repo_path = c.repo_path;
	vr.patches = (const char *const *)applied;
	vr.npatches = napplied;
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
	mbox_names_release(applied, napplied);
	step_result_release(&base);
	step_result_release(&patched);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	buf_release(&text);
	free(json);
	free(src);
	free(out);
	return status;
}

/* config FILE: print the kernel config in a file or a kernel package. */
/* --- build: patched distribution packages --------------------------- */

struct build_opts {
	struct patches p;
	const char *commit;
	int deb, rpm, dbg;
	int no_sandbox;
	const char *sign_key, *sign_cert;
	const char *source; /* a Debian linux-source-6.1 version */
	int install;	    /* --install-test */
};

/* build's own options: --commit, --patch, --format, --dbg. */
static int build_opt(int opt, const char *arg, void *payload)
{
	struct build_opts *b = payload;
	char *list, *f, *save = NULL;

	switch (opt) {
	case 'C':
		b->commit = arg;
		return 1;
	case 'p':
		return read_patch(&b->p, arg) ? -1 : 1;
	case 'D':
		b->dbg = 1;
		return 1;
	case 'N':
		b->no_sandbox = 1;
		return 1;
	case 'I':
		b->install = 1;
		return 1;
	case 'S':
		b->source = arg;
		return 1;
	case 'K':
	case 'T':
		if (access(arg, R_OK)) {
			err_sys(ERR_INPUT, "cannot read '%s'", arg);
			return -1;
		}
		*(opt == 'K' ? &b->sign_key : &b->sign_cert) = arg;
		return 1;
	case 'F':
		b->deb = b->rpm = 0;
		list = strdup(arg);
		for (f = strtok_r(list, ",", &save); f;
		     f = strtok_r(NULL, ",", &save)) {
			if (!strcmp(f, "deb"))
				b->deb = 1;
			else if (!strcmp(f, "rpm"))
				b->rpm = 1;
			else {
				err_set(ERR_INPUT,
					"unknown package format '%s': deb or "
					"rpm",
					f);
				free(list);
				return -1;
			}
		}
		free(list);
		return 1;
	}
	return 0;
}

/* build --server: the request for bisectd's build job. */
static int build_remote(const struct common *c, const struct kernel_opts *k,
			const struct build_opts *b)
{
	struct job_spec spec;
	size_t i;
	int rc, status;

	if (!k->recipe)
		return usage_error("build needs --recipe NAME");
	rc = remote_spec(&spec, "build", c, k);
	snprintf(spec.type, sizeof(spec.type), "build");
	spec.check_endpoints = 0;
	if (b->source) {
		/* bisectd imports the Debian source itself */
		free(spec.repo);
		spec.repo = NULL;
		spec.source = strdup(b->source);
	} else
		spec.commit = strdup(b->commit ? b->commit : "HEAD");
	for (i = 0; i < b->p.n; i++) {
		const char *base = strrchr(b->p.names[i], '/');

		spec.patch_names[i] = strdup(base ? base + 1 : b->p.names[i]);
		spec.patch_texts[i] = strdup(b->p.texts[i]);
	}
	spec.npatches = b->p.n;
	spec.deb = b->deb;
	spec.rpm = b->rpm;
	spec.dbg = b->dbg;
	spec.install_test = b->install;
	status = rc ? fail(rc)
		    : remote_run(server, token, &spec, c->json, stderr);
	job_spec_release(&spec);
	return status;
}

/* The build's options against what this machine has; ERR_INPUT. */
static int build_check(const struct build_opts *b)
{
	if (!b->deb && !b->rpm)
		return err_set(ERR_INPUT,
			       "no package format: --format deb,rpm");
	if (!b->no_sandbox && !util_in_path("bwrap"))
		return err_set(ERR_INPUT,
			       "builds of patches run in a bubblewrap sandbox: "
			       "install bubblewrap, or pass --no-sandbox");
	if (!b->sign_key != !b->sign_cert)
		return err_set(ERR_INPUT, "signing needs both --sign-key and "
					  "--sign-cert");
	if (b->sign_key && !util_in_path("sbsign"))
		return err_set(ERR_INPUT, "signing needs sbsign (package "
					  "sbsigntool)");
	if (b->sign_key) {
		/* the build must not read the key: hide its directory */
		char *dir = realpath(b->sign_key, NULL), *slash;

		if (dir && (slash = strrchr(dir, '/')) && slash != dir) {
			*slash = '\0';
			sandbox_hide(dir);
		}
		free(dir);
	}
	if (b->install) {
		int rc = install_check(b->deb, b->rpm);

		if (rc)
			return rc;
	}
	if (b->source && b->commit)
		return err_set(ERR_INPUT, "--source VERSION or --commit REV, "
					  "not both");
	return 0;
}

/*
 * The base of the build (Debian's source imported into the cache once,
 * or a commit of --repo), the work directory taken, and the patches
 * checked to apply before anything is written.
 */
static int build_base(struct bisect_ctx *ctx, struct recipe *recipe,
		      const struct kernel_opts *k, const struct common *c,
		      const struct build_opts *b, struct gu_repo **repo,
		      struct gu_oid *oid, char **cache)
{
	int rc;

	if (b->source) {
		*cache = util_cache_dir();
		rc = *cache ? srcimport_debian(repo, oid, *cache, b->source)
			    : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = kernel_setup(ctx, recipe, k, *repo);
		if (!rc)
			rc = lock_work_dir(ctx);
	} else {
		rc = setup_one_commit(ctx, recipe, k, c->repo_path,
				      b->commit ? b->commit : "HEAD", repo,
				      oid);
	}
	if (!rc && b->p.n) {
		char *src = util_fmt("%s/src", ctx->work_dir);
		struct gu_oid poid;

		rc = src ? util_mkdir_p(src)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = mbox_apply_patches(&poid, *repo, src, oid,
						b->p.names,
						(const char *const *)b->p.texts,
						b->p.lens, b->p.n, NULL, NULL);
		free(src);
	}
	if (!rc && !*cache && !(*cache = util_cache_dir()))
		rc = err_set(ERR_NOMEM, "out of memory");
	return rc;
}

/*
 * The build's report (stdout, OUT/build.json, --json) and its exit
 * status: 0 built and booted (and installed), 1 it did not build, 4 it
 * did not boot or install, EXIT_INFRA the machine failed.
 */
static int build_finish(const struct buildjob_result *r, const struct common *c,
			const char *recipe, const char *out)
{
	struct build_report br = {
		.result = buildjob_outcome(r),
		.id = r->id,
		.repo_path = c->repo_path,
		.base_hex = r->base_hex,
		.patched_hex = r->patched_hex,
		.patches = (const char *const *)r->applied,
		.npatches = r->napplied,
		.recipe = recipe,
		.packages = r->built ? &r->packages : NULL,
		.packages_dir = r->pkgdir,
		.smoke = &r->smoke,
		.install = r->installed ? &r->install : NULL,
		.out_dir = out,
	};
	struct buf text;
	char *json = NULL, *path;

	buf_init(&text, 1 << 20);
	if (report_build(&json, &text, &br)) {
		buf_release(&text);
		return fail(ERR_NOMEM);
	}
	fputs(buf_str(&text), stdout);
	buf_release(&text);
	path = util_fmt("%s/build.json", out);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	if (c->json && util_write_atomic(c->json, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	free(json);
	if (!r->built)
		fprintf(stderr, "bisectctl: %s: %s\n",
			r->smoke.verdict == VERDICT_INFRA
				? "infrastructure failure"
				: "the patched tree did not build",
			r->smoke.title);
	else if (r->installed && r->install.verdict != VERDICT_GOOD)
		fprintf(stderr, "bisectctl: install test: %s\n",
			r->install.title);
	if (!r->built)
		return r->smoke.verdict == VERDICT_INFRA ? EXIT_INFRA : 1;
	if (r->smoke.verdict != VERDICT_GOOD)
		return 4;
	if (r->installed && r->install.verdict == VERDICT_INFRA)
		return EXIT_INFRA;
	return r->installed && r->install.verdict != VERDICT_GOOD ? 4 : 0;
}

static int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ "patch", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'F' },
		{ "dbg", no_argument, NULL, 'D' },
		{ "no-sandbox", no_argument, NULL, 'N' },
		{ "install-test", no_argument, NULL, 'I' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "sign-cert", required_argument, NULL, 'T' },
		{ "source", required_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct kernel_opts k = { .runs = 1 };
	struct build_opts b = { .deb = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct buildjob_result r = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	char *out = NULL, *cache = NULL;
	int rc, status;

	status = parse_kernel_args(argc, argv, opts, &c, &k, build_opt, &b,
				   "build");
	if (status)
		goto done;
	if (server) {
		status = build_remote(&c, &k, &b);
		goto done;
	}
	rc = build_check(&b);
	if (!rc)
		rc = build_base(&ctx, &recipe, &k, &c, &b, &repo, &oid, &cache);
	if (!rc && !(out = make_out_dir(c.out)))
		rc = ERR_INFRA;
	if (!rc) {
		struct buildjob_spec bs = {
			.repo = repo,
			.base = oid,
			.names = b.p.names,
			.texts = (const char *const *)b.p.texts,
			.lens = b.p.lens,
			.npatches = b.p.n,
			.recipe = &recipe,
			.test_script = ctx.test,
			.runs = k.runs,
			.work_dir = ctx.work_dir,
			.out_dir = out,
			.deb = b.deb,
			.rpm = b.rpm,
			.dbg = b.dbg,
			.sandbox = !b.no_sandbox,
			.live = isatty(2),
			.sign_key = b.sign_key,
			.sign_cert = b.sign_cert,
			.install = b.install,
			.cache_dir = cache,
		};

		fprintf(stderr,
			"bisectctl: building %s with %zu patch(es), "
			"recipe %s%s, output %s\n",
			b.source   ? b.source
			: b.commit ? b.commit
				   : "HEAD",
			b.p.n, recipe.name, bs.sandbox ? " in the sandbox" : "",
			out);
		rc = buildjob_run(&r, &bs);
	}
	status = rc ? fail(rc) : build_finish(&r, &c, recipe.name, out);
done:
	release_patches(&b.p);
	buildjob_release(&r);
	kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	free(cache);
	return status;
}

static int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "release", required_argument, NULL, 'r' },
		{ "flavour", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *release = NULL, *flavour = NULL;
	char *deb = NULL;
	struct buf b;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'r')
			release = optarg;
		else if (opt == 'f')
			flavour = optarg;
		else
			return usage_error("bad option for config");
	}
	if (release_words_ok(release, flavour, "--release"))
		return usage_error("%s", err_last());
	if (optind + (release ? 0 : 1) != argc)
		return usage_error("config needs exactly one FILE, or "
				   "--release and --flavour");
	if (release)
		rc = release_deb(flavour, release, &deb);
	buf_init(&b, 64u << 20);
	if (!rc)
		rc = kconfig_read(&b, deb ? deb : argv[optind]);
	if (!rc)
		fwrite(b.ptr, 1, b.len, stdout);
	buf_release(&b);
	free(deb);
	return rc ? fail(rc) : 0;
}

/*
 * Classify a console log as a step's boot is: the verdict, the crash kind
 * and the title.  Without --marker, a log without a crash is good.
 */
static int cmd_classify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fail-on", required_argument, NULL, 'f' },
		{ "marker", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct classify_input in = { .fail_on = CRASH_DEFAULT,
				     .end = BOOT_EXITED };
	struct classification c;
	struct buf log;
	char *text;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'f' && crash_kinds_parse(&in.fail_on, optarg))
			return usage_error("--fail-on: '%s' is not a list of "
					   "crash kinds or all",
					   optarg);
		else if (opt == 'm')
			in.marker = optarg;
		else if (opt != 'f')
			return usage_error("bad option for classify");
	}
	if (optind + 1 != argc)
		return usage_error("classify needs exactly one LOG");
	buf_init(&log, 64u << 20);
	rc = buf_read_file(&log, argv[optind]);
	text = buf_detach_text(&log);
	if (!rc && !text)
		rc = err_set(ERR_NOMEM, "out of memory");
	in.console = text;
	if (!rc)
		rc = classify_console(&c, &in);
	free(text);
	if (rc)
		return fail(rc);
	if (!in.marker && !c.kind)
		c.verdict = VERDICT_GOOD;
	printf("verdict: %s\nkind: %s\ntitle: %s\n", verdict_name(c.verdict),
	       crash_kind_name(c.kind),
	       c.verdict == VERDICT_GOOD ? "" : c.title);
	rc = c.verdict == VERDICT_GOOD ? 0 : 1;
	classification_release(&c);
	return rc;
}

/*
 * Which subsystems regress most: Fixes: trailers over a range, counted
 * per MAINTAINERS section.
 */
static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *repo_path = ".", *json = NULL, *svg = NULL, *range;
	struct gu_repo *repo = NULL;
	struct regstats st;
	struct buf b;
	long top = 30;
	char *end, *text;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'r')
			repo_path = optarg;
		else if (opt == 'j')
			json = optarg;
		else if (opt == 's')
			svg = optarg;
		else if (opt == 't') {
			top = strtol(optarg, &end, 10);
			if (*end || top < 1 || top > 10000)
				return usage_error("--top: '%s' is not a "
						   "number from 1 to 10000",
						   optarg);
		} else
			return usage_error("bad option for stats");
	}
	if (optind + 1 < argc)
		return usage_error("stats takes at most one RANGE");
	range = optind < argc ? argv[optind] : "HEAD";
	rc = gu_open(&repo, repo_path);
	if (!rc)
		rc = regstats_compute(&st, repo, range);
	gu_close(repo);
	if (rc)
		return fail(rc);
	buf_init(&b, 64u << 20);
	rc = regstats_table(&st, &b);
	if (!rc)
		fputs(buf_str(&b), stdout);
	if (!rc && json) {
		text = regstats_json(&st);
		rc = text ? util_write_atomic(json, text, strlen(text))
			  : err_set(ERR_NOMEM, "out of memory");
		free(text);
	}
	if (!rc && svg) {
		buf_reset(&b);
		rc = regstats_svg(&st, (size_t)top, &b);
		if (!rc)
			rc = util_write_atomic(svg, b.ptr, b.len);
	}
	buf_release(&b);
	regstats_release(&st);
	return rc ? fail(rc) : 0;
}

/*
 * A path as get_maintainer.pl -f takes it: "./" parts and doubled or
 * trailing slashes dropped, then a slash after a directory of the tree.
 */
static int tree_path(struct maint_index *ix, struct gu_repo *repo,
		     const struct gu_oid *at, const char *in, char **out)
{
	size_t l = strlen(in), o = 0, i;
	char *p = malloc(l + 2);
	struct buf b;
	int rc;

	if (!p)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < l;) {
		size_t n = strcspn(in + i, "/");

		if (n && !(n == 1 && in[i] == '.')) {
			if (o)
				p[o++] = '/';
			memcpy(p + o, in + i, n);
			o += n;
		}
		i += n + (in[i + n] == '/');
	}
	p[o] = '\0';
	buf_init(&b, 256u << 20);
	rc = gu_read_blob(repo, at, p, &b);
	buf_release(&b);
	if (rc == ERR_NOMEM) {
		free(p);
		return rc;
	}
	if (rc && maint_is_dir(ix, p)) {
		strcat(p, "/");
		rc = 0;
	}
	if (rc) {
		free(p);
		return err_set(ERR_INPUT, "file '%s' not found", in);
	}
	*out = p;
	return 0;
}

static int cmd_maintainers(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "at", required_argument, NULL, 'a' },
		{ "commit", required_argument, NULL, 'c' },
		{ "file", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *repo_path = ".", *at_rev = NULL, *commit = NULL;
	struct gu_repo *repo = NULL;
	struct maint_index *ix = NULL;
	struct gu_oid at, c;
	struct buf people, lists, patch;
	char **files = NULL;
	int opt, rc, by_file = 0, i, n = 0;

	while ((opt = getopt_long(argc, argv, "f", opts, NULL)) != -1) {
		if (opt == 'r')
			repo_path = optarg;
		else if (opt == 'a')
			at_rev = optarg;
		else if (opt == 'c')
			commit = optarg;
		else if (opt == 'f')
			by_file = 1;
		else
			return usage_error("bad option for maintainers");
	}
	if (!!commit + by_file + (optind < argc && !by_file) != 1 ||
	    (commit && optind < argc) || (by_file && optind == argc))
		return usage_error("maintainers takes a PATCH, --commit REV "
				   "or -f FILE...");
	if (!by_file && !commit && optind + 1 < argc)
		return usage_error("maintainers takes one PATCH");
	buf_init(&people, 1 << 20);
	buf_init(&lists, 1 << 20);
	buf_init(&patch, 256u << 20);
	rc = gu_open(&repo, repo_path);
	if (!rc && commit)
		rc = gu_resolve(repo, commit, &c);
	if (!rc)
		rc = at_rev   ? gu_resolve(repo, at_rev, &at)
		     : commit ? (at = c, 0)
			      : gu_resolve(repo, "HEAD", &at);
	if (!rc && !commit && !by_file)
		rc = buf_read_file(&patch, argv[optind]);
	if (!rc && commit)
		rc = gu_format_patch(repo, &c, &patch);
	if (!rc) {
		rc = maint_index_at(repo, &at, &ix);
		if (rc == ERR_NOTFOUND)
			rc = err_set(ERR_INPUT,
				     "there is no MAINTAINERS file "
				     "in %s",
				     repo_path);
	}
	if (!rc && by_file) {
		files = calloc((size_t)(argc - optind) + 1, sizeof(*files));
		if (!files)
			rc = err_set(ERR_NOMEM, "out of memory");
		for (i = optind; !rc && i < argc; i++)
			rc = tree_path(ix, repo, &at, argv[i], &files[n++]);
		if (rc)
			n--;
		if (!rc)
			rc = maint_file_recipients(ix,
						   (const char *const *)files,
						   (size_t)n, &people, &lists);
	} else if (!rc) {
		rc = maint_patch_recipients(ix, buf_str(&patch), &people,
					    &lists);
	}
	if (!rc) {
		fputs(buf_str(&people), stdout);
		fputs(buf_str(&lists), stdout);
	}
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	maint_index_free(ix);
	gu_close(repo);
	buf_release(&people);
	buf_release(&lists);
	buf_release(&patch);
	return rc ? fail(rc) : 0;
}

/* releases --repo: the commit-level bisection, as bisectctl bisect. */
static int releases_commits(const struct releases_opts *o, const char *good,
			    const char *bad, const char *recipe,
			    const char *json, const char *out_dir)
{
	char conf[32];
	const char *argv[24];
	int argc = 0;

	argv[argc++] = "bisect";
	argv[argc++] = "--repo";
	argv[argc++] = o->repo;
	argv[argc++] = "--good";
	argv[argc++] = good;
	argv[argc++] = "--bad";
	argv[argc++] = bad;
	argv[argc++] = "--recipe";
	argv[argc++] = recipe;
	argv[argc++] = "--json";
	argv[argc++] = json;
	argv[argc++] = "--out";
	argv[argc++] = out_dir;
	if (o->test) {
		argv[argc++] = "--test";
		argv[argc++] = o->test;
	}
	if (o->confidence > 0) {
		snprintf(conf, sizeof(conf), "%g", o->confidence);
		argv[argc++] = "--confidence";
		argv[argc++] = conf;
	}
	argv[argc] = NULL;
	optind = 0; /* getopt starts over for the command's own options */
	return cmd_bisect(argc, (char **)argv);
}

/* The releases job's request: the releases, flavour, runs, confidence,
 * manual and recipe of ro. */
static int releases_spec(struct job_spec *spec, const struct releases_opts *ro,
			 const char *recipe_name)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->type, sizeof(spec->type), "releases");
	spec->runs = ro->runs;
	spec->confidence = ro->confidence;
	spec->manual = ro->manual;
	spec->flavour = strdup(ro->flavour);
	spec->bad = strdup(ro->bad);
	spec->good[spec->ngood++] = strdup(ro->good);
	spec->recipe = strdup(recipe_name);
	if (!spec->flavour || !spec->bad || !spec->good[0] || !spec->recipe)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
}

/* releases --server: bisectd's releases job, which a worker runs. */
static int releases_remote(const struct releases_opts *ro,
			   const char *recipe_name, char *test)
{
	struct job_spec spec;
	struct buf t;
	int rc = 0;

	rc = releases_spec(&spec, ro, recipe_name);
	if (!rc && ro->repo) {
		/* the repository as bisectd sees it: a URL or this
		 * machine's absolute path */
		char real[PATH_MAX];

		spec.repo = strdup(strstr(ro->repo, "://") ||
						   !realpath(ro->repo, real)
					   ? ro->repo
					   : real);
		spec.commit_recipe =
			ro->commit_recipe ? strdup(ro->commit_recipe) : NULL;
		if (!spec.repo || (ro->commit_recipe && !spec.commit_recipe))
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc && test) {
		buf_init(&t, 1 << 20);
		rc = buf_read_file(&t, test);
		if (rc)
			buf_release(&t);
		else
			spec.test = buf_detach(&t);
	}
	if (!rc)
		rc = remote_run(server, token, &spec, ro->json, stderr);
	else
		rc = fail(rc);
	job_spec_release(&spec);
	free(test);
	return rc;
}

/*
 * releases --server with --manual or --continue: bisectd's manual
 * releases job, whose id is kept in CACHE/releases/manual-remote.json
 * between the answers.
 */
static int releases_remote_manual(const struct releases_opts *ro,
				  const char *recipe_name)
{
	char *cache = util_cache_dir(), *dir = NULL, *state = NULL;
	struct job_spec spec;
	int rc = cache ? 0 : ERR_INFRA;

	memset(&spec, 0, sizeof(spec));
	if (!rc) {
		dir = util_fmt("%s/releases", cache);
		state = util_fmt("%s/releases/manual-remote.json", cache);
		rc = dir && state ? util_mkdir_p(dir)
				  : err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc && ro->manual)
		rc = releases_spec(&spec, ro, recipe_name);
	if (!rc)
		rc = remote_manual(server, token, ro->manual ? &spec : NULL,
				   ro->continue_verdict, state, ro->json,
				   stderr);
	else
		rc = fail(rc);
	job_spec_release(&spec);
	free(cache);
	free(dir);
	free(state);
	return rc;
}

/*
 * Bisect Debian's released kernels of one flavour: fetched with APT,
 * booted in QEMU.
 */
static int cmd_releases(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flavour", required_argument, NULL, 'f' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "test", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "recipe", required_argument, NULL, 'c' },
		{ "confidence", required_argument, NULL, 'p' },
		{ "manual", no_argument, NULL, 'm' },
		{ "continue", required_argument, NULL, 'C' },
		{ "repo", required_argument, NULL, 'r' },
		{ "commit-recipe", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct releases_opts ro = { .runs = 1,
				    .confidence = 0.95,
				    .bisect_commits = releases_commits };
	const char *recipe_name = "debian-cloud-amd64", *out = NULL;
	struct recipe recipe;
	char *end, *dir = NULL, *cache = NULL, *test = NULL;
	int opt, rc, found = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			ro.flavour = optarg;
			break;
		case 'g':
			ro.good = optarg;
			break;
		case 'b':
			ro.bad = optarg;
			break;
		case 't':
			ro.test = optarg;
			break;
		case 'n':
			ro.runs = (int)strtol(optarg, &end, 10);
			if (*end || ro.runs < 1 || ro.runs > 100)
				return usage_error("--runs: '%s' is not a "
						   "number from 1 to 100",
						   optarg);
			break;
		case 'j':
			ro.json = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			recipe_name = optarg;
			break;
		case 'p':
			ro.confidence = strtod(optarg, &end);
			if (*end || !(ro.confidence >= 0 && ro.confidence < 1))
				return usage_error("--confidence: '%s' is not "
						   "a probability below 1",
						   optarg);
			break;
		case 'r':
			ro.repo = optarg;
			break;
		case 'R':
			ro.commit_recipe = optarg;
			break;
		default:
			return usage_error("bad option for releases");
		case 'm':
			ro.manual = 1;
			break;
		case 'C':
			if (strcmp(optarg, "good") && strcmp(optarg, "bad") &&
			    strcmp(optarg, "skip"))
				return usage_error("--continue takes good, bad "
						   "or skip, not '%s'",
						   optarg);
			ro.continue_verdict = optarg;
			break;
		}
	}
	if (optind != argc)
		return usage_error("releases takes no arguments");
	if (ro.continue_verdict &&
	    (ro.flavour || ro.good || ro.bad || ro.manual || ro.test))
		return usage_error("--continue takes the rest from the "
				   "bisection it continues");
	if (!ro.continue_verdict && (!ro.flavour || !ro.good || !ro.bad))
		return usage_error(
			"releases needs --flavour, --good and --bad");
	if (ro.manual && ro.test)
		return usage_error("--manual boots nothing: no --test");
	if ((ro.manual || ro.continue_verdict) && ro.repo)
		return usage_error("--manual boots nothing: no --repo");
	if (ro.commit_recipe && !ro.repo)
		return usage_error("--commit-recipe is for the commits of "
				   "--repo");
	if (ro.repo && !(server && strstr(ro.repo, "://"))) {
		struct gu_repo *r;

		rc = gu_open(&r, ro.repo);
		if (rc)
			return fail(rc);
		gu_close(r);
	}
	if (!ro.continue_verdict && !job_flavour_ok(ro.flavour))
		return usage_error("--flavour: '%s' is not a flavour such as "
				   "cloud-amd64 ([a-z0-9-], from a letter or "
				   "digit)",
				   ro.flavour);
	if (!ro.continue_verdict &&
	    (!job_release_ok(ro.good) || !job_release_ok(ro.bad)))
		return usage_error("--good and --bad take releases such as "
				   "6.1.0-47 ([0-9.-], from a digit)");
	if (server && (ro.manual || ro.continue_verdict))
		return releases_remote_manual(&ro, recipe_name);
	if (ro.test) {
		test = realpath(ro.test, NULL);
		if (!test)
			return usage_error("--test: cannot read '%s'", ro.test);
		ro.test = test;
	}
	if (server)
		return releases_remote(&ro, recipe_name, test);
	rc = load_recipe(&recipe, recipe_name);
	if (rc) {
		free(test);
		return fail(rc);
	}
	ro.recipe = &recipe;
	dir = make_out_dir(out);
	cache = util_cache_dir();
	if (!dir || !cache)
		rc = dir ? err_set(ERR_NOMEM, "out of memory") : ERR_INFRA;
	ro.out_dir = dir;
	ro.cache = cache;
	if (!rc)
		rc = releases_bisect(&ro, &found);
	if (!rc)
		fprintf(stderr, "output: %s\n", dir);
	recipe_release(&recipe);
	free(dir);
	free(cache);
	free(test);
	if (rc)
		return fail(rc);
	return found ? EXIT_FOUND : EXIT_AMBIGUOUS;
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
	  "      [--json FILE] [--out DIR] [--replay LOG] [--workers N]\n"
	  "      [--confidence P [--max-runs N] [--endpoint-runs N]]\n"
	  "      [--failure REGEX] [--mail-from ADDR] [--network]\n"
	  "      -- CMD [ARG]...\n"
	  "      Bisect any git repository with CMD, as git bisect run does:\n"
	  "      exit 0 good, 125 skip, 1-127 bad, anything else aborts.\n"
	  "      With --server, CMD runs in the workers' sandbox; --network\n"
	  "      asks for the network there (workers with --allow-network).\n"
	  "      With --confidence, for a CMD that fails only sometimes:\n"
	  "      commits are run again where that decides most, and the\n"
	  "      culprit is found at probability P, verified.  With\n"
	  "      --failure, a failure whose title (\"exit status N\" here)\n"
	  "      does not match is another bug, taken as a skip.\n"
	  "      A culprit's report is also written as OUT/report.mail,\n"
	  "      from ADDR ('Name <user@host>'; default: the repository's\n"
	  "      user.name and user.email)." },
	{ "bisect", cmd_bisect,
	  "bisect [--repo DIR] --good REV [--good REV]... --bad REV\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      [--out DIR] [--replay LOG] [--workers N]\n"
	  "      [--confidence P [--max-runs N] [--endpoint-runs N]]\n"
	  "      [--failure REGEX] [--apply PATCH]... [--mail-from ADDR]\n"
	  "      [--base-release ABI --flavour FLAVOUR]\n"
	  "      Bisect a kernel: build and boot each step in QEMU, to a\n"
	  "      confidence of 0.95 (the culprit verified) unless given\n"
	  "      another; --confidence 0 is git's bisection.\n"
	  "      --apply applies a patch on every step (the fix of another\n"
	  "      bug that hides the one looked for); a step where it does\n"
	  "      not apply is skipped, and says so.  The report mail is\n"
	  "      from ADDR, as with run.  --base-release builds with the\n"
	  "      config of Debian's linux-image-ABI-FLAVOUR (fetched with\n"
	  "      APT) as the recipe's base; test, verify and build take\n"
	  "      it too." },
	{ "test", cmd_test,
	  "test [--repo DIR] --commit REV --recipe NAME [--test SCRIPT]\n"
	  "      [--runs N] [--json FILE] [--out DIR]\n"
	  "      Build and boot one commit; exit 0 good, 1 bad, 125 skip." },
	{ "verify", cmd_verify,
	  "verify [--repo DIR] --bad REV --patch FILE [--patch FILE]...\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      Does the patch fix the failure at REV?  Tests REV without\n"
	  "      and with the patches (diffs, git format-patch mails or an\n"
	  "      mbox of a series),\n"
	  "      N runs each; exit 0 fixed, 1 not fixed, 4 inconclusive." },
	{ "build", cmd_build,
	  "build [--repo DIR] [--commit REV | --source DEBIAN-VERSION]\n"
	  "      [--patch FILE]... --recipe NAME\n"
	  "      [--format deb,rpm] [--dbg] [--test SCRIPT] [--json FILE]\n"
	  "      [--out DIR] [--no-sandbox] [--sign-key KEY --sign-cert CRT]\n"
	  "      [--install-test]\n"
	  "      Build distribution packages of REV (default HEAD) with the\n"
	  "      patches applied, with the kernel's bindeb-pkg/binrpm-pkg;\n"
	  "      the release and versions say -bisectd.ID.  The build runs\n"
	  "      in a bubblewrap sandbox: no network, nothing writable but\n"
	  "      its work directory and ccache.  The kernel is\n"
	  "      booted once as a smoke test.  --install-test installs the\n"
	  "      .deb into a Debian 12 root (debootstrap, once) and boots\n"
	  "      that disk through its initramfs-tools initrd, and installs\n"
	  "      the .rpm into a scratch root with rpm --root.  Exit 0 built\n"
	  "      and booted, 1 did not build, 4 built but the smoke or the\n"
	  "      install test failed." },
	{ "config", cmd_config,
	  "config FILE | --release ABI --flavour FLAVOUR\n"
	  "      Print the kernel config in FILE: a config (plain or\n"
	  "      compressed), a linux-image .deb or a kernel-core .rpm,\n"
	  "      read without installing anything.  A recipe's base can be\n"
	  "      any of these too.  --release: Debian's package\n"
	  "      linux-image-ABI-FLAVOUR, fetched with APT into the cache\n"
	  "      (a job's base_release)." },
	{ "classify", cmd_classify,
	  "classify [--fail-on KIND,...|all] [--marker TEXT] LOG\n"
	  "      Read a console log as a step's boot is read: print its\n"
	  "      verdict, the crash kind and the title (\"KASAN: use-after-\n"
	  "      free Read in foo\").  --fail-on takes a recipe's fail_on\n"
	  "      kinds (default: the recipes' default).  Without --marker\n"
	  "      a log without a crash is good.  Exit 0 good, 1 bad." },
	{ "stats", cmd_stats,
	  "stats [--repo DIR] [RANGE] [--json FILE] [--svg FILE] [--top N]\n"
	  "      Which subsystems regress most: each commit of RANGE\n"
	  "      (A..B, or a revision and its history; default HEAD) with\n"
	  "      a Fixes: trailer names a culprit, counted once for each\n"
	  "      MAINTAINERS section (as of the range's end) its files\n"
	  "      belong to most specifically.  Per subsystem: regressions,\n"
	  "      commits that touched it, regressions per 100 commits,\n"
	  "      median days from the culprit's author date to its first\n"
	  "      fix, and the share of fixes marked for stable.  --svg\n"
	  "      draws the top N (default 30) as a bar chart." },
	{ "maintainers", cmd_maintainers,
	  "maintainers [--repo DIR] [--at REV] PATCH | --commit REV |\n"
	  "      -f FILE...\n"
	  "      Who a patch goes to, as the kernel's get_maintainer.pl\n"
	  "      --no-git --no-git-fallback --no-rolestats --no-r answers:\n"
	  "      the people, then the lists, one per line, from the\n"
	  "      MAINTAINERS and .mailmap at REV (default HEAD; for\n"
	  "      --commit, that commit).  A PATCH is a diff or a mail of\n"
	  "      git format-patch; --commit takes a commit of the\n"
	  "      repository as one; -f names files or directories of the\n"
	  "      tree (K: keywords matched against their contents)." },
	{ "releases", cmd_releases,
	  "releases --flavour FLAVOUR --good ABI --bad ABI [--test SCRIPT]\n"
	  "      [--runs N] [--confidence P] [--recipe NAME] [--json FILE]\n"
	  "      [--out DIR] [--repo DIR [--commit-recipe NAME]] [--manual]\n"
	  "  bisectctl releases --continue good|bad|skip\n"
	  "      Bisect Debian's released kernels (linux-image-ABI-FLAVOUR,\n"
	  "      e.g. --flavour cloud-amd64 --good 6.1.0-47 --bad 6.1.0-57)\n"
	  "      among those APT knows of: each probed package is fetched\n"
	  "      with apt-get download, kept in the cache, and its kernel\n"
	  "      booted in QEMU with the recipe's boot settings (default\n"
	  "      debian-cloud-amd64) and --test in the guest.  Prints the\n"
	  "      last good and first bad releases, their Debian and\n"
	  "      upstream versions, the changelog entries between them\n"
	  "      and the commit-level bisection to run next; with\n"
	  "      --repo (a linux-stable clone with the upstream tags)\n"
	  "      it runs that bisection too, between the two releases'\n"
	  "      tags, with --commit-recipe or else the last good\n"
	  "      release's config and the same --test.  Exit 0 found,\n"
	  "      1 ambiguous, 2 bad input, 3 infrastructure.\n"
	  "      --manual boots nothing, for hardware QEMU cannot stand\n"
	  "      in for: it says which release to install, and each\n"
	  "      later 'bisectctl releases --continue good|bad|skip'\n"
	  "      gives the verdict on it (the state is kept in the cache\n"
	  "      across reboots) until the first bad one is found.\n"
	  "      With --server, bisectd's releases job: a worker bisects\n"
	  "      with its own APT; --manual and --continue then answer\n"
	  "      bisectd's manual job (kept in the cache's\n"
	  "      releases/manual-remote.json); --repo is then\n"
	  "      a repository bisectd can open (a URL, or a path on its\n"
	  "      machine), and the commit level is a bisect job of its\n"
	  "      own that bisectctl follows too." },
	{ "help", cmd_help, "help\n      Show this text." },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: bisectctl [--server URL [--token TOKEN]] <command> "
	       "[options]\n\n"
	       "  With --server (or $BISECTD_SERVER), bisect, run, test, "
	       "build and releases "
	       "send the job to\n  that bisectd and follow it; without, "
	       "they run it here, with --workers N\n  local workers (bisect "
	       "and run).\n\n");
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

	if (helpers_is_connector(argv[0]))
		return helpers_connect(argc, argv);
	log_init("bisectctl", 0);
	server = getenv("BISECTD_SERVER");
	token = getenv("BISECTD_TOKEN");
	while (argc >= 3 &&
	       (!strcmp(argv[1], "--server") || !strcmp(argv[1], "--token"))) {
		if (!strcmp(argv[1], "--server"))
			server = argv[2];
		else
			token = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (server && strncmp(server, "http://", 7) &&
	    strncmp(server, "https://", 8)) {
		fprintf(stderr, "bisectctl: --server needs an http:// or "
				"https:// URL\n");
		return EXIT_INPUT;
	}
	if (server && http_global_init())
		return fail(ERR_INFRA);
	if (argc < 2)
		return cmd_help(argc, argv), EXIT_INPUT;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc, argv);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int a;

		if (strcmp(argv[1], commands[i].name))
			continue;
		/* "bisectctl CMD ... --help" (not in run's command) */
		for (a = 2; a < argc && strcmp(argv[a], "--"); a++)
			if (!strcmp(argv[a], "--help") ||
			    !strcmp(argv[a], "-h")) {
				printf("usage: bisectctl %s\n",
				       commands[i].usage);
				return 0;
			}
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
