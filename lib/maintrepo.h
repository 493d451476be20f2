/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MAINTAINERS as of a commit of a repository: the file, the tree's
 * .mailmap and directories, its files' contents for K: keywords, and its
 * commits for the signers of a Fixes: line.
 */
#ifndef BISECTD_MAINTREPO_H
#define BISECTD_MAINTREPO_H

#include "buf.h"
#include "gitutil.h"
#include "maintainers.h"

/* The index of the MAINTAINERS file at commit at; ERR_NOTFOUND if none. */
int maint_index_at(struct gu_repo *r, const struct gu_oid *at,
		   struct maint_index **out);

/*
 * Who a commit goes to, as get_maintainer.pl answers for the commit as
 * `git format-patch` writes it, with MAINTAINERS as of the commit itself.
 */
int maint_commit_recipients(struct gu_repo *r, const struct gu_oid *commit,
			    struct buf *people, struct buf *lists);

#endif
