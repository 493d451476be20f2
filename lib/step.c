// SPDX-License-Identifier: GPL-2.0-only
/*
 * The step's one JSON codec: assignments to workers and their results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "error.h"
#include "measure.h"
#include "step.h"
#include "util.h"

/* "v" of a wire form: absent is taken as this version's. */
static int version_ok(json_t *o, const char *what)
{
	json_t *v = json_object_get(o, "v");

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) != STEP_WIRE_VERSION)
		return err_set(
			ERR_INPUT,
			"%s of wire version %.16s%lld; this program "
			"speaks version %d",
			what, json_is_integer(v) ? "" : "(not a number) ",
			json_is_integer(v) ? (long long)json_integer_value(v)
					   : 0LL,
			STEP_WIRE_VERSION);
	json_object_del(o, "v");
	return 0;
}

/* A wire form as a JSON object of this version ("v" removed), or NULL
 * with ERR_INPUT saying why; what names it ("step result"), an in its
 * version error ("a step result"). */
static json_t *load(const char *body, size_t len, const char *what,
		    const char *an)
{
	json_error_t e;
	json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);

	if (!o)
		err_set(ERR_INPUT,
			"malformed JSON in the %s at line %d "
			"column %d: %s",
			what, e.line, e.column, e.text);
	else if (!json_is_object(o))
		err_set(ERR_INPUT, "the %s is not a JSON object", what);
	else if (!version_ok(o, an))
		return o;
	json_decref(o);
	return NULL;
}

char *step_assignment_dump(const struct step_assignment *a)
{
	char *spec = job_spec_dump(&a->spec), *s;
	json_t *o = json_object(), *sp;

	sp = spec ? json_loads(spec, 0, NULL) : NULL;
	free(spec);
	if (!o || !sp) {
		json_decref(o);
		json_decref(sp);
		return NULL;
	}
	/* the webhook is bisectd's to call: its URL (which may hold a
	 * user and password) and the key of its signature never go to a
	 * worker, which could otherwise sign deliveries of its own */
	json_object_del(sp, "callback");
	json_object_del(sp, "callback_secret");
	json_object_set_new(o, "v", json_integer(STEP_WIRE_VERSION));
	json_object_set_new(o, "lease", json_string(a->lease));
	json_object_set_new(o, "step", json_integer(a->step));
	json_object_set_new(o, "job", json_integer(a->job));
	json_object_set_new(o, "commit", json_string(a->commit));
	json_object_set_new(o, "role", json_string(a->role));
	json_object_set_new(o, "lease_seconds", json_real(a->lease_seconds));
	if (a->tenant[0])
		json_object_set_new(o, "tenant", json_string(a->tenant));
	json_object_set_new(o, "spec", sp);
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

int step_assignment_parse(struct step_assignment *out, const char *body,
			  size_t len)
{
	json_t *o, *spec;
	const char *lease, *commit, *role, *tenant = NULL;
	json_int_t step, job;
	double lease_s;
	json_error_t e;
	char *text;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(o = load(body, len, "assignment", "an assignment")))
		return ERR_INPUT;
	if (json_unpack_ex(o, &e, JSON_STRICT,
			   "{s:s, s:I, s:I, s:s, s:s, s:F, s:o, s?s}", "lease",
			   &lease, "step", &step, "job", &job, "commit",
			   &commit, "role", &role, "lease_seconds", &lease_s,
			   "spec", &spec, "tenant", &tenant)) {
		json_decref(o);
		return err_set(ERR_INPUT, "bad assignment: %s", e.text);
	}
	snprintf(out->lease, sizeof(out->lease), "%s", lease);
	snprintf(out->commit, sizeof(out->commit), "%s", commit);
	snprintf(out->role, sizeof(out->role), "%s", role);
	if (tenant && (strlen(tenant) >= sizeof(out->tenant) ||
		       strspn(tenant, "0123456789abcdef") != strlen(tenant))) {
		rc = err_set(ERR_INPUT, "bad assignment: tenant '%.40s'",
			     tenant);
		json_decref(o);
		return rc;
	}
	snprintf(out->tenant, sizeof(out->tenant), "%s", tenant ? tenant : "");
	out->step = step;
	out->job = job;
	out->lease_seconds = lease_s;
	text = json_is_object(spec) ? json_dumps(spec, JSON_COMPACT) : NULL;
	json_decref(o);
	rc = text ? job_spec_parse(&out->spec, text, strlen(text))
		  : err_set(ERR_INPUT, "bad assignment spec");
	free(text);
	return rc;
}

void step_result_release(struct step_result *st)
{
	free(st->title);
	free(st->excerpt);
	free(st->console_log);
	free(st->build_log);
	free(st->log);
	free(st->config_path);
	free(st->config_notes);
	free(st->build_notes);
	free(st->run_results);
	free(st->patches);
	free(st->releases);
	free(st->values);
	st->values = NULL;
	st->nvalues = 0;
	st->releases = NULL;
	st->title = st->excerpt = st->console_log = st->build_log = NULL;
	st->log = st->config_path = st->config_notes = st->build_notes = NULL;
	st->run_results = st->patches = NULL;
}

int step_result_set_patches(struct step_result *st, const char *const *names,
			    size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	free(st->patches);
	st->patches = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return st->patches ? 0 : err_set(ERR_NOMEM, "out of memory");
}

/* An array kept as JSON text (NULL: none) into o under key. */
static void put_array(json_t *o, const char *key, const char *text)
{
	json_t *r = text ? json_loads(text, 0, NULL) : NULL;

	if (json_is_array(r))
		json_object_set_new(o, key, r);
	else
		json_decref(r);
}

json_t *step_result_json(const struct step_result *st)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "v", json_integer(STEP_WIRE_VERSION));
	json_object_set_new(o, "commit", json_string(st->hex));
	json_object_set_new(o, "verdict",
			    json_string(verdict_name(st->verdict)));
	json_object_set_new(o, "role", json_string(st->role));
	json_object_set_new(o, "seconds", json_real(st->seconds));
	json_object_set_new(o, "title", json_string(st->title));
	json_object_set_new(o, "excerpt", json_string(st->excerpt));
	json_object_set_new(o, "candidates",
			    json_integer((json_int_t)st->candidates));
	if (st->exit_code >= 0)
		json_object_set_new(o, "exit_code",
				    json_integer(st->exit_code));
	if (st->runs) {
		json_object_set_new(o, "checkout_seconds",
				    json_real(st->checkout_s));
		json_object_set_new(o, "config_seconds",
				    json_real(st->config_s));
		json_object_set_new(o, "build_seconds", json_real(st->build_s));
		json_object_set_new(o, "boot_seconds", json_real(st->boot_s));
		json_object_set_new(o, "runs", json_integer(st->runs));
		json_object_set_new(o, "runs_failed",
				    json_integer(st->runs_failed));
	}
	json_object_set_new(o, "console_log", json_pack("s?", st->console_log));
	json_object_set_new(o, "build_log", json_pack("s?", st->build_log));
	json_object_set_new(o, "log", json_pack("s?", st->log));
	if (st->config_path)
		json_object_set_new(o, "config", json_string(st->config_path));
	if (st->accel)
		json_object_set_new(o, "accel", json_string(st->accel));
	if (st->cached)
		json_object_set_new(o, "cached", json_true());
	if (st->cached_from[0])
		json_object_set_new(o, "cached_from",
				    json_string(st->cached_from));
	if (st->build_cached)
		json_object_set_new(o, "build_cached", json_true());
	if (*st->image_sha256)
		json_object_set_new(o, "image_sha256",
				    json_string(st->image_sha256));
	put_array(o, "run_results", st->run_results);
	put_array(o, "patches", st->patches);
	if (st->values) {
		json_t *a = json_array();
		size_t i;

		for (i = 0; i < st->nvalues; i++)
			json_array_append_new(a, json_real(st->values[i]));
		json_object_set_new(o, "values", a);
		if (*st->unit)
			json_object_set_new(o, "unit", json_string(st->unit));
	}
	if (st->releases) {
		json_t *r = json_loads(st->releases, 0, NULL);

		if (json_is_object(r))
			json_object_set_new(o, "releases", r);
		else
			json_decref(r);
	}
	if (st->abort)
		json_object_set_new(o, "abort", json_true());
	if (st->worker)
		json_object_set_new(o, "worker", json_integer(st->worker));
	if (st->round)
		json_object_set_new(o, "round", json_integer(st->round));
	if (st->config_notes && *st->config_notes)
		json_object_set_new(o, "config_notes",
				    json_string(st->config_notes));
	if (st->build_notes && *st->build_notes)
		json_object_set_new(o, "build_notes",
				    json_string(st->build_notes));
	return o;
}

void step_result_text(struct buf *text, const struct step_result *st)
{
	buf_printf(text, "%s %s%s", st->hex, verdict_name(st->verdict),
		   *st->title ? ": " : "");
	buf_put_shown(text, st->title, 0);
	buf_puts(text, "\n");
	if (st->build_cached)
		buf_printf(text,
			   "kernel from the cache, boot %.1f s (%d run(s), "
			   "%d failed)\n",
			   st->boot_s, st->runs, st->runs_failed);
	else
		buf_printf(text,
			   "checkout %.1f s, config %.1f s, build %.1f s, "
			   "boot %.1f s (%d run(s), %d failed)\n",
			   st->checkout_s, st->config_s, st->build_s,
			   st->boot_s, st->runs, st->runs_failed);
	if (*st->image_sha256)
		buf_printf(text, "image sha256: %s\n", st->image_sha256);
	if (st->nvalues) {
		size_t i;

		buf_puts(text, "values:");
		for (i = 0; i < st->nvalues; i++)
			buf_printf(text, " %g", st->values[i]);
		buf_puts(text, "\n");
	}
	if (st->build_log) {
		buf_puts(text, "build log: ");
		buf_put_shown(text, st->build_log, 0);
		buf_puts(text, "\n");
	}
	if (st->console_log) {
		buf_puts(text, "console:   ");
		buf_put_shown(text, st->console_log, 0);
		buf_puts(text, "\n");
	}
	if (*st->excerpt) {
		buf_puts(text, "\n");
		buf_put_shown(text, st->excerpt, 1);
	}
}

int step_result_dump(char **json, struct buf *text,
		     const struct step_result *st)
{
	json_t *o = step_result_json(st);

	*json = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!*json)
		return err_set(ERR_NOMEM, "out of memory");
	if (text)
		step_result_text(text, st);
	return 0;
}

static char *dup_field(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static double real_field(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : 0;
}

/* "values": the positive finite numbers of a list (others are left
 * out: a worker's word is not trusted with the engine's logarithms) */
static void parse_values(struct step_result *st, json_t *a)
{
	json_t *x;
	size_t i;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	st->values = calloc(json_array_size(a), sizeof(double));
	if (!st->values)
		return;
	json_array_foreach(a, i, x)
	{
		double d = json_number_value(x);

		if (json_is_number(x) && isfinite(d) && d > 0)
			st->values[st->nvalues++] = d;
	}
}

/* A unit as a measurement has one: 1 to 16 printable ASCII, no blank. */
static int unit_ok(const char *u)
{
	size_t i;

	for (i = 0; u[i]; i++)
		if (u[i] <= ' ' || u[i] > '~')
			return 0;
	return i > 0 && i <= MEASURE_UNIT_MAX;
}

/* The unit of the first measurement of name in text. */
static void first_unit(char unit[17], const char *text, size_t len,
		       const char *name)
{
	const char *p = text, *end = text + len;
	struct measure me;

	*unit = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (measure_parse_line(&me, p, l) == 1 &&
		    !strcmp(me.name, name)) {
			snprintf(unit, 17, "%s", me.unit);
			return;
		}
		p += l + 1;
	}
}

int step_result_measure(struct step_result *st, const char *text, size_t len,
			const char *name)
{
	double *v = NULL;
	size_t n = 0, nbad = 0, i;
	char *why = NULL;
	int rc;

	free(st->values);
	st->values = NULL;
	st->nvalues = 0;
	if (st->verdict == VERDICT_SKIP || st->verdict == VERDICT_INFRA)
		return 0;
	if (st->verdict != VERDICT_GOOD) {
		why = util_fmt("the run failed (%s%s%s): no value of '%s'",
			       verdict_name(st->verdict),
			       st->title && *st->title ? ": " : "",
			       st->title ? st->title : "", name);
		goto skip;
	}
	if ((rc = measure_collect(&v, &n, &nbad, text, len, name)))
		return rc;
	for (i = 0; i < n; i++)
		if (!(v[i] > 0) || !isfinite(v[i])) {
			why = util_fmt("value %g of '%s' is not positive", v[i],
				       name);
			goto skip;
		}
	if (n == 0) {
		why = nbad ? util_fmt("no value of '%s': %s", name, err_last())
			   : util_fmt("no value of '%s' in the output", name);
		goto skip;
	}
	st->values = v;
	st->nvalues = n;
	first_unit(st->unit, text, len, name);
	return 0;
skip:
	free(v);
	if (!why)
		return err_set(ERR_NOMEM, "out of memory");
	st->verdict = VERDICT_SKIP;
	free(st->title);
	st->title = why;
	return 0;
}

int step_result_parse(struct step_result *st, const char *json)
{
	json_t *o = load(json, strlen(json), "step result", "a step result"),
	       *v;
	char *accel;

	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	if (!o)
		return ERR_INPUT;
	v = json_object_get(o, "verdict");
	st->verdict = json_is_string(v) ? verdict_parse(json_string_value(v))
					: VERDICT_NONE;
	st->title = dup_field(o, "title");
	st->excerpt = dup_field(o, "excerpt");
	st->seconds = real_field(o, "seconds");
	st->checkout_s = real_field(o, "checkout_seconds");
	st->config_s = real_field(o, "config_seconds");
	st->build_s = real_field(o, "build_seconds");
	st->boot_s = real_field(o, "boot_seconds");
	if (json_is_integer(v = json_object_get(o, "exit_code")))
		st->exit_code = (int)json_integer_value(v);
	st->runs = (int)real_field(o, "runs");
	st->runs_failed = (int)real_field(o, "runs_failed");
	st->console_log = dup_field(o, "console_log");
	st->build_log = dup_field(o, "build_log");
	st->log = dup_field(o, "log");
	st->config_path = dup_field(o, "config");
	st->config_notes = dup_field(o, "config_notes");
	st->build_notes = dup_field(o, "build_notes");
	st->abort = json_is_true(json_object_get(o, "abort"));
	st->cached = json_is_true(json_object_get(o, "cached"));
	st->build_cached = json_is_true(json_object_get(o, "build_cached"));
	v = json_object_get(o, "cached_from");
	if (json_is_string(v) && strlen(json_string_value(v)) == GU_HEXSZ)
		memcpy(st->cached_from, json_string_value(v), GU_HEXSZ + 1);
	v = json_object_get(o, "run_results");
	if (json_is_array(v))
		st->run_results = json_dumps(v, JSON_COMPACT);
	v = json_object_get(o, "patches");
	if (json_is_array(v))
		st->patches = json_dumps(v, JSON_COMPACT);
	v = json_object_get(o, "releases");
	if (json_is_object(v))
		st->releases = json_dumps(v, JSON_COMPACT);
	v = json_object_get(o, "image_sha256");
	if (json_is_string(v) && strlen(json_string_value(v)) == 64)
		memcpy(st->image_sha256, json_string_value(v), 65);
	parse_values(st, json_object_get(o, "values"));
	v = json_object_get(o, "unit");
	if (json_is_string(v) && unit_ok(json_string_value(v)))
		snprintf(st->unit, sizeof(st->unit), "%s",
			 json_string_value(v));
	accel = dup_field(o, "accel");
	st->accel = !accel ? NULL : !strcmp(accel, "kvm") ? "kvm" : "tcg";
	free(accel);
	json_decref(o);
	if (!st->title)
		st->title = strdup("");
	if (!st->excerpt)
		st->excerpt = strdup("");
	return 0;
}

int step_result_check(const char *body, size_t len, const char *commit,
		      char verdict[8])
{
	json_t *o = load(body, len, "step result", "a step result"), *v, *t, *c;
	enum verdict vd;
	int rc = 0;

	if (!o)
		return ERR_INPUT;
	v = json_object_get(o, "verdict");
	t = json_object_get(o, "title");
	c = json_object_get(o, "commit");
	vd = json_is_string(v) ? verdict_parse(json_string_value(v))
			       : VERDICT_NONE;
	if (vd == VERDICT_NONE)
		rc = err_set(ERR_INPUT, "field 'verdict' must be good, bad, "
					"skip or infra");
	else if (t && !json_is_string(t))
		rc = err_set(ERR_INPUT, "field 'title' must be a string");
	else if (c && !json_is_string(c))
		rc = err_set(ERR_INPUT, "field 'commit' must be a string");
	else if (!c && commit)
		rc = err_set(ERR_INPUT,
			     "field 'commit' is missing: its lease is for a "
			     "step of %s",
			     commit);
	else if (c && commit && strcmp(json_string_value(c), commit))
		rc = err_set(ERR_INPUT,
			     "field 'commit': the result is for %.40s, but "
			     "its lease is for a step of %s",
			     json_string_value(c), commit);
	else
		snprintf(verdict, 8, "%s", verdict_name(vd));
	json_decref(o);
	return rc;
}

/*
 * The runs a result reports, as an array of {verdict, title}: its
 * run_results, or as many as "runs" and "runs_failed" count (an older
 * result), or its verdict as one run; none for a skip or infra.
 */
static json_t *runs_of(json_t *r)
{
	json_t *a = json_object_get(r, "run_results"), *out;
	const char *v = json_string_value(json_object_get(r, "verdict"));
	const char *t = json_string_value(json_object_get(r, "title"));
	json_int_t n, failed, i;

	if (json_is_array(a))
		return json_deep_copy(a);
	out = json_array();
	if (!out || !v || (strcmp(v, "good") && strcmp(v, "bad")))
		return out;
	n = json_integer_value(json_object_get(r, "runs"));
	failed = json_integer_value(json_object_get(r, "runs_failed"));
	if (n < 1 || failed < 0 || failed > n)
		n = 1, failed = !strcmp(v, "bad");
	for (i = 0; i < n; i++)
		json_array_append_new(
			out, json_pack("{s:s, s:s}", "verdict",
				       i < failed ? "bad" : "good", "title",
				       i < failed && t ? t : ""));
	return out;
}

int step_result_merge(char **merged, char verdict[8], const char *old_result,
		      const char *new_result, const char *hex)
{
	json_t *o = old_result ? json_loads(old_result, 0, NULL) : NULL;
	json_t *n = json_loads(new_result, 0, NULL), *base, *runs, *x;
	const char *v;
	json_int_t failed = 0;
	size_t i;
	int rc = 0;

	*merged = NULL;
	if (!json_is_object(n)) {
		json_decref(o);
		json_decref(n);
		return err_set(ERR_INPUT, "a step result to cache is not JSON");
	}
	runs = runs_of(n);
	if (!runs) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	base = n;
	if (json_array_size(runs) > 0 && json_is_object(o)) {
		json_t *before = runs_of(o);
		const char *ov =
			json_string_value(json_object_get(o, "verdict"));
		const char *nv =
			json_string_value(json_object_get(n, "verdict"));

		if (before && json_array_size(before) > 0) {
			json_array_extend(before, runs);
			json_decref(runs);
			runs = before;
			/* the evidence of a failure outlives later passes */
			if (ov && !strcmp(ov, "bad") && nv && strcmp(nv, "bad"))
				base = o;
		} else {
			json_decref(before);
		}
	}
	while (json_array_size(runs) > STEP_CACHE_RUNS)
		json_array_remove(runs, 0);
	json_array_foreach(runs, i, x)
	{
		v = json_string_value(json_object_get(x, "verdict"));
		failed += v && !strcmp(v, "bad");
	}
	if (json_array_size(runs) > 0) {
		json_object_set_new(base, "verdict",
				    json_string(failed ? "bad" : "good"));
		json_object_set_new(
			base, "runs",
			json_integer((json_int_t)json_array_size(runs)));
		json_object_set_new(base, "runs_failed", json_integer(failed));
		json_object_set(base, "run_results", runs);
	}
	json_object_set_new(base, "cached_from", json_string(hex));
	json_object_del(base, "cached");
	v = json_string_value(json_object_get(base, "verdict"));
	snprintf(verdict, 8, "%s", v ? v : "skip");
	*merged = json_dumps(base, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!*merged)
		rc = err_set(ERR_NOMEM, "out of memory");
	json_decref(runs);
out:
	json_decref(o);
	json_decref(n);
	return rc;
}

int step_result_runs(const char *result)
{
	json_t *r = json_loads(result, 0, NULL), *runs = runs_of(r);
	int n = (int)json_array_size(runs);

	json_decref(runs);
	json_decref(r);
	return n;
}
