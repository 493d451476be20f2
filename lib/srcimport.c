// SPDX-License-Identifier: GPL-2.0-only
/*
 * Source tarballs into git.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archives.h"
#include "buf.h"
#include "error.h"
#include "srcimport.h"
#include "util.h"

#define EPOCH 1700000000 /* imports are reproducible: same tree, same id */

/* Drop the .gitignore block that Debian's tarball adds. */
static size_t strip_debian_ignore(char *data, size_t len)
{
	char *p = strstr(data, "#\n# Debian packaging");

	if (!p)
		return len;
	*p = '\0';
	return (size_t)(p - data);
}

static void read_version(char *out, size_t size, const char *makefile)
{
	int v = 0, p = 0, s = 0;
	const char *m;

	if ((m = strstr(makefile, "\nVERSION = ")))
		v = atoi(m + 11);
	if ((m = strstr(makefile, "\nPATCHLEVEL = ")))
		p = atoi(m + 14);
	if ((m = strstr(makefile, "\nSUBLEVEL = ")))
		s = atoi(m + 12);
	snprintf(out, size, "%d.%d.%d", v, p, s);
}

int srcimport_tarball(struct gu_repo *r, const char *tarball, const char *tag,
		      const char *message, struct gu_oid *out, char *version,
		      size_t vsize)
{
	struct arc *a;
	struct arc_entry e;
	struct gu_import *im = NULL;
	struct buf data;
	int rc, more = 0;

	version[0] = '\0';
	if ((rc = arc_open(&a, tarball, ARC_TAR)))
		return rc;
	buf_init(&data, 1u << 30);
	rc = gu_import_new(&im, r);
	while (!rc && (rc = more = arc_next(a, &e)) == 1) {
		const char *path = strchr(e.name, '/');
		size_t len;

		rc = 0;
		if (!path || !path[1])
			continue;
		path++; /* below the top directory */
		if (e.type == ARC_LINK) {
			rc = gu_import_add(im, path, e.link, strlen(e.link),
					   GU_IMPORT_LINK);
			continue;
		}
		if (e.type != ARC_FILE)
			continue;
		buf_reset(&data);
		if ((rc = arc_read_buf(a, &data)))
			break;
		if (data.len != e.size) {
			rc = err_set(ERR_INPUT, "short read from '%s'",
				     tarball);
			break;
		}
		len = data.len;
		if (!strcmp(path, ".gitignore") && data.ptr)
			len = strip_debian_ignore(data.ptr, len);
		if (!strcmp(path, "Makefile"))
			read_version(version, vsize, buf_str(&data));
		rc = gu_import_add(im, path, buf_str(&data), len,
				   (e.perm & 0111) ? GU_IMPORT_EXEC
						   : GU_IMPORT_FILE);
	}
	if (!rc && more == 0 && !version[0])
		rc = err_set(ERR_INPUT,
			     "'%s' has no top Makefile with a "
			     "version: not a kernel source tarball",
			     tarball);
	arc_close(a);
	buf_release(&data);
	if (rc) {
		struct gu_oid sink;

		/* nothing is tagged: the objects are garbage for git gc */
		if (im)
			gu_import_finish(im, "x", "x@x", "x", EPOCH,
					 "bisectd/aborted-import", &sink);
		return rc;
	}
	return gu_import_finish(im, "Debian linux-source-6.1",
				"linux-source@bisectd.invalid", message, EPOCH,
				tag, out);
}

/* What argv prints (stdout and stderr) into out, when it exits 0; else
 * out stays empty. */
static void run_capture(const char *const *argv, struct buf *out)
{
	char tmp[] = "/tmp/bisectd-query.XXXXXX";
	struct proc_result pr;
	struct proc_opts o = { .log_path = tmp };
	int fd = mkstemp(tmp);

	if (fd < 0)
		return;
	close(fd);
	if (proc_run(&pr, argv, &o) || !pr.exited || pr.status ||
	    buf_read_file(out, tmp))
		buf_reset(out);
	unlink(tmp);
}

/* The installed linux-source-6.1's version, or "". */
static void installed_version(char *out, size_t size)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}",
			       "linux-source-6.1", NULL };
	struct buf b;

	buf_init(&b, 4096);
	run_capture(argv, &b);
	snprintf(out, size, "%.*s", (int)strcspn(buf_str(&b), "\n"),
		 buf_str(&b));
	buf_release(&b);
}

/* 1 when APT's lists know linux-source-6.1 at version (apt-cache show
 * prints nothing for one they do not, and exits 0). */
static int apt_knows(const char *version)
{
	char *pkg = util_fmt("linux-source-6.1=%s", version);
	char *line = util_fmt("\nVersion: %s\n", version);
	const char *argv[] = { "apt-cache", "show", "-q", pkg, NULL };
	struct buf b;
	int yes;

	buf_init(&b, 1u << 20);
	buf_puts(&b, "\n");
	if (pkg && line)
		run_capture(argv, &b);
	yes = pkg && line && strstr(buf_str(&b), line);
	buf_release(&b);
	free(pkg);
	free(line);
	return yes;
}

/* 1 when cache/linux.git holds tag already (opening it creates nothing). */
static int imported_before(const char *path, const char *tag)
{
	struct gu_repo *r = NULL;
	struct gu_oid oid;
	int yes;

	if (access(path, F_OK))
		return 0;
	yes = !gu_open(&r, path) && !gu_resolve(r, tag, &oid);
	gu_close(r);
	return yes;
}

/* Fetch linux-source-6.1=version with apt-get download into dir. */
static int fetch_package(char **deb, const char *dir, const char *version)
{
	char *pkg = util_fmt("linux-source-6.1=%s", version);
	char *log = util_fmt("%s/apt-get.log", dir);
	const char *argv[] = { "apt-get", "download", "-q", pkg, NULL };
	struct proc_opts o = { .cwd = dir, .log_path = log, .timeout_s = 1800 };
	struct proc_result pr;
	int rc;

	*deb = util_fmt("%s/linux-source-6.1_%s_all.deb", dir, version);
	if (!pkg || !log || !*deb)
		rc = err_set(ERR_NOMEM, "out of memory");
	else if (access(*deb, R_OK) == 0)
		rc = 0;
	else if ((rc = util_mkdir_p(dir)) == 0 &&
		 (rc = proc_run(&pr, argv, &o)) == 0 &&
		 (pr.exec_failed || !pr.exited || pr.status))
		rc = err_set(ERR_INPUT,
			     "apt-get download linux-source-6.1=%s failed "
			     "(see %s)",
			     version, log);
	free(pkg);
	free(log);
	return rc;
}

/* usr/src/linux-source-*.tar.* out of the package, into path. */
static int extract_tarball(const char *deb, const char *path)
{
	struct arc *a;
	struct arc_entry e;
	int rc = arc_open(&a, deb, ARC_DEB), found = 0;

	if (rc)
		return rc;
	while (!found && (rc = arc_next(a, &e)) == 1) {
		const char *name = e.name;

		if (!strncmp(name, "./", 2))
			name += 2;
		if (e.type == ARC_FILE &&
		    !strncmp(name, "usr/src/linux-source-", 21) &&
		    strstr(name, ".tar")) {
			rc = arc_read_to_file(a, path);
			found = 1;
		}
	}
	if (rc == 0 && !found)
		rc = err_set(ERR_INPUT,
			     "'%s' holds no usr/src/linux-source-* "
			     "tarball",
			     deb);
	arc_close(a);
	return rc;
}

int srcimport_debian(struct gu_repo **repo, struct gu_oid *out,
		     const char *cache, const char *version)
{
	char tag[256], installed[128], kv[32], *path, *debs, *tarball = NULL;
	char *deb = NULL, *msg;
	int rc, lock = -1;

	*repo = NULL;
	if (strspn(version, "0123456789.-+~abcdefghijklmnopqrstuvwxyz") !=
		    strlen(version) ||
	    !*version || strlen(version) > 64)
		return err_set(ERR_INPUT,
			       "'%s' is not a Debian package version", version);
	snprintf(tag, sizeof(tag), "debian/%s", version);
	path = util_fmt("%s/linux.git", cache);
	debs = util_fmt("%s/debs", cache);
	if (!path || !debs) {
		free(path);
		free(debs);
		return err_set(ERR_NOMEM, "out of memory");
	}
	/* a version nobody has is refused before anything is made */
	installed_version(installed, sizeof(installed));
	deb = util_fmt("%s/linux-source-6.1_%s_all.deb", debs, version);
	if (strcmp(installed, version) && deb && access(deb, R_OK) &&
	    !imported_before(path, tag) && !apt_knows(version)) {
		rc = err_set(ERR_INPUT,
			     "unknown source version '%s': APT knows no "
			     "linux-source-6.1 of that version (apt-cache "
			     "policy linux-source-6.1 lists those it knows)",
			     version);
		goto out;
	}
	free(deb);
	deb = NULL;
	rc = util_mkdir_p(cache);
	/* one import at a time: a second of the same version waits, then
	 * finds the tag */
	if (!rc) {
		char *lp = util_fmt("%s.lock", path);

		lock = lp ? util_lock(lp) : -1;
		if (lock < 0)
			rc = lp ? ERR_INFRA
				: err_set(ERR_NOMEM, "out of memory");
		free(lp);
	}
	if (!rc)
		rc = gu_init_bare(repo, path);
	if (!rc && gu_resolve(*repo, tag, out) == 0)
		goto out; /* imported before */
	if (rc)
		goto out;
	if (!strcmp(installed, version)) {
		tarball = strdup("/usr/src/linux-source-6.1.tar.xz");
	} else {
		rc = fetch_package(&deb, debs, version);
		tarball = util_fmt("%s/linux-source-6.1_%s.tar.xz", debs,
				   version);
		if (!rc && tarball && access(tarball, R_OK))
			rc = extract_tarball(deb, tarball);
	}
	msg = util_fmt("Linux %s (Debian linux-source-6.1)\n", version);
	if (!rc)
		rc = tarball && msg
			     ? srcimport_tarball(*repo, tarball, tag, msg, out,
						 kv, sizeof(kv))
			     : err_set(ERR_NOMEM, "out of memory");
	free(msg);
out:
	if (rc) {
		gu_close(*repo);
		*repo = NULL;
	}
	if (lock >= 0)
		close(lock);
	free(path);
	free(debs);
	free(deb);
	free(tarball);
	return rc;
}
