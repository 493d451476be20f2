/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MAINTAINERS, read as scripts/get_maintainer.pl reads it: who a patch
 * or a file's change goes to (its answer with --no-git --no-git-fallback
 * --no-rolestats --no-r: F:, X:, N: and K: entries, .mailmap, duplicates
 * merged), and which sections a file belongs to most specifically.
 */
#ifndef BISECTD_MAINTAINERS_H
#define BISECTD_MAINTAINERS_H

#include <stddef.h>

#include "buf.h"

#define MAINT_REGRESSIONS "regressions@lists.linux.dev"

/*
 * What an answer needs from the tree besides MAINTAINERS; each may be
 * NULL.  is_dir: 1 when path names a directory of the tree (a pattern
 * naming one takes what is below it).  read_file: a file's content, for
 * K: keywords (0, or an error when it is no file).  commit_body: the
 * body (without the subject line) of the commit that hex (6 to 40 hex
 * digits) names, for the signers of a commit that a Fixes: line names.
 * The index owns ctx: release, if any, is called when it is freed, also
 * when maint_index_new fails.
 */
struct maint_tree {
	int (*is_dir)(const char *path, void *ctx);
	int (*read_file)(const char *path, struct buf *out, void *ctx);
	int (*commit_body)(const char *hex, struct buf *out, void *ctx);
	void (*release)(void *ctx); /* by maint_index_free */
	void *ctx;
};

/*
 * The sections of a MAINTAINERS file with their patterns compiled, for
 * asking about many files.  mailmap (the tree's .mailmap) and tree may be
 * NULL.  Not for use by two threads at once.
 */
struct maint_index;

int maint_index_new(struct maint_index **out, const char *text,
		    const char *mailmap, const struct maint_tree *tree);
void maint_index_free(struct maint_index *ix);
size_t maint_index_sections(const struct maint_index *ix);
/* A section's title ("EXT4 FILE SYSTEM"), by number in the file. */
const char *maint_section_name(const struct maint_index *ix, size_t i);

/* 1 when path is a directory of the index's tree. */
int maint_is_dir(const struct maint_index *ix, const char *path);

/*
 * The sections that file belongs to most specifically: of those with a
 * matching F: or N: pattern and no matching X:, the ones whose matching
 * pattern is the longest (a catch-all such as THE REST's "*" only when
 * nothing else matches).  Up to max section numbers go to out, in the
 * file's order; returns how many.
 */
size_t maint_file_sections(struct maint_index *ix, const char *file,
			   size_t *out, size_t max);

/*
 * Who a patch goes to (as `git format-patch` or `git diff` writes it):
 * people ("Name <address>", quoted where RFC 5322 needs it) and lists,
 * one per line, in get_maintainer.pl's order.
 */
int maint_patch_recipients(struct maint_index *ix, const char *patch,
			   struct buf *people, struct buf *lists);

/*
 * The same for files of the tree (get_maintainer.pl -f): a directory
 * ends in '/'; K: keywords are matched against each file's content.
 */
int maint_file_recipients(struct maint_index *ix, const char *const *files,
			  size_t n, struct buf *people, struct buf *lists);

#endif
