// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl maintainers: who a patch or a culprit goes to, as
 * get_maintainer.pl answers.
 */
#define _GNU_SOURCE
#include "ctl.h"

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

int cmd_maintainers(int argc, char **argv)
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
			return ctl_usage_error("bad option for maintainers");
	}
	if (!!commit + by_file + (optind < argc && !by_file) != 1 ||
	    (commit && optind < argc) || (by_file && optind == argc))
		return ctl_usage_error(
			"maintainers takes a PATCH, --commit REV "
			"or -f FILE...");
	if (!by_file && !commit && optind + 1 < argc)
		return ctl_usage_error("maintainers takes one PATCH");
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
	return rc ? ctl_fail(rc) : 0;
}
