/*
 * Who to tell about a commit: the M: (maintainers) and L: (lists) entries
 * of the MAINTAINERS sections whose F: patterns match the commit's files,
 * as scripts/get_maintainer.pl finds them (X: excludes, N: regexes), and
 * always the regressions list.
 */
#ifndef BISECTD_MAINTAINERS_H
#define BISECTD_MAINTAINERS_H

#include <stddef.h>

#include "buf.h"

#define MAINT_REGRESSIONS "regressions@lists.linux.dev"

/*
 * Append to maintainers and lists one address per line, each once, in the
 * order of the file.  text is the MAINTAINERS file.
 */
int maint_recipients(const char *text, const char *const *files, size_t n,
		     struct buf *maintainers, struct buf *lists);

/* 1 when a file matches an F:/X: pattern, as get_maintainer.pl decides. */
int maint_pattern_match(const char *pattern, const char *file);

/*
 * The sections of a MAINTAINERS file with their patterns compiled, for
 * asking about many files.  Not for use by two threads at once.
 */
struct maint_index;

int maint_index_new(struct maint_index **out, const char *text);
void maint_index_free(struct maint_index *ix);
size_t maint_index_sections(const struct maint_index *ix);
/* A section's title ("EXT4 FILE SYSTEM"), by number in the file. */
const char *maint_section_name(const struct maint_index *ix, size_t i);
/*
 * The sections that file belongs to most specifically: of those with a
 * matching F: or N: pattern and no matching X:, the ones whose matching
 * pattern is the longest (a catch-all such as THE REST's "*" only when
 * nothing else matches).  Up to max section numbers go to out, in the
 * file's order; returns how many.
 */
size_t maint_file_sections(struct maint_index *ix, const char *file,
			   size_t *out, size_t max);

#endif
