// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl build: a patched kernel made into distribution packages,
 * booted, and install-tested.
 */
#define _GNU_SOURCE
#include "ctl.h"

/* --- build: patched distribution packages --------------------------- */

struct build_opts {
	struct patches p;
	const char *commit;
	int deb, rpm, dbg;
	int no_sandbox;
	const char *sign_key, *sign_cert;
	const char *source;  /* a Debian linux-source-6.1 version */
	int install;	     /* --install-test */
	const char *channel; /* --channel: bisectd's APT suite to replace */
};

/* build's own options: --commit, --patch, --format, --dbg. */
static int build_opt(int opt, const char *arg, void *payload)
{
	struct build_opts *b = payload;
	char *list, *f, *save = NULL;

	switch (opt) {
	case 'C':
		b->commit = arg;
		return 1;
	case 'p':
		return ctl_read_patch(&b->p, arg) ? -1 : 1;
	case 'D':
		b->dbg = 1;
		return 1;
	case 'N':
		b->no_sandbox = 1;
		return 1;
	case 'I':
		b->install = 1;
		return 1;
	case 'S':
		b->source = arg;
		return 1;
	case 'H':
		if (!job_channel_ok(arg)) {
			err_set(ERR_INPUT,
				"--channel is an APT suite name: lower-case "
				"letters, digits and . + - (from a letter or "
				"digit, up to 64), not starting with bisectd");
			return -1;
		}
		b->channel = arg;
		return 1;
	case 'K':
	case 'T':
		if (access(arg, R_OK)) {
			err_sys(ERR_INPUT, "cannot read '%s'", arg);
			return -1;
		}
		*(opt == 'K' ? &b->sign_key : &b->sign_cert) = arg;
		return 1;
	case 'F':
		b->deb = b->rpm = 0;
		list = strdup(arg);
		for (f = strtok_r(list, ",", &save); f;
		     f = strtok_r(NULL, ",", &save)) {
			if (!strcmp(f, "deb"))
				b->deb = 1;
			else if (!strcmp(f, "rpm"))
				b->rpm = 1;
			else {
				err_set(ERR_INPUT,
					"unknown package format '%s': deb or "
					"rpm",
					f);
				free(list);
				return -1;
			}
		}
		free(list);
		return 1;
	}
	return 0;
}

/* build --server: the request for bisectd's build job. */
static int build_remote(const struct common *c, const struct kernel_opts *k,
			const struct build_opts *b)
{
	struct job_spec spec;
	size_t i;
	int rc, status;

	if (!k->recipe)
		return ctl_usage_error("build needs --recipe NAME");
	rc = ctl_remote_spec(&spec, "build", c, k);
	snprintf(spec.type, sizeof(spec.type), "build");
	spec.check_endpoints = 0;
	if (b->source) {
		/* bisectd imports the Debian source itself */
		free(spec.repo);
		spec.repo = NULL;
		spec.source = strdup(b->source);
	} else
		spec.commit = strdup(b->commit ? b->commit : "HEAD");
	for (i = 0; i < b->p.n; i++) {
		const char *base = strrchr(b->p.names[i], '/');

		spec.patch_names[i] = strdup(base ? base + 1 : b->p.names[i]);
		spec.patch_texts[i] = strdup(b->p.texts[i]);
	}
	spec.npatches = b->p.n;
	spec.deb = b->deb;
	spec.rpm = b->rpm;
	spec.dbg = b->dbg;
	spec.install_test = b->install;
	spec.channel = b->channel ? strdup(b->channel) : NULL;
	status = rc ? ctl_fail(rc)
		    : remote_run(ctl_server, ctl_token, &spec, c->json, stderr);
	job_spec_release(&spec);
	return status;
}

/* The build's options against what this machine has; ERR_INPUT. */
static int build_check(const struct build_opts *b)
{
	if (!b->deb && !b->rpm)
		return err_set(ERR_INPUT,
			       "no package format: --format deb,rpm");
	if (!b->no_sandbox && !util_in_path("bwrap"))
		return err_set(ERR_INPUT,
			       "builds of patches run in a bubblewrap sandbox: "
			       "install bubblewrap, or pass --no-sandbox");
	if (!b->sign_key != !b->sign_cert)
		return err_set(ERR_INPUT, "signing needs both --sign-key and "
					  "--sign-cert");
	if (b->sign_key && !util_in_path("sbsign"))
		return err_set(ERR_INPUT, "signing needs sbsign (package "
					  "sbsigntool)");
	if (b->sign_key) {
		/* the build must not read the key: hide its directory */
		char *dir = realpath(b->sign_key, NULL), *slash;

		if (dir && (slash = strrchr(dir, '/')) && slash != dir) {
			*slash = '\0';
			sandbox_hide(dir);
		}
		free(dir);
	}
	if (b->install) {
		int rc = install_check(b->deb, b->rpm);

		if (rc)
			return rc;
	}
	if (b->source && b->commit)
		return err_set(ERR_INPUT, "--source VERSION or --commit REV, "
					  "not both");
	return 0;
}

/*
 * The base of the build (Debian's source imported into the cache once,
 * or a commit of --repo), the work directory taken, and the patches
 * checked to apply before anything is written.
 */
static int build_base(struct bisect_ctx *ctx, struct recipe *recipe,
		      const struct kernel_opts *k, const struct common *c,
		      const struct build_opts *b, struct gu_repo **repo,
		      struct gu_oid *oid, char **cache)
{
	int rc;

	if (b->source) {
		*cache = util_cache_dir();
		rc = *cache ? srcimport_debian(repo, oid, *cache, b->source)
			    : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = ctl_kernel_setup(ctx, recipe, k, *repo);
		if (!rc)
			rc = ctl_lock_work_dir(ctx);
	} else {
		rc = ctl_setup_one_commit(ctx, recipe, k, c->repo_path,
					  b->commit ? b->commit : "HEAD", repo,
					  oid);
	}
	if (!rc && b->p.n) {
		char *src = util_fmt("%s/src", ctx->work_dir);
		struct gu_oid poid;

		rc = src ? util_mkdir_p(src)
			 : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			rc = mbox_apply_patches(&poid, *repo, src, oid,
						b->p.names,
						(const char *const *)b->p.texts,
						b->p.lens, b->p.n, NULL, NULL);
		free(src);
	}
	if (!rc && !*cache && !(*cache = util_cache_dir()))
		rc = err_set(ERR_NOMEM, "out of memory");
	return rc;
}

/*
 * The build's report (stdout, OUT/build.json, --json) and its exit
 * status: 0 built and booted (and installed), 1 it did not build, 4 it
 * did not boot or install, EXIT_INFRA the machine failed.
 */
static int build_finish(const struct buildjob_result *r, const struct common *c,
			const char *recipe, const char *out)
{
	struct build_report br = {
		.result = buildjob_outcome(r),
		.id = r->id,
		.repo_path = c->repo_path,
		.base_hex = r->base_hex,
		.patched_hex = r->patched_hex,
		.patches = (const char *const *)r->applied,
		.npatches = r->napplied,
		.recipe = recipe,
		.packages = r->built ? &r->packages : NULL,
		.packages_dir = r->pkgdir,
		.smoke = &r->smoke,
		.install = r->installed ? &r->install : NULL,
		.out_dir = out,
	};
	struct buf text;
	char *json = NULL, *path;

	buf_init(&text, 1 << 20);
	if (report_build(&json, &text, &br)) {
		buf_release(&text);
		return ctl_fail(ERR_NOMEM);
	}
	fputs(buf_str(&text), stdout);
	buf_release(&text);
	path = util_fmt("%s/build.json", out);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	if (c->json && util_write_atomic(c->json, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	free(json);
	if (!r->built)
		fprintf(stderr, "bisectctl: %s: %s\n",
			r->smoke.verdict == VERDICT_INFRA
				? "infrastructure failure"
				: "the patched tree did not build",
			r->smoke.title);
	else if (r->installed && r->install.verdict != VERDICT_GOOD)
		fprintf(stderr, "bisectctl: install test: %s\n",
			r->install.title);
	if (!r->built)
		return r->smoke.verdict == VERDICT_INFRA ? EXIT_INFRA : 1;
	if (r->smoke.verdict != VERDICT_GOOD)
		return 4;
	if (r->installed && r->install.verdict == VERDICT_INFRA)
		return EXIT_INFRA;
	return r->installed && r->install.verdict != VERDICT_GOOD ? 4 : 0;
}

/* The build, local or through bisectd, once its options are parsed. */
static int build_main(struct common *c, struct kernel_opts *k,
		      struct build_opts *b)
{
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct buildjob_result r = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	char *out = NULL, *cache = NULL;
	int rc, status;

	if (ctl_server) {
		status = build_remote(c, k, b);
		goto done;
	}
	if (b->channel) {
		status = ctl_usage_error("--channel names a suite of "
					 "bisectd's APT repository: it goes "
					 "with --server");
		goto done;
	}
	rc = build_check(b);
	if (!rc)
		rc = build_base(&ctx, &recipe, k, c, b, &repo, &oid, &cache);
	if (!rc && !(out = ctl_make_out_dir(c->out)))
		rc = ERR_INFRA;
	if (!rc) {
		struct buildjob_spec bs = {
			.repo = repo,
			.base = oid,
			.names = b->p.names,
			.texts = (const char *const *)b->p.texts,
			.lens = b->p.lens,
			.npatches = b->p.n,
			.recipe = &recipe,
			.test_script = ctx.test,
			.runs = k->runs,
			.work_dir = ctx.work_dir,
			.out_dir = out,
			.deb = b->deb,
			.rpm = b->rpm,
			.dbg = b->dbg,
			.sandbox = !b->no_sandbox,
			.live = isatty(2),
			.sign_key = b->sign_key,
			.sign_cert = b->sign_cert,
			.install = b->install,
			.cache_dir = cache,
		};

		fprintf(stderr,
			"bisectctl: building %s with %zu patch(es), "
			"recipe %s%s, output %s\n",
			b->source   ? b->source
			: b->commit ? b->commit
				    : "HEAD",
			b->p.n, recipe.name,
			bs.sandbox ? " in the sandbox" : "", out);
		rc = buildjob_run(&r, &bs);
	}
	status = rc ? ctl_fail(rc) : build_finish(&r, c, recipe.name, out);
done:
	buildjob_release(&r);
	ctl_kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	free(cache);
	return status;
}

#define BUILD_LONGOPTS                                                         \
	{ "patch", required_argument, NULL, 'p' },                             \
		{ "format", required_argument, NULL, 'F' },                    \
		{ "dbg", no_argument, NULL, 'D' },                             \
		{ "no-sandbox", no_argument, NULL, 'N' },                      \
		{ "install-test", no_argument, NULL, 'I' },                    \
		{ "source", required_argument, NULL, 'S' },                    \
		{ "channel", required_argument, NULL, 'H' },                   \
		{ "json", required_argument, NULL, 'j' },                      \
		{ "out", required_argument, NULL, 'o' },                       \
	{                                                                      \
		"repo", required_argument, NULL, 'r'                           \
	}

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commit", required_argument, NULL, 'C' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "sign-cert", required_argument, NULL, 'T' },
		BUILD_LONGOPTS,
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct kernel_opts k = { .runs = 1 };
	struct build_opts b = { .deb = 1 };
	int status;

	status = ctl_parse_kernel_args(argc, argv, opts, &c, &k, build_opt, &b,
				       "build");
	if (!status)
		status = build_main(&c, &k, &b);
	ctl_release_patches(&b.p);
	return status;
}

/* backport's own options: --fix and --release, then build's. */
enum { OPT_FIX_COMMIT = 1200, OPT_RELEASE };

struct backport_opts {
	struct build_opts b;
	const char *fix, *release;
};

static int backport_opt(int opt, const char *arg, void *payload)
{
	struct backport_opts *x = payload;

	switch (opt) {
	case OPT_FIX_COMMIT:
		x->fix = arg;
		return 1;
	case OPT_RELEASE:
		x->release = arg;
		return 1;
	}
	return build_opt(opt, arg, &x->b);
}

/*
 * The fix as the build's last patch, after the --patch files (the
 * release's own changes): the commit of --repo as a mail of git
 * format-patch, named fix-SHORT.patch.
 */
static int fix_patch(struct patches *p, const char *repo_path, const char *fix)
{
	static char name[64];
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	char hex[GU_HEXSZ + 1];
	struct buf b;
	int rc = gu_open(&repo, repo_path);

	buf_init(&b, 64u << 20);
	if (!rc)
		rc = gu_resolve(repo, fix, &oid);
	if (!rc)
		rc = gu_format_patch(repo, &oid, &b);
	gu_close(repo);
	if (!rc && p->n == MAX_PATCHES)
		rc = err_set(ERR_INPUT, "more than %d patches", MAX_PATCHES);
	if (!rc) {
		gu_oid_hex(hex, &oid);
		snprintf(name, sizeof(name), "fix-%.12s.patch", hex);
		p->names[p->n] = name;
		p->lens[p->n] = b.len;
		p->texts[p->n++] = buf_detach(&b);
	}
	buf_release(&b);
	return rc;
}

/*
 * backport: a fix (a commit of --repo) built into a Debian release, as
 * build --source does, with the release's own config when it is named
 * by its ABI (--release, mapped to its source version by APT).
 */
int cmd_backport(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fix", required_argument, NULL, OPT_FIX_COMMIT },
		{ "release", required_argument, NULL, OPT_RELEASE },
		BUILD_LONGOPTS,
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct kernel_opts k = { .runs = 1 };
	struct backport_opts x = { .b = { .deb = 1 } };
	char version[64], recipe[96];
	int status, rc = 0;

	status = ctl_parse_kernel_args(argc, argv, opts, &c, &k, backport_opt,
				       &x, "backport");
	if (status)
		goto done;
	if (!x.fix || !x.release == !x.b.source) {
		status = ctl_usage_error("backport needs --fix COMMIT and "
					 "--release ABI or --source "
					 "DEBIAN-VERSION");
		goto done;
	}
	if (x.release) {
		if (!k.flavour) {
			status = ctl_usage_error("--release needs --flavour "
						 "(its package's, such as "
						 "cloud-amd64)");
			goto done;
		}
		if (k.base_release) {
			status = ctl_usage_error("--release is the base "
						 "release already");
			goto done;
		}
		if ((rc = ctl_release_words_ok(x.release, k.flavour,
					       "--release"))) {
			status = ctl_fail(rc);
			goto done;
		}
		/* the release's own config, and its source */
		k.base_release = x.release;
		rc = releases_source_version(k.flavour, x.release, version,
					     sizeof(version));
		if (!rc)
			x.b.source = version;
		if (!rc && !k.recipe) {
			snprintf(recipe, sizeof(recipe), "debian-%s",
				 k.flavour);
			k.recipe = recipe;
		}
	}
	if (!rc)
		rc = fix_patch(&x.b.p, c.repo_path, x.fix);
	if (rc) {
		status = ctl_fail(rc);
		goto done;
	}
	fprintf(stderr, "bisectctl: backporting %s onto Debian's %s%s%s\n",
		x.b.p.names[x.b.p.n - 1], x.b.source,
		x.release ? ", release " : "", x.release ? x.release : "");
	status = build_main(&c, &k, &x.b);
done:
	ctl_release_patches(&x.b.p);
	return status;
}
