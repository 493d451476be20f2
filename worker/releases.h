/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bisecting a distribution's released kernels: Debian's linux-image
 * packages of one flavour, from a release that worked to one that does
 * not, each fetched with APT and booted in QEMU as a commit-level step's
 * kernel is (releases.c).
 */
#ifndef BISECTD_WORKER_RELEASES_H
#define BISECTD_WORKER_RELEASES_H

#include "gitutil.h"
#include "recipe.h"

struct releases_opts {
	const char *flavour; /* cloud-amd64 */
	const char *good;    /* an ABI: 6.1.0-47 */
	const char *bad;
	const char *test;    /* guest test script, or NULL */
	const char *json;    /* the result as JSON, or NULL */
	const char *out_dir; /* consoles, the initramfs, the next recipe */
	const char *cache;   /* packages and their kernels: CACHE/releases */
	int runs;	     /* boots per probe without a confidence */
	double confidence;   /* 0: git's bisection */
	const struct recipe *recipe; /* boot settings */
	/* manual: nothing is booted; the user installs each release asked
	 * for and answers with continue_verdict ("good", "bad", "skip") in
	 * a later run, which takes the rest from the saved state */
	int manual;
	const char *continue_verdict;
	/* manual for bisectd: no state file; the answers so far come as
	 * answers ("ABI:verdict ...", or NULL for none) and the result is
	 * "waiting" with the next release, or the answer */
	int stateless;
	const char *answers;
	/*
	 * repo: a linux-stable clone with the upstream tags; when the two
	 * releases are different upstream versions, the commits between
	 * their tags are bisected next by bisect_commits (the bisect
	 * command), with commit_recipe or else a recipe of the last good
	 * release's config.  It returns bisect's exit status and writes its
	 * JSON result to json.
	 */
	const char *repo;
	const char *commit_recipe;
	int (*bisect_commits)(const struct releases_opts *o, const char *good,
			      const char *bad, const char *recipe,
			      const char *json, const char *out_dir);
	void *ctx; /* bisect_commits' own */
	/* repo, already open (NULL: opened by its path) */
	struct gu_repo *repo_handle;
	/* only Debian's patches are bisected with repo: the commits between
	 * two upstream versions are left to the caller (bisectd's bisect
	 * job of their own) */
	int patches_only;
};

/*
 * Bisect; *found is 1 when a first bad release was found or (manual)
 * the next verdict is awaited, 0 when the result is ambiguous (at the
 * release or, with a repository, at the commit level).  ERR_INPUT for a
 * release APT does not know of (the message lists those it knows), and
 * for a --continue with no manual bisection in progress.
 */
int releases_bisect(const struct releases_opts *o, int *found);

/*
 * A linear history for the engine: candidates 0..n-1, newest first (0
 * is the bad one; n-1's parent is the good one, not a candidate).
 * probe boots candidate i runs times and counts its failures, passes
 * and skips (what could not be built or booted); name and title name it
 * and its last failure in messages, what says what they are ("release").
 */
struct linear_probe {
	size_t n;
	double confidence; /* 0: git's bisection, runs boots per probe */
	int runs;
	const char *what;
	int (*probe)(void *ctx, size_t i, int runs, unsigned *fails,
		     unsigned *passes, unsigned *skips);
	const char *(*name)(void *ctx, size_t i);
	const char *(*title)(void *ctx, size_t i);
	void *ctx;
	char why[160]; /* out: why there is no culprit */
};

/*
 * Bisect lp: the bad one is probed until it failed 3 times (once
 * without a confidence), then the engine's picks.  *culprit: the first
 * bad candidate, or -1 (lp->why says why); *confidence its probability.
 * ERR_INPUT when the bad one does not boot or does not fail.
 */
int releases_linear(struct linear_probe *lp, long *culprit, double *confidence);

/*
 * Debian's linux-image-ABI-FLAVOUR in CACHE/releases, fetched with APT
 * when it is not there (APT's logs go to out_dir): its path into *deb,
 * which the caller frees.  ERR_INPUT for a release APT does not know of.
 */
/* The source version of Debian's linux-image-ABI-FLAVOUR (6.1.0-47:
 * 6.1.170-3) into out, from APT's index; ERR_INPUT when APT has none. */
int releases_source_version(const char *flavour, const char *abi, char *out,
			    size_t size);
int releases_package(const char *cache, const char *flavour, const char *abi,
		     const char *out_dir, char **deb);

/*
 * The answer of a result (o, the JSON releases_bisect writes) as the
 * bisection prints it: the first bad and last good releases with their
 * versions, or why there is none.
 */
struct json_t;
void releases_print_answer(const struct json_t *o);

#endif
