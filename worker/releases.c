// SPDX-License-Identifier: GPL-2.0-only
/*
 * Release bisection.
 *
 * Design.  The releases are the ABIs of linux-image-<abi>-<flavour> that
 * APT knows of (apt-cache pkgnames), in version order; those after the
 * good one up to the bad one are a linear history for the engine, the
 * newest first, as commits are.  A probe fetches its package with
 * apt-get download (APT checks it against its signed index; the SHA256
 * is checked again here, and the file is kept in the cache by its name),
 * takes the kernel out of it with libarchive, and boots it in QEMU with
 * the recipe's boot settings and the same initramfs (with the modules
 * the boot needs when the recipe has modules) and classifier as a
 * commit-level step.  The result names both releases with their Debian
 * and upstream versions, the changelog entries in between, and the next
 * step: a commit-level bisection between the upstream versions with the
 * last good release's own config.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archives.h"
#include "boot.h"
#include "buf.h"
#include "classify.h"
#include "digest.h"
#include "engine.h"
#include "error.h"
#include "gitutil.h"
#include "initramfs.h"
#include "job.h"
#include "releases.h"
#include "util.h"

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

/*
 * The flavour and the releases that become APT's arguments: words of
 * job.h's rule (never starting with '-'), whoever called.
 */
static int words_ok(const char *flavour, const char *const *rels, size_t n)
{
	size_t i;

	if (!job_flavour_ok(flavour))
		return err_set(ERR_INPUT,
			       "'%.40s' is not a flavour such as cloud-amd64 "
			       "([a-z0-9-], from a letter or digit)",
			       flavour ? flavour : "");
	for (i = 0; i < n; i++)
		if (!job_release_ok(rels[i]))
			return err_set(ERR_INPUT,
				       "'%.40s' is not a release such as "
				       "6.1.0-47 ([0-9.-], from a digit)",
				       rels[i] ? rels[i] : "");
	return 0;
}

/* Run argv with its output to log (in the output directory); 0 if exit 0. */
static int run_tool(const char *const *argv, const char *cwd, const char *log)
{
	struct proc_opts po = { .cwd = cwd, .log_path = log, .timeout_s = 900 };
	struct proc_result pr;

	if (proc_run(&pr, argv, &po) || pr.exec_failed)
		return err_set(ERR_INFRA, "cannot run %s: %s", argv[0],
			       err_last());
	if (!pr.exited || pr.status)
		return err_set(ERR_INFRA, "%s %s failed (see %s)", argv[0],
			       argv[1], log);
	return 0;
}

static int abi_order(const void *x, const void *y)
{
	return strverscmp(((const struct release *)x)->abi,
			  ((const struct release *)y)->abi);
}

/* The ABIs of linux-image-*-FLAVOUR that APT knows of, oldest first. */
static int list_releases(struct rel_state *st)
{
	const char *argv[] = { "apt-cache", "pkgnames", "linux-image-", NULL };
	char *log = util_fmt("%s/apt-pkgnames.log", st->o->out_dir), *pat;
	struct buf b;
	regex_t re;
	const char *p;
	int rc, compiled = 0;

	pat = util_fmt("^linux-image-([0-9]+\\.[0-9]+\\.[0-9]+-[0-9]+)-%s$",
		       st->o->flavour);
	if (!log || !pat) {
		free(log);
		free(pat);
		return err_set(ERR_NOMEM, "out of memory");
	}
	buf_init(&b, 16u << 20);
	rc = run_tool(argv, NULL, log);
	if (!rc)
		rc = buf_read_file(&b, log);
	if (!rc && regcomp(&re, pat, REG_EXTENDED | REG_NEWLINE))
		rc = err_set(ERR_INPUT, "bad flavour '%s'", st->o->flavour);
	compiled = !rc;
	for (p = buf_str(&b); !rc && *p;) {
		size_t len = strcspn(p, "\n");
		char line[256];
		regmatch_t m[2];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] != 0);
		if (regexec(&re, line, 2, m, 0))
			continue;
		st->rels =
			realloc(st->rels, (st->nrels + 1) * sizeof(*st->rels));
		if (!st->rels) {
			rc = err_set(ERR_NOMEM, "out of memory");
			break;
		}
		memset(&st->rels[st->nrels], 0, sizeof(*st->rels));
		snprintf(st->rels[st->nrels].abi, sizeof(st->rels->abi), "%.*s",
			 (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
		st->nrels++;
	}
	if (compiled)
		regfree(&re);
	buf_release(&b);
	free(log);
	free(pat);
	if (!rc)
		qsort(st->rels, st->nrels, sizeof(*st->rels), abi_order);
	return rc;
}

static long find_release(const struct rel_state *st, const char *abi)
{
	size_t i;

	for (i = 0; i < st->nrels; i++)
		if (!strcmp(st->rels[i].abi, abi))
			return (long)i;
	return -1;
}

/* ERR_INPUT naming abi and listing what APT knows. */
static int unknown_release(const struct rel_state *st, const char *abi)
{
	struct buf b;
	size_t i;
	int rc;

	buf_init(&b, 1 << 16);
	for (i = 0; i < st->nrels; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", st->rels[i].abi);
	rc = err_set(ERR_INPUT,
		     "release %s of linux-image-*-%s is not known to APT "
		     "(known: %s)",
		     abi, st->o->flavour, st->nrels ? buf_str(&b) : "none");
	buf_release(&b);
	return rc;
}

/* A field of apt-cache show's first record ("Version: x"). */
static void field(const char *text, const char *name, char *out, size_t size)
{
	size_t len = strlen(name);
	const char *p = text;

	out[0] = '\0';
	while (*p && *p != '\n') {
		if (!strncmp(p, name, len) && p[len] == ':') {
			const char *v = p + len + 1 + strspn(p + len + 1, " ");

			snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
			return;
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
}

/* The package's version, hash and file name, from APT's index. */
static int describe(struct rel_state *st, struct release *r)
{
	char *pkg = util_fmt("linux-image-%s-%s", r->abi, st->o->flavour);
	char *log = util_fmt("%s/apt-show-%s.log", st->o->out_dir, r->abi);
	const char *argv[] = { "apt-cache", "show", "--no-all-versions", pkg,
			       NULL };
	struct buf b;
	int rc;

	if (!pkg || !log) {
		free(pkg);
		free(log);
		return err_set(ERR_NOMEM, "out of memory");
	}
	buf_init(&b, 1 << 20);
	rc = run_tool(argv, NULL, log);
	if (!rc)
		rc = buf_read_file(&b, log);
	if (!rc) {
		const char *fn;

		field(buf_str(&b), "Version", r->version, sizeof(r->version));
		field(buf_str(&b), "SHA256", r->sha256, sizeof(r->sha256));
		field(buf_str(&b), "Filename", r->filename,
		      sizeof(r->filename));
		fn = strrchr(r->filename, '/');
		if (!r->version[0] || strlen(r->sha256) != 64 || !fn ||
		    strchr(fn, '\'') || fn[1] == '.')
			rc = err_set(ERR_INFRA,
				     "apt-cache show %s: no version, "
				     "SHA256 or file name",
				     pkg);
	}
	if (!rc) {
		/* 6.1.176-1 (or 6.1.176-1+deb12u1) is upstream 6.1.176 */
		snprintf(r->upstream, sizeof(r->upstream), "%.*s",
			 (int)strcspn(r->version, "-+~"), r->version);
	}
	buf_release(&b);
	free(pkg);
	free(log);
	return rc;
}

/*
 * 1 for a module the boot needs: virtio's (the devices QEMU gives) and
 * the filesystems', for a test that mounts a disk.
 */
static int boot_module(const char *path)
{
	return strstr(path, "virtio") || !strncmp(path, "kernel/fs/", 10);
}

/* Add path's line of modules.dep (its dependencies) to need, once. */
static void need_module(json_t *need, const char *dep, const char *path)
{
	const char *p = dep;
	size_t len = strlen(path);

	if (json_object_get(need, path))
		return;
	json_object_set_new(need, path, json_true());
	for (; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		const char *d;

		if (strncmp(p, path, len) || p[len] != ':')
			continue;
		for (d = p + len + 1; *d && *d != '\n';) {
			size_t n;
			char m[512];

			d += strspn(d, " ");
			n = strcspn(d, " \n");
			if (n && n < sizeof(m)) {
				snprintf(m, sizeof(m), "%.*s", (int)n, d);
				need_module(need, dep, m);
			}
			d += n;
		}
		return;
	}
}

/* The directory path is in, made (path NULL: out of memory). */
static int mkdir_parent(char *path)
{
	char *slash = path ? strrchr(path, '/') : NULL;
	int rc;

	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	if (!slash)
		return 0; /* the current directory */
	*slash = '\0';
	rc = util_mkdir_p(path);
	*slash = '/';
	return rc;
}

/*
 * The modules the boot needs out of the package into dir (lib/modules/
 * VERSION/...): those boot_module() names and what they depend on.  The
 * package carries no modules.dep (depmod makes it when it is
 * installed), so every module is unpacked beside dir first and depmod
 * -b runs there; the modules needed are then linked into dir, and
 * depmod runs again for modprobe in the guest.  Done once: dir.complete
 * marks it.  A package without modules leaves no dir.
 */
static int unpack_modules(struct rel_state *st, struct release *r,
			  const char *dir)
{
	char *kver = util_fmt("%s-%s", r->abi, st->o->flavour);
	char *top = util_fmt("./lib/modules/%s/", kver);
	char *all = util_fmt("%s.all", dir),
	     *stamp = util_fmt("%s.complete", dir);
	char *log = util_fmt("%s/depmod-%s.log", st->o->out_dir, r->abi);
	char *dep = util_fmt("%s/lib/modules/%s/modules.dep", all, kver);
	const char *argv[] = { "/usr/sbin/depmod", "-b", all, kver, NULL };
	json_t *need = json_object(), *v;
	struct arc *a = NULL;
	struct arc_entry e;
	struct buf text;
	struct stat sb;
	const char *p, *rel;
	size_t files = 0;
	int rc;

	buf_init(&text, 64u << 20);
	if (!kver || !top || !all || !stamp || !log || !dep || !need) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = 0;
	if (!stat(stamp, &sb))
		goto out;
	util_remove_tree(all);
	util_remove_tree(dir);
	rc = arc_open(&a, r->deb, ARC_DEB);
	while (!rc && (rc = arc_next(a, &e)) == 1) {
		char *path;

		rc = 0;
		rel = e.name + strlen(top);
		if (e.type != ARC_FILE || strncmp(e.name, top, strlen(top)) ||
		    strstr(rel, ".."))
			continue;
		path = util_fmt("%s/lib/modules/%s/%s", all, kver, rel);
		rc = mkdir_parent(path);
		if (!rc)
			rc = arc_read_to_file(a, path);
		files += !rc;
		free(path);
	}
	arc_close(a);
	if (!rc && !files) {
		/* a package without modules: none to add (no dir) */
		rc = util_write_atomic(stamp, "", 0);
		goto out;
	}
	if (!rc && access(argv[0], X_OK))
		rc = err_set(ERR_INFRA,
			     "%s is not installed (package kmod): "
			     "the release's modules need it",
			     argv[0]);
	if (!rc)
		rc = run_tool(argv, NULL, log);
	if (!rc)
		rc = buf_read_file(&text, dep);
	for (p = buf_str(&text); !rc && *p;
	     p += strcspn(p, "\n"), p += *p == '\n') {
		char m[512];
		size_t n = strcspn(p, ":\n");

		if (n < sizeof(m) && p[n] == ':') {
			snprintf(m, sizeof(m), "%.*s", (int)n, p);
			if (boot_module(m))
				need_module(need, buf_str(&text), m);
		}
	}
	/* the index files that come with the package, and the modules */
	if (!rc) {
		json_object_set_new(need, "modules.order", json_true());
		json_object_set_new(need, "modules.builtin", json_true());
		json_object_set_new(need, "modules.builtin.modinfo",
				    json_true());
	}
	json_object_foreach(need, rel, v)
	{
		char *from = util_fmt("%s/lib/modules/%s/%s", all, kver, rel);
		char *to = util_fmt("%s/lib/modules/%s/%s", dir, kver, rel);

		if (!rc && !from)
			rc = err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = mkdir_parent(to);
		if (!rc && access(from, F_OK) == 0 && link(from, to))
			rc = err_sys(ERR_INFRA, "link '%s'", to);
		free(from);
		free(to);
	}
	argv[2] = dir;
	if (!rc)
		rc = run_tool(argv, NULL, log);
	util_remove_tree(all);
	if (!rc)
		rc = util_write_atomic(stamp, "", 0);
out:
	buf_release(&text);
	json_decref(need);
	free(kver);
	free(top);
	free(all);
	free(stamp);
	free(log);
	free(dep);
	return rc;
}

/* Take the kernel and the changelog out of the package, once. */
static int unpack(struct rel_state *st, struct release *r)
{
	char *kname = util_fmt("./boot/vmlinuz-%s-%s", r->abi, st->o->flavour);
	char *cname = util_fmt("./usr/share/doc/linux-image-%s-%s/changelog.gz",
			       r->abi, st->o->flavour);
	struct arc *a = NULL;
	struct arc_entry e;
	struct stat sb;
	int rc;

	r->vmlinuz = util_fmt("%s/vmlinuz-%s-%s_%s", st->dir, r->abi,
			      st->o->flavour, r->version);
	r->changelog = util_fmt("%s/changelog-%s-%s_%s.gz", st->dir, r->abi,
				st->o->flavour, r->version);
	if (!kname || !cname || !r->vmlinuz || !r->changelog) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = 0;
	if (!stat(r->vmlinuz, &sb) && !stat(r->changelog, &sb))
		goto out;
	rc = arc_open(&a, r->deb, ARC_DEB);
	while (!rc && (rc = arc_next(a, &e)) == 1) {
		rc = 0;
		if (e.type != ARC_FILE)
			continue;
		if (!strcmp(e.name, kname))
			rc = arc_read_to_file(a, r->vmlinuz);
		else if (!strcmp(e.name, cname))
			rc = arc_read_to_file(a, r->changelog);
	}
	arc_close(a);
	if (!rc && stat(r->vmlinuz, &sb))
		rc = err_set(ERR_INFRA, "%s has no %s", r->deb, kname + 2);
out:
	if (!rc && st->o->recipe && st->o->recipe->modules) {
		free(r->modules);
		r->modules = util_fmt("%s/modules-%s-%s_%s", st->dir, r->abi,
				      st->o->flavour, r->version);
		rc = r->modules ? unpack_modules(st, r, r->modules)
				: err_set(ERR_NOMEM, "out of memory");
		if (!rc && stat(r->modules, &sb)) { /* it has none */
			free(r->modules);
			r->modules = NULL;
		}
	}
	free(kname);
	free(cname);
	return rc;
}

/* 1 when the file at path is there with that SHA-256 (hex). */
static int in_cache(const char *path, const char *sha256)
{
	char hex[DIGEST_HEXSZ + 1];

	return !digest_file_hex(hex, path) && !strcmp(hex, sha256);
}

/* The package in the cache, fetched with APT when it is not there. */
static int fetch(struct rel_state *st, struct release *r)
{
	char *spec, *log;
	const char *argv[] = { "apt-get", "download", "-q", NULL, NULL };
	int rc;

	if (r->deb)
		return 0;
	rc = describe(st, r);
	if (rc)
		return rc;
	r->deb = util_fmt("%s/%s", st->dir, strrchr(r->filename, '/') + 1);
	spec = util_fmt("linux-image-%s-%s=%s", r->abi, st->o->flavour,
			r->version);
	log = util_fmt("%s/apt-download-%s.log", st->o->out_dir, r->abi);
	if (!r->deb || !spec || !log) {
		free(spec);
		free(log);
		return err_set(ERR_NOMEM, "out of memory");
	}
	if (!in_cache(r->deb, r->sha256)) {
		fprintf(stderr, "%s (%s): downloading %s\n", r->abi, r->version,
			strrchr(r->filename, '/') + 1);
		argv[3] = spec;
		unlink(r->deb);
		rc = run_tool(argv, st->dir, log);
		if (!rc && !in_cache(r->deb, r->sha256))
			rc = err_set(ERR_INFRA,
				     "%s: its SHA256 is not the one APT's "
				     "index gives",
				     r->deb);
	}
	free(spec);
	free(log);
	return rc ? rc : unpack(st, r);
}

/*
 * Boot r runs times.  A kernel that QEMU cannot start counts as a skip,
 * as a commit that does not build does; a failure of the machine
 * (QEMU missing) is an error.
 */
static int probe(struct rel_state *st, struct release *r, int runs,
		 unsigned *fails, unsigned *passes, unsigned *skips)
{
	const struct recipe *rc_ = st->o->recipe;
	int i, rc = fetch(st, r);

	*fails = *passes = *skips = 0;
	if (!rc && !r->initrd) {
		/* its own: the release's modules go in */
		r->initrd = util_fmt("%s/initramfs-%s.cpio", st->o->out_dir,
				     r->abi);
		rc = r->initrd ? initramfs_write(r->initrd, rc_->init,
						 st->o->test, r->modules)
			       : err_set(ERR_NOMEM, "out of memory");
		if (rc) {
			free(r->initrd);
			r->initrd = NULL;
		}
	}
	for (i = 0; !rc && i < runs; i++) {
		struct classify_input in = { .marker = rc_->marker,
					     .fail_on = rc_->fail_on,
					     .timeout_s = rc_->boot_timeout };
		struct classification c;
		struct boot_result b;
		char *con = util_fmt("%s/console-%s-%u.log", st->o->out_dir,
				     r->abi, r->boots + 1);
		char *qlog = util_fmt("%s/qemu-%s-%u.log", st->o->out_dir,
				      r->abi, r->boots + 1);
		const char *verdict;

		rc = con && qlog ? boot_run(&b, rc_, r->vmlinuz, r->initrd, con,
					    qlog)
				 : err_set(ERR_NOMEM, "out of memory");
		free(con);
		free(qlog);
		if (rc)
			break;
		r->boots++;
		if (b.end == BOOT_NOT_STARTED) {
			(*skips)++;
			free(r->title);
			r->title = util_fmt("does not boot: %s",
					    b.why ? b.why
						  : "QEMU did not "
						    "start it");
			fprintf(stderr, "%s (%s): skip: %s\n", r->abi,
				r->version, r->title);
			json_array_append_new(
				st->probes,
				json_pack("{s:s, s:s, s:s, s:s, s:f}",
					  "release", r->abi, "version",
					  r->version, "verdict", "skip",
					  "title", r->title, "seconds",
					  b.seconds));
			boot_result_release(&b);
			continue;
		}
		in.console = b.console;
		in.end = b.end;
		rc = classify_console(&c, &in);
		if (!rc && c.verdict == VERDICT_INFRA)
			rc = err_set(ERR_INFRA, "%s: %s", r->abi, c.title);
		if (!rc) {
			int bad = c.verdict != VERDICT_GOOD;

			*fails += bad;
			*passes += !bad;
			if (bad) {
				free(r->title);
				r->title = strdup(c.title);
			}
			verdict = bad ? "bad" : "good";
			fprintf(stderr, "%s (%s): %s%s%s (%.1f s)\n", r->abi,
				r->version, verdict, bad ? ": " : "",
				bad ? c.title : "", b.seconds);
			json_array_append_new(
				st->probes,
				json_pack("{s:s, s:s, s:s, s:s, s:f}",
					  "release", r->abi, "version",
					  r->version, "verdict", verdict,
					  "title", bad ? c.title : "",
					  "seconds", b.seconds));
			classification_release(&c);
		}
		boot_result_release(&b);
	}
	return rc;
}

/*
 * The changelog entries of first_bad's package down to (not including)
 * last good's version: each entry's source and version and its lines.
 */
static json_t *changes(const struct release *bad, const struct release *good)
{
	struct arc *a = NULL;
	struct arc_entry e;
	struct buf text;
	json_t *out = json_array(), *entry = NULL;
	const char *p;
	int rc;

	buf_init(&text, 64u << 20);
	rc = bad->changelog ? arc_open(&a, bad->changelog, ARC_RAW)
			    : ERR_NOTFOUND;
	if (!rc && arc_next(a, &e) == 1)
		rc = arc_read_buf(a, &text);
	arc_close(a);
	for (p = buf_str(&text); !rc && *p;) {
		size_t len = strcspn(p, "\n");
		char src[64], ver[64];

		if (*p != ' ' && len &&
		    sscanf(p, "%63s (%63[^)])", src, ver) == 2) {
			if (!strcmp(src, "linux") &&
			    !strcmp(ver, good->version))
				break;
			entry = json_pack("{s:s, s:s, s:[]}", "source", src,
					  "version", ver, "lines");
			json_array_append_new(out, entry);
		} else if (entry && len > 2 && !strncmp(p, "  ", 2) &&
			   strncmp(p, " -- ", 4)) {
			json_array_append_new(json_object_get(entry, "lines"),
					      json_stringn(p + 2, len - 2));
		}
		p += len + (p[len] != 0);
	}
	buf_release(&text);
	return out;
}

/*
 * A recipe with the last good release's own config (its package is the
 * base) and the boot recipe's settings, for the commit-level step.
 */
static char *next_recipe(const struct rel_state *st, const struct release *g)
{
	const struct recipe *r = st->o->recipe;
	char *path = util_fmt("%s/last-good-release.recipe", st->o->out_dir);
	char *init;
	struct buf b;
	const char *p;
	size_t i;
	int rc;

	if (!path)
		return NULL;
	buf_init(&b, 1 << 20);
	buf_printf(&b,
		   "# The config of linux-image-%s-%s %s, the last good "
		   "release,\n# with the boot settings of recipe %s.\n"
		   "description = config of linux-image-%s-%s %s\n"
		   "base = %s\n",
		   g->abi, st->o->flavour, g->version, r->name, g->abi,
		   st->o->flavour, g->version, g->deb);
	for (i = 0; i < r->nfragments; i++)
		buf_printf(&b, "fragment = %s\n", r->fragments[i]);
	/* the boot recipe's init, by its absolute path: the default is
	 * found beside the recipe file, which this one is not */
	init = realpath(r->init, NULL);
	if (init)
		buf_printf(&b, "init = %s\n", init);
	free(init);
	for (p = r->text; *p;) {
		size_t len = strcspn(p, "\n");

		if (*p != '#' && strncmp(p, "description", 11) &&
		    strncmp(p, "base", 4) && strncmp(p, "fragment", 8) &&
		    strncmp(p, "init", 4))
			buf_printf(&b, "%.*s\n", (int)len, p);
		p += len + (p[len] != 0);
	}
	rc = util_write_atomic(path, b.ptr, b.len);
	buf_release(&b);
	if (rc) {
		free(path);
		return NULL;
	}
	return path;
}

/* A changelog entry on the terminal: its first lines. */
static void print_entry(json_t *e)
{
	json_t *lines = json_object_get(e, "lines"), *l;
	size_t n = json_array_size(lines), i;

	printf("  %s (%s):\n", json_string_value(json_object_get(e, "source")),
	       json_string_value(json_object_get(e, "version")));
	json_array_foreach(lines, i, l)
	{
		if (i == 20) {
			printf("    ... %zu more lines (in the JSON)\n", n - i);
			break;
		}
		printf("    %s\n", json_string_value(l));
	}
}

/* PREFIX_release, PREFIX_version and PREFIX_upstream of r into o. */
static void put_release(json_t *o, const char *prefix, const struct release *r)
{
	const char *const what[] = { "release", "version", "upstream" };
	const char *const value[] = { r->abi, r->version, r->upstream };
	char key[64];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "%s_%s", prefix, what[i]);
		json_object_set_new(o, key, json_string(value[i]));
	}
}

/*
 * The commit-level bisection between the two upstream tags, by the
 * bisect command; its result goes into o as "commit_level".  Returns
 * bisect's exit status, or -1 when it could not run.
 */
static int commit_level(struct rel_state *st, const struct release *good,
			const struct release *bad, const char *recipe,
			json_t *o)
{
	const struct releases_opts *ro = st->o;
	char *g = util_fmt("v%s", good->upstream),
	     *b = util_fmt("v%s", bad->upstream),
	     *json = util_fmt("%s/commit-level.json", ro->out_dir),
	     *out = util_fmt("%s/commit-level", ro->out_dir);
	int status = -1;

	if (g && b && json && out) {
		printf("bisecting the commits from %s to %s in %s with %s\n", g,
		       b, ro->repo, recipe);
		fflush(stdout);
		status = ro->bisect_commits(ro, g, b, recipe, json, out);
	}
	if (status >= 0) {
		json_t *r = json_load_file(json, 0, NULL);

		json_object_set_new(o, "commit_level",
				    r ? r : json_pack("{s:i}", "exit", status));
	}
	free(g);
	free(b);
	free(json);
	free(out);
	return status;
}

/* --- Debian's own patches between two revisions of one upstream ------ */

/* The first "E: " line of log (APT's reason) into why, else fallback. */
static void apt_reason(const char *log, const char *fallback, char *why,
		       size_t size)
{
	struct buf b;
	const char *p = NULL;

	buf_init(&b, 1 << 20);
	if (!buf_read_file(&b, log))
		for (p = buf_str(&b); (p = strstr(p, "E: ")); p += 3)
			if (p == buf_str(&b) || p[-1] == '\n')
				break;
	snprintf(why, size, "%.*s", p ? (int)strcspn(p + 3, "\n") : 300,
		 p ? p + 3 : fallback);
	buf_release(&b);
}

/*
 * The Debian source package linux=version's debian.tar.* in the cache:
 * its URI, name and SHA256 from apt-get source --print-uris (deb-src
 * lines in APT's sources), fetched with apt-helper, which checks the
 * hash.  Its path into *path; 0, or why not into why.
 */
static int debian_tarball(struct rel_state *st, const char *version,
			  char **path, char *why, size_t size)
{
	char *spec = util_fmt("linux=%s", version),
	     *log = util_fmt("%s/apt-source-%s.log", st->o->out_dir, version),
	     *hlog = util_fmt("%s/apt-helper-%s.log", st->o->out_dir, version);
	const char *argv[] = { "apt-get", "source", "--print-uris",
			       "-q",	  spec,	    NULL };
	char uri[2048], name[256], sha[80];
	unsigned long long bytes;
	struct buf b;
	const char *p;
	int rc, found = 0;

	*path = NULL;
	buf_init(&b, 4u << 20);
	if (!spec || !log || !hlog) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (run_tool(argv, NULL, log)) {
		apt_reason(log, err_last(), why, size);
		rc = -1;
		goto out;
	}
	rc = buf_read_file(&b, log);
	for (p = buf_str(&b); !rc && *p && !found;
	     p += strcspn(p, "\n"), p += *p == '\n')
		found = sscanf(p, "'%2047[^']' %255s %llu SHA256:%79s", uri,
			       name, &bytes, sha) == 4 &&
			strstr(name, ".debian.tar.") && !strchr(name, '/') &&
			name[0] != '.' && strlen(sha) == 64;
	if (!rc && !found) {
		snprintf(why, size,
			 "apt-get source linux=%s names no "
			 "debian.tar",
			 version);
		rc = -1;
	}
	if (rc)
		goto out;
	*path = util_fmt("%s/%s", st->dir, name);
	if (!*path) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!in_cache(*path, sha)) {
		char hash[96];
		const char *get[] = { "/usr/lib/apt/apt-helper",
				      "download-file",
				      uri,
				      *path,
				      hash,
				      NULL };

		snprintf(hash, sizeof(hash), "SHA256:%s", sha);
		fprintf(stderr, "linux %s: downloading %s\n", version, name);
		unlink(*path);
		if (run_tool(get, NULL, hlog)) {
			apt_reason(hlog, err_last(), why, size);
			rc = -1;
		}
	}
out:
	if (rc) {
		free(*path);
		*path = NULL;
	}
	buf_release(&b);
	free(spec);
	free(log);
	free(hlog);
	return rc;
}

/* A revision's debian/patches: the series in order, and each patch's
 * content hash and subject. */
struct patchset {
	json_t *series; /* names */
	json_t *files;	/* name -> {"sha256", "subject", "i": index} */
	/* the patches' texts, by their "i" */
	char **texts;
	size_t *lens, n;
};

static void patchset_release(struct patchset *ps)
{
	size_t i;

	json_decref(ps->series);
	json_decref(ps->files);
	for (i = 0; i < ps->n; i++)
		free(ps->texts[i]);
	free(ps->texts);
	free(ps->lens);
	memset(ps, 0, sizeof(*ps));
}

/* The text of patch name of ps (NULL when it has none), its length
 * into *len. */
static const char *patch_text(const struct patchset *ps, const char *name,
			      size_t *len)
{
	json_t *i = json_object_get(json_object_get(ps->files, name), "i");

	if (!json_is_integer(i) || (size_t)json_integer_value(i) >= ps->n)
		return NULL;
	*len = ps->lens[json_integer_value(i)];
	return ps->texts[json_integer_value(i)];
}

/* The first Subject: or Description: line of a patch, without it. */
static json_t *subject_of(const char *text)
{
	const char *p;

	for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (!strncmp(p, "Subject: ", 9))
			return json_stringn(p + 9, strcspn(p + 9, "\n"));
		if (!strncmp(p, "Description: ", 13))
			return json_stringn(p + 13, strcspn(p + 13, "\n"));
		if (!strncmp(p, "--- ", 4))
			break; /* the diff itself */
	}
	return json_string("");
}

static int read_patches(const char *tarball, struct patchset *ps)
{
	struct arc *a = NULL;
	struct arc_entry e;
	struct buf text;
	int rc;

	ps->series = json_array();
	ps->files = json_object();
	buf_init(&text, 64u << 20);
	rc = arc_open(&a, tarball, ARC_TAR);
	while (!rc && (rc = arc_next(a, &e)) == 1) {
		const char *n = e.name + (strncmp(e.name, "./", 2) ? 0 : 2);
		char hex[DIGEST_HEXSZ + 1];

		rc = 0;
		if (e.type != ARC_FILE || strncmp(n, "debian/patches/", 15))
			continue;
		buf_reset(&text);
		if ((rc = arc_read_buf(a, &text)))
			break;
		n += 15;
		if (!strcmp(n, "series")) {
			const char *p = buf_str(&text);

			for (; *p; p += strcspn(p, "\n"), p += *p == '\n') {
				size_t len = strcspn(p, " \t\n#");

				if (len)
					json_array_append_new(
						ps->series,
						json_stringn(p, len));
			}
			continue;
		}
		digest_sha256_hex(hex, text.ptr, text.len);
		{
			char **t = realloc(ps->texts, (ps->n + 1) * sizeof(*t));
			size_t *l =
				t ? realloc(ps->lens, (ps->n + 1) * sizeof(*l))
				  : NULL;

			if (t)
				ps->texts = t;
			if (l)
				ps->lens = l;
			if (!t || !l) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			ps->lens[ps->n] = text.len;
			if (!(ps->texts[ps->n] = buf_detach(&text))) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
		}
		json_object_set_new(ps->files, n,
				    json_pack("{s:s, s:o, s:I}", "sha256", hex,
					      "subject",
					      subject_of(ps->texts[ps->n]), "i",
					      (json_int_t)ps->n));
		ps->n++;
	}
	arc_close(a);
	buf_release(&text);
	return rc;
}

static int in_series(json_t *series, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(series, i,
			   v) if (!strcmp(json_string_value(v), name)) return 1;
	return 0;
}

/* { name, subject } of a patch of ps. */
static json_t *patch_entry(const struct patchset *ps, const char *name)
{
	json_t *f = json_object_get(ps->files, name);
	json_t *s = json_object_get(f, "subject");

	return json_pack("{s:s, s:s}", "name", name, "subject",
			 json_is_string(s) ? json_string_value(s) : "");
}

/* What became of a patch from the good series to the bad one. */
static const char *change_of(const struct patchset *g, const struct patchset *b,
			     const char *name)
{
	json_t *fg = json_object_get(g->files, name),
	       *fb = json_object_get(b->files, name);

	if (!in_series(b->series, name))
		return "removed";
	if (!in_series(g->series, name))
		return "added";
	return json_equal(json_object_get(fg, "sha256"),
			  json_object_get(fb, "sha256"))
		       ? "same"
		       : "changed";
}

/* names: a list of patch names, with room for cap */
struct names {
	const char **v;
	size_t n;
};

static void insert_at(struct names *l, size_t at, const char *name)
{
	memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof(*l->v));
	l->v[at] = name;
	l->n++;
}

/*
 * The order in which the patch level applies both series: the bad
 * series, with each removed patch put back after the good series' patch
 * before it that both series have (or first).
 */
static int merged_order(const struct patchset *g, const struct patchset *b,
			struct names *m)
{
	size_t ng = json_array_size(g->series), i, j, at = 0;
	json_t *v;

	m->n = 0;
	m->v = calloc(ng + json_array_size(b->series) + 1, sizeof(*m->v));
	if (!m->v)
		return err_set(ERR_NOMEM, "out of memory");
	json_array_foreach(b->series, i, v) m->v[m->n++] = json_string_value(v);
	for (i = 0; i < ng; i++) {
		const char *n = json_string_value(json_array_get(g->series, i));

		if (in_series(b->series, n)) {
			for (j = 0; j < m->n && strcmp(m->v[j], n); j++)
				;
			at = j + 1;
		} else {
			insert_at(m, at++, n);
		}
	}
	return 0;
}

/* The index of name in the differences d (the patch level's steps). */
static size_t diff_index(const struct names *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n && strcmp(d->v[i], name); i++)
		;
	return i;
}

/*
 * Step k of the patch level: the series with the first k differences
 * taken over from the bad release (patches removed, changed to their
 * new text, or added); its texts into names/texts/lens.
 */
static size_t series_at(const struct patchset *g, const struct patchset *b,
			const struct names *m, const struct names *d, size_t k,
			const char **names, const char **texts, size_t *lens)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++) {
		const char *c = change_of(g, b, m->v[i]);
		int newer = diff_index(d, m->v[i]) < k;
		const struct patchset *from = b;

		if (!strcmp(c, "removed")) {
			if (newer)
				continue;
			from = g;
		} else if (!strcmp(c, "added") && !newer) {
			continue;
		} else if (!strcmp(c, "changed") && !newer) {
			from = g;
		}
		names[n] = m->v[i];
		texts[n] = patch_text(from, m->v[i], &lens[n]);
		if (texts[n])
			n++;
	}
	return n;
}

/*
 * The patch level: with a repository that has the upstream version's
 * tag, a linear history there from the good release's series applied
 * on the tag (the first commit) to the bad release's (the last), a
 * commit per difference: the removed patches taken out, then the
 * changed and added ones taken over in the bad series' order, each
 * commit's series applied on the tag from scratch.  The commit-level
 * bisection between the first and the last names the first bad patch.
 * Into out: "bisection" (bisect's result) and "first_bad_patch", or
 * "bisection_error".  Returns bisect's exit status, or 0 when it could
 * not run (the error says why).
 */
static int patch_level(struct rel_state *st, const struct release *good,
		       const struct release *bad, const struct patchset *g,
		       const struct patchset *b, const char *recipe,
		       json_t *out)
{
	const struct releases_opts *ro = st->o;
	struct names m = { 0 }, d = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid up, *c = NULL;
	const char **names = NULL, **texts = NULL;
	size_t *lens = NULL, k, n, i;
	char tag[64], hex0[GU_HEXSZ + 1], hexn[GU_HEXSZ + 1];
	char *json = util_fmt("%s/patch-level.json", ro->out_dir),
	     *dir = util_fmt("%s/patch-level", ro->out_dir);
	int rc, status = -1;
	json_t *v;

	snprintf(tag, sizeof(tag), "refs/tags/v%s", good->upstream);
	rc = json && dir ? merged_order(g, b, &m)
			 : err_set(ERR_NOMEM, "out of memory");
	d.v = rc ? NULL : calloc(m.n + 1, sizeof(*d.v));
	names = calloc(m.n + 1, sizeof(*names));
	texts = calloc(m.n + 1, sizeof(*texts));
	lens = calloc(m.n + 1, sizeof(*lens));
	c = calloc(m.n + 1, sizeof(*c));
	if (!rc && (!d.v || !names || !texts || !lens || !c))
		rc = err_set(ERR_NOMEM, "out of memory");
	/* the differences: removed ones first, then the bad series' order */
	for (i = 0; !rc && i < json_array_size(g->series); i++) {
		const char *name =
			json_string_value(json_array_get(g->series, i));

		if (!strcmp(change_of(g, b, name), "removed"))
			d.v[d.n++] = name;
	}
	for (i = 0; !rc && i < json_array_size(b->series); i++) {
		const char *name =
			json_string_value(json_array_get(b->series, i));

		if (strcmp(change_of(g, b, name), "same"))
			d.v[d.n++] = name;
	}
	if (!rc && ro->repo_handle)
		repo = ro->repo_handle;
	else if (!rc)
		rc = gu_open(&repo, ro->repo);
	if (!rc && gu_resolve(repo, tag, &up))
		rc = err_set(ERR_INPUT, "%s has no tag v%s", ro->repo,
			     good->upstream);
	if (!rc) {
		char *msg = util_fmt("linux %s: Debian's %zu patches on v%s\n",
				     good->version, json_array_size(g->series),
				     good->upstream);

		n = 0;
		json_array_foreach(g->series, i, v)
		{
			names[n] = json_string_value(v);
			texts[n] = patch_text(g, names[n], &lens[n]);
			n += texts[n] != NULL;
		}
		rc = msg ? gu_commit_patched(&c[0], repo, &up, &up, names,
					     texts, lens, n, msg)
			 : err_set(ERR_NOMEM, "out of memory");
		free(msg);
	}
	for (k = 1; !rc && k <= d.n; k++) {
		json_t *f = json_object_get(
			json_object_get(b->files, d.v[k - 1]), "subject");
		char *msg;

		if (!f)
			f = json_object_get(
				json_object_get(g->files, d.v[k - 1]),
				"subject");
		msg = util_fmt("linux %s: %s %s\n\n%s\n", bad->version,
			       change_of(g, b, d.v[k - 1]), d.v[k - 1],
			       json_is_string(f) ? json_string_value(f) : "");
		n = series_at(g, b, &m, &d, k, names, texts, lens);
		rc = msg ? gu_commit_patched(&c[k], repo, &up, &c[k - 1], names,
					     texts, lens, n, msg)
			 : err_set(ERR_NOMEM, "out of memory");
		free(msg);
	}
	if (rc) {
		json_object_set_new(out, "bisection_error",
				    json_string(err_last()));
		printf("Debian's patches cannot be bisected: %s\n", err_last());
		goto done;
	}
	gu_oid_hex(hex0, &c[0]);
	gu_oid_hex(hexn, &c[d.n]);
	printf("bisecting Debian's %zu changes of patches from linux %s to "
	       "%s, applied on v%s in %s (commits %.12s..%.12s), with %s\n",
	       d.n, good->version, bad->version, good->upstream, ro->repo, hex0,
	       hexn, recipe);
	fflush(stdout);
	status = ro->bisect_commits(ro, hex0, hexn, recipe, json, dir);
	if (status >= 0) {
		json_t *r = json_load_file(json, 0, NULL);
		const char *fb =
			json_string_value(json_object_get(r, "first_bad"));

		for (k = 1; fb && k <= d.n; k++) {
			gu_oid_hex(hexn, &c[k]);
			if (strcmp(fb, hexn))
				continue;
			v = patch_entry(
				strcmp(change_of(g, b, d.v[k - 1]), "removed")
					? b
					: g,
				d.v[k - 1]);
			json_object_set_new(
				v, "change",
				json_string(change_of(g, b, d.v[k - 1])));
			printf("first bad patch: %s (%s)%s%s\n", d.v[k - 1],
			       change_of(g, b, d.v[k - 1]),
			       *json_string_value(json_object_get(v, "subject"))
				       ? ": "
				       : "",
			       json_string_value(
				       json_object_get(v, "subject")));
			json_object_set_new(out, "first_bad_patch", v);
		}
		json_object_set_new(out, "bisection",
				    r ? r : json_pack("{s:i}", "exit", status));
	}
done:
	if (repo != ro->repo_handle)
		gu_close(repo);
	free(m.v);
	free(d.v);
	free(names);
	free(texts);
	free(lens);
	free(c);
	free(json);
	free(dir);
	return status < 0 ? 0 : status;
}

/*
 * What Debian's patches changed from good to bad (one upstream version,
 * two Debian revisions): those added to the series, removed from it,
 * and changed, as "debian_patches" in o and on the terminal; or why
 * they cannot be had.  With a repository, they are bisected too
 * (patch_level, with recipe): its exit status, else 0.
 */
static int debian_patches(struct rel_state *st, const struct release *good,
			  const struct release *bad, const char *recipe,
			  json_t *o)
{
	struct patchset g = { 0 }, b = { 0 };
	char *gt = NULL, *bt = NULL, why[512] = "";
	int status = 0;
	json_t *out = json_object(), *added = json_array(),
	       *removed = json_array(), *changed = json_array(), *v;
	size_t i;

	json_object_set_new(out, "good_source",
			    json_pack("s+", "linux ", good->version));
	json_object_set_new(out, "bad_source",
			    json_pack("s+", "linux ", bad->version));
	if (debian_tarball(st, good->version, &gt, why, sizeof(why)) == 0 &&
	    debian_tarball(st, bad->version, &bt, why, sizeof(why)) == 0 &&
	    (read_patches(gt, &g) || read_patches(bt, &b)))
		snprintf(why, sizeof(why), "%s", err_last());
	if (!*why) {
		json_array_foreach(b.series, i, v)
		{
			const char *n = json_string_value(v);
			json_t *fg = json_object_get(g.files, n),
			       *fb = json_object_get(b.files, n);

			if (!in_series(g.series, n))
				json_array_append_new(added,
						      patch_entry(&b, n));
			else if (!json_equal(json_object_get(fg, "sha256"),
					     json_object_get(fb, "sha256")))
				json_array_append_new(changed,
						      patch_entry(&b, n));
		}
		json_array_foreach(g.series, i, v)
		{
			if (!in_series(b.series, json_string_value(v)))
				json_array_append_new(
					removed,
					patch_entry(&g, json_string_value(v)));
		}
		printf("Debian's patches from linux %s to %s: %zu added, "
		       "%zu removed, %zu changed (of %zu)\n",
		       good->version, bad->version, json_array_size(added),
		       json_array_size(removed), json_array_size(changed),
		       json_array_size(b.series));
		{
			json_t *const lists[] = { added, removed, changed };
			const char marks[] = "+-~";
			size_t k;

			for (k = 0; k < 3; k++)
				json_array_foreach(lists[k], i, v) printf(
					"  %c %s%s%s\n", marks[k],
					json_string_value(
						json_object_get(v, "name")),
					*json_string_value(
						json_object_get(v, "subject"))
						? ": "
						: "",
					json_string_value(
						json_object_get(v, "subject")));
		}
		json_object_set(out, "added", added);
		json_object_set(out, "removed", removed);
		json_object_set(out, "changed", changed);
		if (st->o->repo && st->o->bisect_commits && recipe &&
		    json_array_size(added) + json_array_size(removed) +
				    json_array_size(changed) >
			    0)
			status =
				patch_level(st, good, bad, &g, &b, recipe, out);
	} else {
		printf("Debian's patches from linux %s to %s cannot be had: "
		       "%s\n",
		       good->version, bad->version, why);
		json_object_set_new(out, "unavailable", json_string(why));
	}
	json_object_set_new(o, "debian_patches", out);
	json_decref(added);
	json_decref(removed);
	json_decref(changed);
	patchset_release(&g);
	patchset_release(&b);
	free(gt);
	free(bt);
	return status;
}

void releases_print_answer(const json_t *o)
{
	const char *f = json_string_value(json_object_get(o, "flavour"));

#define S(k) json_string_value(json_object_get(o, k))
	if (S("first_bad_release"))
		printf("first bad release: %s, linux-image-%s-%s %s "
		       "(upstream %s)\n"
		       "last good release: %s, linux-image-%s-%s %s "
		       "(upstream %s)\n",
		       S("first_bad_release"), S("first_bad_release"), f,
		       S("first_bad_version"), S("first_bad_upstream"),
		       S("last_good_release"), S("last_good_release"), f,
		       S("last_good_version"), S("last_good_upstream"));
	else if (S("reason"))
		printf("no first bad release: %s\n", S("reason"));
#undef S
}

/* The result on the terminal and as JSON. */
static int report(struct rel_state *st, const struct release *bad,
		  const struct release *good, int *found, double confidence,
		  const char *why)
{
	json_t *o = json_object(), *ch = NULL;
	char *recipe = NULL, *next = NULL;
	int rc = 0, status = 0;

	json_object_set_new(o, "flavour", json_string(st->o->flavour));
	json_object_set_new(o, "result",
			    json_string(*found ? "found" : "ambiguous"));
	json_object_set_new(o, "probes", json_incref(st->probes));
	if (st->marks) /* by hand: the answers stand for probes */
		json_object_set_new(o, "answers", json_incref(st->marks));
	if (!*found) {
		json_object_set_new(o, "reason", json_string(why));
		releases_print_answer(o);
	} else {
		put_release(o, "first_bad", bad);
		put_release(o, "last_good", good);
		releases_print_answer(o);
		if (confidence > 0)
			printf("confidence %.2f\n", confidence);
		json_object_set_new(o, "confidence", json_real(confidence));
		ch = changes(bad, good);
		if (ch) {
			size_t i;
			json_t *e;

			printf("changes since %s (the first bad release's "
			       "changelog):\n",
			       good->version);
			json_array_foreach(ch, i, e) print_entry(e);
			json_object_set_new(o, "changelog", ch);
		}
		recipe = good->deb ? next_recipe(st, good) : NULL;
		if (strcmp(bad->upstream, good->upstream) && recipe)
			next = util_fmt("bisectctl bisect --repo LINUX-STABLE "
					"--good v%s --bad v%s --recipe %s "
					"--base-release %s --flavour %s%s%s",
					good->upstream, bad->upstream,
					st->o->recipe->name, good->abi,
					st->o->flavour,
					st->o->test ? " --test " : "",
					st->o->test ? st->o->test : "");
		if (next && st->o->repo && st->o->bisect_commits &&
		    !st->o->patches_only) {
			status = commit_level(st, good, bad,
					      st->o->commit_recipe
						      ? st->o->commit_recipe
						      : recipe,
					      o);
		} else if (next) {
			printf("next: bisect the commits between the two "
			       "upstream versions in a linux-stable clone, "
			       "with the last good release's config:\n  %s\n",
			       next);
			json_object_set_new(o, "next_step", json_string(next));
		} else if (!strcmp(bad->upstream, good->upstream)) {
			printf("both are upstream %s: the difference is "
			       "Debian's own patches (the changelog entries "
			       "above; apt-get source linux=%s and "
			       "linux=%s have them as debian/patches)\n",
			       bad->upstream, good->version, bad->version);
			status = debian_patches(st, good, bad,
						st->o->commit_recipe
							? st->o->commit_recipe
							: recipe,
						o);
			if (!st->o->repo) {
				next = util_fmt(
					"bisectctl releases --flavour %s "
					"--good %s --bad %s --repo "
					"LINUX-STABLE%s%s",
					st->o->flavour, good->abi, bad->abi,
					st->o->test ? " --test " : "",
					st->o->test ? st->o->test : "");
				printf("next: bisect Debian's patches, "
				       "applied on tag v%s of a linux-stable "
				       "clone:\n  %s\n",
				       bad->upstream, next ? next : "");
				json_object_set_new(
					o, "next_step",
					json_string(next ? next : ""));
			}
		}
	}
	if (st->o->json) {
		char *text = json_dumps(o, JSON_INDENT(2));

		rc = text ? util_write_atomic(st->o->json, text, strlen(text))
			  : err_set(ERR_NOMEM, "out of memory");
		free(text);
	}
	json_decref(o);
	free(recipe);
	free(next);
	/* the commit level decides: ambiguous there is ambiguous */
	if (!rc && status == 1)
		*found = 0;
	else if (!rc && (status < 0 || status > 1))
		rc = err_set(status == 2 ? ERR_INPUT : ERR_INFRA,
			     "the commit-level bisection failed (see above)");
	return rc;
}

/* The good release must pass, as a commit-level bisection's good does. */
static int check_good(struct rel_state *st, struct release *good)
{
	unsigned f, p, s;
	int rc = probe(st, good, st->o->runs, &f, &p, &s);

	if (!rc && s)
		rc = err_set(ERR_INPUT, "the good release %s does not boot: %s",
			     good->abi, good->title);
	else if (!rc && f)
		rc = err_set(ERR_INPUT,
			     "the good release %s does not pass (verdict "
			     "bad: %s)",
			     good->abi, good->title);
	return rc;
}

/* A manual bisection that waits for the user: the JSON says which. */
static int report_waiting(struct rel_state *st, const struct release *r)
{
	json_t *o;
	char *text;
	int rc = 0;

	if (!st->o->json)
		return 0;
	o = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s+++++}", "flavour",
		      st->o->flavour, "result", "waiting", "next_release",
		      r->abi, "next_version", r->version, "answers", st->marks,
		      "install", "apt-get install linux-image-", r->abi, "-",
		      st->o->flavour, "=", r->version);
	text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
	rc = text ? util_write_atomic(st->o->json, text, strlen(text))
		  : err_set(ERR_NOMEM, "out of memory");
	free(text);
	json_decref(o);
	return rc;
}

/* An engine over n releases, newest first, each the child of the next. */
static int linear_engine(struct engine **e, size_t n)
{
	size_t i;
	int rc = engine_new(e, n);

	for (i = 0; !rc && i + 1 < n; i++)
		rc = engine_add_parent(*e, (uint32_t)i, (uint32_t)i + 1);
	if (!rc)
		rc = engine_set_bad(*e, 0);
	return rc;
}

int releases_linear(struct linear_probe *lp, long *culprit, double *confidence)
{
	struct engine *e = NULL;
	unsigned f = 0, p = 0, s = 0, tries = 0, total = 0;
	int runs = lp->confidence > 0 ? 1 : lp->runs;
	uint32_t pick;
	int rc = linear_engine(&e, lp->n);

	*culprit = -1;
	lp->why[0] = '\0';
	if (rc) {
		engine_free(e);
		return rc;
	}
	engine_set_confidence(e, lp->confidence, 0);
	/* the bad one, until it failed 3 times (or once without a
	 * confidence, as git would) */
	while (!rc && total < (lp->confidence > 0 ? 3u : 1u) && tries < 10) {
		rc = lp->probe(lp->ctx, 0, runs, &f, &p, &s);
		if (!rc && s)
			rc = err_set(ERR_INPUT,
				     "the bad %s %s does not boot: %s",
				     lp->what, lp->name(lp->ctx, 0),
				     lp->title(lp->ctx, 0));
		if (!rc)
			rc = engine_observe(e, 0, f, p);
		total += f;
		tries++;
	}
	if (!rc && !s && !total)
		rc = err_set(ERR_INPUT,
			     "the bad %s %s does not fail in %u boots: "
			     "nothing to bisect",
			     lp->what, lp->name(lp->ctx, 0),
			     tries * (unsigned)runs);
	/* (a bad one that does not boot has ended it above) */
	while (!rc && total) {
		enum engine_state es = engine_next(e, &pick);

		if (es == ENGINE_FOUND) {
			*culprit = pick;
			*confidence = lp->confidence > 0
					      ? engine_probability(e, pick)
					      : 0;
			break;
		}
		if (es != ENGINE_TEST && es != ENGINE_VERIFY) {
			snprintf(
				lp->why, sizeof(lp->why),
				es == ENGINE_NOTHING
					? "no %s between good and bad"
					: "only %ss that do not boot are left, "
					  "or no run can decide",
				lp->what);
			break;
		}
		rc = lp->probe(lp->ctx, pick, runs, &f, &p, &s);
		if (!rc && s)
			rc = engine_mark(e, pick, VERDICT_SKIP);
		else if (!rc && lp->confidence > 0)
			rc = engine_observe(e, pick, f, p);
		else if (!rc)
			rc = engine_mark(e, pick,
					 f ? VERDICT_BAD : VERDICT_GOOD);
	}
	engine_free(e);
	return rc;
}

/* The releases cand[0..n) (newest first) as a linear history. */
struct rel_probe {
	struct rel_state *st;
	struct release **cand;
};

static int rel_probe(void *ctx, size_t i, int runs, unsigned *fails,
		     unsigned *passes, unsigned *skips)
{
	struct rel_probe *rp = ctx;

	return probe(rp->st, rp->cand[i], runs, fails, passes, skips);
}

static const char *rel_name(void *ctx, size_t i)
{
	return ((struct rel_probe *)ctx)->cand[i]->abi;
}

static const char *rel_title(void *ctx, size_t i)
{
	const char *t = ((struct rel_probe *)ctx)->cand[i]->title;

	return t ? t : "";
}

/* The engine over the candidates cand[0..n) (newest first). */
static int run_engine(struct rel_state *st, struct release **cand, size_t n,
		      long *culprit, double *confidence, const char **why)
{
	struct rel_probe rp = { st, cand };
	struct linear_probe lp;
	int rc;

	memset(&lp, 0, sizeof(lp));
	lp.n = n;
	lp.confidence = st->o->confidence;
	lp.runs = st->o->runs;
	lp.what = "release";
	lp.probe = rel_probe;
	lp.name = rel_name;
	lp.title = rel_title;
	lp.ctx = &rp;
	rc = releases_linear(&lp, culprit, confidence);
	if (lp.why[0]) {
		snprintf(st->why, sizeof(st->why), "%s", lp.why);
		*why = st->why;
	}
	return rc;
}

/* --- manual: the user installs each release and answers ------------------ */

static char *state_path(const struct rel_state *st)
{
	return util_fmt("%s/manual-state.json", st->dir);
}

/*
 * A --continue: the saved bisection's options into *o, its answers into
 * st->marks.  ERR_INPUT when there is none.
 */
static int load_state(struct rel_state *st, struct releases_opts *o)
{
	char *path = state_path(st);
	json_error_t je;
	json_t *s;

	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	s = json_load_file(path, 0, &je);
	free(path);
	if (!s)
		return err_set(ERR_INPUT, "no manual release bisection is in "
					  "progress (start one with --manual)");
	if (json_unpack(s, "{s:s, s:s, s:s, s:o, s:s}", "flavour", &o->flavour,
			"good", &o->good, "bad", &o->bad, "marks", &st->marks,
			"pending", &st->pending)) {
		json_decref(s);
		return err_set(ERR_INPUT, "the saved manual bisection is "
					  "damaged: start again with --manual");
	}
	st->saved = s;
	json_incref(st->marks);
	return 0;
}

/* bisectd's answers ("ABI:good ABI:bad ...") as marks. */
static int parse_answers(json_t *marks, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, " "), c = strcspn(p, ":");
		char abi[32], v[8];

		if (c >= len || c >= sizeof(abi) || len - c - 1 >= sizeof(v))
			return err_set(ERR_INPUT, "bad answers '%.40s'", p);
		snprintf(abi, sizeof(abi), "%.*s", (int)c, p);
		snprintf(v, sizeof(v), "%.*s", (int)(len - c - 1), p + c + 1);
		if (strcmp(v, "good") && strcmp(v, "bad") && strcmp(v, "skip"))
			return err_set(ERR_INPUT, "bad answer '%s'", v);
		json_array_append_new(marks, json_pack("{s:s, s:s}", "release",
						       abi, "verdict", v));
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

static int save_state(struct rel_state *st, const char *pending)
{
	char *path = state_path(st), *text;
	json_t *s =
		json_pack("{s:s, s:s, s:s, s:O, s:s}", "flavour",
			  st->o->flavour, "good", st->o->good, "bad",
			  st->o->bad, "marks", st->marks, "pending", pending);
	int rc;

	text = s ? json_dumps(s, JSON_INDENT(2)) : NULL;
	rc = path && text ? util_write_atomic(path, text, strlen(text))
			  : err_set(ERR_NOMEM, "out of memory");
	free(text);
	free(path);
	json_decref(s);
	return rc;
}

static void drop_state(struct rel_state *st)
{
	char *path = st->o->stateless ? NULL : state_path(st);

	if (path)
		unlink(path);
	free(path);
}

static long candidate_index(struct release **cand, size_t n, const char *abi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(cand[i]->abi, abi))
			return (long)i;
	return -1;
}

/*
 * The user's answers so far, replayed into git's bisection; then either
 * the next release to install (saved, and said how) or the end.
 */
static int run_manual(struct rel_state *st, struct release **cand, size_t n,
		      long *culprit, const char **why)
{
	const char *v = st->o->continue_verdict;
	struct engine *e = NULL;
	json_t *m;
	uint32_t pick;
	size_t i;
	int rc = linear_engine(&e, n);

	*culprit = -1;
	if (!rc && v)
		json_array_append_new(st->marks,
				      json_pack("{s:s, s:s}", "release",
						st->pending, "verdict", v));
	json_array_foreach(st->marks, i, m)
	{
		const char *abi =
			json_string_value(json_object_get(m, "release"));
		const char *mv =
			json_string_value(json_object_get(m, "verdict"));
		long k = abi && mv ? candidate_index(cand, n, abi) : -1;

		if (rc || k < 0)
			continue;
		rc = engine_mark(e, (uint32_t)k,
				 !strcmp(mv, "good")  ? VERDICT_GOOD
				 : !strcmp(mv, "bad") ? VERDICT_BAD
						      : VERDICT_SKIP);
	}
	if (!rc) {
		enum engine_state es = engine_next(e, &pick);

		if (es == ENGINE_TEST) {
			struct release *r = cand[pick];

			rc = describe(st, r);
			if (!rc && !st->o->stateless)
				rc = save_state(st, r->abi);
			if (!rc && st->o->stateless) {
				printf("next: install release %s and boot it:\n"
				       "  apt-get install "
				       "linux-image-%s-%s=%s\n"
				       "(%zu releases left to tell apart)\n",
				       r->abi, r->abi, st->o->flavour,
				       r->version, engine_candidate_count(e));
				st->waiting = r;
			} else if (!rc) {
				printf("next: install release %s and boot it:\n"
				       "  apt-get install "
				       "linux-image-%s-%s=%s\n"
				       "then, once you know whether it works:\n"
				       "  bisectctl releases --continue "
				       "good|bad|skip\n"
				       "(%zu releases left to tell apart; the "
				       "state is kept in "
				       "%s/manual-state.json)\n",
				       r->abi, r->abi, st->o->flavour,
				       r->version, engine_candidate_count(e),
				       st->dir);
				st->waiting = r;
			}
		} else if (es == ENGINE_FOUND) {
			*culprit = pick;
			drop_state(st);
		} else {
			*why = "only skipped releases are left";
			drop_state(st);
		}
	}
	engine_free(e);
	return rc;
}

static void free_releases(struct rel_state *st)
{
	size_t i;

	for (i = 0; i < st->nrels; i++) {
		free(st->rels[i].deb);
		free(st->rels[i].vmlinuz);
		free(st->rels[i].changelog);
		free(st->rels[i].modules);
		free(st->rels[i].initrd);
		free(st->rels[i].title);
	}
	free(st->rels);
}

int releases_package(const char *cache, const char *flavour, const char *abi,
		     const char *out_dir, char **deb)
{
	struct releases_opts o = { .flavour = flavour,
				   .cache = cache,
				   .out_dir = out_dir };
	struct rel_state st = { .o = &o };
	long i = -1;
	int rc;

	*deb = NULL;
	if ((rc = words_ok(flavour, &abi, 1)))
		return rc;
	st.dir = util_fmt("%s/releases", cache);
	rc = st.dir ? util_mkdir_p(st.dir)
		    : err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = util_mkdir_p(out_dir);
	if (!rc)
		rc = list_releases(&st);
	if (!rc && (i = find_release(&st, abi)) < 0)
		rc = unknown_release(&st, abi);
	if (!rc)
		rc = fetch(&st, &st.rels[i]);
	if (!rc && !(*deb = strdup(st.rels[i].deb)))
		rc = err_set(ERR_NOMEM, "out of memory");
	free_releases(&st);
	free(st.dir);
	return rc;
}

int releases_bisect(const struct releases_opts *o_in, int *found)
{
	struct releases_opts o_copy = *o_in, *o = &o_copy;
	struct rel_state st = { .o = o };
	struct release **cand = NULL;
	long gi, bi, culprit = -1;
	double confidence = 0;
	const char *why = "";
	size_t n = 0, i;
	int rc;

	*found = 0;
	st.dir = util_fmt("%s/releases", o->cache);
	st.probes = json_array();
	if (!st.dir || !st.probes)
		rc = err_set(ERR_NOMEM, "out of memory");
	else
		rc = util_mkdir_p(st.dir);
	if (!rc && o->continue_verdict) {
		rc = load_state(&st, o);
		o->manual = 1;
	} else if (!rc && o->manual) {
		st.marks = json_array();
		if (!st.marks)
			rc = err_set(ERR_NOMEM, "out of memory");
		else if (o->answers)
			rc = parse_answers(st.marks, o->answers);
	}
	if (!rc) {
		/* as given, or as a --continue's state file says */
		const char *rels[] = { o->good, o->bad };

		rc = words_ok(o->flavour, rels, 2);
	}
	if (!rc)
		rc = list_releases(&st);
	gi = rc ? -1 : find_release(&st, o->good);
	bi = rc ? -1 : find_release(&st, o->bad);
	if (!rc && gi < 0)
		rc = unknown_release(&st, o->good);
	else if (!rc && bi < 0)
		rc = unknown_release(&st, o->bad);
	else if (!rc && gi >= bi)
		rc = err_set(ERR_INPUT,
			     "the good release %s is not older than the bad "
			     "release %s",
			     o->good, o->bad);
	if (!rc) {
		n = (size_t)(bi - gi);
		cand = calloc(n, sizeof(*cand));
		if (!cand)
			rc = err_set(ERR_NOMEM, "out of memory");
		for (i = 0; !rc && i < n; i++)
			cand[i] = &st.rels[bi - (long)i];
	}
	if (!rc)
		fprintf(stderr,
			"bisecting %zu releases of linux-image-*-%s after %s "
			"up to %s%s\n",
			n, o->flavour, o->good, o->bad,
			o->manual ? ", by hand" : "");
	if (!rc && o->manual) {
		rc = run_manual(&st, cand, n, &culprit, &why);
	} else if (!rc) {
		/* QEMU itself must be there: a kernel it cannot start is then
		 * the release's fault (a skip), not the machine's */
		if (!util_in_path(o->recipe->qemu))
			rc = err_set(ERR_INFRA, "%s is not installed",
				     o->recipe->qemu);
		if (!rc)
			rc = check_good(&st, &st.rels[gi]);
		if (!rc)
			rc = run_engine(&st, cand, n, &culprit, &confidence,
					&why);
	}
	if (!rc && st.waiting) {
		rc = report_waiting(&st, st.waiting);
		*found = !rc;
	} else if (!rc && culprit >= 0) {
		struct release *good = &st.rels[bi - culprit - 1];

		/* both packages: for their versions, the last good one's
		 * config and the changelog (a manual bisection fetched
		 * neither) */
		rc = fetch(&st, good);
		if (!rc)
			rc = fetch(&st, cand[culprit]);
		*found = 1;
		if (!rc)
			rc = report(&st, cand[culprit], good, found, confidence,
				    why);
		if (rc)
			*found = 0;
	} else if (!rc) {
		rc = report(&st, NULL, NULL, found, 0, why);
	}
	free_releases(&st);
	free(cand);
	free(st.dir);
	json_decref(st.probes);
	json_decref(st.marks);
	json_decref(st.saved);
	return rc;
}
