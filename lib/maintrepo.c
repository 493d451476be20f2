// SPDX-License-Identifier: GPL-2.0-only
/*
 * MAINTAINERS as of a commit of a repository.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "maintrepo.h"

struct tree_ctx {
	struct gu_repo *repo;
	struct gu_oid at;
	char **dirs; /* sorted */
	size_t ndirs;
};

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dir(const char *path, void *ctx)
{
	struct tree_ctx *t = ctx;

	return bsearch(&path, t->dirs, t->ndirs, sizeof(*t->dirs), by_string) !=
	       NULL;
}

static int read_file(const char *path, struct buf *out, void *ctx)
{
	struct tree_ctx *t = ctx;

	return gu_read_blob(t->repo, &t->at, path, out);
}

static int commit_body(const char *hex, struct buf *out, void *ctx)
{
	struct tree_ctx *t = ctx;
	struct gu_oid oid;
	int rc = gu_lookup_prefix(t->repo, hex, &oid);

	return rc ? rc : gu_commit_body(t->repo, &oid, out);
}

static void release(void *ctx)
{
	struct tree_ctx *t = ctx;

	free(t->dirs);
	free(t);
}

int maint_index_at(struct gu_repo *r, const struct gu_oid *at,
		   struct maint_index **out)
{
	struct tree_ctx *t = calloc(1, sizeof(*t));
	struct maint_tree tree = { is_dir, read_file, commit_body, release, t };
	struct buf text, mailmap;
	int rc;

	*out = NULL;
	if (!t)
		return err_set(ERR_NOMEM, "out of memory");
	t->repo = r;
	t->at = *at;
	buf_init(&text, 64u << 20);
	buf_init(&mailmap, 16u << 20);
	rc = gu_read_blob(r, at, "MAINTAINERS", &text);
	if (!rc && gu_read_blob(r, at, ".mailmap", &mailmap) == ERR_NOMEM)
		rc = ERR_NOMEM;
	if (!rc)
		rc = gu_tree_dirs(r, at, &t->dirs, &t->ndirs);
	if (!rc)
		rc = maint_index_new(out, buf_str(&text), buf_str(&mailmap),
				     &tree);
	else
		release(t);
	buf_release(&text);
	buf_release(&mailmap);
	return rc;
}

int maint_commit_recipients(struct gu_repo *r, const struct gu_oid *commit,
			    struct buf *people, struct buf *lists)
{
	struct maint_index *ix;
	struct buf patch;
	int rc = maint_index_at(r, commit, &ix);

	if (rc)
		return rc;
	buf_init(&patch, 256u << 20);
	rc = gu_format_patch(r, commit, &patch);
	if (!rc)
		rc = maint_patch_recipients(ix, buf_str(&patch), people, lists);
	buf_release(&patch);
	maint_index_free(ix);
	return rc;
}
