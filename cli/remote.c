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

	if (strcmp(st->state, "done") || was_seen(f, st->id))
		return;
	fprintf(f->progress, "round %d %s: %.12s %s%s%s%s%s\n", st->round,
		st->role, st->commit, st->verdict, *st->title ? " (" : "",
		st->title, *st->title ? ")" : "",
		st->cached ? " [cached]" : "");
	fflush(f->progress);
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
 * A releases job's end: its "releases" (the bisection as bisectctl
 * releases writes it) into json_path, and the answer on the terminal
 * as bisectctl releases prints it.
 */
static void releases_end(const char *doc, const char *json_path)
{
	json_t *o = json_loads(doc, 0, NULL);
	json_t *r = json_object_get(o, "releases");
	const char *next = json_string_value(json_object_get(r, "next_step"));
	char *text;

	if (json_is_object(r))
		releases_print_answer(r);
	if (next)
		printf("next: %s\n", next);
	if (json_path && json_is_object(r) &&
	    (text = json_dumps(r, JSON_INDENT(2)))) {
		util_write_atomic(json_path, text, strlen(text));
		free(text);
	}
	json_decref(o);
}

int remote_run(const char *server, const char *token,
	       const struct job_spec *spec, const char *json_path,
	       FILE *progress)
{
	struct follow f = { .progress = progress };
	char *body = job_spec_dump(spec), *url, *state = NULL, *result = NULL;
	char *reason = NULL;
	char path[128];
	struct buf out;
	long status = 0;
	long long id = 0;
	double lost = 0;
	int rc, code = 3;

	buf_init(&out, 64u << 20);
	url = util_fmt("%s/api/v1/jobs", server);
	{
		/* a build of a Debian source version is imported first:
		 * give the submission time (about a minute the first time) */
		struct http_req r = { .method = "POST",
				      .url = url,
				      .token = token,
				      .body = body,
				      .len = body ? strlen(body) : 0,
				      .timeout_s = 600 };

		rc = body && url ? http_do(&r, &status, &out)
				 : err_set(ERR_NOMEM, "out of memory");
	}
	free(url);
	free(body);
	if (rc) {
		fprintf(stderr, "bisectctl: %s\n", err_last());
		goto out;
	}
	if (status != 201) {
		char *msg = job_json_string(buf_str(&out), "error");

		fprintf(stderr,
			"bisectctl: %s refused the job (HTTP %ld): %s\n",
			server, status, msg ? msg : buf_str(&out));
		free(msg);
		code = status >= 400 && status < 500 ? 2 : 3;
		goto out;
	}
	sscanf(buf_str(&out), "{\"id\":%lld}", &id);
	fprintf(progress, "bisectctl: job %lld on %s: %s/jobs/%lld\n", id,
		server, server, id);
	snprintf(path, sizeof(path), "jobs/%lld", id);
	for (;;) {
		struct timespec ts = { 1, 0 };

		if (get(server, token, path, &status, &out) || status != 200) {
			if (lost == 0)
				lost = util_now();
			if (util_now() - lost > 300) {
				fprintf(stderr,
					"bisectctl: lost %s for 5 minutes: "
					"%s\n",
					server, err_last());
				goto out;
			}
			nanosleep(&ts, NULL);
			continue;
		}
		lost = 0;
		job_doc_steps(buf_str(&out), on_step, &f);
		free(state);
		state = job_json_string(buf_str(&out), "state");
		if (state && strcmp(state, "queued") &&
		    strcmp(state, "running") && strcmp(state, "fetching"))
			break;
		nanosleep(&ts, NULL);
	}
	result = job_json_string(buf_str(&out), "result");
	reason = job_json_string(buf_str(&out), "reason");
	code = end_status(spec->type, result);
	if (!strcmp(spec->type, "bisect")) {
		snprintf(path, sizeof(path), "jobs/%lld/report.txt", id);
		if (!get(server, token, path, &status, &out) && status == 200)
			fputs(buf_str(&out), stdout);
		snprintf(path, sizeof(path), "jobs/%lld/report.json", id);
		if (json_path && !get(server, token, path, &status, &out) &&
		    status == 200)
			util_write_atomic(json_path, out.ptr, out.len);
	} else if (!strcmp(spec->type, "releases")) {
		releases_end(buf_str(&out), json_path);
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
	free(state);
	free(result);
	free(f.seen);
	buf_release(&out);
	return code;
}
