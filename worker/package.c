// SPDX-License-Identifier: GPL-2.0-only
/*
 * Distribution packages of a built tree, from the kernel's own
 * `make bindeb-pkg` and `make binrpm-pkg`.
 *
 * Design.  The packages carry the build's id in the kernel release and
 * in their version, so that they install beside the distribution's
 * kernel and sort below its versions:
 *
 *   deb  LOCALVERSION=-bisectd.ID: the release is 6.1.192-bisectd.ID and
 *        the image package linux-image-6.1.192-bisectd.ID, a name of its
 *        own; KDEB_PKGVERSION=6.1.192~bisectd.ID-1, which sorts below
 *        6.1.192-anything (linux-libc-dev shares Debian's package name:
 *        its version must not win, and the install commands leave it
 *        out)
 *   rpm  the spec's Name is always "kernel", so only the version keeps
 *        it apart: LOCALVERSION=~bisectd.ID gives Version
 *        6.1.192~bisectd.ID, below 6.1.192 for rpm (a second make, since
 *        the release is part of the image)
 *
 * bindeb-pkg writes into the parent of O= (the work directory's out/,
 * the only one its build writes), binrpm-pkg under the _topdir given in
 * RPMOPTS (out/rpmbuild); the files are moved to the output directory,
 * without following a link that the build may have left on the way.  A
 * -dbg package (CONFIG_DEBUG_INFO) is removed unless it was asked for.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "error.h"
#include "util.h"
#include "package.h"
#include "pipeline.h"
#include "sandbox.h"

static int add_file(struct package_result *r, const char *name)
{
	char **f = realloc(r->files, (r->nfiles + 1) * sizeof(*f));

	if (!f)
		return err_set(ERR_NOMEM, "out of memory");
	r->files = f;
	if (!(f[r->nfiles] = strdup(name)))
		return err_set(ERR_NOMEM, "out of memory");
	r->nfiles++;
	return 0;
}

int package_collect(struct package_result *r, const char *base, const char *dir,
		    const char *suffix, const char *out, int dbg)
{
	int dfd = beneath_open(base, dir, O_RDONLY | O_DIRECTORY, 0), rc = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		/* none made; or a link on the way, which is not followed */
		return dfd == ERR_NOTFOUND ? 0
		       : dfd >= 0 ? err_sys(ERR_INFRA, "cannot read '%s'", dir)
				  : dfd;
	}
	while (!rc && (e = readdir(d))) {
		size_t len = strlen(e->d_name), sl = strlen(suffix);
		struct stat st;
		char *to;

		if (len <= sl || strcmp(e->d_name + len - sl, suffix))
			continue;
		if (!(to = util_fmt("%s/%s", out, e->d_name))) {
			rc = err_set(ERR_NOMEM, "out of memory");
		} else if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			   !S_ISREG(st.st_mode) || st.st_nlink != 1) {
			/* made in the sandbox: a link would hand out a file
			 * of this machine */
			rc = err_set(ERR_GENERIC,
				     "package '%s' is not a regular file",
				     e->d_name);
			unlinkat(dfd, e->d_name, 0);
		} else if (!dbg && strstr(e->d_name, "-dbg")) {
			unlinkat(dfd, e->d_name, 0);
		} else if (renameat(dfd, e->d_name, AT_FDCWD, to)) {
			rc = err_sys(ERR_INFRA, "cannot move '%s'", e->d_name);
		} else {
			rc = add_file(r, e->d_name);
		}
		free(to);
	}
	closedir(d);
	return rc;
}

/* Remove the files of dir that end in one of the n suffixes. */
static void remove_suffixed(const char *dir, const char *const *suffixes,
			    size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t i;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		for (i = 0; i < n; i++) {
			size_t sl = strlen(suffixes[i]);

			if (len > sl &&
			    !strcmp(e->d_name + len - sl, suffixes[i])) {
				char *p = util_fmt("%s/%s", dir, e->d_name);

				if (p)
					unlink(p);
				free(p);
			}
		}
	}
	if (d)
		closedir(d);
}

/* Remove what bindeb-pkg leaves beside the packages. */
static void tidy(const char *dir)
{
	static const char *const junk[] = { ".buildinfo", ".changes" };

	remove_suffixed(dir, junk, 2);
}

/* Where bindeb-pkg writes in work_dir: beside O=, in the build's out/.
 * Caller frees. */
static char *deb_dir(const char *work_dir)
{
	return util_fmt("%s/" SANDBOX_OUT, work_dir);
}

void package_clean(const char *work_dir)
{
	static const char *const all[] = { ".deb", ".buildinfo", ".changes" };
	char *dir = deb_dir(work_dir);

	if (dir)
		remove_suffixed(dir, all, 3);
	free(dir);
}

/* The value of "NAME = value" in a Makefile's text, or "". */
static void make_var(char *out, size_t size, const char *text, const char *name)
{
	const char *p = text;
	size_t n = strlen(name);

	*out = '\0';
	for (; *p; p += strcspn(p, "\n"), p += !!*p) {
		const char *v = p + n;

		if (strncmp(p, name, n) || (*v != ' ' && *v != '='))
			continue;
		v += strspn(v, " ");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		snprintf(out, size, "%.*s", (int)strcspn(v, " \t\n"), v);
		return;
	}
}

char *package_kernel_version(struct gu_repo *repo, const struct gu_oid *commit)
{
	char v[32], pl[32], sl[32], ev[64], *out = NULL;
	struct buf mk;

	buf_init(&mk, 1 << 20);
	if (!gu_read_blob(repo, commit, "Makefile", &mk)) {
		make_var(v, sizeof(v), buf_str(&mk), "VERSION");
		make_var(pl, sizeof(pl), buf_str(&mk), "PATCHLEVEL");
		make_var(sl, sizeof(sl), buf_str(&mk), "SUBLEVEL");
		make_var(ev, sizeof(ev), buf_str(&mk), "EXTRAVERSION");
		/* as the Makefile's own KERNELVERSION */
		if (*v && *pl)
			out = util_fmt("%s.%s%s%s%s", v, pl, *sl ? "." : "", sl,
				       ev);
	}
	buf_release(&mk);
	return out;
}

/* `make -s kernelversion`: the version without any local part. */
static char *kernel_version(const struct step_spec *s, const char *dir)
{
	struct proc_result pr;
	char *log = util_fmt("%s/kernelversion.out", dir), *v = NULL;
	const char *p;
	struct buf b;

	buf_init(&b, 4096);
	if (log && !pipeline_make(s, "-s kernelversion", NULL, log, &pr) &&
	    pr.exited && pr.status == 0 && !buf_read_file(&b, log)) {
		/* the last non-empty line */
		for (p = buf_str(&b); *p; p += strcspn(p, "\n"), p += !!*p)
			if (p[0] != '\n') {
				free(v);
				v = strndup(p, strcspn(p, "\n"));
			}
	}
	if (log)
		unlink(log);
	buf_release(&b);
	free(log);
	return v;
}

static int make_packages(const struct step_spec *s, const char *target,
			 const char *vars, const char *env, const char *log)
{
	struct proc_result pr;
	char *t = util_fmt("%s %s", target, vars);
	int rc = t ? pipeline_make(s, t, env, log, &pr)
		   : err_set(ERR_NOMEM, "out of memory");

	free(t);
	if (rc)
		return rc;
	if (pr.exec_failed || !pr.exited)
		return err_set(ERR_INFRA, "make %s did not run", target);
	if (pr.status != 0)
		return err_set(ERR_GENERIC, "make %s failed (see %s)", target,
			       log);
	return 0;
}

/*
 * Build the image with this release and sign it in place (sbsign, out
 * of the sandbox: the key is ours), so that the package target that
 * follows finds it up to date and packs the signed image (its make
 * must see the same variables: see package_build()).
 */
static int sign_image(const struct step_spec *s, const struct package_spec *p)
{
	struct proc_result pr;
	char *image = util_fmt("%s/" SANDBOX_OUT "/build/%s", s->work_dir,
			       s->recipe->image);
	/* sbsign works on copies of the worker's, never in the build's
	 * directory, where the signed image goes back as a new file */
	char *plain = util_fmt("%s/image.unsigned", p->out_dir);
	char *signed_image = util_fmt("%s/image.signed", p->out_dir);
	struct buf b;
	int rc = image && plain && signed_image
			 ? pipeline_make(s, s->recipe->targets, NULL, p->log,
					 &pr)
			 : err_set(ERR_NOMEM, "out of memory");

	buf_init(&b, 1u << 30);
	if (!rc && (!pr.exited || pr.status))
		rc = err_set(ERR_GENERIC, "make failed before signing (see %s)",
			     p->log);
	if (!rc)
		rc = beneath_copy(s->work_dir, image, plain);
	if (!rc && !(rc = buf_read_file(&b, plain)) &&
	    (b.len < 2 || b.ptr[0] != 'M' || b.ptr[1] != 'Z'))
		/* only an EFI stub image (a PE file: "MZ") can be signed */
		rc = err_set(ERR_INPUT, "the kernel image is not an EFI image "
					"(the recipe's config has no "
					"CONFIG_EFI_STUB): it cannot be signed "
					"for Secure Boot");
	if (!rc) {
		const char *argv[] = { "sbsign",     "--key",	   p->sign_key,
				       "--cert",     p->sign_cert, "--output",
				       signed_image, plain,	   NULL };
		struct proc_opts o = { .log_path = p->log, .append = 1 };

		rc = proc_run(&pr, argv, &o);
		if (!rc && (pr.exec_failed || !pr.exited || pr.status))
			rc = err_set(ERR_INFRA, "sbsign failed (see %s)",
				     p->log);
	}
	buf_reset(&b);
	if (!rc && !(rc = buf_read_file(&b, signed_image)))
		rc = beneath_write(s->work_dir, image, b.ptr, b.len);
	if (plain)
		unlink(plain);
	if (signed_image)
		unlink(signed_image);
	buf_release(&b);
	free(image);
	free(plain);
	free(signed_image);
	return rc;
}

int package_build(struct package_result *out, const struct package_spec *p)
{
	struct step_spec s = *p->step;
	char *version, *lv = NULL, *vars = NULL, *env = NULL, *top = NULL;
	char *rpms = NULL, *debs = NULL;
	double t0 = util_now();
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = util_mkdir_p(p->out_dir)))
		return rc;
	version = kernel_version(&s, p->out_dir);
	if (!version)
		return err_set(ERR_INFRA, "cannot read the kernel version");
	if (p->deb) {
		lv = util_fmt("-bisectd.%s", p->id);
		out->deb_version = util_fmt("%s~bisectd.%s-1", version, p->id);
		vars = util_fmt("KDEB_PKGVERSION=%s", out->deb_version);
		out->release = util_fmt("%s%s", version, lv ? lv : "");
		s.localversion = lv;
		rc = lv && vars && out->release
			     ? 0
			     : err_set(ERR_NOMEM, "out of memory");
		/* debian/rules makes the kernel with KBUILD_BUILD_VERSION,
		 * the revision of KDEB_PKGVERSION: an image made without it
		 * would be linked again, unsigned and not the one tested */
		s.build_version = "1";
		if (!rc && p->sign_key)
			rc = sign_image(&s, p);
		if (!rc && !p->deb_built)
			rc = make_packages(&s, "bindeb-pkg", vars, NULL,
					   p->log);
		debs = deb_dir(p->step->work_dir);
		if (!rc && !debs)
			rc = err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = package_collect(out, p->step->work_dir, debs,
					     ".deb", p->out_dir, p->dbg);
		if (debs)
			tidy(debs);
		free(lv);
		free(vars);
		lv = vars = NULL;
	}
	if (!rc && p->rpm) {
		lv = util_fmt("~bisectd.%s", p->id);
		out->rpm_version = util_fmt("%s~bisectd.%s", version, p->id);
		top = util_fmt("%s/" SANDBOX_OUT "/rpmbuild",
			       p->step->work_dir);
		env = util_fmt("RPMOPTS=--define '_topdir %s'", top);
		rpms = util_fmt("%s/RPMS/%s", top, "x86_64");
		s.localversion = lv;
		if (!lv || !out->rpm_version || !top || !env || !rpms)
			rc = err_set(ERR_NOMEM, "out of memory");
		s.build_version = NULL;
		if (!rc && p->sign_key)
			rc = sign_image(&s, p);
		if (!rc) {
			util_remove_tree(top);
			rc = make_packages(&s, "binrpm-pkg", "", env, p->log);
		}
		if (!rc)
			rc = package_collect(out, p->step->work_dir, rpms,
					     ".rpm", p->out_dir, p->dbg);
		if (top)
			util_remove_tree(top);
	}
	out->seconds = util_now() - t0;
	free(version);
	free(lv);
	free(vars);
	free(env);
	free(top);
	free(rpms);
	free(debs);
	if (!rc && out->nfiles == 0)
		rc = err_set(ERR_INFRA, "the kernel's package targets made no "
					"package");
	return rc;
}
