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

#endif
