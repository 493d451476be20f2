// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the package repositories (bisectd/repo.c) on packages
 * made here with dpkg-deb and rpmbuild: a build's suite and its channel,
 * signed by the key that bisectd repo-key made (gpgv checks InRelease,
 * Release.gpg and repomd.xml.asc with the exported keyring alone, rpm -K
 * the package's signature); only the build's own kernel packages are
 * taken (its name and version, nothing that stands in for another
 * package); a channel is its first submitter's, and a later build of it
 * replaces it, an older one does not; what cannot be published leaves
 * no suite behind.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "job.h"
#include "repo.h"
#include "util.h"

#define REL "6.1.192-bisectd.1f"
#define VER "6.1.192~bisectd.1f"

static char state[] = "/tmp/test_repo.XXXXXX";

/* Run a shell line; its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char *line;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&line, fmt, ap);
	va_end(ap);
	assert_true(rc >= 0);
	rc = system(line);
	free(line);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/*
 * A .deb named package of version in STATE/debs, with the control
 * file's extra lines (a "\n"-ended field, or ""); its path.  file names
 * it on disk.
 */
static char *make_deb(const char *file, const char *package,
		      const char *version, const char *extra)
{
	char *path = util_fmt("%s/debs/%s.deb", state, file);

	assert_int_equal(sh("set -e; d=%s/pkg-%s; mkdir -p $d/DEBIAN; "
			    "printf 'Package: %s\\nVersion: %s\\n%s"
			    "Architecture: amd64\\nMaintainer: t <t@t>\\n"
			    "Description: t\\n' > $d/DEBIAN/control; "
			    "mkdir -p %s/debs; dpkg-deb -Zgzip --build $d %s "
			    ">/dev/null",
			    state, file, package, version, extra, state, path),
			 0);
	return path;
}

/* An .rpm named name of version (with the spec's extra lines) in
 * STATE/rpms-FILE; its path. */
static char *make_rpm(const char *file, const char *name, const char *version,
		      const char *extra)
{
	char *path = util_fmt("%s/rpms-%s/x86_64/%s-%s-1.x86_64.rpm", state,
			      file, name, version);

	assert_int_equal(sh("set -e; t=%s/rpmbuild-%s; mkdir -p $t/SPECS; "
			    "printf 'Name: %s\\nVersion: %s\\n%s"
			    "Release: 1\\nSummary: t\\nLicense: GPL\\n"
			    "BuildArch: x86_64\\n%%%%description\\nt\\n"
			    "%%%%files\\n' > $t/SPECS/p.spec; "
			    "rpmbuild --define \"_topdir $t\" --define "
			    "\"_rpmdir %s/rpms-%s\" -bb $t/SPECS/p.spec "
			    ">/dev/null 2>&1",
			    state, file, name, version, extra, state, file),
			 0);
	return path;
}

/* A file of a suite, as text ("" when there is none). */
static char *read_text(const char *suite, const char *file)
{
	char *path = util_fmt("%s/repo/apt/dists/%s/%s", state, suite, file);
	struct buf b;
	char *s;

	buf_init(&b, 1 << 20);
	if (buf_read_file(&b, path))
		buf_puts(&b, "");
	free(path);
	s = buf_detach(&b);
	return s ? s : strdup("");
}

static int setup(void **unused)
{
	char name[] = "repo-key", *argv[] = { name, NULL };

	(void)unused;
	assert_non_null(mkdtemp(state));
	/* the key, as bisectd repo-key makes it; stdout is its fingerprint */
	assert_int_equal(repo_key_main(state, 1, argv), 0);
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	sh("gpgconf --homedir %s/repo-key --kill gpg-agent 2>/dev/null", state);
	util_remove_tree(state);
	return 0;
}

static void test_repo__publish(void **unused)
{
	char *img = make_deb("img", "linux-image-" REL, VER "-1", ""),
	     *libc = make_deb("libc", "linux-libc-dev", VER "-1", ""),
	     *apt = make_deb("apt", "apt", VER "-1", ""),
	     /* the build's names, but standing in for other packages, or
	      * not of the build's version */
		     *hdr = make_deb("hdr", "linux-headers-" REL, VER "-1",
				     "Replaces: libc6\\n"),
	     *dbg = make_deb("dbg", "linux-image-" REL "-dbg", "9999", "");
	const char *debs[] = { img, libc, apt, hdr, dbg };
	char fpr[64], *pk, *rel;

	(void)unused;
	assert_int_equal(repo_fingerprint(state, fpr), 0);
	assert_int_equal(strlen(fpr), 40);
	assert_int_equal(repo_published(state, 7), 0);
	assert_int_equal(
		repo_publish(state, 7, "fix-12345", "alice", REL, debs, 5), 0);
	assert_int_equal(repo_published(state, 7), REPO_PUBLISHED | REPO_APT);
	pk = read_text("bisectd-7", "main/binary-amd64/Packages");
	assert_non_null(strstr(pk, "Package: linux-image-" REL "\n"));
	assert_non_null(strstr(pk, "Filename: pool/bisectd-7/img.deb"));
	assert_null(strstr(pk, "linux-libc-dev"));
	assert_null(strstr(pk, "Package: apt\n"));
	assert_null(strstr(pk, "linux-headers"));
	assert_null(strstr(pk, "-dbg"));
	free(pk);
	rel = read_text("bisectd-7", "Release");
	assert_non_null(strstr(rel, "Suite: bisectd-7\n"));
	assert_non_null(strstr(rel, " main/binary-amd64/Packages\n"));
	free(rel);
	/* both signatures, checked with the exported public key alone */
	assert_int_equal(sh("cd %s/repo/apt && gpgv --keyring "
			    "./" REPO_KEYRING " dists/bisectd-7/InRelease "
			    "2>/dev/null && gpgv --keyring ./" REPO_KEYRING
			    " dists/bisectd-7/Release.gpg "
			    "dists/bisectd-7/Release 2>/dev/null",
			    state),
			 0);
	/* a changed Release fails the check: the check can fail */
	assert_int_not_equal(sh("cd %s/repo/apt && sed 's/bisectd-7/x/' "
				"dists/bisectd-7/Release > ../changed && "
				"gpgv --keyring ./" REPO_KEYRING
				" dists/bisectd-7/Release.gpg ../changed "
				"2>/dev/null",
				state),
			     0);
	rel = read_text("fix-12345", "Release");
	assert_non_null(strstr(rel, "Suite: fix-12345\n"));
	free(rel);
	/* the channel's later build replaces it; the first one's suite
	 * stays */
	assert_int_equal(
		repo_publish(state, 8, "fix-12345", "alice", REL, debs, 1), 0);
	pk = read_text("fix-12345", "main/binary-amd64/Packages");
	assert_non_null(strstr(pk, "Filename: pool/bisectd-8/"));
	assert_null(strstr(pk, "pool/bisectd-7/"));
	free(pk);
	/* signed, and nothing half-made is left beside the suites */
	assert_int_equal(sh("cd %s/repo/apt && gpgv --keyring ./" REPO_KEYRING
			    " dists/fix-12345/InRelease 2>/dev/null && "
			    "[ -z \"$(ls -A dists | grep '^\\.')\" ]",
			    state),
			 0);
	assert_int_equal(repo_published(state, 7), REPO_PUBLISHED | REPO_APT);
	/* an older build does not take the channel back, and another
	 * submitter's does not take it at all; each has its own suite */
	assert_int_equal(
		repo_publish(state, 5, "fix-12345", "alice", REL, debs, 1), 0);
	assert_int_equal(
		repo_publish(state, 9, "fix-12345", "mallory", REL, debs, 1),
		0);
	pk = read_text("fix-12345", "main/binary-amd64/Packages");
	assert_non_null(strstr(pk, "Filename: pool/bisectd-8/"));
	free(pk);
	assert_int_equal(repo_published(state, 9), REPO_PUBLISHED | REPO_APT);
	assert_int_equal(repo_channel_free(state, "fix-12345", "alice"), 0);
	assert_int_equal(repo_channel_free(state, "fix-12345", "mallory"),
			 ERR_DENIED);
	assert_int_equal(repo_channel_free(state, "fix-other", "mallory"), 0);
	free(img);
	free(libc);
	free(apt);
	free(hdr);
	free(dbg);
}

static void test_repo__rpm(void **unused)
{
	char *kernel = make_rpm("k", "kernel", VER, ""),
	     *headers = make_rpm("h", "kernel-headers", VER, ""),
	     *obsoletes = make_rpm("o", "kernel", VER, "Obsoletes: glibc\\n"),
	     *epoch = make_rpm("e", "kernel", VER, "Epoch: 99\\n");
	const char *files[] = { kernel, headers }, *bad[] = { obsoletes },
		   *bad2[] = { epoch };

	(void)unused;
	assert_int_equal(
		repo_publish(state, 20, "fix-rpm", NULL, REL, files, 2), 0);
	assert_int_equal(repo_published(state, 20), REPO_PUBLISHED | REPO_RPM);
	/* the metadata's signature, with the exported key alone; the
	 * package's, with rpm and the armored key in a database of its own;
	 * kernel-headers is left out */
	assert_int_equal(
		sh("set -e; cd %s/repo; r=rpm/bisectd-20; "
		   "gpgv --keyring ./apt/" REPO_KEYRING
		   " $r/repodata/repomd.xml.asc $r/repodata/repomd.xml "
		   "2>/dev/null; mkdir -p ../rpmdb; rpm --dbpath "
		   "%s/rpmdb --import rpm/" REPO_RPM_KEY "; "
		   "rpm --dbpath %s/rpmdb -K $r/kernel-*.rpm | "
		   "grep -q 'digests signatures OK'; "
		   "[ \"$(ls $r/*.rpm | wc -l)\" = 1 ]; "
		   "zcat $r/repodata/*-primary.xml.gz | "
		   "grep -q '<name>kernel</name>'; "
		   "! zcat $r/repodata/*-primary.xml.gz | "
		   "grep -q kernel-headers; "
		   "gpgv --keyring ./apt/" REPO_KEYRING
		   " rpm/fix-rpm/repodata/repomd.xml.asc "
		   "rpm/fix-rpm/repodata/repomd.xml 2>/dev/null",
		   state, state, state),
		0);
	/* the artifact itself is not changed by the signature */
	assert_int_not_equal(sh("rpm --dbpath %s/rpmdb -K %s | grep -q "
				"signatures",
				state, kernel),
			     0);
	/* no APT suite for a build of .rpm alone */
	assert_int_not_equal(sh("test -e %s/repo/apt/dists/bisectd-20", state),
			     0);
	/* a kernel that obsoletes another package, or has an epoch */
	assert_true(repo_publish(state, 21, NULL, NULL, REL, bad, 1) < 0);
	assert_true(repo_publish(state, 22, NULL, NULL, REL, bad2, 1) < 0);
	assert_int_equal(repo_published(state, 21) + repo_published(state, 22),
			 0);
	free(kernel);
	free(headers);
	free(obsoletes);
	free(epoch);
}

static void test_repo__refused(void **unused)
{
	char *libc = make_deb("libc2", "linux-libc-dev", VER "-1", ""),
	     *img = make_deb("img2", "linux-image-" REL, VER "-1", ""),
	     *meta = make_deb("meta", "linux-image-amd64", "6.1.192-3", "");
	const char *debs[] = { libc }, *imgs[] = { img }, *metas[] = { meta };

	(void)unused;
	/* nothing of the kernel's own: no suite */
	assert_true(repo_publish(state, 30, NULL, NULL, REL, debs, 1) < 0);
	assert_int_equal(repo_published(state, 30), 0);
	assert_int_not_equal(sh("test -e %s/repo/apt/dists/.bisectd-30", state),
			     0);
	/* a release that is not a build's: "amd64" would name Debian's
	 * own linux-image-amd64 */
	assert_true(repo_publish(state, 31, NULL, NULL, "amd64", metas, 1) < 0);
	assert_true(repo_publish(state, 32, NULL, NULL, "6.1 x", imgs, 1) < 0);
	assert_true(repo_publish(state, 33, NULL, NULL, "6.1.192-bisectd.xyz",
				 imgs, 1) < 0);
	/* suite names a channel may not be */
	assert_true(repo_publish(state, 34, "bisectd-3", NULL, REL, imgs, 1) <
		    0);
	assert_true(repo_publish(state, 35, "../x", NULL, REL, imgs, 1) < 0);
	assert_int_equal(repo_published(state, 31) + repo_published(state, 32) +
				 repo_published(state, 33) +
				 repo_published(state, 34) +
				 repo_published(state, 35),
			 0);
	assert_true(job_channel_ok("fix-12345"));
	assert_true(job_channel_ok("6.1.0-57+fix"));
	assert_false(job_channel_ok("Fix"));
	assert_false(job_channel_ok("-x"));
	assert_false(job_channel_ok("bisectd"));
	assert_false(job_channel_ok(""));
	free(libc);
	free(img);
	free(meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repo__publish),
		cmocka_unit_test(test_repo__rpm),
		cmocka_unit_test(test_repo__refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
