// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl config: a recipe's config, as a step would build it.
 */
#define _GNU_SOURCE
#include "ctl.h"

int cmd_config(int argc, char **argv)
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
			return ctl_usage_error("bad option for config");
	}
	if (ctl_release_words_ok(release, flavour, "--release"))
		return ctl_usage_error("%s", err_last());
	if (optind + (release ? 0 : 1) != argc)
		return ctl_usage_error("config needs exactly one FILE, or "
				       "--release and --flavour");
	if (release)
		rc = ctl_release_deb(flavour, release, &deb);
	buf_init(&b, 64u << 20);
	if (!rc)
		rc = kconfig_read(&b, deb ? deb : argv[optind]);
	if (!rc)
		fwrite(b.ptr, 1, b.len, stdout);
	buf_release(&b);
	free(deb);
	return rc ? ctl_fail(rc) : 0;
}
