// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debian's kernel packages for the release bisection: the releases APT
 * knows of a flavour, each one's package fetched (checked by APT) into
 * the cache, its image, modules and changelog unpacked, and booted with
 * the job's test (releases_probe).
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

#include "releases_priv.h"

/* Run argv with its output to log (in the output directory); 0 if exit 0. */
int releases_run_tool(const char *const *argv, const char *cwd, const char *log)
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
int releases_list(struct rel_state *st)
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
	rc = releases_run_tool(argv, NULL, log);
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

long releases_find(const struct rel_state *st, const char *abi)
{
	size_t i;

	for (i = 0; i < st->nrels; i++)
		if (!strcmp(st->rels[i].abi, abi))
			return (long)i;
	return -1;
}

/* ERR_INPUT naming abi and listing what APT knows. */
int releases_unknown(const struct rel_state *st, const char *abi)
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

/* The package's version, hash and file name, from APT's index. */
int releases_describe(struct rel_state *st, struct release *r)
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
	rc = releases_run_tool(argv, NULL, log);
	if (!rc)
		rc = buf_read_file(&b, log);
	if (!rc) {
		const char *fn;

		util_control_field(buf_str(&b), "Version", r->version,
				   sizeof(r->version));
		util_control_field(buf_str(&b), "SHA256", r->sha256,
				   sizeof(r->sha256));
		util_control_field(buf_str(&b), "Filename", r->filename,
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
 * The version of Debian's linux-image-ABI-FLAVOUR, which is its source
 * package's (6.1.0-47 is 6.1.170-3), from APT's index.  ERR_INPUT for a
 * release APT does not know of.
 */
int releases_source_version(const char *flavour, const char *abi, char *out,
			    size_t size)
{
	char *pkg = util_fmt("linux-image-%s-%s", abi, flavour);
	const char *argv[] = { "apt-cache", "show", "--no-all-versions", pkg,
			       NULL };
	char log[] = "/tmp/bisectd-apt-show.XXXXXX";
	struct buf b;
	int fd = mkstemp(log), rc;

	buf_init(&b, 1 << 20);
	if (fd >= 0)
		close(fd);
	rc = !pkg     ? err_set(ERR_NOMEM, "out of memory")
	     : fd < 0 ? err_sys(ERR_INFRA, "cannot make a temporary file")
		      : releases_run_tool(argv, NULL, log);
	if (!rc)
		rc = buf_read_file(&b, log);
	if (!rc)
		util_control_field(buf_str(&b), "Version", out, size);
	if (rc || !*out ||
	    strspn(out, "0123456789abcdefghijklmnopqrstuvwxyz.+~-") !=
		    strlen(out))
		rc = err_set(ERR_INPUT,
			     "APT knows no package %s (apt-cache show; "
			     "apt-get update, or another release)",
			     pkg ? pkg : abi);
	if (fd >= 0)
		unlink(log);
	buf_release(&b);
	free(pkg);
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
		rc = releases_run_tool(argv, NULL, log);
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
		rc = releases_run_tool(argv, NULL, log);
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
int releases_in_cache(const char *path, const char *sha256)
{
	char hex[DIGEST_HEXSZ + 1];

	return !digest_file_hex(hex, path) && !strcmp(hex, sha256);
}

/* The package in the cache, fetched with APT when it is not there. */
int releases_fetch(struct rel_state *st, struct release *r)
{
	char *spec, *log;
	const char *argv[] = { "apt-get", "download", "-q", NULL, NULL };
	int rc;

	if (r->deb)
		return 0;
	rc = releases_describe(st, r);
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
	if (!releases_in_cache(r->deb, r->sha256)) {
		fprintf(stderr, "%s (%s): downloading %s\n", r->abi, r->version,
			strrchr(r->filename, '/') + 1);
		argv[3] = spec;
		unlink(r->deb);
		rc = releases_run_tool(argv, st->dir, log);
		if (!rc && !releases_in_cache(r->deb, r->sha256))
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
int releases_probe(struct rel_state *st, struct release *r, int runs,
		   unsigned *fails, unsigned *passes, unsigned *skips)
{
	const struct recipe *rc_ = st->o->recipe;
	int i, rc = releases_fetch(st, r);

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
