/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bisectctl's shared parts (ctl_common.c): the options that several
 * commands take, exit statuses, the embedded and remote runs, the
 * kernel-mode setup, and the commands, one file each (cmd_*.c), found
 * through the table in bisectctl.c.
 */
#ifndef BISECTD_CLI_CTL_H
#define BISECTD_CLI_CTL_H

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
extern const char *ctl_server, *ctl_token;

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
	int fix; /* find the fix: bad is the older commit, good the newer */
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
	OPT_FIX,
};

/* at most this many --patch or --apply files */
#define MAX_PATCHES 16

struct patches {
	const char *names[MAX_PATCHES];
	char *texts[MAX_PATCHES];
	size_t lens[MAX_PATCHES];
	size_t n;
};

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
	/* a metric's values are read from each step's runs (verify
	 * --metric), or NULL */
	const char *metric;
};

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
		{ "fix", no_argument, NULL, OPT_FIX },                         \
	{                                                                      \
		"workers", required_argument, NULL, 'W'                        \
	}

#define KERNEL_LONGOPTS                                                        \
	{ "recipe", required_argument, NULL, 'c' },                            \
		{ "test", required_argument, NULL, 't' },                      \
		{ "base-release", required_argument, NULL, OPT_BASE_RELEASE }, \
		{ "flavour", required_argument, NULL, OPT_FLAVOUR },           \
	{                                                                      \
		"runs", required_argument, NULL, 'n'                           \
	}

int ctl_base_release_ok(const struct kernel_opts *k);
int ctl_bisect_spec(struct job_spec *spec, const struct common *c, int kernel,
		    struct gu_repo **repo, struct sched_verdict **known,
		    size_t *nknown);
int ctl_common_opt(struct common *c, int opt, const char *arg);
int ctl_fail(int rc);
int ctl_finish(struct session *s, struct report_info *ri, const char *json_path,
	       int rc);
void ctl_kernel_release(struct bisect_ctx *ctx, struct recipe *recipe);
int ctl_kernel_setup(struct bisect_ctx *ctx, struct recipe *recipe,
		     const struct kernel_opts *k, struct gu_repo *repo);
int ctl_load_recipe(struct recipe *r, const char *name);
int ctl_lock_work_dir(struct bisect_ctx *ctx);
char *ctl_make_out_dir(const char *given);
int ctl_parse_kernel_args(int argc, char **argv, const struct option *opts,
			  struct common *c, struct kernel_opts *k,
			  int (*extra)(int opt, const char *arg, void *payload),
			  void *payload, const char *name);
int ctl_read_patch(struct patches *p, const char *path);
int ctl_release_deb(const char *flavour, const char *abi, char **deb);
void ctl_release_patches(struct patches *p);
int ctl_release_words_ok(const char *release, const char *flavour,
			 const char *opt);
int ctl_remote_spec(struct job_spec *spec, const char *type,
		    const struct common *c, const struct kernel_opts *k);
int ctl_run_embedded(struct session *s, int *code, const struct common *c,
		     const struct job_spec *spec,
		     const struct sched_verdict *known, size_t nknown,
		     const char *out, const char *recipe_path);
int ctl_setup_one_commit(struct bisect_ctx *ctx, struct recipe *recipe,
			 const struct kernel_opts *k, const char *repo_path,
			 const char *rev, struct gu_repo **repo,
			 struct gu_oid *oid);
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cmd_bisect(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_backport(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_maintainers(int argc, char **argv);
int cmd_releases(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* bisectctl run --metric (cmd_run_metric.c): a performance regression */
struct metric_opts {
	const char *name; /* of the measurement: bisect-metric: NAME ... */
	int higher;	  /* higher is better (default: lower) */
	double min_change, confidence;
	const char *repo_path, *bad, *const *goods, *json, *out, *command;
	size_t ngoods;
	unsigned long max_runs;
};
int ctl_run_metric(const struct metric_opts *mo);
/* --metric, --lower-is-better, --higher-is-better, --min-change into mo
 * (*dir: the direction given, 0 for none): 1 taken, 0 not one of them,
 * -1 bad (the reason in err_last()). */
enum { OPT_METRIC = 1100, OPT_LOWER, OPT_HIGHER, OPT_MIN_CHANGE };
#define METRIC_LONGOPTS                                                        \
	{ "metric", required_argument, NULL, OPT_METRIC },                     \
		{ "lower-is-better", no_argument, NULL, OPT_LOWER },           \
		{ "higher-is-better", no_argument, NULL, OPT_HIGHER },         \
	{                                                                      \
		"min-change", required_argument, NULL, OPT_MIN_CHANGE          \
	}
int ctl_metric_opt(struct metric_opts *mo, int opt, const char *arg, int *dir);
/* The message when a direction (dir) or --min-change (min_given) came
 * without --metric NAME (name NULL); NULL otherwise. */
const char *ctl_metric_orphans(const char *name, int dir, int min_given);
int cmd_stats(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
