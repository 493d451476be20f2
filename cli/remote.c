// SPDX-License-Identifier: GPL-2.0-only
/*
 * The remote mode of bisectctl.
 *
 * Design.  The job is submitted once; then the job document is polled
 * every second and each step that reached an end since the last poll is
 * printed.  An interrupted connection is retried (bisectd may be
 * restarting) for up to five minutes; the job lives on in bisectd
 * either way, and its id is printed first so that it can be found.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "http.h"
#include "releases.h"
#include "remote.h"
#include "util.h"

struct follow {
	FILE *progress;
	long long *seen;
	size_t nseen, cap;
};

static int was_seen(struct follow *f, long long id)
{
	size_t i;

	for (i = 0; i < f->nseen; i++)
		if (f->seen[i] == id)
			return 1;
	if (f->nseen == f->cap) {
		long long *n;

		f->cap = f->cap ? 2 * f->cap : 64;
		n = realloc(f->seen, f->cap * sizeof(*n));
		if (!n)
			return 1;
		f->seen = n;
	}
	f->seen[f->nseen++] = id;
	return 0;
}

static void on_step(const struct job_doc_step *st, void *payload)
{
	struct follow *f = payload;
	char *title;

	if (strcmp(st->state, "done") || was_seen(f, st->id))
		return;
	title = buf_shown(st->title, 0); /* from a console: no escapes */
	fprintf(f->progress, "round %d %s: %.12s %s%s%s%s%s\n", st->round,
		st->role, st->commit, st->verdict, *st->title ? " (" : "",
		title ? title : "", *st->title ? ")" : "",
		st->cached ? " [cached]" : "");
	fflush(f->progress);
	free(title);
}

static int get(const char *server, const char *token, const char *path,
	       long *status, struct buf *out)
{
	char *url = util_fmt("%s/api/v1/%s", server, path);
	struct http_req r = { .method = "GET", .url = url, .token = token };
	int rc;

	if (!url)
		return err_set(ERR_NOMEM, "out of memory");
	buf_reset(out);
	rc = http_do(&r, status, out);
	free(url);
	return rc;
}

static int end_status(const char *type, const char *result)
{
	static const struct {
		const char *result;
		int bisect, test;
	} map[] = {
		{ "found", 0, 0 },
		{ "ambiguous", 1, 1 },
		{ "error", 2, 2 },
		{ "infra", 3, 3 },
		{ "cancelled", 3, 3 },
		{ "good", 0, 0 },
		{ "bad", 1, 1 },
		{ "skip", 125, 125 },
		/* build jobs: as bisectctl build */
		{ "built", 0, 0 },
		{ "boot failed", 4, 4 },
		{ "build failed", 1, 1 },
	};
	size_t i;

	for (i = 0; result && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(result, map[i].result))
			return strcmp(type, "test") ? map[i].bisect
						    : map[i].test;
	return 3;
}

/*
 * Poll job id until it ends (or_waiting: or waits for its submitter's
 * answer), printing each step that ended; its document is left in out.
 * 0, or -1 when bisectd was lost for five minutes.
 */
static int follow_until(const char *server, const char *token, long long id,
			struct follow *f, struct buf *out, int or_waiting);

static int follow(const char *server, const char *token, long long id,
		  struct follow *f, struct buf *out)
{
	return follow_until(server, token, id, f, out, 0);
}

/* 1 when a job document says the job waits for its submitter's answer. */
static int waits(const char *doc)
{
	json_t *o = json_loads(doc, 0, NULL);
	int yes = json_is_object(json_object_get(o, "waiting_for"));

	json_decref(o);
	return yes;
}

static int follow_until(const char *server, const char *token, long long id,
			struct follow *f, struct buf *out, int or_waiting)
{
	char path[64], *state = NULL;
	double lost = 0;
	long status;

	fprintf(f->progress, "bisectctl: job %lld on %s: %s/jobs/%lld\n", id,
		server, server, id);
	snprintf(path, sizeof(path), "jobs/%lld", id);
	for (;;) {
		struct timespec ts = { 1, 0 };

		if (get(server, token, path, &status, out) || status != 200) {
			if (lost == 0)
				lost = util_now();
			if (util_now() - lost > 300) {
				fprintf(stderr,
					"bisectctl: lost %s for 5 minutes: "
					"%s\n",
					server, err_last());
				return -1;
			}
			nanosleep(&ts, NULL);
			continue;
		}
		lost = 0;
		job_doc_steps(buf_str(out), on_step, f);
		free(state);
		state = job_json_string(buf_str(out), "state");
		if (state && strcmp(state, "queued") &&
		    strcmp(state, "running") && strcmp(state, "fetching"))
			break;
		if (or_waiting && waits(buf_str(out)))
			break;
		nanosleep(&ts, NULL);
	}
	free(state);
	return 0;
}

/* A bisection's end: its report on the terminal, its JSON report left
 * in out (0, else -1) and written to json_path if that is not NULL. */
static int bisect_end(const char *server, const char *token, long long id,
		      const char *json_path, struct buf *out)
{
	char path[64];
	long status;

	snprintf(path, sizeof(path), "jobs/%lld/report.txt", id);
	if (!get(server, token, path, &status, out) && status == 200)
		fputs(buf_str(out), stdout);
	snprintf(path, sizeof(path), "jobs/%lld/report.json", id);
	if (get(server, token, path, &status, out) || status != 200)
		return -1;
	if (json_path)
		util_write_atomic(json_path, out->ptr, out->len);
	return 0;
}

/*
 * A releases job's end (its document in out): the answer on the
 * terminal as bisectctl releases prints it, and its "releases" (the
 * bisection as bisectctl releases writes it) into json_path.  When
 * bisectd went on at the commit level, that bisect job is followed to
 * its end too, its report printed and its JSON report put into the
 * result as "commit_level".  Returns the commit level's exit status (as
 * bisectctl bisect's), or -1 when there is none.
 */
static int releases_end(const char *server, const char *token, struct follow *f,
			struct buf *out, const char *json_path)
{
	json_t *o = json_loads(buf_str(out), 0, NULL);
	json_t *r = json_object_get(o, "releases");
	json_t *cl = json_object_get(r, "commit_level");
	const char *next = json_string_value(json_object_get(r, "next_step"));
	json_int_t child = json_integer_value(json_object_get(cl, "job"));
	int code = -1;
	char *text;

	if (json_is_object(r))
		releases_print_answer(r);
	if (next)
		printf("next: %s\n", next);
	if (json_is_string(json_object_get(cl, "error")))
		printf("no commit-level bisection: %s\n",
		       json_string_value(json_object_get(cl, "error")));
	if (child > 0 && !follow(server, token, child, f, out)) {
		char *result = job_json_string(buf_str(out), "result");
		json_t *rep;

		code = end_status("bisect", result);
		free(result);
		rep = bisect_end(server, token, child, NULL, out)
			      ? NULL
			      : json_loads(buf_str(out), 0, NULL);
		if (rep)
			json_object_set_new(r, "commit_level", rep);
	} else if (child > 0) {
		code = 3; /* bisectd was lost */
	}
	if (json_path && json_is_object(r) &&
	    (text = json_dumps(r, JSON_INDENT(2)))) {
		util_write_atomic(json_path, text, strlen(text));
		free(text);
	}
	json_decref(o);
	return code;
}

/*
 * POST body to the API's path, given timeout_s; 0 when bisectd answers
 * want, else the exit status: 2 when it refused what (a 4xx), 3 when it
 * failed or could not be reached, said on stderr.  The answer is in out.
 */
static int post(const char *server, const char *token, const char *path,
		const char *body, double timeout_s, long want, const char *what,
		struct buf *out)
{
	char *url = util_fmt("%s/api/v1/%s", server, path);
	struct http_req r = { .method = "POST",
			      .url = url,
			      .token = token,
			      .body = body,
			      .len = body ? strlen(body) : 0,
			      .timeout_s = timeout_s };
	long status = 0;
	int rc = url && body ? http_do(&r, &status, out)
			     : err_set(ERR_NOMEM, "out of memory");

	free(url);
	if (rc) {
		fprintf(stderr, "bisectctl: %s\n", err_last());
		return 3;
	}
	if (status != want) {
		char *msg = job_json_string(buf_str(out), "error");

		fprintf(stderr, "bisectctl: %s refused the %s (HTTP %ld): %s\n",
			server, what, status, msg ? msg : buf_str(out));
		free(msg);
		return status >= 400 && status < 500 ? 2 : 3;
	}
	return 0;
}

/*
 * POST the job; its id into *id.  0, or the exit status when bisectd
 * refused it (2) or could not be reached (3), said on stderr.
 */
static int submit_job(const char *server, const char *token,
		      const struct job_spec *spec, struct buf *out,
		      long long *id)
{
	char *body = job_spec_dump(spec);
	/* a build of a Debian source version is imported first: give the
	 * submission time (about a minute the first time) */
	int rc = post(server, token, "jobs", body, 600, 201, "job", out);

	free(body);
	if (!rc)
		sscanf(buf_str(out), "{\"id\":%lld}", id);
	return rc;
}

int remote_run(const char *server, const char *token,
	       const struct job_spec *spec, const char *json_path,
	       FILE *progress)
{
	struct follow f = { .progress = progress };
	char *result = NULL, *reason = NULL;
	struct buf out;
	long long id = 0;
	int code;

	buf_init(&out, 64u << 20);
	if ((code = submit_job(server, token, spec, &out, &id)))
		goto out;
	code = 3;
	if (follow(server, token, id, &f, &out))
		goto out;
	result = job_json_string(buf_str(&out), "result");
	reason = job_json_string(buf_str(&out), "reason");
	code = end_status(spec->type, result);
	if (!strcmp(spec->type, "bisect")) {
		bisect_end(server, token, id, json_path, &out);
	} else if (!strcmp(spec->type, "releases")) {
		int cl = releases_end(server, token, &f, &out, json_path);

		if (cl >= 0) /* the commit level decides, as bisectctl
				releases --repo has it */
			code = cl;
	} else if (json_path) {
		util_write_atomic(json_path, out.ptr, out.len);
	}
	if (!strcmp(spec->type, "build") && result && !strcmp(result, "built"))
		printf("packages: %s/jobs/%lld/download\n", server, id);
	if (code >= 2 && code != 125 && reason)
		fprintf(stderr, "bisectctl: %s\n", reason);
	if (strcmp(spec->type, "bisect") && strcmp(spec->type, "releases"))
		printf("%s: %s\n", spec->commit, result ? result : "?");
out:
	free(reason);
	free(result);
	free(f.seen);
	buf_release(&out);
	return code;
}

/* The saved manual bisection's job on server, or 0. */
static long long saved_job(const char *state_path, const char *server)
{
	json_t *o = json_load_file(state_path, 0, NULL);
	const char *sv = json_string_value(json_object_get(o, "server"));
	json_int_t id = json_integer_value(json_object_get(o, "job"));

	if (!sv || strcmp(sv, server))
		id = 0;
	json_decref(o);
	return id;
}

/* Send verdict on the release job id waits for; 0, or an exit status. */
static int send_answer(const char *server, const char *token, long long id,
		       const char *verdict, struct buf *out)
{
	char path[64], *body = NULL;
	const char *release;
	long status = 0;
	json_t *o;
	int rc;

	snprintf(path, sizeof(path), "jobs/%lld", id);
	if (get(server, token, path, &status, out) || status != 200) {
		fprintf(stderr, "bisectctl: cannot read job %lld on %s\n", id,
			server);
		return 3;
	}
	o = json_loads(buf_str(out), 0, NULL);
	release = json_string_value(
		json_object_get(json_object_get(o, "waiting_for"), "release"));
	if (!release) {
		fprintf(stderr,
			"bisectctl: job %lld on %s is not waiting for an "
			"answer\n",
			id, server);
		json_decref(o);
		return 2;
	}
	body = util_fmt("{\"release\":\"%s\",\"verdict\":\"%s\"}", release,
			verdict);
	snprintf(path, sizeof(path), "jobs/%lld/answer", id);
	rc = post(server, token, path, body, 0, 200, "answer", out);
	if (!rc)
		fprintf(stderr, "bisectctl: %s: %s\n", release, verdict);
	json_decref(o);
	free(body);
	return rc;
}

int remote_manual(const char *server, const char *token,
		  const struct job_spec *spec, const char *verdict,
		  const char *state_path, const char *json_path, FILE *progress)
{
	struct follow f = { .progress = progress };
	struct buf out;
	long long id = 0;
	int code = 0;

	buf_init(&out, 64u << 20);
	if (spec) {
		code = submit_job(server, token, spec, &out, &id);
	} else if (!(id = saved_job(state_path, server))) {
		fprintf(stderr,
			"bisectctl: no manual release bisection is in "
			"progress on %s (start one with --manual)\n",
			server);
		code = 2;
	} else {
		code = send_answer(server, token, id, verdict, &out);
	}
	if (!code && follow_until(server, token, id, &f, &out, 1))
		code = 3;
	if (!code && waits(buf_str(&out))) {
		json_t *o = json_loads(buf_str(&out), 0, NULL);
		json_t *w = json_object_get(o, "waiting_for");
		json_t *saved = json_pack("{s:s, s:I}", "server", server, "job",
					  (json_int_t)id);
		char *text = NULL;

		printf("next: install release %s and boot it:\n  %s\n"
		       "then, once you know whether it works:\n"
		       "  bisectctl --server %s releases --continue "
		       "good|bad|skip\n",
		       json_string_value(json_object_get(w, "release")),
		       json_string_value(json_object_get(w, "install")),
		       server);
		if (saved && !json_dump_file(saved, state_path, 0) &&
		    json_path &&
		    (text = json_dumps(json_object_get(o, "releases"),
				       JSON_INDENT(2))))
			util_write_atomic(json_path, text, strlen(text));
		free(text);
		json_decref(saved);
		json_decref(o);
	} else if (!code) {
		char *result = job_json_string(buf_str(&out), "result");
		char *reason = job_json_string(buf_str(&out), "reason");

		unlink(state_path);
		code = end_status("releases", result);
		releases_end(server, token, &f, &out, json_path);
		if (code >= 2 && reason)
			fprintf(stderr, "bisectctl: %s\n", reason);
		free(result);
		free(reason);
	}
	free(f.seen);
	buf_release(&out);
	return code;
}
