/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The job model and its JSON form, shared by bisectd, bisectctl and
 * bisect-worker: a job request (what to bisect or test), the assignment
 * a worker gets for one step, a worker's capabilities, and the checks on
 * what workers send back.  Parsing is strict: unknown fields, wrong types
 * and out-of-range values are errors that name the field.
 */
#ifndef BISECTD_JOB_H
#define BISECTD_JOB_H

#include <stddef.h>

#define JOB_MAX_GOODS 64
#define JOB_MAX_PATCHES 16

/* The confidence of a kernel bisection that names none. */
#define JOB_KERNEL_CONFIDENCE 0.95

struct job_spec {
	char type[16]; /* "bisect", "test", "build" or "releases" */
	char *repo;    /* path or URL */
	char *bad;     /* bisect */
	char *good[JOB_MAX_GOODS];
	size_t ngood;
	char *commit; /* test, build */
	char *recipe; /* kernel mode */
	char *command; /* generic mode: a shell command, git bisect run's codes */
	int network;   /* the command needs the network (a worker may refuse) */
	char *test;    /* guest test script (text), or NULL */
	int runs;
	/* bisect: the probability at which a culprit is found (0: git's
	 * bisection, where every verdict is taken as certain), the runs
	 * after which it stops ambiguous (0: no limit), and the most runs of
	 * the bad endpoint while it has not failed 3 times.  A kernel
	 * bisection's confidence is JOB_KERNEL_CONFIDENCE unless given */
	double confidence;
	char *failure; /* the target failure: an ERE on crash titles */
	int max_runs;
	int endpoint_runs;
	int check_endpoints; /* test bad and goods first */
	/* bisect: find the fix, the first commit on which the failure is
	 * gone; bad is then the older commit, which fails, and good[0] the
	 * newer one, which passes (generic mode) */
	int fix;
	int max_workers; /* 0: as many as there are */
	char *callback;	 /* webhook URL, or NULL */
	/* the key of the webhook's HMAC-SHA256 signature; never shown */
	char *callback_secret;
	/* patches applied in order: a build job's "patches", or a kernel
	 * bisect or test job's "apply" (on every step: the fix of another
	 * bug that hides the one bisected); a build's package formats */
	char *patch_names[JOB_MAX_PATCHES];
	char *patch_texts[JOB_MAX_PATCHES];
	size_t npatches;
	int deb, rpm, dbg;
	int install_test; /* install the packages and boot them */
	/* build: the suite of bisectd's APT repository that this build's
	 * packages replace (the build's own is bisectd-ID), or NULL */
	char *channel;
	/* build: a Debian linux-source-6.1 version as the base; bisectd
	 * imports it and fills in repo and commit */
	char *source;
	/* releases: Debian's linux-image-ABI-FLAVOUR packages between
	 * good[0] and bad (ABIs such as 6.1.0-47), booted with recipe's
	 * settings (RELEASES_RECIPE unless given).  With repo (a
	 * linux-stable clone with the upstream tags), the commits between
	 * the two upstream versions are bisected next, by a bisect job of
	 * their own: with commit_recipe, or else with recipe and the last
	 * good release's config (base_release) */
	char *flavour;
	char *commit_recipe;
	/* kernel mode: the config of Debian's linux-image-BASE-FLAVOUR
	 * (fetched with APT by the worker) in place of the recipe's base */
	char *base_release;
	/* a bisect job that bisectd made to go on from releases job N at
	 * the commit level; never taken from a request */
	long long releases_job;
	/* releases, by hand: nothing is booted; each step names the next
	 * release to install, and the submitter's answers come back
	 * through the API (POST /jobs/N/answer) */
	int manual;
	/* the answers so far, "ABI:good ABI:bad ...", in a manual releases
	 * step's assignment; never taken from a request */
	char *answers;
	/* bisect: a performance regression (lib/metric.c) instead of a
	 * failure: the values of metric_name that the command or guest test
	 * prints ("bisect-metric: NAME VALUE [UNIT]"), lower (or, with
	 * metric_higher, higher) is better, and the culprit makes them worse
	 * by metric_min_change (a fraction) at least.  NULL: not one.  (Not
	 * the coordinator's Prometheus /metrics.) */
	char *metric_name;
	int metric_higher;
	double metric_min_change;
};

#define RELEASES_RECIPE "debian-cloud-amd64"

/* A releases job's names, as bisectctl releases takes them too: a
 * flavour of [a-z0-9-] ("cloud-amd64") up to 32 bytes, a release of
 * [0-9.-] ("6.1.0-47") up to 24, each starting with a letter or digit
 * (never '-': they are apt-get's arguments).  1 when s is one. */
int job_flavour_ok(const char *s);
/* 1 when name may be an APT suite a submitter names (a build's
 * "channel"): [a-z0-9][a-z0-9.+-]*, up to 64, not bisectd... (the
 * builds' own suites are bisectd-ID). */
int job_channel_ok(const char *name);
int job_release_ok(const char *s);

/*
 * Parse a request body.  ERR_INPUT with one line naming the problem:
 * malformed JSON, an unknown field, a wrong type, a missing field.
 */
int job_spec_parse(struct job_spec *out, const char *body, size_t len);
/*
 * The answer on a release of a manual releases job:
 * {"release": ABI, "verdict": "good"|"bad"|"skip"}.  ERR_INPUT with one
 * line naming the problem.
 */
int job_answer_parse(const char *body, size_t len, char release[25],
		     char verdict[5]);

/* Serialize (canonical JSON); NULL when out of memory.  Caller frees. */
char *job_spec_dump(const struct job_spec *j);
void job_spec_release(struct job_spec *j);

/* A worker's registration. */
struct job_caps {
	char name[64];
	char **recipes;
	size_t nrecipes;
	int kvm;
	int run;     /* accepts generic-mode commands */
	int network; /* gives those commands the network when they ask */
	int deb, rpm;
	int cores;
};

int job_caps_parse(struct job_caps *out, const char *body, size_t len);
char *job_caps_dump(const struct job_caps *c);
void job_caps_release(struct job_caps *c);
/* 1 when a worker with caps can run steps of spec. */
int job_caps_accept(const struct job_caps *c, const struct job_spec *spec);

/* A field of a JSON object as a string (NULL if absent).  Caller frees. */
char *job_json_string(const char *json, const char *field);

/* An integer field of a JSON object, or dflt. */
long long job_json_int(const char *json, const char *field, long long dflt);

/* 1 when a field of a JSON object is true. */
int job_json_true(const char *json, const char *field);

/* One step of a job document (bisectd's GET /api/v1/jobs/N). */
struct job_doc_step {
	long long id;
	const char *state, *commit, *role, *verdict, *title; /* or "" */
	int round;
	long long candidates;
	int cached;
};

/* Call fn for each step of a job document, in order. */
int job_doc_steps(const char *json,
		  void (*fn)(const struct job_doc_step *st, void *payload),
		  void *payload);

/* s as a JSON string literal, quotes included.  Caller frees. */
char *json_quote(const char *s);

/* One run of a kernel step, from its result's "run_results". */
struct job_run {
	char verdict[8];
	char title[256];
};

/* The runs a step result lists (at most max); 0 when it lists none. */
size_t job_json_runs(const char *json, struct job_run *out, size_t max);

/* {"error": msg} */
char *job_error_json(const char *msg);

/*
 * Numbers in a request's query: a finite decimal number from lo to hi
 * (job_query_number), or a positive whole number that fits (job_query_id:
 * a job, step or worker id, a limit).  0, or ERR_INPUT naming name.
 */
int job_query_number(const char *name, const char *s, double lo, double hi,
		     double *out);
int job_query_id(const char *name, const char *s, long long *out);

#endif
