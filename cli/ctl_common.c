// SPDX-License-Identifier: GPL-2.0-only
/*
 * What bisectctl's commands share: exit statuses and errors, the options
 * of run and bisect, a job's spec from them, a run in-process (the
 * coordinator's session, embedded) or on a bisectd (--server), and the
 * output directory.
 */
#define _GNU_SOURCE
#include <math.h>

#include "ctl.h"
#include "measure.h"

/* bisectctl --server URL [--token T]: jobs go to that bisectd. */
const char *ctl_server, *ctl_token;

static int exit_for(int rc)
{
	if (rc == ERR_INPUT || rc == ERR_NOTFOUND)
		return EXIT_INPUT;
	return EXIT_INFRA;
}

int ctl_fail(int rc)
{
	fprintf(stderr, "bisectctl: %s\n", err_last());
	return exit_for(rc);
}

int ctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bisectctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see bisectctl help)\n");
	return EXIT_INPUT;
}

/* Parse one common option; 1 if it was one, 0 if not, -1 on error. */
int ctl_common_opt(struct common *c, int opt, const char *arg)
{
	switch (opt) {
	case 'r':
		c->repo_path = arg;
		return 1;
	case 'g':
		if (c->ngoods == sizeof(c->goods) / sizeof(c->goods[0]))
			return -1;
		c->goods[c->ngoods++] = arg;
		return 1;
	case 'b':
		if (c->bad)
			return -1;
		c->bad = arg;
		return 1;
	case 'j':
		c->json = arg;
		return 1;
	case 'o':
		c->out = arg;
		return 1;
	case 'R':
		c->replay = arg;
		return 1;
	case OPT_FIX:
		c->fix = 1;
		return 1;
	case OPT_MAIL_FROM:
		if (mail_address_check(arg)) {
			err_wrap(ERR_INPUT, "--mail-from");
			return -1;
		}
		c->mail_from = arg;
		return 1;
	case OPT_CONFIDENCE: {
		char *end;

		c->confidence = strtod(arg, &end);
		if (*end || end == arg ||
		    !(c->confidence == 0 ||
		      (c->confidence >= 0.5 && c->confidence < 1))) {
			err_set(ERR_INPUT,
				"--confidence needs 0 (git's bisection) or a "
				"probability from 0.5 to below 1, not '%s'",
				arg);
			return -1;
		}
		return 1;
	}
	case OPT_FAILURE: {
		regex_t re;

		if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB)) {
			err_set(ERR_INPUT,
				"--failure needs an extended regular "
				"expression, not '%s'",
				arg);
			return -1;
		}
		regfree(&re);
		c->failure = arg;
		return 1;
	}
	case OPT_MAX_RUNS:
	case OPT_ENDPOINT_RUNS: {
		char *end;
		long n = strtol(arg, &end, 10);

		if (*end || n < 1 || n > (opt == OPT_MAX_RUNS ? 100000 : 100)) {
			err_set(ERR_INPUT,
				"--%s needs a number from 1 to %d, "
				"not '%s'",
				opt == OPT_MAX_RUNS ? "max-runs"
						    : "endpoint-runs",
				opt == OPT_MAX_RUNS ? 100000 : 100, arg);
			return -1;
		}
		*(opt == OPT_MAX_RUNS ? &c->max_runs : &c->endpoint_runs) =
			(int)n;
		return 1;
	}
	case 'W': {
		char *end;

		c->workers = (int)strtol(arg, &end, 10);
		if (*end || c->workers < 1 || c->workers > 64) {
			err_set(ERR_INPUT,
				"--workers needs a number from 1 to 64, not "
				"'%s'",
				arg);
			return -1;
		}
		return 1;
	}
	}
	return 0;
}

/* A bisect log's own words for old and new ("git bisect start
 * '--term-old=broken' '--term-new=fixed'", or the terms as separate
 * arguments, or --term-good and --term-bad), into old and new. */
static void log_terms(const char *line, char old[32], char new[32])
{
	const char *p = line + strlen("git bisect start");
	char *want = NULL;

	while (*p && *p != '\n') {
		char tok[32];
		size_t n = 0;

		p += strspn(p, " \t");
		for (; *p && *p != ' ' && *p != '\t' && *p != '\n'; p++)
			if (*p != '\'' && n + 1 < sizeof(tok))
				tok[n++] = *p;
		tok[n] = '\0';
		if (!n)
			break;
		if (want) {
			snprintf(want, 32, "%s", tok);
			want = NULL;
		} else if (!strncmp(tok, "--term-old", 10) ||
			   !strncmp(tok, "--term-good", 11)) {
			want = old;
		} else if (!strncmp(tok, "--term-new", 10) ||
			   !strncmp(tok, "--term-bad", 10)) {
			want = new;
		}
		if (want && strchr(tok, '=')) {
			snprintf(want, 32, "%s", strchr(tok, '=') + 1);
			want = NULL;
		}
	}
}

/*
 * A verb of the log as a commit's behaviour: its terms' old is good and
 * new bad, or for a fix old is bad (still broken) and new good.
 */
static enum verdict log_verdict(const char *verb, const char *old,
				const char *new, int fix)
{
	if (*new && !strcmp(verb, new))
		return fix ? VERDICT_GOOD : VERDICT_BAD;
	if (*old && !strcmp(verb, old))
		return fix ? VERDICT_BAD : VERDICT_GOOD;
	return verdict_parse(verb);
}

/*
 * Verdicts from a bisect log to resume from: every "git bisect
 * good|bad|skip REV" line, or the log's own terms (a fix's "broken" and
 * "fixed").  When --bad or --good was not given, the log's first bad
 * and its good commits stand in.  The log's own start (its bad and good
 * commits) is not a verdict to replay.
 */
static int read_replay(const struct common *c, struct gu_repo *repo,
		       struct job_spec *spec, struct sched_verdict **out,
		       size_t *n)
{
	struct buf text;
	const char *p;
	size_t cap = 0, i;
	int rc, had_good = spec->ngood > 0;
	char old[32] = "", new[32] = "";

	*out = NULL;
	*n = 0;
	buf_init(&text, 16u << 20);
	if (buf_read_file(&text, c->replay)) {
		buf_release(&text);
		return err_wrap(ERR_INPUT, "cannot read bisect log");
	}
	rc = 0;
	for (p = buf_str(&text); *p && !rc; p += strcspn(p, "\n"), p += !!*p) {
		char verb[32], rev[256], hex[GU_HEXSZ + 1];
		struct gu_oid oid;
		enum verdict v;
		int start = 0;

		if (!strncmp(p, "git bisect start ", 17))
			log_terms(p, old, new);
		if (sscanf(p, "git bisect %31s %255s", verb, rev) != 2)
			continue;
		v = log_verdict(verb, old, new, spec->fix);
		if (v != VERDICT_GOOD && v != VERDICT_BAD && v != VERDICT_SKIP)
			continue;
		if ((rc = gu_resolve(repo, rev, &oid))) {
			rc = err_wrap(ERR_INPUT, "bisect log '%s'", c->replay);
			break;
		}
		gu_oid_hex(hex, &oid);
		if (v == VERDICT_BAD && !spec->bad) {
			spec->bad = strdup(hex);
			start = 1;
		} else if (v == VERDICT_BAD && !strcmp(spec->bad, hex)) {
			start = 1;
		} else if (v == VERDICT_GOOD && !had_good && !spec->ngood) {
			spec->good[spec->ngood++] = strdup(hex);
			start = 1;
		}
		for (i = 0; v == VERDICT_GOOD && i < spec->ngood; i++)
			start |= !strcmp(spec->good[i], hex);
		if (start)
			continue;
		if (*n == cap) {
			struct sched_verdict *r;

			cap = cap ? cap * 2 : 64;
			r = realloc(*out, cap * sizeof(*r));
			if (!r) {
				rc = err_set(ERR_NOMEM, "out of memory");
				break;
			}
			*out = r;
		}
		snprintf((*out)[*n].hex, sizeof((*out)[*n].hex), "%s", hex);
		(*out)[(*n)++].verdict = verdict_name(v);
	}
	buf_release(&text);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/*
 * The confidence options; with a confidence the endpoints are run.  A
 * kernel bisection is made to JOB_KERNEL_CONFIDENCE unless told otherwise
 * (--confidence 0 is git's bisection); a command's is git's unless given
 * a confidence.
 */
static void confidence_spec(struct job_spec *spec, const struct common *c,
			    int kernel)
{
	spec->confidence = c->confidence >= 0 ? c->confidence
			   : kernel	      ? JOB_KERNEL_CONFIDENCE
					      : 0;
	spec->failure = c->failure ? strdup(c->failure) : NULL;
	spec->max_runs = c->max_runs;
	spec->endpoint_runs = c->endpoint_runs ? c->endpoint_runs : 10;
	spec->check_endpoints = spec->confidence > 0 || c->failure;
	spec->fix = c->fix;
}

/*
 * The request for a bisection from the command line: the repository,
 * the revisions resolved, and the verdicts of a log to resume from.
 */
int ctl_bisect_spec(struct job_spec *spec, const struct common *c, int kernel,
		    struct gu_repo **repo, struct sched_verdict **known,
		    size_t *nknown)
{
	char real[PATH_MAX], hex[GU_HEXSZ + 1];
	struct gu_oid oid;
	size_t i;
	int rc;

	memset(spec, 0, sizeof(*spec));
	*known = NULL;
	*nknown = 0;
	snprintf(spec->type, sizeof(spec->type), "bisect");
	spec->runs = 1;
	confidence_spec(spec, c, kernel);
	if (!c->replay && (!c->bad || !c->ngoods))
		return err_set(ERR_INPUT, "need --bad and at least one --good");
	if (c->replay && access(c->replay, R_OK))
		return err_sys(ERR_INPUT, "cannot read bisect log '%s'",
			       c->replay);
	rc = gu_open(repo, c->repo_path);
	if (rc)
		return rc;
	spec->repo = strdup(realpath(c->repo_path, real) ? real : c->repo_path);
	if (c->bad) {
		if ((rc = gu_resolve(*repo, c->bad, &oid)))
			return rc;
		gu_oid_hex(hex, &oid);
		spec->bad = strdup(hex);
	}
	for (i = 0; i < c->ngoods; i++) {
		if ((rc = gu_resolve(*repo, c->goods[i], &oid)))
			return rc;
		gu_oid_hex(hex, &oid);
		spec->good[spec->ngood++] = strdup(hex);
	}
	if (c->replay && (rc = read_replay(c, *repo, spec, known, nknown)))
		return rc;
	if (!spec->bad || !spec->ngood)
		return err_set(ERR_INPUT, "need a bad commit and a good one");
	if (spec->fix && spec->ngood != 1)
		return err_set(ERR_INPUT,
			       "--fix takes one --good: the newer commit, "
			       "where the failure is gone");
	/* refused here, before a run's directory is made */
	rc = gu_endpoints_check(*repo, spec->bad, spec->good, spec->ngood,
				spec->fix);
	if (rc)
		return rc;
	for (i = 0; i < spec->ngood && !spec->fix; i++) {
		struct gu_oid bad, good, mb;

		gu_oid_parse(&bad, spec->bad);
		gu_oid_parse(&good, spec->good[i]);
		if (gu_is_ancestor(*repo, &good, &bad) == 0 &&
		    gu_merge_base(*repo, &good, &bad, &mb) == 0 &&
		    !gu_oid_equal(&mb, &bad)) {
			gu_oid_hex(hex, &mb);
			fprintf(stderr,
				"good commit %.12s is not an ancestor of bad "
				"commit %.12s; testing their merge base %.12s "
				"first\n",
				spec->good[i], spec->bad, hex);
		}
	}
	return 0;
}

/* A release given with option opt and --flavour: both or neither, each
 * a word of its kind. */
int ctl_release_words_ok(const char *release, const char *flavour,
			 const char *opt)
{
	if (!release != !flavour)
		return err_set(ERR_INPUT, "%s and --flavour go together", opt);
	if (release && (!job_release_ok(release) || !job_flavour_ok(flavour)))
		return err_set(ERR_INPUT,
			       "%s takes a release such as 6.1.0-47 and "
			       "--flavour one such as cloud-amd64 (each from "
			       "a letter or digit)",
			       opt);
	return 0;
}

int ctl_base_release_ok(const struct kernel_opts *k)
{
	return ctl_release_words_ok(k->base_release, k->flavour,
				    "--base-release");
}

/* Debian's linux-image-ABI-FLAVOUR, fetched with APT into the cache
 * (APT's logs beside it): its path into *deb. */
int ctl_release_deb(const char *flavour, const char *abi, char **deb)
{
	char *cache = util_cache_dir();
	char *dir = cache ? util_fmt("%s/releases", cache) : NULL;
	int rc = dir ? releases_package(cache, flavour, abi, dir, deb)
		     : err_set(ERR_INFRA, "no cache directory");

	free(cache);
	free(dir);
	return rc;
}

/*
 * The request for bisectd: the repository as bisectd will see it (a URL,
 * or this machine's absolute path), revisions as given (bisectd resolves
 * them), the test script's text.
 */
int ctl_remote_spec(struct job_spec *spec, const char *type,
		    const struct common *c, const struct kernel_opts *k)
{
	char real[PATH_MAX];
	size_t i;

	memset(spec, 0, sizeof(*spec));
	snprintf(spec->type, sizeof(spec->type), "%s", type);
	spec->runs = k ? k->runs : 1;
	if (c->replay)
		return err_set(ERR_INPUT,
			       "--replay works without --server only");
	spec->repo = strdup(strstr(c->repo_path, "://") ||
					    !realpath(c->repo_path, real)
				    ? c->repo_path
				    : real);
	spec->bad = c->bad ? strdup(c->bad) : NULL;
	for (i = 0; i < c->ngoods; i++)
		spec->good[spec->ngood++] = strdup(c->goods[i]);
	spec->max_workers = c->workers;
	if (k && k->recipe)
		spec->recipe = strdup(k->recipe);
	if (k && ctl_base_release_ok(k))
		return ERR_INPUT;
	if (k && k->base_release) {
		spec->base_release = strdup(k->base_release);
		spec->flavour = strdup(k->flavour);
	}
	if (k && k->test) {
		struct buf t;

		buf_init(&t, 1 << 20);
		if (buf_read_file(&t, k->test)) {
			buf_release(&t);
			return err_wrap(ERR_INPUT, "test script");
		}
		spec->test = buf_detach(&t);
	}
	confidence_spec(spec, c, k && !strcmp(type, "bisect"));
	spec->check_endpoints |= k != NULL;
	return 0;
}

/* Run the job in-process and fill s for the reports. */
int ctl_run_embedded(struct session *s, int *code, const struct common *c,
		     const struct job_spec *spec,
		     const struct sched_verdict *known, size_t nknown,
		     const char *out, const char *recipe_path)
{
	struct embed_opts eo = { .out_dir = out,
				 .recipe_path = recipe_path,
				 .workers = c->workers ? c->workers : 1,
				 .progress = stderr,
				 .live = isatty(2) };
	char *json = job_spec_dump(spec), *cache = util_cache_dir();
	int rc;

	eo.cache_dir = cache;
	rc = json && cache ? embed_run(s, code, &eo, json, known, nknown)
			   : err_set(ERR_NOMEM, "out of memory");
	free(json);
	free(cache);
	return rc;
}

char *ctl_make_out_dir(const char *given)
{
	char stamp[32];
	char *cache, *dir;
	time_t now = time(NULL);
	struct tm tm;

	if (given)
		dir = strdup(given);
	else {
		cache = util_cache_dir();
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		dir = cache ? util_fmt("%s/runs/%s-%d", cache, stamp,
				       (int)getpid())
			    : NULL;
		free(cache);
	}
	if (!dir) {
		err_set(ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (util_mkdir_p(dir)) {
		free(dir);
		return NULL;
	}
	{
		/* absolute: steps run in other directories */
		char *abs = realpath(dir, NULL);

		free(dir);
		if (!abs)
			err_sys(ERR_INFRA, "output directory");
		return abs;
	}
}

/* Write the reports, print the text one; returns the exit status. */
int ctl_finish(struct session *s, struct report_info *ri, const char *json_path,
	       int rc)
{
	struct buf text;
	char *json = NULL, *path, ident[512];

	ri->error_code = rc;
	buf_init(&text, 64u << 20);
	if (report_json(&json, s, ri) || report_text(&text, s, ri)) {
		fprintf(stderr, "bisectctl: cannot write report: %s\n",
			err_last());
		free(json);
		buf_release(&text);
		return EXIT_INFRA;
	}
	path = util_fmt("%s/report.json", ri->out_dir);
	if (path)
		util_write_atomic(path, json, strlen(json));
	free(path);
	path = util_fmt("%s/report.txt", ri->out_dir);
	if (path)
		util_write_atomic(path, text.ptr, text.len);
	free(path);
	if (!rc && s->state == ENGINE_FOUND) {
		struct report_info mi = *ri; /* ident lives only here */
		struct buf mail;

		/* from whoever bisects, as git send-email's mail would be,
		 * unless --mail-from says otherwise */
		if (!mi.mail_from &&
		    !gu_user_ident(s->repo, ident, sizeof(ident)) &&
		    !mail_address_check(ident))
			mi.mail_from = ident;
		buf_init(&mail, 64u << 20);
		path = util_fmt("%s/report.mail", ri->out_dir);
		if (path && !report_mail(&mail, s, &mi, ri->out_dir))
			util_write_atomic(path, mail.ptr, mail.len);
		free(path);
		buf_release(&mail);
	}
	if (json_path && util_write_atomic(json_path, json, strlen(json)))
		fprintf(stderr, "bisectctl: %s\n", err_last());
	fputs(buf_str(&text), stdout);
	fflush(stdout);
	free(json);
	buf_release(&text);
	if (rc) {
		fprintf(stderr, "bisectctl: %s\n",
			s->stop_reason ? s->stop_reason : err_last());
		return exit_for(rc);
	}
	return s->state == ENGINE_FOUND ? EXIT_FOUND : EXIT_AMBIGUOUS;
}

/* --- metric options (bisectctl run and bisect) --------------------- */

/* "5%" or "0.05": a fraction in [0, 1); -1 when it is neither */
static double parse_min_change(const char *arg)
{
	char *end;
	double x = strtod(arg, &end);

	if (end == arg || !isfinite(x))
		return -1;
	if (!strcmp(end, "%"))
		x /= 100;
	else if (*end)
		return -1;
	return x >= 0 && x < 1 ? x : -1;
}

/* The metric options; 1 taken, 0 not one of them, -1 bad. */
const char *ctl_metric_orphans(const char *name, int dir, int min_given)
{
	return !name && (dir || min_given)
		       ? "--lower-is-better, --higher-is-better and "
			 "--min-change need --metric NAME"
		       : NULL;
}

int ctl_metric_opt(struct metric_opts *mo, int opt, const char *arg, int *dir)
{
	switch (opt) {
	case OPT_METRIC:
		if (!measure_name_ok(arg)) {
			err_set(ERR_INPUT,
				"--metric needs a name of letters, digits and "
				"_.:/-, not '%s'",
				arg);
			return -1;
		}
		mo->name = arg;
		return 1;
	case OPT_LOWER:
	case OPT_HIGHER:
		if (*dir && *dir != opt) {
			err_set(ERR_INPUT, "--lower-is-better and "
					   "--higher-is-better contradict");
			return -1;
		}
		*dir = opt;
		mo->higher = opt == OPT_HIGHER;
		return 1;
	case OPT_MIN_CHANGE:
		mo->min_change = parse_min_change(arg);
		if (mo->min_change < 0) {
			err_set(ERR_INPUT,
				"--min-change needs a percentage (5%%) or a "
				"fraction (0.05) below 1, not '%s'",
				arg);
			return -1;
		}
		return 1;
	}
	return 0;
}
