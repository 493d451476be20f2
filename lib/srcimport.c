/*
 * Source tarballs into git, with libarchive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "buf.h"
#include "debpkg.h"
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

static int arch_fail(struct archive *a, const char *what, const char *path)
{
	return err_set(ERR_INPUT, "%s '%s': %s", what, path,
		       archive_error_string(a) ? archive_error_string(a)
					       : "unknown error");
}

int srcimport_tarball(struct gu_repo *r, const char *tarball, const char *tag,
		      const char *message, struct gu_oid *out, char *version,
		      size_t vsize)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	struct gu_import *im = NULL;
	char *data = NULL;
	size_t cap = 0;
	int rc, ar;

	version[0] = '\0';
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, tarball, 1 << 20) != ARCHIVE_OK) {
		rc = arch_fail(a, "cannot open", tarball);
		archive_read_free(a);
		return rc;
	}
	rc = gu_import_new(&im, r);
	while (!rc && (ar = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
		const char *path = strchr(archive_entry_pathname(ent), '/');
		mode_t type = archive_entry_filetype(ent);

		if (!path || !path[1])
			continue;
		path++; /* below the top directory */
		if (type == AE_IFLNK) {
			const char *target = archive_entry_symlink(ent);

			rc = gu_import_add(im, path, target, strlen(target),
					   GU_IMPORT_LINK);
		} else if (type == AE_IFREG) {
			size_t want = (size_t)archive_entry_size(ent), len = 0;
			la_ssize_t n;

			if (want + 1 > cap) {
				char *d = realloc(data, want + 1);

				if (!d) {
					rc = err_set(ERR_NOMEM,
						     "out of memory");
					break;
				}
				data = d;
				cap = want + 1;
			}
			while (len < want &&
			       (n = archive_read_data(a, data + len,
						      want - len)) > 0)
				len += (size_t)n;
			if (len != want) {
				rc = arch_fail(a, "short read from", tarball);
				break;
			}
			data[len] = '\0';
			if (!strcmp(path, ".gitignore"))
				len = strip_debian_ignore(data, len);
			if (!strcmp(path, "Makefile"))
				read_version(version, vsize, data);
			rc = gu_import_add(im, path, data, len,
					   (archive_entry_perm(ent) & 0111)
						   ? GU_IMPORT_EXEC
						   : GU_IMPORT_FILE);
		}
	}
	if (!rc && ar != ARCHIVE_EOF)
		rc = arch_fail(a, "cannot read", tarball);
	if (!rc && !version[0])
		rc = err_set(ERR_INPUT,
			     "'%s' has no top Makefile with a "
			     "version: not a kernel source tarball",
			     tarball);
	archive_read_free(a);
	free(data);
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

/* The installed linux-source-6.1's version, or "". */
static void installed_version(char *out, size_t size)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}",
			       "linux-source-6.1", NULL };
	char tmp[] = "/tmp/bisectd-dpkg.XXXXXX";
	struct proc_result pr;
	struct proc_opts o = { .log_path = tmp };
	struct buf b;
	int fd = mkstemp(tmp);

	out[0] = '\0';
	if (fd < 0)
		return;
	close(fd);
	buf_init(&b, 4096);
	if (!proc_run(&pr, argv, &o) && pr.exited && pr.status == 0 &&
	    !buf_read_file(&b, tmp))
		snprintf(out, size, "%.*s", (int)strcspn(buf_str(&b), "\n"),
			 buf_str(&b));
	buf_release(&b);
	unlink(tmp);
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
	struct archive *ar = archive_read_new(), *tar = NULL;
	struct archive_entry *e;
	struct debpkg *d = NULL;
	char *tmp = util_fmt("%s.part", path);
	FILE *f = NULL;
	int rc, found = 0;

	archive_read_support_format_ar(ar);
	if (!tmp)
		rc = err_set(ERR_NOMEM, "out of memory");
	else if (archive_read_open_filename(ar, deb, 1 << 16) != ARCHIVE_OK)
		rc = arch_fail(ar, "cannot open", deb);
	else
		rc = debpkg_open_data(&d, &tar, ar, deb);
	while (!rc && !found) {
		const char *name;
		char chunk[65536];
		la_ssize_t n;
		int ar_rc = archive_read_next_header(tar, &e);

		if (ar_rc == ARCHIVE_EOF)
			break;
		if (ar_rc != ARCHIVE_OK) {
			rc = arch_fail(tar, "cannot read", deb);
			break;
		}
		name = archive_entry_pathname(e);
		if (!strncmp(name, "./", 2))
			name += 2;
		if (strncmp(name, "usr/src/linux-source-", 21) ||
		    !strstr(name, ".tar"))
			continue;
		if (!(f = fopen(tmp, "wb"))) {
			rc = err_sys(ERR_INFRA, "cannot write '%s'", tmp);
			break;
		}
		while ((n = archive_read_data(tar, chunk, sizeof(chunk))) > 0)
			if (fwrite(chunk, 1, (size_t)n, f) != (size_t)n)
				break;
		if (n != 0 || fclose(f)) {
			rc = err_sys(ERR_INFRA, "cannot write '%s'", tmp);
			f = NULL;
			break;
		}
		f = NULL;
		if (rename(tmp, path))
			rc = err_sys(ERR_INFRA, "cannot rename '%s'", tmp);
		found = 1;
	}
	if (!rc && !found)
		rc = err_set(ERR_INPUT,
			     "'%s' holds no usr/src/linux-source-* "
			     "tarball",
			     deb);
	if (f)
		fclose(f);
	if (rc && tmp)
		unlink(tmp);
	if (d)
		debpkg_close(d, tar);
	archive_read_free(ar);
	free(tmp);
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
	installed_version(installed, sizeof(installed));
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
