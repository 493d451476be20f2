// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job requests, assignments and capabilities as JSON (jansson).
 *
 * Design.  Each object has a table of fields with a type and where the
 * value goes; parsing walks the object, so an unknown field is found by
 * name, and a field of the wrong type is named with the type it needs.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>

#include <jansson.h>

#include "error.h"
#include "job.h"
#include "measure.h"
#include "verdict.h"

/* F_STR: a name, a revision, a URL (no control characters); F_TEXT: a
 * script or a patch (lines and tabs) */
enum ftype { F_STR, F_TEXT, F_INT, F_BOOL, F_STRLIST, F_REAL, F_LL };

/* Whether s has a control character (NUL is caught by its length). */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

struct field {
	const char *name;
	enum ftype type;
	size_t off;   /* into the parsed struct */
	size_t limit; /* F_STR: max length; F_INT: max value; F_STRLIST: count */
};

#define FS(t, m) offsetof(t, m)

static int load(json_t **out, const char *body, size_t len)
{
	json_error_t e;

	*out = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);
	if (!*out)
		return err_set(ERR_INPUT,
			       "malformed JSON at line %d column %d: %s",
			       e.line, e.column, e.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return err_set(ERR_INPUT, "the body must be a JSON object");
	}
	return 0;
}

static int set_field(void *base, const struct field *f, json_t *v)
{
	char *p = (char *)base + f->off;

	switch (f->type) {
	case F_STR:
	case F_TEXT: {
		const char *s;

		if (!json_is_string(v))
			return err_set(ERR_INPUT, "field '%s' must be a string",
				       f->name);
		s = json_string_value(v);
		if (strlen(s) > f->limit || strlen(s) != json_string_length(v))
			return err_set(ERR_INPUT,
				       "field '%s' is too long or has a NUL "
				       "(limit %zu bytes)",
				       f->name, f->limit);
		if (f->type == F_STR && has_control(s))
			return err_set(ERR_INPUT,
				       "field '%s' has a control character",
				       f->name);
		free(*(char **)p);
		*(char **)p = strdup(s);
		return *(char **)p ? 0 : err_set(ERR_NOMEM, "out of memory");
	}
	case F_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > (json_int_t)f->limit)
			return err_set(ERR_INPUT,
				       "field '%s' must be an integer from 0 "
				       "to %zu",
				       f->name, f->limit);
		*(int *)p = (int)json_integer_value(v);
		return 0;
	case F_LL:
		if (!json_is_integer(v))
			return err_set(ERR_INPUT,
				       "field '%s' must be an integer",
				       f->name);
		*(long long *)p = json_integer_value(v);
		return 0;
	case F_REAL:
		if (!json_is_number(v))
			return err_set(ERR_INPUT, "field '%s' must be a number",
				       f->name);
		*(double *)p = json_number_value(v);
		return 0;
	case F_BOOL:
		if (!json_is_boolean(v))
			return err_set(ERR_INPUT,
				       "field '%s' must be true or false",
				       f->name);
		*(int *)p = json_is_true(v);
		return 0;
	case F_STRLIST:
		break;
	}
	return err_set(ERR_GENERIC, "field type");
}

/* Walk obj: every key must be in fields; lists go through list_fn. */
static int parse_fields(void *base, const struct field *fields, json_t *obj,
			int (*list_fn)(void *base, const struct field *f,
				       json_t *v))
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		const struct field *f;
		int rc;

		for (f = fields; f->name && strcmp(f->name, key); f++)
			;
		if (!f->name)
			return err_set(ERR_INPUT, "unknown field '%.64s'", key);
		if (json_is_null(v))
			continue;
		rc = f->type == F_STRLIST ? list_fn(base, f, v)
					  : set_field(base, f, v);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * "patches" (a build job's) or "apply" (applied on every step of a
 * kernel bisect or test job): the same list, in the same arrays.
 */
static int spec_patches(struct job_spec *j, const char *field, json_t *v)
{
	int build = !strcmp(j->type, "build");
	json_t *x;
	size_t i;

	if (build != !strcmp(field, "patches"))
		return err_set(ERR_INPUT,
			       build ? "'apply' is for bisect and test jobs; a "
				       "build job has 'patches'"
				     : "'patches' is for build jobs; bisect "
				       "and test jobs take 'apply'");
	if (j->npatches)
		return err_set(ERR_INPUT, "field '%s' is given twice", field);
	if (!json_is_array(v) || json_array_size(v) > JOB_MAX_PATCHES)
		return err_set(ERR_INPUT,
			       "field '%s' must be a list of at most %d "
			       "{\"name\", \"text\"} objects",
			       field, JOB_MAX_PATCHES);
	json_array_foreach(v, i, x)
	{
		json_t *n = json_object_get(x, "name"),
		       *t = json_object_get(x, "text");

		if (!json_is_object(x) || json_object_size(x) != 2 ||
		    !json_is_string(n) || !json_is_string(t) ||
		    json_string_length(n) == 0 || json_string_length(n) > 255 ||
		    strlen(json_string_value(n)) != json_string_length(n) ||
		    strchr(json_string_value(n), '/') ||
		    has_control(json_string_value(n)) ||
		    json_string_length(t) != strlen(json_string_value(t)))
			return err_set(ERR_INPUT,
				       "patch %zu must be {\"name\": a file "
				       "name, \"text\": the patch as text}",
				       i + 1);
		/* as bisectctl refuses an empty patch file */
		if (json_string_length(t) == 0)
			return err_set(ERR_INPUT,
				       "patch %zu ('%.64s') is empty", i + 1,
				       json_string_value(n));
		j->patch_names[j->npatches] = strdup(json_string_value(n));
		j->patch_texts[j->npatches] = strdup(json_string_value(t));
		if (!j->patch_names[j->npatches++] ||
		    !j->patch_texts[j->npatches - 1])
			return err_set(ERR_NOMEM, "out of memory");
	}
	return 0;
}

static int spec_formats(struct job_spec *j, json_t *v)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return err_set(ERR_INPUT, "field 'formats' must be a list: "
					  "\"deb\", \"rpm\"");
	j->deb = j->rpm = 0;
	json_array_foreach(v, i, x)
	{
		const char *f = json_string_value(x);

		if (f && !strcmp(f, "deb"))
			j->deb = 1;
		else if (f && !strcmp(f, "rpm"))
			j->rpm = 1;
		else
			return err_set(ERR_INPUT,
				       "unknown package format '%.32s': deb or "
				       "rpm",
				       f ? f : "(not a string)");
	}
	return 0;
}

static int spec_list(void *base, const struct field *f, json_t *v)
{
	struct job_spec *j = base;
	size_t i;
	json_t *x;

	if (!strcmp(f->name, "patches") || !strcmp(f->name, "apply"))
		return spec_patches(j, f->name, v);
	if (!strcmp(f->name, "formats"))
		return spec_formats(j, v);

	if (json_is_string(v)) { /* "good": "v6.1" as a one-element list */
		json_t *arr = json_pack("[O]", v);
		int rc = spec_list(base, f, arr);

		json_decref(arr);
		return rc;
	}
	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > JOB_MAX_GOODS)
		return err_set(ERR_INPUT,
			       "field '%s' must be a list of 1 to %d revisions",
			       f->name, JOB_MAX_GOODS);
	json_array_foreach(v, i, x)
	{
		if (!json_is_string(x) || json_string_length(x) == 0 ||
		    json_string_length(x) > 255 ||
		    strlen(json_string_value(x)) != json_string_length(x) ||
		    has_control(json_string_value(x)))
			return err_set(ERR_INPUT,
				       "field '%s' must hold revision names",
				       f->name);
		j->good[j->ngood] = strdup(json_string_value(x));
		if (!j->good[j->ngood++])
			return err_set(ERR_NOMEM, "out of memory");
	}
	return 0;
}

#define SPEC(m) FS(struct job_spec, m)
static const struct field spec_fields[] = {
	{ "repo", F_STR, SPEC(repo), 4096 },
	{ "bad", F_STR, SPEC(bad), 255 },
	{ "good", F_STRLIST, 0, JOB_MAX_GOODS },
	{ "commit", F_STR, SPEC(commit), 255 },
	{ "recipe", F_STR, SPEC(recipe), 255 },
	{ "command", F_TEXT, SPEC(command), 4096 },
	{ "network", F_BOOL, SPEC(network), 0 },
	{ "test", F_TEXT, SPEC(test), 65536 },
	{ "runs", F_INT, SPEC(runs), 100 },
	{ "confidence", F_REAL, SPEC(confidence), 0 },
	{ "failure", F_STR, SPEC(failure), 1024 },
	{ "max_runs", F_INT, SPEC(max_runs), 100000 },
	{ "endpoint_runs", F_INT, SPEC(endpoint_runs), 100 },
	{ "check_endpoints", F_BOOL, SPEC(check_endpoints), 0 },
	{ "fix", F_BOOL, SPEC(fix), 0 },
	{ "max_workers", F_INT, SPEC(max_workers), 1024 },
	{ "callback", F_STR, SPEC(callback), 2048 },
	{ "callback_secret", F_STR, SPEC(callback_secret), 256 },
	{ "patches", F_STRLIST, 0, JOB_MAX_PATCHES },
	{ "apply", F_STRLIST, 0, JOB_MAX_PATCHES },
	{ "formats", F_STRLIST, 0, 2 },
	{ "dbg", F_BOOL, SPEC(dbg), 0 },
	{ "install_test", F_BOOL, SPEC(install_test), 0 },
	{ "channel", F_STR, SPEC(channel), 64 },
	{ "source", F_STR, SPEC(source), 64 },
	{ "flavour", F_STR, SPEC(flavour), 32 },
	{ "commit_recipe", F_STR, SPEC(commit_recipe), 255 },
	{ "base_release", F_STR, SPEC(base_release), 24 },
	{ "releases_job", F_LL, SPEC(releases_job), 0 },
	{ "manual", F_BOOL, SPEC(manual), 0 },
	{ "answers", F_TEXT, SPEC(answers), 65536 },
	{ NULL, 0, 0, 0 },
};

void job_spec_release(struct job_spec *j)
{
	size_t i;

	free(j->repo);
	free(j->bad);
	for (i = 0; i < j->ngood; i++)
		free(j->good[i]);
	free(j->commit);
	free(j->recipe);
	free(j->command);
	free(j->test);
	free(j->callback);
	free(j->callback_secret);
	free(j->source);
	free(j->channel);
	free(j->flavour);
	free(j->commit_recipe);
	free(j->base_release);
	free(j->answers);
	free(j->failure);
	free(j->metric_name);
	for (i = 0; i < j->npatches; i++) {
		free(j->patch_names[i]);
		free(j->patch_texts[i]);
	}
	memset(j, 0, sizeof(*j));
}

/*
 * Only what [set] holds, 1 to max bytes, starting with a letter or a
 * digit: these words become apt-get's and apt-cache's arguments, where
 * one that starts with '-' would be an option.
 */
static int word_of(const char *s, const char *set, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= max && strspn(s, set) == n &&
	       isalnum((unsigned char)s[0]);
}

int job_channel_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > 64 || !strncmp(name, "bisectd", 7) ||
	    !(islower((unsigned char)name[0]) ||
	      isdigit((unsigned char)name[0])))
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)name[i]) &&
		    !isdigit((unsigned char)name[i]) && !strchr(".+-", name[i]))
			return 0;
	return 1;
}

int job_flavour_ok(const char *s)
{
	return word_of(s, "abcdefghijklmnopqrstuvwxyz0123456789-", 32);
}

int job_release_ok(const char *s)
{
	return word_of(s, "0123456789.-", 24);
}

/* What every kind of job checks last: its confidence (given or made
 * its default) and its webhook. */
/* A good revision spelt as the bad one: the same commit, whatever the
 * repository (the scheduler compares them once they are resolved). */
static int same_endpoints(const struct job_spec *spec)
{
	size_t i;

	for (i = 0; i < spec->ngood; i++)
		if (!strcmp(spec->good[i], spec->bad))
			return err_set(ERR_INPUT,
				       "good and bad are the same revision "
				       "'%.64s'",
				       spec->bad);
	return 0;
}

static int common_checks(const struct job_spec *out)
{
	if (out->confidence != 0 &&
	    !(out->confidence >= 0.5 && out->confidence < 1))
		return err_set(ERR_INPUT, "field 'confidence' must be 0 (git's "
					  "bisection) or from 0.5 to below 1");
	if (out->callback && strncmp(out->callback, "http://", 7) &&
	    strncmp(out->callback, "https://", 8))
		return err_set(ERR_INPUT,
			       "field 'callback' must be an http:// or "
			       "https:// URL");
	if (out->callback_secret && !out->callback)
		return err_set(ERR_INPUT,
			       "field 'callback_secret' needs a 'callback'");
	return 0;
}

/* A releases job's fields, after the common ones were parsed. */
static int releases_from(struct job_spec *out)
{
	const char *const other[] = { "commit", "command", "failure", "source",
				      "base_release" };
	const char *const given[] = { out->commit, out->command, out->failure,
				      out->source, out->base_release };
	size_t i;

	for (i = 0; i < sizeof(other) / sizeof(*other); i++)
		if (given[i])
			return err_set(ERR_INPUT,
				       "'%s' is not for releases jobs, which "
				       "bisect Debian's released kernels",
				       other[i]);
	if (out->npatches || out->network)
		return err_set(ERR_INPUT, "releases jobs boot Debian's "
					  "packages as they are: no "
					  "'apply' or 'network'");
	if (!out->flavour || !out->bad || out->ngood != 1)
		return err_set(ERR_INPUT, "a releases job needs 'flavour', "
					  "'bad' and one 'good'");
	if (!job_flavour_ok(out->flavour))
		return err_set(ERR_INPUT,
			       "field 'flavour': '%.40s' is not a "
			       "flavour such as cloud-amd64 ([a-z0-9-], "
			       "from a letter or digit)",
			       out->flavour);
	if (!job_release_ok(out->bad) || !job_release_ok(out->good[0]))
		return err_set(ERR_INPUT, "fields 'good' and 'bad' take "
					  "releases such as 6.1.0-47 ([0-9.-], "
					  "from a digit)");
	if (out->commit_recipe && !out->repo)
		return err_set(ERR_INPUT, "'commit_recipe' is for the commit "
					  "level, which needs 'repo'");
	if (out->releases_job)
		return err_set(ERR_INPUT, "'releases_job' is for bisect jobs");
	if (out->manual && (out->test || out->repo))
		return err_set(ERR_INPUT, "a manual releases job boots "
					  "nothing: no 'test' or 'repo'");
	if (out->answers && !out->manual)
		return err_set(ERR_INPUT, "'answers' are a manual releases "
					  "job's");
	if (out->confidence < 0) /* not given */
		out->confidence = JOB_KERNEL_CONFIDENCE;
	if (!out->recipe && !(out->recipe = strdup(RELEASES_RECIPE)))
		return err_set(ERR_NOMEM, "out of memory");
	out->check_endpoints = 0;
	return common_checks(out);
}

/*
 * "metric": {"name": NAME, "direction": "lower"|"higher", "min_change":
 * FRACTION}, a bisect job's performance regression.
 */
static int spec_metric(struct job_spec *out, json_t *m)
{
	const char *key, *dir = "lower";
	json_t *v;

	if (!json_is_object(m))
		return err_set(ERR_INPUT, "field 'metric' must be an object: "
					  "{\"name\", \"direction\", "
					  "\"min_change\"}");
	json_object_foreach(m, key, v)
	{
		if (!strcmp(key, "name")) {
			if (!json_is_string(v) ||
			    !measure_name_ok(json_string_value(v)))
				return err_set(ERR_INPUT,
					       "field 'metric.name' must be 1 "
					       "to 64 of letters, digits and "
					       "_.:/-");
			free(out->metric_name);
			out->metric_name = strdup(json_string_value(v));
			if (!out->metric_name)
				return err_set(ERR_NOMEM, "out of memory");
		} else if (!strcmp(key, "direction")) {
			if (!json_is_string(v) ||
			    (strcmp(json_string_value(v), "lower") &&
			     strcmp(json_string_value(v), "higher")))
				return err_set(ERR_INPUT,
					       "field 'metric.direction' must "
					       "be \"lower\" or \"higher\" "
					       "(which is better)");
			dir = json_string_value(v);
		} else if (!strcmp(key, "min_change")) {
			double x = json_number_value(v);

			if (!json_is_number(v) || !(x >= 0 && x < 1))
				return err_set(ERR_INPUT,
					       "field 'metric.min_change' must "
					       "be a fraction from 0 to below "
					       "1 (0.05 for 5%%)");
			out->metric_min_change = x;
		} else {
			return err_set(ERR_INPUT,
				       "unknown field 'metric.%.64s'", key);
		}
	}
	if (!out->metric_name)
		return err_set(ERR_INPUT, "field 'metric' needs a 'name'");
	out->metric_higher = !strcmp(dir, "higher");
	return 0;
}

/* A metric bisection's fields, once the rest is parsed. */
static int metric_checks(struct job_spec *out)
{
	if (!out->metric_name)
		return 0;
	if (strcmp(out->type, "bisect"))
		return err_set(ERR_INPUT, "'metric' is for bisect jobs");
	if (out->confidence == 0)
		return err_set(ERR_INPUT,
			       "field 'confidence' must be from 0.5 to "
			       "below 1 with 'metric' (default 0.95), not "
			       "0: values need a probability");
	if (out->failure)
		return err_set(ERR_INPUT, "'failure' does not go with "
					  "'metric': a metric bisection "
					  "looks for a slowdown, not a "
					  "failure");
	if (out->confidence < 0) /* not given */
		out->confidence = JOB_KERNEL_CONFIDENCE;
	return 0;
}

static int spec_from(struct job_spec *out, json_t *o)
{
	json_t *metric;
	json_t *type = json_object_get(o, "type");
	int rc;

	memset(out, 0, sizeof(*out));
	out->runs = 1;
	out->endpoint_runs = 10;
	out->check_endpoints = -1;
	out->confidence = -1;
	out->deb = 1;
	if (!type || !json_is_string(type))
		return err_set(ERR_INPUT, "field 'type' must be \"bisect\", "
					  "\"test\", \"build\" or "
					  "\"releases\"");
	if (strcmp(json_string_value(type), "bisect") &&
	    strcmp(json_string_value(type), "test") &&
	    strcmp(json_string_value(type), "build") &&
	    strcmp(json_string_value(type), "releases"))
		return err_set(ERR_INPUT,
			       "unknown job type '%.32s': \"bisect\", "
			       "\"test\", \"build\" or \"releases\"",
			       json_string_value(type));
	snprintf(out->type, sizeof(out->type), "%s", json_string_value(type));
	json_object_del(o, "type");
	metric = json_object_get(o, "metric");
	if (metric && !json_is_null(metric) && (rc = spec_metric(out, metric)))
		return rc;
	json_object_del(o, "metric");
	rc = parse_fields(out, spec_fields, o, spec_list);
	if (rc)
		return rc;
	{
		/* a field given empty is a mistake, not a default */
		const struct {
			const char *name, *value;
		} strs[] = { { "repo", out->repo },
			     { "bad", out->bad },
			     { "commit", out->commit },
			     { "recipe", out->recipe },
			     { "command", out->command },
			     { "test", out->test },
			     { "failure", out->failure },
			     { "callback", out->callback },
			     { "callback_secret", out->callback_secret },
			     { "source", out->source },
			     { "flavour", out->flavour },
			     { "commit_recipe", out->commit_recipe },
			     { "answers", out->answers },
			     { "base_release", out->base_release } };
		size_t k;

		for (k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
			if (strs[k].value && !*strs[k].value)
				return err_set(ERR_INPUT, "field '%s' is empty",
					       strs[k].name);
	}
	if (out->runs < 1)
		return err_set(ERR_INPUT, "field 'runs' must be at least 1");
	if (out->fix && strcmp(out->type, "bisect"))
		return err_set(ERR_INPUT, "'fix' is for bisect jobs");
	if (out->channel && strcmp(out->type, "build"))
		return err_set(ERR_INPUT, "'channel' is for build jobs");
	if (out->channel && !job_channel_ok(out->channel))
		return err_set(ERR_INPUT,
			       "'channel' is an APT suite name: lower-case "
			       "letters, digits and . + - (from a letter or "
			       "digit, up to 64), not starting with bisectd");
	if (!strcmp(out->type, "releases"))
		return out->metric_name ? err_set(ERR_INPUT, "'metric' is for "
							     "bisect jobs")
					: releases_from(out);
	if ((rc = metric_checks(out)))
		return rc;
	if (out->commit_recipe)
		return err_set(ERR_INPUT, "'commit_recipe' is for releases "
					  "jobs");
	if (!!out->flavour != !!out->base_release)
		return err_set(ERR_INPUT,
			       "'flavour' is for releases jobs, or with "
			       "'base_release' (a release whose config a "
			       "kernel job builds with)");
	if (out->base_release &&
	    (!job_flavour_ok(out->flavour) ||
	     !job_release_ok(out->base_release) || !out->recipe))
		return err_set(ERR_INPUT,
			       "'base_release' takes a release such as "
			       "6.1.0-47 and 'flavour' one such as "
			       "cloud-amd64 (each from a letter or digit), "
			       "for a kernel job with a 'recipe'");
	if (out->releases_job < 0 ||
	    (out->releases_job && strcmp(out->type, "bisect")))
		return err_set(ERR_INPUT, "'releases_job' is for bisect jobs");
	if (out->manual || out->answers)
		return err_set(ERR_INPUT, "'manual' is for releases jobs");
	if (out->source && strcmp(out->type, "build"))
		return err_set(ERR_INPUT, "'source' (a Debian version to "
					  "build) is for build jobs");
	if (!out->repo && !out->source)
		return err_set(ERR_INPUT, "field 'repo' is required");
	if (!!out->recipe == !!out->command)
		return err_set(ERR_INPUT, "a job needs either 'recipe' (kernel "
					  "mode) or 'command' (generic mode)");
	if (out->command && out->npatches)
		return err_set(ERR_INPUT,
			       "'apply' is for kernel mode; a generic job's "
			       "command can patch what it tests itself");
	if (out->network && !out->command)
		return err_set(ERR_INPUT,
			       "'network' is for a generic job's command; "
			       "kernel steps never have the network");
	if (out->command && out->test)
		return err_set(ERR_INPUT,
			       "'test' is a guest script for kernel mode; a "
			       "generic job has 'command' only");
	if (!strcmp(out->type, "bisect")) {
		if (!out->bad || !out->ngood)
			return err_set(ERR_INPUT, "a bisect job needs 'bad' "
						  "and 'good'");
		if (same_endpoints(out))
			return ERR_INPUT;
		if (out->fix && out->ngood != 1)
			return err_set(ERR_INPUT,
				       "'fix' takes one 'good' commit: the "
				       "newer one, which passes");
		if (out->fix && (out->metric_name || out->releases_job))
			return err_set(ERR_INPUT,
				       "'fix' looks for a failure that is "
				       "gone: not with 'metric' or "
				       "'releases_job'");
		if (out->commit)
			return err_set(ERR_INPUT, "'commit' is for test jobs; "
						  "a bisect job has 'bad' "
						  "and 'good'");
	} else {
		if (!out->commit && !out->source)
			return err_set(ERR_INPUT, "a test job needs 'commit'");
		if (out->bad || out->ngood)
			return err_set(ERR_INPUT,
				       "a test job has 'commit', not "
				       "'bad' or 'good'");
	}
	if (out->confidence < 0) /* not given */
		out->confidence = !strcmp(out->type, "bisect") && !out->command
					  ? JOB_KERNEL_CONFIDENCE
					  : 0;
	if (out->failure) {
		regex_t re;
		int bad = regcomp(&re, out->failure, REG_EXTENDED | REG_NOSUB);

		if (bad)
			return err_set(ERR_INPUT,
				       "field 'failure' is not a valid "
				       "extended regular expression");
		regfree(&re);
		if (strcmp(out->type, "bisect"))
			return err_set(ERR_INPUT,
				       "'failure' is for bisect jobs");
	}
	if (out->endpoint_runs < 1)
		return err_set(ERR_INPUT,
			       "field 'endpoint_runs' must be at least 1");
	if (out->check_endpoints < 0)
		out->check_endpoints =
			out->recipe || out->confidence > 0 || out->failure;
	return common_checks(out);
}

int job_answer_parse(const char *body, size_t len, char release[25],
		     char verdict[5])
{
	const char *r = NULL, *v = NULL;
	json_error_t e;
	json_t *o;
	int rc = load(&o, body, len);

	if (rc)
		return rc;
	if (json_unpack_ex(o, &e, JSON_STRICT, "{s:s, s:s}", "release", &r,
			   "verdict", &v))
		rc = err_set(ERR_INPUT,
			     "an answer is {\"release\": ABI, \"verdict\": "
			     "\"good\", \"bad\" or \"skip\"}: %s",
			     e.text);
	else if (!job_release_ok(r))
		rc = err_set(ERR_INPUT,
			     "field 'release': '%.40s' is not a release "
			     "such as 6.1.0-47 ([0-9.-], from a digit)",
			     r);
	else if (strcmp(v, "good") && strcmp(v, "bad") && strcmp(v, "skip"))
		rc = err_set(ERR_INPUT,
			     "field 'verdict': '%.40s' is not good, bad or "
			     "skip",
			     v);
	if (!rc) {
		snprintf(release, 25, "%s", r);
		snprintf(verdict, 5, "%s", v);
	}
	json_decref(o);
	return rc;
}

int job_spec_parse(struct job_spec *out, const char *body, size_t len)
{
	json_t *o;
	int rc = load(&o, body, len);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	rc = spec_from(out, o);
	json_decref(o);
	if (rc)
		job_spec_release(out);
	return rc;
}

static void put_str(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, json_string(v));
}

static json_t *spec_json(const struct job_spec *j)
{
	json_t *o = json_object(), *goods;
	size_t i;

	json_object_set_new(o, "type", json_string(j->type));
	put_str(o, "repo", j->repo);
	put_str(o, "bad", j->bad);
	if (j->ngood) {
		goods = json_array();
		for (i = 0; i < j->ngood; i++)
			json_array_append_new(goods, json_string(j->good[i]));
		json_object_set_new(o, "good", goods);
	}
	put_str(o, "commit", j->commit);
	put_str(o, "recipe", j->recipe);
	put_str(o, "command", j->command);
	if (j->network)
		json_object_set_new(o, "network", json_true());
	put_str(o, "test", j->test);
	json_object_set_new(o, "runs", json_integer(j->runs));
	put_str(o, "flavour", j->flavour);
	put_str(o, "commit_recipe", j->commit_recipe);
	put_str(o, "base_release", j->base_release);
	if (j->releases_job)
		json_object_set_new(o, "releases_job",
				    json_integer(j->releases_job));
	if (!strcmp(j->type, "releases"))
		json_object_set_new(o, "confidence", json_real(j->confidence));
	if (j->manual)
		json_object_set_new(o, "manual", json_true());
	put_str(o, "answers", j->answers);
	if (!strcmp(j->type, "bisect")) {
		json_object_set_new(o, "confidence", json_real(j->confidence));
		json_object_set_new(o, "max_runs", json_integer(j->max_runs));
		json_object_set_new(o, "endpoint_runs",
				    json_integer(j->endpoint_runs));
		put_str(o, "failure", j->failure);
		if (j->fix)
			json_object_set_new(o, "fix", json_true());
		if (j->metric_name)
			json_object_set_new(
				o, "metric",
				json_pack("{s:s, s:s, s:f}", "name",
					  j->metric_name, "direction",
					  j->metric_higher ? "higher" : "lower",
					  "min_change", j->metric_min_change));
	}
	json_object_set_new(o, "check_endpoints",
			    json_boolean(j->check_endpoints));
	json_object_set_new(o, "max_workers", json_integer(j->max_workers));
	put_str(o, "callback", j->callback);
	put_str(o, "callback_secret", j->callback_secret);
	if (j->npatches || !strcmp(j->type, "build")) {
		json_t *pa = json_array();

		for (i = 0; i < j->npatches; i++)
			json_array_append_new(
				pa, json_pack("{s:s, s:s}", "name",
					      j->patch_names[i], "text",
					      j->patch_texts[i]));
		json_object_set_new(
			o, strcmp(j->type, "build") ? "apply" : "patches", pa);
	}
	if (!strcmp(j->type, "build")) {
		json_t *fo = json_array();

		if (j->deb)
			json_array_append_new(fo, json_string("deb"));
		if (j->rpm)
			json_array_append_new(fo, json_string("rpm"));
		json_object_set_new(o, "formats", fo);
		json_object_set_new(o, "dbg", json_boolean(j->dbg));
		json_object_set_new(o, "install_test",
				    json_boolean(j->install_test));
		put_str(o, "source", j->source);
		put_str(o, "channel", j->channel);
	}
	return o;
}

static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);

	json_decref(o);
	return s;
}

char *job_spec_dump(const struct job_spec *j)
{
	return dump(spec_json(j));
}

void job_caps_release(struct job_caps *c)
{
	size_t i;

	for (i = 0; i < c->nrecipes; i++)
		free(c->recipes[i]);
	free(c->recipes);
	memset(c, 0, sizeof(*c));
}

int job_caps_parse(struct job_caps *out, const char *body, size_t len)
{
	json_t *o, *recipes = NULL, *formats = NULL, *x;
	const char *name;
	int kvm = 0, run = 0, network = 0, cores = 1;
	json_error_t e;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = load(&o, body, len)))
		return rc;
	if (json_unpack_ex(o, &e, JSON_STRICT,
			   "{s:s, s?o, s?b, s?b, s?b, s?o, s?i}", "name", &name,
			   "recipes", &recipes, "kvm", &kvm, "run", &run,
			   "network", &network, "formats", &formats, "cores",
			   &cores)) {
		json_decref(o);
		return err_set(ERR_INPUT, "bad worker registration: %s",
			       e.text);
	}
	if (strlen(name) == 0 || strlen(name) >= sizeof(out->name) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._-") != strlen(name)) {
		json_decref(o);
		return err_set(ERR_INPUT, "worker name must be 1 to 63 of "
					  "[A-Za-z0-9._-]");
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->kvm = kvm;
	out->run = run;
	out->network = run && network;
	out->cores = cores;
	rc = 0;
	if (recipes &&
	    (!json_is_array(recipes) || json_array_size(recipes) > 256))
		rc = err_set(ERR_INPUT, "'recipes' must be a list of names");
	if (!rc && recipes) {
		out->recipes =
			calloc(json_array_size(recipes) + 1, sizeof(char *));
		json_array_foreach(recipes, i, x)
		{
			if (!json_is_string(x)) {
				rc = err_set(
					ERR_INPUT,
					"'recipes' must be a list of names");
				break;
			}
			out->recipes[out->nrecipes++] =
				strdup(json_string_value(x));
		}
	}
	if (!rc && formats) {
		if (!json_is_array(formats))
			rc = err_set(ERR_INPUT, "'formats' must be a list");
		json_array_foreach(formats, i, x)
		{
			const char *f = json_string_value(x);

			if (f && !strcmp(f, "deb"))
				out->deb = 1;
			else if (f && !strcmp(f, "rpm"))
				out->rpm = 1;
			else if (!rc)
				rc = err_set(ERR_INPUT,
					     "unknown package format in "
					     "'formats': deb or rpm");
		}
	}
	json_decref(o);
	if (rc)
		job_caps_release(out);
	return rc;
}

char *job_caps_dump(const struct job_caps *c)
{
	json_t *o = json_object(), *r = json_array(), *f = json_array();
	size_t i;

	for (i = 0; i < c->nrecipes; i++)
		json_array_append_new(r, json_string(c->recipes[i]));
	if (c->deb)
		json_array_append_new(f, json_string("deb"));
	if (c->rpm)
		json_array_append_new(f, json_string("rpm"));
	json_object_set_new(o, "name", json_string(c->name));
	json_object_set_new(o, "recipes", r);
	json_object_set_new(o, "formats", f);
	json_object_set_new(o, "kvm", json_boolean(c->kvm));
	json_object_set_new(o, "run", json_boolean(c->run));
	json_object_set_new(o, "network", json_boolean(c->network));
	json_object_set_new(o, "cores", json_integer(c->cores));
	return dump(o);
}

int job_caps_accept(const struct job_caps *c, const struct job_spec *spec)
{
	size_t i;

	if (spec->command)
		return c->run && (!spec->network || c->network);
	if (!strcmp(spec->type, "build") &&
	    ((spec->deb && !c->deb) || (spec->rpm && !c->rpm)))
		return 0;
	for (i = 0; i < c->nrecipes; i++)
		if (!strcmp(c->recipes[i], spec->recipe))
			return 1;
	return 0;
}

char *job_json_string(const char *json, const char *field)
{
	json_t *o = json_loads(json, 0, NULL), *v;
	char *s = NULL;

	if (!o)
		return NULL;
	v = json_object_get(o, field);
	if (json_is_string(v))
		s = strdup(json_string_value(v));
	json_decref(o);
	return s;
}

size_t job_json_runs(const char *json, struct job_run *out, size_t max)
{
	json_t *o = json_loads(json, 0, NULL), *r, *x;
	size_t n = 0, i;

	r = json_object_get(o, "run_results");
	json_array_foreach(r, i, x)
	{
		const char *v = json_string_value(
				   json_object_get(x, "verdict")),
			   *t = json_string_value(json_object_get(x, "title"));

		if (n == max || !v)
			break;
		snprintf(out[n].verdict, sizeof(out[n].verdict), "%s", v);
		snprintf(out[n].title, sizeof(out[n].title), "%s", t ? t : "");
		n++;
	}
	json_decref(o);
	return n;
}

long long job_json_int(const char *json, const char *field, long long dflt)
{
	json_t *o = json_loads(json, 0, NULL), *v = json_object_get(o, field);
	long long n = json_is_integer(v) ? json_integer_value(v) : dflt;

	json_decref(o);
	return n;
}

int job_json_true(const char *json, const char *field)
{
	json_t *o = json_loads(json, 0, NULL);
	int t = o && json_is_true(json_object_get(o, field));

	json_decref(o);
	return t;
}

static const char *str_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : "";
}

int job_doc_steps(const char *json,
		  void (*fn)(const struct job_doc_step *st, void *payload),
		  void *payload)
{
	json_t *o = json_loads(json, 0, NULL), *steps, *x;
	size_t i;

	if (!o)
		return err_set(ERR_INPUT, "not a job document");
	steps = json_object_get(o, "steps");
	json_array_foreach(steps, i, x)
	{
		struct job_doc_step st;
		json_t *res = json_object_get(x, "result");

		st.id = json_integer_value(json_object_get(x, "id"));
		st.state = str_of(x, "state");
		st.commit = str_of(x, "commit");
		st.role = str_of(x, "role");
		st.verdict = str_of(x, "verdict");
		st.title = json_is_object(res) ? str_of(res, "title") : "";
		st.round = (int)json_integer_value(json_object_get(x, "round"));
		st.candidates =
			json_integer_value(json_object_get(x, "candidates"));
		st.cached = json_is_true(json_object_get(x, "cached"));
		fn(&st, payload);
	}
	json_decref(o);
	return 0;
}

char *job_error_json(const char *msg)
{
	return dump(json_pack("{s:s}", "error", msg));
}

char *json_quote(const char *s)
{
	json_t *v = json_string(s);
	char *out = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;

	json_decref(v);
	return out;
}

int job_query_number(const char *name, const char *s, double lo, double hi,
		     double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out) || *out < lo ||
	    *out > hi)
		return err_set(ERR_INPUT, "'%s' must be a number from %g to %g",
			       name, lo, hi);
	return 0;
}

int job_query_id(const char *name, const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || *out <= 0)
		return err_set(ERR_INPUT,
			       "'%s' must be a positive whole number", name);
	return 0;
}
