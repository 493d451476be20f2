/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Git helpers over libgit2, the only file that includes git2.h: opening a
 * repository, resolving revisions, loading the bisection graph, commit
 * details, and checking commits out into a worktree of our own.
 */
#ifndef BISECTD_GITUTIL_H
#define BISECTD_GITUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define GU_HEXSZ 40

struct gu_oid {
	unsigned char id[20];
};

struct gu_repo;

/* A DAG of commits in rev-list order (newest first). */
struct gu_graph {
	struct gu_oid *oids; /* n commits */
	size_t n;
	uint32_t *edge_child, *edge_parent; /* nedges parent edges */
	size_t nedges;
};

struct gu_commit {
	char hex[GU_HEXSZ + 1];
	char *subject;
	char *author; /* "Name <email>" */
	char *date;   /* ISO 8601 with offset */
	char **files; /* changed against the first parent */
	size_t nfiles;
	size_t nparents;
};

int gu_init(void);
void gu_shutdown(void);

/* ERR_INPUT when path is not a repository. Caller frees with gu_close. */
int gu_open(struct gu_repo **out, const char *path);
void gu_close(struct gu_repo *r);
/*
 * A repository named by URL (https://, git://, file://, ...): cloned bare
 * into mirror_dir the first time, fetched from then on.
 */
int gu_open_url(struct gu_repo **out, const char *url, const char *mirror_dir);
/*
 * The same for a repository the coordinator serves at url (smart HTTP),
 * with header ("Authorization: Bearer ...") on each request: every ref
 * fetched into the bare repository mirror_dir (made on first use), only
 * what is new after the first time.
 */
int gu_open_served(struct gu_repo **out, const char *url,
		   const char *mirror_dir, const char *header);
/* Up to max parents of commit into out; their number, or < 0. */
int gu_parents(struct gu_repo *r, const struct gu_oid *commit,
	       struct gu_oid *out, size_t max);
/* The tree id of a commit, as hex. */
int gu_tree_hex(struct gu_repo *r, const struct gu_oid *commit,
		char out[GU_HEXSZ + 1]);
/* Append the content of path at commit to out; ERR_NOTFOUND if absent. */
int gu_read_blob(struct gu_repo *r, const struct gu_oid *commit,
		 const char *path, struct buf *out);
/* The repository's git directory (borrowed). */
const char *gu_gitdir(struct gu_repo *r);

void gu_oid_hex(char out[GU_HEXSZ + 1], const struct gu_oid *oid);
int gu_oid_equal(const struct gu_oid *a, const struct gu_oid *b);
int gu_oid_parse(struct gu_oid *out, const char *hex);

/* A revision to the commit it names; ERR_INPUT if unknown. */
int gu_resolve(struct gu_repo *r, const char *rev, struct gu_oid *out);

/* 1 when anc is an ancestor of (or equal to) desc, 0 when not, <0 error. */
int gu_is_ancestor(struct gu_repo *r, const struct gu_oid *anc,
		   const struct gu_oid *desc);

/* ERR_NOTFOUND when a and b share no history. */
int gu_merge_base(struct gu_repo *r, const struct gu_oid *a,
		  const struct gu_oid *b, struct gu_oid *out);

/*
 * What git bisect refuses of its endpoints (commit ids in hex): a good
 * commit that is the bad one, a bad commit that is an ancestor of a good
 * one (swapped), a good commit that shares no history with the bad one.
 * ERR_INPUT, with the reason, for those.  fix: the endpoints of a fix
 * bisection, where bad is the older commit and goods[0] the newer.
 */
int gu_endpoints_check(struct gu_repo *r, const char *bad, char *const *goods,
		       size_t ngoods, int fix);

/* The ancestors of bad that no good reaches. Release with gu_graph_release. */
int gu_graph_load(struct gu_graph *out, struct gu_repo *r,
		  const struct gu_oid *bad, const struct gu_oid *goods,
		  size_t ngoods);
void gu_graph_release(struct gu_graph *g);
/* Index of oid in g, or -1. */
long gu_graph_find(const struct gu_graph *g, const struct gu_oid *oid);

int gu_commit_info(struct gu_commit *out, struct gu_repo *r,
		   const struct gu_oid *oid);
/*
 * The same without the changed files: a root commit or a large merge
 * costs a diff of the whole tree, and a subject needs none.
 */
int gu_commit_head(struct gu_commit *out, struct gu_repo *r,
		   const struct gu_oid *oid);
void gu_commit_release(struct gu_commit *c);

/*
 * "Name <email>" from the repository's configuration (user.name and
 * user.email, as git commit takes them) into out; ERR_NOTFOUND when
 * either is not set.
 */
int gu_user_ident(struct gu_repo *r, char *out, size_t size);

/*
 * Call fn for each path that differs between commits a and b; fn returns
 * nonzero to stop early, and that value is returned.
 */
int gu_changed_paths(struct gu_repo *r, const struct gu_oid *a,
		     const struct gu_oid *b,
		     int (*fn)(const char *path, void *payload), void *payload);

/* The changes of one commit: against its first parent, or all its files. */
int gu_commit_paths(struct gu_repo *r, const struct gu_oid *commit,
		    int (*fn)(const char *path, void *payload), void *payload);

/* One commit of a walk; what it points to lives until fn returns. */
struct gu_walk_commit {
	struct gu_oid oid;
	size_t nparents;
	long long author_time, commit_time; /* seconds since the epoch */
	const char *message;
};

/*
 * Call fn for each commit of range: "A..B" (reachable from B, not from
 * A), or one revision and all its ancestors; fn returns nonzero to stop,
 * and that value is returned.  ERR_INPUT names a revision that is not
 * there.
 */
int gu_walk(struct gu_repo *r, const char *range,
	    int (*fn)(const struct gu_walk_commit *c, void *payload),
	    void *payload);

/* The commit that an abbreviated id names: ERR_NOTFOUND, or ERR_INPUT
 * when it is not a commit or names more than one. */
int gu_lookup_prefix(struct gu_repo *r, const char *hex, struct gu_oid *out);
/* A commit's author time, in seconds since the epoch. */
int gu_author_time(struct gu_repo *r, const struct gu_oid *oid, long long *out);

/* A commit's message without its subject paragraph (git log's %b). */
int gu_commit_body(struct gu_repo *r, const struct gu_oid *oid,
		   struct buf *out);
/* A commit as one mail of `git format-patch --stdout`. */
int gu_format_patch(struct gu_repo *r, const struct gu_oid *oid,
		    struct buf *out);
/*
 * The directories of a commit's tree ("arch", "arch/x86", ...), sorted
 * by strcmp, in one allocation: free(*out) frees them all.
 */
int gu_tree_dirs(struct gu_repo *r, const struct gu_oid *commit, char ***out,
		 size_t *n);

/*
 * The environment of a git command that fetches a URL from the network:
 * no password prompts, only network protocols (not file:// or ext::),
 * no HTTP redirect followed, and curl's low-speed limit of stall_s
 * seconds below 1 byte/s (0: none).  Fills env (GU_FETCH_ENV entries,
 * NULL-ended; extra "NAME=value" ones for proc_opts.env) with one value
 * formatted into buf.
 */
#define GU_FETCH_ENV 12
void gu_fetch_env(const char *env[GU_FETCH_ENV], char *buf, size_t size,
		  double stall_s);

/*
 * Whether commit applies onto onto as git cherry-pick would apply it (in
 * memory, nothing written, renames not followed): 0 cleanly, 1 with
 * conflicts (the first conflicting path in conflict), < 0 when it cannot
 * be tried.
 */
int gu_cherry_pick_check(struct gu_repo *r, const struct gu_oid *commit,
			 const struct gu_oid *onto, char *conflict,
			 size_t size);

/*
 * The trailers of a commit message ("Fixes: ...", "Cc: ...": its last
 * paragraph, as git interpret-trailers reads it); fn as for gu_walk.
 */
int gu_trailers(const char *message,
		int (*fn)(const char *key, const char *value, void *payload),
		void *payload);

/*
 * Check oid out into dir, a work tree with its own git directory (DIR.git,
 * beside it) that borrows r's objects (like `git clone --shared`): r
 * itself is never written to.  Only files that differ are rewritten, so
 * make's timestamps stay valid for incremental builds.  What is on the
 * way to a file it writes is never followed: a link, a hard link or a
 * special file there (which a command lent the tree may have left) is
 * removed first.  A commit whose tree no checkout may write (a name
 * "..", ".git" or with a "/" in it, a name twice, a link as
 * .gitattributes) is ERR_INPUT, and nothing is written.
 */
int gu_checkout(struct gu_repo *r, const char *dir, const struct gu_oid *oid);
/* The repository of the worktree in dir (its git directory is DIR.git,
 * beside it), as gu_checkout() made it. */
int gu_open_worktree(struct gu_repo **out, const char *dir);
/*
 * Remove from the worktree in dir every link that its commit did not
 * check out there, every hard link and every special file (a fifo
 * would block whoever opens it): for a tree that a command was lent.
 */
int gu_clear_worktree(const char *dir);

/*
 * Apply patches (unified diffs, or mbox files from git format-patch) in
 * order on top of base, and write the result as a commit in the worktree
 * repository in dir (not in r): its id goes to out, for gu_checkout().
 * ERR_INPUT naming the patch, the file and the hunk when one does not
 * apply.
 */
int gu_apply_patches(struct gu_oid *out, struct gu_repo *r, const char *dir,
		     const struct gu_oid *base, const char *const *names,
		     const char *const *texts, const size_t *lens, size_t n);

/*
 * The tree of base with patches applied in order, written into r itself
 * as a commit on parent with message msg (a step of a history made of
 * patch series, each applied from scratch).  ERR_INPUT naming the patch,
 * the file and the hunk when one does not apply.
 */
int gu_commit_patched(struct gu_oid *out, struct gu_repo *r,
		      const struct gu_oid *base, const struct gu_oid *parent,
		      const char *const *names, const char *const *texts,
		      const size_t *lens, size_t n, const char *msg);

/*
 * Revert commit on top of base (libgit2's revert, a three-way merge of
 * base with commit's changes taken back), written as a commit of the
 * worktree repository in dir, as gu_apply_patches() does.  ERR_INPUT
 * naming the first conflicting file when the revert does not apply.
 */
int gu_revert_onto(struct gu_oid *out, struct gu_repo *r, const char *dir,
		   const struct gu_oid *base, const struct gu_oid *commit);

/*
 * Importing a tree that comes as files (a source tarball): blobs go
 * straight into the repository, the commit is tagged.
 */
struct gu_import;
enum gu_import_kind { GU_IMPORT_FILE, GU_IMPORT_EXEC, GU_IMPORT_LINK };

/* Open the bare repository at path, creating it if there is none. */
int gu_init_bare(struct gu_repo **out, const char *path);
int gu_import_new(struct gu_import **out, struct gu_repo *r);
/* A file (or a symlink, data being its target) at path in the tree. */
int gu_import_add(struct gu_import *im, const char *path, const void *data,
		  size_t len, enum gu_import_kind kind);
size_t gu_import_count(const struct gu_import *im);
/*
 * Commit the tree and tag it (replacing a tag of that name; tag may be
 * NULL); frees im.
 */
int gu_import_finish(struct gu_import *im, const char *author,
		     const char *email, const char *message, long long when,
		     const char *tag, struct gu_oid *out);

#endif
