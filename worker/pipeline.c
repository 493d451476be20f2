// SPDX-License-Identifier: GPL-2.0-only
/*
 * The step pipeline.
 *
 * Design.  A step runs in two directories.  work_dir persists across
 * steps of the same (repository, recipe): src/ is a worktree that
 * gu_checkout() moves from commit to commit, rewriting only the files that
 * differ, and out/build/ is make's O= directory, so that each step
 * rebuilds incrementally (and ccache catches what make does not).  The
 * build writes only out/ (sandbox.c); the worker reads from it without
 * following links, and boots its own copy of the image (work_dir/image).  step_dir is the
 * step's own: build.log, config, console-N.log, qemu-N.log.
 *
 *   checkout --fail--> infra
 *   config   --fail--> skip   (the commit's Kconfig does not work;
 *                              infra if make could not run at all)
 *   build    --fail--> skip   (with the first compiler error)
 *   boot x runs: any infra -> infra; any bad -> bad; all good -> good
 *
 * A bisection's builds are reproducible: the user and host are fixed,
 * and the caller fixes the build number, timestamp and local version
 * (steprun.c: #1, a fixed date, no "+" from the worktree's git state),
 * so one tree gives one image.  A recipe without modules keeps its images in the kernel cache
 * (kcache.c), keyed by the tree: a step whose tree was built before, in
 * this job or another, skips checkout, config and build and boots the
 * cached image.  Every step reports its image's SHA-256, which is how a
 * culprit that does not change the built kernel is recognised.
 *
 * Nothing here decides what a failure to run means for the bisection:
 * that is the caller's business.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "digest.h"
#include "error.h"
#include "job.h"
#include "kcache.h"
#include "util.h"
#include "boot.h"
#include "build.h"
#include "compile_helpers.h"
#include "initramfs.h"
#include "kcache.h"
#include "kconfig.h"
#include "pipeline.h"
#include "sandbox.h"

struct live {
	const char *what;
	int on;
};

static void live_tick(double elapsed, void *payload)
{
	static const char spin[] = "|/-\\";
	struct live *l = payload;
	int s = (int)elapsed;

	if (!l->on)
		return;
	fprintf(stderr, "\r  %s %d:%02d %c ", l->what, s / 60, s % 60,
		spin[s % 4]);
	fflush(stderr);
}

static void live_done(struct live *l)
{
	if (l->on)
		fprintf(stderr, "\r%*s\r", 40, "");
}

static char *ccache_dir_env(void)
{
	char *dir, *s;

	if (getenv("CCACHE_DIR"))
		return NULL;
	dir = util_ccache_dir();
	s = dir ? util_fmt("CCACHE_DIR=%s", dir) : NULL;
	free(dir);
	return s;
}

/* The length of the directory that holds both a and b ("/" is 0). */
static size_t common_dir(const char *a, const char *b)
{
	size_t i, last = 0;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	return last;
}

/*
 * CCACHE_BASEDIR: the directory that holds both src and build, so that
 * the compiler sees paths relative to the build directory
 * ("../src/kernel/fork.c") and two work directories of the same tree
 * and config share their cache entries.  NULL when the environment
 * already names one.
 */
static char *ccache_basedir_env(const char *src, const char *build)
{
	size_t last = common_dir(src, build);

	if (getenv("CCACHE_BASEDIR"))
		return NULL;
	return util_fmt("CCACHE_BASEDIR=%.*s", last ? (int)last : 1, src);
}

/*
 * With CCACHE_BASEDIR, ccache hands the compiler the source's path
 * relative to the build directory, but not the path in the kernel's own
 * -fmacro-prefix-map=$(srctree)/=, so __FILE__ (BUG and WARN messages)
 * would read "../src/mm/slub.c" instead of "mm/slub.c".  This adds the
 * map for the relative path: KCPPFLAGS=-fmacro-prefix-map=../src/=.
 */
static char *macro_map_arg(const char *src, const char *build)
{
	size_t i, last = common_dir(src, build);
	struct buf b;

	buf_init(&b, 8192);
	buf_puts(&b, "KCPPFLAGS=-fmacro-prefix-map=");
	for (i = last; build[i]; i++)
		if (build[i] == '/' && build[i + 1])
			buf_puts(&b, "../");
	buf_printf(&b, "%s/=", src + last + 1);
	return buf_detach(&b);
}

/*
 * Run make in src with O=build; 0 when it succeeded.  With compile
 * helpers (hs, NULL for none), ccache hands its misses to distcc and -j
 * grows by the helpers' slots.
 */
static int make_env(const struct step_spec *s, const char *src,
		    const char *build, const char *targets, const char *log,
		    struct proc_result *pr, const char *extra_env,
		    const struct helpers *hs, int slots)
{
	const char *argv[SANDBOX_WORDS + 80];
	char *o = util_fmt("O=%s", build),
	     *arch = util_fmt("ARCH=%s", s->recipe->arch),
	     *lv = s->localversion
			   ? util_fmt("LOCALVERSION=%s", s->localversion)
			   : NULL;
	char *bv = s->build_version ? util_fmt("KBUILD_BUILD_VERSION=%s",
					       s->build_version)
				    : NULL,
	     *ts = s->build_timestamp ? util_fmt("KBUILD_BUILD_TIMESTAMP=%s",
						 s->build_timestamp)
				      : NULL;
	char jobs[32], *t = strdup(targets), *tok, *save = NULL;
	char *ccenv = ccache_dir_env(),
	     *basedir = ccache_basedir_env(src, build),
	     *map = basedir ? macro_map_arg(src, build) : NULL,
	     /* distcc's locks and state: in a sandbox, the build user's
	      * out/, the only part of the work directory it may write */
		     *ddir = s->sandbox && hs && !hs->icecc
				     ? util_fmt("DISTCC_DIR=%s/" SANDBOX_DISTCC,
						s->work_dir)
				     : NULL;
	char net[4200];
	const char *env[8] = { NULL };
	int ccache = util_in_path("ccache");
	struct live l = { "building", s->live };
	struct proc_opts opts = { .log_path = log,
				  .append = 1,
				  .env = env,
				  .tick = live_tick,
				  .payload = &l,
				  .timeout_s = s->sandbox ? s->timeout_s : 0,
				  .max_procs = s->sandbox ? s->max_procs : 0 };
	size_t n = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	{
		const char *all[] = {
			ccenv,
			basedir,
			extra_env,
			hs ? hs->env[0] : NULL,
			hs ? hs->env[1] : NULL,
			ddir ? ddir
			: hs ? hs->env[2]
			     : NULL,
			hs && ccache ? (hs->icecc ? "CCACHE_PREFIX=icecc"
						  : "CCACHE_PREFIX=distcc")
				     : NULL
		};
		size_t k, ne = 0;

		for (k = 0; k < sizeof(all) / sizeof(*all); k++)
			if (all[k])
				env[ne++] = all[k];
		if (!ne)
			opts.env = NULL;
	}
	snprintf(jobs, sizeof(jobs), "-j%ld", (ncpu > 0 ? ncpu : 1) + slots);
	if (s->sandbox &&
	    (rc = sandbox_argv(argv, &n, s->work_dir, hs ? hs->netns : NULL)))
		goto out;
	if (!s->sandbox && hs && hs->netns) /* icecc's compile servers */
		n += sandbox_netns_words(argv + n, net, sizeof(net), hs->netns);
	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = src;
	argv[n++] = o;
	argv[n++] = arch;
	argv[n++] = jobs;
	if (ccache)
		argv[n++] = "CC=ccache gcc";
	else if (hs)
		argv[n++] = hs->icecc ? "CC=icecc gcc" : "CC=distcc gcc";
	if (map)
		argv[n++] = map;
	argv[n++] = "KBUILD_BUILD_USER=bisectd";
	argv[n++] = "KBUILD_BUILD_HOST=bisectd";
	if (ts)
		argv[n++] = ts;
	if (lv)
		argv[n++] = lv;
	if (bv)
		argv[n++] = bv;
	for (tok = strtok_r(t, " ", &save);
	     tok && n < sizeof(argv) / sizeof(*argv) - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	rc = proc_run(pr, argv, &opts);
	live_done(&l);
out:
	free(o);
	free(arch);
	free(lv);
	free(bv);
	free(ts);
	free(t);
	free(ccenv);
	free(basedir);
	free(map);
	free(ddir);
	return rc;
}

static int make(const struct step_spec *s, const char *src, const char *build,
		const char *targets, const char *log, struct proc_result *pr)
{
	return make_env(s, src, build, targets, log, pr, NULL, NULL, 0);
}

int pipeline_make(const struct step_spec *s, const char *targets,
		  const char *env, const char *log, struct proc_result *pr)
{
	char *src = util_fmt("%s/src", s->work_dir),
	     *build = util_fmt("%s/" SANDBOX_OUT "/build", s->work_dir);
	int rc = src && build ? make_env(s, src, build, targets, log, pr, env,
					 NULL, 0)
			      : err_set(ERR_NOMEM, "out of memory");

	free(src);
	free(build);
	return rc;
}

static void set_text(char **dst, const char *src)
{
	free(*dst);
	*dst = strdup(src ? src : "");
}

static int do_build(struct pipeline_result *out, const struct step_spec *s,
		    const char *src, const char *build, const char *moddir)
{
	/* the worker's helpers, else the recipe's */
	int worker = s->distcc || s->icecc;
	const char *spec = worker ? s->distcc : s->recipe->distcc,
		   *icecc = worker ? s->icecc : s->recipe->icecc;
	struct helpers hs = { 0 };
	struct proc_result pr;
	struct buf log, notes;
	double t0 = util_now();
	char *err, *dir = NULL;
	int rc = 0, slots = 0;

	buf_init(&notes, 1u << 16);
	if (icecc)
		rc = helpers_parse_icecc(&hs, icecc);
	else if (spec)
		rc = helpers_parse(&hs, spec);
	if ((spec || icecc) && !rc) {
		dir = util_fmt("%s/helpers", s->work_dir);
		if (dir)
			slots = helpers_start(&hs, dir, &notes);
		else
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc)
		rc = make_env(s, src, build,
			      s->build_targets ? s->build_targets
					       : s->recipe->targets,
			      out->build_log, &pr, NULL, slots ? &hs : NULL,
			      slots);
	helpers_stop(&hs, &notes);
	helpers_release(&hs);
	free(dir);
	out->build_notes = buf_detach(&notes);
	if (!rc && pr.exited && pr.status == 0 && s->recipe->modules) {
		char *target = util_fmt("modules_install INSTALL_MOD_STRIP=1 "
					"INSTALL_MOD_PATH=%s",
					moddir);

		util_remove_tree(moddir);
		rc = target ? make(s, src, build, target, out->build_log, &pr)
			    : err_set(ERR_NOMEM, "out of memory");
		free(target);
	}
	out->build_s = util_now() - t0;
	if (rc || pr.exec_failed) {
		out->verdict = VERDICT_INFRA;
		set_text(&out->title, err_last());
		return 1;
	}
	if (pr.exited && pr.status == 0)
		return 0;
	if (pr.timed_out) {
		/* the tree's own make: untestable, not the machine's fault */
		out->verdict = VERDICT_SKIP;
		free(out->title);
		out->title = util_fmt("build failed: make timed out after "
				      "%.0f s",
				      s->timeout_s);
		return 1;
	}
	buf_init(&log, 64u << 20);
	buf_read_file(&log, out->build_log);
	err = build_first_error(buf_str(&log));
	out->verdict = VERDICT_SKIP;
	free(out->title);
	out->title = util_fmt("build failed: %s",
			      err ? err : "make exited with an error");
	set_text(&out->excerpt, err);
	free(err);
	buf_release(&log);
	return 1;
}

/* Add one run's verdict and title to the step's run_results. */
static void add_run(struct buf *runs, enum verdict v, const char *title)
{
	char *q = json_quote(title ? title : "");

	buf_printf(runs, "%s{\"verdict\":\"%s\",\"title\":%s}",
		   runs->len > 1 ? "," : "", verdict_name(v), q ? q : "\"\"");
	free(q);
}

/*
 * Boot runs times and fold the verdicts: infra > bad > good.  Each run's
 * own verdict and title go to run_results: a run is an observation of
 * its own, and two runs may fail differently.
 */
static int do_boots(struct pipeline_result *out, const struct step_spec *s,
		    const char *kernel, const char *initrd)
{
	struct buf runs;
	double total = 0;
	int i;

	buf_init(&runs, 1 << 20);
	buf_puts(&runs, "[");
	for (i = 1; i <= s->runs; i++) {
		struct classify_input in = { .marker = s->recipe->marker,
					     .fail_on = s->recipe->fail_on,
					     .timeout_s =
						     s->recipe->boot_timeout };
		struct classification c;
		struct boot_result b;
		char *why;
		char *con = util_fmt("%s/console-%d.log", s->step_dir, i);
		char *qlog = util_fmt("%s/qemu-%d.log", s->step_dir, i);
		int rc = con && qlog ? boot_run(&b, s->recipe, kernel, initrd,
						con, qlog)
				     : err_set(ERR_NOMEM, "out of memory");

		free(qlog);
		if (rc) {
			free(con);
			out->verdict = VERDICT_INFRA;
			set_text(&out->title, err_last());
			buf_release(&runs);
			return 1;
		}
		out->accel = b.accel;
		total += b.seconds;
		in.console = b.console;
		in.end = b.end;
		rc = classify_console(&c, &in);
		why = b.why;
		b.why = NULL;
		boot_result_release(&b);
		if (rc) {
			free(con);
			buf_release(&runs);
			return rc;
		}
		add_run(&runs, c.verdict, c.title);
		out->runs_done = i;
		if (c.verdict != VERDICT_GOOD)
			out->runs_failed++;
		/* boot verdicts rank good < bad < infra; keep the worst run */
		if (c.verdict > out->verdict) {
			out->verdict = c.verdict;
			set_text(&out->title, c.title);
			if (why) {
				free(out->title);
				out->title = util_fmt("%s: %s", c.title, why);
			}
			set_text(&out->excerpt, c.excerpt);
			free(out->console_log);
			out->console_log = con;
			con = NULL;
		}
		free(con);
		free(why);
		classification_release(&c);
		if (out->verdict == VERDICT_INFRA)
			break;
	}
	out->boot_s = out->runs_done ? total / out->runs_done : 0;
	free(out->run_results);
	out->run_results = buf_puts(&runs, "]") ? NULL : buf_detach(&runs);
	buf_release(&runs);
	return 0;
}

/* A path whose change can change the generated .config. */
static int affects_config(const char *path, void *payload)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(path);

	(void)payload;
	base = base ? base + 1 : path;
	return !strncmp(base, "Kconfig", 7) ||
	       !strncmp(path, "scripts/kconfig/", 16) ||
	       (n > 7 && !strcmp(path + n - 7, ".config")) ||
	       !strcmp(path, "Makefile");
}

/*
 * What the config of a step depends on besides the tree: the recipe's
 * base (and the base file's contents), arch and fragments, not its boot
 * settings.
 */
static unsigned long long recipe_hash(const struct recipe *r)
{
	unsigned long long h;
	struct buf b;
	size_t i;

	buf_init(&b, 16u << 20);
	buf_printf(&b, "%s\n%s\n", r->base, r->arch);
	if (strchr(r->base, '/'))
		buf_read_file(&b, r->base); /* a distro config file */
	for (i = 0; i < r->nfragments; i++) {
		buf_printf(&b, "%s\n", r->fragments[i]);
		buf_read_file(&b, r->fragments[i]);
	}
	h = util_hash(buf_str(&b), b.len);
	buf_release(&b);
	return h;
}

/*
 * 1 when the .config in build_dir was made by this recipe at a commit
 * that differs from this one in nothing that can change the config: then
 * the config step is skipped, and make sees an unchanged .config.
 */
static int config_is_current(const struct step_spec *s, const char *stamp,
			     unsigned long long hash, const char *dotconfig)
{
	unsigned long long old_hash;
	char hex[GU_HEXSZ + 1];
	struct gu_oid old;
	struct buf b;
	int ok = 0;

	if (access(dotconfig, R_OK))
		return 0;
	buf_init(&b, 4096);
	if (!buf_read_file(&b, stamp) &&
	    sscanf(buf_str(&b), "%llx %40s", &old_hash, hex) == 2 &&
	    old_hash == hash && !gu_oid_parse(&old, hex))
		ok = gu_changed_paths(s->repo, &old, &s->commit, affects_config,
				      NULL) == 0;
	buf_release(&b);
	return ok;
}

static void write_stamp(const struct step_spec *s, const char *stamp,
			unsigned long long hash)
{
	char hex[GU_HEXSZ + 1], line[128];

	gu_oid_hex(hex, &s->commit);
	snprintf(line, sizeof(line), "%llx %s\n", hash, hex);
	util_write_atomic(stamp, line, strlen(line));
}

static int do_config(struct pipeline_result *out, const struct step_spec *s,
		     const char *src, const char *build, struct buf *notes)
{
	char *stamp = util_fmt("%s/config.stamp", s->work_dir);
	char *dotconfig = util_fmt("%s/.config", build);
	unsigned long long hash = recipe_hash(s->recipe);
	double t0 = util_now();
	int rc = 0;

	if (!stamp || !dotconfig) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (config_is_current(s, stamp, hash, dotconfig))
		goto out; /* no Kconfig or recipe change since the last step */
	unlink(stamp);
	rc = kconfig_prepare(s->recipe, src, build, out->build_log, notes,
			     s->work_dir, s->sandbox ? s->timeout_s : -1,
			     s->max_procs);
	if (!rc)
		write_stamp(s, stamp, hash);
out:
	out->config_s = util_now() - t0;
	free(stamp);
	free(dotconfig);
	return rc;
}

/*
 * The kernel cache's key for this step, or 0 when the step's kernel is
 * not cached (a recipe with modules, a build job's own targets).
 */
static int cache_key(char key[KCACHE_KEYSZ + 1], const struct step_spec *s)
{
	char tree[GU_HEXSZ + 1];
	struct kcache_inputs in = { .tree = tree,
				    .image = s->recipe->image,
				    .targets = s->recipe->targets,
				    .localversion = s->localversion,
				    .build_version = s->build_version,
				    .tenant = s->tenant };

	if (!kcache_enabled() || s->recipe->modules || s->build_targets ||
	    s->uncached || !s->build_timestamp)
		return 0;
	if (gu_tree_hex(s->repo, &s->commit, tree)) {
		/* a patched or reverted commit: the work tree's repository
		 * has it */
		char *src = util_fmt("%s/src", s->work_dir);
		struct gu_repo *w = NULL;
		int rc = src ? gu_open_worktree(&w, src) : ERR_NOMEM;

		if (!rc)
			rc = gu_tree_hex(w, &s->commit, tree);
		gu_close(w);
		free(src);
		if (rc)
			return 0;
	}
	in.recipe_hash = recipe_hash(s->recipe);
	return kcache_key(key, &in) == 0;
}

int pipeline_run(struct pipeline_result *out, const struct step_spec *s)
{
	char key[KCACHE_KEYSZ + 1];
	struct kcache_entry hit = { 0 };
	int cacheable = cache_key(key, s);
	char *src = util_fmt("%s/src", s->work_dir);
	char *build = util_fmt("%s/" SANDBOX_OUT "/build", s->work_dir);
	char *moddir = util_fmt("%s/" SANDBOX_OUT "/modroot", s->work_dir);
	char *kernel = NULL, *initrd = NULL, *config = NULL, *built = NULL;
	struct buf notes, cfg;
	double t0;
	int rc;

	memset(out, 0, sizeof(*out));
	buf_init(&notes, 1 << 20);
	buf_init(&cfg, 64u << 20);
	out->title = strdup("");
	out->excerpt = strdup("");
	out->build_log = util_fmt("%s/build.log", s->step_dir);
	out->config_path = util_fmt("%s/config", s->step_dir);
	if (!src || !build || !moddir || !out->title || !out->excerpt ||
	    !out->build_log || !out->config_path) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = util_mkdir_p(s->step_dir)) || (rc = util_mkdir_p(src)))
		goto out;
	unlink(out->build_log);

	if (cacheable && kcache_lookup(&hit, key)) {
		/* this tree was built before: boot that image */
		char *note = util_fmt("the kernel came from the kernel cache "
				      "(%s), image sha256 %s: nothing was "
				      "built for this step\n",
				      hit.image, hit.sha256);

		if (note)
			util_write_atomic(out->build_log, note, strlen(note));
		free(note);
		out->build_cached = 1;
		memcpy(out->image_sha256, hit.sha256, sizeof(hit.sha256));
		if (!buf_read_file(&cfg, hit.config))
			util_write_atomic(out->config_path, cfg.ptr, cfg.len);
		kernel = hit.image;
		hit.image = NULL;
		goto boot;
	}
	t0 = util_now();
	if ((rc = gu_checkout(s->repo, src, &s->commit))) {
		/* a tree that no checkout may write is untestable */
		out->verdict = rc == ERR_INPUT ? VERDICT_SKIP : VERDICT_INFRA;
		set_text(&out->title, err_last());
		rc = 0;
		goto out;
	}
	out->checkout_s = util_now() - t0;

	rc = do_config(out, s, src, build, &notes);
	out->config_notes = buf_detach(&notes);
	if (rc == ERR_GENERIC) {
		/* make *config failed on this commit's Kconfig files */
		rc = 0;
		out->verdict = VERDICT_SKIP;
		free(out->title);
		out->title = util_fmt("config failed: %s", err_last());
		goto out;
	}
	if (rc == ERR_INFRA) {
		rc = 0;
		out->verdict = VERDICT_INFRA;
		set_text(&out->title, err_last());
		goto out;
	}
	if (rc)
		goto out;
	/* the build's files are read without following its links, and
	 * what boots is the worker's copy of its image */
	config = util_fmt("%s/.config", build);
	if (config && !beneath_read(&cfg, s->work_dir, config))
		util_write_atomic(out->config_path, cfg.ptr, cfg.len);

	if (do_build(out, s, src, build, moddir))
		goto out;

	built = util_fmt("%s/%s", build, s->recipe->image);
	kernel = util_fmt("%s/" SANDBOX_IMAGE, s->work_dir);
	if (!built || !kernel || beneath_copy(s->work_dir, built, kernel) ||
	    digest_file_hex(out->image_sha256, kernel)) {
		out->verdict = VERDICT_INFRA;
		set_text(&out->title,
			 built && kernel ? err_last() : "out of memory");
		goto out;
	}
	if (cacheable && config)
		kcache_store(key, kernel, out->config_path, out->image_sha256);
boot:
	/* in work_dir, not step_dir: with modules it is large, and each
	 * step would keep one */
	initrd = util_fmt("%s/initramfs.cpio", s->work_dir);
	if (!kernel || !initrd) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (initramfs_write(initrd, s->recipe->init, s->test_script,
			    s->recipe->modules ? moddir : NULL)) {
		out->verdict = VERDICT_INFRA;
		set_text(&out->title, err_last());
		goto out;
	}
	rc = do_boots(out, s, kernel, initrd);
out:
	if (!out->config_notes)
		out->config_notes = buf_detach(&notes);
	buf_release(&cfg);
	free(src);
	free(build);
	free(moddir);
	free(kernel);
	free(built);
	free(initrd);
	free(config);
	kcache_entry_release(&hit);
	return rc;
}

void pipeline_result_release(struct pipeline_result *r)
{
	free(r->title);
	free(r->excerpt);
	free(r->build_log);
	free(r->console_log);
	free(r->config_path);
	free(r->config_notes);
	free(r->build_notes);
	free(r->run_results);
	memset(r, 0, sizeof(*r));
}

/* uname -v's date in a bisection's kernels: fixed, so builds repeat */
#define STEP_TIMESTAMP "Sun Jan 1 00:00:00 UTC 2023"

static char *take(char **p)
{
	char *s = *p;

	*p = NULL;
	return s;
}

int pipeline_step(struct step_result *st, const struct step_spec *spec)
{
	struct step_spec s = *spec;
	struct pipeline_result r;
	int rc;

	/* reproducible: one tree, one image (pipeline.c) */
	if (!s.localversion)
		s.localversion = "";
	if (!s.build_version)
		s.build_version = "1";
	if (!s.build_timestamp)
		s.build_timestamp = STEP_TIMESTAMP;
	rc = pipeline_run(&r, &s);

	if (rc) {
		pipeline_result_release(&r);
		return rc;
	}
	st->verdict = r.verdict;
	st->title = take(&r.title);
	st->excerpt = take(&r.excerpt);
	st->checkout_s = r.checkout_s;
	st->config_s = r.config_s;
	st->build_s = r.build_s;
	st->boot_s = r.boot_s;
	st->runs = r.runs_done ? r.runs_done : s.runs;
	st->runs_failed = r.runs_failed;
	st->console_log = take(&r.console_log);
	st->build_log = take(&r.build_log);
	st->config_notes = take(&r.config_notes);
	st->build_notes = take(&r.build_notes);
	st->config_path = take(&r.config_path);
	st->accel = r.accel;
	st->build_cached = r.build_cached;
	st->run_results = take(&r.run_results);
	memcpy(st->image_sha256, r.image_sha256, sizeof(st->image_sha256));
	pipeline_result_release(&r);
	return 0;
}

int pipeline_measure(struct step_result *st, const char *step_dir,
		     const char *name)
{
	struct buf b;
	int i, rc = 0;

	buf_init(&b, 64 << 20);
	for (i = 1; st->verdict == VERDICT_GOOD && !rc && i <= st->runs; i++) {
		char *con = util_fmt("%s/console-%d.log", step_dir, i);

		rc = con ? buf_read_file(&b, con)
			 : err_set(ERR_NOMEM, "out of memory");
		free(con);
	}
	if (!rc)
		rc = step_result_measure(st, b.ptr ? b.ptr : "", b.len, name);
	buf_release(&b);
	return rc;
}
