// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl bisect, test and verify: kernel mode, each step built with a
 * recipe and booted in QEMU; and the kernel-mode setup that build and
 * releases share (recipes, patches, the locked work directory).
 */
#define _GNU_SOURCE
#include "ctl.h"

/* --- kernel mode -------------------------------------------------------- */

/* One kernel step of test or verify, in the command's output directory. */
static int bisect_test(struct step_result *st, const struct gu_oid *commit,
		       void *payload)
{
	struct bisect_ctx *c = payload;
	struct step_spec spec = { .repo = c->repo,
				  .commit = *commit,
				  .recipe = c->recipe,
				  .test_script = c->test,
				  .runs = c->runs,
				  .work_dir = c->work_dir,
				  .live = isatty(2),
				  .sandbox = c->sandbox };
	char hex[GU_HEXSZ + 1], *dir;
	int rc;

	gu_oid_hex(hex, commit);
	dir = util_fmt("%s/steps/%02u-%.12s", c->out_dir, ++c->n, hex);
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	spec.step_dir = dir;
	rc = pipeline_step(st, &spec);
	if (!rc && c->metric)
		rc = pipeline_measure(st, dir, c->metric);
	free(dir);
	if (rc)
		return rc;
	if (st->accel)
		c->accel = st->accel;
	if (st->verdict != VERDICT_INFRA && st->config_path) {
		free(c->last_config);
		c->last_config = strdup(st->config_path);
	}
	return 0;
}

static char *recipe_search_path(void)
{
	return recipe_default_path(DATADIR);
}

int ctl_load_recipe(struct recipe *r, const char *name)
{
	char path[PATH_MAX], *search = recipe_search_path();
	int rc;

	if (!search)
		return err_set(ERR_NOMEM, "out of memory");
	rc = recipe_find(path, sizeof(path), name, search);
	free(search);
	if (!rc)
		rc = recipe_load(r, path);
	return rc;
}

/* Read a patch file: it must be text and hold something. */
int ctl_read_patch(struct patches *p, const char *path)
{
	struct buf b;
	int rc;

	if (p->n == MAX_PATCHES)
		return err_set(ERR_INPUT, "more than %d patches", MAX_PATCHES);
	buf_init(&b, 64u << 20);
	rc = buf_read_file(&b, path);
	if (rc) {
		buf_release(&b);
		return err_wrap(ERR_INPUT, "patch");
	}
	if (b.len == 0)
		rc = err_set(ERR_INPUT, "patch '%s' is empty", path);
	else if (memchr(b.ptr, '\0', b.len))
		rc = err_set(ERR_INPUT, "patch '%s' is binary, not a diff",
			     path);
	if (rc) {
		buf_release(&b);
		return rc;
	}
	p->names[p->n] = path;
	p->lens[p->n] = b.len;
	p->texts[p->n++] = buf_detach(&b);
	return 0;
}

/* bisect's own option: --apply FILE, read at once. */
static int apply_opt(int opt, const char *arg, void *payload)
{
	if (opt != OPT_APPLY)
		return 0;
	return ctl_read_patch(payload, arg) ? -1 : 1;
}

/* The --apply patches into the request, by their file names. */
static int apply_spec(struct job_spec *spec, const struct patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const char *base = strrchr(p->names[i], '/');

		spec->patch_names[i] = strdup(base ? base + 1 : p->names[i]);
		spec->patch_texts[i] = strndup(p->texts[i], p->lens[i]);
		spec->npatches = i + 1;
		if (!spec->patch_names[i] || !spec->patch_texts[i])
			return err_set(ERR_NOMEM, "out of memory");
	}
	return 0;
}

void ctl_release_patches(struct patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->texts[i]);
	p->n = 0;
}

/* Parse one kernel option; 1 if it was one, 0 if not, -1 on error. */
static int kernel_opt(struct kernel_opts *k, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 'c':
		k->recipe = arg;
		return 1;
	case 't':
		k->test = arg;
		return 1;
	case OPT_BASE_RELEASE:
		k->base_release = arg;
		return 1;
	case OPT_FLAVOUR:
		k->flavour = arg;
		return 1;
	case 'n':
		k->runs = (int)strtol(arg, &end, 10);
		if (*end || k->runs < 1 || k->runs > 100) {
			err_set(ERR_INPUT,
				"--runs needs a number from 1 to 100, not '%s'",
				arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

/*
 * Check the kernel options and fill ctx: the recipe (into *recipe), the
 * test script's absolute path and the work directory.  Nothing is
 * written anywhere before all of it checks out.
 */
int ctl_kernel_setup(struct bisect_ctx *ctx, struct recipe *recipe,
		     const struct kernel_opts *k, struct gu_repo *repo)
{
	char *cache, *key;
	int rc;

	if (!k->recipe)
		return err_set(ERR_INPUT, "--recipe NAME is required");
	if ((rc = ctl_base_release_ok(k)))
		return rc;
	rc = ctl_load_recipe(recipe, k->recipe);
	if (rc)
		return rc;
	if (k->base_release) {
		/* that release's package: its config is the base */
		char *deb = NULL;

		if ((rc = ctl_release_deb(k->flavour, k->base_release, &deb)))
			return rc;
		free(recipe->base);
		recipe->base = deb;
	}
	if (k->test && !util_is_executable(k->test))
		return err_set(ERR_INPUT,
			       "test script '%s' is not an executable file",
			       k->test);
	if (k->test && !(ctx->test_abs = realpath(k->test, NULL)))
		return err_sys(ERR_INPUT, "test script '%s'", k->test);
	ctx->test = ctx->test_abs;
	ctx->repo = repo;
	ctx->recipe = recipe;
	ctx->runs = k->runs;
	cache = util_cache_dir();
	key = steprun_repo_key(repo);
	ctx->work_dir =
		cache && key
			? util_fmt("%s/work/%s-%s%s%s", cache, key,
				   recipe->name, k->base_release ? "-" : "",
				   k->base_release ? k->base_release : "")
			: NULL;
	free(cache);
	free(key);
	return ctx->work_dir ? 0 : err_set(ERR_NOMEM, "out of memory");
}

void ctl_kernel_release(struct bisect_ctx *ctx, struct recipe *recipe)
{
	if (ctx->lock >= 0)
		close(ctx->lock);
	recipe_release(recipe);
	free(ctx->last_config);
	free(ctx->test_abs);
	free(ctx->work_dir);
}

/* Take the work directory for this command: create it, lock it, and
 * make it this process's (sandbox_claim_work()). */
int ctl_lock_work_dir(struct bisect_ctx *ctx)
{
	int rc = util_mkdir_p(ctx->work_dir);

	if (!rc && (ctx->lock = util_lock_dir(ctx->work_dir)) < 0)
		rc = ctx->lock;
	if (!rc)
		rc = sandbox_claim_work(ctx->work_dir);
	return rc;
}

/* The repository and revision of a one-commit command, and its setup. */
int ctl_setup_one_commit(struct bisect_ctx *ctx, struct recipe *recipe,
			 const struct kernel_opts *k, const char *repo_path,
			 const char *rev, struct gu_repo **repo,
			 struct gu_oid *oid)
{
	int rc = gu_open(repo, repo_path);

	if (!rc)
		rc = gu_resolve(*repo, rev, oid);
	if (!rc)
		rc = ctl_kernel_setup(ctx, recipe, k, *repo);
	if (!rc)
		rc = ctl_lock_work_dir(ctx);
	return rc;
}

/*
 * The option loop of the kernel commands: common and kernel options, then
 * extra (for the command's own, may be NULL).  0, or the exit status.
 */
int ctl_parse_kernel_args(int argc, char **argv, const struct option *opts,
			  struct common *c, struct kernel_opts *k,
			  int (*extra)(int opt, const char *arg, void *payload),
			  void *payload, const char *name)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int r = ctl_common_opt(c, opt, optarg);

		if (!r)
			r = kernel_opt(k, opt, optarg);
		if (!r && extra)
			r = extra(opt, optarg, payload);
		if (r < 0)
			return ctl_fail(ERR_INPUT);
		if (!r)
			return ctl_usage_error("bad option for %s", name);
	}
	if (optind < argc)
		return ctl_usage_error("unexpected argument '%s'",
				       argv[optind]);
	return 0;
}

/* bisect's own options: --apply and the metric ones. */
struct bisect_extra {
	struct patches apply;
	struct metric_opts mo;
	int dir, min_given;
};

static int bisect_opt(int opt, const char *arg, void *payload)
{
	struct bisect_extra *x = payload;
	int r = apply_opt(opt, arg, &x->apply);

	x->min_given |= opt == OPT_MIN_CHANGE;
	return r ? r : ctl_metric_opt(&x->mo, opt, arg, &x->dir);
}

/* verify's own options: --patch FILE (read at once) and the metric's. */
static int verify_opt(int opt, const char *arg, void *payload)
{
	struct bisect_extra *x = payload;

	if (opt == 'p')
		return ctl_read_patch(&x->apply, arg) ? -1 : 1;
	x->min_given |= opt == OPT_MIN_CHANGE;
	return ctl_metric_opt(&x->mo, opt, arg, &x->dir);
}

/*
 * --metric NAME: a performance regression, the values printed by the
 * guest test (bisect-metric: NAME VALUE [UNIT]); the request's "metric".
 * NULL, or what does not go with it.
 */
static const char *metric_spec(struct job_spec *spec,
			       const struct bisect_extra *x,
			       const struct common *c)
{
	if (!x->mo.name)
		return ctl_metric_orphans(NULL, x->dir, x->min_given);
	if (c->confidence == 0)
		return "--metric needs a confidence from 0.5 to below 1 "
		       "(default 0.95), not 0: values need a probability";
	if (c->failure || c->fix)
		return "--metric does not go with --failure or --fix";
	spec->metric_name = strdup(x->mo.name);
	spec->metric_higher = x->mo.higher;
	spec->metric_min_change = x->mo.min_change;
	if (c->confidence < 0)
		spec->confidence = 0.95;
	spec->check_endpoints = 0;
	return spec->metric_name ? NULL : "out of memory";
}

int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		KERNEL_LONGOPTS,
		{ "apply", required_argument, NULL, OPT_APPLY },
		METRIC_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	struct kernel_opts k = { .runs = 1 };
	struct bisect_extra x = { 0 };
	struct patches *const apply_p = &x.apply;
	const char *conflict;
	struct report_info ri = { .mode = "bisect" };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct job_spec spec = { 0 };
	struct sched_verdict *known = NULL;
	size_t nknown = 0;
	struct session s;
	struct gu_repo *repo = NULL;
	struct buf test;
	char *out = NULL, *search = NULL;
	int rc = 0, status, code = 0;

	status = ctl_parse_kernel_args(argc, argv, opts, &c, &k, bisect_opt, &x,
				       "bisect");
	if (!status && (conflict = metric_spec(&spec, &x, &c)))
		status = ctl_usage_error("%s", conflict);
	job_spec_release(&spec);
	if (status) {
		ctl_release_patches(apply_p);
		return status;
	}
	if (ctl_server) {
		if (!k.recipe) {
			ctl_release_patches(apply_p);
			return ctl_usage_error("bisect needs --recipe NAME");
		}
		rc = ctl_remote_spec(&spec, "bisect", &c, &k);
		if (!rc)
			rc = apply_spec(&spec, apply_p);
		if (!rc && metric_spec(&spec, &x, &c))
			rc = err_set(ERR_NOMEM, "out of memory");
		status = rc ? ctl_fail(rc)
			    : remote_run(ctl_server, ctl_token, &spec, c.json,
					 stderr);
		job_spec_release(&spec);
		ctl_release_patches(apply_p);
		return status;
	}
	session_init(&s);
	buf_init(&test, 1 << 20);
	rc = ctl_bisect_spec(&spec, &c, 1, &repo, &known, &nknown);
	if (!rc)
		rc = ctl_kernel_setup(&ctx, &recipe, &k, repo);
	if (!rc && ctx.test && buf_read_file(&test, ctx.test))
		rc = err_wrap(ERR_INPUT, "test script");
	if (rc)
		goto fail;
	spec.recipe = strdup(k.recipe);
	spec.base_release = k.base_release ? strdup(k.base_release) : NULL;
	spec.flavour = k.flavour ? strdup(k.flavour) : NULL;
	spec.test = ctx.test ? strdup(buf_str(&test)) : NULL;
	spec.runs = k.runs;
	spec.check_endpoints = 1;
	if ((rc = apply_spec(&spec, apply_p)))
		goto fail;
	if (metric_spec(&spec, &x, &c)) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto fail;
	}
	out = ctl_make_out_dir(c.out);
	search = recipe_search_path();
	if (!out || !search || !spec.recipe) {
		rc = out ? err_set(ERR_NOMEM, "out of memory") : ERR_INFRA;
		goto fail;
	}
	fprintf(stderr, "bisectctl: recipe %s, work directory %s, output %s\n",
		recipe.name, ctx.work_dir, out);
	s.repo = repo;
	rc = ctl_run_embedded(&s, &code, &c, &spec, known, nknown, out, search);
	if (rc)
		goto fail;
	session_last_config(&s, &ri.accel, &ri.config_path);
	ri.repo_path = c.repo_path;
	ri.recipe = &recipe;
	ri.test_script = ctx.test;
	ri.runs = ctx.runs;
	ri.out_dir = out;
	ri.mail_from = c.mail_from;
	ri.cherry_pick = 1; /* the user's own repository */
	status = ctl_finish(&s, &ri, c.json, code);
	goto out;
fail:
	status = ctl_fail(rc);
out:
	session_release(&s);
	free(s.goods);
	job_spec_release(&spec);
	free(known);
	buf_release(&test);
	ctl_release_patches(apply_p);
	ctl_kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	free(search);
	return status;
}

/* Print and save one step's result; the exit status for its verdict. */
static int print_step(const struct step_result *st, const char *json_path,
		      const char *out_dir)
{
	struct buf text;
	char *json = NULL, *path;
	int status;

	buf_init(&text, 1 << 20);
	if (step_result_dump(&json, &text, st)) {
		buf_release(&text);
		return ctl_fail(ERR_NOMEM);
	}
	path = util_fmt("%s/step.json", out_dir);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	if (json_path && util_write_atomic(json_path, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	fputs(buf_str(&text), stdout);
	switch (st->verdict) {
	case VERDICT_GOOD:
		status = 0;
		break;
	case VERDICT_BAD:
		status = 1;
		break;
	case VERDICT_SKIP:
		status = 125;
		break;
	default:
		fprintf(stderr, "bisectctl: infrastructure failure: %s\n",
			st->title);
		status = EXIT_INFRA;
	}
	free(json);
	buf_release(&text);
	return status;
}

/*
 * test: build and boot one commit.  Exit status as a bisect run command:
 * 0 good, 1 bad, 125 skip (does not build), 2 bad input, 3 infra.
 */
/* test's own option: --commit REV. */
static int commit_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'C')
		return 0;
	*(const char **)payload = arg;
	return 1;
}

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		KERNEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	const char *rev = NULL;
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct step_result st = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid;
	char *out = NULL;
	int rc, status;

	status = ctl_parse_kernel_args(argc, argv, opts, &c, &k, commit_opt,
				       &rev, "test");
	if (status)
		return status;
	if (!rev)
		return ctl_usage_error("test needs --commit REV");
	if (ctl_server) {
		struct job_spec spec;

		if (!k.recipe)
			return ctl_usage_error("test needs --recipe NAME");
		rc = ctl_remote_spec(&spec, "test", &c, &k);
		spec.commit = strdup(rev);
		status = rc ? ctl_fail(rc)
			    : remote_run(ctl_server, ctl_token, &spec, c.json,
					 stderr);
		job_spec_release(&spec);
		return status;
	}
	rc = ctl_setup_one_commit(&ctx, &recipe, &k, c.repo_path, rev, &repo,
				  &oid);
	if (rc)
		goto fail;
	out = ctl_make_out_dir(c.out);
	if (!out) {
		rc = ERR_INFRA;
		goto fail;
	}
	ctx.out_dir = out;
	st.exit_code = -1;
	st.role = "test";
	gu_oid_hex(st.hex, &oid);
	rc = bisect_test(&st, &oid, &ctx);
	if (rc)
		goto fail;
	if (st.config_notes && *st.config_notes)
		fprintf(stderr, "%s", st.config_notes);
	if (st.build_notes && *st.build_notes)
		fprintf(stderr, "%s", st.build_notes);
	status = print_step(&st, c.json, out);
	goto out;
fail:
	status = ctl_fail(rc);
out:
	step_result_release(&st);
	ctl_kernel_release(&ctx, &recipe);
	gu_close(repo);
	free(out);
	return status;
}

/* The answer of a fix check, and its exit status. */
static int verify_verdict(char *reason, size_t size,
			  const struct step_result *b,
			  const struct step_result *p, const char **result)
{
	if (b->verdict == VERDICT_INFRA || p->verdict == VERDICT_INFRA) {
		*result = "inconclusive";
		snprintf(reason, size, "infrastructure failure: %s",
			 b->verdict == VERDICT_INFRA ? b->title : p->title);
		return EXIT_INFRA;
	}
	if (b->verdict != VERDICT_BAD) {
		*result = "inconclusive";
		snprintf(reason, size,
			 "the failure does not reproduce without the patches "
			 "(%s%s%s)",
			 verdict_name(b->verdict), *b->title ? ": " : "",
			 b->title);
		return 4;
	}
	if (p->verdict == VERDICT_SKIP) {
		*result = "inconclusive";
		snprintf(reason, size, "the patched tree does not build: %s",
			 p->title);
		return 4;
	}
	if (p->verdict == VERDICT_GOOD) {
		*result = "fixed";
		snprintf(reason, size,
			 "all %d run(s) pass with the patches; without them "
			 "%d of %d failed (%s)",
			 p->runs, b->runs_failed, b->runs, b->title);
		return 0;
	}
	*result = "not fixed";
	snprintf(reason, size,
		 "%d of %d run(s) still fail with the patches (%s)",
		 p->runs_failed, p->runs, p->title);
	return 1;
}

/*
 * verify --metric: the patch's effect on the metric (the runs' values
 * without and with the patches), in mc, and the exit status: 0 better by
 * min_change or more, 1 not, 4 not told apart (or no values).
 */
static int verify_metric(char *reason, size_t size, struct metric_change *mc,
			 const struct step_result *b,
			 const struct step_result *p,
			 const struct metric_opts *mo, const char **result)
{
	static const char *const words[] = {
		[METRIC_BETTER] = "fixed",
		[METRIC_NOT_BETTER] = "not fixed",
		[METRIC_UNCLEAR] = "inconclusive",
	};
	const char *unit = *b->unit ? b->unit : p->unit;
	char gain[64] = "";

	*result = "inconclusive";
	if (b->verdict == VERDICT_INFRA || p->verdict == VERDICT_INFRA) {
		snprintf(reason, size, "infrastructure failure: %s",
			 b->verdict == VERDICT_INFRA ? b->title : p->title);
		return EXIT_INFRA;
	}
	if (!b->nvalues || !p->nvalues) {
		const struct step_result *s = b->nvalues ? p : b;

		snprintf(reason, size, "%s the patches: %s",
			 s == b ? "without" : "with", s->title);
		return 4;
	}
	if (metric_compare(mc, b->values, b->nvalues, p->values, p->nvalues,
			   mo->higher, mo->min_change)) {
		snprintf(reason, size, "%s", err_last());
		return 4;
	}
	*result = words[mc->verdict];
	if (mo->min_change > 0)
		snprintf(gain, sizeof(gain), " by %g%% or more",
			 mo->min_change * 100);
	snprintf(reason, size,
		 "%s: %s%s (%s is better); median %g%s%s without the patches "
		 "(%zu values), %g%s%s with them (%zu), a change of %+.1f%% "
		 "(95%% interval %+.1f%% to %+.1f%%)%s",
		 mo->name,
		 mc->verdict == METRIC_BETTER ? "better with the patches"
		 : mc->verdict == METRIC_NOT_BETTER
			 ? "not better with the patches"
			 : "not told apart",
		 gain, mo->higher ? "higher" : "lower", mc->median0,
		 *unit ? " " : "", unit, mc->n0, mc->median1, *unit ? " " : "",
		 unit, mc->n1, mc->change * 100, mc->change_lo * 100,
		 mc->change_hi * 100,
		 mc->verdict == METRIC_UNCLEAR
			 ? "; more runs (--runs) would tell"
			 : "");
	return mc->verdict == METRIC_BETTER	  ? 0
	       : mc->verdict == METRIC_NOT_BETTER ? 1
						  : 4;
}

/*
 * verify: does a patch fix the failure at a commit?  The commit is built
 * and booted without and with the patches, --runs times each.  Exit
 * status 0 fixed, 1 not fixed, 2 bad input, 3 infra, 4 inconclusive.
 */
int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "bad", required_argument, NULL, 'b' },
		{ "patch", required_argument, NULL, 'p' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		KERNEL_LONGOPTS,
		METRIC_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .repo_path = ".", .confidence = -1 };
	const char *result = "", *conflict;
	struct kernel_opts k = { .runs = 1 };
	struct bisect_ctx ctx = { .lock = -1 };
	struct recipe recipe = { 0 };
	struct step_result base = { 0 }, patched = { 0 };
	struct bisect_extra x = { 0 };
	struct patches *const p = &x.apply;
	struct metric_change mc = { 0 };
	struct gu_repo *repo = NULL;
	struct gu_oid oid, poid;
	struct verify_report vr = { 0 };
	char **applied = NULL; /* the patches by subject, as applied */
	size_t napplied = 0;
	struct buf text;
	char reason[2048], phex[GU_HEXSZ + 1], *out = NULL, *src = NULL;
	char *json = NULL;
	int rc = 0, status;

	status = ctl_parse_kernel_args(argc, argv, opts, &c, &k, verify_opt, &x,
				       "verify");
	if (!status &&
	    (conflict = ctl_metric_orphans(x.mo.name, x.dir, x.min_given)))
		status = ctl_usage_error("%s", conflict);
	if (status) {
		ctl_release_patches(p);
		return status;
	}
	buf_init(&text, 1 << 20);
	if (!c.bad || !p->n)
		rc = err_set(ERR_INPUT,
			     "verify needs --bad REV and --patch FILE");
	if (!rc)
		rc = ctl_setup_one_commit(&ctx, &recipe, &k, c.repo_path, c.bad,
					  &repo, &oid);
	if (!rc && !(src = util_fmt("%s/src", ctx.work_dir)))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = util_mkdir_p(src);
	if (!rc)
		rc = mbox_apply_patches(&poid, repo, src, &oid, p->names,
					(const char *const *)p->texts, p->lens,
					p->n, &applied, &napplied);
	if (!rc && !(out = ctl_make_out_dir(c.out)))
		rc = ERR_INFRA;
	if (rc)
		goto fail;
	ctx.out_dir = out;
	ctx.metric = x.mo.name;
	base.exit_code = patched.exit_code = -1;
	base.role = "base";
	patched.role = "patched";
	gu_oid_hex(base.hex, &oid);
	gu_oid_hex(patched.hex, &poid);
	gu_oid_hex(phex, &poid);
	if ((rc = bisect_test(&base, &oid, &ctx)))
		goto fail;
	ctx.sandbox = util_in_path("bwrap"); /* the patches are not ours */
	if (!ctx.sandbox)
		fprintf(stderr,
			"bisectctl: warning: bubblewrap (bwrap) is "
			"not installed: the patched tree builds without "
			"a sandbox\n");
	if ((rc = bisect_test(&patched, &poid, &ctx)))
		goto fail;
	status = x.mo.name ? verify_metric(reason, sizeof(reason), &mc, &base,
					   &patched, &x.mo, &result)
			   : verify_verdict(reason, sizeof(reason), &base,
					    &patched, &result);
	vr.metric = x.mo.name;
	vr.higher = x.mo.higher;
	vr.min_change = x.mo.min_change;
	vr.change = mc.n0 ? &mc : NULL;
	vr.unit = *base.unit ? base.unit : patched.unit;
	vr.result = result;
	vr.reason = reason;
	vr.repo_path = c.repo_path;
	vr.patches = (const char *const *)applied;
	vr.npatches = napplied;
	vr.patched_hex = phex;
	vr.base = &base;
	vr.patched = &patched;
	if (report_verify(&json, &text, &vr)) {
		status = ctl_fail(ERR_NOMEM);
		goto out;
	}
	fputs(buf_str(&text), stdout);
	{
		char *path = util_fmt("%s/verify.json", out);

		if (path)
			util_write_atomic(path, json, strlen(json));
		free(path);
	}
	if (c.json && util_write_atomic(c.json, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	goto out;
fail:
	status = ctl_fail(rc);
out:
	ctl_release_patches(p);
	mbox_names_release(applied, napplied);
	step_result_release(&base);
	step_result_release(&patched);
	ctl_kernel_release(&ctx, &recipe);
	gu_close(repo);
	buf_release(&text);
	free(json);
	free(src);
	free(out);
	return status;
}

/* config FILE: print the kernel config in a file or a kernel package. */
