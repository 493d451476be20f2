// SPDX-License-Identifier: GPL-2.0-only
/*
 * A build job: a base commit with patches, built and booted once as a
 * smoke test, then packaged; for bisectctl build and for workers alike.
 *
 * Design.  The patches are applied with libgit2 in the worktree
 * repository (gu_apply_patches), the tree is built and booted through
 * the step pipeline with the release the packages will carry
 * (LOCALVERSION=-bisectd.ID, so packaging rebuilds nothing; a deb build
 * is bindeb-pkg itself), in the sandbox when asked, and packaged by
 * package_build() into
 * OUT/packages.partial, which becomes OUT/packages only when every
 * package, SHA256SUMS and the download page are there: a build that
 * fails half-way leaves no packages, whole or half-made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"
#include "error.h"
#include "mbox.h"
#include "log.h"
#include "util.h"
#include "buildjob.h"
#include "installtest.h"
#include "package.h"
#include "pipeline.h"

void buildjob_release(struct buildjob_result *r)
{
	step_result_release(&r->smoke);
	package_result_release(&r->packages);
	install_result_release(&r->install);
	free(r->pkgdir);
	mbox_names_release(r->applied, r->napplied);
	memset(r, 0, sizeof(*r));
}

/* The build's id: the base and the patches, hashed; 8 hex digits. */
static void build_id(char out[9], const char *base,
		     const struct buildjob_spec *b)
{
	struct digest *d = digest_new();
	char hex[DIGEST_HEXSZ + 1];
	size_t i;

	digest_update(d, base, strlen(base));
	for (i = 0; i < b->npatches; i++)
		digest_update(d, b->texts[i], b->lens[i]);
	digest_finish(d, hex);
	snprintf(out, 9, "%.8s", hex);
}

/* Copy the patches into DIR/patches, numbered in the order applied. */
static int save_patches(const char *dir, const struct buildjob_spec *b)
{
	char *pd = util_fmt("%s/patches", dir);
	size_t i;
	int rc = pd ? util_mkdir_p(pd) : err_set(ERR_NOMEM, "out of memory");

	for (i = 0; i < b->npatches && !rc; i++) {
		const char *base = strrchr(b->names[i], '/');
		char *path = util_fmt("%s/%02zu-%s", pd, i + 1,
				      base ? base + 1 : b->names[i]);

		rc = path ? util_write_atomic(path, b->texts[i], b->lens[i])
			  : err_set(ERR_NOMEM, "out of memory");
		free(path);
	}
	free(pd);
	return rc;
}

static int write_text(const char *dir, const char *name, const char *text)
{
	char *path = util_fmt("%s/%s", dir, name);
	int rc = path ? util_write_atomic(path, text, strlen(text))
		      : err_set(ERR_NOMEM, "out of memory");

	free(path);
	return rc;
}

/* SHA256SUMS, the page, then the rename that makes them visible. */
static int finish_packages(struct buildjob_result *r,
			   const struct buildjob_spec *b, const char *tmpdir)
{
	struct download_info d = { .packages = &r->packages,
				   .recipe = b->recipe->name,
				   .smoke = r->smoke.verdict == VERDICT_GOOD
						    ? "good"
						    : r->smoke.title,
				   .link_prefix = "" };
	char what[512], *line, *install = NULL;
	struct buf page;
	int rc;

	snprintf(what, sizeof(what),
		 "Built from %.12s with %zu patch(es) applied, configured by "
		 "the %s recipe.",
		 r->base_hex, b->npatches, b->recipe->name);
	d.what = what;
	if (r->installed)
		d.install = install =
			r->install.verdict == VERDICT_GOOD
				? util_fmt("installed with dpkg into Debian "
					   "12, whose initramfs-tools made "
					   "the initrd; that disk booted in "
					   "QEMU and reported uname -r %s.",
					   r->install.uname)
				: util_fmt("%s: %s.",
					   verdict_name(r->install.verdict),
					   r->install.title);
	buf_init(&page, 1 << 20);
	rc = r->installed && !install ? err_set(ERR_NOMEM, "out of memory") : 0;
	if (b->sign_cert) {
		/* the certificate to enroll, as mokutil --import reads it */
		char *der = util_fmt("%s/MOK.der", tmpdir);
		const char *argv[] = { "openssl",    "x509",	 "-in",
				       b->sign_cert, "-outform", "DER",
				       "-out",	     der,	 NULL };
		struct proc_opts o = { .log_path = "/dev/null" };
		struct proc_result pr;

		rc = der ? proc_run(&pr, argv, &o)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc && (pr.exec_failed || !pr.exited || pr.status))
			rc = err_set(ERR_INPUT,
				     "cannot read the certificate "
				     "'%s'",
				     b->sign_cert);
		free(der);
		d.signed_with = "MOK.der";
	}
	if (!rc)
		rc = artifacts_sums(tmpdir, &r->packages);
	if (!rc)
		rc = artifacts_page(&page, &d);
	if (!rc)
		rc = write_text(tmpdir, "index.html", buf_str(&page));
	buf_release(&page);
	free(install);
	if (!rc && rename(tmpdir, r->pkgdir))
		rc = err_sys(ERR_INFRA, "cannot move '%s'", tmpdir);
	line = util_fmt("%s\n", r->packages.release);
	if (!rc)
		rc = line ? write_text(b->out_dir, "kernel.release", line)
			  : err_set(ERR_NOMEM, "out of memory");
	free(line);
	if (!rc) {
		char *path = util_fmt("%s/toolchain.txt", b->out_dir);

		rc = path ? artifacts_toolchain(path)
			  : err_set(ERR_NOMEM, "out of memory");
		free(path);
	}
	return rc;
}

/* The install test of the packages in dir (deb and/or rpm). */
static int install_packages(struct buildjob_result *r,
			    const struct buildjob_spec *b, const char *dir)
{
	const char *deb =
		b->deb ? artifacts_kernel_file(&r->packages, 0) : NULL;
	const char *rpm =
		b->rpm ? artifacts_kernel_file(&r->packages, 1) : NULL;
	char *debp = deb ? util_fmt("%s/%s", dir, deb) : NULL;
	char *rpmp = rpm ? util_fmt("%s/%s", dir, rpm) : NULL;
	struct install_spec is = { .recipe = b->recipe,
				   .cache_dir = b->cache_dir,
				   .out_dir = b->out_dir,
				   .deb = debp,
				   .release = r->packages.release,
				   .rpm = rpmp,
				   .rpm_version = r->packages.rpm_version };
	int rc;

	if ((deb && !debp) || (rpm && !rpmp))
		rc = err_set(ERR_NOMEM, "out of memory");
	else if ((b->deb && !deb) || (b->rpm && !rpm))
		rc = err_set(ERR_INFRA, "the kernel package was not made");
	else {
		if (b->live)
			log_info("install test of %s", r->packages.release);
		rc = install_test(&r->install, &is);
		r->installed = !rc;
	}
	free(debp);
	free(rpmp);
	return rc;
}

int buildjob_check(const struct buildjob_spec *b)
{
	if (b->sandbox && !util_in_path("bwrap"))
		return err_set(ERR_INPUT,
			       "bubblewrap (bwrap) is not installed: "
			       "builds of patches run in its "
			       "sandbox");
	return b->install ? install_check(b->deb, b->rpm) : 0;
}

int buildjob_run(struct buildjob_result *r, const struct buildjob_spec *b)
{
	char *src = util_fmt("%s/src", b->work_dir), *tmpdir = NULL;
	char *version = NULL, *targets = NULL;
	char lv[32];
	struct gu_oid poid = b->base;
	int rc;

	memset(r, 0, sizeof(*r));
	r->smoke.exit_code = -1;
	r->smoke.role = "build";
	gu_oid_hex(r->base_hex, &b->base);
	rc = src ? util_mkdir_p(src) : err_set(ERR_NOMEM, "out of memory");
	if (!rc && b->npatches)
		rc = mbox_apply_patches(&poid, b->repo, src, &b->base, b->names,
					b->texts, b->lens, b->npatches,
					&r->applied, &r->napplied);
	if (rc) {
		free(src);
		return rc;
	}
	gu_oid_hex(r->patched_hex, &poid);
	memcpy(r->smoke.hex, r->patched_hex, sizeof(r->smoke.hex));
	build_id(r->id, r->base_hex, b);
	snprintf(lv, sizeof(lv), "-bisectd.%s", r->id);
	r->pkgdir = util_fmt("%s/packages", b->out_dir);
	tmpdir = util_fmt("%s/packages.partial", b->out_dir);
	if (!r->pkgdir || !tmpdir) {
		free(tmpdir);
		free(src);
		return err_set(ERR_NOMEM, "out of memory");
	}
	util_remove_tree(r->pkgdir);
	util_remove_tree(tmpdir);
	if ((rc = util_mkdir_p(b->out_dir)) ||
	    (rc = save_patches(b->out_dir, b)))
		goto out;
	/*
	 * A deb build makes the packages in the build itself (bindeb-pkg
	 * builds the tree first): packaging afterwards would walk the whole
	 * tree once more.  Not when signing, which comes between the build
	 * and the packages.
	 */
	if (b->deb && !b->sign_key) {
		/* a patched commit is in the work tree's repository */
		struct gu_repo *w = NULL;

		version = package_kernel_version(b->repo, &poid);
		if (!version && !gu_open_worktree(&w, src))
			version = package_kernel_version(w, &poid);
		gu_close(w);
	}
	if (version)
		targets = util_fmt("bindeb-pkg KDEB_PKGVERSION=%s~bisectd.%s-1",
				   version, r->id);
	if (targets)
		package_clean(b->work_dir);
	{
		struct step_spec spec = {
			.repo = b->repo,
			.commit = poid,
			.recipe = b->recipe,
			.test_script = b->test_script,
			.runs = b->runs,
			.work_dir = b->work_dir,
			.tenant = b->tenant,
			.timeout_s = b->timeout_s,
			.max_procs = b->max_procs,
			.step_dir = b->out_dir,
			.live = b->live,
			.localversion = lv,
			/* as bindeb-pkg will: see package.c */
			.build_version = b->deb ? "1" : NULL,
			.build_targets = targets,
			.sandbox = b->sandbox,
			.uncached = 1,
			.distcc = b->distcc,
			.icecc = b->icecc
		};
		struct package_spec ps = { .step = &spec,
					   .id = r->id,
					   .out_dir = tmpdir,
					   .deb = b->deb,
					   .rpm = b->rpm,
					   .deb_built = targets != NULL,
					   .dbg = b->dbg,
					   .sign_key = b->sign_key,
					   .sign_cert = b->sign_cert };
		char *log = util_fmt("%s/build.log", b->out_dir);

		rc = log ? pipeline_step(&r->smoke, &spec)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc && r->smoke.verdict != VERDICT_SKIP &&
		    !(r->smoke.verdict == VERDICT_INFRA && !r->smoke.build_s)) {
			ps.log = log;
			rc = package_build(&r->packages, &ps);
			if (!rc && b->install)
				rc = install_packages(r, b, tmpdir);
			if (!rc)
				rc = finish_packages(r, b, tmpdir);
			r->built = !rc;
			if (rc == ERR_GENERIC) {
				/* the tree built, its packaging did not */
				r->smoke.verdict = VERDICT_SKIP;
				free(r->smoke.title);
				r->smoke.title = strdup(err_last());
				rc = 0;
			}
		}
		free(log);
	}
out:
	free(src);
	if (!r->built)
		util_remove_tree(tmpdir); /* nothing half-made is left */
	if (!r->built && targets)
		package_clean(b->work_dir);
	free(tmpdir);
	free(version);
	free(targets);
	if (!r->smoke.title)
		r->smoke.title = strdup("");
	if (!r->smoke.excerpt)
		r->smoke.excerpt = strdup("");
	return rc;
}

const char *buildjob_outcome(const struct buildjob_result *r)
{
	if (!r->built)
		return r->smoke.verdict == VERDICT_INFRA ? "infra"
							 : "build failed";
	if (r->smoke.verdict != VERDICT_GOOD)
		return "boot failed";
	if (r->installed && r->install.verdict == VERDICT_INFRA)
		return "infra";
	if (r->installed && r->install.verdict != VERDICT_GOOD)
		return "install failed";
	return "built";
}
