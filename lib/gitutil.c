// SPDX-License-Identifier: GPL-2.0-only
/*
 * Everything that talks to libgit2.
 */
#include <errno.h>
#include <math.h>
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

int gu_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return err_set(code, "%s: %s", what,
		       e && e->message ? e->message : "unknown error");
}

int gu_init(void)
{
	return git_libgit2_init() < 0 ? gu_fail(ERR_INFRA, "libgit2") : 0;
}

void gu_shutdown(void)
{
	git_libgit2_shutdown();
}

int gu_open(struct gu_repo **out, const char *path)
{
	struct gu_repo *r;
	char what[4200];

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(ERR_NOMEM, "out of memory");
	if (git_repository_open_ext(&r->repo, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		free(r);
		snprintf(what, sizeof(what), "cannot open repository '%s'",
			 path);
		return gu_fail(ERR_INPUT, what);
	}
	*out = r;
	return 0;
}

void gu_close(struct gu_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r);
}

const char *gu_gitdir(struct gu_repo *r)
{
	return git_repository_commondir(r->repo);
}

void gu_oid_hex(char out[GU_HEXSZ + 1], const struct gu_oid *oid)
{
	git_oid_tostr(out, GU_HEXSZ + 1, (const git_oid *)oid);
}

int gu_oid_equal(const struct gu_oid *a, const struct gu_oid *b)
{
	return !memcmp(a->id, b->id, sizeof(a->id));
}

int gu_oid_parse(struct gu_oid *out, const char *hex)
{
	if (strlen(hex) != GU_HEXSZ || git_oid_fromstr((git_oid *)out, hex) < 0)
		return err_set(ERR_INPUT, "bad object id '%s'", hex);
	return 0;
}

int gu_resolve(struct gu_repo *r, const char *rev, struct gu_oid *out)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, r->repo, rev) < 0)
		return err_set(ERR_INPUT, "unknown revision '%s'", rev);
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0)
		rc = err_set(ERR_INPUT, "revision '%s' is not a commit", rev);
	else
		memcpy(out, git_object_id(commit), sizeof(*out));
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

int gu_is_ancestor(struct gu_repo *r, const struct gu_oid *anc,
		   const struct gu_oid *desc)
{
	int rc;

	if (gu_oid_equal(anc, desc))
		return 1;
	rc = git_graph_descendant_of(r->repo, (const git_oid *)desc,
				     (const git_oid *)anc);
	if (rc < 0)
		return gu_fail(ERR_GENERIC, "cannot walk history");
	return rc;
}

int gu_merge_base(struct gu_repo *r, const struct gu_oid *a,
		  const struct gu_oid *b, struct gu_oid *out)
{
	int rc = git_merge_base((git_oid *)out, r->repo, (const git_oid *)a,
				(const git_oid *)b);

	if (rc == GIT_ENOTFOUND)
		return err_set(ERR_NOTFOUND, "no merge base");
	return rc < 0 ? gu_fail(ERR_GENERIC, "cannot find merge base") : 0;
}

int gu_endpoints_check(struct gu_repo *r, const char *bad, char *const *goods,
		       size_t ngoods, int fix)
{
	/* the range's newer end and its older ones: for a fix, the good
	 * commit (the failure is gone) and the bad one */
	const char *top = fix ? goods[0] : bad,
		   *top_name = fix ? "good" : "bad",
		   *old_name = fix ? "bad" : "good";
	size_t nolds = fix ? 1 : ngoods, i;
	struct gu_oid t, o, mb;
	int rc;

	if ((rc = gu_oid_parse(&t, top)))
		return rc;
	for (i = 0; i < nolds; i++) {
		const char *old = fix ? bad : goods[i];

		if ((rc = gu_oid_parse(&o, old)))
			return rc;
		if (gu_oid_equal(&o, &t))
			return err_set(ERR_INPUT,
				       "good and bad are the same commit %.12s",
				       bad);
		rc = gu_is_ancestor(r, &o, &t);
		if (rc < 0)
			return rc;
		if (rc == 1)
			continue;
		rc = gu_merge_base(r, &o, &t, &mb);
		if (rc == ERR_NOTFOUND)
			return err_set(ERR_INPUT,
				       "%s commit %.12s shares no history "
				       "with %s commit %.12s",
				       old_name, old, top_name, top);
		if (rc)
			return rc;
		if (gu_oid_equal(&mb, &t))
			return err_set(ERR_INPUT,
				       "%s commit %.12s is an ancestor of "
				       "%s commit %.12s: did you swap good "
				       "and bad?%s",
				       top_name, top, old_name, old,
				       fix ? " (to find a fix, bad is the "
					     "older commit, which fails, and "
					     "good the newer one)"
					   : "");
	}
	return 0;
}

struct sorted {
	struct gu_oid oid;
	uint32_t idx;
};

static int cmp_sorted(const void *a, const void *b)
{
	return memcmp(&((const struct sorted *)a)->oid,
		      &((const struct sorted *)b)->oid, sizeof(struct gu_oid));
}

static int graph_edges(struct gu_graph *g, git_repository *repo)
{
	struct sorted *s = malloc(g->n * sizeof(*s)), key, *hit;
	size_t i, cap = g->n + 16;
	int rc = 0;

	g->edge_child = malloc(cap * sizeof(uint32_t));
	g->edge_parent = malloc(cap * sizeof(uint32_t));
	if (!s || !g->edge_child || !g->edge_parent) {
		free(s);
		return err_set(ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < g->n; i++) {
		s[i].oid = g->oids[i];
		s[i].idx = (uint32_t)i;
	}
	qsort(s, g->n, sizeof(*s), cmp_sorted);
	for (i = 0; i < g->n && !rc; i++) {
		git_commit *c;
		unsigned j, np;

		if (git_commit_lookup(&c, repo, (git_oid *)&g->oids[i]) < 0) {
			rc = gu_fail(ERR_GENERIC, "cannot read commit");
			break;
		}
		np = git_commit_parentcount(c);
		for (j = 0; j < np; j++) {
			memcpy(&key.oid, git_commit_parent_id(c, j),
			       sizeof(key.oid));
			hit = bsearch(&key, s, g->n, sizeof(*s), cmp_sorted);
			if (!hit)
				continue;
			if (g->nedges == cap) {
				uint32_t *a, *b;

				cap *= 2;
				a = realloc(g->edge_child, cap * sizeof(*a));
				if (a)
					g->edge_child = a;
				b = realloc(g->edge_parent, cap * sizeof(*b));
				if (b)
					g->edge_parent = b;
				if (!a || !b) {
					rc = err_set(ERR_NOMEM,
						     "out of memory");
					break;
				}
			}
			g->edge_child[g->nedges] = (uint32_t)i;
			g->edge_parent[g->nedges] = hit->idx;
			g->nedges++;
		}
		git_commit_free(c);
	}
	free(s);
	return rc;
}

int gu_graph_load(struct gu_graph *out, struct gu_repo *r,
		  const struct gu_oid *bad, const struct gu_oid *goods,
		  size_t ngoods)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t i, cap = 1024;
	int rc = 0, w;

	memset(out, 0, sizeof(*out));
	if (git_revwalk_new(&walk, r->repo) < 0)
		return gu_fail(ERR_GENERIC, "cannot walk history");
	git_revwalk_sorting(walk, GIT_SORT_TIME);
	if (git_revwalk_push(walk, (const git_oid *)bad) < 0) {
		rc = gu_fail(ERR_GENERIC, "cannot walk history");
		goto out;
	}
	for (i = 0; i < ngoods; i++)
		if (git_revwalk_hide(walk, (const git_oid *)&goods[i]) < 0) {
			rc = gu_fail(ERR_GENERIC, "cannot walk history");
			goto out;
		}
	out->oids = malloc(cap * sizeof(*out->oids));
	if (!out->oids) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	while ((w = git_revwalk_next(&oid, walk)) == 0) {
		if (out->n == cap) {
			struct gu_oid *p;

			cap *= 2;
			p = realloc(out->oids, cap * sizeof(*p));
			if (!p) {
				rc = err_set(ERR_NOMEM, "out of memory");
				goto out;
			}
			out->oids = p;
		}
		memcpy(&out->oids[out->n++], &oid, sizeof(oid));
	}
	if (w != GIT_ITEROVER) {
		rc = gu_fail(ERR_GENERIC, "cannot walk history");
		goto out;
	}
	if (out->n)
		rc = graph_edges(out, r->repo);
out:
	git_revwalk_free(walk);
	if (rc)
		gu_graph_release(out);
	return rc;
}

void gu_graph_release(struct gu_graph *g)
{
	free(g->oids);
	free(g->edge_child);
	free(g->edge_parent);
	memset(g, 0, sizeof(*g));
}

long gu_graph_find(const struct gu_graph *g, const struct gu_oid *oid)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (gu_oid_equal(&g->oids[i], oid))
			return (long)i;
	return -1;
}

static int collect_file(const git_diff_delta *d, float progress, void *payload)
{
	struct gu_commit *c = payload;
	char **p;

	(void)progress;
	if (c->nfiles >= 1000)
		return 0;
	p = realloc(c->files, (c->nfiles + 1) * sizeof(*p));
	if (!p)
		return -1;
	c->files = p;
	c->files[c->nfiles] =
		strdup(d->new_file.path ? d->new_file.path : d->old_file.path);
	if (!c->files[c->nfiles])
		return -1;
	c->nfiles++;
	return 0;
}

static char *format_date(const git_signature *sig)
{
	char buf[64];
	time_t t = (time_t)sig->when.time + sig->when.offset * 60;
	struct tm tm;
	int off = sig->when.offset;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%c%02d:%02d",
		 off < 0 ? '-' : '+', abs(off) / 60, abs(off) % 60);
	return strdup(buf);
}

static int commit_read(struct gu_commit *out, struct gu_repo *r,
		       const struct gu_oid *oid, int with_files)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	const git_signature *a;
	const char *summary;
	char who[1024];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	gu_oid_hex(out->hex, oid);
	if (git_commit_lookup(&c, r->repo, (const git_oid *)oid) < 0)
		return gu_fail(ERR_GENERIC, "cannot read commit");
	a = git_commit_author(c);
	summary = git_commit_summary(c);
	snprintf(who, sizeof(who), "%s <%s>", a->name, a->email);
	out->subject = strdup(summary ? summary : "");
	out->author = strdup(who);
	out->date = format_date(a);
	out->nparents = git_commit_parentcount(c);
	if (!out->subject || !out->author || !out->date) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!with_files)
		goto out;
	if (git_commit_tree(&tree, c) < 0 ||
	    (out->nparents && (git_commit_parent(&parent, c, 0) < 0 ||
			       git_commit_tree(&ptree, parent) < 0)) ||
	    git_diff_tree_to_tree(&diff, r->repo, ptree, tree, NULL) < 0 ||
	    git_diff_foreach(diff, collect_file, NULL, NULL, NULL, out) < 0)
		rc = gu_fail(ERR_GENERIC, "cannot diff commit");
out:
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	if (rc)
		gu_commit_release(out);
	return rc;
}

int gu_commit_info(struct gu_commit *out, struct gu_repo *r,
		   const struct gu_oid *oid)
{
	return commit_read(out, r, oid, 1);
}

int gu_commit_head(struct gu_commit *out, struct gu_repo *r,
		   const struct gu_oid *oid)
{
	return commit_read(out, r, oid, 0);
}

void gu_commit_release(struct gu_commit *c)
{
	size_t i;

	free(c->subject);
	free(c->author);
	free(c->date);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

static int each_path(const git_diff_delta *d, float progress, void *payload)
{
	struct path_cb *cb = payload;

	(void)progress;
	cb->result =
		cb->fn(d->new_file.path ? d->new_file.path : d->old_file.path,
		       cb->payload);
	return cb->result ? GIT_EUSER : 0;
}

int gu_changed_paths(struct gu_repo *r, const struct gu_oid *a,
		     const struct gu_oid *b,
		     int (*fn)(const char *path, void *payload), void *payload)
{
	git_commit *ca = NULL, *cb = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	struct path_cb state = { fn, payload, 0, 0 };
	int rc = 0, d;

	if (git_commit_lookup(&ca, r->repo, (const git_oid *)a) < 0 ||
	    git_commit_lookup(&cb, r->repo, (const git_oid *)b) < 0 ||
	    git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_diff_tree_to_tree(&diff, r->repo, ta, tb, NULL) < 0) {
		rc = gu_fail(ERR_GENERIC, "cannot diff commits");
		goto out;
	}
	d = git_diff_foreach(diff, each_path, NULL, NULL, NULL, &state);
	if (d < 0 && d != GIT_EUSER)
		rc = gu_fail(ERR_GENERIC, "cannot diff commits");
	else
		rc = state.result;
out:
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	return rc;
}

/*
 * The paths that differ between trees a and b (either may be NULL: all
 * of the other's files), below prefix.  Subtrees with the same id are
 * not read: a commit that changes one file costs the trees on its path.
 */
int gu_tree_changes(git_repository *repo, git_tree *a, git_tree *b,
		    struct buf *prefix, struct path_cb *cb)
{
	size_t na = a ? git_tree_entrycount(a) : 0;
	size_t nb = b ? git_tree_entrycount(b) : 0;
	size_t i = 0, j = 0, keep = prefix->len;
	int rc = b && cb->check ? gu_sane_level(b, buf_str(prefix)) : 0;

	while (!rc && (i < na || j < nb)) {
		const git_tree_entry *ea =
			i < na ? git_tree_entry_byindex(a, i) : NULL;
		const git_tree_entry *eb =
			j < nb ? git_tree_entry_byindex(b, j) : NULL;
		int c = !ea ? 1 : !eb ? -1 : git_tree_entry_cmp(ea, eb);
		const git_tree_entry *one = c <= 0 ? ea : eb;
		git_tree *sa = NULL, *sb = NULL;

		i += c <= 0;
		j += c >= 0;
		if (c == 0 &&
		    git_oid_equal(git_tree_entry_id(ea),
				  git_tree_entry_id(eb)) &&
		    git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
			continue;
		prefix->len = keep;
		if (buf_puts(prefix, git_tree_entry_name(one)))
			return err_set(ERR_NOMEM, "path too long");
		if (git_tree_entry_type(one) != GIT_OBJECT_TREE ||
		    (c == 0 &&
		     git_tree_entry_type(ea) != git_tree_entry_type(eb))) {
			/* a file, or a file that became a directory */
			cb->result = cb->fn(buf_str(prefix), cb->payload);
			rc = cb->result;
		}
		if (rc)
			break;
		if (c <= 0 && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&sa, repo, git_tree_entry_id(ea)) < 0)
			rc = gu_fail(ERR_GENERIC, "cannot read a tree");
		if (!rc && c >= 0 &&
		    git_tree_entry_type(eb) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&sb, repo, git_tree_entry_id(eb)) < 0)
			rc = gu_fail(ERR_GENERIC, "cannot read a tree");
		if (!rc && (sa || sb)) {
			if (buf_puts(prefix, "/"))
				rc = err_set(ERR_NOMEM, "path too long");
			else
				rc = gu_tree_changes(repo, sa, sb, prefix, cb);
		}
		git_tree_free(sa);
		git_tree_free(sb);
	}
	prefix->len = keep;
	if (prefix->ptr)
		prefix->ptr[keep] = '\0';
	return rc;
}

int gu_commit_paths(struct gu_repo *r, const struct gu_oid *commit,
		    int (*fn)(const char *path, void *payload), void *payload)
{
	git_commit *c = NULL, *p = NULL;
	git_tree *tc = NULL, *tp = NULL;
	struct path_cb state = { fn, payload, 0, 0 };
	struct buf prefix;
	int rc;

	if (git_commit_lookup(&c, r->repo, (const git_oid *)commit) < 0 ||
	    (git_commit_parentcount(c) && git_commit_parent(&p, c, 0) < 0) ||
	    git_commit_tree(&tc, c) < 0 || (p && git_commit_tree(&tp, p) < 0)) {
		rc = gu_fail(ERR_GENERIC, "cannot read a commit");
		goto out;
	}
	buf_init(&prefix, 1 << 16);
	rc = gu_tree_changes(r->repo, tp, tc, &prefix, &state);
	buf_release(&prefix);
out:
	git_tree_free(tc);
	git_tree_free(tp);
	git_commit_free(c);
	git_commit_free(p);
	return rc;
}

/* Push one end of a range onto w: its commit, hidden or not. */
static int walk_push(git_revwalk *w, struct gu_repo *r, const char *rev,
		     int hide)
{
	struct gu_oid oid;
	int rc = gu_resolve(r, rev, &oid);

	if (rc)
		return rc;
	if ((hide ? git_revwalk_hide(w, (const git_oid *)&oid)
		  : git_revwalk_push(w, (const git_oid *)&oid)) < 0)
		return gu_fail(ERR_GENERIC, "cannot walk history");
	return 0;
}

int gu_walk(struct gu_repo *r, const char *range,
	    int (*fn)(const struct gu_walk_commit *c, void *payload),
	    void *payload)
{
	git_revwalk *w = NULL;
	const char *dots = strstr(range, "..");
	git_oid id;
	int rc = 0, n;

	if (git_revwalk_new(&w, r->repo) < 0)
		return gu_fail(ERR_GENERIC, "cannot walk history");
	if (dots && dots[2] == '.')
		rc = err_set(ERR_INPUT,
			     "'%s': only A..B ranges are supported, not A...B",
			     range);
	else if (dots) {
		char *from = strndup(range, (size_t)(dots - range));

		if (!from)
			rc = err_set(ERR_NOMEM, "out of memory");
		else
			rc = walk_push(w, r, *from ? from : "HEAD", 1);
		free(from);
		if (!rc)
			rc = walk_push(w, r, dots[2] ? dots + 2 : "HEAD", 0);
	} else {
		rc = walk_push(w, r, range, 0);
	}
	while (!rc && (n = git_revwalk_next(&id, w)) == 0) {
		git_commit *c;
		struct gu_walk_commit wc;

		if (git_commit_lookup(&c, r->repo, &id) < 0) {
			rc = gu_fail(ERR_GENERIC, "cannot read a commit");
			break;
		}
		memcpy(wc.oid.id, id.id, sizeof(wc.oid.id));
		wc.nparents = git_commit_parentcount(c);
		wc.author_time = (long long)git_commit_author(c)->when.time;
		wc.commit_time = (long long)git_commit_time(c);
		wc.message = git_commit_message(c);
		rc = fn(&wc, payload);
		git_commit_free(c);
	}
	if (!rc && n != GIT_ITEROVER)
		rc = gu_fail(ERR_GENERIC, "cannot walk history");
	git_revwalk_free(w);
	return rc;
}

int gu_lookup_prefix(struct gu_repo *r, const char *hex, struct gu_oid *out)
{
	git_object *obj;
	git_oid id;
	size_t len = strspn(hex, "0123456789abcdefABCDEF");
	int e;

	if (len < 4 || len > GU_HEXSZ || hex[len])
		return err_set(ERR_INPUT, "'%s' is not a commit id", hex);
	if (git_oid_fromstrn(&id, hex, len) < 0)
		return gu_fail(ERR_INPUT, "not a commit id");
	e = git_object_lookup_prefix(&obj, r->repo, &id, len,
				     GIT_OBJECT_COMMIT);
	if (e == GIT_ENOTFOUND)
		return err_set(ERR_NOTFOUND, "no commit %s", hex);
	if (e == GIT_EAMBIGUOUS)
		return err_set(ERR_INPUT, "%s names more than one commit", hex);
	if (e < 0)
		return gu_fail(ERR_INPUT, "cannot look up a commit");
	memcpy(out->id, git_object_id(obj)->id, sizeof(out->id));
	git_object_free(obj);
	return 0;
}

int gu_commit_body(struct gu_repo *r, const struct gu_oid *oid, struct buf *out)
{
	git_commit *c;
	const char *body;
	int rc = 0;

	if (git_commit_lookup(&c, r->repo, (const git_oid *)oid) < 0)
		return gu_fail(ERR_NOTFOUND, "cannot read a commit");
	body = git_commit_body(c);
	if (body)
		rc = buf_puts(out, body);
	git_commit_free(c);
	return rc;
}

int gu_format_patch(struct gu_repo *r, const struct gu_oid *oid,
		    struct buf *out)
{
	git_email_create_options opts;
	git_commit *c;
	git_buf b = GIT_BUF_INIT;
	int rc;

	/* GIT_EMAIL_CREATE_OPTIONS_INIT, spelled out: as format-patch */
	memset(&opts, 0, sizeof(opts));
	opts.version = GIT_EMAIL_CREATE_OPTIONS_VERSION;
	opts.flags = GIT_EMAIL_CREATE_DEFAULT;
	git_diff_options_init(&opts.diff_opts, GIT_DIFF_OPTIONS_VERSION);
	opts.diff_opts.flags = GIT_DIFF_SHOW_BINARY;
	git_diff_find_options_init(&opts.diff_find_opts,
				   GIT_DIFF_FIND_OPTIONS_VERSION);
	if (git_commit_lookup(&c, r->repo, (const git_oid *)oid) < 0)
		return gu_fail(ERR_NOTFOUND, "cannot read a commit");
	if (git_email_create_from_commit(&b, c, &opts) < 0)
		rc = gu_fail(ERR_INPUT, "cannot write a commit as a patch");
	else
		rc = buf_put(out, b.ptr, b.size);
	git_buf_dispose(&b);
	git_commit_free(c);
	return rc;
}

struct dirs_cb {
	char **v;
	size_t n, cap, bytes;
};

static int dirs_entry(const char *root, const git_tree_entry *e, void *payload)
{
	struct dirs_cb *d = payload;
	size_t l = strlen(root) + strlen(git_tree_entry_name(e)) + 1;
	char *s;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
		return 0;
	if (d->n == d->cap) {
		char **nv = realloc(d->v, (d->cap = d->cap ? 2 * d->cap : 256) *
						  sizeof(*nv));

		if (!nv)
			return -1;
		d->v = nv;
	}
	s = malloc(l);
	if (!s)
		return -1;
	snprintf(s, l, "%s%s", root, git_tree_entry_name(e));
	d->v[d->n++] = s;
	d->bytes += l;
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gu_tree_dirs(struct gu_repo *r, const struct gu_oid *commit, char ***out,
		 size_t *n)
{
	struct dirs_cb d = { 0 };
	git_commit *c = NULL;
	git_tree *t = NULL;
	char **all = NULL, *p;
	size_t i;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (git_commit_lookup(&c, r->repo, (const git_oid *)commit) < 0 ||
	    git_commit_tree(&t, c) < 0)
		rc = gu_fail(ERR_INPUT, "cannot read commit");
	else if (git_tree_walk(t, GIT_TREEWALK_PRE, dirs_entry, &d) < 0)
		rc = gu_fail(ERR_NOMEM, "cannot read a tree");
	if (!rc) {
		qsort(d.v, d.n, sizeof(*d.v), by_string);
		all = malloc((d.n + 1) * sizeof(*all) + d.bytes);
		if (!all)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc) {
		p = (char *)(all + d.n + 1);
		for (i = 0; i < d.n; i++) {
			all[i] = p;
			p = stpcpy(p, d.v[i]) + 1;
		}
		all[d.n] = NULL;
		*out = all;
		*n = d.n;
	}
	for (i = 0; i < d.n; i++)
		free(d.v[i]);
	free(d.v);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int gu_author_time(struct gu_repo *r, const struct gu_oid *oid, long long *out)
{
	git_commit *c;

	if (git_commit_lookup(&c, r->repo, (const git_oid *)oid) < 0)
		return gu_fail(ERR_NOTFOUND, "cannot read a commit");
	*out = (long long)git_commit_author(c)->when.time;
	git_commit_free(c);
	return 0;
}

void gu_fetch_env(const char *env[GU_FETCH_ENV], char *buf, size_t size,
		  double stall_s)
{
	static const char *const fixed[] = {
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=/bin/true",
		"GIT_ALLOW_PROTOCOL=https:http:git",
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=http.lowSpeedLimit",
		"GIT_CONFIG_VALUE_0=1",
		"GIT_CONFIG_KEY_1=http.lowSpeedTime",
		"GIT_CONFIG_KEY_2=http.followRedirects",
		"GIT_CONFIG_VALUE_2=false",
	};
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		env[i] = fixed[i];
	snprintf(buf, size, "GIT_CONFIG_VALUE_1=%.0f",
		 stall_s > 0 ? ceil(stall_s) : 0);
	env[i++] = buf;
	env[i] = NULL;
}

int gu_cherry_pick_check(struct gu_repo *r, const struct gu_oid *commit,
			 const struct gu_oid *onto, char *conflict, size_t size)
{
	git_merge_options mo;
	git_commit *c = NULL, *o = NULL;
	git_index *idx = NULL;
	int rc;

	/* no rename detection: between a fix and an old release it would
	 * compare thousands of files, and a report may wait for this */
	git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
	mo.flags &= ~(unsigned)GIT_MERGE_FIND_RENAMES;
	if (git_commit_lookup(&c, r->repo, (const git_oid *)commit) < 0 ||
	    git_commit_lookup(&o, r->repo, (const git_oid *)onto) < 0)
		rc = gu_fail(ERR_NOTFOUND, "cannot read a commit");
	else if (git_cherrypick_commit(&idx, r->repo, c, o,
				       git_commit_parentcount(c) > 1 ? 1 : 0,
				       &mo) < 0)
		rc = gu_fail(ERR_GENERIC, "cannot cherry-pick");
	else if ((rc = git_index_has_conflicts(idx)) != 0) {
		const git_index_entry *anc, *ours, *theirs;
		git_index_conflict_iterator *it = NULL;

		snprintf(conflict, size, "?");
		if (git_index_conflict_iterator_new(&it, idx) == 0 &&
		    git_index_conflict_next(&anc, &ours, &theirs, it) == 0)
			snprintf(conflict, size, "%s",
				 ours	  ? ours->path
				 : theirs ? theirs->path
					  : anc->path);
		git_index_conflict_iterator_free(it);
		rc = 1;
	}
	git_index_free(idx);
	git_commit_free(o);
	git_commit_free(c);
	return rc;
}

int gu_trailers(const char *message,
		int (*fn)(const char *key, const char *value, void *payload),
		void *payload)
{
	git_message_trailer_array arr;
	size_t i;
	int rc = 0;

	if (git_message_trailers(&arr, message) < 0)
		return gu_fail(ERR_GENERIC, "cannot read trailers");
	for (i = 0; i < arr.count && !rc; i++)
		rc = fn(arr.trailers[i].key, arr.trailers[i].value, payload);
	git_message_trailer_array_free(&arr);
	return rc;
}

/* Where an apply is: for naming the file and hunk that did not apply. */
int gu_parents(struct gu_repo *r, const struct gu_oid *commit,
	       struct gu_oid *out, size_t max)
{
	git_commit *c;
	size_t i, n;

	if (git_commit_lookup(&c, r->repo, (const git_oid *)commit) < 0)
		return gu_fail(ERR_INPUT, "cannot read commit");
	n = git_commit_parentcount(c);
	for (i = 0; i < n && i < max; i++)
		memcpy(out[i].id, git_commit_parent_id(c, (unsigned)i)->id,
		       sizeof(out[i].id));
	git_commit_free(c);
	return (int)(n < max ? n : max);
}

int gu_tree_hex(struct gu_repo *r, const struct gu_oid *commit,
		char out[GU_HEXSZ + 1])
{
	git_commit *c;
	git_oid oid;

	memcpy(oid.id, commit->id, sizeof(commit->id));
	if (git_commit_lookup(&c, r->repo, &oid) < 0)
		return gu_fail(ERR_INPUT, "cannot read commit");
	git_oid_tostr(out, GU_HEXSZ + 1, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

int gu_open_url(struct gu_repo **out, const char *url, const char *mirror_dir)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	struct gu_repo *r;
	char what[4200];

	*out = NULL;
	if (access(mirror_dir, F_OK) == 0) {
		if (git_repository_open_bare(&repo, mirror_dir) < 0)
			return gu_fail(ERR_INFRA, "cannot open mirror");
		snprintf(what, sizeof(what), "cannot fetch '%s'", url);
		if (git_remote_lookup(&remote, repo, "origin") < 0 ||
		    git_remote_fetch(remote, NULL, NULL, NULL) < 0) {
			git_remote_free(remote);
			git_repository_free(repo);
			return gu_fail(ERR_INPUT, what);
		}
		git_remote_free(remote);
	} else {
		git_clone_options o;

		git_clone_options_init(&o, GIT_CLONE_OPTIONS_VERSION);
		o.bare = 1;
		snprintf(what, sizeof(what), "cannot clone '%s'", url);
		if (git_clone(&repo, url, mirror_dir, &o) < 0)
			return gu_fail(ERR_INPUT, what);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		git_repository_free(repo);
		return err_set(ERR_NOMEM, "out of memory");
	}
	r->repo = repo;
	*out = r;
	return 0;
}

int gu_open_served(struct gu_repo **out, const char *url,
		   const char *mirror_dir, const char *header)
{
	char all[] = "+refs/*:refs/*", *refspecs[] = { all };
	git_strarray specs = { refspecs, 1 };
	char *headers[] = { (char *)header };
	git_fetch_options fo;
	git_remote *remote = NULL;
	int rc = gu_init_bare(out, mirror_dir);

	if (rc)
		return rc;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.custom_headers.strings = headers;
	fo.custom_headers.count = header ? 1 : 0;
	fo.prune = GIT_FETCH_PRUNE;
	/* the tags come with every other ref */
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&remote, (*out)->repo, url) < 0 ||
	    git_remote_fetch(remote, &specs, &fo, NULL) < 0)
		rc = gu_fail(ERR_INFRA, "cannot fetch from the coordinator");
	git_remote_free(remote);
	if (rc) {
		gu_close(*out);
		*out = NULL;
	}
	return rc;
}

int gu_read_blob(struct gu_repo *r, const struct gu_oid *commit,
		 const char *path, struct buf *out)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	git_oid oid;
	int rc;

	memcpy(oid.id, commit->id, sizeof(commit->id));
	if (git_commit_lookup(&c, r->repo, &oid) < 0 ||
	    git_commit_tree(&tree, c) < 0)
		rc = gu_fail(ERR_INPUT, "cannot read commit");
	else if (git_tree_entry_bypath(&e, tree, path) < 0)
		rc = err_set(ERR_NOTFOUND, "no '%s' in the commit", path);
	else if (git_blob_lookup(&blob, r->repo, git_tree_entry_id(e)) < 0)
		rc = gu_fail(ERR_INPUT, "cannot read blob");
	else
		rc = buf_put(out, git_blob_rawcontent(blob),
			     (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	return rc;
}

/* --- importing a tree from files (a source tarball) ---------------------- */

struct gu_import {
	struct gu_repo *repo;
	git_index *index;
	size_t files;
};

int gu_init_bare(struct gu_repo **out, const char *path)
{
	struct gu_repo *r = calloc(1, sizeof(*r));
	char what[4200];

	*out = NULL;
	if (!r)
		return err_set(ERR_NOMEM, "out of memory");
	if (git_repository_open_bare(&r->repo, path) < 0 &&
	    git_repository_init(&r->repo, path, 1) < 0) {
		free(r);
		snprintf(what, sizeof(what), "cannot create repository '%s'",
			 path);
		return gu_fail(ERR_INFRA, what);
	}
	*out = r;
	return 0;
}

int gu_import_new(struct gu_import **out, struct gu_repo *r)
{
	struct gu_import *im = calloc(1, sizeof(*im));

	*out = NULL;
	if (!im)
		return err_set(ERR_NOMEM, "out of memory");
	im->repo = r;
	if (git_index_new(&im->index) < 0) {
		free(im);
		return gu_fail(ERR_INFRA, "cannot make an index");
	}
	*out = im;
	return 0;
}

int gu_import_add(struct gu_import *im, const char *path, const void *data,
		  size_t len, enum gu_import_kind kind)
{
	git_index_entry ie;

	memset(&ie, 0, sizeof(ie));
	if (git_blob_create_from_buffer(&ie.id, im->repo->repo, data, len) < 0)
		return gu_fail(ERR_INFRA, "cannot write a blob");
	ie.mode = kind == GU_IMPORT_LINK   ? GIT_FILEMODE_LINK
		  : kind == GU_IMPORT_EXEC ? GIT_FILEMODE_BLOB_EXECUTABLE
					   : GIT_FILEMODE_BLOB;
	ie.path = path;
	if (git_index_add(im->index, &ie) < 0)
		return gu_fail(ERR_INFRA, "cannot add to the index");
	im->files++;
	return 0;
}

int gu_import_finish(struct gu_import *im, const char *author,
		     const char *email, const char *message, long long when,
		     const char *tag, struct gu_oid *out)
{
	git_oid tree_oid, commit_oid, tag_oid;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_object *obj = NULL;
	int rc = 0;

	if (git_index_write_tree_to(&tree_oid, im->index, im->repo->repo) < 0 ||
	    git_tree_lookup(&tree, im->repo->repo, &tree_oid) < 0 ||
	    git_signature_new(&sig, author, email, (git_time_t)when, 0) < 0 ||
	    git_commit_create_v(&commit_oid, im->repo->repo, NULL, sig, sig,
				NULL, message, tree, 0) < 0 ||
	    git_object_lookup(&obj, im->repo->repo, &commit_oid,
			      GIT_OBJECT_COMMIT) < 0 ||
	    (tag && git_tag_create_lightweight(&tag_oid, im->repo->repo, tag,
					       obj, 1) < 0))
		rc = gu_fail(ERR_INFRA, "cannot write the import commit");
	if (!rc)
		memcpy(out->id, commit_oid.id, sizeof(out->id));
	git_object_free(obj);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(im->index);
	free(im);
	return rc;
}

size_t gu_import_count(const struct gu_import *im)
{
	return im->files;
}

int gu_user_ident(struct gu_repo *r, char *out, size_t size)
{
	git_signature *sig = NULL;
	int n;

	out[0] = '\0';
	if (git_signature_default(&sig, r->repo) < 0)
		return err_set(ERR_NOTFOUND, "no user.name and user.email");
	n = snprintf(out, size, "%s <%s>", sig->name, sig->email);
	git_signature_free(sig);
	if (n < 0 || (size_t)n >= size) {
		out[0] = '\0';
		return err_set(ERR_NOTFOUND, "user.name and user.email too "
					     "long");
	}
	return 0;
}
