// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler alone: its decisions driven through its own calls, with
 * a fake store in memory (fake_store.c, linked in place of the SQLite
 * store: this program does not link SQLite) and no HTTP, on a clock the
 * test moves.  Which step goes to which worker, k-ary rounds, a
 * bisection to its culprit, lease expiry and heartbeats, and
 * cancellation.  The repository is tests/fixtures/mkrepo.sh's.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "fake_store.h"
#include "gitutil.h"
#include "job.h"
#include "scheduler.h"
#include "step.h"
#include "store.h"
#include "util.h"

static char top[64], repo[96], good[41], bad[41], culprit[41];

static int setup_repo(void **state)
{
	char *cmd;
	FILE *f;
	char line[128];

	(void)state;
	if (gu_init())
		return -1;
	snprintf(top, sizeof(top), "/tmp/test-sched-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", top);
	cmd = util_fmt("tests/fixtures/mkrepo.sh %s 5 40 2> /dev/null", repo);
	f = cmd ? popen(cmd, "r") : NULL;
	free(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "GOOD=%40s", good);
		sscanf(line, "BAD=%40s", bad);
		sscanf(line, "CULPRIT=%40s", culprit);
	}
	return pclose(f) == 0 && *good && *bad && *culprit ? 0 : -1;
}

static int teardown_repo(void **state)
{
	(void)state;
	util_remove_tree(top);
	return 0;
}

struct fixture {
	struct store *store;
	struct sched *s;
};

static void open_sched(struct fixture *fx, double lease_s, int workers)
{
	struct sched_opts o = { .state_dir = top,
				.recipe_path = "recipes",
				.lease_s = lease_s,
				.max_attempts = 3,
				.workers = workers,
				.live_window = 600 };

	assert_int_equal(store_open(&fx->store, ":memory:"), 0);
	assert_int_equal(sched_open(&fx->s, fx->store, &o), 0);
}

static void close_sched(struct fixture *fx)
{
	sched_close(fx->s);
	store_close(fx->store);
}

/* The worker token that the tests' workers register and call with (for
 * bisectd, a token's SHA-256 in hex), and another one. */
#define ME "1111111111111111"
#define OTHER "2222222222222222"

static long long worker_of(struct fixture *fx, const char *token,
			   const char *caps)
{
	long long id = 0;

	assert_int_equal(sched_register(fx->s, token, caps, strlen(caps), &id),
			 0);
	return id;
}

static long long worker(struct fixture *fx, const char *caps)
{
	return worker_of(fx, ME, caps);
}

static long long submit(struct fixture *fx, const char *extra)
{
	char *body = util_fmt("{\"type\":\"bisect\",\"repo\":\"%s\","
			      "\"bad\":\"%s\",\"good\":[\"%s\"],"
			      "\"command\":\"test ! -e regression\"%s}",
			      repo, bad, good, extra);
	long long id = 0;

	assert_non_null(body);
	if (sched_submit(fx->s, body, strlen(body), NULL, 0, "alice", &id))
		fail_msg("submit refused: %s", err_last());
	free(body);
	return id;
}

/* The worker's next assignment, or 0 when there is none for it. */
static int poll(struct fixture *fx, long long w, struct step_assignment *a)
{
	char *json = NULL;
	int rc = sched_poll(fx->s, ME, w, &json);

	if (rc == ERR_NOTFOUND)
		return 0;
	assert_int_equal(rc, 0);
	assert_int_equal(step_assignment_parse(a, json, strlen(json)), 0);
	free(json);
	return 1;
}

/* What the command would say at a commit: bad from the culprit on. */
static const char *verdict_at(const char *hex)
{
	struct gu_repo *r;
	struct gu_oid c, x;
	int anc;

	assert_int_equal(gu_open(&r, repo), 0);
	gu_oid_parse(&c, culprit);
	gu_oid_parse(&x, hex);
	anc = gu_is_ancestor(r, &c, &x);
	gu_close(r);
	assert_true(anc >= 0);
	return anc ? "bad" : "good";
}

static int answer(struct fixture *fx, const struct step_assignment *a)
{
	char *body = util_fmt("{\"v\":1,\"commit\":\"%s\",\"verdict\":\"%s\","
			      "\"title\":\"\"}",
			      a->commit, verdict_at(a->commit));
	int rc = sched_result(fx->s, ME, a->lease, body, strlen(body));

	free(body);
	return rc;
}

static void job(struct fixture *fx, long long id, struct store_job *j)
{
	assert_int_equal(store_job_get(fx->store, id, j), 0);
}

static void test_sched__steps_go_to_workers_that_can_run_them(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	long long kernel, run, net, id;

	(void)state;
	open_sched(&fx, 60, 1);
	kernel = worker(&fx, "{\"name\":\"k\",\"recipes\":[\"tiny\"]}");
	run = worker(&fx, "{\"name\":\"r\",\"run\":true}");
	net = worker(&fx, "{\"name\":\"n\",\"run\":true,\"network\":true}");
	id = submit(&fx, ",\"network\":true");
	assert_int_equal(poll(&fx, kernel, &a), 0);
	assert_int_equal(poll(&fx, run, &a), 0);
	assert_int_equal(poll(&fx, net, &a), 1);
	assert_int_equal(a.job, id);
	assert_int_equal(a.spec.network, 1);
	/* the submitter's key goes with it: sha256("alice"), 16 hex */
	assert_string_equal(a.tenant, "2bd806c97f0e00af");
	job_spec_release(&a.spec);
	close_sched(&fx);
}

static void test_sched__rounds_then_the_culprit(void **state)
{
	struct fixture fx;
	struct step_assignment a[3];
	struct store_job j;
	long long w[3], id;
	int round, i, got, rounds = 0;

	(void)state;
	open_sched(&fx, 60, 0);
	for (i = 0; i < 3; i++) {
		char *caps = util_fmt("{\"name\":\"w%d\",\"run\":true}", i);

		w[i] = worker(&fx, caps);
		free(caps);
	}
	id = submit(&fx, "");
	for (round = 0; round < 40; round++) {
		for (got = 0, i = 0; i < 3; i++)
			got += poll(&fx, w[i], &a[got]);
		if (!got)
			break;
		rounds++;
		/* three live workers: a round tests three commits at once,
		 * each a different one, while there are that many */
		if (round == 0) {
			assert_int_equal(got, 3);
			assert_string_not_equal(a[0].commit, a[1].commit);
			assert_string_not_equal(a[1].commit, a[2].commit);
			assert_string_not_equal(a[0].commit, a[2].commit);
		}
		/* the first answer is taken; it may make the others'
		 * probes irrelevant, and their leases cancelled */
		for (i = 0; i < got; i++) {
			int rc = answer(&fx, &a[i]);

			if (i == 0 || rc != ERR_NOTFOUND)
				assert_int_equal(rc, 0);
			job_spec_release(&a[i].spec);
		}
		assert_int_equal(sched_tick_all(fx.s), 0);
	}
	job(&fx, id, &j);
	assert_int_equal(j.state, JOB_DONE);
	assert_string_equal(j.result, "found");
	assert_string_equal(j.culprit, culprit);
	/* 4-ary search of 40-odd candidates: far fewer rounds than git's
	 * one commit at a time */
	assert_true(rounds <= 5);
	store_job_release(&j);
	close_sched(&fx);
}

static long long submit_test_as(struct fixture *fx, int runs, const char *owner)
{
	char *body = util_fmt("{\"type\":\"test\",\"repo\":\"%s\","
			      "\"commit\":\"%s\",\"runs\":%d,"
			      "\"command\":\"test ! -e regression\"}",
			      repo, culprit, runs);
	long long id = 0;

	assert_non_null(body);
	if (sched_submit(fx->s, body, strlen(body), NULL, 0, owner, &id))
		fail_msg("submit refused: %s", err_last());
	free(body);
	assert_int_equal(sched_tick_all(fx->s), 0);
	return id;
}

static long long submit_test(struct fixture *fx, int runs)
{
	return submit_test_as(fx, runs, "alice");
}

/* The one step of a test job, done: its result and whether it was cached. */
static char *test_step(struct fixture *fx, long long id, int *cached)
{
	struct store_step *steps = NULL;
	size_t n = 0;
	char *result;

	assert_int_equal(store_steps_of_job(fx->store, id, &steps, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(steps[0].state, STEP_DONE);
	*cached = steps[0].cached;
	result = strdup(steps[0].result);
	store_steps_release(steps, n);
	return result;
}

static void test_sched__the_cache_keeps_every_run(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	long long w, id;
	char *r, *body;
	int cached;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx, "{\"name\":\"w\",\"run\":true}");
	/* one run, made */
	submit_test(&fx, 1);
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_int_equal(answer(&fx, &a), 0);
	job_spec_release(&a.spec);
	/* one run again: answered by that run, which says where it came from */
	id = submit_test(&fx, 1);
	assert_int_equal(poll(&fx, w, &a), 0);
	r = test_step(&fx, id, &cached);
	assert_true(cached);
	assert_int_equal(step_result_runs(r), 1);
	assert_non_null(strstr(r, culprit));
	free(r);
	/* another submitter's verdicts are its own: a build directory
	 * that one submitter's earlier builds spoiled answers nobody else */
	submit_test_as(&fx, 1, "bob");
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_int_equal(answer(&fx, &a), 0);
	job_spec_release(&a.spec);
	/* two runs: one is not enough, so it runs, and they add up */
	submit_test(&fx, 2);
	assert_int_equal(poll(&fx, w, &a), 1);
	body = util_fmt("{\"v\":1,\"commit\":\"%s\",\"verdict\":\"bad\","
			"\"title\":\"exit status 1\",\"runs\":2,"
			"\"runs_failed\":1,\"run_results\":["
			"{\"verdict\":\"good\",\"title\":\"\"},"
			"{\"verdict\":\"bad\",\"title\":\"exit status 1\"}]}",
			a.commit);
	assert_int_equal(sched_result(fx.s, ME, a.lease, body, strlen(body)),
			 0);
	free(body);
	job_spec_release(&a.spec);
	/* a later job of two runs is answered by all three */
	id = submit_test(&fx, 2);
	assert_int_equal(poll(&fx, w, &a), 0);
	r = test_step(&fx, id, &cached);
	assert_true(cached);
	assert_int_equal(step_result_runs(r), 3);
	assert_int_equal(job_json_int(r, "runs_failed", -1), 2);
	free(r);
	close_sched(&fx);
}

static void test_sched__an_expired_lease_is_given_again(void **state)
{
	struct fixture fx;
	struct step_assignment a, b;
	long long w, v;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx, "{\"name\":\"w\",\"run\":true}");
	v = worker(&fx, "{\"name\":\"v\",\"run\":true}");
	submit(&fx, "");
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_int_equal(poll(&fx, v, &b), 0); /* one step at a time */
	/* a heartbeat within the lease keeps it past its first end */
	fake_store_now += 50;
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), 0);
	fake_store_now += 50;
	assert_int_equal(sched_tick_all(fx.s), 0);
	assert_int_equal(poll(&fx, v, &b), 0);
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), 0);
	/* then the worker is silent past its lease */
	fake_store_now += 61;
	assert_int_equal(sched_tick_all(fx.s), 0);
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), ERR_NOTFOUND);
	assert_int_equal(answer(&fx, &a), ERR_NOTFOUND);
	assert_int_equal(poll(&fx, v, &b), 1);
	assert_string_equal(b.commit, a.commit);
	assert_string_not_equal(b.lease, a.lease);
	assert_int_equal(answer(&fx, &b), 0);
	job_spec_release(&a.spec);
	job_spec_release(&b.spec);
	close_sched(&fx);
}

static void test_sched__cancel_ends_leases_and_steps(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	struct store_job j;
	long long w, id;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx, "{\"name\":\"w\",\"run\":true}");
	id = submit(&fx, "");
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_int_equal(sched_cancel(fx.s, id), 0);
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), ERR_NOTFOUND);
	assert_int_equal(answer(&fx, &a), ERR_NOTFOUND);
	job_spec_release(&a.spec);
	assert_int_equal(poll(&fx, w, &a), 0);
	assert_int_equal(sched_cancel(fx.s, id), ERR_INPUT);
	assert_int_equal(sched_cancel(fx.s, id + 100), ERR_NOTFOUND);
	job(&fx, id, &j);
	assert_int_equal(j.state, JOB_CANCELLED);
	store_job_release(&j);
	close_sched(&fx);
}

/*
 * A worker is its token's: another worker token neither polls for it
 * nor speaks for the lease it holds (heartbeat, upload, result), even
 * through a worker of its own; the worker's token still does.
 */
static void test_sched__workers_are_their_tokens(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	long long w, theirs, step = 0;
	char *json = NULL, *body;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx, "{\"name\":\"w\",\"run\":true}");
	theirs = worker_of(&fx, OTHER, "{\"name\":\"t\",\"run\":true}");
	submit(&fx, "");
	assert_int_equal(sched_poll(fx.s, OTHER, w, &json), ERR_DENIED);
	assert_null(json);
	assert_non_null(strstr(err_last(), "another worker token"));
	assert_int_equal(sched_poll(fx.s, ME, theirs, &json), ERR_DENIED);
	assert_int_equal(sched_poll(fx.s, ME, 99, &json), ERR_NOTFOUND);
	assert_non_null(strstr(err_last(), "unknown worker 99"));
	/* the refused polls leased nothing: the step is the worker's */
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_int_equal(sched_heartbeat(fx.s, OTHER, a.lease), ERR_DENIED);
	assert_int_equal(sched_lease(fx.s, OTHER, a.lease, &step), ERR_DENIED);
	assert_int_equal(step, 0);
	body = util_fmt("{\"v\":1,\"commit\":\"%s\",\"verdict\":\"good\","
			"\"title\":\"\"}",
			a.commit);
	assert_int_equal(sched_result(fx.s, OTHER, a.lease, body, strlen(body)),
			 ERR_DENIED);
	assert_non_null(strstr(err_last(), "another worker token"));
	free(body);
	/* the lease holds for its own worker, and its answer is taken */
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), 0);
	assert_int_equal(sched_lease(fx.s, ME, a.lease, &step), 0);
	assert_int_equal(step, a.step);
	assert_int_equal(answer(&fx, &a), 0);
	job_spec_release(&a.spec);
	close_sched(&fx);
}

/*
 * A result names its step's commit: one that names another is refused
 * and stores nothing, and the lease holds for the right one.
 */
static void test_sched__a_result_is_about_its_step(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	struct store_step st;
	long long w;
	char *body;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx, "{\"name\":\"w\",\"run\":true}");
	submit(&fx, "");
	assert_int_equal(poll(&fx, w, &a), 1);
	body = util_fmt("{\"v\":1,\"commit\":\"%s\",\"verdict\":\"good\","
			"\"title\":\"\"}",
			strcmp(a.commit, good) ? good : bad);
	assert_int_equal(sched_result(fx.s, ME, a.lease, body, strlen(body)),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "field 'commit'"));
	free(body);
	assert_int_equal(store_step_get(fx.store, a.step, &st), 0);
	assert_int_equal(st.state, STEP_LEASED);
	assert_null(st.result);
	assert_int_equal(sched_heartbeat(fx.s, ME, a.lease), 0);
	assert_int_equal(answer(&fx, &a), 0);
	job_spec_release(&a.spec);
	close_sched(&fx);
}

static long long submit_releases(struct fixture *fx)
{
	static const char body[] =
		"{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\"}";
	long long id = 0;

	if (sched_submit(fx->s, body, strlen(body), NULL, 0, "alice", &id))
		fail_msg("submit refused: %s", err_last());
	assert_int_equal(sched_tick_all(fx->s), 0);
	return id;
}

/* The worker takes the releases job's one step and answers json. */
static void releases_answer(struct fixture *fx, long long w, const char *json)
{
	struct step_assignment a;
	char *body;

	assert_int_equal(poll(fx, w, &a), 1);
	assert_string_equal(a.role, "releases");
	assert_string_equal(a.spec.type, "releases");
	assert_string_equal(a.spec.flavour, "cloud-amd64");
	body = util_fmt("{\"v\":1,\"commit\":\"%s\",%s}", a.commit, json);
	assert_int_equal(sched_result(fx->s, ME, a.lease, body, strlen(body)),
			 0);
	assert_int_equal(sched_tick_all(fx->s), 0);
	free(body);
	job_spec_release(&a.spec);
}

/* Job id ended in state with result and (unless NULL) reason. */
static void ended(struct fixture *fx, long long id, int state,
		  const char *result, const char *reason)
{
	struct store_job j;

	job(fx, id, &j);
	assert_int_equal(j.state, state);
	assert_string_equal(j.result, result);
	if (reason)
		assert_string_equal(j.reason, reason);
	store_job_release(&j);
}

static void test_sched__releases_jobs(void **state)
{
	static const char infra[] = "\"verdict\":\"infra\",\"title\":\"apt-get "
				    "failed\"";
	struct fixture fx;
	struct step_assignment a;
	struct store_job j;
	struct store_step *steps = NULL;
	size_t n = 0;
	long long w, other, id;

	(void)state;
	open_sched(&fx, 60, 1);
	other = worker(&fx, "{\"name\":\"o\",\"recipes\":[\"tiny\"]}");
	w = worker(&fx,
		   "{\"name\":\"w\",\"recipes\":[\"debian-cloud-amd64\"]}");
	/* found: the step's verdict is bad, its bisection in the document */
	id = submit_releases(&fx);
	assert_int_equal(poll(&fx, other, &a), 0); /* not its recipe */
	releases_answer(&fx, w,
			"\"verdict\":\"bad\",\"title\":\"first bad release "
			"6.1.0-50\",\"releases\":{\"result\":\"found\","
			"\"first_bad_release\":\"6.1.0-50\","
			"\"last_good_release\":\"6.1.0-49\",\"probes\":[]}");
	ended(&fx, id, JOB_DONE, "found", NULL);
	assert_int_equal(store_steps_of_job(fx.store, id, &steps, &n), 0);
	/* the step keeps the worker's bisection (the document shows it) */
	assert_int_equal(n, 1);
	assert_non_null(strstr(steps[0].result, "\"releases\":{"));
	assert_non_null(
		strstr(steps[0].result, "\"first_bad_release\":\"6.1.0-50\""));
	store_steps_release(steps, n);
	/* the same job again is run again: no cached answer */
	id = submit_releases(&fx);
	releases_answer(&fx, w,
			"\"verdict\":\"skip\",\"title\":\"the releases "
			"between do not boot\"");
	ended(&fx, id, JOB_DONE, "ambiguous",
	      "the releases between do not boot");
	/* a release APT does not know: failed at once, not retried */
	id = submit_releases(&fx);
	releases_answer(&fx, w,
			"\"verdict\":\"infra\",\"abort\":true,\"title\":"
			"\"release 6.1.0-57 is not known to APT\"");
	ended(&fx, id, JOB_FAILED, "error",
	      "release 6.1.0-57 is not known to APT");
	assert_int_equal(poll(&fx, w, &a), 0);
	/* a failure of the worker's machine is tried once more */
	id = submit_releases(&fx);
	releases_answer(&fx, w, infra);
	job(&fx, id, &j);
	assert_int_not_equal(j.state, JOB_FAILED);
	store_job_release(&j);
	releases_answer(&fx, w, infra);
	ended(&fx, id, JOB_FAILED, "infra", NULL);
	close_sched(&fx);
}

/* A releases job with a repository: the id of the job it went on to,
 * or 0, after a worker found releases whose upstream versions are
 * good_up and bad_up; the outcome of the releases job into *outcome. */
static long long go_on(struct fixture *fx, long long w, const char *extra,
		       const char *good_up, const char *bad_up, char **outcome)
{
	char *body = util_fmt("{\"type\":\"releases\",\"flavour\":"
			      "\"cloud-amd64\",\"good\":[\"6.1.0-47\"],"
			      "\"bad\":\"6.1.0-57\",\"repo\":\"%s\","
			      "\"test\":\"exit 0\",\"runs\":2%s}",
			      repo, extra);
	char *answer = util_fmt(
		"\"verdict\":\"bad\",\"title\":\"first bad release "
		"6.1.0-50\",\"releases\":{\"result\":\"found\","
		"\"first_bad_release\":\"6.1.0-50\",\"first_bad_upstream\":"
		"\"%s\",\"last_good_release\":\"6.1.0-49\","
		"\"last_good_upstream\":\"%s\",\"probes\":[]}",
		bad_up, good_up);
	struct store_job j;
	long long id = 0, next;

	assert_non_null(body);
	assert_non_null(answer);
	if (sched_submit(fx->s, body, strlen(body), NULL, 0, "alice", &id))
		fail_msg("submit refused: %s", err_last());
	assert_int_equal(sched_tick_all(fx->s), 0);
	releases_answer(fx, w, answer);
	ended(fx, id, JOB_DONE, "found", NULL);
	job(fx, id, &j);
	*outcome = j.outcome ? strdup(j.outcome) : NULL;
	next = j.outcome ? job_json_int(j.outcome, "commit_level_job", 0) : 0;
	store_job_release(&j);
	free(body);
	free(answer);
	return next;
}

static void test_sched__releases_go_on_at_the_commit_level(void **state)
{
	struct fixture fx;
	struct step_assignment a;
	struct store_job j;
	struct job_spec sp;
	char *cmd, *outcome;
	long long w, id;

	(void)state;
	cmd = util_fmt("git -C %s tag v6.1.49 %s && git -C %s tag -a -m "
		       "v6.1.50 v6.1.50 %s",
		       repo, good, repo, bad);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	open_sched(&fx, 60, 1);
	w = worker(&fx,
		   "{\"name\":\"w\",\"recipes\":[\"debian-cloud-amd64\"]}");

	/* a bisect job between the tags (an annotated one peeled), with
	 * the last good release's config, the test and the submitter */
	id = go_on(&fx, w, "", "6.1.49", "6.1.50", &outcome);
	assert_true(id > 0);
	job(&fx, id, &j);
	assert_string_equal(j.type, "bisect");
	assert_string_equal(j.owner, "alice");
	assert_int_equal(job_spec_parse(&sp, j.spec, strlen(j.spec)), 0);
	assert_string_equal(sp.good[0], good);
	assert_string_equal(sp.bad, bad);
	assert_string_equal(sp.recipe, "debian-cloud-amd64");
	assert_string_equal(sp.base_release, "6.1.0-49");
	assert_string_equal(sp.flavour, "cloud-amd64");
	assert_string_equal(sp.test, "exit 0");
	assert_int_equal(sp.runs, 2);
	assert_int_equal(sp.releases_job, id - 1);
	job_spec_release(&sp);
	store_job_release(&j);
	free(outcome);
	/* it is planned at once: its first step goes to the worker, with
	 * the release whose config it builds */
	assert_int_equal(poll(&fx, w, &a), 1);
	assert_string_equal(a.spec.type, "bisect");
	assert_string_equal(a.spec.base_release, "6.1.0-49");
	job_spec_release(&a.spec);
	assert_int_equal(sched_cancel(fx.s, id), 0);

	/* with commit_recipe: that recipe as it is */
	id = go_on(&fx, w, ",\"commit_recipe\":\"tiny\"", "6.1.49", "6.1.50",
		   &outcome);
	job(&fx, id, &j);
	assert_int_equal(job_spec_parse(&sp, j.spec, strlen(j.spec)), 0);
	assert_string_equal(sp.recipe, "tiny");
	assert_null(sp.base_release);
	job_spec_release(&sp);
	store_job_release(&j);
	free(outcome);
	assert_int_equal(sched_cancel(fx.s, id), 0);

	/* a tag the repository lacks: no job, and the outcome says why */
	assert_int_equal(go_on(&fx, w, "", "6.1.49", "6.1.51", &outcome), 0);
	assert_non_null(outcome);
	assert_non_null(strstr(outcome, "has no tag v6.1.51"));
	free(outcome);
	/* one upstream version: Debian's patches differ, no commit level */
	assert_int_equal(go_on(&fx, w, "", "6.1.50", "6.1.50", &outcome), 0);
	assert_null(outcome);
	/* a request cannot name the releases job itself */
	cmd = util_fmt("{\"type\":\"bisect\",\"repo\":\"%s\",\"bad\":"
		       "\"%s\",\"good\":[\"%s\"],\"command\":\"true\","
		       "\"releases_job\":1}",
		       repo, bad, good);
	assert_int_equal(
		sched_submit(fx.s, cmd, strlen(cmd), NULL, 0, "alice", &id),
		ERR_INPUT);
	assert_non_null(strstr(err_last(), "'releases_job' is set by bisectd"));
	free(cmd);
	close_sched(&fx);
}

/* A manual releases step: the assignment's answers, then the worker's
 * json. */
static void manual_step(struct fixture *fx, long long w, const char *answers,
			const char *json)
{
	struct step_assignment a;
	char *body;

	assert_int_equal(poll(fx, w, &a), 1);
	assert_string_equal(a.role, "releases");
	assert_true(a.spec.manual);
	if (answers)
		assert_string_equal(a.spec.answers, answers);
	else
		assert_null(a.spec.answers);
	body = util_fmt("{\"v\":1,\"commit\":\"%s\",%s}", a.commit, json);
	assert_int_equal(sched_result(fx->s, ME, a.lease, body, strlen(body)),
			 0);
	assert_int_equal(sched_tick_all(fx->s), 0);
	free(body);
	job_spec_release(&a.spec);
}

#define WAITING(abi)                                                           \
	"\"verdict\":\"good\",\"title\":\"waiting for an answer on "           \
	"release " abi "\",\"releases\":{\"result\":\"waiting\","              \
	"\"next_release\":\"" abi "\"}"

static void test_sched__manual_releases(void **state)
{
	static const char body[] =
		"{\"type\":\"releases\",\"flavour\":\"cloud-amd64\","
		"\"good\":[\"6.1.0-47\"],\"bad\":\"6.1.0-57\","
		"\"manual\":true}";
	struct fixture fx;
	struct step_assignment a;
	struct store_job j;
	long long w, id = 0;

	(void)state;
	open_sched(&fx, 60, 1);
	w = worker(&fx,
		   "{\"name\":\"w\",\"recipes\":[\"debian-cloud-amd64\"]}");
	if (sched_submit(fx.s, body, strlen(body), NULL, 0, "alice", &id))
		fail_msg("submit refused: %s", err_last());
	/* the first step has no answers; it names the release to install */
	manual_step(&fx, w, NULL, WAITING("6.1.0-52"));
	/* then nothing runs until the answer comes */
	assert_int_equal(poll(&fx, w, &a), 0);
	job(&fx, id, &j);
	assert_int_equal(j.state, JOB_RUNNING);
	store_job_release(&j);
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-53", "good"), ERR_INPUT);
	assert_string_equal(err_last(), "job 1 is waiting for an answer on "
					"release 6.1.0-52, not 6.1.0-53");
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-52", "good"), 0);
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-52", "bad"), ERR_INPUT);
	assert_string_equal(err_last(),
			    "job 1 is not waiting for an answer now");
	/* each next step has every answer so far */
	manual_step(&fx, w, "6.1.0-52:good", WAITING("6.1.0-55"));
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-55", "bad"), 0);
	/* a failure of the worker's machine: that step again */
	manual_step(&fx, w, "6.1.0-52:good 6.1.0-55:bad",
		    "\"verdict\":\"infra\",\"title\":\"apt-get failed\"");
	manual_step(&fx, w, "6.1.0-52:good 6.1.0-55:bad",
		    "\"verdict\":\"bad\",\"title\":\"first bad release "
		    "6.1.0-53\",\"releases\":{\"result\":\"found\"}");
	ended(&fx, id, JOB_DONE, "found", NULL);
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-52", "good"), ERR_INPUT);
	assert_string_equal(err_last(), "job 1 has ended");
	/* a job that is not manual takes no answers */
	id = submit_releases(&fx);
	assert_int_equal(sched_answer(fx.s, id, "6.1.0-52", "good"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "is not a manual releases job"));
	close_sched(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_sched__steps_go_to_workers_that_can_run_them),
		cmocka_unit_test(test_sched__rounds_then_the_culprit),
		cmocka_unit_test(test_sched__the_cache_keeps_every_run),
		cmocka_unit_test(test_sched__an_expired_lease_is_given_again),
		cmocka_unit_test(test_sched__cancel_ends_leases_and_steps),
		cmocka_unit_test(test_sched__workers_are_their_tokens),
		cmocka_unit_test(test_sched__a_result_is_about_its_step),
		cmocka_unit_test(test_sched__releases_jobs),
		cmocka_unit_test(
			test_sched__releases_go_on_at_the_commit_level),
		cmocka_unit_test(test_sched__manual_releases),
	};

	return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
