/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a kernel build left in its log (build.c).
 */
#ifndef BISECTD_WORKER_BUILD_H
#define BISECTD_WORKER_BUILD_H

/* The first compiler error in a build log, or NULL.  Caller frees. */
char *build_first_error(const char *log);

#endif
