// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl run: generic mode, any git repository bisected with a
 * command, as git bisect run does.
 */
#define _GNU_SOURCE
#include "ctl.h"

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

int cmd_run(int argc, char **argv)
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
					   : ctl_common_opt(&c, opt, optarg);

		if (r < 0)
			return ctl_fail(ERR_INPUT);
		if (r != 1)
			return ctl_usage_error("bad option for run");
	}
	if (optind >= argc)
		return ctl_usage_error("run needs a command after --");
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
