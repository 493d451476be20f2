// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl stats: how a range's regressions were found and fixed.
 */
#define _GNU_SOURCE
#include "ctl.h"

/*
 * Which subsystems regress most: Fixes: trailers over a range, counted
 * per MAINTAINERS section.
 */
int cmd_stats(int argc, char **argv)
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
				return ctl_usage_error("--top: '%s' is not a "
						       "number from 1 to 10000",
						       optarg);
		} else
			return ctl_usage_error("bad option for stats");
	}
	if (optind + 1 < argc)
		return ctl_usage_error("stats takes at most one RANGE");
	range = optind < argc ? argv[optind] : "HEAD";
	rc = gu_open(&repo, repo_path);
	if (!rc)
		rc = regstats_compute(&st, repo, range);
	gu_close(repo);
	if (rc)
		return ctl_fail(rc);
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
	return rc ? ctl_fail(rc) : 0;
}
