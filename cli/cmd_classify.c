// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl classify: a console log's verdict and crash title.
 */
#define _GNU_SOURCE
#include "ctl.h"

/*
 * Classify a console log as a step's boot is: the verdict, the crash kind
 * and the title.  Without --marker, a log without a crash is good.
 */
int cmd_classify(int argc, char **argv)
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
			return ctl_usage_error(
				"--fail-on: '%s' is not a list of "
				"crash kinds or all",
				optarg);
		else if (opt == 'm')
			in.marker = optarg;
		else if (opt != 'f')
			return ctl_usage_error("bad option for classify");
	}
	if (optind + 1 != argc)
		return ctl_usage_error("classify needs exactly one LOG");
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
		return ctl_fail(rc);
	if (!in.marker && !c.kind)
		c.verdict = VERDICT_GOOD;
	printf("verdict: %s\nkind: %s\ntitle: %s\n", verdict_name(c.verdict),
	       crash_kind_name(c.kind),
	       c.verdict == VERDICT_GOOD ? "" : c.title);
	rc = c.verdict == VERDICT_GOOD ? 0 : 1;
	classification_release(&c);
	return rc;
}
