// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signed package repositories of the farm's builds, made with the
 * distributions' own tools: for APT, apt-ftparchive writes the Packages
 * and Release files and gpg signs Release (InRelease, Release.gpg); for
 * dnf, rpmsign signs the packages, createrepo_c writes the metadata and
 * gpg signs repomd.xml (repomd.xml.asc).
 *
 *   STATE/repo-key/           gpg's home: the secret key (0700); it is
 *                             never sent anywhere
 *   STATE/repo/apt/           served at /repo/apt/
 *       bisectd-archive-keyring.gpg   the public key, for signed-by
 *       pool/bisectd-ID/      a build's packages
 *       dists/bisectd-ID/     its suite: Release, InRelease,
 *                             Release.gpg, main/binary-amd64/Packages
 *       dists/CHANNEL/        the latest build a submitter named so
 *   STATE/repo/rpm/           served at /repo/rpm/
 *       RPM-GPG-KEY-bisectd   the public key, armored, for gpgkey
 *       bisectd-ID/           a build's signed .rpm and repodata/
 *       CHANNEL/              the latest build of the channel
 *   STATE/repo/published/ID   the job is published (written last)
 *
 * A suite or repository is made in a directory of its own (a name that
 * starts with a dot, never served) and moved in whole, a channel's old
 * one exchanged with it, so that apt or dnf never reads a half-written
 * one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "beneath.h"
#include "buf.h"
#include "error.h"
#include "job.h"
#include "log.h"
#include "repo.h"
#include "store.h"
#include "util.h"

#define GPG_TIMEOUT_S 60
#define FTPARCHIVE_TIMEOUT_S 300
/* the .deb and .rpm files of one build that are looked at */
#define REPO_MAX_PACKAGES 16

/* Run argv in cwd (NULL: here) with stdout (and stderr unless
 * stdout_only) to out_path; 0 when it exited 0. */
static int run_tool(const char *const *argv, const char *cwd,
		    const char *out_path, int stdout_only, double timeout_s)
{
	struct proc_opts o = { .cwd = cwd,
			       .log_path = out_path,
			       .stdout_only = stdout_only,
			       .timeout_s = timeout_s,
			       .max_file_mb = 4096 };
	struct proc_result r;
	int rc = proc_run(&r, argv, &o);

	if (rc)
		return rc;
	if (r.timed_out)
		return err_set(ERR_INFRA, "%s took more than %.0f s", argv[0],
			       timeout_s);
	if (!r.exited || r.status)
		return err_set(ERR_INFRA, "%s failed (exit status %d)", argv[0],
			       r.exited ? r.status : 128 + r.signal);
	return 0;
}

static char *key_dir(const char *state_dir)
{
	return util_fmt("%s/repo-key", state_dir);
}

/*
 * Sign in with the key of home key: "--clearsign" (InRelease) or
 * "--detach-sign" (armored) into out.  gpg removes out when the
 * signature fails: out is always a file of the repository's.
 */
static int gpg_sign(const char *key, const char *fpr, const char *how,
		    const char *out, const char *in)
{
	const char *argv[] = { "gpg",	   "--homedir",
			       key,	   "--batch",
			       "--yes",	   "--pinentry-mode",
			       "loopback", "--passphrase",
			       "",	   "--local-user",
			       fpr,	   "--digest-algo",
			       "SHA512",   "--armor",
			       how,	   "--output",
			       out,	   in,
			       NULL };

	return run_tool(argv, NULL, "/dev/null", 0, GPG_TIMEOUT_S);
}

int repo_fingerprint(const char *state_dir, char out[64])
{
	char *path = util_fmt("%s/repo-key/fingerprint", state_dir);
	struct buf b;
	size_t n;
	int rc;

	buf_init(&b, 4096);
	rc = path ? buf_read_file(&b, path) : ERR_NOMEM;
	free(path);
	n = rc ? 0 : strspn(buf_str(&b), "0123456789ABCDEF");
	if (!rc && n == 40)
		snprintf(out, 64, "%.40s", buf_str(&b));
	else if (!rc || rc == ERR_NOTFOUND)
		rc = err_set(ERR_NOTFOUND, "no repository key (bisectd "
					   "repo-key makes one)");
	buf_release(&b);
	return rc;
}

/* The secret key's fingerprint, from gpg's list, into out. */
static int list_fingerprint(const char *dir, char out[64])
{
	const char *argv[] = { "gpg",	  "--homedir",	   dir,
			       "--batch", "--with-colons", "--list-secret-keys",
			       NULL };
	char *list = util_fmt("%s/.list", dir);
	struct buf b;
	const char *p;
	int rc =
		list ? run_tool(argv, NULL, list, 1, GPG_TIMEOUT_S) : ERR_NOMEM;

	buf_init(&b, 1 << 20);
	if (!rc)
		rc = buf_read_file(&b, list);
	if (list)
		unlink(list);
	free(list);
	p = rc ? NULL : strstr(buf_str(&b), "\nfpr:");
	if (!rc && !p && !strncmp(buf_str(&b), "fpr:", 4))
		p = buf_str(&b) - 1;
	rc = rc	  ? rc
	     : !p ? err_set(ERR_INPUT, "no secret key to sign with")
		  : 0;
	if (!rc) {
		/* fpr:::::::::FINGERPRINT: */
		const char *f = p + 1;
		int i;

		for (i = 0; i < 9 && f; i++)
			f = strchr(f + 1, ':');
		if (!f || strspn(f + 1, "0123456789ABCDEF") != 40)
			rc = err_set(ERR_INFRA, "cannot read the key's "
						"fingerprint");
		else
			snprintf(out, 64, "%.40s", f + 1);
	}
	buf_release(&b);
	return rc;
}

/* The public key, armored for dnf's gpgkey, into STATE/repo/rpm/. */
static int export_armored(const char *state_dir, const char *dir,
			  const char *fpr)
{
	char *rpm = util_fmt("%s/repo/rpm", state_dir),
	     *tmp = util_fmt("%s/repo/rpm/.%s", state_dir, REPO_RPM_KEY),
	     *to = util_fmt("%s/repo/rpm/%s", state_dir, REPO_RPM_KEY);
	const char *argv[] = { "gpg",	  "--homedir", dir, "--batch",
			       "--armor", "--export",  fpr, NULL };
	int rc = rpm && tmp && to ? util_mkdir_p(rpm) : ERR_NOMEM;

	if (!rc)
		rc = run_tool(argv, NULL, tmp, 1, GPG_TIMEOUT_S);
	if (!rc && rename(tmp, to))
		rc = err_sys(ERR_INFRA, "cannot write %s", to);
	if (tmp)
		unlink(tmp);
	free(rpm);
	free(tmp);
	free(to);
	return rc;
}

/* The public key, binary for signed-by, into STATE/repo/apt/. */
static int export_key(const char *state_dir, const char *dir, const char *fpr)
{
	char *apt = util_fmt("%s/repo/apt", state_dir),
	     *tmp = util_fmt("%s/repo/apt/.%s", state_dir, REPO_KEYRING),
	     *to = util_fmt("%s/repo/apt/%s", state_dir, REPO_KEYRING),
	     *fp = util_fmt("%s/fingerprint", dir), line[80];
	const char *argv[] = { "gpg",	   "--homedir", dir, "--batch",
			       "--export", fpr,		NULL };
	int rc = apt && tmp && to && fp ? util_mkdir_p(apt) : ERR_NOMEM;

	if (!rc)
		rc = run_tool(argv, NULL, tmp, 1, GPG_TIMEOUT_S);
	if (!rc && rename(tmp, to))
		rc = err_sys(ERR_INFRA, "cannot write %s", to);
	if (!rc)
		rc = export_armored(state_dir, dir, fpr);
	snprintf(line, sizeof(line), "%s\n", fpr);
	if (!rc)
		rc = util_write_atomic(fp, line, strlen(line));
	if (tmp)
		unlink(tmp);
	free(apt);
	free(tmp);
	free(to);
	free(fp);
	return rc;
}

static int key_usage(int asked)
{
	fprintf(asked ? stdout : stderr,
		"usage: bisectd [--state DIR] repo-key [--import FILE]\n"
		"  Make the key that signs the package repositories (or "
		"import\n"
		"  FILE, an OpenPGP secret key without a passphrase), and "
		"export\n"
		"  its public keys as STATE/repo/apt/" REPO_KEYRING
		" and\n  STATE/repo/rpm/" REPO_RPM_KEY ".\n"
		"  Prints the fingerprint.  With a key there already, says "
		"so.\n");
	return asked ? 0 : 2;
}

/* gpg leaves its agent running for a home: stopped when done with it */
static void stop_agent(const char *dir)
{
	const char *argv[] = { "gpgconf", "--homedir", dir,
			       "--kill",  "gpg-agent", NULL };

	run_tool(argv, NULL, "/dev/null", 0, GPG_TIMEOUT_S);
}

/* A signature made as the publisher makes them: a key that needs a
 * passphrase fails here, not at the first publication. */
static int try_sign(const char *dir, const char *fpr)
{
	/* its output is a file of the home's: gpg removes the output of a
	 * signature that fails, whatever it is (never /dev/null) */
	char *probe = util_fmt("%s/.probe", dir),
	     *signed_probe = util_fmt("%s/.probe.asc", dir);
	int rc = probe && signed_probe
			 ? util_write_atomic(probe, "bisectd\n", 8)
			 : ERR_NOMEM;

	if (!rc && gpg_sign(dir, fpr, "--clearsign", signed_probe, probe))
		rc = err_set(ERR_INPUT, "the key cannot sign without a "
					"passphrase: import one without");
	if (probe)
		unlink(probe);
	if (signed_probe)
		unlink(signed_probe);
	free(probe);
	free(signed_probe);
	return rc;
}

int repo_key_main(const char *state_dir, int argc, char **argv)
{
	char *dir = key_dir(state_dir), *fresh = util_fmt("%s.new", dir),
	     fpr[64];
	const char *import = NULL;
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--help"))
		return key_usage(1);
	if (argc == 3 && !strcmp(argv[1], "--import"))
		import = argv[2];
	else if (argc != 1)
		return key_usage(0);
	if (!dir || !fresh)
		return 1;
	if (!import && !repo_fingerprint(state_dir, fpr)) {
		printf("%s\n", fpr);
		log_info("the repository key is there already (to replace "
			 "it: --import FILE)");
		free(dir);
		free(fresh);
		return 0;
	}
	/* made in a home of its own, which then replaces the old one */
	util_remove_tree(fresh);
	rc = util_mkdir_p(fresh);
	if (!rc && chmod(fresh, 0700))
		rc = err_sys(ERR_INFRA, "cannot make %s private", fresh);
	if (!rc && import) {
		const char *args[] = { "gpg",	  "--homedir", fresh,
				       "--batch", "--import",  import,
				       NULL };

		if (access(import, R_OK))
			rc = err_sys(ERR_INPUT, "cannot read '%s'", import);
		else
			rc = run_tool(args, NULL, "/dev/null", 0,
				      GPG_TIMEOUT_S);
	} else if (!rc) {
		const char *args[] = { "gpg",
				       "--homedir",
				       fresh,
				       "--batch",
				       "--pinentry-mode",
				       "loopback",
				       "--passphrase",
				       "",
				       "--quick-gen-key",
				       "bisectd package repository",
				       "ed25519",
				       "sign",
				       "never",
				       NULL };

		rc = run_tool(args, NULL, "/dev/null", 0, GPG_TIMEOUT_S);
	}
	if (!rc)
		rc = list_fingerprint(fresh, fpr);
	if (!rc)
		rc = try_sign(fresh, fpr);
	stop_agent(fresh);
	/* the new home takes the old one's place in one step (exchanged
	 * when there is one), then the old one is removed */
	if (!rc &&
	    renameat2(AT_FDCWD, fresh, AT_FDCWD, dir, RENAME_NOREPLACE)) {
		if (errno != EEXIST ||
		    renameat2(AT_FDCWD, fresh, AT_FDCWD, dir, RENAME_EXCHANGE))
			rc = err_sys(ERR_INFRA, "cannot move the key to %s",
				     dir);
		else
			util_remove_tree(fresh); /* the old key's home */
	}
	if (!rc)
		rc = export_key(state_dir, dir, fpr);
	if (rc)
		util_remove_tree(fresh);
	free(dir);
	free(fresh);
	if (rc) {
		log_warnx("%s", err_last());
		return rc == ERR_INPUT ? 2 : 1;
	}
	printf("%s\n", fpr);
	return 0;
}

int repo_published(const char *state_dir, long long job)
{
	char *p = util_fmt("%s/repo/published/%lld", state_dir, job);
	struct buf b;
	int kinds = 0;

	buf_init(&b, 4096);
	if (p && !buf_read_file(&b, p))
		kinds = REPO_PUBLISHED |
			(strstr(buf_str(&b), "apt") ? REPO_APT : 0) |
			(strstr(buf_str(&b), "rpm") ? REPO_RPM : 0);
	buf_release(&b);
	free(p);
	return kinds;
}

/* What a publication needs: the key, the job's names, the release. */
struct pub {
	const char *state_dir, *channel, *release;
	long long job;
	char fpr[64], suite[64];
	char version[256]; /* the packages': UPSTREAM~bisectd.ID */
	char *key;
};

/*
 * The fields of a .deb's control file (dpkg-deb --field) into b; 0 or
 * < 0.
 */
static int deb_fields(struct buf *b, const char *deb, const char *scratch)
{
	const char *argv[] = { "dpkg-deb", "--field", deb, NULL };
	char *out = util_fmt("%s/.fields", scratch);
	int rc = out ? run_tool(argv, NULL, out, 1, GPG_TIMEOUT_S) : ERR_NOMEM;

	if (!rc)
		rc = buf_read_file(b, out);
	if (out)
		unlink(out);
	free(out);
	return rc;
}

/*
 * 1 when a .deb is one of the kernel's own packages of the build: its
 * control file's Package linux-image-RELEASE[-dbg] or
 * linux-headers-RELEASE, its Version the build's (UPSTREAM~bisectd.ID-1
 * for RELEASE UPSTREAM-bisectd.ID), and none of the fields by which a
 * package stands in for others (Provides, Replaces, Conflicts, Breaks,
 * Essential, Enhances).
 */
static int kernel_package(const char *deb, const struct pub *pb,
			  const char *scratch)
{
	static const char *const taken[] = { "Provides",  "Replaces",
					     "Conflicts", "Breaks",
					     "Essential", "Enhances" };
	char want[3][300], v[300];
	struct buf b;
	size_t i;
	int ok = 0;

	buf_init(&b, 1 << 20);
	if (!deb_fields(&b, deb, scratch)) {
		snprintf(want[0], sizeof(want[0]), "linux-image-%s",
			 pb->release);
		snprintf(want[1], sizeof(want[1]), "linux-image-%s-dbg",
			 pb->release);
		snprintf(want[2], sizeof(want[2]), "linux-headers-%s",
			 pb->release);
		util_control_field(buf_str(&b), "Package", v, sizeof(v));
		for (i = 0; i < 3; i++)
			ok |= !strcmp(v, want[i]);
		util_control_field(buf_str(&b), "Version", v, sizeof(v));
		snprintf(want[0], sizeof(want[0]), "%s-1", pb->version);
		ok &= !strcmp(v, want[0]);
		for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
			util_control_field(buf_str(&b), taken[i], v, sizeof(v));
			ok &= !*v;
		}
	}
	buf_release(&b);
	return ok;
}

/*
 * Make the suite named suite in the new directory dir (below apt): its
 * Packages (a copy of packages when given, else apt-ftparchive's list of
 * pool), Release and its signatures.
 */
static int make_suite(const char *apt, const char *dir, const char *suite,
		      const char *pool, const char *packages, const char *key,
		      const char *fpr)
{
	char *bin = util_fmt("%s/main/binary-amd64", dir),
	     *pk = util_fmt("%s/main/binary-amd64/Packages", dir),
	     *rel = util_fmt("%s.Release", dir),
	     *relin = util_fmt("%s/Release", dir),
	     *inrel = util_fmt("%s/InRelease", dir),
	     *sig = util_fmt("%s/Release.gpg", dir),
	     *o_suite = util_fmt("APT::FTPArchive::Release::Suite=%s", suite),
	     *o_code = util_fmt("APT::FTPArchive::Release::Codename=%s", suite);
	int rc = bin && pk && rel && relin && inrel && sig && o_suite && o_code
			 ? util_mkdir_p(bin)
			 : ERR_NOMEM;

	if (!rc && packages) {
		struct buf b;

		buf_init(&b, 64u << 20);
		rc = buf_read_file(&b, packages);
		if (!rc)
			rc = util_write_atomic(pk, buf_str(&b), b.len);
		buf_release(&b);
	} else if (!rc) {
		const char *argv[] = { "apt-ftparchive", "packages", pool,
				       NULL };

		rc = run_tool(argv, apt, pk, 1, FTPARCHIVE_TIMEOUT_S);
	}
	if (!rc) {
		const char *argv[] = {
			"apt-ftparchive",
			"-o",
			"APT::FTPArchive::Release::Origin=bisectd",
			"-o",
			"APT::FTPArchive::Release::Label=bisectd",
			"-o",
			o_suite,
			"-o",
			o_code,
			"-o",
			"APT::FTPArchive::Release::Architectures=amd64",
			"-o",
			"APT::FTPArchive::Release::Components=main",
			"release",
			".",
			NULL
		};

		/* written beside the suite, so that it does not list
		 * itself */
		rc = run_tool(argv, dir, rel, 1, FTPARCHIVE_TIMEOUT_S);
		if (!rc && rename(rel, relin))
			rc = err_sys(ERR_INFRA, "cannot move %s", rel);
	}
	if (!rc)
		rc = gpg_sign(key, fpr, "--clearsign", inrel, relin);
	if (!rc)
		rc = gpg_sign(key, fpr, "--detach-sign", sig, relin);
	if (rel)
		unlink(rel);
	free(bin);
	free(pk);
	free(rel);
	free(relin);
	free(inrel);
	free(sig);
	free(o_suite);
	free(o_code);
	return rc;
}

/* Move the made suite dir in as dists/suite: a channel's previous one
 * is exchanged with it and removed. */
static int install_suite(const char *dists, const char *dir, const char *suite)
{
	char *to = util_fmt("%s/%s", dists, suite);
	int rc = to ? 0 : ERR_NOMEM;

	if (!rc && renameat2(AT_FDCWD, dir, AT_FDCWD, to, RENAME_NOREPLACE)) {
		if (errno != EEXIST)
			rc = err_sys(ERR_INFRA, "cannot move %s in", suite);
		else if (renameat2(AT_FDCWD, dir, AT_FDCWD, to,
				   RENAME_EXCHANGE))
			rc = err_sys(ERR_INFRA, "cannot replace %s", suite);
		else
			util_remove_tree(dir); /* the one replaced */
	}
	free(to);
	return rc;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return l > n && !strcmp(s + l - n, suffix);
}

/*
 * The .deb files of the kernel, as the suite bisectd-JOB (and the
 * channel's): 1 when published, 0 when none is the kernel's, < 0 error.
 */
static int publish_apt(const struct pub *pb, const char *const *files, size_t n)
{
	char *apt = util_fmt("%s/repo/apt", pb->state_dir),
	     *dists = util_fmt("%s/repo/apt/dists", pb->state_dir),
	     *pool = util_fmt("pool/%s", pb->suite),
	     *pooldir =
		     util_fmt("%s/repo/apt/pool/%s", pb->state_dir, pb->suite),
	     *tmp = util_fmt("%s/repo/apt/dists/.%s", pb->state_dir, pb->suite),
	     *ctmp = util_fmt("%s/repo/apt/dists/.%s-%lld", pb->state_dir,
			      pb->channel ? pb->channel : "", pb->job),
	     *pk = NULL;
	size_t i, taken = 0;
	int rc = apt && dists && pool && pooldir && tmp && ctmp ? 0 : ERR_NOMEM;

	/* a publication that stopped halfway is made again */
	if (!rc) {
		util_remove_tree(tmp);
		util_remove_tree(pooldir);
		rc = util_mkdir_p(pooldir);
	}
	if (!rc)
		rc = util_mkdir_p(dists);
	for (i = 0; !rc && i < n; i++) {
		const char *base = strrchr(files[i], '/');
		char *to;

		base = base ? base + 1 : files[i];
		if (!ends_with(base, ".deb") ||
		    !kernel_package(files[i], pb, pooldir))
			continue;
		to = util_fmt("%s/%s", pooldir, base);
		if (!to)
			rc = ERR_NOMEM;
		else if (link(files[i], to))
			rc = err_sys(ERR_INFRA, "cannot put %s in the pool",
				     base);
		free(to);
		taken += !rc;
	}
	if (!rc && !taken)
		util_remove_tree(pooldir);
	if (!rc && taken)
		rc = make_suite(apt, tmp, pb->suite, pool, NULL, pb->key,
				pb->fpr);
	if (!rc && taken && pb->channel) {
		pk = util_fmt("%s/main/binary-amd64/Packages", tmp);
		util_remove_tree(ctmp);
		rc = pk ? make_suite(apt, ctmp, pb->channel, pool, pk, pb->key,
				     pb->fpr)
			: ERR_NOMEM;
		if (!rc)
			rc = install_suite(dists, ctmp, pb->channel);
	}
	if (!rc && taken)
		rc = install_suite(dists, tmp, pb->suite);
	if (rc) {
		util_remove_tree(tmp);
		util_remove_tree(ctmp);
	}
	free(apt);
	free(dists);
	free(pool);
	free(pooldir);
	free(tmp);
	free(ctmp);
	free(pk);
	return rc < 0 ? rc : taken > 0;
}

/*
 * 1 when an .rpm is the build's kernel: named kernel, of the build's
 * version (UPSTREAM~bisectd.ID) without an epoch, providing only what
 * binrpm-pkg's kernel does (kernel, kernel(ARCH), kernel-VERSION) and
 * obsoleting or conflicting with nothing.  Not kernel-headers, which
 * would stand in for the distribution's.
 */
static int kernel_rpm(const char *rpm, const struct pub *pb,
		      const char *scratch)
{
	const char *argv[] = { "rpm",
			       "-qp",
			       "--nosignature",
			       "--nodigest",
			       "--qf",
			       "%{NAME}\n%{EPOCH}\n%{VERSION}\n"
			       "[%{PROVIDENAME}\n]--\n[%{OBSOLETENAME}\n]"
			       "[%{CONFLICTNAME}\n]",
			       rpm,
			       NULL };
	char *out = util_fmt("%s/.query", scratch), want[300];
	struct buf b;
	const char *p;
	int ok = 0;

	buf_init(&b, 1 << 20);
	snprintf(want, sizeof(want), "kernel\n(none)\n%s\n", pb->version);
	if (out && !run_tool(argv, NULL, out, 1, GPG_TIMEOUT_S) &&
	    !buf_read_file(&b, out) &&
	    !strncmp(buf_str(&b), want, strlen(want))) {
		ok = 1;
		for (p = buf_str(&b) + strlen(want); ok && *p;) {
			size_t n = strcspn(p, "\n");
			char line[300];

			snprintf(line, sizeof(line), "%.*s", (int)n, p);
			p += n + (p[n] == '\n');
			if (!strcmp(line, "--"))
				ok = !*p; /* nothing obsoleted or in conflict */
			else
				ok = !strcmp(line, "kernel") ||
				     !strncmp(line, "kernel(", 7) ||
				     (!strncmp(line, "kernel-", 7) &&
				      !strcmp(line + 7, pb->version));
		}
	}
	if (out)
		unlink(out);
	free(out);
	buf_release(&b);
	return ok;
}

/* createrepo_c's metadata of dir, and repomd.xml's detached signature */
static int make_rpm_repo(const char *dir, const char *key, const char *fpr)
{
	const char *mk[] = { "createrepo_c", "--quiet", dir, NULL };
	char *md = util_fmt("%s/repodata/repomd.xml", dir),
	     *sig = util_fmt("%s/repodata/repomd.xml.asc", dir);
	int rc = md && sig ? run_tool(mk, NULL, "/dev/null", 0,
				      FTPARCHIVE_TIMEOUT_S)
			   : ERR_NOMEM;

	if (!rc)
		rc = gpg_sign(key, fpr, "--detach-sign", sig, md);
	free(md);
	free(sig);
	return rc;
}

/*
 * The kernel's .rpm, signed, as the repository rpm/bisectd-JOB (and
 * rpm/CHANNEL): 1 when published, 0 when none is the kernel's, < 0.
 */
static int publish_rpm(const struct pub *pb, const char *const *files, size_t n)
{
	char *top = util_fmt("%s/repo/rpm", pb->state_dir),
	     *tmp = util_fmt("%s/repo/rpm/.%s", pb->state_dir, pb->suite),
	     *ctmp = util_fmt("%s/repo/rpm/.%s-%lld", pb->state_dir,
			      pb->channel ? pb->channel : "", pb->job),
	     *name = util_fmt("_gpg_name %s", pb->fpr),
	     *path = util_fmt("_gpg_path %s", pb->key);
	size_t i, taken = 0;
	int rc = top && tmp && ctmp && name && path ? 0 : ERR_NOMEM;

	if (!rc) {
		util_remove_tree(tmp);
		util_remove_tree(ctmp);
		rc = util_mkdir_p(tmp);
	}
	if (!rc && pb->channel)
		rc = util_mkdir_p(ctmp);
	for (i = 0; !rc && i < n; i++) {
		const char *base = strrchr(files[i], '/');
		char *to, *also, *dir;

		base = base ? base + 1 : files[i];
		if (!ends_with(base, ".rpm") || !kernel_rpm(files[i], pb, tmp))
			continue;
		to = util_fmt("%s/%s", tmp, base);
		also = util_fmt("%s/%s", ctmp, base);
		/* a copy: the signature is written into the file */
		dir = strndup(files[i], (size_t)(base - files[i]));
		rc = to && also && dir ? beneath_copy(dir, files[i], to)
				       : ERR_NOMEM;
		free(dir);
		if (!rc) {
			const char *argv[] = {
				"rpmsign",
				"--define",
				"__gpg /usr/bin/gpg",
				"--define",
				name,
				"--define",
				path,
				"--define",
				"_gpg_sign_cmd_extra_args --pinentry-mode "
				"loopback",
				"--addsign",
				to,
				NULL
			};

			rc = run_tool(argv, NULL, "/dev/null", 0,
				      GPG_TIMEOUT_S);
		}
		if (!rc && pb->channel && link(to, also))
			rc = err_sys(ERR_INFRA, "cannot link %s", base);
		free(to);
		free(also);
		taken += !rc;
	}
	if (!rc && taken)
		rc = make_rpm_repo(tmp, pb->key, pb->fpr);
	if (!rc && taken && pb->channel) {
		rc = make_rpm_repo(ctmp, pb->key, pb->fpr);
		if (!rc)
			rc = install_suite(top, ctmp, pb->channel);
	}
	if (!rc && taken)
		rc = install_suite(top, tmp, pb->suite);
	util_remove_tree(tmp);
	util_remove_tree(ctmp);
	free(top);
	free(tmp);
	free(ctmp);
	free(name);
	free(path);
	return rc < 0 ? rc : taken > 0;
}

/*
 * The packages' version of a build's kernel release: 6.1.192-bisectd.ID
 * (ID in hex, as the worker makes it) is 6.1.192~bisectd.ID.  0 for a
 * release that is not a build's: a release such as "amd64" would name
 * Debian's own packages.
 */
static int build_version(const char *release, char *out, size_t size)
{
	const char *mark = release ? strstr(release, "-bisectd.") : NULL;
	const char *id = mark ? mark + 9 : NULL;

	if (!mark || mark == release || strlen(release) > 200 ||
	    !(release[0] >= '0' && release[0] <= '9') ||
	    strspn(release, "0123456789abcdefghijklmnopqrstuvwxyz.+~-") !=
		    (size_t)(mark - release) + strlen(mark) ||
	    strspn(release, "0123456789abcdefghijklmnopqrstuvwxyz.+~") !=
		    (size_t)(mark - release) ||
	    !*id || strspn(id, "0123456789abcdef") != strlen(id))
		return 0;
	snprintf(out, size, "%.*s~bisectd.%s", (int)(mark - release), release,
		 id);
	return 1;
}

/* STATE/repo/channels/NAME: the job of the channel's build and its
 * submitter ("JOB OWNER\n"), or job 0 when there is none. */
static long long channel_holder(const char *state_dir, const char *channel,
				char owner[128])
{
	char *path = util_fmt("%s/repo/channels/%s", state_dir, channel);
	long long job = 0;
	struct buf b;

	owner[0] = '\0';
	buf_init(&b, 4096);
	if (path && !buf_read_file(&b, path) &&
	    sscanf(buf_str(&b), "%lld %127[^\n]", &job, owner) < 1)
		job = 0;
	buf_release(&b);
	free(path);
	return job;
}

int repo_channel_free(const char *state_dir, const char *channel,
		      const char *owner)
{
	char held[128];

	if (channel_holder(state_dir, channel, held) &&
	    strcmp(held, owner && *owner ? owner : "-"))
		return err_set(ERR_DENIED,
			       "channel '%s' is another submitter's", channel);
	return 0;
}

int repo_publish(const char *state_dir, long long job, const char *channel,
		 const char *owner, const char *release,
		 const char *const *files, size_t n)
{
	struct pub pb = { .state_dir = state_dir,
			  .release = release,
			  .job = job,
			  .key = key_dir(state_dir) };
	char *mark = util_fmt("%s/repo/published/%lld", state_dir, job),
	     *marks = util_fmt("%s/repo/published", state_dir),
	     *chans = util_fmt("%s/repo/channels", state_dir),
	     *chan = channel ? util_fmt("%s/repo/channels/%s", state_dir,
					channel)
			     : NULL,
	     held[128], line[192];
	int rc = pb.key && mark && marks && chans && (chan || !channel)
			 ? repo_fingerprint(state_dir, pb.fpr)
			 : ERR_NOMEM,
	    apt = 0, rpm = 0, failed = 0;
	long long holder = 0;

	owner = owner && *owner ? owner : "-";
	snprintf(pb.suite, sizeof(pb.suite), "bisectd-%lld", job);
	if (!rc && !build_version(release, pb.version, sizeof(pb.version)))
		rc = err_set(ERR_INPUT,
			     "the kernel release '%s' is not a build's "
			     "(UPSTREAM-bisectd.ID)",
			     release ? release : "");
	if (!rc && channel && !job_channel_ok(channel))
		rc = err_set(ERR_INPUT, "channel '%s' is not a suite name",
			     channel);
	/* a channel is its first submitter's, and a build replaces only an
	 * older one there: the build's own suite is made all the same */
	if (!rc && channel)
		holder = channel_holder(state_dir, channel, held);
	if (!rc && channel && holder && strcmp(held, owner))
		log_warnx("job %lld: channel '%s' is another submitter's: "
			  "not replaced",
			  job, channel);
	else if (!rc && channel && holder > job)
		log_warnx("job %lld: channel '%s' has a later build (job "
			  "%lld): not replaced",
			  job, channel, holder);
	else
		pb.channel = channel;
	if (!rc && (apt = publish_apt(&pb, files, n)) < 0) {
		log_warnx("job %lld: the APT suite: %s", job, err_last());
		failed = 1;
	}
	if (!rc && (rpm = publish_rpm(&pb, files, n)) < 0) {
		log_warnx("job %lld: the RPM repository: %s", job, err_last());
		failed = 1;
	}
	if (!rc && apt <= 0 && rpm <= 0)
		rc = failed ? err_set(ERR_INFRA, "nothing was published")
			    : err_set(ERR_INPUT, "no package of the kernel %s",
				      release);
	/* last: it marks the job published (what was made of it) */
	if (!rc)
		rc = util_mkdir_p(marks);
	if (!rc)
		rc = util_write_atomic(mark,
				       apt > 0 && rpm > 0 ? "apt rpm\n"
				       : apt > 0	  ? "apt\n"
							  : "rpm\n",
				       apt > 0 && rpm > 0 ? 8 : 4);
	if (!rc && pb.channel) {
		snprintf(line, sizeof(line), "%lld %s\n", job, owner);
		rc = util_mkdir_p(chans);
		if (!rc)
			rc = util_write_atomic(chan, line, strlen(line));
	}
	free(pb.key);
	free(mark);
	free(marks);
	free(chans);
	free(chan);
	return rc;
}

/* --- the publisher: a thread that publishes finished builds ------- */

struct repo_publisher {
	struct coord *co;
	pthread_t thread;
	volatile int stop;
	long long *seen; /* the done jobs looked at, ascending */
	size_t nseen, cap;
	int said_nokey;
};

/* 1 when id was looked at already; else remembers it and returns 0. */
static int seen_before(struct repo_publisher *pb, long long id)
{
	size_t lo = 0, hi = pb->nseen;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pb->seen[mid] == id)
			return 1;
		if (pb->seen[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pb->nseen == pb->cap) {
		size_t cap = pb->cap ? pb->cap * 2 : 256;
		long long *s = realloc(pb->seen, cap * sizeof(*s));

		if (!s)
			return 1; /* looked at again on the next pass */
		pb->seen = s;
		pb->cap = cap;
	}
	memmove(pb->seen + lo + 1, pb->seen + lo,
		(pb->nseen - lo) * sizeof(*pb->seen));
	pb->seen[lo] = id;
	pb->nseen++;
	return 0;
}

struct packages {
	const char *dir;
	char **paths;
	size_t n;
};

static int add_package(const char *name, long long size, const char *sha,
		       void *payload)
{
	struct packages *d = payload;
	size_t l = strlen(name);
	char **p;

	(void)size;
	(void)sha;
	if (l < 5 ||
	    (strcmp(name + l - 4, ".deb") && strcmp(name + l - 4, ".rpm")))
		return 0;
	/* a kernel build makes a handful: a worker's flood of packages
	 * is not looked into one by one */
	if (d->n == REPO_MAX_PACKAGES)
		return 0;
	p = realloc(d->paths, (d->n + 1) * sizeof(*p));
	if (!p)
		return ERR_NOMEM;
	d->paths = p;
	d->paths[d->n] = util_fmt("%s/%s", d->dir, name);
	return d->paths[d->n] ? (d->n++, 0) : ERR_NOMEM;
}

/*
 * What a done job gives the repository, read under the lock: a build
 * that built and booted, its .deb and .rpm packages, channel and step (0
 * when there is nothing to publish).
 */
static long long build_of(struct coord *co, long long id, struct packages *d,
			  char **channel, char **owner)
{
	struct store_job j;
	struct store_step *steps = NULL;
	size_t n = 0, i;
	long long step = 0;

	if (store_job_get(co->store, id, &j))
		return 0;
	if (!strcmp(j.type, "build") && j.result &&
	    !strcmp(j.result, "built") &&
	    !store_steps_of_job(co->store, id, &steps, &n)) {
		struct job_spec spec;

		for (i = 0; i < n; i++)
			if (steps[i].state == STEP_DONE &&
			    !strcmp(steps[i].role, "build"))
				step = steps[i].id;
		if (step && !job_spec_parse(&spec, j.spec, strlen(j.spec))) {
			*channel = spec.channel;
			spec.channel = NULL;
			job_spec_release(&spec);
		}
		*owner = j.owner ? strdup(j.owner) : NULL;
		d->dir = util_fmt("%s/artifacts/%lld", co->state_dir, step);
		if (step && d->dir)
			store_artifacts(co->store, step, add_package, d);
		store_steps_release(steps, n);
	}
	store_job_release(&j);
	return d->n ? step : 0;
}

static void publish_one(struct repo_publisher *pb, long long id)
{
	struct packages d = { 0 };
	char *channel = NULL, *owner = NULL, *relpath = NULL, *release = NULL;
	long long step;
	struct buf rel;
	size_t i;

	pthread_mutex_lock(&pb->co->lock);
	step = build_of(pb->co, id, &d, &channel, &owner);
	pthread_mutex_unlock(&pb->co->lock);
	buf_init(&rel, 4096);
	if (step)
		relpath = util_fmt("%s/kernel.release", d.dir);
	if (relpath && !buf_read_file(&rel, relpath))
		release = strndup(buf_str(&rel), strcspn(buf_str(&rel), "\n"));
	if (step && repo_publish(pb->co->state_dir, id, channel, owner, release,
				 (const char *const *)d.paths, d.n))
		log_warnx("job %lld: not published in the repository: %s", id,
			  err_last());
	else if (step)
		log_info("job %lld: published as bisectd-%lld%s%s", id, id,
			 channel ? " and " : "", channel ? channel : "");
	for (i = 0; i < d.n; i++)
		free(d.paths[i]);
	free(d.paths);
	free((char *)d.dir);
	free(channel);
	free(owner);
	free(relpath);
	free(release);
	buf_release(&rel);
}

static void publish_pass(struct repo_publisher *pb)
{
	long long *ids = NULL;
	size_t n = 0, i;
	char fpr[64];

	if (repo_fingerprint(pb->co->state_dir, fpr)) {
		if (!pb->said_nokey++)
			log_info("builds are not published in an APT "
				 "repository: %s",
				 err_last());
		return;
	}
	pthread_mutex_lock(&pb->co->lock);
	store_job_ids(pb->co->store, JOB_DONE, &ids, &n);
	pthread_mutex_unlock(&pb->co->lock);
	for (i = 0; i < n && !pb->stop; i++)
		if (!seen_before(pb, ids[i]) &&
		    !repo_published(pb->co->state_dir, ids[i]))
			publish_one(pb, ids[i]);
	free(ids);
}

static void *publisher_main(void *arg)
{
	struct repo_publisher *pb = arg;

	while (!pb->stop) {
		struct timespec ts = { 0, 250 * 1000 * 1000 };
		int i;

		publish_pass(pb);
		for (i = 0; i < 8 && !pb->stop; i++)
			nanosleep(&ts, NULL);
	}
	return NULL;
}

int repo_start(struct repo_publisher **out, struct coord *co)
{
	struct repo_publisher *pb = calloc(1, sizeof(*pb));
	int rc;

	*out = NULL;
	if (!pb)
		return err_set(ERR_NOMEM, "out of memory");
	pb->co = co;
	if ((rc = pthread_create(&pb->thread, NULL, publisher_main, pb))) {
		free(pb);
		return err_set(ERR_INFRA, "cannot start the publisher: %s",
			       strerror(rc));
	}
	*out = pb;
	return 0;
}

void repo_stop(struct repo_publisher *pb)
{
	char *dir;

	if (!pb)
		return;
	pb->stop = 1;
	pthread_join(pb->thread, NULL);
	dir = key_dir(pb->co->state_dir);
	if (dir && access(dir, F_OK) == 0)
		stop_agent(dir);
	free(dir);
	free(pb->seen);
	free(pb);
}
