/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The release bisection's own structures and the functions its files
 * share: releases.c (the bisection, its answer, by hand),
 * releases_apt.c (Debian's packages: listed, fetched, unpacked and
 * booted) and releases_patches.c (Debian's own patches between two
 * revisions of one upstream).  Only those files include it.
 */
#ifndef BISECTD_WORKER_RELEASES_PRIV_H
#define BISECTD_WORKER_RELEASES_PRIV_H

#include <jansson.h>
#include <stddef.h>

#include "releases.h"

struct release {
	char abi[32];	   /* 6.1.0-52 */
	char version[64];  /* the package's: 6.1.176-1 */
	char upstream[32]; /* 6.1.176 */
	char sha256[65];
	char filename[256];		 /* in the archive's pool */
	char *deb, *vmlinuz, *changelog; /* in the cache, once fetched */
	char *modules; /* the boot's modules (a tree of lib/modules), or NULL */
	char *initrd;  /* its initramfs, once written */
	unsigned boots; /* for the consoles' names */
	char *title;	/* of the last failure */
};

struct rel_state {
	const struct releases_opts *o;
	char *dir;	      /* CACHE/releases */
	struct release *rels; /* every known release, oldest first */
	size_t nrels;
	json_t *probes;
	/* manual: the answers so far, the release they are for, the state
	 * file's document, and the release now asked about */
	json_t *marks, *saved;
	const char *pending;
	struct release *waiting;
	char why[160]; /* why there is no first bad release */
};

json_t *releases_changes(const struct release *bad, const struct release *good);
int releases_debian_patches(struct rel_state *st, const struct release *good,
			    const struct release *bad, const char *recipe,
			    json_t *o);
int releases_describe(struct rel_state *st, struct release *r);
int releases_fetch(struct rel_state *st, struct release *r);
long releases_find(const struct rel_state *st, const char *abi);
int releases_in_cache(const char *path, const char *sha256);
int releases_list(struct rel_state *st);
int releases_probe(struct rel_state *st, struct release *r, int runs,
		   unsigned *fails, unsigned *passes, unsigned *skips);
int releases_run_tool(const char *const *argv, const char *cwd,
		      const char *log);
int releases_unknown(const struct rel_state *st, const char *abi);

#endif
