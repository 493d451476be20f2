// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl run: generic mode, any git repository bisected with a
 * command, as git bisect run does.
 */
#define _GNU_SOURCE
#include <math.h>

#include "ctl.h"
#include "measure.h"

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

/* --- metric mode -------------------------------------------------- */

/* What --metric does not go with; NULL when the options fit. */
static const char *metric_conflict(const struct common *c, int network, int dir,
				   int min_given, const char *name)
{
	if (!name)
		return ctl_metric_orphans(name, dir, min_given);
	if (c->confidence == 0)
		return "--metric needs a confidence from 0.5 to below 1 "
		       "(default 0.95), not 0: values need a probability";
	if (c->failure || c->replay || network || c->endpoint_runs ||
	    c->workers > 1 || c->fix)
		return "--metric does not go with --failure, --replay, "
		       "--network, --endpoint-runs, --workers or --fix";
	return NULL;
}

/* --metric with --server: the job's "metric" object, sent to bisectd. */
static int remote_metric(const struct common *c, const struct metric_opts *mo,
			 char **argv)
{
	struct job_spec spec;
	int rc = ctl_remote_spec(&spec, "bisect", c, NULL), status;

	if (!rc) {
		spec.command = shell_join(argv);
		spec.metric_name = strdup(mo->name);
		spec.metric_higher = mo->higher;
		spec.metric_min_change = mo->min_change;
		spec.confidence = c->confidence > 0 ? c->confidence : 0.95;
		spec.check_endpoints = 0;
		if (!spec.command || !spec.metric_name)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	status = rc ? ctl_fail(rc)
		    : remote_run(ctl_server, ctl_token, &spec, c->json, stderr);
	job_spec_release(&spec);
	return status;
}

static int run_metric(const struct common *c, struct metric_opts *mo,
		      char **argv)
{
	int status;

	if (!c->bad || !c->ngoods)
		return ctl_usage_error("need --bad and at least one --good");
	if (ctl_server)
		return remote_metric(c, mo, argv);
	mo->repo_path = c->repo_path;
	mo->bad = c->bad;
	mo->goods = c->goods;
	mo->ngoods = c->ngoods;
	mo->json = c->json;
	mo->out = c->out;
	mo->confidence = c->confidence > 0 ? c->confidence : 0.95;
	mo->max_runs = (unsigned long)c->max_runs;
	mo->command = shell_join(argv);
	if (!mo->command)
		return ctl_fail(err_set(ERR_NOMEM, "out of memory"));
	status = ctl_run_metric(mo);
	free((char *)mo->command);
	return status;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = { COMMON_LONGOPTS,
					      { "network", no_argument, NULL,
						OPT_NETWORK },
					      METRIC_LONGOPTS,
					      { NULL, 0, NULL, 0 } };
	struct metric_opts mo = { 0 };
	int dir = 0, min_given = 0;
	const char *conflict;
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
		int r = opt == OPT_NETWORK
				? (network = 1)
				: ctl_metric_opt(&mo, opt, optarg, &dir);

		min_given |= opt == OPT_MIN_CHANGE;
		if (r == 0)
			r = ctl_common_opt(&c, opt, optarg);
		if (r < 0)
			return ctl_fail(ERR_INPUT);
		if (r != 1)
			return ctl_usage_error("bad option for run");
	}
	if (optind >= argc)
		return ctl_usage_error("run needs a command after --");
	if ((conflict = metric_conflict(&c, network, dir, min_given, mo.name)))
		return ctl_usage_error("%s", conflict);
	if (network && !ctl_server)
		return ctl_usage_error("--network is for a bisectd's workers "
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
	if (mo.name)
		return run_metric(&c, &mo, argv + optind);
	if (ctl_server) {
		rc = ctl_remote_spec(&spec, "bisect", &c, NULL);
		spec.command = shell_join(argv + optind);
		spec.network = network;
		status = rc ? ctl_fail(rc)
			    : remote_run(ctl_server, ctl_token, &spec, c.json,
					 stderr);
		job_spec_release(&spec);
		return status;
	}
	session_init(&s);
	rc = ctl_bisect_spec(&spec, &c, 0, &repo, &known, &nknown);
	if (rc)
		goto fail;
	spec.command = shell_join(argv + optind);
	out = ctl_make_out_dir(c.out);
	if (!out || !spec.command) {
		rc = ERR_INFRA;
		goto fail;
	}
	s.repo = repo;
	rc = ctl_run_embedded(&s, &code, &c, &spec, known, nknown, out, "");
	if (rc)
		goto fail;
	cmdline = join_args(argv + optind);
	ri.repo_path = c.repo_path;
	ri.command = cmdline;
	ri.out_dir = out;
	ri.mail_from = c.mail_from;
	ri.cherry_pick = 1;
	status = ctl_finish(&s, &ri, c.json, code);
	goto out;
fail:
	status = ctl_fail(rc);
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
