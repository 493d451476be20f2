/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel cache (kcache.c): built kernel images by tree, recipe and
 * compiler, so that a tree is built once however many steps boot it.
 */
#ifndef BISECTD_KCACHE_H
#define BISECTD_KCACHE_H

#include "digest.h"

#define KCACHE_KEYSZ DIGEST_HEXSZ

struct kcache_inputs {
	const char *tree;		/* the commit's tree id, hex */
	unsigned long long recipe_hash; /* pipeline_recipe_hash() */
	const char *image, *targets;	/* the recipe's */
	const char *localversion, *build_version; /* or NULL */
	const char *tenant; /* the submitter whose build directory, or NULL */
};

/* The key of a build's inputs (the compiler's version is added). */
int kcache_key(char out[KCACHE_KEYSZ + 1], const struct kcache_inputs *in);

/* 0 when $BISECTD_KERNEL_CACHE_MB is 0. */
int kcache_enabled(void);

struct kcache_entry {
	char *image, *config; /* paths inside the cache */
	char sha256[DIGEST_HEXSZ + 1];
};

/* 1 and out filled on a hit, 0 on a miss (out empty). */
int kcache_lookup(struct kcache_entry *out, const char *key);
void kcache_entry_release(struct kcache_entry *e);

/*
 * Copy a built image and its .config into the cache under key, then
 * trim the cache to its limit.  Another worker's entry for the same key
 * wins.  A failure leaves no entry; the caller may ignore it.
 */
int kcache_store(const char *key, const char *image, const char *config,
		 const char sha256[DIGEST_HEXSZ + 1]);

#endif
