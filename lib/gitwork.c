// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work trees over libgit2 (gitutil.h): a work tree with its git
 * directory beside it that borrows a repository's objects, checked out
 * from commit to commit without following anything that unprivileged
 * code left in it and refusing trees that no checkout may write; and
 * patches and reverts applied as commits of its own repository.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "error.h"
#include "gitutil.h"
#include "gitutil_priv.h"
#include "util.h"

/*
 * The git directory of the worktree in dir: DIR.git, beside it and never
 * in it, so that nothing that a command or a build leaves in the
 * checkout (a .git of its own, with a core.worktree elsewhere) is ever
 * read as the worker's.  Caller frees; NULL when out of memory.
 */
static char *worktree_gitdir(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return util_fmt("%.*s.git", (int)n, dir);
}

/* Open the git directory gitdir with dir as its work tree, whatever its
 * configuration says. */
static int open_gitdir(git_repository **out, const char *gitdir,
		       const char *dir)
{
	size_t n = strlen(dir);
	int ok = git_repository_open_ext(out, gitdir,
					 GIT_REPOSITORY_OPEN_NO_SEARCH |
						 GIT_REPOSITORY_OPEN_NO_DOTGIT,
					 NULL) == 0;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (ok) {
		/* (libgit2 1.5 leaks a buffer when asked for the work tree
		 * that the repository already has) */
		const char *wd = git_repository_workdir(*out);

		if (!wd || strncmp(wd, dir, n) || strcmp(wd + n, "/"))
			ok = git_repository_set_workdir(*out, dir, 0) == 0;
	}
	if (!ok) {
		git_repository_free(*out);
		*out = NULL;
		return gu_fail(ERR_INFRA, "cannot open worktree");
	}
	return 0;
}

/* Make gitdir a repository that borrows objects from src, with dir (made
 * anew) as its work tree, where a .git file names gitdir for the git of
 * a command. */
static int init_worktree(git_repository **out, struct gu_repo *src,
			 const char *dir, const char *gitdir)
{
	git_repository_init_options o;
	git_repository *repo = NULL;
	char path[4200];
	FILE *f;
	int rc;

	if ((rc = util_remove_tree(dir)) || (rc = util_remove_tree(gitdir)) ||
	    (rc = util_mkdir_p(dir)))
		return rc;
	git_repository_init_options_init(&o,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags =
		GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_DOTGIT_DIR;
	o.workdir_path = dir;
	if (git_repository_init_ext(&repo, gitdir, &o) < 0)
		return gu_fail(ERR_INFRA, "cannot create worktree");
	snprintf(path, sizeof(path), "%s/objects/info/alternates",
		 git_repository_path(repo));
	git_repository_free(repo);
	f = fopen(path, "w");
	if (!f)
		return err_sys(ERR_INFRA, "cannot write '%s'", path);
	fprintf(f, "%sobjects\n", gu_gitdir(src));
	if (fclose(f))
		return err_sys(ERR_INFRA, "cannot write '%s'", path);
	return open_gitdir(out, gitdir, dir);
}

/* A fresh worktree has no HEAD yet, which is fine: checkout needs none. */
static int head_is_readable(git_repository *repo)
{
	git_object *obj = NULL;
	int ok;

	if (git_repository_head_unborn(repo) == 1)
		return 1;
	ok = git_revparse_single(&obj, repo, "HEAD^{tree}") == 0;
	git_object_free(obj);
	return ok;
}

/* Open the worktree repository of dir, making it on first use. */
static int open_worktree(git_repository **out, struct gu_repo *r,
			 const char *dir)
{
	char *gitdir = worktree_gitdir(dir);
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (!gitdir)
		return err_set(ERR_NOMEM, "out of memory");
	if (lstat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = open_gitdir(out, gitdir, dir);
		if (!rc && !head_is_readable(*out)) {
			/* its commit is gone (history rewritten): start over */
			git_repository_free(*out);
			*out = NULL;
		}
	}
	/* (a checkout without one, from before the git directory moved
	 * beside it, is made anew too) */
	if (!rc && !*out)
		rc = init_worktree(out, r, dir, gitdir);
	free(gitdir);
	return rc;
}

int gu_open_worktree(struct gu_repo **out, const char *dir)
{
	char *gitdir = worktree_gitdir(dir);
	struct gu_repo *r = calloc(1, sizeof(*r));
	int rc = gitdir && r ? open_gitdir(&r->repo, gitdir, dir)
			     : err_set(ERR_NOMEM, "out of memory");

	free(gitdir);
	if (rc) {
		free(r);
		r = NULL;
	}
	*out = r;
	return rc;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/*
 * One level of a tree that is about to be checked out, as git's fsck
 * would have it: no name that is empty, "." or "..", that holds a "/",
 * or that is ".git" in any case; no name twice (a file and a directory
 * of one name: a file below a link); .gitattributes, .gitignore and
 * .gitmodules not links, which a checkout would read through.
 * ERR_INPUT naming the path.
 */
int gu_sane_level(const git_tree *t, const char *prefix)
{
	size_t n = git_tree_entrycount(t), i;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	int rc = names ? 0 : err_set(ERR_NOMEM, "out of memory");

	for (i = 0; i < n && !rc; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(e);
		int link = git_tree_entry_filemode(e) == GIT_FILEMODE_LINK;

		names[i] = name;
		if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
		    strchr(name, '/') || !strcasecmp(name, ".git"))
			rc = err_set(ERR_INPUT,
				     "the tree holds the name '%s%s', which "
				     "no checkout may write",
				     prefix, name);
		else if (link && (!strcmp(name, ".gitattributes") ||
				  !strcmp(name, ".gitignore") ||
				  !strcmp(name, ".gitmodules")))
			rc = err_set(ERR_INPUT,
				     "the tree holds '%s%s' as a link, which "
				     "a checkout would read through",
				     prefix, name);
	}
	if (!rc && n > 1) {
		qsort(names, n, sizeof(*names), by_name);
		for (i = 1; i < n && !rc; i++)
			if (!strcmp(names[i - 1], names[i]))
				rc = err_set(ERR_INPUT,
					     "the tree holds '%s%s' twice",
					     prefix, names[i]);
	}
	free(names);
	return rc;
}

/* gu_sane_level() for t and every tree below it (a whole checkout's). */
static int sane_tree(git_repository *repo, const git_tree *t,
		     struct buf *prefix)
{
	size_t n = git_tree_entrycount(t), i, keep = prefix->len;
	int rc = gu_sane_level(t, buf_str(prefix));

	for (i = 0; i < n && !rc; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_tree *sub = NULL;

		if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
			continue;
		if (git_tree_lookup(&sub, repo, git_tree_entry_id(e)) < 0)
			rc = gu_fail(ERR_INFRA, "cannot read a tree");
		else if (buf_puts(prefix, git_tree_entry_name(e)) ||
			 buf_puts(prefix, "/"))
			rc = err_set(ERR_NOMEM, "path too long");
		else
			rc = sane_tree(repo, sub, prefix);
		git_tree_free(sub);
		prefix->len = keep;
		if (prefix->ptr)
			prefix->ptr[keep] = '\0';
	}
	return rc;
}

static int add_path(const char *path, void *payload)
{
	git_strarray *paths = payload;
	char *copy = strdup(path), **more = paths->strings;

	if (copy && paths->count % 1024 == 0)
		more = realloc(paths->strings,
			       (paths->count + 1024) * sizeof(char *));
	if (!copy || !more) {
		free(copy);
		return err_set(ERR_NOMEM, "out of memory");
	}
	paths->strings = more;
	paths->strings[paths->count++] = copy;
	return 0;
}

/*
 * The paths in which the worktree's HEAD and commit c differ, into
 * paths; *whole set when the worktree must be checked out as a whole: it
 * is new, its HEAD is gone, or a checkout into it was interrupted
 * (marker exists).
 */
static int moved_paths(git_strarray *paths, int *whole, git_repository *repo,
		       git_commit *c, const char *marker)
{
	git_commit *head = NULL;
	git_tree *from = NULL, *to = NULL;
	struct path_cb cb = { add_path, paths, 0, 1 };
	struct buf prefix;
	git_oid id;
	int rc = 0;

	*whole = access(marker, F_OK) == 0 ||
		 git_reference_name_to_id(&id, repo, "HEAD") < 0 ||
		 git_commit_lookup(&head, repo, &id) < 0;
	if (*whole)
		return 0;
	if (git_commit_tree(&from, head) < 0 || git_commit_tree(&to, c) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot read a tree");
	} else {
		buf_init(&prefix, 1 << 12);
		rc = gu_tree_changes(repo, from, to, &prefix, &cb);
		buf_release(&prefix);
	}
	git_tree_free(from);
	git_tree_free(to);
	git_commit_free(head);
	return rc;
}

/* The worktree in dir, and its index: the links its checkout wrote. */
struct own_links {
	const char *dir;
	git_index *index;
};

/* beneath_own_fn: the link at rel is the one the index holds there (a
 * committed link, as the last checkout wrote it) */
static int own_link(const char *rel, void *payload)
{
	const struct own_links *o = payload;
	const git_index_entry *e = git_index_get_bypath(o->index, rel, 0);
	char *path, target[4096];
	ssize_t n;
	git_oid id;

	if (!e || e->mode != GIT_FILEMODE_LINK)
		return 0;
	path = util_fmt("%s/%s", o->dir, rel);
	n = path ? readlink(path, target, sizeof(target)) : -1;
	free(path);
	return n >= 0 && (size_t)n < sizeof(target) &&
	       git_odb_hash(&id, target, (size_t)n, GIT_OBJECT_BLOB) == 0 &&
	       git_oid_equal(&id, &e->id);
}

/*
 * Before libgit2 writes into dir, which a command may have been lent:
 * beneath_clear() each of paths (or, for a whole checkout, the whole
 * tree), keeping the committed links as they were checked out.
 */
static int clear_worktree(git_repository *repo, const char *dir, int whole,
			  const git_strarray *paths)
{
	struct own_links o = { dir, NULL };
	size_t i;
	int rc = 0;

	if (git_repository_index(&o.index, repo) < 0)
		return gu_fail(ERR_INFRA, "cannot read the worktree's index");
	if (whole)
		rc = beneath_clear_tree(dir, own_link, &o);
	for (i = 0; !whole && i < paths->count && !rc; i++) {
		char *p = util_fmt("%s/%s", dir, paths->strings[i]);

		rc = p ? beneath_clear(dir, p, own_link, &o)
		       : err_set(ERR_NOMEM, "out of memory");
		free(p);
	}
	git_index_free(o.index);
	return rc;
}

int gu_clear_worktree(const char *dir)
{
	git_repository *repo = NULL;
	char *gitdir = worktree_gitdir(dir);
	int rc = gitdir ? open_gitdir(&repo, gitdir, dir)
			: err_set(ERR_NOMEM, "out of memory");

	if (!rc)
		rc = clear_worktree(repo, dir, 1, NULL);
	git_repository_free(repo);
	free(gitdir);
	return rc;
}

/*
 * Check commit oid out into the worktree in dir.  From a commit it moves
 * as git checkout does: only the paths in which the two trees differ are
 * rewritten (libgit2 would otherwise stat every file of the tree), so a
 * change that a command made to a file that the next commit does not
 * touch stays, as it does under git bisect run.  A marker in the
 * worktree's .git stands while files are written: a checkout that was
 * interrupted is followed by a whole one.
 */
int gu_checkout(struct gu_repo *r, const char *dir, const struct gu_oid *oid)
{
	git_checkout_options opts;
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_strarray paths = { NULL, 0 };
	char *marker = NULL;
	int rc, whole = 1, fd;

	rc = open_worktree(&repo, r, dir);
	if (rc)
		return rc;
	marker = util_fmt("%s/bisectd-checkout", git_repository_path(repo));
	if (!marker) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (git_commit_lookup(&c, repo, (const git_oid *)oid) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot check out commit");
		goto out;
	}
	rc = moved_paths(&paths, &whole, repo, c, marker);
	if (!rc && whole) {
		/* (by paths, moved_paths() checked each level it saw) */
		git_tree *t = NULL;
		struct buf prefix;

		buf_init(&prefix, 1 << 12);
		rc = git_commit_tree(&t, c) < 0
			     ? gu_fail(ERR_INFRA, "cannot read a tree")
			     : sane_tree(repo, t, &prefix);
		buf_release(&prefix);
		git_tree_free(t);
	}
	if (rc || (!whole && !paths.count))
		goto out;
	fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_sys(ERR_INFRA, "cannot write '%s'", marker);
		goto out;
	}
	close(fd);
	/* libgit2 writes through what it finds on the way: nothing that a
	 * command left in the tree (a link where a directory of the commit
	 * goes, a link or a hard link where its file goes) may be there */
	rc = clear_worktree(repo, dir, whole, &paths);
	if (rc)
		goto out;
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (!whole) {
		opts.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		opts.paths = paths;
	}
	if (git_checkout_tree(repo, (git_object *)c, &opts) < 0 ||
	    git_repository_set_head_detached(repo, (const git_oid *)oid) < 0)
		rc = gu_fail(ERR_INFRA, "cannot check out commit");
	else if (unlink(marker))
		rc = err_sys(ERR_INFRA, "cannot remove '%s'", marker);
out:
	git_strarray_dispose(&paths);
	free(marker);
	git_commit_free(c);
	git_repository_free(repo);
	return rc;
}

struct apply_at {
	char file[1024];
	int hunk;
	char header[256];
};

static int apply_delta(const git_diff_delta *d, void *payload)
{
	struct apply_at *at = payload;

	snprintf(at->file, sizeof(at->file), "%s",
		 d->old_file.path ? d->old_file.path : d->new_file.path);
	at->hunk = 0;
	at->header[0] = '\0';
	return 0;
}

static int apply_hunk(const git_diff_hunk *h, void *payload)
{
	struct apply_at *at = payload;

	at->hunk++;
	snprintf(at->header, sizeof(at->header), "%.*s",
		 (int)strcspn(h->header, "\n"), h->header);
	return 0;
}

/* Apply one patch file's text to tree; the new tree's id to out. */
/* One path of a "---" or "+++" line: no timestamp, and side/ in front. */
static void diff_path(struct buf *out, const char *p, size_t len, char side)
{
	size_t l = strcspn(p, "\t\n");

	if (l > len)
		l = len;
	if (!(l > 2 && p[0] == side && p[1] == '/'))
		buf_printf(out, "%c/", side);
	buf_put(out, p, l);
}

/* 1 when a "---"/"+++" line's path is /dev/null (no file on that side). */
static int dev_null(const char *p)
{
	return !strncmp(p, "/dev/null", 9) && strchr("\t\n ", p[9]) &&
	       p[9] != '\0';
}

/*
 * A plain `diff -u` or `diff -ruN` as git's format: libgit2 reads only
 * diffs with "diff --git" headers, so one is put before every
 * "--- X" / "+++ Y" pair that lacks it (paths as git's a/ and b/).
 */
static char *gitify(const char *text, size_t len, size_t *out_len)
{
	struct buf b;
	const char *p = text, *end = text + len;
	int in_git = 0;

	buf_init(&b, 256u << 20);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (l > 11 && !strncmp(p, "diff --git ", 11))
			in_git = 1;
		if (!in_git && l > 4 && !strncmp(p, "--- ", 4) && nl &&
		    end - nl > 5 && !strncmp(nl + 1, "+++ ", 4)) {
			const char *plus = nl + 1,
				   *pe = memchr(plus, '\n',
						(size_t)(end - plus));
			size_t pl = pe ? (size_t)(pe - plus) - 4
				       : (size_t)(end - plus) - 4;
			/* a file made or deleted: "/dev/null" on one side */
			int made = dev_null(p + 4), gone = dev_null(plus + 4);
			struct buf a, c;

			buf_init(&a, 8192);
			buf_init(&c, 8192);
			diff_path(&a, made ? plus + 4 : p + 4,
				  made ? pl : l - 4, 'a');
			diff_path(&c, gone ? p + 4 : plus + 4,
				  gone ? l - 4 : pl, 'b');
			buf_printf(&b, "diff --git %s %s\n%s--- %s\n+++ %s\n",
				   buf_str(&a), buf_str(&c),
				   made	  ? "new file mode 100644\n"
				   : gone ? "deleted file mode 100644\n"
					  : "",
				   made ? "/dev/null" : buf_str(&a),
				   gone ? "/dev/null" : buf_str(&c));
			buf_release(&a);
			buf_release(&c);
			p = pe ? pe + 1 : end;
			continue;
		}
		if (l > 5 && !strncmp(p, "diff ", 5) &&
		    strncmp(p, "diff --git ", 11))
			in_git = 0; /* a "diff -ruN a b" line of diff(1) */
		buf_put(&b, p, l);
		p += l;
	}
	*out_len = b.len;
	return buf_detach(&b);
}

static int apply_one(git_oid *out, git_repository *repo, git_tree *tree,
		     const char *name, const char *text, size_t len)
{
	git_apply_options opts;
	struct apply_at at = { "", 0, "" };
	git_diff *diff = NULL;
	git_index *index = NULL;
	size_t glen = 0;
	char *git_text = gitify(text, len, &glen);
	int rc = 0;

	if (!git_text)
		return err_set(ERR_NOMEM, "out of memory");
	if (git_diff_from_buffer(&diff, git_text, glen) < 0) {
		const git_error *e = git_error_last();

		free(git_text);
		return err_set(ERR_INPUT, "patch '%s' has no diff in it (%s)",
			       name,
			       e && e->message ? e->message : "unparsable");
	}
	if (git_diff_num_deltas(diff) == 0) {
		git_diff_free(diff);
		free(git_text);
		return err_set(ERR_INPUT, "patch '%s' has no diff in it", name);
	}
	git_apply_options_init(&opts, GIT_APPLY_OPTIONS_VERSION);
	opts.delta_cb = apply_delta;
	opts.hunk_cb = apply_hunk;
	opts.payload = &at;
	if (git_apply_to_tree(&index, repo, tree, diff, &opts) < 0) {
		const git_error *e = git_error_last();

		rc = err_set(ERR_INPUT,
			     "patch '%s' does not apply: file '%s', hunk %d "
			     "(%s): %s",
			     name, at.file, at.hunk, at.header,
			     e && e->message ? e->message : "failed");
	} else if (git_index_write_tree_to(out, index, repo) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot write patched tree");
	}
	git_index_free(index);
	git_diff_free(diff);
	free(git_text); /* after the diff: it may point into the text */
	return rc;
}

/* A commit of tree on parent by bisectd, dated as its parent. */
static int write_child(struct gu_oid *out, git_repository *repo,
		       git_commit *parent, git_tree *tree, const char *msg)
{
	const git_commit *parents[1] = { parent };
	git_signature *sig = NULL;
	int rc = 0;

	if (git_signature_new(&sig, "bisectd", "bisectd@localhost",
			      git_commit_time(parent), 0) < 0 ||
	    git_commit_create((git_oid *)out, repo, NULL, sig, sig, NULL, msg,
			      tree, 1, parents) < 0)
		rc = gu_fail(ERR_INFRA, "cannot write a commit");
	git_signature_free(sig);
	return rc;
}

int gu_apply_patches(struct gu_oid *out, struct gu_repo *r, const char *dir,
		     const struct gu_oid *base, const char *const *names,
		     const char *const *texts, const size_t *lens, size_t n)
{
	git_repository *repo = NULL;
	git_commit *bc = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	char msg[4096];
	size_t i, used;
	int rc;

	rc = open_worktree(&repo, r, dir);
	if (rc)
		return rc;
	if (git_commit_lookup(&bc, repo, (const git_oid *)base) < 0 ||
	    git_commit_tree(&tree, bc) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot read base commit");
		goto out;
	}
	used = (size_t)snprintf(msg, sizeof(msg), "bisectd: patched\n\n");
	for (i = 0; i < n; i++) {
		rc = apply_one(&tree_oid, repo, tree, names[i], texts[i],
			       lens[i]);
		if (rc)
			goto out;
		git_tree_free(tree);
		tree = NULL;
		if (git_tree_lookup(&tree, repo, &tree_oid) < 0) {
			rc = gu_fail(ERR_INFRA, "cannot read patched tree");
			goto out;
		}
		if (used < sizeof(msg))
			used += (size_t)snprintf(msg + used, sizeof(msg) - used,
						 "Patch: %s\n", names[i]);
	}
	rc = write_child(out, repo, bc, tree, msg);
out:
	git_tree_free(tree);
	git_commit_free(bc);
	git_repository_free(repo);
	return rc;
}

int gu_commit_patched(struct gu_oid *out, struct gu_repo *r,
		      const struct gu_oid *base, const struct gu_oid *parent,
		      const char *const *names, const char *const *texts,
		      const size_t *lens, size_t n, const char *msg)
{
	git_commit *bc = NULL, *pc = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	size_t i;
	int rc = 0;

	if (git_commit_lookup(&bc, r->repo, (const git_oid *)base) < 0 ||
	    git_commit_lookup(&pc, r->repo, (const git_oid *)parent) < 0 ||
	    git_commit_tree(&tree, bc) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot read base commit");
		goto out;
	}
	for (i = 0; i < n && !rc; i++) {
		rc = apply_one(&tree_oid, r->repo, tree, names[i], texts[i],
			       lens[i]);
		git_tree_free(tree);
		tree = NULL;
		if (!rc && git_tree_lookup(&tree, r->repo, &tree_oid) < 0)
			rc = gu_fail(ERR_INFRA, "cannot read patched tree");
	}
	if (!rc)
		rc = write_child(out, r->repo, pc, tree, msg);
out:
	git_tree_free(tree);
	git_commit_free(bc);
	git_commit_free(pc);
	return rc;
}

int gu_revert_onto(struct gu_oid *out, struct gu_repo *r, const char *dir,
		   const struct gu_oid *base, const struct gu_oid *commit)
{
	git_repository *repo = NULL;
	git_commit *bc = NULL, *cc = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	char hex[GU_HEXSZ + 1], msg[256];
	int rc;

	rc = open_worktree(&repo, r, dir);
	if (rc)
		return rc;
	gu_oid_hex(hex, commit);
	if (git_commit_lookup(&bc, repo, (const git_oid *)base) < 0 ||
	    git_commit_lookup(&cc, repo, (const git_oid *)commit) < 0) {
		rc = gu_fail(ERR_INFRA, "cannot read the commits to revert");
		goto out;
	}
	if (git_revert_commit(&idx, repo, cc, bc,
			      git_commit_parentcount(cc) > 1 ? 1 : 0,
			      NULL) < 0) {
		rc = gu_fail(ERR_INPUT, "cannot revert");
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		const git_index_entry *anc, *ours, *theirs;
		git_index_conflict_iterator *it = NULL;
		const char *path = "?";

		if (git_index_conflict_iterator_new(&it, idx) == 0 &&
		    git_index_conflict_next(&anc, &ours, &theirs, it) == 0)
			path = ours	? ours->path
			       : theirs ? theirs->path
					: anc->path;
		rc = err_set(ERR_INPUT,
			     "the revert of %.12s does not apply: conflict in "
			     "%s",
			     hex, path);
		git_index_conflict_iterator_free(it);
		goto out;
	}
	snprintf(msg, sizeof(msg), "bisectd: revert %s\n", hex);
	if (git_index_write_tree_to(&tree_oid, idx, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_oid) < 0)
		rc = gu_fail(ERR_INFRA, "cannot write the reverted tree");
	else
		rc = write_child(out, repo, bc, tree, msg);
out:
	git_tree_free(tree);
	git_index_free(idx);
	git_commit_free(cc);
	git_commit_free(bc);
	git_repository_free(repo);
	return rc;
}
