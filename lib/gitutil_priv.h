/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two files that call libgit2 share: gitutil.c (repositories,
 * commits, graphs, imports) and gitwork.c (work trees: checkouts, and
 * patches and reverts written as their commits).  The library's one
 * home: only those two files include it.
 */
#ifndef BISECTD_GITUTIL_PRIV_H
#define BISECTD_GITUTIL_PRIV_H

#include <git2.h>

#include "buf.h"
#include "gitutil.h"

struct gu_repo {
	git_repository *repo;
};

struct path_cb {
	int (*fn)(const char *path, void *payload);
	void *payload;
	int result;
	int check; /* gu_sane_level() on each level of the new tree visited */
};

int gu_fail(int code, const char *what);
int gu_tree_changes(git_repository *repo, git_tree *a, git_tree *b,
		    struct buf *prefix, struct path_cb *cb);
int gu_sane_level(const git_tree *t, const char *prefix);

#endif
