// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl releases: the first bad Debian release, then Debian's
 * patches and the upstream commits between the two.
 */
#define _GNU_SOURCE
#include "ctl.h"

/* releases --repo: the commit-level bisection, as bisectctl bisect. */
static int releases_commits(const struct releases_opts *o, const char *good,
			    const char *bad, const char *recipe,
			    const char *json, const char *out_dir)
{
	char conf[32];
	const char *argv[24];
	int argc = 0;

	argv[argc++] = "bisect";
	argv[argc++] = "--repo";
	argv[argc++] = o->repo;
	argv[argc++] = "--good";
	argv[argc++] = good;
	argv[argc++] = "--bad";
	argv[argc++] = bad;
	argv[argc++] = "--recipe";
	argv[argc++] = recipe;
	argv[argc++] = "--json";
	argv[argc++] = json;
	argv[argc++] = "--out";
	argv[argc++] = out_dir;
	if (o->test) {
		argv[argc++] = "--test";
		argv[argc++] = o->test;
	}
	if (o->confidence > 0) {
		snprintf(conf, sizeof(conf), "%g", o->confidence);
		argv[argc++] = "--confidence";
		argv[argc++] = conf;
	}
	argv[argc] = NULL;
	optind = 0; /* getopt starts over for the command's own options */
	return cmd_bisect(argc, (char **)argv);
}

/* The releases job's request: the releases, flavour, runs, confidence,
 * manual and recipe of ro. */
static int releases_spec(struct job_spec *spec, const struct releases_opts *ro,
			 const char *recipe_name)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->type, sizeof(spec->type), "releases");
	spec->runs = ro->runs;
	spec->confidence = ro->confidence;
	spec->manual = ro->manual;
	spec->flavour = strdup(ro->flavour);
	spec->bad = strdup(ro->bad);
	spec->good[spec->ngood++] = strdup(ro->good);
	spec->recipe = strdup(recipe_name);
	if (!spec->flavour || !spec->bad || !spec->good[0] || !spec->recipe)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
}

/* releases --server: bisectd's releases job, which a worker runs. */
static int releases_remote(const struct releases_opts *ro,
			   const char *recipe_name, char *test)
{
	struct job_spec spec;
	struct buf t;
	int rc = 0;

	rc = releases_spec(&spec, ro, recipe_name);
	if (!rc && ro->repo) {
		/* the repository as bisectd sees it: a URL or this
		 * machine's absolute path */
		char real[PATH_MAX];

		spec.repo = strdup(strstr(ro->repo, "://") ||
						   !realpath(ro->repo, real)
					   ? ro->repo
					   : real);
		spec.commit_recipe =
			ro->commit_recipe ? strdup(ro->commit_recipe) : NULL;
		if (!spec.repo || (ro->commit_recipe && !spec.commit_recipe))
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc && test) {
		buf_init(&t, 1 << 20);
		rc = buf_read_file(&t, test);
		if (rc)
			buf_release(&t);
		else
			spec.test = buf_detach(&t);
	}
	if (!rc)
		rc = remote_run(ctl_server, ctl_token, &spec, ro->json, stderr);
	else
		rc = ctl_fail(rc);
	job_spec_release(&spec);
	free(test);
	return rc;
}

/*
 * releases --server with --manual or --continue: bisectd's manual
 * releases job, whose id is kept in CACHE/releases/manual-remote.json
 * between the answers.
 */
static int releases_remote_manual(const struct releases_opts *ro,
				  const char *recipe_name)
{
	char *cache = util_cache_dir(), *dir = NULL, *state = NULL;
	struct job_spec spec;
	int rc = cache ? 0 : ERR_INFRA;

	memset(&spec, 0, sizeof(spec));
	if (!rc) {
		dir = util_fmt("%s/releases", cache);
		state = util_fmt("%s/releases/manual-remote.json", cache);
		rc = dir && state ? util_mkdir_p(dir)
				  : err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc && ro->manual)
		rc = releases_spec(&spec, ro, recipe_name);
	if (!rc)
		rc = remote_manual(
			ctl_server, ctl_token, ro->manual ? &spec : NULL,
			ro->continue_verdict, state, ro->json, stderr);
	else
		rc = ctl_fail(rc);
	job_spec_release(&spec);
	free(cache);
	free(dir);
	free(state);
	return rc;
}

/*
 * Bisect Debian's released kernels of one flavour: fetched with APT,
 * booted in QEMU.
 */
int cmd_releases(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flavour", required_argument, NULL, 'f' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "test", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "recipe", required_argument, NULL, 'c' },
		{ "confidence", required_argument, NULL, 'p' },
		{ "manual", no_argument, NULL, 'm' },
		{ "continue", required_argument, NULL, 'C' },
		{ "repo", required_argument, NULL, 'r' },
		{ "commit-recipe", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct releases_opts ro = { .runs = 1,
				    .confidence = 0.95,
				    .bisect_commits = releases_commits };
	const char *recipe_name = "debian-cloud-amd64", *out = NULL;
	struct recipe recipe;
	char *end, *dir = NULL, *cache = NULL, *test = NULL;
	int opt, rc, found = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			ro.flavour = optarg;
			break;
		case 'g':
			ro.good = optarg;
			break;
		case 'b':
			ro.bad = optarg;
			break;
		case 't':
			ro.test = optarg;
			break;
		case 'n':
			ro.runs = (int)strtol(optarg, &end, 10);
			if (*end || ro.runs < 1 || ro.runs > 100)
				return ctl_usage_error("--runs: '%s' is not a "
						       "number from 1 to 100",
						       optarg);
			break;
		case 'j':
			ro.json = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			recipe_name = optarg;
			break;
		case 'p':
			ro.confidence = strtod(optarg, &end);
			if (*end || !(ro.confidence >= 0 && ro.confidence < 1))
				return ctl_usage_error(
					"--confidence: '%s' is not "
					"a probability below 1",
					optarg);
			break;
		case 'r':
			ro.repo = optarg;
			break;
		case 'R':
			ro.commit_recipe = optarg;
			break;
		default:
			return ctl_usage_error("bad option for releases");
		case 'm':
			ro.manual = 1;
			break;
		case 'C':
			if (strcmp(optarg, "good") && strcmp(optarg, "bad") &&
			    strcmp(optarg, "skip"))
				return ctl_usage_error(
					"--continue takes good, bad "
					"or skip, not '%s'",
					optarg);
			ro.continue_verdict = optarg;
			break;
		}
	}
	if (optind != argc)
		return ctl_usage_error("releases takes no arguments");
	if (ro.continue_verdict &&
	    (ro.flavour || ro.good || ro.bad || ro.manual || ro.test))
		return ctl_usage_error("--continue takes the rest from the "
				       "bisection it continues");
	if (!ro.continue_verdict && (!ro.flavour || !ro.good || !ro.bad))
		return ctl_usage_error(
			"releases needs --flavour, --good and --bad");
	if (ro.manual && ro.test)
		return ctl_usage_error("--manual boots nothing: no --test");
	if ((ro.manual || ro.continue_verdict) && ro.repo)
		return ctl_usage_error("--manual boots nothing: no --repo");
	if (ro.commit_recipe && !ro.repo)
		return ctl_usage_error("--commit-recipe is for the commits of "
				       "--repo");
	if (ro.repo && !(ctl_server && strstr(ro.repo, "://"))) {
		struct gu_repo *r;

		rc = gu_open(&r, ro.repo);
		if (rc)
			return ctl_fail(rc);
		gu_close(r);
	}
	if (!ro.continue_verdict && !job_flavour_ok(ro.flavour))
		return ctl_usage_error(
			"--flavour: '%s' is not a flavour such as "
			"cloud-amd64 ([a-z0-9-], from a letter or "
			"digit)",
			ro.flavour);
	if (!ro.continue_verdict &&
	    (!job_release_ok(ro.good) || !job_release_ok(ro.bad)))
		return ctl_usage_error("--good and --bad take releases such as "
				       "6.1.0-47 ([0-9.-], from a digit)");
	if (ctl_server && (ro.manual || ro.continue_verdict))
		return releases_remote_manual(&ro, recipe_name);
	if (ro.test) {
		test = realpath(ro.test, NULL);
		if (!test)
			return ctl_usage_error("--test: cannot read '%s'",
					       ro.test);
		ro.test = test;
	}
	if (ctl_server)
		return releases_remote(&ro, recipe_name, test);
	rc = ctl_load_recipe(&recipe, recipe_name);
	if (rc) {
		free(test);
		return ctl_fail(rc);
	}
	ro.recipe = &recipe;
	dir = ctl_make_out_dir(out);
	cache = util_cache_dir();
	if (!dir || !cache)
		rc = dir ? err_set(ERR_NOMEM, "out of memory") : ERR_INFRA;
	ro.out_dir = dir;
	ro.cache = cache;
	if (!rc)
		rc = releases_bisect(&ro, &found);
	if (!rc)
		fprintf(stderr, "output: %s\n", dir);
	recipe_release(&recipe);
	free(dir);
	free(cache);
	free(test);
	if (rc)
		return ctl_fail(rc);
	return found ? EXIT_FOUND : EXIT_AMBIGUOUS;
}
